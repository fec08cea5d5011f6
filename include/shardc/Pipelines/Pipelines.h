//===- Pipelines.h - shardc's named pass pipelines --------------*- C++ -*-===//
//
// The compiler's stages as functions with options (CIRCT's Firtool.cpp,
// IREE's buildTransformPassPipeline): the driver builds its pass managers
// from them, and `shardc-opt --shardc-graph-pipeline` /
// `--shardc-kern-pipeline` run the same passes on a stage's printed output,
// so every `--emit=` stage can be reproduced from the one before it:
//
//   shardc m.onnx --emit=import | shardc-opt --shardc-graph-pipeline
//     == shardc m.onnx --emit=graph
//   shardc m.onnx --emit=graph | shardc-opt --shardc-kern-pipeline
//     == shardc m.onnx --emit=kern
//   shardc m.onnx --emit=graph | shardc-opt
//       --shardc-dist-pipeline="tp=2 pp=2 partition=false"
//     == shardc m.onnx --tp=2 --pp=2 --emit=dist
//   shardc m.onnx --emit=graph | shardc-opt
//       --shardc-dist-pipeline="devices=4 cluster=cpu partition=false"
//     == shardc m.onnx --devices=4 --emit=dist   (the planner: dist-plan)
//   shardc m.onnx --emit=kern | shardc-translate --kern-to-cpp
//     == shardc m.onnx --emit=cpp
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PIPELINES_PIPELINES_H
#define SHARDC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <functional>
#include <string>

namespace shardc {

struct PlanOutcome; // passes/Sharding/PlanSummary.h

/// What the graph pipeline does after import: clean-up, storage precision,
/// pattern recognition.
struct GraphPipelineOptions
    : public mlir::PassPipelineOptions<GraphPipelineOptions> {
  Option<bool> canonicalize{*this, "canonicalize",
                            llvm::cl::desc("Canonicalize and CSE first"),
                            llvm::cl::init(true)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Activation and weight storage: fp32, tf32 (fp32 "
                     "storage), fp16 or bf16"),
      llvm::cl::init("fp32")};
  Option<bool> fusion{*this, "fusion",
                      llvm::cl::desc("Recognize fused ops (norms, "
                                     "activations, attention, epilogues)"),
                      llvm::cl::init(true)};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Code the program will hold: cpu, cuda or cuda,cpu"),
      llvm::cl::init("cpu")};
  Option<std::string> quantize{
      *this, "quantize",
      llvm::cl::desc("none, int8-dynamic (graph-quantize-dynamic after "
                     "fusion), int8 (graph-quantize-static, from "
                     "quantize-stats) or int8-observe (the calibration "
                     "program: graph-quantize-observe)"),
      llvm::cl::init("none")};
  Option<std::string> quantizeStats{
      *this, "quantize-stats",
      llvm::cl::desc("The calibration statistics of quantize=int8"),
      llvm::cl::init("")};
  Option<std::string> calibrationMethod{
      *this, "calibration-method",
      llvm::cl::desc("quantize=int8's clipping: minmax, percentile or "
                     "entropy"),
      llvm::cl::init("minmax")};
  Option<std::string> smoothQuant{
      *this, "smoothquant",
      llvm::cl::desc("quantize=int8's SmoothQuant alpha: auto, off or 0-1"),
      llvm::cl::init("auto")};
  Option<bool> pruneLossless{
      *this, "prune-lossless",
      llvm::cl::desc("Remove MLP channels and heads that contribute nothing "
                     "or a constant (graph-prune-lossless)"),
      llvm::cl::init(true)};
  Option<double> pruneFfn{
      *this, "prune-ffn",
      llvm::cl::desc("Fraction of MLP channels graph-prune removes"),
      llvm::cl::init(0.0)};
  Option<double> pruneHeads{
      *this, "prune-heads",
      llvm::cl::desc("Fraction of attention heads graph-prune removes"),
      llvm::cl::init(0.0)};
  Option<double> pruneConv{
      *this, "prune-conv",
      llvm::cl::desc("Fraction of the channels between convolutions "
                     "graph-prune removes"),
      llvm::cl::init(0.0)};
  Option<int64_t> pruneChannelMultiple{
      *this, "prune-channel-multiple",
      llvm::cl::desc("MLP channels kept per layer: a multiple of"),
      llvm::cl::init(32)};
  Option<std::string> pruneStats{
      *this, "prune-stats",
      llvm::cl::desc("The calibration statistics graph-prune reads"),
      llvm::cl::init("")};
  Option<double> pruneExperts{
      *this, "prune-experts",
      llvm::cl::desc("graph-prune-experts: remove the experts with at most "
                     "this share of a layer's routed tokens (negative: off)"),
      llvm::cl::init(-1.0)};
  ListOption<int64_t> pruneExpertLoads{
      *this, "prune-expert-loads",
      llvm::cl::desc("Tokens the calibration routed to each expert, layer "
                     "after layer (graph-prune-experts)")};
  ListOption<int64_t> quantizeKeep{
      *this, "quantize-keep",
      llvm::cl::desc("quantize=int8: activations whose layers stay in "
                     "floating point")};
};

/// What the kern pipeline does: lower to kern, choose layouts, fuse
/// generated kernels, place weights and arena buffers.
struct KernPipelineOptions
    : public mlir::PassPipelineOptions<KernPipelineOptions> {
  Option<bool> fusion{*this, "fusion",
                      llvm::cl::desc("Fuse producer maps into consumers"),
                      llvm::cl::init(true)};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Code the program will hold: cpu, cuda or cuda,cpu"),
      llvm::cl::init("cpu")};
};

