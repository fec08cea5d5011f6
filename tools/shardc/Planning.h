//===- Planning.h - --devices: the planner in the driver ---------*- C++ -*-===//
//
// Reads the summary the planner's search needs off the optimized graph
// (lib/Planner: Search.h), and writes the planner's part of --emit=plan: the
// chosen mesh, the runners-up and every rejected family with its reason.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_PLANNING_H
#define SHARDC_TOOLS_SHARDC_PLANNING_H

#include "shardc/Planner/Search.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

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

/// The planner's section of the plan report: the search's choice, or (with
/// `planFile`) the estimate of the plan --plan=FILE compiles. `planJson`,
/// `timelinePath` and `memoryPath` name the plan file and the pictures
/// (PlanSvg.h) written beside the report, if any.
void printPlannerReport(llvm::raw_ostream &os,
                        const planner::ModelSummary &model,
                        const planner::Cluster &cluster, int64_t devices,
                        planner::Objective objective,
                        const planner::SearchResult &result,
                        llvm::StringRef planFile = "",
                        llvm::StringRef planJson = "",
                        llvm::StringRef timelinePath = "",
                        llvm::StringRef memoryPath = "");

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_PLANNING_H
