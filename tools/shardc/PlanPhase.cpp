//===- PlanPhase.cpp - the driver's planner and --emit=plan ---------------===//
#include "PlanPhase.h"

#include "PlanReport.h"
#include "Planning.h"
#include "shardc/Pipelines/Pipelines.h"
#include "shardc/Planner/PlanFile.h"
#include "shardc/Planner/PlanSvg.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace shardc::driver {

void addDistPipeline(mlir::PassManager &pm, const planner::Candidate &mesh,
                     int64_t microbatches, ArrayRef<int64_t> expertLoads,
                     int64_t expertRedundant, bool partition) {
  DistPhaseOptions o;
  o.tp = mesh.tp;
  o.pp = mesh.pp;
  o.dp = mesh.dp;
  o.ep = mesh.ep;
  o.sp = mesh.sp;
  o.microbatches = microbatches;
  o.embeddingWhole = mesh.embeddingWhole;
  o.headWhole = mesh.headWhole;
  o.replicatedLayers = mesh.replicatedLayers;
  o.expertLoads = SmallVector<int64_t>(expertLoads);
  o.expertRedundant = expertRedundant;
  o.partition = partition;
  buildDistPipeline(pm, o);
}

bool choosePlan(Session &s, Options &o, PlannerRun &run) {
  // Each tp degree the search prices gets its own trial partition.
  SmallVector<int64_t> tpDegrees;
  if (o.filePlan)
    tpDegrees.push_back(o.filePlan->tp);
  else
    for (int64_t t = 2; t <= o.devices; ++t)
      if (o.devices % t == 0)
        tpDegrees.push_back(t);
  run.model = summarizeModel(*s.module, o.precision, tpDegrees);
  if (o.filePlan) {
    planner::Candidate c =
        planner::evaluatePlan(*run.model, *o.cluster, *o.filePlan);
    (c.rejected.empty() ? run.search.ranked : run.search.rejected).push_back(c);
    return true;
  }
  run.search =
      planner::searchPlans(*run.model, *o.cluster, o.devices, o.objective);
  // The partitioner is the judge of what the estimate allows: the best
  // family it partitions is chosen; one it refuses (rows that interact
  // across micro-batches, a layout no reshard reaches) moves to the
  // rejected with the partitioner's reason.
  auto partitions = [&](const planner::Candidate &c, std::string &why) {
    mlir::OwningOpRef<mlir::ModuleOp> trial = s.module->clone();
    std::string saved = std::move(s.diagnostic);
    s.diagnostic.clear();
    mlir::PassManager pm(&s.context);
    addDistPipeline(pm, c, c.microbatches, /*expertLoads=*/{},
                    /*expertRedundant=*/0, /*partition=*/true);
    bool ok = succeeded(pm.run(*trial));
    why = s.diagnostic.empty() ? "the partitioner refused it" : s.diagnostic;
    s.diagnostic = std::move(saved);
    return ok;
  };
  planner::SearchResult &search = run.search;
  while (!search.ranked.empty() && o.devices > 1) {
    std::string why;
    if (partitions(search.ranked.front(), why))
      break;
    search.ranked.front().rejected = "partitioning failed: " + why;
    search.rejected.push_back(search.ranked.front());
    search.ranked.erase(search.ranked.begin());
  }
  if (search.ranked.empty()) {
    std::string why;
    for (size_t i = 0; i < search.rejected.size() && i < 3; ++i)
      why += (i ? "; " : "") + search.rejected[i].name() + ": " +
             search.rejected[i].rejected;
    return fatal("--devices=" + std::to_string(o.devices) + " on " +
                 o.cluster->name + ": no plan runs (" + why + ")"),
           false;
  }
  const planner::Candidate &best = search.ranked.front();
  o.adopt(best);
  if (o.verbose)
    errs() << "shardc: planner chose " << best.name() << " for " << o.devices
           << " devices on " << o.cluster->name << "\n";
  return true;
}

/// Writes `text` to -o's stem + `ext`, naming the file in `path`; nothing
/// for an empty text or -o -. The error, if any: "cannot write 'PATH': why".
static std::optional<std::string> writeBeside(const Options &o, StringRef ext,
                                              const std::string &text,
                                              std::string &path) {
  if (text.empty() || o.outputFile == "-")
    return std::nullopt;
  SmallString<128> p(o.outputFile);
  sys::path::replace_extension(p, ext);
  path = p.str().str();
  std::error_code ec;
  raw_fd_ostream out(path, ec);
  if (ec)
    return "cannot write '" + path + "': " + ec.message();
  out << text;
  return std::nullopt;
}

int writePlanReport(Session &s, const Options &o, const PlannerRun &run,
                    mlir::ModuleOp propagated) {
  // With pipeline stages, the expected timeline is drawn beside the
  // report: OUT minus its extension, ".timeline.svg".
  std::string svgPath;
  if (std::optional<std::string> err =
          writeBeside(o, "timeline.svg", timelineSvg(propagated), svgPath))
    return fatal(*err);
  std::string planJsonPath, timelinePath, memoryPath;
  if (run.model) {
    // The planner's result as JSON (OUT's stem + ".plan.json"): what
    // --plan=FILE compiles, edited or not.
    if (!o.filePlan) {
      std::string json;
      raw_string_ostream os(json);
      planner::writePlanFile(os, *run.model, *o.cluster, o.devices, o.objective,
                             run.search);
      if (std::optional<std::string> err =
              writeBeside(o, "plan.json", os.str(), planJsonPath))
        return fatal(*err);
    }
    // The planner's pictures (PlanSvg.h): the chosen plan and three
    // runners-up.
    std::vector<const planner::Candidate *> shown =
        planner::familyBests(run.search);
    if (shown.size() > 4)
      shown.resize(4);
    if (std::optional<std::string> err =
            writeBeside(o, "plan-timeline.svg",
                        planner::timelineSvg(*o.cluster, shown,
                                             o.filePlan ? "plan" : "chosen"),
                        timelinePath))
      return fatal(*err);
    if (std::optional<std::string> err = writeBeside(
            o, "plan-memory.svg",
            planner::memorySvg(*o.cluster, shown, run.search.rejected),
            memoryPath))
      return fatal(*err);
  }
  return s.writeText([&](raw_ostream &os) {
    if (run.model)
      printPlannerReport(os, *run.model, *o.cluster,
                         o.filePlan ? o.world : o.devices, o.objective,
                         run.search, o.filePlan ? o.planFile : "", planJsonPath,
                         timelinePath, memoryPath);
    printPlanReport(os, o.inputFile, propagated, *s.module, svgPath);
  });
}

} // namespace shardc::driver
