//===- Options.cpp - shardc's command line, parsed and checked ------------===//
//
// The flags in their --help groups, the parse that turns LLVM's multi-line
// complaints into one line, and the checks of values and combinations.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "shardc/Pipelines/Pipelines.h"
#include "shardc/Planner/PlanFile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <unistd.h>

using namespace llvm;
using shardc::driver::Emit;

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
        clEnumValN(Emit::QuantReport, "quant-report",
                   "quantization's decisions: each linear layer's scheme, "
                   "SmoothQuant alpha, clipping range and SQNR on the "
                   "calibration rows, and an SVG chart of the SQNRs beside "
                   "-o"),
        clEnumValN(Emit::PruneReport, "prune-report",
                   "pruning's decisions: each pruned layer's channels or "
                   "heads kept, its output error, --prune=auto's trials, and "
                   "SVG charts beside -o"),
        clEnumValN(Emit::Onnx, "onnx",
                   "the optimized one-rank graph as ONNX (int8 layers in "
                   "QDQ form, pruned shapes)"),
        clEnumValN(Emit::Kern, "kern",
                   "the bufferized kern program with its memory plan (after "
                   "the kern pipeline)"),
        clEnumValN(Emit::Cuda, "cuda",
                   "the generated CUDA C++ kernels (a CUDA target)"),
        clEnumValN(Emit::Cpp, "cpp",
                   "the generated C++: CPU kernels and the host side"),
        clEnumValN(Emit::Exe, "exe",
                   "the executable and its .weights file (default)"),
        clEnumValN(Emit::Lib, "lib",
                   "a shared library with the C API of shardc/runtime.h "
                   "(Python's shardc.load) and its .weights file")),
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
static cl::opt<std::string> quantize(
    "quantize",
    cl::desc("Quantization: none (default); int8 (static W8A8 from "
             "--calibration samples: the linear layers' constant weights int8 "
             "per output channel, their activations int8 with one scale each "
             "found on the samples, SmoothQuant, int32 products); "
             "int8-dynamic (the same, with activations scaled per token at "
             "run time, no samples). Attention and normalization stay in "
             "floating point"),
    cl::init("none"), cl::cat(precisionCat));
static cl::opt<std::string> calibrationMethod(
    "calibration-method",
    cl::desc("--quantize=int8's clipping range of each activation: minmax "
             "(default: the largest magnitude seen), percentile (99.99% of "
             "the magnitudes) or entropy (least KL divergence, as TensorRT)"),
    cl::init("minmax"), cl::cat(precisionCat));
static cl::opt<double> quantizeAccuracy(
    "quantize-accuracy",
    cl::desc("--quantize=int8's accuracy guard: keep the least accurate "
             "layers (lowest SQNR first) in floating point until the "
             "outputs on the --calibration samples reach this mean cosine "
             "against fp32 (e.g. 0.99; default off)"),
    cl::init(0.0), cl::cat(precisionCat));
static cl::list<std::string> accuracyOutputs(
    "quantize-accuracy-output",
    cl::desc("The outputs --quantize-accuracy and --prune=auto judge "
             "(default: every float "
             "output; name the meaningful ones, e.g. a pooled embedding "
             "rather than hidden states at padding positions)"),
    cl::value_desc("NAME"), cl::CommaSeparated, cl::cat(precisionCat));
// --emit=onnx: initializers go to FILE.data past this many bytes of them
// (1 GiB; tests set it low).
static cl::opt<int64_t> onnxInlineLimit("onnx-inline-limit", cl::Hidden,
                                        cl::init(int64_t(1) << 30),
                                        cl::cat(outputCat));
// The accuracy guard's trial compiles: statistics already measured, and
// the activations whose layers stay in floating point.
static cl::opt<std::string> quantizeStats("quantize-stats", cl::Hidden,
                                          cl::cat(precisionCat));
static cl::list<int64_t> quantizeKeep("quantize-keep", cl::Hidden,
                                      cl::CommaSeparated,
                                      cl::cat(precisionCat));
