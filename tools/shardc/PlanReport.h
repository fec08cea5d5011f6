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
void printPlanReport(llvm::raw_ostream &os, llvm::StringRef model,
                     mlir::ModuleOp propagated, mlir::ModuleOp planned);

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_PLANREPORT_H
