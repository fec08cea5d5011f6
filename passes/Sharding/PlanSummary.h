//===- PlanSummary.h - the model as the planner's search sees it -*- C++
//-*-===//
//
// dist-plan (Plan.cpp) prices meshes with lib/Planner's search, which knows
// no MLIR: this reads the figures it needs off the optimized graph.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_SHARDING_PLANSUMMARY_H
#define SHARDC_PASSES_SHARDING_PLANSUMMARY_H

#include "shardc/Planner/Search.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace shardc {

/// The model as the search sees it: FLOPs (shardc::estimateFlops), weights,
/// the hidden state (the input of the first norm, else the first
/// attention's output), heads, experts, the batch (the inputs' leading dim)
/// and the largest intermediate tensor. `dtype` is the precision compiled
/// for ("fp32", "tf32", "fp16", "bf16"). What tp leaves whole is read off
/// a trial partition at the smallest degree that divides the heads, and
/// at each of `tpDegrees` into `atDegrees` (the degrees the search prices:
/// a degree's own trial sees its KV head copies and the attention it
/// cannot split, or its refusal).
planner::ModelSummary summarizeModel(mlir::ModuleOp module,
                                     llvm::StringRef dtype,
                                     llvm::ArrayRef<int64_t> tpDegrees = {});

/// Runs `pm` on `module` (a trial: a clone the planner partitions to see
/// whether it can) with its diagnostics kept from the compile's handlers:
/// the first error's text goes to `firstError`.
mlir::LogicalResult runTrial(mlir::PassManager &pm, mlir::ModuleOp module,
                             std::string &firstError);

/// What dist-plan read and found, for its observer (the driver's
/// --emit=plan report): the summary, the search's ranking (the chosen plan
/// first; with a plan file, that plan alone, ranked or rejected) and the
/// cluster priced.
struct PlanOutcome {
  planner::ModelSummary model;
  planner::SearchResult search;
  planner::Cluster cluster;
  /// The plan the pass seeded.
  planner::Candidate chosen;
};

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_PLANSUMMARY_H
