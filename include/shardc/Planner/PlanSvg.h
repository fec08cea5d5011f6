//===- PlanSvg.h - pictures of the planner's candidates ----------*- C++ -*-===//
//
// The two pictures `--emit=plan` draws beside its report when the planner
// ran (--devices or --plan):
//
//   timeline  one run of the chosen plan and of the runners-up on one time
//             axis, a lane per pipeline stage: each micro-batch's kernels,
//             the tp/ep collectives inside the stage, the stage-to-stage
//             sends and the gather of the outputs over dp, as the cost
//             model (CostModel.h) times them;
//   memory    each candidate's bytes per rank (weights, activations,
//             workspace, runtime) against the device's memory, including
//             the families rejected because they do not fit.
//
// Plain SVG 1.1 text, no script, deterministic for the same inputs.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PLANNER_PLANSVG_H
#define SHARDC_PLANNER_PLANSVG_H

#include "shardc/Planner/Search.h"

#include <string>
#include <vector>

namespace shardc::planner {

/// The best-ranked variant of each family (dp, pp, ep, tp; micro-batch
/// counts and sp are variants of a family), best first: what the report
/// lists as the chosen plan, the runners-up and the others.
std::vector<const Candidate *> familyBests(const SearchResult &result);

/// The timeline of `shown` on `cluster`; the first (labelled `firstLabel`:
/// "chosen", or "plan" for --plan=FILE) sets the scale's reference.
std::string timelineSvg(const Cluster &cluster,
                        const std::vector<const Candidate *> &shown,
                        llvm::StringRef firstLabel = "chosen");

/// Memory per rank of `shown` and of the candidates in `rejected` whose
/// reason is that they do not fit, against the device's memory.
std::string memorySvg(const Cluster &cluster,
                      const std::vector<const Candidate *> &shown,
                      const std::vector<Candidate> &rejected);

} // namespace shardc::planner

#endif // SHARDC_PLANNER_PLANSVG_H
