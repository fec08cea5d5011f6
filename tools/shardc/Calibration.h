//===- Calibration.h - measurements on sample inputs ------------*- C++ -*-===//
//
// `shardc --calibration DIR`: the model compiled for one CPU rank (this
// shardc, run again with the model's shape flags) and run on every sample
// in DIR. DIR holds one sample (its inputs as NAME.npy or NAME.pb files)
// or one subdirectory per sample.
// - Routing: the tokens each mixture-of-experts layer routes to each
//   expert (--routing-stats); expert load balancing (dist-seed-experts)
//   places the experts by them.
// - Activations: the ranges of the activations static int8 quantization
//   scales (the graph-quantize-observe program's extra results), reduced
//   to the statistics graph-quantize-static reads.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_CALIBRATION_H
#define SHARDC_TOOLS_SHARDC_CALIBRATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {

struct CalibrationRequest {
  std::string shardc;             ///< this executable
  std::string model;              ///< the ONNX file
  std::vector<std::string> flags; ///< --input-shape, --const-input, ...
  std::string dir;                ///< the samples
  bool verbose = false;
};

/// Per layer (program order), tokens per expert summed over the samples;
/// on failure, empty with `error` set to one line.
std::vector<std::vector<int64_t>>
calibrateRouting(const CalibrationRequest &request, std::string &error);

/// Statistics of the activations graph-quantize-static scales (the linear
/// layers' inputs; graph-prune reads them too), over all samples: per
/// activation its channel count, each channel's largest magnitude, mean
/// and mean square, and a sample of up to 1024 rows (reservoir
/// sampling, fixed seed). Written into a new directory `workDir` (the
/// caller removes it) as stats.json and one .f32 file per activation;
/// returns the JSON's path, or empty with `error` set to one line.
std::string calibrateActivations(const CalibrationRequest &request,
                                 std::string &workDir, std::string &error);

/// How a trial's outputs are judged against the references, row by row
/// (the last axis): their cosine, or whether their largest element is at
/// the same place (top-1 agreement: logits).
enum class TrialMetric { Cosine, Top1 };

/// One accuracy trial: compiles this shardc with `flags` (after the
/// request's) into `workDir`/trial, runs it on every sample and returns
/// the mean of `metric` over the rows of its float32 outputs named in
/// `outputs` (all when empty) against the references
/// calibrateActivations kept in `workDir`; -2 with `error` set (naming
/// `what`) on failure. With `p50Ms`, the trial's latency too: the p50 of
/// `--benchmark` on the first sample (kTrialBenchmarkRuns runs).
double trialCosine(const CalibrationRequest &request,
                   llvm::ArrayRef<std::string> flags, llvm::StringRef workDir,
                   llvm::ArrayRef<std::string> outputs, llvm::StringRef what,
                   std::string &error, TrialMetric metric = TrialMetric::Cosine,
                   double *p50Ms = nullptr);

/// Timed runs of a trial's latency (after 3 warm-up runs).
constexpr int kTrialBenchmarkRuns = 20;

/// --quantize-accuracy: the fewest activations, taken in `order` (most
/// sensitive first), whose layers stay in floating point for the int8
/// program's outputs on the samples to reach a mean cosine of `target`
/// against the fp32 outputs calibrateActivations kept in `workDir`. Each
/// trial compiles this shardc with `flags` (--quantize=int8,
/// --quantize-stats, ...) and --quantize-keep, and runs it on every
/// sample. The cosine is over the rows (last axis) of the float32 outputs
/// named in `outputs` (all when empty). `reached` is the chosen trial's
/// cosine; on failure, empty with `error` set.
std::vector<int64_t> guardAccuracy(const CalibrationRequest &request,
                                   llvm::ArrayRef<std::string> flags,
                                   llvm::StringRef workDir,
                                   llvm::ArrayRef<int64_t> order,
                                   double target,
                                   llvm::ArrayRef<std::string> outputs,
                                   double &reached, std::string &error);

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_CALIBRATION_H
