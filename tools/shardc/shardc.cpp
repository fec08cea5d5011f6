//===- shardc.cpp - the shardc compiler driver ------------------------------===//
//
//   shardc model.onnx -o model [--target=cpu|cuda|cuda,cpu] [--precision=P]
//   shardc model.onnx --emit=import|graph|kern|cuda|cpp [-o out]
//
// Imports the model, runs the named pipelines (lib/Pipelines: graph
// optimization, lowering to kern with its memory and weights plans), generates
// code (lib/Target) and writes the
// requested stage; `exe` (the default) compiles the CUDA kernels with NVRTC
// (for a CUDA target), compiles and links the executable and writes its
// `.weights` file next to it.
//
//===----------------------------------------------------------------------===//

#include "Calibration.h"
#include "Planning.h"
#include "shardc/Planner/PlanFile.h"
#include "shardc/Planner/PlanSvg.h"
#include "shardc/Planner/Cluster.h"
#include "FusionReport.h"
#include "PlanReport.h"
#include "Toolchain.h"
#include "Version.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Kern/IR/KernOps.h"
#include "passes/Sharding/Passes.h"
#include "shardc/Conversion/Passes.h"
#include "shardc/Import/ONNX.h"
#include "shardc/InitAll.h"
#include "shardc/Pipelines/Pipelines.h"
#include "shardc/Target/Cpp.h"
#include "shardc/Target/Cuda.h"
#include "shardc/format.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <optional>
#include <thread>
#include <unistd.h>

using namespace llvm;

// --help shows shardc's options in these groups (and MLIR's --mlir-*).
static cl::OptionCategory inputCat("Input");
static cl::OptionCategory precisionCat("Precision and simplification");
static cl::OptionCategory partitionCat("Partitioning (run the executable "
                                       "with mpirun -np <ranks>)");
static cl::OptionCategory plannerCat("Planner");
static cl::OptionCategory outputCat("Output and emit");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::cat(inputCat));
static cl::opt<bool> calibrateCluster(
    "calibrate-cluster",
    cl::desc("Measure this machine (GEMM rate, memory bandwidth, MPI latency "
             "and bandwidth between two ranks, under mpirun) into a `cpu` "
             "cluster spec for the planner, written to -o FILE"),
    cl::init(false), cl::cat(plannerCat));
static cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' for stdout)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(outputCat));

enum class Emit { Import, Graph, Dist, Kern, Plan, Cuda, Cpp, Exe };
static cl::opt<Emit> emit(
    "emit", cl::desc("Stage to write"), cl::init(Emit::Exe),
    cl::values(
        clEnumValN(Emit::Import, "import",
                   "the graph dialect as imported (input of "
                   "shardc-opt --shardc-graph-pipeline)"),
        clEnumValN(Emit::Graph, "graph",
                   "the optimized graph dialect (after the graph pipeline)"),
        clEnumValN(Emit::Dist, "dist",
                   "the graph annotated with shardings (after "
                   "dist-propagate; needs --tp)"),
        clEnumValN(Emit::Plan, "plan",
                   "a readable report: the mesh, each weight's sharding, "
                   "every collective with its bytes, memory per rank"),
        clEnumValN(Emit::Kern, "kern",
                   "the bufferized kern program with its memory plan (after "
                   "the kern pipeline)"),
        clEnumValN(Emit::Cuda, "cuda",
                   "the generated CUDA C++ kernels (a CUDA target)"),
        clEnumValN(Emit::Cpp, "cpp",
                   "the generated C++: CPU kernels and the host side"),
        clEnumValN(Emit::Exe, "exe",
                   "the executable and its .weights file (default)")),
    cl::cat(outputCat));

static cl::opt<std::string> target(
    "target",
    cl::desc("Code generation target: cpu, cuda, or cuda,cpu (CUDA with the "
             "CPU code as a fallback when the machine has no usable GPU)"),
    cl::init("cpu"), cl::cat(outputCat));
static cl::opt<std::string> precision(
    "precision",
    cl::desc("Numerics: fp32 (default); tf32 (fp32 storage, TF32 tensor "
             "cores in CUDA GEMMs and convolutions); fp16 or bf16 (activations "
             "and weights stored narrow, arithmetic, GEMM accumulation and "
             "normalization statistics in fp32; inputs and outputs stay fp32)"),
    cl::init("fp32"), cl::cat(precisionCat));
static cl::list<std::string>
    cudaArchs("cuda-arch",
              cl::desc("NVRTC targets: cubins for sm_XY, PTX for compute_XY "
                       "(default sm_80,sm_90,compute_90)"),
              cl::CommaSeparated, cl::cat(outputCat));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Cache of NVRTC results (default $SHARDC_CACHE_DIR or "
             "~/.cache/shardc; empty disables)"),
    cl::cat(outputCat));
static cl::opt<std::string> cpu("cpu",
                                cl::desc("-march for the generated CPU code "
                                         "(default native; x86-64-v3 to deploy "
                                         "on other AVX2 machines)"),
                                cl::init("native"), cl::cat(outputCat));
static cl::opt<std::string>
    saveTemps("save-temps",
              cl::desc("Keep the generated C++ and object file in DIR"),
              cl::value_desc("DIR"), cl::cat(outputCat));
static cl::opt<bool> verbose("v", cl::desc("Print each stage with its time "
                                           "and the host compiler commands"),
                             cl::init(false), cl::cat(outputCat));

static cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Static shape of a graph input: NAME=1x128 (repeatable, "
                         "or comma separated)"),
                cl::value_desc("NAME=DIMS"), cl::CommaSeparated,
                cl::cat(inputCat));
static cl::list<std::string>
    constInputs("const-input",
                cl::desc("Fix a graph input to the tensor in FILE (.npy or .pb); "
                         "needed where an input determines a shape"),
                cl::value_desc("NAME=FILE"), cl::cat(inputCat));
