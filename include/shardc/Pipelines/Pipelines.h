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
//   shardc m.onnx --emit=kern | shardc-translate --kern-to-cpp
//     == shardc m.onnx --emit=cpp
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PIPELINES_PIPELINES_H
#define SHARDC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace shardc {

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

/// Graph to planned kern: `convert-graph-to-kern`, `kern-channels-last`
/// (CPU-only programs), `kern-fuse-elementwise`, `kern-plan-weights`,
/// `kern-plan-memory`.
void buildKernPipeline(mlir::OpPassManager &pm,
                       const KernPipelineOptions &options);

/// Registers `--shardc-graph-pipeline` and `--shardc-kern-pipeline`.
void registerPipelines();

} // namespace shardc

#endif // SHARDC_PIPELINES_PIPELINES_H
