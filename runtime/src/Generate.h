//===- Generate.h - prefill and decode with a KV cache ----------*- C++ -*-===//
//
// `./model --input input_ids=prompt.npy --generate 64 --output out/` and
// shardc_generate (the C API; Python's Model.generate): for a
// decoder compiled from a with-past export (its past inputs are a KV cache,
// kept in the present outputs' buffers between runs, shardc_keep_cache),
// one prefill run over the prompt, then one run per new token, greedy or
// sampled; out/generated_ids.npy holds [batch, prompt + new] int64.
//
// Under mpirun every rank runs the loop: the rank that has the logits picks
// each step's tokens and broadcasts them. A past input the program reads
// as an input (a partitioned program's cache is not kept in place yet) is
// fed the matching present output of the last step (past_key_values.X <-
// present.X, copied at each step).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_SRC_GENERATE_H
#define SHARDC_RUNTIME_SRC_GENERATE_H

#include "runtime/src/TensorIO.h"
#include "shardc/runtime.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc::rt {

struct GenerateOptions {
  /// New tokens per row.
  long tokens = 0;
  /// 0: greedy (argmax); else sample from softmax(logits / temperature).
  double temperature = 0;
  /// Sampling keeps the k most likely tokens (0: all) ...
  long topK = 0;
  /// ... and the fewest whose probabilities sum to top_p (1: all).
  double topP = 1;
  uint64_t seed = 0;
  /// A row that produced it stops: the rest of the row repeats it.
  std::optional<int64_t> eosId;
  /// Ragged prompts: row i's first promptLengths[i] ids count, the rest is
  /// padding. The rows are left-padded and masked as an attention_mask
  /// would (the generated ids keep that layout); empty: every id counts.
  std::vector<int64_t> promptLengths;
  /// Print time to first token and per-token latency.
  bool benchmark = false;
  /// The rank that picks the tokens (the lowest that has the logits).
  int sampler = 0;
  /// Let the decode steps run on one thread when that measures faster
  /// (a one-rank program beside busy processes: ThreadGovernor).
  bool adaptThreads = false;
  /// Probe one thread as if every step were preempted (tests).
  bool forceAdapt = false;
};

/// Runs the loop on a loaded model with `prompt` ([batch, S] int64) and
/// an optional prompt mask ([batch, S], 1 = attend). Returns the generated
/// ids ([batch, S + tokens] int64) or an error in `error` (one line).
/// Position ids, when the model takes them, count each row's attended
/// tokens (Hugging Face's cumsum(mask) - 1, 1 where masked), so that a
/// left-padded row computes what it would alone.
bool generate(shardc_model *m, const GenerateOptions &g,
              const io::Tensor &prompt, const io::Tensor *mask, io::Tensor &out,
              std::string &error);

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_SRC_GENERATE_H
