//===- Plan.cpp - dist-plan -----------------------------------------------===//
//
// The planner as a pass (Passes.td): prices the meshes, lets a trial
// partition of each in turn judge the best, and seeds the chosen one. The
// trial and seeding pipelines are `shardc-dist-pipeline`, looked up in the
// pass registry by name: lib/Pipelines builds on this library, not the
// other way round.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"
#include "passes/Sharding/PlanSummary.h"

#include "shardc/Planner/PlanFile.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace shardc {
#define GEN_PASS_DEF_DISTPLAN
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct DistPlanPass : shardc::impl::DistPlanBase<DistPlanPass> {
  using DistPlanBase::DistPlanBase;
  DistPlanPass(const DistPlanOptions &options, PlanObserver observer)
      : DistPlanBase(options), observer(std::move(observer)) {}
  void runOnOperation() override;

private:
  FailureOr<planner::Cluster>
  loadSpec(std::optional<planner::Candidate> &fixed);
  PlanObserver observer;
};

/// `shardc-dist-pipeline` for `plan`'s degrees and per-layer choices (and
/// the seeding pass's expert placement): its seeds only (what this pass
/// writes), or all of it (a trial).
std::string pipelineFor(const planner::Candidate &plan, bool seedsOnly,
                        ArrayRef<int64_t> expertLoads = {},
                        int64_t expertRedundant = 0) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "shardc-dist-pipeline{tp=" << plan.tp << " pp=" << plan.pp
     << " dp=" << plan.dp << " ep=" << plan.ep
     << " sp=" << (plan.sp ? "true" : "false")
     << " microbatches=" << plan.microbatches
     << " embedding-whole=" << (plan.embeddingWhole ? "true" : "false")
     << " head-whole=" << (plan.headWhole ? "true" : "false");
  if (!plan.replicatedLayers.empty()) {
    os << " replicated-layers=";
    llvm::interleave(plan.replicatedLayers, os, ",");
  }
  if (!expertLoads.empty()) {
    os << " expert-loads=";
    llvm::interleave(expertLoads, os, ",");
    os << " ep-redundant=" << expertRedundant;
  }
  os << " seeds-only=" << (seedsOnly ? "true" : "false") << "}";
  return text;
}

/// `shardc-dist-pipeline` for `plan` into `pm`; false with `why` set
/// when the registry does not know it.
bool parsePipelineFor(StringRef text, OpPassManager &pm, std::string &why) {
  std::string parseError;
  llvm::raw_string_ostream errs(parseError);
  if (succeeded(parsePassPipeline(text, pm, errs)))
    return true;
  why = "dist-plan runs shardc-dist-pipeline, which is not registered "
        "(shardc::registerPipelines): " +
        parseError;
  return false;
}

FailureOr<planner::Cluster>
DistPlanPass::loadSpec(std::optional<planner::Candidate> &fixed) {
  std::string spec = cluster;
  if (!planFile.empty()) {
    llvm::Expected<planner::PlanChoice> choice =
        planner::readPlanFile(planFile);
    if (!choice)
      return getOperation().emitError(toString(choice.takeError())), failure();
    fixed = choice->plan;
    // The file's cluster unless the option names one.
    if (spec.empty())
      spec = choice->cluster;
  }
  if (spec.empty())
    spec = "cpu";
  llvm::Expected<planner::Cluster> loaded = planner::loadCluster(spec);
  if (!loaded)
    return getOperation().emitError(toString(loaded.takeError())), failure();
  return *loaded;
}

void DistPlanPass::runOnOperation() {
  ModuleOp module = getOperation();
  std::optional<planner::Candidate> fixed;
  FailureOr<planner::Cluster> spec = loadSpec(fixed);
  if (failed(spec))
    return signalPassFailure();
  if (objective != "latency" && objective != "throughput") {
    module.emitError("dist-plan: objective=")
        << objective << ": expected latency or throughput";
    return signalPassFailure();
  }
  if (!fixed && devices < 1) {
    module.emitError("dist-plan: devices=")
        << static_cast<int64_t>(devices)
        << ": expected at least 1 (or a plan-file)";
    return signalPassFailure();
  }
  planner::Objective goal = objective == "latency"
                                ? planner::Objective::Latency
                                : planner::Objective::Throughput;

  PlanOutcome out;
  out.cluster = *spec;
  // Each tp degree the search prices gets its own trial partition.
  SmallVector<int64_t> tpDegrees;
  if (fixed)
    tpDegrees.push_back(fixed->tp);
  else
    for (int64_t t = 2; t <= devices; ++t)
      if (devices % t == 0)
        tpDegrees.push_back(t);
  out.model = summarizeModel(module, precision, tpDegrees);

  planner::SearchResult &search = out.search;
  if (fixed) {
    // As written: the estimate is reported, a rejection included.
    planner::Candidate c = planner::evaluatePlan(out.model, *spec, *fixed);
    (c.rejected.empty() ? search.ranked : search.rejected).push_back(c);
    out.chosen = *fixed;
  } else {
    search = planner::searchPlans(out.model, *spec, devices, goal);
    // The partitioner is the judge of what the estimate allows: the best
    // family it partitions is chosen; one it refuses (rows that interact
    // across micro-batches, a layout no reshard reaches) moves to the
    // rejected with the partitioner's reason.
    while (!search.ranked.empty() && devices > 1) {
      std::string why;
      PassManager pm(module.getContext());
      if (!parsePipelineFor(pipelineFor(search.ranked.front(),
                                        /*seedsOnly=*/false),
                            pm, why)) {
        module.emitError(why);
        return signalPassFailure();
      }
      OwningOpRef<ModuleOp> trial = module.clone();
      if (succeeded(runTrial(pm, *trial, why)))
        break;
      if (why.empty())
        why = "the partitioner refused it";
      search.ranked.front().rejected = "partitioning failed: " + why;
      search.rejected.push_back(search.ranked.front());
      search.ranked.erase(search.ranked.begin());
    }
    if (search.ranked.empty()) {
      std::string why;
      for (size_t i = 0; i < search.rejected.size() && i < 3; ++i)
        why += (i ? "; " : "") + search.rejected[i].name() + ": " +
               search.rejected[i].rejected;
      module.emitError(llvm::formatv("--devices={0} on {1}: no plan runs "
                                     "({2})",
                                     devices.getValue(), spec->name, why)
                           .str());
      return signalPassFailure();
    }
    out.chosen = search.ranked.front();
  }
  // More micro-batches than rows would only repeat rows: one row each.
  if (int64_t rows = dist::batchRows(module);
      rows >= 1 && out.chosen.microbatches > rows)
    out.chosen.microbatches = rows;

  // The mesh and the seeds; dist-propagate and dist-partition follow.
  std::string why;
  OpPassManager seeds(ModuleOp::getOperationName());
  if (!parsePipelineFor(pipelineFor(out.chosen, /*seedsOnly=*/true, expertLoads,
                                    expertRedundant),
                        seeds, why)) {
    module.emitError(why);
    return signalPassFailure();
  }
  if (failed(runPipeline(seeds, module)))
    return signalPassFailure();
  if (observer)
    observer(out);
}

} // namespace

std::unique_ptr<Pass> shardc::createDistPlan(const DistPlanOptions &options,
                                             PlanObserver observer) {
  return std::make_unique<DistPlanPass>(options, std::move(observer));
}