static cl::opt<bool> printWeights(
    "print-weights",
    cl::desc("Print weight blobs in full (default: elide those over 64 bytes)"),
    cl::init(false), cl::cat(outputCat));
static cl::opt<int64_t> tensorParallel(
    "tp",
    cl::desc("Tensor-parallel degree: split attention by heads and the MLP "
             "Megatron-style over N ranks (run with mpirun -np N)"),
    cl::value_desc("N"), cl::init(1), cl::cat(partitionCat));
static cl::alias tensorParallelAlias("tensor-parallel-size",
                                     cl::desc("Alias for --tp"),
                                     cl::aliasopt(tensorParallel));
static cl::opt<int64_t> pipelineParallel(
    "pp",
    cl::desc("Pipeline-parallel degree: cut the graph into N stages between "
             "layers, balanced by estimated cost, joined by send/recv"),
    cl::value_desc("N"), cl::init(1), cl::cat(partitionCat));
static cl::alias pipelineParallelAlias("pipeline-parallel-size",
                                       cl::desc("Alias for --pp"),
                                       cl::aliasopt(pipelineParallel));
static cl::opt<int64_t> microbatches(
    "microbatches",
    cl::desc("Split the batch (the inputs' leading dim) into M micro-batches "
             "that the pipeline stages overlap"),
    cl::value_desc("M"), cl::init(1), cl::cat(partitionCat));
static cl::opt<int64_t> dataParallel(
    "dp",
    cl::desc("Data-parallel degree: N replicas, each on its share of the "
             "batch; only the outputs are gathered"),
    cl::value_desc("N"), cl::init(1), cl::cat(partitionCat));
static cl::alias dataParallelAlias("data-parallel-size",
                                   cl::desc("Alias for --dp"),
                                   cl::aliasopt(dataParallel));
static cl::opt<int64_t> expertParallel(
    "ep",
    cl::desc("Expert-parallel degree: split every mixture-of-experts "
             "layer's experts over N ranks; tokens reach them by "
             "all-to-all"),
    cl::value_desc("N"), cl::init(1), cl::cat(partitionCat));
static cl::alias expertParallelAlias("expert-parallel-size",
                                     cl::desc("Alias for --ep"),
                                     cl::aliasopt(expertParallel));
static cl::opt<int64_t> devices(
    "devices",
    cl::desc("Let the planner choose dp x pp x ep x tp (and sp, the "
             "micro-batch count) for N devices by its cost model on "
             "--cluster; --emit=plan explains the choice"),
    cl::value_desc("N"), cl::init(0), cl::cat(plannerCat));
static cl::opt<std::string> cluster(
    "cluster",
    cl::desc("The machines --devices plans for: a preset (cpu, a100-80g-8, "
             "h100-sxm-8, h200-8, <preset>x<nodes>) or a JSON spec (shardc "
             "--calibrate-cluster writes one)"),
    cl::value_desc("SPEC"), cl::init("cpu"), cl::cat(plannerCat));
static cl::opt<std::string> planFile(
    "plan",
    cl::desc("Compile exactly the plan in FILE (JSON: \"plan\": {dp, pp, "
             "ep, tp, sp, microbatches}), as --devices --emit=plan -o OUT "
             "writes it beside OUT (OUT's stem + .plan.json), edited or not"),
    cl::value_desc("FILE"), cl::cat(plannerCat));
enum class Optimize { Latency, Throughput };
static cl::opt<Optimize> optimize(
    "optimize", cl::desc("What --devices optimizes"),
    cl::values(clEnumValN(Optimize::Latency, "latency",
                          "the time of one run (default)"),
               clEnumValN(Optimize::Throughput, "throughput",
                          "rows per second with the pipeline full")),
    cl::init(Optimize::Latency), cl::cat(plannerCat));
static cl::opt<std::string> calibration(
    "calibration",
    cl::desc("Sample inputs (NAME.npy / NAME.pb, or one subdirectory per "
             "sample): run one rank on them to count the tokens each expert "
             "gets, and place the experts of --ep by that load"),
    cl::value_desc("DIR"), cl::cat(inputCat));
static cl::opt<int64_t> expertRedundant(
    "ep-redundant",
    cl::desc("Give the K hottest experts of each layer extra copies on other "
             "ranks (DeepSeek's EPLB; needs --ep and --calibration)"),
    cl::value_desc("K"), cl::init(0), cl::cat(partitionCat));
static cl::opt<bool> sequenceParallel(
    "sp",
    cl::desc("Sequence parallelism on the tp axis (Megatron): norms and "
             "residual adds split along the tokens; each all-reduce becomes "
             "a reduce-scatter plus an all-gather (needs --tp)"),
    cl::init(false), cl::cat(partitionCat));
static cl::alias sequenceParallelAlias("sequence-parallel",
                                       cl::desc("Alias for --sp"),
                                       cl::aliasopt(sequenceParallel));
static cl::opt<bool> noFusion(
    "no-fusion",
    cl::desc("Skip pattern recognition and fusion (one kernel per graph op)"),
    cl::init(false), cl::cat(precisionCat));
static cl::opt<bool> fusionReport(
    "fusion-report",
    cl::desc("Print what fusion did: ops per kind before and after, kernels "
             "per layer, estimated bytes moved"),
    cl::init(false), cl::cat(outputCat));
static cl::opt<bool> noCanonicalize("no-canonicalize",
                                    cl::desc("Skip the graph canonicalization"),
                                    cl::init(false), cl::cat(precisionCat));

