//===- Passes.h - Sharding: propagation and partitioning --------*- C++ -*-===//
#ifndef SHARDC_PASSES_SHARDING_PASSES_H
#define SHARDC_PASSES_SHARDING_PASSES_H

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>
#include <vector>

namespace shardc {

struct PlanOutcome; // PlanSummary.h

#define GEN_PASS_DECL
#include "passes/Sharding/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Sharding/Passes.h.inc"

/// dist-plan with an observer: called with what the planner read and found
/// once the chosen plan is seeded (the driver's --emit=plan report and
/// -v line).
using PlanObserver = std::function<void(const PlanOutcome &)>;
std::unique_ptr<mlir::Pass> createDistPlan(const DistPlanOptions &options,
                                           PlanObserver observer);

/// Estimated floating-point operations of one run of `op` (dist-pipeline's
/// stage balance and the plan report's pipeline timeline).
double estimateFlops(mlir::Operation *op);

/// Where dist-pipeline may cut a global program: the ops that compute (in
/// order; constants and what is computed from constants alone are copied
/// into each stage instead), their FLOPs as a prefix sum, and the op
/// indices after which exactly one tensor crosses, with that tensor.
struct PipelineCuts {
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::DenseSet<mlir::Operation *> constantLike;
  llvm::SmallVector<double> prefix;
  llvm::SmallVector<int64_t> cuts;
  llvm::SmallVector<mlir::Value> crossing;
  /// The FLOPs between consecutive cuts (cuts + 1 segments): what the
  /// planner balances stages over (lib/Planner: balancedStageCost).
  std::vector<double> segmentFlops() const;
  /// The bytes of the constants each segment's ops read (a constant read
  /// by two segments counts in both: each stage holds its copy).
  std::vector<double> segmentWeights() const;
};
PipelineCuts findPipelineCuts(mlir::func::FuncOp global);

/// The parts dist-seed-megatron splits besides the layers, found from the
/// graph's structure (SeedMegatron.cpp), for its seeds and the planner's
/// per-layer options: the embedding, a gather of rows of a constant table
/// that has more rows than columns (a vocabulary) by the program's ids;
/// the LM head, a graph.matmul by a rank-2 constant whose result the
/// program returns, directly or through casts (and graph-pad-columns'
/// slice of the padded columns).
bool isVocabularyEmbedding(graph::GatherOp gather);
bool isLanguageModelHead(mlir::Operation *op);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_PASSES_H
