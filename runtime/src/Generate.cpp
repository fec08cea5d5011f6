//===- Generate.cpp - prefill and decode with a KV cache ------------------===//
//
// The model's inputs by name, as Hugging Face's with-past exports have
// them: input_ids, attention_mask (optional; over past + new positions),
// position_ids (optional; each row's attended tokens before, as Hugging
// Face counts them: cumsum(mask) - 1, 1 where masked), and the past inputs the
// compiler made a KV cache (shardc_keep_cache binds them; nothing is
// copied between steps) or, where it did not (a partitioned program), a
// past_key_values.X input fed present.X of the last step. The logits are
// the output named "logits", else the first [batch, new, vocab] float
// output that is not a cache.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Generate.h"

#include "shardc/cpu.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <omp.h>
#include <sys/resource.h>

namespace shardc::rt {
namespace {

struct Roles {
  int ids = -1, mask = -1, positions = -1, logits = -1;
  /// The largest past the cache holds (its bound along the cache axis).
  int64_t maxPast = -1;
  /// Past inputs fed the present output of the last step: [batch, heads,
  /// past, head size], growing along dim 2.
  struct Copied {
    int input, output;
  };
  std::vector<Copied> copied;
  /// Whether some past is a cache kept in place (shardc_keep_cache).
  bool kept = false;
};

/// The output named `name`, or -1.
int outputNamed(shardc_model *m, const std::string &name) {
  for (int i = 0; i < shardc_num_outputs(m); ++i) {
    shardc_tensor_info info;
    if (shardc_output_info(m, i, &info) == SHARDC_OK && name == info.name)
      return i;
  }
  return -1;
}

std::string str(const shardc_tensor_info &info) {
  std::string s = std::string(shardc_dtype_name(info.dtype)) + " [";
  for (int32_t d = 0; d < info.rank; ++d)
    s += (d ? "," : "") + std::to_string(info.dims[d]);
  return s + "]";
}

bool findRoles(shardc_model *m, bool sampler, Roles &r, std::string &error) {
  std::vector<bool> cacheOutput(shardc_num_outputs(m), false);
  for (int i = 0; i < shardc_num_inputs(m); ++i) {
    shardc_tensor_info info;
    shardc_input_info(m, i, &info);
    std::string name = info.name;
    int64_t axis = -1, output = -1;
    if (shardc_input_cache(m, i, &output, &axis) == SHARDC_OK && output >= 0) {
      cacheOutput[static_cast<size_t>(output)] = true;
      r.maxPast = info.dims[axis];
      r.kept = true;
      continue;
    }
    bool ints = info.dtype == SHARDC_INT64 && info.rank == 2;
    const std::string pastPrefix = "past_key_values.";
    if (name.rfind(pastPrefix, 0) == 0 && info.rank == 4) {
      int present = outputNamed(m, "present." + name.substr(pastPrefix.size()));
      shardc_tensor_info out;
      if (present >= 0 && shardc_output_info(m, present, &out) == SHARDC_OK &&
          out.dtype == info.dtype && out.rank == 4) {
        cacheOutput[static_cast<size_t>(present)] = true;
        r.copied.push_back({i, present});
        r.maxPast =
            r.maxPast < 0 ? info.dims[2] : std::min(r.maxPast, info.dims[2]);
        continue;
      }
    }
    if (name == "input_ids" && ints)
      r.ids = i;
    else if (name == "attention_mask" && ints)
      r.mask = i;
    else if (name == "position_ids" && ints)
      r.positions = i;
    else {
      error = "--generate feeds input_ids, attention_mask, position_ids and "
              "the KV cache; the model also takes '" +
              name + "' (" + str(info) + ")";
      return false;
    }
  }
  if (r.maxPast < 0) {
    error = "--generate needs a decoder with a KV cache: compile a model "
            "exported with past_key_values in and present out "
            "(torch.onnx.export of a Hugging Face model called with "
            "past_key_values and use_cache=True) with --max-shape for the past";
    return false;
  }
  if (r.ids < 0) {
    error = "--generate needs an int64 input 'input_ids' [batch, sequence]";
    return false;
  }
  for (int i = 0; i < shardc_num_outputs(m); ++i) {
    shardc_tensor_info info;
    shardc_output_info(m, i, &info);
    if (cacheOutput[static_cast<size_t>(i)] || info.rank != 3 ||
        (info.dtype != SHARDC_FLOAT32 && info.dtype != SHARDC_FLOAT16 &&
         info.dtype != SHARDC_BFLOAT16))
      continue;
    if (std::string(info.name) == "logits") {
      r.logits = i;
      break;
    }
    if (r.logits < 0)
      r.logits = i;
  }
  if (r.logits < 0 && sampler) {
    error = "--generate needs a [batch, sequence, vocab] float output "
            "(the logits)";
    return false;
  }
  return true;
}

float load(const void *p, int32_t dtype, size_t i) {
  if (dtype == SHARDC_FLOAT32)
    return static_cast<const float *>(p)[i];
  uint16_t h = static_cast<const uint16_t *>(p)[i];
  return dtype == SHARDC_BFLOAT16 ? sc_bf2f(h) : sc_h2f(h);
}

/// The next token of one row from its logits over the vocabulary.
int64_t pick(const std::vector<float> &logits, const GenerateOptions &g,
             std::mt19937_64 &rng) {
  size_t v = logits.size();
  if (g.temperature <= 0)
    return std::max_element(logits.begin(), logits.end()) - logits.begin();
  std::vector<size_t> order(v);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return logits[a] > logits[b]; });
  size_t keep = g.topK > 0 ? std::min<size_t>(v, g.topK) : v;
  std::vector<double> p(keep);
  double top = logits[order[0]], sum = 0;
  for (size_t j = 0; j < keep; ++j)
    sum += p[j] = std::exp((logits[order[j]] - top) / g.temperature);
  // Top-p: the fewest most likely tokens whose probability reaches top_p.
  double mass = 0;
  size_t n = 0;
  while (n < keep) {
    mass += p[n++] / sum;
    if (mass >= g.topP)
      break;
  }
  std::discrete_distribution<size_t> dist(p.begin(), p.begin() + n);
  return static_cast<int64_t>(order[dist(rng)]);
}