static int fatal(const std::string &msg) {
  // One line, whatever the paths and names in it hold.
  std::string line;
  for (unsigned char c : msg) {
    if (c < 0x20 || c == 0x7f)
      line += formatv("\\x{0:x-2}", (unsigned)c).str();
    else
      line += (char)c;
  }
  errs() << "shardc: error: " << line << "\n";
  return 1;
}

static bool splitBinding(const std::string &arg, std::string &name,
                         std::string &value) {
  size_t eq = arg.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return false;
  name = arg.substr(0, eq);
  value = arg.substr(eq + 1);
  return true;
}

/// Parses the command line. LLVM's option parsers print some mistakes
/// straight to stderr, in several lines; they are captured (fd 2 points at a
/// temporary file meanwhile) and returned as one line, so that every error
/// reads 'shardc: error: ...'.
static std::optional<std::string> parseCommandLine(int argc, char **argv,
                                                   const char *overview) {
  std::string direct;
  raw_string_ostream directOs(direct);
  errs().flush();
  std::fflush(stderr);
  int saved = ::dup(2);
  std::FILE *capture = std::tmpfile();
  if (saved >= 0 && capture)
    ::dup2(::fileno(capture), 2);
  bool ok = cl::ParseCommandLineOptions(argc, argv, overview, &directOs);
  errs().flush();
  std::string printed;
  if (saved >= 0 && capture) {
    ::dup2(saved, 2);
    ::close(saved);
    std::rewind(capture);
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof(buf), capture)) > 0;)
      printed.append(buf, n);
    std::fclose(capture);
  }
  if (ok) {
    errs() << printed; // warnings, if any
    return std::nullopt;
  }
  StringRef first =
      StringRef(direct.empty() ? printed : direct).split('\n').first;
  first = first.split("  Try:").first.trim();
  // LLVM prefixes the program path.
  first.consume_front(argv[0]);
  first.consume_front(sys::path::filename(argv[0]));
  first.consume_front(":");
  return first.trim().str() + " (shardc --help lists the options)";
}

/// --help lists shardc's options in their groups and MLIR's (`--mlir-*`:
/// timing, IR printing, statistics, the pass manager); the hundreds of LLVM
/// backend and Polly flags that come with linking LLVM move to
/// --help-hidden. LLVM is built without RTTI, so UBSan's vptr check cannot
/// type its cl::Option objects: it is off here.
__attribute__((no_sanitize("vptr"))) static void hideBackendOptions() {
  const cl::OptionCategory *ours[] = {&inputCat, &precisionCat, &partitionCat,
                                      &plannerCat, &outputCat};
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *opt = entry.getValue();
    bool shown = entry.getKey().starts_with("mlir-") ||
                 llvm::is_contained({StringRef("help"), StringRef("help-list"),
                                     StringRef("version")},
                                    entry.getKey());
    for (const cl::OptionCategory *c : ours)
      shown |= llvm::is_contained(opt->Categories, c);
    if (!shown)
      opt->setHiddenFlag(cl::Hidden);
  }
}

