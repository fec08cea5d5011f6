//===- main.cpp - the main() of a compiled model executable ---------------===//
//
// Linked (as libshardc_main.a) with the generated code, which defines
// shardc_model_program, and the runtime library. Reads the inputs (.npy or
// TensorProto .pb), runs the model once or benchmarks it, and prints or
// writes the outputs. Every error is one line "<exe>: error: ..." on stderr
// and exit status 1. A program with CUDA code runs on the GPU when one is
// usable; otherwise its CPU code runs, after one "<exe>: note: ..." line
// saying why.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Cpus.h"
#include "runtime/src/Generate.h"
#include "runtime/src/TensorIO.h"
#include "shardc/cpu.h"
#include "shardc/format.h"
#include "shardc/runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" const shardc_program shardc_model_program;
/// The generated code's OpenMP wait for long steps, when it defines one
/// (see setWaitPolicy).
extern "C" const unsigned shardc_model_spin_count __attribute__((weak));

namespace {

// The OpenMP wait policy (docs/performance.md, "Under contention" and
// "Long steps"): libgomp's own (idle threads spin 300,000 iterations, then
// sleep), measured on a 2-core machine in three regimes (quiet, one and two
// busy processes) as the fastest or near it for programs whose steps are
// short, where a short spin (GOMP_SPINCOUNT=100) made quiet runs 1.8-2.7x
// slower and counts between 1,000 and 30,000 were erratic under one busy
// process (up to 12x). A program whose steps are long (the compiler's
// estimate: shardc_model_spin_count, defined by the generated code) starts
// with its short count instead: a wake-up costs little beside a long step,
// and a spinning thread holds a core a busy neighbour, or the team's slower
// thread, could use. SHARDC_SPINCOUNT=N (or "default") overrides both for a
// machine where another count measures better. libgomp reads its
// environment once, in its own initializer, before main() (and after the
// executable's preinit functions, which libc's own initializer follows, so
// a variable set there is lost), so the executable sets the variable and
// re-executes itself once. A user's OMP_WAIT_POLICY or GOMP_SPINCOUNT is
// left alone.
void setWaitPolicy(char **argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT"))
    return;
  std::string n;
  if (const char *env = std::getenv("SHARDC_SPINCOUNT"))
    n = env;
  else if (&shardc_model_spin_count)
    n = std::to_string(shardc_model_spin_count);
  if (n.empty() || n == "default")
    return;
  // Nothing runs in parallel: no need to start again.
  for (char **a = argv + 1; *a; ++a)
    if (!std::strcmp(*a, "--info") || !std::strcmp(*a, "--help") ||
        (!std::strcmp(*a, "--threads") && a[1] && !std::strcmp(a[1], "1")))
      return;
  if (setenv("GOMP_SPINCOUNT", n.c_str(), 1) != 0 ||
      setenv("SHARDC_SPINCOUNT_SET",
             std::getenv("SHARDC_SPINCOUNT") ? "user" : "program", 1) != 0)
    return;
  execv("/proc/self/exe", argv);
  unsetenv("GOMP_SPINCOUNT"); // no /proc: run as is
  unsetenv("SHARDC_SPINCOUNT_SET");
}

/// Who set GOMP_SPINCOUNT, for the benchmark's report: setWaitPolicy's
/// re-execution leaves its reason in SHARDC_SPINCOUNT_SET.
const char *waitSource() {
  const char *set = std::getenv("SHARDC_SPINCOUNT_SET");
  if (set && std::strcmp(set, "program") == 0)
    return "the program's steps are long";
  if (set && std::strcmp(set, "user") == 0)
    return "SHARDC_SPINCOUNT";
  return "the environment";
}

namespace fmt = shardc::format;
using shardc::io::Tensor;

std::string progName = "model";
/// Set once a multi-rank program knows its rank: messages name the rank,
/// and an error ends the process without MPI_Finalize so that mpirun ends
/// the whole job at once (no rank waits for a peer that is gone).
bool multiRank = false;

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "%s: error: %s\n", progName.c_str(), msg.c_str());
  std::fflush(stderr);
  if (multiRank)
    std::_Exit(1);
  std::exit(1);
}

void note(const std::string &msg) {
  std::fprintf(stderr, "%s: note: %s\n", progName.c_str(), msg.c_str());
}

