//===- shardc.cpp - the shardc compiler driver ------------------------------===//
//
//   shardc model.onnx -o model [--target=cpu|cuda|cuda,cpu] [--precision=P]
//   shardc model.onnx --emit=import|graph|dist|plan|kern|cuda|cpp [-o out]
//
// Parses the flags (Options.h), imports the model, then runs the named
// pipelines (lib/Pipelines) in order: the graph pipeline; the dist pipeline
// for a partitioned program (with --devices, the planner's choice first:
// dist-plan, PlanPhase.h; micro-batches, pipeline stages, seeds,
// propagation, then one program per rank); the kern pipeline; code
// generation and the executable (Executable.h). Each --emit stops at its
// stage and writes it.
//
//===----------------------------------------------------------------------===//

#include "Calibration.h"
#include "Executable.h"
#include "FusionReport.h"
#include "OnnxOutput.h"
#include "Options.h"
#include "PlanPhase.h"
#include "PruneReport.h"
#include "QuantReport.h"
#include "QuantizePhase.h"
#include "Session.h"
#include "Toolchain.h"
#include "Version.h"
#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/SymbolicShapes.h"
#include "passes/Sharding/Passes.h"
#include "shardc/Conversion/Passes.h"
#include "shardc/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;
using namespace shardc::driver;

/// --calibrate-cluster: shardc-calibrate-cluster (beside the runtime
/// libraries) under `mpirun -np N` (--devices, default 2: the ranks the
/// plans will run, which share this machine's cores), its spec checked by
/// the planner's parser.
static int runClusterCalibration(StringRef output, int64_t ranks) {
  if (ranks < 2 || ranks > 1024)
    return fatal("--calibrate-cluster --devices=" + std::to_string(ranks) +
                 ": measures the link between ranks, so 2 to 1024");
  if (output == "-")
    return fatal("--calibrate-cluster writes a cluster spec: give -o "
                 "FILE.json");
  ErrorOr<std::string> mpirun = sys::findProgramByName("mpirun");
  if (!mpirun)
    return fatal("--calibrate-cluster measures the link between two MPI "
                 "ranks, but mpirun is not on the PATH");
  shardc::RuntimeLayout runtime;
  std::string error;
  if (!shardc::findRuntime(runtime, error))
    return fatal(error);
  std::string tool = runtime.libDir + "/shardc-calibrate-cluster";
  if (!sys::fs::can_execute(tool))
    return fatal("--calibrate-cluster: " + tool + " is missing (build the "
                 "shardc-calibrate-cluster target)");
  std::string np = std::to_string(ranks);
  StringRef args[] = {*mpirun, "-np", np, "--oversubscribe", tool, output};
  std::string message;
  if (int rc = sys::ExecuteAndWait(*mpirun, args, std::nullopt, {}, 0, 0,
                                   &message))
    return fatal("--calibrate-cluster: mpirun -np " + np + " " + tool +
                 " failed" +
                 (message.empty() ? " (exit " + std::to_string(rc) + ")"
                                  : ": " + message));
  Expected<shardc::planner::Cluster> spec =
      shardc::planner::loadCluster(output);
  if (!spec)
    return fatal(toString(spec.takeError()));
  return 0;
}

/// --calibration DIR: the routing of the sample inputs on one rank, one
/// load per expert of every MoE layer in turn (expert placement's and
/// --prune=experts'); `none` is the error when no layer routed any.
/// False after fatal().
static bool expertLoads(const Options &o, const char *argv0,
                        std::vector<int64_t> &loads, const std::string &none) {
  std::string error;
  std::vector<std::vector<int64_t>> layers =
      shardc::calibrateRouting(calibrationRequest(o, argv0), error);
  if (layers.empty())
    return fatal(error.empty() ? none : error), false;
  for (const auto &layer : layers)
    loads.insert(loads.end(), layer.begin(), layer.end());
  return true;
}

/// The graph pipeline the flags ask for (`fusion` off for
/// --fusion-report's baseline).
static void addGraphPipeline(mlir::PassManager &pm, const Options &o,
                             bool fusion, const std::string &quantStats = "",
                             llvm::ArrayRef<int64_t> keep = {}) {
  shardc::GraphPipelineOptions g;
  g.canonicalize = o.canonicalize;
  g.precision = o.precision;
  g.quantize = o.quantize;
  g.quantizeStats = quantStats;
  g.calibrationMethod = o.calibrationMethod;
  g.smoothQuant = o.smoothQuant;
  g.quantizeKeep = llvm::to_vector(keep);
  g.pruneLossless = o.pruneLossless;
  g.pruneFfn = o.pruneFfn;
  g.pruneHeads = o.pruneHeads;
  g.pruneConv = o.pruneConv;
  g.pruneStats = o.pruneStats;
  g.pruneExperts = o.pruneExperts;
  g.pruneExpertLoads = o.pruneExpertLoads;
  g.fusion = fusion;
  g.target = o.target;
  shardc::buildGraphPipeline(pm, g);
}

