//===- PlanFile.h - plans as JSON --------------------------------*- C++ -*-===//
//
// `shardc --devices=N --emit=plan -o FILE` writes FILE's stem + ".plan.json":
// the chosen plan, then every ranked candidate and every rejected one with
// the cost model's estimates. `shardc --plan=FILE` compiles exactly the
// "plan" object of such a file, edited or not:
//
//   {"plan": {"dp": 1, "pp": 2, "ep": 1, "tp": 2, "sp": false,
//             "microbatches": 4}, ...}
//
// The other fields are what the planner knew and estimated; --plan reads
// only "plan" and "cluster" (the default for --cluster).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PLANNER_PLANFILE_H
#define SHARDC_PLANNER_PLANFILE_H

#include "shardc/Planner/Search.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace shardc::planner {

/// The planner's result as JSON: the chosen plan (the first ranked one),
/// the candidates and the rejected with their estimates and reasons.
void writePlanFile(llvm::raw_ostream &os, const ModelSummary &model,
                   const Cluster &cluster, int64_t devices,
                   Objective objective, const SearchResult &result);

/// What --plan=FILE compiles.
struct PlanChoice {
  Candidate plan;      ///< the degrees (no estimates)
  std::string cluster; ///< the file's "cluster" (may be empty)
};

/// Reads a plan file's "plan" (and "cluster"). Errors are one line that
/// names the file and the field.
llvm::Expected<PlanChoice> readPlanFile(llvm::StringRef path);

} // namespace shardc::planner

#endif // SHARDC_PLANNER_PLANFILE_H