void usage() {
  std::printf(
      "usage: %s [--weights FILE] --input NAME=FILE ... [--output DIR]\n"
      "          [--output-format npy|pb] [--benchmark [--warmup N] "
      "[--iterations N]]\n"
      "          [--device auto|cpu|cuda] [--threads N] [--trace FILE] "
      "[--info]\n"
      "          [--routing-stats FILE] [--generate N [--temperature T] "
      "[--top-k K]\n"
      "          [--top-p P] [--seed S] [--eos-id ID] [--prompt-lengths "
      "L,..]]\n"
      "\n"
      "Runs the compiled model on inputs read from .npy or ONNX TensorProto "
      ".pb files.\n"
      "\n"
      "  --weights FILE        weights file (default: this executable's path "
      "+ \".weights\")\n"
      "  --input NAME=FILE     bind input NAME to a .npy or .pb file "
      "(repeatable)\n"
      "  --output DIR          write each output to DIR/<name>.npy (or .pb); "
      "without it,\n"
      "                        print each output's shape, first values, "
      "min, max, mean\n"
      "  --output-format F     npy (default) or pb\n"
      "  --benchmark           time repeated runs; inputs not given are "
      "zero-filled.\n"
      "                        Latency: each run from all ranks' start to "
      "their end;\n"
      "                        throughput: as many runs again, back to back\n"
      "  --warmup N            warm-up runs before timing (default 10; with "
      "--generate,\n"
      "                        whole generations, default 1)\n"
      "  --iterations N        timed runs (default 100)\n"
      "  --device D            auto (default: the GPU if the model has CUDA "
      "code and a\n"
      "                        GPU is usable, else the CPU code), cpu or cuda\n"
      "  --threads N           OpenMP threads of the CPU code (default: "
      "OpenMP's)\n"
      "  --comm-timeout S      end the job when a collective waits S seconds "
      "for a silent\n"
      "                        rank, naming it (SHARDC_COMM_TIMEOUT; default "
      "600; NCCL's\n"
      "                        too, unless SHARDC_NCCL_TIMEOUT sets its own)\n"
      "  --trace FILE          write the runs' timeline as a Chrome trace "
      "(Perfetto,\n"
      "                        chrome://tracing): one track per rank, an "
      "event per\n"
      "                        micro-batch and per communication; rank 0 "
      "writes it\n"
      "  --routing-stats FILE  write the tokens each mixture-of-experts "
      "layer routed to\n"
      "                        each expert, as JSON (shardc --calibration "
      "reads it)\n"
      "  --generate N          a decoder with a KV cache: prefill the prompt "
      "(input_ids,\n"
      "                        attention_mask optional), then N new tokens "
      "per row, one\n"
      "                        run each; writes DIR/generated_ids.npy "
      "[batch, prompt + N]\n"
      "  --temperature T       sample from softmax(logits / T) (default 0: "
      "greedy)\n"
      "  --top-k K, --top-p P  sample among the K most likely tokens / the "
      "fewest that\n"
      "                        reach probability P\n"
      "  --seed S              the sampler's seed (default 0)\n"
      "  --eos-id ID           a row ends at token ID (then repeats it)\n"
      "  --prompt-lengths L,.. ragged prompts: row i's first Li ids (the rest "
      "padding);\n"
      "                        rows are left-padded and masked, as an "
      "attention_mask\n"
      "  --info                print the input and output signature, the "
      "ranks (with\n"
      "                        their pipeline stages and the micro-batch "
      "count when\n"
      "                        pipelined) and the device it would run on, "
      "and exit\n"
      "  -h, --help            print this help\n"
      "\n"
      "Environment: SHARDC_SPINCOUNT=N|default sets how long idle OpenMP "
      "threads spin\n"
      "(GOMP_SPINCOUNT) in place of the program's choice: libgomp's default, "
      "or 100\n"
      "when the compiler found its steps long (the benchmark report says "
      "which).\n"
      "SHARDC_ADAPT_THREADS=0 keeps --generate's decode steps on every "
      "thread (by default\n"
      "one rank tries one thread after a step the scheduler preempted).\n",
      progName.c_str());
}

struct Options {
  std::string weights;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string outputDir;
  std::string outputFormat = "npy";
  std::string trace;
  std::string routingStats;
  bool benchmark = false, info = false;
  shardc::rt::GenerateOptions gen;
  bool sampling = false;
  bool warmupSet = false, iterationsSet = false;
  long warmup = 10, iterations = 100, threads = 0;
  shardc_device device = SHARDC_DEVICE_AUTO;
};

long parseCount(const std::string &opt, const std::string &value, long min) {
  errno = 0;
  char *end = nullptr;
  long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end || errno || v < min || v > INT_MAX)
    die(opt + " expects an integer >= " + std::to_string(min) + ", got '" +
        value + "'");
  return v;
}