/// --fusion-report: the same module through the pipelines without fusion,
/// counted against the fused one. False after fatal().
static bool reportFusion(Session &s, const Options &o,
                         mlir::ModuleOp unfused,
                         const std::map<std::string, unsigned> &fusedGraph) {
  std::map<std::string, unsigned> graphBefore = shardc::countGraphOps(unfused);
  if (!s.run(
          unfused,
          [&](mlir::PassManager &pm) {
            pm.addPass(shardc::createConvertGraphToKern(
                {/*halfGemm=*/o.program.cuda && !o.program.cpu}));
          },
          "kern lowering (without fusion)"))
    return false;
  shardc::printFusionReport(o.outputFile == "-" ? errs() : outs(),
                            graphBefore, fusedGraph,
                            shardc::kernelStats(unfused),
                            shardc::kernelStats(*s.module));
  return true;
}

/// "'batch' (max 8), 'seq' (max 128)" when the imported model has symbolic
/// dims (graph.dims on @main).
static std::optional<std::string> dynamicDims(mlir::ModuleOp module) {
  std::optional<std::string> out;
  module.walk([&](mlir::func::FuncOp f) {
    mlir::FailureOr<SmallVector<shardc::graph::Symbol>> symbols =
        shardc::graph::readSymbols(f);
    if (failed(symbols) || symbols->empty())
      return;
    std::string text;
    for (const shardc::graph::Symbol &sym : *symbols)
      text += (text.empty() ? "'" : ", '") + sym.name + "' (max " +
              std::to_string(sym.max) + ")";
    out = text;
  });
  return out;
}

