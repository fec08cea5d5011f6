//===- QuantizePhase.cpp - what --quantize=int8 and --prune need first ---===//

#include "QuantizePhase.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Precision/Quantize.h"
#include "passes/Pruning/Prune.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace shardc;
using namespace shardc::driver;

CalibrationWork::~CalibrationWork() {
  if (!work.empty())
    sys::fs::remove_directories(work);
}

/// The kinds of structure graph-prune finds in the fused graph: "ffn"
/// (MLPs), "heads" (attention), "conv" (convolution chains it judges).
static std::vector<std::string>
pruneKinds(Session &s, llvm::function_ref<void(mlir::PassManager &)> fused,
           bool &ok) {
  std::vector<std::string> kinds;
  ok = true;
  if (!fused) // as before: the transformer kinds
    return {"ffn", "heads"};
  mlir::OwningOpRef<mlir::ModuleOp> copy = s.module->clone();
  if (!s.run(*copy, fused, "graph pipeline (finding what --prune=auto prunes)"))
    return ok = false, kinds;
  bool mlp = false, heads = false, conv = false;
  copy->walk([&](mlir::func::FuncOp f) {
    mlp |= !prune::findMlps(f).empty();
    heads |= !prune::findHeadBlocks(f).empty();
    for (const prune::ConvChain &chain : prune::findConvChains(f))
      conv |= prune::isPixelProjection(chain);
  });
  if (mlp)
    kinds.push_back("ffn");
  if (heads)
    kinds.push_back("heads");
  if (conv)
    kinds.push_back("conv");
  return kinds;
}

/// --prune=auto:COSINE (or auto:top1=AGREEMENT): the largest fraction s,
/// in steps of 0.05 up to 0.6, of every kind the model has (MLP channels,
/// heads, convolution channels: ffn:s,heads:s,conv:s) whose outputs on the
/// samples keep the mean cosine (or the share of rows whose largest
/// element stays in place: logits), by bisection (either falls, roughly,
/// as more goes); each trial is a compile with the statistics measured
/// once. False after fatal().
static bool searchPruning(Session &s, Options &o, const char *argv0,
                          PruneRun &run,
                          llvm::function_ref<void(mlir::PassManager &)> fused) {
  bool ok = true;
  std::vector<std::string> kinds = pruneKinds(s, fused, ok);
  if (!ok)
    return false;
  if (kinds.empty())
    return fatal("--prune=auto: " + o.inputFile +
                 " has no MLP, attention or convolution chain whose "
                 "channels or heads pruning removes"),
           false;
  run.kinds = kinds;
  double target = o.pruneAuto;
  o.pruneAuto = 0; // the requests below: the model before graph-prune
  CalibrationRequest request = calibrationRequest(o, argv0);
  std::string error;
  std::string stats = calibrateActivations(request, run.work, error);
  if (stats.empty())
    return fatal(error), false;
  auto spec = [&](int k) {
    std::string f = formatv("{0:F2}", 0.05 * k).str(), out;
    for (const std::string &kind : kinds)
      out += (out.empty() ? "" : ",") + kind + ":" + f;
    return out;
  };
  std::map<int, double> tried, latency;
  TrialMetric metric =
      o.pruneAutoTop1 ? TrialMetric::Top1 : TrialMetric::Cosine;
  const char *measure = o.pruneAutoTop1 ? "top-1 agreement" : "mean cosine";
  // The report's speed axis: each trial's latency, and the unpruned
  // program's (only when the report is asked for: a benchmark per trial).
  bool timed = o.emit == Emit::PruneReport;
  if (timed) {
    double p50 = NAN;
    if (trialCosine(request, {"--prune=lossless"}, run.work, o.accuracyOutputs,
                    "--prune=auto", error, metric, &p50) == -2)
      return fatal(error), false;
    run.unprunedP50Ms = p50;
  }
  auto trial = [&](int k) {
    double p50 = NAN;
    double c =
        trialCosine(request, {"--prune=" + spec(k), "--prune-stats=" + stats},
                    run.work, o.accuracyOutputs, "--prune=auto", error, metric,
                    timed ? &p50 : nullptr);
    if (o.verbose && c != -2)
      errs() << "shardc: --prune=auto: " << spec(k) << ": " << measure << " "
             << format("%.5f", c) << " on the calibration samples\n";
    latency[k] = p50;
    return tried[k] = c;
  };
  int lo = 0, hi = 13; // lo keeps the cosine (nothing pruned), hi does not
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    double c = trial(mid);
    if (c == -2)
      return fatal(error), false;
    (c >= target ? lo : hi) = mid;
  }
  std::string what =
      "shardc: --prune=auto:" + std::string(o.pruneAutoTop1 ? "top1=" : "") +
      formatv("{0}", target).str();
  for (auto [k, c] : tried)
    run.trials.push_back({0.05 * k, c, latency[k]});
  run.metric = measure;
  run.target = target;
  if (lo == 0) {
    errs() << what << ": even " << spec(1) << " misses it (" << measure << " "
           << format("%.5f", tried[1]) << "); only the lossless step runs\n";
    o.prune = "lossless";
    return true;
  }
  o.prune = spec(lo);
  auto has = [&](StringRef kind) { return llvm::is_contained(kinds, kind); };
  o.pruneFfn = has("ffn") ? 0.05 * lo : 0;
  o.pruneHeads = has("heads") ? 0.05 * lo : 0;
  o.pruneConv = has("conv") ? 0.05 * lo : 0;
  o.pruneStats = stats;
  errs() << what << ": " << o.prune << " (" << measure << " "
         << format("%.5f", tried[lo]) << " on the calibration samples)\n";
  s.stage("searched pruning");
  return true;
}