Options parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool hasValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        hasValue = true;
      }
    }
    auto takeValue = [&]() -> std::string {
      if (hasValue)
        return value;
      if (i + 1 >= argc)
        die(arg + " expects a value (see --help)");
      return argv[++i];
    };
    auto noValue = [&]() {
      if (hasValue)
        die(arg + " takes no value");
    };
    if (arg == "-h" || arg == "--help") {
      usage();
      std::exit(0);
    } else if (arg == "--weights") {
      o.weights = takeValue();
    } else if (arg == "--input") {
      std::string v = takeValue();
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        die("--input expects NAME=FILE, got '" + v + "'");
      std::string name = v.substr(0, eq);
      for (auto &in : o.inputs)
        if (in.first == name)
          die("input '" + name + "' is given twice");
      o.inputs.emplace_back(name, v.substr(eq + 1));
    } else if (arg == "--output") {
      o.outputDir = takeValue();
      if (o.outputDir.empty())
        die("--output expects a directory");
    } else if (arg == "--output-format") {
      o.outputFormat = takeValue();
      if (o.outputFormat != "npy" && o.outputFormat != "pb")
        die("--output-format expects npy or pb, got '" + o.outputFormat + "'");
    } else if (arg == "--benchmark") {
      noValue();
      o.benchmark = true;
    } else if (arg == "--warmup") {
      o.warmup = parseCount(arg, takeValue(), 0);
      o.warmupSet = true;
    } else if (arg == "--iterations") {
      o.iterations = parseCount(arg, takeValue(), 1);
      o.iterationsSet = true;
    } else if (arg == "--device") {
      std::string v = takeValue();
      if (v == "auto")
        o.device = SHARDC_DEVICE_AUTO;
      else if (v == "cpu")
        o.device = SHARDC_DEVICE_CPU;
      else if (v == "cuda")
        o.device = SHARDC_DEVICE_CUDA;
      else
        die("--device expects auto, cpu or cuda, got '" + v + "'");
    } else if (arg == "--threads") {
      o.threads = parseCount(arg, takeValue(), 1);
    } else if (arg == "--comm-timeout") {
      // Read by the communicators (SHARDC_COMM_TIMEOUT), which check it.
      std::string v = takeValue();
      char *end = nullptr;
      double s = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(s > 0))
        die("--comm-timeout expects a number of seconds greater than 0, "
            "got '" + v + "'");
      setenv("SHARDC_COMM_TIMEOUT", v.c_str(), 1);
    } else if (arg == "--trace") {
      o.trace = takeValue();
      if (o.trace.empty())
        die("--trace expects a file name");
    } else if (arg == "--routing-stats") {
      o.routingStats = takeValue();
      if (o.routingStats.empty())
        die("--routing-stats expects a file name");
    } else if (arg == "--generate") {
      o.gen.tokens = parseCount(arg, takeValue(), 1);
    } else if (arg == "--temperature" || arg == "--top-p") {
      std::string v = takeValue();
      char *end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      bool temp = arg == "--temperature";
      if (v.empty() || *end || !(x >= 0) || (!temp && !(x > 0 && x <= 1)) ||
          !std::isfinite(x))
        die(arg +
            (temp ? " expects a number >= 0"
                  : " expects a number in "
                    "(0, 1]") +
            ", got '" + v + "'");
      (temp ? o.gen.temperature : o.gen.topP) = x;
      o.sampling = true;
    } else if (arg == "--top-k") {
      o.gen.topK = parseCount(arg, takeValue(), 1);
      o.sampling = true;
    } else if (arg == "--seed") {
      o.gen.seed = static_cast<uint64_t>(parseCount(arg, takeValue(), 0));
      o.sampling = true;
    } else if (arg == "--eos-id") {
      o.gen.eosId = parseCount(arg, takeValue(), 0);
      o.sampling = true;
    } else if (arg == "--prompt-lengths") {
      std::string v = takeValue();
      size_t at = 0;
      do {
        size_t comma = v.find(',', at);
        std::string one = v.substr(
            at, comma == std::string::npos ? std::string::npos : comma - at);
        o.gen.promptLengths.push_back(parseCount(arg, one, 1));
        at = comma == std::string::npos ? v.size() + 1 : comma + 1;
      } while (at <= v.size());
      o.sampling = true;
    } else if (arg == "--info") {
      noValue();
      o.info = true;
    } else if (arg.rfind("-", 0) == 0) {
      die("unknown option '" + arg + "' (see --help)");
    } else {
      die("unexpected argument '" + arg + "' (see --help)");
    }
  }
  if ((o.warmupSet || o.iterationsSet) && !o.benchmark)
    die("--warmup and --iterations need --benchmark");
  if (o.sampling && !o.gen.tokens)
    die("--temperature, --top-k, --top-p, --seed, --eos-id and "
        "--prompt-lengths need --generate");
  if (o.gen.tokens && (o.iterationsSet || !o.trace.empty()))
    die("--generate takes --benchmark and --warmup (whole generations "
        "before the timed one, default 1), not --iterations or --trace");
  o.gen.benchmark = o.benchmark;
  return o;
}

std::string defaultWeightsPath(const char *argv0) {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    return std::string(buf) + ".weights";
  }
  return std::string(argv0) + ".weights";
}

