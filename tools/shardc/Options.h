//===- Options.h - shardc's command line, parsed and checked -----*- C++ -*-===//
//
// The driver's flags (their cl::opt definitions and --help groups live in
// Options.cpp) as one value: parseOptions() reads argv, checks every value
// and every combination up front, so that a mistake costs nothing and reads
// as one line, and resolves what follows from the flags (the import
// options, the targets, NVRTC's options, an edited plan's degrees).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_OPTIONS_H
#define SHARDC_TOOLS_SHARDC_OPTIONS_H

#include "shardc/Import/ONNX.h"
#include "shardc/Planner/Cluster.h"
#include "shardc/Planner/Search.h"
#include "shardc/Target/Cpp.h"
#include "shardc/Target/Cuda.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc::driver {

enum class Emit {
  Import,
  Graph,
  Dist,
  Kern,
  Plan,
  QuantReport,
  PruneReport,
  Onnx,
  Cuda,
  Cpp,
  Exe,
  Lib
};

struct Options {
  // Input.
  std::string inputFile;
  std::vector<std::string> inputShapes, maxShapes, constInputs; // NAME=...
  ONNXImportOptions import;
  std::string calibration; // --calibration DIR (int8 scales, expert places)

  // What to write.
  std::string outputFile = "-";
  Emit emit = Emit::Exe;
  bool verbose = false, printWeights = false, fusionReport = false;
  /// --emit=onnx: the initializers' bytes kept inline (then FILE.data).
  int64_t onnxInlineLimit = int64_t(1) << 30;
  std::string saveTemps, cpu;

  // Code generation.
  std::string target, precision;
  std::string quantize = "none"; // --quantize
  std::string calibrationMethod = "minmax", smoothQuant = "auto";
  double quantizeAccuracy = 0;       // --quantize-accuracy (0: no guard)
  std::vector<std::string> accuracyOutputs; // --quantize-accuracy-output
  std::string quantizeStats;         // --quantize-stats (the guard's trials)
  std::vector<int64_t> quantizeKeep; // --quantize-keep
  // --prune: the lossless step, and the fractions graph-prune removes.
  std::string prune = "lossless";
  bool pruneLossless = true;
  double pruneFfn = 0, pruneHeads = 0, pruneConv = 0;
  double pruneAuto = 0; // --prune=auto:COSINE (0: not asked)
  bool pruneAutoTop1 = false; // --prune=auto:top1=AGREEMENT
  std::string pruneStats; // --prune-stats (calibration compiles)
  /// --prune=experts[:SHARE]: the share at or below which an expert goes
  /// (negative: not asked); its routing counts, measured once (or given
  /// to calibration compiles by --prune-expert-loads).
  double pruneExperts = -1;
  std::vector<int64_t> pruneExpertLoads;
  /// --prune without its experts part (what a routing probe compiles).
  std::string pruneWithoutExperts() const;
  bool prunes() const {
    return pruneFfn > 0 || pruneHeads > 0 || pruneConv > 0 || pruneAuto > 0;
  }
  bool fusion = true, canonicalize = true;
  ProgramOptions program;
  cuda::CompileOptions nvrtc;

  // The mesh: the flags' degrees, or a plan's once adopted.
  int64_t tp = 1, pp = 1, dp = 1, ep = 1, microbatches = 1, world = 1;
  bool sp = false;
  int64_t expertRedundant = 0;
  /// The per-layer choices of an adopted plan (whole embedding or head,
  /// replicated layers); the degrees above.
  planner::Candidate layerPlan;

  // The planner: --devices, --plan=FILE, --cluster, --optimize.
  int64_t devices = 0; // 0: not asked
  std::string planFile;
  planner::Objective objective = planner::Objective::Latency;
  std::optional<planner::Cluster> cluster;   // with --devices or --plan
  std::string clusterSpec;                   // the preset or file it is
  std::optional<planner::Candidate> filePlan; // --plan=FILE's degrees
  bool calibrateCluster = false;
  int64_t calibrationRanks = 2; // --calibrate-cluster's ranks (--devices)

  /// Takes a plan's degrees as if they had been given as flags.
  void adopt(const planner::Candidate &plan);
  /// The mesh to compile: the degrees and the adopted plan's layer choices.
  planner::Candidate mesh() const;
};

/// Parses argv into `o` (MLIR's context and pass-manager options are
/// registered here too) and checks it. On a mistake, the one-line message
/// (without "shardc: error: ").
std::optional<std::string> parseOptions(int argc, char **argv, Options &o);

/// Prints "shardc: error: MSG" as one line (control characters escaped)
/// and returns 1.
int fatal(const std::string &msg);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_OPTIONS_H
