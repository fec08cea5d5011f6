//===- PlanPhase.h - the driver's planner and --emit=plan -------*- C++ -*-===//
//
// The planner's place in a compile: the dist pipeline (lib/Pipelines) with
// --devices or --plan=FILE runs dist-plan (passes/Sharding/Plan.cpp), which
// prices the meshes on the optimized graph, lets the partitioner confirm
// the best and seeds it; the driver adopts its choice as if the degrees had
// been given. --emit=plan then writes the report, the plan file and the
// pictures beside it.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_PLANPHASE_H
#define SHARDC_TOOLS_SHARDC_PLANPHASE_H

#include "Session.h"

#include "passes/Sharding/PlanSummary.h"

#include "mlir/Pass/PassManager.h"

#include <optional>

namespace shardc::driver {

/// What the planner read off the model and found (dist-plan's observer).
using PlannerRun = std::optional<PlanOutcome>;

/// The dist pipeline (lib/Pipelines) up to propagation (`--emit=dist`):
/// for the flags' mesh, its micro-batch count and expert placement, or,
/// with --devices or --plan=FILE, the planner's choice, which it records
/// in `run` and adopts into `o`.
void addDistPipeline(mlir::PassManager &pm, Options &o,
                     llvm::ArrayRef<int64_t> expertLoads, PlannerRun &run);

/// --emit=plan: the report (planner section, then the partitioned plan read
/// off `propagated` and the kern module) to -o, the expected pipeline
/// timeline, the plan file and the planner's pictures beside it. Returns
/// main's exit status.
int writePlanReport(Session &s, const Options &o, const PlannerRun &run,
                    mlir::ModuleOp propagated);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_PLANPHASE_H