/// The dist pipeline for a mesh candidate (the flags' plan, or one the
/// planner tries) and its micro-batch count.
static void addDistPipeline(mlir::PassManager &pm,
                            const shardc::planner::Candidate &mesh,
                            int64_t microbatches,
                            ArrayRef<int64_t> expertLoads,
                            int64_t expertRedundant, bool partition) {
  shardc::DistPhaseOptions o;
  o.tp = mesh.tp;
  o.pp = mesh.pp;
  o.dp = mesh.dp;
  o.ep = mesh.ep;
  o.sp = mesh.sp;
  o.microbatches = microbatches;
  o.embeddingWhole = mesh.embeddingWhole;
  o.headWhole = mesh.headWhole;
  o.replicatedLayers = mesh.replicatedLayers;
  o.expertLoads = SmallVector<int64_t>(expertLoads);
  o.expertRedundant = expertRedundant;
  o.partition = partition;
  shardc::buildDistPipeline(pm, o);
}

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
  std::string tool = SHARDC_RUNTIME_LIB_DIR "/shardc-calibrate-cluster";
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

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  hideBackendOptions();
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "shardc " << SHARDC_VERSION << " (MLIR " << LLVM_VERSION_STRING
       << ")\n";
  });
  if (std::optional<std::string> err = parseCommandLine(
          argc, argv,
          "shardc: compile an ONNX model for one or many devices\n\n"
          "  shardc model.onnx --emit=graph -o model.mlir --input-shape "
          "ids=1x128\n"))
    return fatal(*err);

  if (calibrateCluster)
    return runClusterCalibration(
        outputFile, devices.getNumOccurrences() ? devices.getValue() : 2);
  if (!inputFile.getNumOccurrences())
    return fatal("no input model given (shardc --help lists the options)");

  shardc::ONNXImportOptions options;
  // --emit=plan reads the graph only: external weights stay unopened.
  options.shapesOnly = emit == Emit::Plan;
  for (const std::string &arg : inputShapes) {
    std::string name, spec;
    std::vector<int64_t> dims;
    if (!splitBinding(arg, name, spec) || !shardc::parseShapeSpec(spec, dims))
      return fatal("--input-shape '" + arg + "': expected NAME=DIMS, e.g. ids=1x128");
    auto prior = options.inputShapes.find(name);
    if (prior != options.inputShapes.end() && prior->second != dims)
      return fatal("--input-shape gives '" + name + "' two different shapes");
    options.inputShapes[name] = dims;
  }
  for (const std::string &arg : constInputs) {
    std::string name, file;
    if (!splitBinding(arg, name, file))
      return fatal("--const-input '" + arg + "': expected NAME=FILE");
    auto prior = options.constInputs.find(name);
    if (prior != options.constInputs.end() && prior->second != file)
      return fatal("--const-input binds '" + name + "' twice, to '" +
                   prior->second + "' and '" + file + "'");
    options.constInputs[name] = file;
  }

  shardc::ProgramOptions program;
  {
    shardc::TargetSet targets;
    std::string error;
    if (!shardc::parseTargets(target, targets, error))
      return fatal("--target=" + target + ": " + error);
    program.cpu = targets.cpu;
    program.cuda = targets.cuda;
  }
  if (precision == "tf32")
    program.tf32 = true;
  else if (precision != "fp16" && precision != "bf16" && precision != "fp32")
    return fatal("--precision=" + precision +
                 ": expected fp32, tf32, fp16 or bf16");
  if (tensorParallel < 1 || tensorParallel > 4096)
    return fatal("--tp=" + std::to_string(tensorParallel) +
                 ": expected a degree from 1 to 4096");
  for (auto [flag, value] :
       {std::pair<const char *, int64_t>{"--pp", pipelineParallel},
        {"--dp", dataParallel},
        {"--ep", expertParallel},
        {"--microbatches", microbatches}})
    if (value < 1 || value > 4096)
      return fatal(std::string(flag) + "=" + std::to_string(value) +
                   ": expected a number from 1 to 4096");
  int64_t world =
      tensorParallel * pipelineParallel * dataParallel * expertParallel;
  std::optional<shardc::planner::Cluster> clusterSpec;
  // --plan=FILE: the degrees of an edited plan, priced on --cluster (else
  // the file's) for --emit=plan.
  std::optional<shardc::planner::Candidate> filePlan;
  // The degrees of a plan (--plan=FILE's, or the one --devices chooses),
  // as if they had been given as flags, and its per-layer strategies.
  shardc::planner::Candidate layerPlan;
  auto adopt = [&](const shardc::planner::Candidate &plan) {
    layerPlan = plan;
    tensorParallel = plan.tp;
    pipelineParallel = plan.pp;
    dataParallel = plan.dp;
    expertParallel = plan.ep;
    sequenceParallel = plan.sp;
    microbatches = plan.microbatches;
    world = plan.dp * plan.pp * plan.ep * plan.tp;
  };
  if (planFile.getNumOccurrences()) {
    if (devices.getNumOccurrences() || world > 1 || sequenceParallel ||
        microbatches > 1)
      return fatal("--plan=" + planFile + " fixes the mesh: drop --devices, "
                   "--tp, --pp, --dp, --ep, --sp and --microbatches");
    Expected<shardc::planner::PlanChoice> choice =
        shardc::planner::readPlanFile(planFile);
    if (!choice)
      return fatal(toString(choice.takeError()));
    filePlan = choice->plan;
    Expected<shardc::planner::Cluster> spec = shardc::planner::loadCluster(
        cluster.getNumOccurrences() || choice->cluster.empty()
            ? cluster.getValue()
            : choice->cluster);
    if (!spec)
      return fatal(planFile + ": " + toString(spec.takeError()));
    clusterSpec = *spec;
    adopt(*filePlan);
  } else if (devices.getNumOccurrences()) {
    if (devices < 1 || devices > 65536)
      return fatal("--devices=" + std::to_string(devices) +
                   ": expected a number from 1 to 65536");
    if (world > 1 || sequenceParallel || microbatches > 1)
      return fatal("--devices lets the planner choose the mesh: drop --tp, "
                   "--pp, --dp, --ep, --sp and --microbatches (or drop "
                   "--devices)");
    Expected<shardc::planner::Cluster> spec =
        shardc::planner::loadCluster(cluster);
    if (!spec)
      return fatal(toString(spec.takeError()));
    clusterSpec = *spec;
    if (devices > 1 && program.cuda && program.cpu)
      return fatal("--devices=" + std::to_string(devices) +
                   ": the ranks of a partitioned program run the same code; "
                   "compile it for --target=cuda (NCCL) or --target=cpu "
                   "(MPI), not cuda,cpu");
  } else if (cluster.getNumOccurrences() || optimize.getNumOccurrences()) {
    return fatal(std::string(cluster.getNumOccurrences() ? "--cluster"
                                                         : "--optimize") +
                 " is what the planner plans for: it needs --devices=N (or "
                 "--plan=FILE)");
  }
  if (world > 65536)
    return fatal("--dp x --pp x --ep x --tp = " + std::to_string(world) +
                 " ranks; at most 65536");
  // The ranks must agree on the transport (NCCL or MPI): no CPU fallback.
  if (world > 1 && program.cuda && program.cpu)
    return fatal((tensorParallel > 1     ? "--tp=" + std::to_string(tensorParallel)
                  : pipelineParallel > 1 ? "--pp=" + std::to_string(pipelineParallel)
                  : expertParallel > 1   ? "--ep=" + std::to_string(expertParallel)
                                         : "--dp=" + std::to_string(dataParallel)) +
                 ": the ranks of a partitioned program run the same code; "
                 "compile it for --target=cuda (NCCL) or --target=cpu (MPI), "
                 "not cuda,cpu");
  if (expertRedundant < 0 || expertRedundant > 4096)
    return fatal("--ep-redundant=" + std::to_string(expertRedundant) +
                 ": expected a number from 0 to 4096");
  if ((!calibration.empty() || expertRedundant > 0) && expertParallel == 1)
    return fatal(std::string(calibration.empty() ? "--ep-redundant"
                                                 : "--calibration") +
                 " places the experts of expert parallelism: it needs --ep=N "
                 "with N > 1");
  if (expertRedundant > 0 && calibration.empty())
    return fatal("--ep-redundant copies the hottest experts, which "
                 "calibration finds: give --calibration DIR");
  if (sequenceParallel && tensorParallel == 1)
    return fatal("--sp splits the tokens over the tp axis: it needs --tp=N "
                 "with N > 1");
  if (emit == Emit::Dist && world == 1 && devices <= 1)
    return fatal("--emit=dist needs a partitioned program (--tp, --pp, --ep "
                 "or --dp)");
  if (emit == Emit::Cuda && !program.cuda)
    return fatal("--emit=cuda needs a CUDA target (--target=cuda)");
  shardc::cuda::CompileOptions nvrtc;
  if (!cudaArchs.empty())
    nvrtc.archs.assign(cudaArchs.begin(), cudaArchs.end());
  for (const std::string &arch : nvrtc.archs)
    if (!StringRef(arch).starts_with("sm_") &&
        !StringRef(arch).starts_with("compute_"))
      return fatal("--cuda-arch=" + arch + ": expected sm_XY or compute_XY");
  nvrtc.cacheDir = cacheDir.getNumOccurrences()
                       ? cacheDir.getValue()
                       : shardc::cuda::defaultCacheDir();
  if (emit == Emit::Exe && outputFile == "-")
    return fatal("an executable needs -o FILE");
  if (outputFile != "-") {
    // Checked before the compile, so that the mistake costs nothing.
    if (sys::fs::is_directory(outputFile.getValue()))
      return fatal("-o " + outputFile + ": is a directory (name the file to "
                   "write, e.g. -o " +
                   (sys::path::filename(outputFile.getValue()).empty()
                        ? std::string("model")
                        : (outputFile + "/model")) +
                   ")");
    SmallString<128> outDir(outputFile.getValue());
    sys::path::remove_filename(outDir);
    if (outDir.empty())
      outDir = ".";
    if (sys::fs::exists(outDir) && !sys::fs::is_directory(outDir))
      return fatal("-o " + outputFile + ": '" + outDir.str().str() +
                   "' is not a directory");
    if (!sys::fs::is_directory(outDir))
      return fatal("-o " + outputFile + ": directory '" + outDir.str().str() +
                   "' does not exist");
    // Probe by creating a file: access(2) says yes to root everywhere.
    int probeFd;
    SmallString<128> probe;
    if (std::error_code ec = sys::fs::createUniqueFile(
            outDir + "/.shardc-probe-%%%%%%", probeFd, probe))
      return fatal("-o " + outputFile + ": cannot write in directory '" +
                   outDir.str().str() + "': " + ec.message());
    sys::Process::SafelyCloseFileDescriptor(probeFd);
    sys::fs::remove(probe);
  }

  mlir::DialectRegistry registry;
  shardc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  bool progress = verbose || sys::Process::StandardErrHasColors();
  TimeRecord start = TimeRecord::getCurrentTime();
  auto stage = [&](StringRef name) {
    if (!progress)
      return;
    TimeRecord now = TimeRecord::getCurrentTime();
    errs() << format("shardc: %-28s %8.1f ms\n", name.str().c_str(),
                     (now.getWallTime() - start.getWallTime()) * 1000);
  };

  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  // A .mlir input is an earlier stage's output: the graph as imported (or
  // hand-written), or planned kern IR (e.g. a module of rank programs),
  // which goes straight to code generation.
  bool kernInput = false;
  if (StringRef(inputFile).ends_with(".mlir")) {
    std::string parseError;
    {
      mlir::ScopedDiagnosticHandler h(&context, [&](mlir::Diagnostic &d) {
        if (d.getSeverity() == mlir::DiagnosticSeverity::Error &&
            parseError.empty()) {
          parseError = d.str();
          if (auto loc = dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
            parseError = std::to_string(loc.getLine()) + ":" +
                         std::to_string(loc.getColumn()) + ": " + parseError;
        }
        return mlir::success();
      });
      mlir::ParserConfig config(&context);
      module = mlir::parseSourceFile<mlir::ModuleOp>(inputFile, config);
    }
    if (!module)
      return fatal(inputFile + ":" +
                   (parseError.empty() ? std::string(" cannot parse")
                                       : parseError));
    module->walk([&](mlir::Operation *op) {
      kernInput |= isa<shardc::kern::KernDialect>(op->getDialect());
    });
    if (kernInput && (emit == Emit::Import || emit == Emit::Graph))
      return fatal(inputFile + ": the input is kern IR; --emit=import and "
                               "--emit=graph need a graph input");
    if (kernInput && fusionReport)
      return fatal(inputFile + ": --fusion-report needs a graph input");
  } else {
    module = shardc::importONNXModel(context, inputFile, options, error);
    if (!module)
      return fatal(error);
  }
  stage(kernInput ? "parsed kern" : "imported");

  // Pass diagnostics: one line, "FILE: node 'NAME': message".
  std::string diagnostic;
  mlir::ScopedDiagnosticHandler diagHandler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    std::string where = inputFile;
    if (auto name = dyn_cast<mlir::NameLoc>(d.getLocation()))
      where += ": node '" + name.getName().str() + "'";
    if (diagnostic.empty())
      diagnostic = where + ": " + d.str();
    return mlir::success();
  });
  auto runPipelineOn = [&](mlir::ModuleOp target, auto populate,
                           StringRef what) {
    mlir::PassManager pm(&context);
    if (failed(mlir::applyPassManagerCLOptions(pm)))
      return false;
    populate(pm);
    if (succeeded(pm.run(target)))
      return true;
    fatal(diagnostic.empty() ? inputFile + ": " + what.str() + " failed"
                             : diagnostic);
    return false;
  };
  auto runPipeline = [&](auto populate, StringRef what) {
    return runPipelineOn(*module, populate, what);
  };

  mlir::OpPrintingFlags flags;
  if (!printWeights)
    flags.elideLargeResourceString(64);
  auto writeText = [&](auto print) {
    std::string errorMessage;
    auto output = mlir::openOutputFile(outputFile, &errorMessage);
    if (!output)
      return fatal(errorMessage);
    print(output->os());
    output->keep();
    return 0;
  };
  // The module as text, ending in a newline as mlir-opt's output does.
  auto writeModule = [&] {
    return writeText([&](raw_ostream &os) {
      module->print(os, flags);
      os << "\n";
    });
  };
  if (emit == Emit::Import)
    return writeModule();

  shardc::GraphPipelineOptions graphOptions;
  graphOptions.canonicalize = !noCanonicalize;
  graphOptions.precision = precision.getValue();
  graphOptions.fusion = !noFusion;
  graphOptions.target = target.getValue();
  shardc::KernPipelineOptions kernOptions;
  kernOptions.fusion = !noFusion;
  kernOptions.target = target.getValue();
  // --fusion-report compares with the same program compiled without fusion.
  mlir::OwningOpRef<mlir::ModuleOp> unfused;
  std::map<std::string, unsigned> fusedGraphOps;
  mlir::OwningOpRef<mlir::ModuleOp> propagated; // for --emit=plan
  // --devices: the planner's inputs and choice (--emit=plan reports them).
  std::optional<shardc::planner::ModelSummary> planned;
  shardc::planner::SearchResult search;
  auto objective = optimize == Optimize::Latency
                       ? shardc::planner::Objective::Latency
                       : shardc::planner::Objective::Throughput;

  if (!kernInput) {
  if (fusionReport) {
    unfused = module->clone();
    shardc::GraphPipelineOptions plain;
    plain.canonicalize = !noCanonicalize;
    plain.precision = precision.getValue();
    plain.fusion = false;
    plain.target = target.getValue();
    if (!runPipelineOn(
            *unfused,
            [&](mlir::PassManager &pm) { shardc::buildGraphPipeline(pm, plain); },
            "graph pipeline (without fusion)"))
      return 1;
  }
  if (!runPipeline(
          [&](mlir::PassManager &pm) {
            shardc::buildGraphPipeline(pm, graphOptions);
          },
          "graph pipeline"))
    return 1;
  stage("graph optimized");

  if (fusionReport)
    fusedGraphOps = shardc::countGraphOps(*module);
  // --devices: the planner picks the mesh, then compilation goes on as if
  // its degrees had been given.
  if (clusterSpec) {
    // Each tp degree the search prices gets its own trial partition.
    llvm::SmallVector<int64_t> tpDegrees;
    if (filePlan)
      tpDegrees.push_back(filePlan->tp);
    else
      for (int64_t t = 2; t <= devices; ++t)
        if (devices % t == 0)
          tpDegrees.push_back(t);
    planned = shardc::summarizeModel(
        *module, precision == "tf32" ? "tf32" : precision.getValue(),
        tpDegrees);
  }
  if (filePlan) {
    shardc::planner::Candidate c =
        shardc::planner::evaluatePlan(*planned, *clusterSpec, *filePlan);
    (c.rejected.empty() ? search.ranked : search.rejected).push_back(c);
  } else if (clusterSpec) {
    search = shardc::planner::searchPlans(*planned, *clusterSpec, devices,
                                          objective);
    // The partitioner is the judge of what the estimate allows: the best
    // family it partitions is chosen; one it refuses (rows that interact
    // across micro-batches, a layout no reshard reaches) moves to the
    // rejected with the partitioner's reason.
    auto partitions = [&](const shardc::planner::Candidate &c,
                          std::string &why) {
      mlir::OwningOpRef<mlir::ModuleOp> trial = module->clone();
      std::string saved = std::move(diagnostic);
      diagnostic.clear();
      mlir::PassManager pm(&context);
      addDistPipeline(pm, c, c.microbatches, /*expertLoads=*/{},
                      /*expertRedundant=*/0, /*partition=*/true);
      bool ok = succeeded(pm.run(*trial));
      why = diagnostic.empty() ? "the partitioner refused it" : diagnostic;
      diagnostic = std::move(saved);
      return ok;
    };
    while (!search.ranked.empty() && devices > 1) {
      std::string why;
      if (partitions(search.ranked.front(), why))
        break;
      search.ranked.front().rejected = "partitioning failed: " + why;
      search.rejected.push_back(search.ranked.front());
      search.ranked.erase(search.ranked.begin());
    }
    if (search.ranked.empty()) {
      std::string why;
      for (size_t i = 0; i < search.rejected.size() && i < 3; ++i)
        why += (i ? "; " : "") + search.rejected[i].name() + ": " +
               search.rejected[i].rejected;
      return fatal("--devices=" + std::to_string(devices) + " on " +
                   clusterSpec->name + ": no plan runs (" + why + ")");
    }
    const shardc::planner::Candidate &best = search.ranked.front();
    adopt(best);
    if (verbose)
      errs() << "shardc: planner chose " << best.name() << " for " << devices
             << " devices on " << clusterSpec->name << "\n";
  }
  // More micro-batches than rows would only repeat rows: one row each.
  if (int64_t rows = shardc::dist::batchRows(*module);
      microbatches > 1 && rows >= 1 && microbatches > rows) {
    if (verbose)
      errs() << "shardc: " << microbatches << " micro-batches of a batch of "
             << rows << ": running " << rows << "\n";
    microbatches = rows;
  }
  // Expert load balancing: the routing of sample inputs on one rank (of the
  // model file, in a process of its own).
  std::vector<int64_t> expertLoads;
  if (!calibration.empty()) {
    shardc::CalibrationRequest request;
    request.shardc = sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&fatal));
    request.model = inputFile;
    for (const std::string &arg : inputShapes)
      request.flags.push_back("--input-shape=" + arg);
    for (const std::string &arg : constInputs)
      request.flags.push_back("--const-input=" + arg);
    request.dir = calibration;
    request.verbose = verbose;
    std::string error;
    std::vector<std::vector<int64_t>> layers =
        shardc::calibrateRouting(request, error);
    if (layers.empty())
      return fatal(error.empty() ? "--calibration " + calibration +
                                       ": the model routed no tokens"
                                 : error);
    for (const auto &layer : layers)
      expertLoads.insert(expertLoads.end(), layer.begin(), layer.end());
    stage("calibrated");
  }
  if (microbatches > 1 || world > 1) {
    // The dist pipeline: micro-batches, stages, seeds, propagation
    // (--emit=dist), then one program per rank.
    shardc::planner::Candidate mesh;
    mesh.embeddingWhole = layerPlan.embeddingWhole;
    mesh.headWhole = layerPlan.headWhole;
    mesh.replicatedLayers = layerPlan.replicatedLayers;
    mesh.tp = tensorParallel;
    mesh.pp = pipelineParallel;
    mesh.dp = dataParallel;
    mesh.ep = expertParallel;
    mesh.sp = sequenceParallel;
    if (!runPipeline(
            [&](mlir::PassManager &pm) {
              addDistPipeline(pm, mesh, microbatches, expertLoads,
                              expertRedundant, /*partition=*/false);
            },
            "sharding propagation"))
      return 1;
    stage("shardings propagated");
  }
  if (world > 1) {
    if (emit == Emit::Plan)
      propagated = module->clone();
    if (emit == Emit::Dist)
      return writeModule();
    if (!runPipeline(
            [&](mlir::PassManager &pm) {
              pm.addPass(shardc::createDistPartition());
            },
            "partitioning"))
      return 1;
    stage("partitioned");
  }
  if (emit == Emit::Graph)
    return writeModule();

  if (emit == Emit::Plan && !propagated)
    propagated = module->clone(); // one rank: the graph as it is
  if (!runPipeline(
          [&](mlir::PassManager &pm) {
            shardc::buildKernPipeline(pm, kernOptions);
          },
          "kern lowering"))
    return 1;
  stage("lowered to kern, planned");
  if (fusionReport) {
    std::map<std::string, unsigned> graphBefore =
        shardc::countGraphOps(*unfused);
    if (!runPipelineOn(
            *unfused,
            [&](mlir::PassManager &pm) {
              pm.addPass(shardc::createConvertGraphToKern(
                  {/*halfGemm=*/program.cuda && !program.cpu}));
            },
            "kern lowering (without fusion)"))
      return 1;
    shardc::printFusionReport(outputFile == "-" ? errs() : outs(),
                              graphBefore, fusedGraphOps,
                              shardc::kernelStats(*unfused),
                              shardc::kernelStats(*module));
  }
  } // !kernInput
  if (emit == Emit::Plan) {
    if (kernInput)
      return fatal(inputFile + ": --emit=plan needs a graph input");
    // With pipeline stages and -o FILE, the expected timeline is drawn
    // beside the report: FILE minus its extension, ".timeline.svg".
    std::string svg = shardc::timelineSvg(*propagated);
    std::string svgPath;
    if (!svg.empty() && outputFile != "-") {
      SmallString<128> path(outputFile.getValue());
      sys::path::replace_extension(path, "timeline.svg");
      svgPath = path.str().str();
      std::error_code ec;
      raw_fd_ostream svgOut(svgPath, ec);
      if (ec)
        return fatal("cannot write '" + svgPath + "': " + ec.message());
      svgOut << svg;
    }
    // The planner's result as JSON beside the report (OUT's stem +
    // ".plan.json"): what --plan=FILE compiles, edited or not.
    std::string planJsonPath;
    if (planned && !filePlan && outputFile != "-") {
      SmallString<128> path(outputFile.getValue());
      sys::path::replace_extension(path, "plan.json");
      planJsonPath = path.str().str();
      std::error_code ec;
      raw_fd_ostream jsonOut(planJsonPath, ec);
      if (ec)
        return fatal("cannot write '" + planJsonPath + "': " + ec.message());
      shardc::planner::writePlanFile(jsonOut, *planned, *clusterSpec, devices,
                                     objective, search);
    }
    // The planner's pictures beside the report (PlanSvg.h): OUT's stem +
    // ".plan-timeline.svg" and ".plan-memory.svg".
    std::string timelinePath, memoryPath;
    if (planned && outputFile != "-") {
      std::vector<const shardc::planner::Candidate *> shown =
          shardc::planner::familyBests(search);
      if (shown.size() > 4)
        shown.resize(4); // the chosen plan and three runners-up
      auto write = [&](StringRef ext, const std::string &svg,
                       std::string &path) -> bool {
        if (svg.empty())
          return true;
        SmallString<128> p(outputFile.getValue());
        sys::path::replace_extension(p, ext);
        path = p.str().str();
        std::error_code ec;
        raw_fd_ostream out(path, ec);
        if (ec)
          return false;
        out << svg;
        return true;
      };
      if (!write("plan-timeline.svg",
                 shardc::planner::timelineSvg(*clusterSpec, shown,
                                              filePlan ? "plan" : "chosen"),
                 timelinePath))
        return fatal("cannot write '" + timelinePath + "'");
      if (!write("plan-memory.svg",
                 shardc::planner::memorySvg(*clusterSpec, shown,
                                            search.rejected),
                 memoryPath))
        return fatal("cannot write '" + memoryPath + "'");
    }
    return writeText([&](raw_ostream &os) {
      if (planned)
        shardc::printPlannerReport(os, *planned, *clusterSpec,
                                   filePlan ? world : devices.getValue(),
                                   objective, search,
                                   filePlan ? planFile.getValue() : "",
                                   planJsonPath, timelinePath, memoryPath);
      shardc::printPlanReport(os, inputFile, *propagated, *module, svgPath);
    });
  }
  if (emit == Emit::Kern)
    return writeModule();

  std::string source;
  llvm::raw_string_ostream sourceStream(source);
  shardc::CppArtifacts artifacts;
  // Where the executable's intermediate files go: a temporary (or
  // --save-temps) directory. The NVRTC images are named before the C++ is
  // written, which embeds them by path.
  SmallString<128> dir;
  auto removeTemps = [&](ArrayRef<std::string> files) {
    if (!saveTemps.empty() || dir.empty())
      return;
    for (const std::string &f : files)
      sys::fs::remove(f);
    sys::fs::remove(dir);
  };
  std::string stem = sys::path::stem(outputFile).str();
  if (emit == Emit::Exe) {
    if (!saveTemps.empty()) {
      dir = saveTemps;
      if (std::error_code ec = sys::fs::create_directories(dir))
        return fatal("cannot create '" + saveTemps + "': " + ec.message());
      sys::fs::make_absolute(dir);
    } else if (std::error_code ec =
                   shardc::createDirectoryRemovedOnSignal(dir)) { // Toolchain.h
      return fatal("cannot create a temporary directory: " + ec.message());
    }
    if (program.cuda) {
      if (StringRef(dir).find_first_of("\"\\\n") != StringRef::npos)
        return fatal("the build directory '" + dir.str().str() +
                     "' has a quote, backslash or newline in its name");
      for (const std::string &arch : nvrtc.archs)
        program.cudaImages.push_back(
            {arch, (dir + "/" + stem + "." + arch +
                    (StringRef(arch).starts_with("sm_") ? ".cubin" : ".ptx"))
                       .str()});
    }
  }

  if (failed(shardc::emitCpp(*module, sourceStream, artifacts, program)))
    return fatal(diagnostic.empty() ? inputFile + ": code generation failed"
                                    : diagnostic);
  sourceStream.flush();
  stage(program.cuda ? "CUDA C++ and host C++ generated" : "C++ generated");
  if (emit == Emit::Cuda)
    return writeText([&](raw_ostream &os) { os << artifacts.cudaSource; });
  if (emit == Emit::Cpp)
    return writeText([&](raw_ostream &os) { os << source; });

  std::vector<std::string> temps;
  if (program.cuda) {
    std::vector<shardc::cuda::Image> images;
    bool cached = false;
    if (failed(shardc::cuda::compile(artifacts.cudaSource, nvrtc, images,
                                     error, cached))) {
      removeTemps(temps);
      return fatal(inputFile + ": " + error);
    }
    std::string imageIds;
    for (auto [i, image] : llvm::enumerate(images)) {
      const std::string &path = program.cudaImages[i].second;
      std::error_code ec;
      raw_fd_ostream os(path, ec);
      if (ec)
        return fatal("cannot write '" + path + "': " + ec.message());
      os.write(image.data.data(), image.data.size());
      temps.push_back(path);
      imageIds += std::to_string(shardc::format::checksum64(
                      image.data.data(), image.data.size())) +
                  " ";
    }
    // The C++ names the images by path only: let their contents reach the
    // compiler cache's key.
    source += "static const char shardc_cuda_image_ids[] "
              "__attribute__((used)) = \"" + imageIds + "\";\n";
    stage(("NVRTC " + std::to_string(images.size()) + " images" +
           (cached ? " (cached)" : ""))
              .c_str());
  }

  std::string cppPath = (dir + "/" + stem + ".cpp").str();
  std::string objPath = (dir + "/" + stem + ".o").str();
  {
    std::error_code ec;
    raw_fd_ostream os(cppPath, ec);
    if (ec)
      return fatal("cannot write '" + cppPath + "': " + ec.message());
    os << source;
  }
  shardc::ToolchainOptions tc;
  tc.cpu = cpu;
  tc.verbose = verbose;
  tc.mpi = artifacts.sections.size() > 1;
  std::string weightsPath = outputFile + ".weights";
  uint64_t weightsBytes = 0;
  for (const shardc::WeightsSection &section : artifacts.sections)
    weightsBytes += section.size;
  // The host compiler (its own processes) runs while this process streams
  // the weights file from the module's weight data (alive until here): the
  // one stage that does not touch weights hides behind the ones that do.
  bool built = false;
  std::string buildError;
  double builtAt = 0;
  std::thread builder([&] {
    built = shardc::buildExecutable(cppPath, objPath, outputFile, tc,
                                    buildError);
    builtAt = TimeRecord::getCurrentTime().getWallTime();
  });
  bool wrote = shardc::writeWeightsFile(
      weightsPath, artifacts.modelHash, artifacts.sections, error,
      context.isMultithreadingEnabled() ? 0 : 1);
  double wroteAt = TimeRecord::getCurrentTime().getWallTime();
  builder.join();
  temps.push_back(cppPath);
  temps.push_back(objPath);
  removeTemps(temps);
  if (!built) {
    sys::fs::remove(weightsPath); // no output without its executable
    return fatal(buildError);
  }
  if (!wrote)
    return fatal(error);
  if (progress) {
    std::pair<double, const char *> done[] = {
        {wroteAt, "weights written"}, {builtAt, "compiled and linked"}};
    if (builtAt < wroteAt)
      std::swap(done[0], done[1]);
    for (auto &[at, name] : done)
      errs() << format("shardc: %-28s %8.1f ms\n", name,
                       (at - start.getWallTime()) * 1000);
  }
  if (progress)
    errs() << "shardc: wrote " << outputFile << " ("
           << (program.cpu ? artifacts.numKernels : artifacts.numCudaKernels)
           << " generated kernels, " << artifacts.numLibraryCalls
           << " library calls, arena " << artifacts.arenaBytes << " B) and "
           << weightsPath << " (" << weightsBytes << " B)\n";
  return 0;
}