std::string targetsOf(uint32_t mask) {
  std::string s;
  if (mask & fmt::kTargetCpu)
    s = "cpu";
  if (mask & fmt::kTargetCuda)
    s += s.empty() ? "cuda" : "+cuda";
  if (mask & ~(fmt::kTargetCpu | fmt::kTargetCuda))
    s += (s.empty() ? "" : "+") + std::string("unknown");
  return s;
}

/// Loads the rank the launcher gave this process (rank 0 of a one-rank
/// program) on the requested device; a GPU that AUTO could not use is one
/// note line.
shardc_status load(const Options &o, const std::string &weights,
                   shardc_model **m) {
  shardc_status s = shardc_load_on(&shardc_model_program, weights.c_str(),
                                   SHARDC_RANK_FROM_LAUNCHER, o.device, m);
  if (s == SHARDC_OK && *shardc_fallback_reason(*m))
    note(std::string(shardc_fallback_reason(*m)) + "; running the CPU code");
  return s;
}

int printInfo(const Options &o, const std::string &weights) {
  fmt::Plan plan;
  std::string error;
  if (shardc_model_program.abi_version != SC_ABI_VERSION)
    die("program ABI version " +
        std::to_string(shardc_model_program.abi_version) +
        ", this runtime runs " + std::to_string(SC_ABI_VERSION));
  if (!fmt::decodePlan(shardc_model_program.plan,
                       shardc_model_program.plan_size, plan, error))
    die(error);
  // Pipelined: several stages, or micro-batches; then each rank's stage
  // and the micro-batch count are shown too.
  bool pipelined = plan.microbatches > 1;
  for (const fmt::RankPlan &rp : plan.ranks)
    pipelined |= rp.stage != plan.ranks[0].stage;
  auto stageOf = [&](const fmt::RankPlan &rp) {
    return pipelined ? ", stage " + std::to_string(rp.stage) : std::string();
  };
  const fmt::RankPlan &r = plan.ranks[0];
  std::printf("world size %u, target %s; rank 0: arena %llu bytes, weights "
              "%llu bytes%s\n",
              plan.worldSize, targetsOf(plan.target).c_str(),
              static_cast<unsigned long long>(r.arenaBytes),
              static_cast<unsigned long long>(r.weightsBytes),
              stageOf(r).c_str());
  for (size_t i = 1; i < plan.ranks.size(); ++i)
    std::printf("rank %zu: arena %llu bytes, weights %llu bytes%s\n", i,
                static_cast<unsigned long long>(plan.ranks[i].arenaBytes),
                static_cast<unsigned long long>(plan.ranks[i].weightsBytes),
                stageOf(plan.ranks[i]).c_str());
  if (pipelined) {
    std::printf("micro-batches %u", plan.microbatches);
    if (plan.batchItems)
      std::printf(" of a batch of %u (up to %lld each, padded)",
                  plan.batchItems,
                  static_cast<long long>(shardc::format::itemsPerMicrobatch(
                      plan.batchItems, plan.microbatches)));
    std::printf("\n");
  }
  // Dynamic dims: the inputs take any value from 1 to the bound.
  if (!plan.dims.empty()) {
    std::string dims;
    for (const fmt::PlanDim &d : plan.dims)
      dims +=
          (dims.empty() ? "" : ", ") + d.name + "<=" + std::to_string(d.max);
    std::printf("dynamic dims: %s\n", dims.c_str());
  }
  // A decoder's KV cache: each rank's pasts kept in place in their present
  // outputs, and the bytes those take at the bounds (what the rank holds
  // for the longest context).
  for (size_t i = 0; i < plan.ranks.size(); ++i) {
    const fmt::RankPlan &rp = plan.ranks[i];
    uint64_t bytes = 0, caches = 0;
    for (const fmt::TensorSig &in : rp.inputs) {
      if (in.cacheOf < 0 || size_t(in.cacheOf) >= rp.outputs.size())
        continue;
      const fmt::TensorSig &out = rp.outputs[size_t(in.cacheOf)];
      uint64_t n = shardc_dtype_size(out.dtype);
      for (int64_t d : out.dims)
        n *= static_cast<uint64_t>(d);
      bytes += n;
      ++caches;
    }
    if (caches)
      std::printf("KV cache, rank %zu: %llu pasts kept in their present "
                  "outputs, %llu bytes at the bounds\n",
                  i, static_cast<unsigned long long>(caches),
                  static_cast<unsigned long long>(bytes));
  }
  // The job's inputs and outputs (a pipeline's first stage has the inputs,
  // its last the outputs), as the user binds and reads them: each name
  // once, from the lowest rank that has it.
  std::set<std::string> seen;
  for (bool in : {true, false})
    for (const fmt::RankPlan &rp : plan.ranks)
      for (const fmt::TensorSig &s : in ? rp.inputs : rp.outputs)
        if (seen.insert((in ? "i:" : "o:") + s.name).second)
          std::printf("%s %s: %s\n", in ? "input" : "output", s.name.c_str(),
                      s.userSig(plan.microbatches, plan.batchItems)
                          .str(plan.dims)
                          .c_str());
  // Where it would run: that takes loading it (weights included).
  shardc_model *m = nullptr;
  if (load(o, weights, &m) != SHARDC_OK) {
    std::printf("device: none (%s)\n", shardc_last_error());
    return 0;
  }
  std::printf("device: %s\n", shardc_device_description(m));
  shardc_free(m);
  return 0;
}

