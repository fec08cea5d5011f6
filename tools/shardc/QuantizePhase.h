//===- QuantizePhase.h - what --quantize=int8 and --prune need first -*- C++ -*-===//
//
// Static int8 (--quantize=int8) needs the activations' statistics before
// the graph pipeline runs graph-quantize-static: calibration
// (Calibration.h) measures them, or an accuracy-guard trial is given them
// (--quantize-stats); then --quantize-accuracy's guard chooses the
// activations whose layers stay in floating point. Structured pruning
// (--prune=ffn:R,heads:R) needs the same statistics of the unpruned model
// for graph-prune, measured first; quantization's are then measured on the
// pruned model.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_QUANTIZEPHASE_H
#define SHARDC_TOOLS_SHARDC_QUANTIZEPHASE_H

#include "Calibration.h"
#include "Options.h"
#include "Session.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cmath>
#include <string>
#include <vector>

namespace shardc::driver {

/// A calibration folder (calibrateActivations' `workDir`), removed with
/// this.
struct CalibrationWork {
  std::string work;
  CalibrationWork() = default;
  CalibrationWork(const CalibrationWork &) = delete;
  CalibrationWork &operator=(const CalibrationWork &) = delete;
  ~CalibrationWork();
};

/// What the graph pipeline's static pass reads, and its calibration
/// folder.
struct QuantizeRun : CalibrationWork {
  std::string stats;         ///< the statistics file (empty: none)
  std::vector<int64_t> keep; ///< activations kept in floating point
};

/// The pruning statistics' folder.
/// --prune's calibration, and --prune=auto's trials: each fraction tried,
/// the metric its outputs reached and, for --emit=prune-report, its p50
/// latency (the unpruned program's too: fraction 0).
struct PruneTrial {
  double fraction = 0, metric = 0;
  double p50Ms = NAN; ///< not measured: NaN
};
struct PruneRun : CalibrationWork {
  std::vector<PruneTrial> trials;
  /// What --prune=auto's fraction applied to ("ffn", "heads", "conv").
  std::vector<std::string> kinds;
  std::string metric; ///< "mean cosine" or "top-1 agreement"
  double target = 0;
  double unprunedP50Ms = NAN; ///< the program without --prune (lossless)
};

/// --prune=ffn:R,heads:R: measures the statistics graph-prune reads and
/// sets `o.pruneStats` (nothing to do without fractions, or when given
/// them). --prune=auto searches the fraction of every kind the model has
/// (MLP channels, heads, convolution channels), found on a copy of the
/// module through `fusedGraph` (the graph pipeline without pruning). False
/// after fatal().
bool preparePruning(
    Session &s, Options &o, const char *argv0, PruneRun &run,
    llvm::function_ref<void(mlir::PassManager &)> fusedGraph = nullptr);

/// What --calibration compiles: the model file for one CPU rank, in a
/// process of its own, with the shape flags of this compile.
CalibrationRequest calibrationRequest(const Options &o, const char *argv0);

/// The graph pipeline with `stats` and `keep` for graph-quantize-static.
using GraphPipeline =
    llvm::function_ref<void(mlir::PassManager &, const std::string &stats,
                            llvm::ArrayRef<int64_t> keep)>;

/// --quantize=int8: fills `run` (nothing to do for other schemes). False
/// after fatal().
bool prepareQuantization(Session &s, const Options &o, const char *argv0,
                         GraphPipeline graphPipeline, QuantizeRun &run);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_QUANTIZEPHASE_H
