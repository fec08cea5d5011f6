//===- PlanPhase.cpp - the driver's planner and --emit=plan ---------------===//
#include "PlanPhase.h"

#include "PlanReport.h"
#include "PlannerReport.h"
#include "shardc/Pipelines/Pipelines.h"
#include "shardc/Planner/PlanFile.h"
#include "shardc/Planner/PlanSvg.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace shardc::driver {

void addDistPipeline(mlir::PassManager &pm, Options &o,
                     ArrayRef<int64_t> expertLoads, PlannerRun &run) {
  DistPhaseOptions d;
  d.partition = false;
  d.expertLoads = SmallVector<int64_t>(expertLoads);
  d.expertRedundant = o.expertRedundant;
  if (o.cluster) {
    d.devices = o.filePlan ? o.world : o.devices;
    d.cluster = o.clusterSpec;
    d.objective =
        o.objective == planner::Objective::Latency ? "latency" : "throughput";
    d.precision = o.precision;
    if (o.filePlan)
      d.planFile = o.planFile;
    d.onPlan = [&o, &run](const PlanOutcome &out) {
      run = out;
      o.adopt(out.chosen);
      if (o.verbose && !o.filePlan)
        errs() << "shardc: planner chose " << out.chosen.name() << " for "
               << o.devices << " devices on " << out.cluster.name << "\n";
    };
    buildDistPipeline(pm, d);
    return;
  }
  planner::Candidate mesh = o.mesh();
  d.tp = mesh.tp;
  d.pp = mesh.pp;
  d.dp = mesh.dp;
  d.ep = mesh.ep;
  d.sp = mesh.sp;
  d.microbatches = mesh.microbatches;
  d.embeddingWhole = mesh.embeddingWhole;
  d.headWhole = mesh.headWhole;
  d.replicatedLayers = mesh.replicatedLayers;
  buildDistPipeline(pm, d);
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
  if (run) {
    // The planner's result as JSON (OUT's stem + ".plan.json"): what
    // --plan=FILE compiles, edited or not.
    if (!o.filePlan) {
      std::string json;
      raw_string_ostream os(json);
      planner::writePlanFile(os, run->model, run->cluster, o.devices,
                             o.objective, run->search);
      if (std::optional<std::string> err =
              writeBeside(o, "plan.json", os.str(), planJsonPath))
        return fatal(*err);
    }
    // The planner's pictures (PlanSvg.h): the chosen plan and three
    // runners-up.
    std::vector<const planner::Candidate *> shown =
        planner::familyBests(run->search);
    if (shown.size() > 4)
      shown.resize(4);
    if (std::optional<std::string> err =
            writeBeside(o, "plan-timeline.svg",
                        planner::timelineSvg(run->cluster, shown,
                                             o.filePlan ? "plan" : "chosen"),
                        timelinePath))
      return fatal(*err);
    if (std::optional<std::string> err = writeBeside(
            o, "plan-memory.svg",
            planner::memorySvg(run->cluster, shown, run->search.rejected),
            memoryPath))
      return fatal(*err);
  }
  return s.writeText([&](raw_ostream &os) {
    if (run)
      printPlannerReport(os, run->model, run->cluster,
                         o.filePlan ? o.world : o.devices, o.objective,
                         run->search, o.filePlan ? o.planFile : "",
                         planJsonPath, timelinePath, memoryPath);
    printPlanReport(os, o.inputFile, propagated, *s.module, svgPath);
  });
}

} // namespace shardc::driver
