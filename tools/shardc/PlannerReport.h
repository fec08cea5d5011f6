//===- PlannerReport.h - the planner's section of --emit=plan ---*- C++ -*-===//
//
// The planner's part of --emit=plan: the model as dist-plan summarized it
// (passes/Sharding/PlanSummary.h), the chosen mesh, the runners-up and every
// rejected family with its reason.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_PLANNERREPORT_H
#define SHARDC_TOOLS_SHARDC_PLANNERREPORT_H

#include "shardc/Planner/Search.h"

#include "llvm/Support/raw_ostream.h"

namespace shardc {

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

#endif // SHARDC_TOOLS_SHARDC_PLANNERREPORT_H