bool driver::preparePruning(
    Session &s, Options &o, const char *argv0, PruneRun &run,
    llvm::function_ref<void(mlir::PassManager &)> fusedGraph) {
  if (!o.prunes() || !o.pruneStats.empty())
    return true;
  if (o.pruneAuto > 0)
    return searchPruning(s, o, argv0, run, fusedGraph);
  std::string error;
  std::string stats =
      calibrateActivations(calibrationRequest(o, argv0), run.work, error);
  if (stats.empty())
    return fatal(error), false;
  o.pruneStats = stats;
  s.stage("calibrated pruning");
  return true;
}

CalibrationRequest driver::calibrationRequest(const Options &o,
                                              const char *argv0) {
  CalibrationRequest request;
  request.shardc = sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&driver::calibrationRequest));
  request.model = o.inputFile;
  for (const std::string &arg : o.inputShapes)
    request.flags.push_back("--input-shape=" + arg);
  for (const std::string &arg : o.constInputs)
    request.flags.push_back("--const-input=" + arg);
  if (!o.canonicalize)
    request.flags.push_back("--no-canonicalize");
  // A pruned model's calibration compiles prune it as this compile does
  // (from the statistics measured once); the pruning's own measurement
  // is of the model with only the lossless step.
  // Experts are pruned from routing counts measured once too; the routing
  // probe itself (no counts yet) compiles without that part.
  bool experts = o.pruneExperts >= 0 && !o.pruneExpertLoads.empty();
  std::string spec = experts ? o.prune : o.pruneWithoutExperts();
  if (o.prunes() && !o.pruneStats.empty()) {
    request.flags.push_back("--prune=" + spec);
    request.flags.push_back("--prune-stats=" + o.pruneStats);
  } else if (!o.pruneLossless) {
    request.flags.push_back("--prune=none");
  } else if (experts) {
    request.flags.push_back("--prune=" + spec);
  }
  if (experts) {
    std::string loads;
    for (int64_t n : o.pruneExpertLoads)
      loads += (loads.empty() ? "" : ",") + std::to_string(n);
    request.flags.push_back("--prune-expert-loads=" + loads);
  }
  request.dir = o.calibration;
  request.verbose = o.verbose;
  return request;
}

/// --quantize-accuracy: the activations whose layers stay in floating
/// point. Their order of sensitivity comes from the static pass itself (a
/// graph pipeline on a copy of the module: each layer's SQNR on the
/// calibration rows, each convolution's estimated on calibration pixels,
/// an activation ranked by its worst layer); the guard
/// then compiles and runs trials (Calibration.h). False after fatal().
static bool guard(Session &s, const Options &o, const char *argv0,
                  GraphPipeline graphPipeline, QuantizeRun &run) {
  mlir::OwningOpRef<mlir::ModuleOp> trial = s.module->clone();
  if (!s.run(
          *trial,
          [&](mlir::PassManager &pm) { graphPipeline(pm, run.stats, {}); },
          "graph pipeline (accuracy guard)"))
    return false;
  std::map<int64_t, double> worst;
  trial->walk([&](mlir::Operation *op) {
    if (!mlir::isa<graph::LinearInt8Op, graph::ConvInt8Op>(op))
      return;
    auto info = op->getAttrOfType<mlir::DictionaryAttr>(quant::kQuantAttr);
    auto group =
        info ? info.getAs<mlir::IntegerAttr>("group") : mlir::IntegerAttr();
    auto sqnr =
        info ? info.getAs<mlir::FloatAttr>("sqnr_db") : mlir::FloatAttr();
    if (!group)
      return;
    double db = sqnr ? sqnr.getValueAsDouble() : 0.0;
    auto [it, inserted] = worst.try_emplace(group.getInt(), db);
    if (!inserted)
      it->second = std::min(it->second, db);
  });
  std::vector<int64_t> order;
  for (auto &[group, db] : worst)
    order.push_back(group);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return worst[a] < worst[b]; });
  std::vector<std::string> flags = {
      "--quantize=int8", "--quantize-stats=" + run.stats,
      "--calibration-method=" + o.calibrationMethod,
      "--smoothquant=" + o.smoothQuant};
  std::string error;
  double reached = 0;
  run.keep =
      guardAccuracy(calibrationRequest(o, argv0), flags, run.work, order,
                    o.quantizeAccuracy, o.accuracyOutputs, reached, error);
  if (!error.empty())
    return fatal(error), false;
  if (o.verbose || !run.keep.empty())
    errs() << "shardc: --quantize-accuracy=" << format("%g", o.quantizeAccuracy)
           << ": " << run.keep.size() << " of " << order.size()
           << " activations keep their layers in floating point (mean "
              "cosine "
           << format("%.5f", reached) << " on the calibration samples)\n";
  return true;
}

bool driver::prepareQuantization(Session &s, const Options &o,
                                 const char *argv0, GraphPipeline graphPipeline,
                                 QuantizeRun &run) {
  if (o.quantize != "int8")
    return true;
  run.keep = o.quantizeKeep;
  if (!o.quantizeStats.empty()) { // an accuracy-guard trial
    run.stats = o.quantizeStats;
    return true;
  }
  std::string error;
  run.stats =
      calibrateActivations(calibrationRequest(o, argv0), run.work, error);
  if (run.stats.empty())
    return fatal(error), false;
  if (o.quantizeAccuracy > 0 && !guard(s, o, argv0, graphPipeline, run))
    return false;
  s.stage("calibrated activations");
  return true;
}
