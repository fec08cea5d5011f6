//===- Pipelines.cpp - shardc's named pass pipelines ----------------------===//

#include "shardc/Pipelines/Pipelines.h"

#include "dialects/Graph/Transforms/Passes.h"
#include "dialects/Kern/Transforms/Passes.h"
#include "passes/Fusion/Passes.h"
#include "passes/Precision/Passes.h"
#include "passes/Pruning/Passes.h"
#include "passes/Sharding/Passes.h"
#include "shardc/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

bool shardc::parseTargets(StringRef spec, TargetSet &targets,
                          std::string &error) {
  targets = {};
  SmallVector<StringRef> parts;
  spec.split(parts, ',');
  for (StringRef p : parts) {
    if (p == "cpu") {
      targets.cpu = true;
    } else if (p == "cuda") {
      targets.cuda = true;
    } else {
      error = "unknown target '" + p.str() + "' (expected cpu, cuda or "
              "cuda,cpu)";
      return false;
    }
  }
  return true;
}

/// The targets of a pipeline option; the driver checks the flag before it
/// builds a pipeline, so an error here comes from a hand-written pipeline
/// string and fails the pass manager's run.
static shardc::TargetSet targetsOf(StringRef spec) {
  shardc::TargetSet targets;
  std::string error;
  if (!shardc::parseTargets(spec, targets, error))
    llvm::report_fatal_error(llvm::Twine("target=") + spec + ": " + error,
                             /*gen_crash_diag=*/false);
  return targets;
}