static cl::opt<std::string> prune(
    "prune",
    cl::desc(
        "Pruning: lossless (default: MLP and convolution channels and "
        "attention heads whose weights make them contribute nothing or "
        "a constant are removed, exactly), none, ffn:R,heads:R with "
        "--calibration (remove the fraction R of MLP channels and of "
        "heads that matter least on the samples; after the lossless "
        "step), conv:R (the same for the channels between "
        "convolutions), experts[:SHARE] (the experts the samples route at most "
        "that share of a layer's tokens to, default none), or "
        "auto:COSINE (the largest equal fraction of MLP channels and "
        "heads whose outputs on the samples keep that mean cosine; "
        "auto:top1=A: that top-1 agreement, for logits)"),
    cl::init("lossless"), cl::cat(precisionCat));
// The calibration compiles of a pruned model (quantization's statistics,
// the accuracy guard's trials): the pruning statistics already measured.
static cl::opt<std::string> pruneStats("prune-stats", cl::Hidden,
                                       cl::cat(precisionCat));
static cl::list<int64_t> pruneExpertLoads("prune-expert-loads", cl::Hidden,
                                          cl::CommaSeparated,
                                          cl::cat(precisionCat));
static cl::opt<std::string> smoothQuant(
    "smoothquant",
    cl::desc("--quantize=int8's SmoothQuant strength: auto (default: chosen "
             "per activation by the expected output noise), off, or alpha "
             "from 0 to 1"),
    cl::init("auto"), cl::cat(precisionCat));
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
    maxShapes("max-shape",
              cl::desc("Bound of a graph input whose dynamic dims stay "
                       "dynamic: NAME=8x2048 (repeatable; without it or "
                       "--input-shape, dims named as a batch or a sequence are "
                       "bounded by 1 and 512, with a warning)"),
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
static cl::opt<std::string>
    optimize("optimize",
             cl::desc("What --devices optimizes: latency (default: the time "
                      "of one run) or throughput (rows per second with the "
                      "pipeline full)"),
             cl::init("latency"), cl::cat(plannerCat));
static cl::opt<std::string> calibration(
    "calibration",
    cl::desc("Sample inputs (NAME.npy / NAME.pb, or one subdirectory per "
             "sample), run on one rank: --quantize=int8 scales activations "
             "by their ranges there; --ep places experts by the tokens each "
             "gets"),
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

int shardc::driver::fatal(const std::string &msg) {
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
    // MLIR's printer minutiae stay behind --help-hidden with LLVM's (the
    // pass-manager and IR-printing flags are listed).
    bool minutia =
        llvm::is_contained({StringRef("mlir-print-value-users"),
                            StringRef("mlir-elide-resource-strings-if-larger"),
                            StringRef("mlir-print-skip-regions"),
                            StringRef("mlir-pretty-debuginfo"),
                            StringRef("mlir-print-unique-ssa-ids")},
                           entry.getKey());
    bool shown = (entry.getKey().starts_with("mlir-") && !minutia) ||
                 llvm::is_contained({StringRef("help"), StringRef("help-list"),
                                     StringRef("version")},
                                    entry.getKey());
    for (const cl::OptionCategory *c : ours)
      shown |= llvm::is_contained(opt->Categories, c);
    if (!shown)
      opt->setHiddenFlag(cl::Hidden);
  }
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

namespace shardc::driver {

void Options::adopt(const planner::Candidate &plan) {
  layerPlan = plan;
  tp = plan.tp;
  pp = plan.pp;
  dp = plan.dp;
  ep = plan.ep;
  sp = plan.sp;
  microbatches = plan.microbatches;
  world = plan.dp * plan.pp * plan.ep * plan.tp;
}

planner::Candidate Options::mesh() const {
  planner::Candidate mesh;
  mesh.embeddingWhole = layerPlan.embeddingWhole;
  mesh.headWhole = layerPlan.headWhole;
  mesh.replicatedLayers = layerPlan.replicatedLayers;
  mesh.tp = tp;
  mesh.pp = pp;
  mesh.dp = dp;
  mesh.ep = ep;
  mesh.sp = sp;
  mesh.microbatches = microbatches;
  return mesh;
}

/// The flags' values, before any check.
static void readFlags(Options &o) {
  o.inputFile = inputFile;
  o.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  o.maxShapes.assign(maxShapes.begin(), maxShapes.end());
  o.constInputs.assign(constInputs.begin(), constInputs.end());
  o.calibration = calibration;
  o.outputFile = outputFile;
  o.emit = emit;
  o.verbose = verbose;
  o.printWeights = printWeights;
  o.onnxInlineLimit = onnxInlineLimit;
  o.fusionReport = fusionReport;
  o.saveTemps = saveTemps;
  o.cpu = cpu;
  o.target = target;
  o.precision = precision;
  o.quantize = quantize;
  o.calibrationMethod = calibrationMethod;
  o.quantizeAccuracy = quantizeAccuracy;
  o.accuracyOutputs.assign(accuracyOutputs.begin(), accuracyOutputs.end());
  o.quantizeStats = quantizeStats;
  o.quantizeKeep.assign(quantizeKeep.begin(), quantizeKeep.end());
  o.smoothQuant = smoothQuant;
  o.prune = prune;
  o.pruneStats = pruneStats;
  o.pruneExpertLoads.assign(pruneExpertLoads.begin(), pruneExpertLoads.end());
  o.fusion = !noFusion;
  o.canonicalize = !noCanonicalize;
  o.tp = tensorParallel;
  o.pp = pipelineParallel;
  o.dp = dataParallel;
  o.ep = expertParallel;
  o.microbatches = microbatches;
  o.sp = sequenceParallel;
  o.expertRedundant = expertRedundant;
  o.devices = devices.getNumOccurrences() ? devices.getValue() : 0;
  o.planFile = planFile;
  o.objective = optimize == "throughput" ? planner::Objective::Throughput
                                         : planner::Objective::Latency;
  o.calibrateCluster = calibrateCluster;
  o.calibrationRanks = devices.getNumOccurrences() ? devices.getValue() : 2;
}

/// --input-shape and --const-input into the importer's options.
static std::optional<std::string> readBindings(Options &o) {
  // --emit=plan reads the graph only: external weights stay unopened.
  o.import.shapesOnly = o.emit == Emit::Plan;
  for (const std::string &arg : o.inputShapes) {
    std::string name, spec;
    std::vector<int64_t> dims;
    if (!splitBinding(arg, name, spec) || !parseShapeSpec(spec, dims))
      return "--input-shape '" + arg + "': expected NAME=DIMS, e.g. ids=1x128";
    auto prior = o.import.inputShapes.find(name);
    if (prior != o.import.inputShapes.end() && prior->second != dims)
      return "--input-shape gives '" + name + "' two different shapes";
    o.import.inputShapes[name] = dims;
  }
  for (const std::string &arg : o.maxShapes) {
    std::string name, spec;
    std::vector<int64_t> dims;
    if (!splitBinding(arg, name, spec) || !parseShapeSpec(spec, dims))
      return "--max-shape '" + arg + "': expected NAME=DIMS, e.g. ids=8x2048";
    auto prior = o.import.maxShapes.find(name);
    if (prior != o.import.maxShapes.end() && prior->second != dims)
      return "--max-shape gives '" + name + "' two different bounds";
    o.import.maxShapes[name] = dims;
  }
  for (const std::string &arg : o.constInputs) {
    std::string name, file;
    if (!splitBinding(arg, name, file))
      return "--const-input '" + arg + "': expected NAME=FILE";
    auto prior = o.import.constInputs.find(name);
    if (prior != o.import.constInputs.end() && prior->second != file)
      return "--const-input binds '" + name + "' twice, to '" + prior->second +
             "' and '" + file + "'";
    o.import.constInputs[name] = file;
  }
  // None of them: dims named as a batch or a sequence get default
  // bounds, with a warning (Session::load).
  o.import.defaultBounds = o.import.inputShapes.empty() &&
                           o.import.maxShapes.empty() &&
                           o.import.constInputs.empty();
  return std::nullopt;
}

std::string Options::pruneWithoutExperts() const {
  SmallVector<StringRef> parts;
  StringRef(prune).split(parts, ',');
  std::string kept;
  for (StringRef part : parts)
    if (!part.starts_with("experts"))
      kept += (kept.empty() ? "" : ",") + part.str();
  return kept.empty() ? "lossless" : kept;
}

/// --prune: lossless, none, or a list of KIND:FRACTION.
static std::optional<std::string> parsePrune(Options &o) {
  o.pruneLossless = o.prune != "none";
  if (o.prune == "lossless" || o.prune == "none")
    return std::nullopt;
  SmallVector<StringRef> parts;
  if (StringRef target = o.prune; target.consume_front("auto")) {
    bool colon = target.consume_front(":");
    o.pruneAutoTop1 = colon && target.consume_front("top1=");
    if (!colon || target.getAsDouble(o.pruneAuto) || !(o.pruneAuto > 0) ||
        o.pruneAuto > 1)
      return "--prune=" + o.prune +
             ": expected auto:COSINE or "
             "auto:top1=AGREEMENT with a value above 0 and at most 1 (e.g. "
             "auto:0.98 for embeddings, auto:top1=0.95 for logits)";
  } else {
    StringRef(o.prune).split(parts, ',');
  }
  for (StringRef part : parts) {
    auto [kind, value] = part.split(':');
    if (kind == "experts") {
      double share = 0;
      if ((!value.empty() && value.getAsDouble(share)) || !(share >= 0) ||
          share >= 1)
        return "--prune=" + o.prune + ": '" + part.str() +
               "': expected experts or experts:SHARE with a share in [0, 1)";
      o.pruneExperts = share;
      continue;
    }
    double r = 0;
    if (value.getAsDouble(r) || !(r >= 0) || r >= 1)
      return "--prune=" + o.prune + ": '" + part.str() +
             "': expected KIND:FRACTION with a fraction in [0, 1)";
    if (kind == "ffn")
      o.pruneFfn = r;
    else if (kind == "heads")
      o.pruneHeads = r;
    else if (kind == "conv")
      o.pruneConv = r;
    else
      return "--prune=" + o.prune + ": unknown kind '" + kind.str() +
             "' (expected ffn, heads, conv or experts; or lossless, none)";
  }
  if (o.calibration.empty() && o.pruneStats.empty() &&
      (o.pruneExperts < 0 || o.pruneExpertLoads.empty()))
    return "--prune=" + o.prune + " chooses what to remove by its effect "
           "on sample inputs: give --calibration DIR";
  if (o.precision != "fp32")
    return "--prune=" + o.prune + " prunes an fp32 model; it does not "
           "combine with --precision=" + o.precision + " yet";
  if (!o.fusion)
    return "--prune=" + o.prune + " removes parts of the fused MLPs and "
           "attention; it needs fusion (drop --no-fusion)";
  return std::nullopt;
}

/// The degrees, --plan=FILE and --devices, and what they exclude.
static std::optional<std::string> checkMesh(Options &o) {
  if (optimize != "latency" && optimize != "throughput")
    return "--optimize=" + optimize + ": expected latency or throughput";
  if (o.tp < 1 || o.tp > 4096)
    return "--tp=" + std::to_string(o.tp) + ": expected a degree from 1 to 4096";
  for (auto [flag, value] : {std::pair<const char *, int64_t>{"--pp", o.pp},
                             {"--dp", o.dp},
                             {"--ep", o.ep},
                             {"--microbatches", o.microbatches}})
    if (value < 1 || value > 4096)
      return std::string(flag) + "=" + std::to_string(value) +
             ": expected a number from 1 to 4096";
  o.world = o.tp * o.pp * o.dp * o.ep;
  const std::string noFixedMesh = "--tp, --pp, --dp, --ep, --sp and "
                                  "--microbatches";
  if (planFile.getNumOccurrences()) {
    if (devices.getNumOccurrences() || o.world > 1 || o.sp ||
        o.microbatches > 1)
      return "--plan=" + o.planFile + " fixes the mesh: drop --devices, " +
             noFixedMesh;
    Expected<planner::PlanChoice> choice = planner::readPlanFile(o.planFile);
    if (!choice)
      return toString(choice.takeError());
    o.filePlan = choice->plan;
    o.clusterSpec = cluster.getNumOccurrences() || choice->cluster.empty()
                        ? cluster.getValue()
                        : choice->cluster;
    Expected<planner::Cluster> spec = planner::loadCluster(o.clusterSpec);
    if (!spec)
      return o.planFile + ": " + toString(spec.takeError());
    o.cluster = *spec;
    o.adopt(*o.filePlan);
  } else if (devices.getNumOccurrences()) {
    if (o.devices < 1 || o.devices > 65536)
      return "--devices=" + std::to_string(o.devices) +
             ": expected a number from 1 to 65536";
    if (o.world > 1 || o.sp || o.microbatches > 1)
      return "--devices lets the planner choose the mesh: drop " + noFixedMesh +
             " (or drop --devices)";
    o.clusterSpec = cluster;
    Expected<planner::Cluster> spec = planner::loadCluster(o.clusterSpec);
    if (!spec)
      return toString(spec.takeError());
    o.cluster = *spec;
    if (o.devices > 1 && o.program.cuda && o.program.cpu)
      return "--devices=" + std::to_string(o.devices) +
             ": the ranks of a partitioned program run the same code; "
             "compile it for --target=cuda (NCCL) or --target=cpu (MPI), not "
             "cuda,cpu";
  } else if (cluster.getNumOccurrences() || optimize.getNumOccurrences()) {
    return std::string(cluster.getNumOccurrences() ? "--cluster"
                                                   : "--optimize") +
           " is what the planner plans for: it needs --devices=N (or "
           "--plan=FILE)";
  }
  if (o.world > 65536)
    return "--dp x --pp x --ep x --tp = " + std::to_string(o.world) +
           " ranks; at most 65536";
  // The ranks must agree on the transport (NCCL or MPI): no CPU fallback.
  if (o.world > 1 && o.program.cuda && o.program.cpu)
    return (o.tp > 1   ? "--tp=" + std::to_string(o.tp)
            : o.pp > 1 ? "--pp=" + std::to_string(o.pp)
            : o.ep > 1 ? "--ep=" + std::to_string(o.ep)
                       : "--dp=" + std::to_string(o.dp)) +
           ": the ranks of a partitioned program run the same code; compile "
           "it for --target=cuda (NCCL) or --target=cpu (MPI), not cuda,cpu";
  if (o.expertRedundant < 0 || o.expertRedundant > 4096)
    return "--ep-redundant=" + std::to_string(o.expertRedundant) +
           ": expected a number from 0 to 4096";
  if (((!o.calibration.empty() && o.quantize != "int8" && !o.prunes() &&
        o.pruneExperts < 0) ||
       o.expertRedundant > 0) &&
      o.ep == 1)
    return std::string(o.calibration.empty() ? "--ep-redundant"
                                             : "--calibration") +
           " places the experts of expert parallelism: it needs --ep=N with "
           "N > 1";
  if (o.expertRedundant > 0 && o.calibration.empty())
    return std::string("--ep-redundant copies the hottest experts, which "
                       "calibration finds: give --calibration DIR");
  if (o.sp && o.tp == 1)
    return std::string("--sp splits the tokens over the tp axis: it needs "
                       "--tp=N with N > 1");
  if (o.emit == Emit::Onnx &&
      (o.world > 1 || o.devices > 1 || o.cluster || o.microbatches > 1))
    return std::string("--emit=onnx writes the one-rank model (quantized and "
                       "pruned): drop the partitioning flags (--tp, --pp, "
                       "--ep, --dp, --devices, --microbatches)");
  if (o.emit == Emit::Dist && o.world == 1 && o.devices <= 1)
    return std::string("--emit=dist needs a partitioned program (--tp, --pp, "
                       "--ep or --dp)");
  return std::nullopt;
}

/// -o: checked before the compile, so that the mistake costs nothing.
static std::optional<std::string> checkOutput(const Options &o) {
  if (o.emit == Emit::Exe && o.outputFile == "-")
    return std::string("an executable needs -o FILE");
  if (o.emit == Emit::Lib && o.outputFile == "-")
    return std::string("a shared library needs -o FILE.so");
  if (o.outputFile == "-")
    return std::nullopt;
  if (sys::fs::is_directory(o.outputFile))
    return "-o " + o.outputFile + ": is a directory (name the file to write, "
           "e.g. -o " +
           (sys::path::filename(o.outputFile).empty()
                ? std::string("model")
                : (o.outputFile + "/model")) +
           ")";
  SmallString<128> outDir(o.outputFile);
  sys::path::remove_filename(outDir);
  if (outDir.empty())
    outDir = ".";
  if (sys::fs::exists(outDir) && !sys::fs::is_directory(outDir))
    return "-o " + o.outputFile + ": '" + outDir.str().str() +
           "' is not a directory";
  if (!sys::fs::is_directory(outDir))
    return "-o " + o.outputFile + ": directory '" + outDir.str().str() +
           "' does not exist";
  // Probe by creating a file: access(2) says yes to root everywhere.
  int probeFd;
  SmallString<128> probe;
  if (std::error_code ec = sys::fs::createUniqueFile(
          outDir + "/.shardc-probe-%%%%%%", probeFd, probe))
    return "-o " + o.outputFile + ": cannot write in directory '" +
           outDir.str().str() + "': " + ec.message();
  sys::Process::SafelyCloseFileDescriptor(probeFd);
  sys::fs::remove(probe);
  return std::nullopt;
}

std::optional<std::string> parseOptions(int argc, char **argv, Options &o) {
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  hideBackendOptions();
  if (std::optional<std::string> err = parseCommandLine(
          argc, argv,
          "shardc: compile an ONNX model for one or many devices\n\n"
          "  shardc model.onnx --emit=graph -o model.mlir --input-shape "
          "ids=1x128\n"))
    return err;
  readFlags(o);
  if (o.calibrateCluster)
    return std::nullopt; // its own checks (runClusterCalibration)
  if (!inputFile.getNumOccurrences())
    return std::string("no input model given (shardc --help lists the "
                       "options)");
  if (std::optional<std::string> err = readBindings(o))
    return err;
  TargetSet targets;
  std::string error;
  if (!parseTargets(o.target, targets, error))
    return "--target=" + o.target + ": " + error;
  o.program.cpu = targets.cpu;
  o.program.cuda = targets.cuda;
  if (o.precision == "tf32")
    o.program.tf32 = true;
  else if (o.precision != "fp16" && o.precision != "bf16" &&
           o.precision != "fp32")
    return "--precision=" + o.precision + ": expected fp32, tf32, fp16 or bf16";
  // int8-observe is the calibration program --quantize=int8 compiles.
  if (o.quantize != "none" && o.quantize != "int8-dynamic" &&
      o.quantize != "int8" && o.quantize != "int8-observe")
    return "--quantize=" + o.quantize +
           ": expected none, int8 or int8-dynamic";
  if (o.quantizeAccuracy != 0 &&
      (o.quantize != "int8" || !(o.quantizeAccuracy > 0) ||
       o.quantizeAccuracy > 1))
    return o.quantize != "int8"
               ? std::string("--quantize-accuracy guards --quantize=int8 "
                             "(static, calibrated)")
               : "--quantize-accuracy=" + std::to_string(o.quantizeAccuracy) +
                     ": expected a cosine above 0 and at most 1";
  if (o.quantize == "int8" && o.calibration.empty() &&
      o.quantizeStats.empty())
    return std::string("--quantize=int8 scales activations by their ranges "
                       "on sample inputs: give --calibration DIR (or use "
                       "--quantize=int8-dynamic)");
  if (o.calibrationMethod != "minmax" && o.calibrationMethod != "percentile" &&
      o.calibrationMethod != "entropy")
    return "--calibration-method=" + o.calibrationMethod +
           ": expected minmax, percentile or entropy";
  if (double a; o.smoothQuant != "auto" && o.smoothQuant != "off" &&
                (StringRef(o.smoothQuant).getAsDouble(a) || a < 0 || a > 1))
    return "--smoothquant=" + o.smoothQuant +
           ": expected auto, off or a number from 0 to 1";
  if (std::optional<std::string> err = parsePrune(o))
    return err;
  if (o.quantize != "none" && !o.fusion)
    return "--quantize=" + o.quantize + " quantizes the fused linear layers; "
           "it needs fusion (drop --no-fusion)";
  if (o.quantize != "none" && o.precision != "fp32")
    return "--quantize=" + o.quantize + " quantizes an fp32 model; it does "
           "not combine with --precision=" + o.precision;
  if (o.quantize != "none" && o.program.cuda)
    return "--quantize=" + o.quantize + " runs on the CPU only for now "
           "(--target=cpu)";
  if (std::optional<std::string> err = checkMesh(o))
    return err;
  if (o.emit == Emit::Cuda && !o.program.cuda)
    return std::string("--emit=cuda needs a CUDA target (--target=cuda)");
  if (!cudaArchs.empty())
    o.nvrtc.archs.assign(cudaArchs.begin(), cudaArchs.end());
  for (const std::string &arch : o.nvrtc.archs)
    if (!StringRef(arch).starts_with("sm_") &&
        !StringRef(arch).starts_with("compute_"))
      return "--cuda-arch=" + arch + ": expected sm_XY or compute_XY";
  o.nvrtc.cacheDir = cacheDir.getNumOccurrences() ? cacheDir.getValue()
                                                  : cuda::defaultCacheDir();
  return checkOutput(o);
}

} // namespace shardc::driver