double element(const void *data, int32_t dtype, size_t i) {
  const char *p = static_cast<const char *>(data);
  auto get = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p + i * sizeof v, sizeof v);
    return v;
  };
  switch (dtype) {
  case SHARDC_FLOAT32:
    return get(float());
  case SHARDC_FLOAT64:
    return get(double());
  case SHARDC_FLOAT16:
    return sc_h2f(get(uint16_t()));
  case SHARDC_BFLOAT16:
    return sc_bf2f(get(uint16_t()));
  case SHARDC_INT8:
    return get(int8_t());
  case SHARDC_UINT8:
  case SHARDC_BOOL:
    return get(uint8_t());
  case SHARDC_INT16:
    return get(int16_t());
  case SHARDC_UINT16:
    return get(uint16_t());
  case SHARDC_INT32:
    return get(int32_t());
  case SHARDC_UINT32:
    return get(uint32_t());
  case SHARDC_INT64:
    return static_cast<double>(get(int64_t()));
  case SHARDC_UINT64:
    return static_cast<double>(get(uint64_t()));
  default:
    return 0;
  }
}

std::string formatValue(const void *data, int32_t dtype, size_t i) {
  char buf[64];
  if (dtype == SHARDC_INT64) {
    int64_t v;
    std::memcpy(&v, static_cast<const char *>(data) + i * 8, 8);
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else if (dtype == SHARDC_UINT64) {
    uint64_t v;
    std::memcpy(&v, static_cast<const char *>(data) + i * 8, 8);
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", element(data, dtype, i));
  }
  return buf;
}

void printSummary(const shardc_tensor_info &info, const void *data) {
  size_t esize = shardc_dtype_size(info.dtype);
  size_t n = esize ? info.bytes / esize : 0;
  std::string line =
      std::string(info.name) + ": " +
      fmt::formatSig(info.dtype, info.dims, static_cast<size_t>(info.rank));
  if (n == 0) {
    std::printf("%s (empty)\n", line.c_str());
    return;
  }
  line += " [";
  const size_t shown = std::min<size_t>(n, 6);
  for (size_t i = 0; i < shown; ++i)
    line += (i ? ", " : "") + formatValue(data, info.dtype, i);
  line += n > shown ? ", ...]" : "]";
  double mn = INFINITY, mx = -INFINITY, sum = 0;
  size_t nans = 0;
  for (size_t i = 0; i < n; ++i) {
    double v = element(data, info.dtype, i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    mn = std::min(mn, v);
    mx = std::max(mx, v);
    sum += v;
  }
  char stats[160];
  if (nans == n)
    std::snprintf(stats, sizeof stats, " min=nan max=nan mean=nan");
  else
    std::snprintf(stats, sizeof stats, " min=%.6g max=%.6g mean=%.6g", mn, mx,
                  sum / static_cast<double>(n - nans));
  line += stats;
  if (nans)
    line += " nan=" + std::to_string(nans);
  std::printf("%s\n", line.c_str());
}

std::string sanitize(const std::string &name) {
  std::string s = name;
  for (char &c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      c = '_';
  return s;
}

void makeDirs(const std::string &dir) {
  std::string path;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    path = dir.substr(0, pos);
    if (path.empty() || path == "/")
      continue;
    if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
      die("cannot create directory '" + path + "': " + std::strerror(errno));
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    die("cannot create directory '" + dir + "': not a directory");
}

/// float32 data read for a bfloat16 input (.npy has no bfloat16).
void convertToBf16(Tensor &t) {
  std::vector<uint8_t> out(t.data.size() / 2);
  for (size_t i = 0; i < out.size() / 2; ++i) {
    float f;
    std::memcpy(&f, t.data.data() + 4 * i, 4);
    uint16_t h = sc_f2bf(f);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  t.data = std::move(out);
  t.dtype = SHARDC_BFLOAT16;
}

void check(shardc_status s) {
  if (s != SHARDC_OK)
    die(shardc_last_error());
}

/// Which names are inputs of any rank, and which rank writes each output
/// (the lowest that has it): every rank reads the inputs it has, and each
/// output is written once.
struct WorldIO {
  std::set<std::string> inputs;
  std::map<std::string, uint32_t> outputOwner;
  fmt::Plan plan;
};

WorldIO worldIO() {
  fmt::Plan plan;
  std::string error;
  WorldIO io;
  if (!fmt::decodePlan(shardc_model_program.plan,
                       shardc_model_program.plan_size, plan, error))
    die(error);
  for (uint32_t r = 0; r < plan.ranks.size(); ++r) {
    for (const auto &s : plan.ranks[r].inputs)
      io.inputs.insert(s.name);
    for (const auto &s : plan.ranks[r].outputs)
      io.outputOwner.emplace(s.name, r);
  }
  io.plan = std::move(plan);
  return io;
}

bool hasInput(shardc_model *m, const std::string &name) {
  for (int i = 0; i < shardc_num_inputs(m); ++i) {
    shardc_tensor_info info;
    check(shardc_input_info(m, i, &info));
    if (name == info.name)
      return true;
  }
  return false;
}

void bindInputs(shardc_model *m, const Options &o, const WorldIO &io) {
  // Dynamic dims: the values the given inputs have (the first that has
  // one), else the bounds; zero-filled inputs take them.
  const fmt::RankPlan &rp = io.plan.ranks[static_cast<size_t>(shardc_rank(m))];
  std::vector<int64_t> dims = io.plan.dimBounds();
  std::vector<bool> known(dims.size(), false);
  for (const auto &[name, file] : o.inputs) {
    if (multiRank && !io.inputs.count(name)) {
      std::string names;
      for (const std::string &n : io.inputs)
        names += (names.empty() ? "'" : ", '") + n + "'";
      die("no input named '" + name + "' on any rank; the inputs are " +
          names);
    }
    // Another rank's input: it reads it.
    if (multiRank && !hasInput(m, name))
      continue;
    Tensor t;
    std::string error;
    if (!shardc::io::readTensor(file, t, error))
      die("input '" + name + "': " + error);
    for (int i = 0; i < shardc_num_inputs(m); ++i) {
      shardc_tensor_info info;
      check(shardc_input_info(m, i, &info));
      if (name == info.name && info.dtype == SHARDC_BFLOAT16 &&
          t.dtype == SHARDC_FLOAT32) {
        note("input '" + name + "': converting float32 to bfloat16");
        convertToBf16(t);
      }
    }
    check(shardc_bind_input(m, name.c_str(), t.dtype,
                            static_cast<int32_t>(t.dims.size()), t.dims.data(),
                            t.data.data(), t.data.size()));
    for (const fmt::TensorSig &s : rp.inputs)
      for (size_t d = 0; s.name == name && d < t.dims.size(); ++d)
        if (int32_t k = s.sym(d); k >= 0 && !known[k]) {
          dims[k] = t.dims[d];
          known[k] = true;
        }
  }
  for (int i = 0; i < shardc_num_inputs(m); ++i) {
    shardc_tensor_info info;
    check(shardc_input_info(m, i, &info));
    bool given = false;
    for (const auto &in : o.inputs)
      given |= in.first == info.name;
    if (given)
      continue;
    if (!o.benchmark)
      die(std::string("input '") + info.name + "' is not bound (give --input " +
          info.name + "=FILE)");
    const fmt::TensorSig &sig = rp.inputs[static_cast<size_t>(i)];
    if (!sig.dynamic()) {
      note(std::string("input '") + info.name + "' not given; using zeros");
      std::vector<uint8_t> zeros(info.bytes, 0);
      check(shardc_bind_input(m, info.name, info.dtype, info.rank, info.dims,
                              zeros.data(), zeros.size()));
      continue;
    }
    fmt::TensorSig at = sig.withDims(dims);
    note(std::string("input '") + info.name + "' not given; using zeros of " +
         at.str());
    std::vector<uint8_t> zeros(at.bytes(), 0);
    check(shardc_bind_input(m, info.name, info.dtype, info.rank, at.dims.data(),
                            zeros.data(), zeros.size()));
  }
}

/// Latency: each timed run starts and ends with every rank (a barrier
/// before and after), so a pipeline's run lasts until its last stage ends.
/// Throughput: the same number of runs back to back, as a pipeline
/// streams them (stage 0 starts the next run while the last stage ends
/// this one).
void benchmark(shardc_model *m, const Options &o, const std::string &threads) {
  using Clock = std::chrono::steady_clock;
  for (long i = 0; i < o.warmup; ++i)
    check(shardc_run(m));
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(o.iterations));
  for (long i = 0; i < o.iterations; ++i) {
    check(shardc_barrier(m));
    auto t0 = Clock::now();
    check(shardc_run(m));
    check(shardc_barrier(m));
    ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  check(shardc_barrier(m));
  auto start = Clock::now();
  for (long i = 0; i < o.iterations; ++i)
    check(shardc_run(m));
  check(shardc_barrier(m));
  double total = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) {
    size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size()));
    return sorted[rank ? rank - 1 : 0];
  };
  double mean = 0;
  for (double v : ms)
    mean += v;
  mean /= static_cast<double>(ms.size());
  if (shardc_rank(m) != 0)
    return; // every rank ran the same runs; rank 0 reports
  std::string wait = "libgomp's default wait";
  if (const char *spin = std::getenv("GOMP_SPINCOUNT"))
    wait = std::string("GOMP_SPINCOUNT=") + spin + " (" + waitSource() + ")";
  else if (std::getenv("OMP_WAIT_POLICY"))
    wait = std::string("OMP_WAIT_POLICY=") + std::getenv("OMP_WAIT_POLICY");
  std::fprintf(stderr,
               "%s: benchmark: %ld warm-up runs, %ld timed runs, %d threads "
               "(%s), %s\n",
               progName.c_str(), o.warmup, o.iterations, omp_get_max_threads(),
               threads.c_str(), wait.c_str());
  std::printf("latency_ms p50=%.3f p90=%.3f p99=%.3f mean=%.3f "
              "throughput=%.2f\n",
              pct(50), pct(90), pct(99), mean,
              total > 0 ? static_cast<double>(o.iterations) / total : 0.0);
}

/// Whether this rank writes output `i` (the lowest rank that has it).
bool writes(shardc_model *m, const WorldIO &io, int i) {
  shardc_tensor_info info;
  check(shardc_output_info(m, i, &info));
  auto it = io.outputOwner.find(info.name);
  return it == io.outputOwner.end() ||
         it->second == static_cast<uint32_t>(shardc_rank(m));
}

void writeOutputs(shardc_model *m, const Options &o, const WorldIO &io) {
  makeDirs(o.outputDir);
  std::set<std::string> used;
  for (int i = 0; i < shardc_num_outputs(m); ++i) {
    if (!writes(m, io, i))
      continue;
    shardc_tensor_info info;
    const void *data;
    size_t bytes;
    check(shardc_output_info(m, i, &info));
    check(shardc_output(m, i, &data, &bytes));
    Tensor t;
    t.name = info.name;
    t.dtype = info.dtype;
    t.dims.assign(info.dims, info.dims + info.rank);
    const uint8_t *p = static_cast<const uint8_t *>(data);
    t.data.assign(p, p + bytes);
    std::string base = sanitize(info.name);
    if (base.empty())
      base = "output" + std::to_string(i);
    if (used.count(base))
      base += "_" + std::to_string(i);
    used.insert(base);
    std::string path = o.outputDir + "/" + base + "." + o.outputFormat;
    std::string error;
    bool ok;
    if (o.outputFormat == "pb") {
      ok = shardc::io::writePb(path, t, error);
    } else {
      if (t.dtype == SHARDC_BFLOAT16) {
        note(std::string("output '") + info.name +
             "' is bfloat16; writing float32 (.npy has no bfloat16)");
        std::vector<uint8_t> f(t.data.size() * 2);
        for (size_t k = 0; k < t.data.size() / 2; ++k) {
          uint16_t h;
          std::memcpy(&h, t.data.data() + 2 * k, 2);
          float v = sc_bf2f(h);
          std::memcpy(f.data() + 4 * k, &v, 4);
        }
        t.data = std::move(f);
        t.dtype = SHARDC_FLOAT32;
      }
      ok = shardc::io::writeNpy(path, t, error);
    }
    if (!ok)
      die(error);
  }
}

/// --generate: the prompt (and its mask) from --input, the ids to
/// DIR/generated_ids.npy or stdout.
int generateTokens(shardc_model *m, const Options &o) {
  Tensor prompt, mask;
  bool hasMask = false, hasIds = false;
  for (const auto &[name, file] : o.inputs) {
    std::string error;
    if (name != "input_ids" && name != "attention_mask")
      die("--generate reads --input input_ids and attention_mask only; got "
          "'" +
          name + "'");
    Tensor &t = name == "input_ids" ? prompt : mask;
    if (!shardc::io::readTensor(file, t, error))
      die("input '" + name + "': " + error);
    (name == "input_ids" ? hasIds : hasMask) = true;
  }
  if (!hasIds)
    die("--generate needs the prompt: --input input_ids=FILE");
  if (hasMask && !o.gen.promptLengths.empty())
    die("--prompt-lengths and an attention_mask input both say which "
        "prompt ids count: give one");
  Tensor out;
  std::string error;
  // Warm-up generations (--benchmark): the first runs of each shape create
  // its oneDNN primitives and start the threads.
  shardc::rt::GenerateOptions quiet = o.gen;
  quiet.benchmark = false;
  long warmup = !o.benchmark ? 0 : o.warmupSet ? o.warmup : 1;
  for (long i = 0; i < warmup; ++i)
    if (!shardc::rt::generate(m, quiet, prompt, hasMask ? &mask : nullptr, out,
                              error))
      die(error);
  if (!shardc::rt::generate(m, o.gen, prompt, hasMask ? &mask : nullptr, out,
                            error))
    die(error);
  // Every rank has the same ids; the sampler writes them.
  bool writes = shardc_rank(m) == o.gen.sampler;
  if (writes && !o.outputDir.empty()) {
    makeDirs(o.outputDir);
    std::string path = o.outputDir + "/generated_ids.npy";
    if (!shardc::io::writeNpy(path, out, error))
      die(error);
  } else if (writes) {
    const int64_t *ids = reinterpret_cast<const int64_t *>(out.data.data());
    for (int64_t b = 0; b < out.dims[0]; ++b) {
      for (int64_t t = 0; t < out.dims[1]; ++t)
        std::printf("%s%lld", t ? " " : "",
                    static_cast<long long>(ids[b * out.dims[1] + t]));
      std::printf("\n");
    }
  }
  shardc_free(m);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  setWaitPolicy(argv);
  if (argc > 0 && argv[0] && *argv[0]) {
    progName = argv[0];
    size_t slash = progName.rfind('/');
    if (slash != std::string::npos)
      progName = progName.substr(slash + 1);
  }
  Options o = parseArgs(argc, argv);
  std::string weights =
      o.weights.empty() ? defaultWeightsPath(argv[0]) : o.weights;
  if (o.info)
    return printInfo(o, weights);
  // Threads: --threads, else OMP_NUM_THREADS (OpenMP's own), else what
  // this rank is given (Cpus.h: affinity, cgroup quota, its share of an
  // unbound node).
  std::string threadsWhy = "--threads";
  if (o.threads > 0) {
    shardc_set_threads(static_cast<int>(o.threads));
  } else if (const char *env = std::getenv("OMP_NUM_THREADS"); env && *env) {
    threadsWhy = "OMP_NUM_THREADS";
  } else {
    shardc_set_threads(shardc::rt::placeThisRank(threadsWhy));
  }
  int worldSize = shardc_world_size(&shardc_model_program);
  if (worldSize < 0)
    die(shardc_last_error());
  multiRank = worldSize > 1;
  WorldIO io = worldIO();
  shardc_model *m = nullptr;
  check(load(o, weights, &m));
  if (multiRank)
    progName += " (rank " + std::to_string(shardc_rank(m)) + ")";
  if (o.gen.tokens) {
    // One rank: the decode steps may fall back to one thread beside busy
    // processes (Generate.cpp, ThreadGovernor; SHARDC_ADAPT_THREADS=0: no).
    const char *adapt = std::getenv("SHARDC_ADAPT_THREADS");
    o.gen.adaptThreads = !multiRank && !(adapt && std::strcmp(adapt, "0") == 0);
    o.gen.forceAdapt = adapt && std::strcmp(adapt, "force") == 0;
    if (multiRank) {
      // Every rank runs the loop; the lowest that has the logits (named
      // so: on one rank the loop also takes another [batch, sequence,
      // vocab] float output) picks the tokens. A pipeline's later stages
      // do not take the ids, nor hold the whole model's cache.
      bool pipelined = false;
      for (const fmt::RankPlan &rp : io.plan.ranks)
        pipelined |= rp.stage != io.plan.ranks[0].stage;
      if (pipelined)
        die("--generate does not run a pipelined program yet (--pp: each "
            "stage's cache and the tokens between stages); compile with "
            "--tp, or run one rank");
      auto logits = io.outputOwner.find("logits");
      if (logits == io.outputOwner.end())
        die("--generate on several ranks needs the logits as an output "
            "named 'logits'");
      o.gen.sampler = static_cast<int>(logits->second);
    }
    return generateTokens(m, o);
  }
  bindInputs(m, o, io);
  if (!o.trace.empty())
    check(shardc_set_trace(m, 1));
  if (!o.routingStats.empty())
    check(shardc_set_routing_stats(1));
  if (o.benchmark)
    benchmark(m, o, threadsWhy);
  else
    check(shardc_run(m));
  if (!o.trace.empty()) {
    // Every rank takes part; world rank 0 writes the file.
    check(shardc_write_trace(m, o.trace.c_str()));
    if (shardc_rank(m) == 0)
      note("wrote the trace to " + o.trace);
  }
  if (!o.routingStats.empty())
    check(shardc_write_routing_stats(o.routingStats.c_str()));
  if (!o.outputDir.empty()) {
    writeOutputs(m, o, io);
  } else if (!o.benchmark) {
    for (int i = 0; i < shardc_num_outputs(m); ++i) {
      if (!writes(m, io, i))
        continue;
      shardc_tensor_info info;
      const void *data;
      size_t bytes;
      check(shardc_output_info(m, i, &info));
      check(shardc_output(m, i, &data, &bytes));
      printSummary(info, data);
    }
  }
  shardc_free(m);
  return 0;
}