/// What the dist pipeline does: micro-batching, then the mesh's stages and
/// seeds, propagation and (unless `partition` is false: --emit=dist)
/// one program per rank. A degree of 1 adds nothing.
struct DistPhaseOptions
    : public mlir::PassPipelineOptions<DistPhaseOptions> {
  Option<int64_t> tp{*this, "tp", llvm::cl::desc("Tensor-parallel degree"),
                     llvm::cl::init(1)};
  Option<int64_t> pp{*this, "pp", llvm::cl::desc("Pipeline stages"),
                     llvm::cl::init(1)};
  Option<int64_t> dp{*this, "dp", llvm::cl::desc("Data-parallel degree"),
                     llvm::cl::init(1)};
  Option<int64_t> ep{*this, "ep", llvm::cl::desc("Expert-parallel degree"),
                     llvm::cl::init(1)};
  Option<bool> sp{*this, "sp",
                  llvm::cl::desc("Sequence parallelism on the tp axis"),
                  llvm::cl::init(false)};
  Option<int64_t> microbatches{
      *this, "microbatches",
      llvm::cl::desc("Micro-batches of the batch (at most its rows)"),
      llvm::cl::init(1)};
  Option<bool> embeddingWhole{*this, "embedding-whole",
                              llvm::cl::desc("Keep the embedding whole"),
                              llvm::cl::init(false)};
  Option<bool> headWhole{*this, "head-whole",
                         llvm::cl::desc("Keep the LM head whole"),
                         llvm::cl::init(false)};
  ListOption<int64_t> replicatedLayers{
      *this, "replicated-layers",
      llvm::cl::desc("Layers left replicated under tp")};
  ListOption<int64_t> expertLoads{
      *this, "expert-loads",
      llvm::cl::desc("Tokens per expert per layer (expert placement)")};
  Option<int64_t> expertRedundant{
      *this, "ep-redundant",
      llvm::cl::desc("Extra copies of the hottest experts per layer"),
      llvm::cl::init(0)};
  Option<bool> partition{
      *this, "partition",
      llvm::cl::desc("End with dist-partition (false: the propagated "
                     "global program, --emit=dist)"),
      llvm::cl::init(true)};
  Option<bool> seedsOnly{
      *this, "seeds-only",
      llvm::cl::desc("Stop after the seeds, before propagation (what "
                     "dist-plan writes)"),
      llvm::cl::init(false)};
  // The planner (dist-plan) instead of the degrees above.
  Option<int64_t> devices{
      *this, "devices",
      llvm::cl::desc("Let the planner choose a mesh of this many ranks "
                     "(--devices)"),
      llvm::cl::init(0)};
  Option<std::string> cluster{
      *this, "cluster",
      llvm::cl::desc("The planner's cluster: a preset or a JSON spec "
                     "(default: the plan file's, else cpu)"),
      llvm::cl::init("")};
  Option<std::string> objective{
      *this, "objective",
      llvm::cl::desc("What the planner optimizes: latency or throughput"),
      llvm::cl::init("latency")};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("The compiled precision the planner prices"),
      llvm::cl::init("fp32")};
  Option<std::string> planFile{
      *this, "plan-file",
      llvm::cl::desc("Compile exactly this plan file's plan (--plan=FILE)")};
  /// The driver's view of dist-plan's result (not an option: a pipeline
  /// string leaves it empty).
  std::function<void(const PlanOutcome &)> onPlan;
};

/// The targets named by a `target` option ("cpu", "cuda", "cuda,cpu");
/// false with `error` set for anything else.
struct TargetSet {
  bool cpu = false;
  bool cuda = false;
};
bool parseTargets(llvm::StringRef spec, TargetSet &targets,
                  std::string &error);

/// Graph to graph: canonicalization and CSE, `graph-convert-precision` for
/// fp16/bf16, then the fusion passes and a final canonicalization.
void buildGraphPipeline(mlir::OpPassManager &pm,
                        const GraphPipelineOptions &options);

/// Partitioning: with `microbatches` > 1, `dist-pad-batch`,
/// `dist-seed-batch`, `dist-propagate`, `dist-partition` and
/// `dist-microbatch` on axis "mb"; then, for a mesh of more than one rank,
/// `dist-pad-batch` (dp), `dist-pipeline`, the seeds (`dist-seed-batch`,
/// `dist-seed-experts`, `dist-seed-megatron`), `dist-propagate`,
/// `dist-partition` and `dist-verify`. With `devices` or `plan-file`,
/// `dist-plan` chooses the mesh and writes the seeds in place of the
/// degrees; propagation and partitioning follow on more than one device.
void buildDistPipeline(mlir::OpPassManager &pm,
                       const DistPhaseOptions &options);

/// Graph to planned kern: `convert-graph-to-kern`, `kern-channels-last`
/// (CPU-only programs), `kern-fuse-elementwise`, `kern-plan-weights`,
/// `kern-plan-memory`.
void buildKernPipeline(mlir::OpPassManager &pm,
                       const KernPipelineOptions &options);

/// Registers `--shardc-graph-pipeline` and `--shardc-kern-pipeline`.
void registerPipelines();

} // namespace shardc

#endif // SHARDC_PIPELINES_PIPELINES_H
