//===- PlanPhase.h - the driver's planner and --emit=plan -------*- C++ -*-===//
//
// The planner's place in a compile: with --devices it prices the meshes on
// the optimized graph, lets the partitioner confirm the best (a trial
// partition of each candidate in turn) and adopts it as if its degrees had
// been given; with --plan=FILE it prices the file's mesh. --emit=plan then
// writes the report, the plan file and the pictures beside it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_PLANPHASE_H
#define SHARDC_TOOLS_SHARDC_PLANPHASE_H

#include "Session.h"

#include "shardc/Planner/Search.h"

#include "mlir/Pass/PassManager.h"

#include <optional>

namespace shardc::driver {

/// What the planner read off the model and found.
struct PlannerRun {
  std::optional<planner::ModelSummary> model;
  planner::SearchResult search;
};

/// The dist pipeline (lib/Pipelines) for a mesh, its micro-batch count and
/// expert placement; `partition` adds the partitioning itself.
void addDistPipeline(mlir::PassManager &pm, const planner::Candidate &mesh,
                     int64_t microbatches, llvm::ArrayRef<int64_t> expertLoads,
                     int64_t expertRedundant, bool partition);

/// --devices or --plan=FILE on the optimized module: fills `run` and adopts
/// the chosen plan into `o`. False after fatal() (no plan runs).
bool choosePlan(Session &s, Options &o, PlannerRun &run);

/// --emit=plan: the report (planner section, then the partitioned plan read
/// off `propagated` and the kern module) to -o, the expected pipeline
/// timeline, the plan file and the planner's pictures beside it. Returns
/// main's exit status.
int writePlanReport(Session &s, const Options &o, const PlannerRun &run,
                    mlir::ModuleOp propagated);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_PLANPHASE_H