bool ok(shardc_status s, std::string &error) {
  if (s == SHARDC_OK)
    return true;
  error = shardc_last_error();
  return false;
}

} // namespace

namespace {

/// The decode steps' thread count under contention (issue 28, item 1;
/// docs/performance.md, "Decoding with a KV cache", under load). A step is
/// ~150 OpenMP regions of ~100 us (matrix-vector products); beside a busy
/// process each region waits for the team's thread that shares its core,
/// and a step took 1.9-2.5x ONNX Runtime's, where one thread loses only its
/// share of the CPU. The loop times its decode steps and counts the
/// process's involuntary context switches in each (the scheduler taking a
/// core from it: none on a quiet machine). After a step with several, it
/// tries one thread for a step (at most every kRetry steps); a count
/// whose recent steps (an average weighted toward the last) are kMargin
/// faster becomes the one it runs; on one thread it tries the team every
/// kProbe steps. A quiet machine never leaves the team, and pays nothing.
class ThreadGovernor {
public:
  /// `force`: every step counts as preempted (a test of the switching).
  ThreadGovernor(bool on, bool force)
      : team(omp_get_max_threads()), on(on && team > 1), force(force) {}
  ~ThreadGovernor() {
    if (on)
      omp_set_num_threads(team);
  }
  /// The count for decode step `step` (1 onwards).
  void before(int64_t step) {
    if (!on)
      return;
    probing = current == 0 ? (force || switches >= kPreempted) &&
                                 step - lastProbe >= kRetry
                           : step - lastProbe >= kProbe;
    if (probing)
      lastProbe = step;
    omp_set_num_threads(threadsOf(probing ? other() : current));
    switchesBefore = involuntarySwitches();
  }
  /// The step's time.
  void after(double ms) {
    if (!on)
      return;
    switches = involuntarySwitches() - switchesBefore;
    int mode = probing ? other() : current;
    avg[mode] = avg[mode] < 0 ? ms : 0.5 * avg[mode] + 0.5 * ms;
    if (avg[0] >= 0 && avg[1] >= 0 && avg[other()] * kMargin < avg[current])
      current = other();
    oneThreadSteps += mode == 1;
  }
  int64_t oneThreadSteps = 0;

private:
  static constexpr int64_t kProbe = 48, kRetry = 8;
  static constexpr long kPreempted = 4;
  static constexpr double kMargin = 1.15;
  static long involuntarySwitches() {
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_nivcsw : 0;
  }
  int other() const { return 1 - current; }
  int threadsOf(int mode) const { return mode == 1 ? 1 : team; }
  int team;
  bool on, force;
  int current = 0; ///< 0: the team, 1: one thread
  bool probing = false;
  int64_t lastProbe = -kRetry;
  long switches = 0, switchesBefore = 0;
  double avg[2] = {-1, -1}; ///< ms per step of each count
};

} // namespace