/// The estimated FLOPs of one run of the graph module's functions (what
/// picks the executable's OpenMP wait, ProgramOptions::flops), 0 when a
/// computed type has dynamic dims (symbolic: their bounds are not the
/// run's sizes).
static double estimateProgramFlops(mlir::ModuleOp module) {
  double flops = 0;
  bool known = true;
  module.walk([&](mlir::Operation *op) {
    if (!isa_and_nonnull<shardc::graph::GraphDialect>(op->getDialect()) ||
        isa<shardc::graph::ConstantOp>(op))
      return;
    // A dynamic dim's type keeps its bound as its size (the symbols ride
    // in its encoding): the run's steps may be far smaller.
    for (mlir::Type t : op->getResultTypes())
      if (auto shaped = dyn_cast<mlir::ShapedType>(t))
        known &= shaped.hasStaticShape() && !shardc::graph::isSymbolic(t);
    flops += shardc::estimateFlops(op);
  });
  return known ? flops : 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "shardc " << SHARDC_VERSION << " (MLIR " << LLVM_VERSION_STRING
       << ")\n";
  });
  Options o;
  if (std::optional<std::string> err = parseOptions(argc, argv, o))
    return fatal(*err);
  if (o.calibrateCluster)
    return runClusterCalibration(o.outputFile, o.calibrationRanks);
  // dist-plan finds shardc-dist-pipeline by name (after the flags, so that
  // the pass-manager flags' pass lists stay as they were).
  shardc::registerPipelines();

  Session s(o);
  if (!s.load())
    return 1;
  if (o.emit == Emit::Import)
    return s.writeModule();
  // Dims that --max-shape leaves dynamic are symbolic through the graph
  // pipeline, tensor parallelism (--tp: the dynamic dims are never split),
  // the lowering and the C++ target (one CPU executable for every shape
  // within the bounds); the other partitionings, quantization, pruning,
  // the CUDA target and ONNX export take static shapes only, for now.
  if (std::optional<std::string> dims = dynamicDims(*s.module)) {
    std::string flag = o.quantize != "none"                ? "--quantize"
                       : o.prunes() || o.pruneExperts >= 0 ? "--prune"
                       : !o.planFile.empty()               ? "--plan"
                       : o.cluster                         ? "--devices"
                       : o.pp > 1                          ? "--pp"
                       : o.dp > 1                          ? "--dp"
                       : o.ep > 1                          ? "--ep"
                       : o.sp                              ? "--sp"
                       : o.microbatches > 1                ? "--microbatches"
                       : o.fusionReport                    ? "--fusion-report"
                                                           : "";
    bool cpuCode = o.emit == Emit::Graph || o.emit == Emit::Kern ||
                   o.emit == Emit::Cpp || o.emit == Emit::Exe ||
                   o.emit == Emit::Lib;
    if (!cpuCode || o.target.find("cuda") != std::string::npos)
      return fatal(o.inputFile + ": the model's dims " + *dims +
                   " stay dynamic (--max-shape), which only the CPU "
                   "target takes yet (--emit=import, graph, kern, cpp, exe, "
                   "lib); give --input-shape to compile one shape");
    if (!flag.empty())
      return fatal(o.inputFile + ": " + flag + " does not take dynamic dims (" +
                   *dims + ") yet; give --input-shape");
  }

  shardc::KernPipelineOptions kernOptions;
  kernOptions.fusion = o.fusion;
  kernOptions.target = o.target;
  PlannerRun planner;
  mlir::OwningOpRef<mlir::ModuleOp> propagated; // for --emit=plan

  if (!s.kernInput) {
    // --fusion-report compares with the same program compiled without
    // fusion.
    mlir::OwningOpRef<mlir::ModuleOp> unfused;
    std::map<std::string, unsigned> fusedGraph;
    if (o.fusionReport) {
      unfused = s.module->clone();
      if (!s.run(
              *unfused,
              [&](mlir::PassManager &pm) { addGraphPipeline(pm, o, false); },
              "graph pipeline (without fusion)"))
        return 1;
    }
    // --prune=ffn:R: the unpruned activations' statistics; --quantize=int8:
    // the (pruned) activations' statistics, and the layers the accuracy
    // guard keeps in floating point, first.
    PruneRun pruned;
    // (--prune=auto: the kinds of structure it prunes, on a copy through
    // the graph pipeline without pruning or quantization.)
    if (!preparePruning(s, o, argv[0], pruned, [&](mlir::PassManager &pm) {
          Options plain = o;
          plain.quantize = "none";
          plain.pruneAuto = 0;
          plain.pruneExperts = -1;
          addGraphPipeline(pm, plain, o.fusion);
        }))
      return 1;
    // --prune=experts: the tokens the samples route to each expert.
    if (o.pruneExperts >= 0 && o.pruneExpertLoads.empty()) {
      if (!expertLoads(o, argv[0], o.pruneExpertLoads,
                       "--prune=experts: " + o.inputFile +
                           " has no mixture-of-experts layer (graph.moe) "
                           "that the samples route tokens through"))
        return 1;
      s.stage("calibrated expert routing");
    }
    QuantizeRun quant;
    auto graphPipeline = [&](mlir::PassManager &pm, const std::string &stats,
                             llvm::ArrayRef<int64_t> keep) {
      addGraphPipeline(pm, o, o.fusion, stats, keep);
    };
    if (!prepareQuantization(s, o, argv[0], graphPipeline, quant))
      return 1;
    if (!s.run(
            [&](mlir::PassManager &pm) {
              graphPipeline(pm, quant.stats, quant.keep);
            },
            "graph pipeline"))
      return 1;
    s.stage("graph optimized");
    if (o.emit == Emit::PruneReport)
      return writePruneReport(o, *s.module, pruned);
    if (o.emit == Emit::QuantReport)
      return writeQuantReport(o, *s.module);
    if (o.emit == Emit::Onnx)
      return writeONNX(s, o);
    if (o.fusionReport)
      fusedGraph = shardc::countGraphOps(*s.module);

    // More micro-batches than rows would only repeat rows: one row each
    // (the planner's choice is clamped by dist-plan).
    if (int64_t rows = shardc::dist::batchRows(*s.module);
        o.microbatches > 1 && rows >= 1 && o.microbatches > rows) {
      if (o.verbose)
        errs() << "shardc: " << o.microbatches << " micro-batches of a batch "
               << "of " << rows << ": running " << rows << "\n";
      o.microbatches = rows;
    }
    std::vector<int64_t> loads;
    if (!o.calibration.empty() && o.ep > 1) {
      if (!expertLoads(o, argv[0], loads,
                       "--calibration " + o.calibration +
                           ": the model routed no tokens"))
        return 1;
      s.stage("calibrated");
    }
    if (o.cluster || o.microbatches > 1 || o.world > 1) {
      // The dist pipeline: the planner's choice (--devices, --plan=FILE),
      // micro-batches, stages, seeds, propagation (--emit=dist); the
      // partitioning itself below.
      if (!s.run(
              [&](mlir::PassManager &pm) {
                addDistPipeline(pm, o, loads, planner);
              },
              "sharding propagation"))
        return 1;
      s.stage("shardings propagated");
    }
    if (o.world > 1) {
      if (o.emit == Emit::Plan)
        propagated = s.module->clone();
      if (o.emit == Emit::Dist)
        return s.writeModule();
      if (!s.run(
              [&](mlir::PassManager &pm) {
                pm.addPass(shardc::createDistPartition());
              },
              "partitioning"))
        return 1;
      s.stage("partitioned");
    }
    if (o.emit == Emit::Graph)
      return s.writeModule();
    if (o.emit == Emit::Plan && !propagated)
      propagated = s.module->clone(); // one rank: the graph as it is

    if (o.world == 1)
      o.program.flops = estimateProgramFlops(*s.module);
    if (!s.run(
            [&](mlir::PassManager &pm) {
              shardc::buildKernPipeline(pm, kernOptions);
            },
            "kern lowering"))
      return 1;
    s.stage("lowered to kern, planned");
    if (o.fusionReport && !reportFusion(s, o, *unfused, fusedGraph))
      return 1;
  }

  if (o.emit == Emit::Plan) {
    if (s.kernInput)
      return fatal(o.inputFile + ": --emit=plan needs a graph input");
    return writePlanReport(s, o, planner, *propagated);
  }
  if (o.emit == Emit::Kern)
    return s.writeModule();
  return writeExecutable(s, o);
}