void shardc::buildGraphPipeline(OpPassManager &pm,
                                const GraphPipelineOptions &options) {
  TargetSet targets = targetsOf(options.target);
  if (options.canonicalize) {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  StringRef precision = options.precision;
  if (precision == "fp16" || precision == "bf16")
    pm.addNestedPass<func::FuncOp>(createGraphConvertPrecision(
        {precision == "fp16" ? std::string("f16") : std::string("bf16")}));
  else if (precision != "fp32" && precision != "tf32")
    llvm::report_fatal_error("precision=" + precision +
                                 ": expected fp32, tf32, fp16 or bf16",
                             /*gen_crash_diag=*/false);
  // A decoder's KV cache inputs, before anything reads them otherwise.
  pm.addNestedPass<func::FuncOp>(createGraphKvCache());
  if (!options.fusion)
    return;
  // Activations first: the epilogue fusion folds recognized GELUs into
  // GEMMs, and the MoE fusion matches the experts' SwiGLUs.
  pm.addNestedPass<func::FuncOp>(createGraphFuseNorms());
  pm.addNestedPass<func::FuncOp>(createGraphFuseActivations());
  pm.addNestedPass<func::FuncOp>(createGraphFuseMoe());
  pm.addNestedPass<func::FuncOp>(createGraphFuseAttention());
  pm.addNestedPass<func::FuncOp>(createGraphFoldConvAffine());
  // cuBLASLt's GELU epilogue is the tanh form: programs with CUDA code keep
  // the exact (erf) GELU out of their GEMMs, and (cuDNN's call takes none
  // yet) their convolutions' residual adds and activations apart.
  pm.addNestedPass<func::FuncOp>(createGraphFuseEpilogues(
      {/*erfGelu=*/!targets.cuda, /*convEpilogues=*/!targets.cuda}));
  // Pruning on the fused structures, before quantization (which then sees
  // the pruned shapes): what contributes nothing always, calibrated
  // structured pruning when asked.
  if (options.pruneLossless)
    pm.addNestedPass<func::FuncOp>(createGraphPruneLossless());
  if (options.pruneFfn > 0 || options.pruneHeads > 0 || options.pruneConv > 0)
    pm.addNestedPass<func::FuncOp>(createGraphPrune(
        {options.pruneStats, options.pruneFfn, options.pruneHeads,
         options.pruneChannelMultiple, /*headMultiple=*/1, options.pruneConv,
         /*convMultiple=*/16}));
  if (options.pruneExperts >= 0)
    pm.addNestedPass<func::FuncOp>(createGraphPruneExperts(
        {llvm::to_vector(options.pruneExpertLoads), options.pruneExperts}));
  // On the fused linears: their epilogues follow the int32 product. An
  // imported Q/DQ model's layers first (CPU programs: the int8 GEMMs are
  // oneDNN's).
  if (!targets.cuda)
    pm.addNestedPass<func::FuncOp>(createGraphFoldQdq());
  if (options.quantize == "int8-dynamic")
    pm.addNestedPass<func::FuncOp>(createGraphQuantizeDynamic());
  else if (options.quantize == "int8")
    pm.addNestedPass<func::FuncOp>(createGraphQuantizeStatic(
        {options.quantizeStats, options.calibrationMethod,
         /*percentile=*/99.99, options.smoothQuant,
         llvm::to_vector(options.quantizeKeep)}));
  else if (options.quantize == "int8-observe")
    pm.addNestedPass<func::FuncOp>(createGraphQuantizeObserve());
  else if (options.quantize != "none")
    llvm::report_fatal_error(llvm::Twine("quantize=") + options.quantize +
                                 ": expected none, int8-dynamic, int8 or "
                                 "int8-observe",
                             /*gen_crash_diag=*/false);
  // cuBLASLt's fast kernels need 16-byte rows: an odd vocabulary is padded.
  if (targets.cuda)
    pm.addNestedPass<func::FuncOp>(createGraphPadColumns());
  pm.addPass(createCanonicalizerPass());
}

void shardc::buildDistPipeline(OpPassManager &pm,
                               const DistPhaseOptions &options) {
  if (options.devices > 0 || !options.planFile.empty()) {
    // The planner writes the mesh and the seeds (dist-plan runs the
    // seeding part below for the plan it chose); one device has none.
    pm.addPass(createDistPlan({options.devices, options.cluster,
                               options.objective, options.precision,
                               options.planFile,
                               llvm::to_vector(options.expertLoads),
                               options.expertRedundant},
                              options.onPlan));
    if (options.devices == 1 || options.seedsOnly)
      return;
    pm.addPass(createDistPropagate());
    if (options.partition)
      pm.addPass(createDistPartition());
    pm.addPass(createDistVerify());
    return;
  }
  if (options.microbatches > 1) {
    std::string mb = dist::kMicrobatchAxis.str();
    pm.addPass(createDistPadBatch({mb, options.microbatches}));
    pm.addPass(createDistSeedBatch({mb, options.microbatches}));
    pm.addPass(createDistPropagate());
    pm.addPass(createDistPartition());
    pm.addPass(createDistMicrobatch());
  }
  if (options.tp * options.pp * options.dp * options.ep <= 1) {
    if (options.microbatches > 1 && !options.seedsOnly)
      pm.addPass(createDistVerify());
    return;
  }
  std::string dp = dist::kDataAxis.str();
  if (options.dp > 1)
    pm.addPass(createDistPadBatch({dp, options.dp}));
  if (options.pp > 1)
    pm.addPass(createDistPipeline({/*stages=*/options.pp}));
  if (options.dp > 1)
    pm.addPass(createDistSeedBatch({dp, options.dp}));
  if (options.ep > 1)
    pm.addPass(createDistSeedExperts(
        {/*ep=*/options.ep, options.expertLoads, options.expertRedundant}));
  if (options.tp > 1)
    pm.addPass(createDistSeedMegatron(
        {options.tp, /*sp=*/options.sp,
         /*wholeEmbedding=*/options.embeddingWhole,
         /*wholeHead=*/options.headWhole,
         /*replicatedLayers=*/options.replicatedLayers}));
  if (options.seedsOnly)
    return;
  pm.addPass(createDistPropagate());
  if (options.partition)
    pm.addPass(createDistPartition());
  pm.addPass(createDistVerify());
}

void shardc::buildKernPipeline(OpPassManager &pm,
                               const KernPipelineOptions &options) {
  TargetSet targets = targetsOf(options.target);
  // NCCL's max and min drop NaN; MPI's (comm/MpiComm.cpp) keep it.
  if (targets.cuda)
    pm.addNestedPass<func::FuncOp>(createDistKeepNan());
  // A partitioned KV cache's present grows in place.
  pm.addPass(createDistKvCacheAppend());
  // The CPU code multiplies fp16/bf16 through fp32 copies; a CUDA-only
  // program keeps them narrow for cuBLASLt.
  pm.addPass(createConvertGraphToKern(
      {/*halfGemm=*/targets.cuda && !targets.cpu,
       /*int8Gemm=*/!targets.cuda}));
  // Layouts before fusion: the fused maps compose the permuted accesses.
  if (!targets.cuda)
    pm.addNestedPass<func::FuncOp>(createKernChannelsLast());
  if (options.fusion)
    pm.addNestedPass<func::FuncOp>(createKernFuseElementwise());
  pm.addNestedPass<func::FuncOp>(createKernPlanMemory());
  // One program per distinct code: the ranks of a group share theirs.
  pm.addPass(createKernMergeRanks());
  // After merging: what a program's ranks read alike goes first, stored
  // once in the weights file.
  pm.addNestedPass<func::FuncOp>(createKernPlanWeights());
}

void shardc::registerPipelines() {
  PassPipelineRegistration<GraphPipelineOptions>(
      "shardc-graph-pipeline",
      "Graph to graph after import: canonicalize, storage precision, fusion "
      "(what `shardc --emit=graph` runs)",
      buildGraphPipeline);
  PassPipelineRegistration<DistPhaseOptions>(
      "shardc-dist-pipeline",
      "Partitioning: micro-batches, pipeline stages, seeds (given, or the "
      "planner's with devices=N), propagation and one program per rank "
      "(what `shardc --tp/--pp/--dp/--ep/--sp/--microbatches` or "
      "`--devices` runs after the graph pipeline; partition=false stops at "
      "`--emit=dist`)",
      buildDistPipeline);
  PassPipelineRegistration<KernPipelineOptions>(
      "shardc-kern-pipeline",
      "Graph to planned kern: lowering, layouts, kernel fusion, weights and "
      "memory plans, rank programs merged by their code (what `shardc "
      "--emit=kern` runs after the graph pipeline)",
      buildKernPipeline);
}