bool generate(shardc_model *m, const GenerateOptions &g,
              const io::Tensor &prompt, const io::Tensor *mask, io::Tensor &out,
              std::string &error) {
  Roles r;
  const bool sampler = shardc_rank(m) == g.sampler;
  if (!findRoles(m, sampler, r, error))
    return false;
  if (prompt.dtype != SHARDC_INT64 || prompt.dims.size() != 2 ||
      prompt.dims[1] < 1) {
    error = "input 'input_ids': --generate takes int64 [batch, sequence] "
            "prompt ids";
    return false;
  }
  const int64_t B = prompt.dims[0], S0 = prompt.dims[1], N = g.tokens;
  // The last step reads the prompt and every new token but the last.
  if (S0 + N - 2 > r.maxPast) {
    error = "a prompt of " + std::to_string(S0) + " tokens and " +
            std::to_string(N) + " new ones need a cache of " +
            std::to_string(S0 + N - 2) + " past entries; the model's holds " +
            std::to_string(r.maxPast) +
            " (compile it with a larger --max-shape for the past)";
    return false;
  }
  // The mask over every position so far: the prompt's, then 1s.
  std::vector<int64_t> full(static_cast<size_t>(B * (S0 + N)), 1);
  const std::vector<int64_t> &lengths = g.promptLengths;
  if (!lengths.empty() && (int64_t)lengths.size() != B) {
    error = "--prompt-lengths gives " + std::to_string(lengths.size()) +
            " lengths for a prompt of " + std::to_string(B) + " rows";
    return false;
  }
  for (size_t b = 0; b < lengths.size(); ++b)
    if (lengths[b] < 1 || lengths[b] > S0) {
      error = "--prompt-lengths: row " + std::to_string(b) + "'s length " +
              std::to_string(lengths[b]) + " is not within 1.." +
              std::to_string(S0) + " (the prompt's width)";
      return false;
    }
  if (mask) {
    if (mask->dtype != SHARDC_INT64 || mask->dims != prompt.dims) {
      error = "input 'attention_mask': --generate takes an int64 mask of the "
              "prompt's shape [" +
              std::to_string(B) + "," + std::to_string(S0) + "]";
      return false;
    }
    const int64_t *mk = reinterpret_cast<const int64_t *>(mask->data.data());
    for (int64_t b = 0; b < B; ++b)
      std::copy(mk + b * S0, mk + (b + 1) * S0, full.begin() + b * (S0 + N));
  }
  std::vector<int64_t> ids(static_cast<size_t>(B * (S0 + N)), 0);
  const int64_t *pr = reinterpret_cast<const int64_t *>(prompt.data.data());
  for (int64_t b = 0; b < B; ++b) {
    // A ragged row's ids move right, behind masked padding (ids 0).
    int64_t pad = lengths.empty() ? 0 : S0 - lengths[b];
    std::copy(pr + b * S0, pr + (b + 1) * S0 - pad,
              ids.begin() + b * (S0 + N) + pad);
    std::fill(full.begin() + b * (S0 + N), full.begin() + b * (S0 + N) + pad,
              0);
  }
  std::vector<bool> done(static_cast<size_t>(B), false);
  std::mt19937_64 rng(g.seed);

  using Clock = std::chrono::steady_clock;
  double firstMs = 0, decodeMs = 0;
  int64_t past = 0;
  int64_t step = 0;
  ThreadGovernor governor(g.adaptThreads, g.forceAdapt);
  for (; step < N; ++step) {
    if (step > 0)
      governor.before(step);
    auto t0 = Clock::now();
    const int64_t S = step == 0 ? S0 : 1, T = past + S;
    // This step's ids, mask and positions.
    std::vector<int64_t> stepIds(static_cast<size_t>(B * S)),
        stepMask(static_cast<size_t>(B * T)), pos(static_cast<size_t>(B * S));
    for (int64_t b = 0; b < B; ++b) {
      // Positions count the attended tokens before (Hugging Face's
      // cumsum(mask) - 1; 1 where masked).
      int64_t seen = 0;
      for (int64_t t = 0; t < T; ++t) {
        int64_t m = full[b * (S0 + N) + t];
        stepMask[b * T + t] = m;
        seen += m != 0;
        if (t >= past) {
          stepIds[b * S + t - past] = ids[b * (S0 + N) + t];
          pos[b * S + t - past] = m ? seen - 1 : 1;
        }
      }
    }
    int64_t idDims[2] = {B, S}, maskDims[2] = {B, T};
    if (!ok(shardc_bind_input(m, "input_ids", SHARDC_INT64, 2, idDims,
                              stepIds.data(), stepIds.size() * 8),
            error))
      return false;
    if (r.mask >= 0 &&
        !ok(shardc_bind_input(m, "attention_mask", SHARDC_INT64, 2, maskDims,
                              stepMask.data(), stepMask.size() * 8),
            error))
      return false;
    if (r.positions >= 0 &&
        !ok(shardc_bind_input(m, "position_ids", SHARDC_INT64, 2, idDims,
                              pos.data(), pos.size() * 8),
            error))
      return false;
    // Past inputs read as inputs: the last step's presents (empty first).
    for (const Roles::Copied &c : r.copied) {
      shardc_tensor_info in, present;
      const void *data = &past; // any pointer: no bytes at the first step
      size_t bytes = 0;
      if (!ok(shardc_input_info(m, c.input, &in), error))
        return false;
      int64_t dims[4] = {B, in.dims[1], 0, in.dims[3]};
      if (step > 0) {
        if (!ok(shardc_output_info(m, c.output, &present), error) ||
            !ok(shardc_output(m, c.output, &data, &bytes), error))
          return false;
        std::copy(present.dims, present.dims + 4, dims);
      }
      if (!ok(shardc_bind_input(m, in.name, in.dtype, 4, dims, data, bytes),
              error))
        return false;
    }
    if ((r.kept && !ok(shardc_keep_cache(m, past), error)) ||
        !ok(shardc_run(m), error))
      return false;
    // The rank with the logits picks each row's token; every rank takes it,
    // with a last word that says whether the picking failed (the other
    // ranks then stop too instead of waiting for the next step).
    std::vector<int64_t> next(static_cast<size_t>(B + 1), 0);
    shardc_tensor_info info;
    const void *data = nullptr;
    size_t bytes;
    if (sampler && (!ok(shardc_output_info(m, r.logits, &info), error) ||
                    !ok(shardc_output(m, r.logits, &data, &bytes), error) ||
                    info.dims[0] != B || info.dims[1] != S)) {
      if (data)
        error = std::string("output '") + info.name + "' is " + str(info) +
                ", not [batch, sequence, vocab] of this step";
      next[B] = 1;
    } else if (sampler) {
      const int64_t V = info.dims[2];
      std::vector<float> row(static_cast<size_t>(V));
      for (int64_t b = 0; b < B; ++b) {
        if (done[b]) {
          next[b] = ids[b * (S0 + N) + past + S - 1];
          continue;
        }
        size_t base = static_cast<size_t>((b * S + S - 1) * V);
        for (int64_t v = 0; v < V; ++v)
          row[v] = load(data, info.dtype, base + v);
        next[b] = pick(row, g, rng);
      }
    }
    if (!ok(shardc_broadcast(m, g.sampler, next.data(), next.size() * 8),
            error))
      return false;
    if (next[B]) {
      if (!sampler)
        error = "rank " + std::to_string(g.sampler) +
                ", which picks the tokens, failed";
      return false;
    }
    bool all = true;
    for (int64_t b = 0; b < B; ++b) {
      if (g.eosId && next[b] == *g.eosId)
        done[b] = true;
      all &= done[b];
      ids[b * (S0 + N) + past + S] = next[b];
    }
    past = T;
    double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    (step == 0 ? firstMs : decodeMs) += ms;
    if (step > 0)
      governor.after(ms);
    if (all) {
      // Every row ended: the rest repeats each row's end.
      for (int64_t b = 0; b < B; ++b)
        for (int64_t t = past + 1; t < S0 + N; ++t)
          ids[b * (S0 + N) + t] = ids[b * (S0 + N) + past];
      ++step;
      break;
    }
  }
  if (g.benchmark && sampler)
    std::printf("generate: batch %lld, prompt %lld, %lld new tokens: "
                "time_to_first_token_ms=%.3f per_token_ms=%.3f "
                "one_thread_steps=%lld\n",
                static_cast<long long>(B), static_cast<long long>(S0),
                static_cast<long long>(step), firstMs,
                step > 1 ? decodeMs / static_cast<double>(step - 1) : 0.0,
                static_cast<long long>(governor.oneThreadSteps));
  out.name = "generated_ids";
  out.dtype = SHARDC_INT64;
  out.dims = {B, S0 + N};
  out.data.resize(ids.size() * 8);
  std::memcpy(out.data.data(), ids.data(), out.data.size());
  return true;
}

} // namespace shardc::rt
