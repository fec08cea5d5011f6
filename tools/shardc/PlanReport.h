//===- PlanReport.h - the partitioning plan, for --emit=plan ----*- C++ -*-===//
#ifndef SHARDC_TOOLS_SHARDC_PLANREPORT_H
#define SHARDC_TOOLS_SHARDC_PLANREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace shardc {

/// Writes the plan of a partitioned program: the mesh, every weight's
/// sharding (from `propagated`, the graph after dist-propagate), the ops
/// left replicated for want of a rule, every collective of each rank with
/// the bytes it moves per run, and memory per rank (from `planned`, the
/// kern module of rank programs with their weights and arena plans).
/// With pipeline stages, also the schedule: each stage's estimated cost,
/// the micro-batch count and the expected fill-and-drain timeline, whose
/// SVG (`timelineSvg`) goes to `svgPath` when that is not empty.
void printPlanReport(llvm::raw_ostream &os, llvm::StringRef model,
                     mlir::ModuleOp propagated, mlir::ModuleOp planned,
                     llvm::StringRef svgPath = "");

/// The expected pipeline timeline of `propagated` (its dist.stage
/// functions and dist.microbatches) as an SVG picture: one row per stage,
/// one box per micro-batch, idle time blank. Empty without stages.
std::string timelineSvg(mlir::ModuleOp propagated);

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_PLANREPORT_H
