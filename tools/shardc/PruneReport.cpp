//===- PruneReport.cpp - what pruning did, for --emit=prune-report --------===//

#include "PruneReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace mlir;
using namespace llvm;

namespace {

/// One layer graph-prune judged.
struct Layer {
  std::string node, kind;
  int64_t kept = 0, total = 0;
  double error = 0;
  double removed() const {
    return total ? 1.0 - static_cast<double>(kept) / total : 0;
  }
};

std::string nodeOf(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l); n && name.empty())
      name = n.getName().str();
    return WalkResult::advance();
  });
  return name.empty() ? "?" : name;
}

std::vector<Layer> layersOf(ModuleOp module) {
  std::vector<Layer> layers;
  module.walk([&](Operation *op) {
    auto d = op->getAttrOfType<DictionaryAttr>("graph.prune");
    if (!d)
      return;
    Layer l;
    l.node = nodeOf(op->getLoc());
    if (auto k = d.getAs<StringAttr>("kind"))
      l.kind = k.str();
    if (auto a = d.getAs<IntegerAttr>("kept"))
      l.kept = a.getInt();
    if (auto a = d.getAs<IntegerAttr>("total"))
      l.total = a.getInt();
    if (auto e = d.getAs<FloatAttr>("error"))
      l.error = e.getValueAsDouble();
    layers.push_back(l);
  });
  return layers;
}

const char *colorOf(double error) {
  return error < 0.01 ? "#5cb85c" : error < 0.05 ? "#f0ad4e" : "#d9534f";
}

/// Horizontal bars: each layer's removed share, colored by its error.
std::string layerSvg(const std::vector<Layer> &layers) {
  const int left = 320, barMax = 400, rowH = 16, top = 40;
  std::string s;
  raw_string_ostream os(s);
  int axisY = top + rowH * int(layers.size()) + 4;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
     << left + barMax + 140 << "\" height=\"" << axisY + 30
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
     << "<text x=\"10\" y=\"20\" font-size=\"14\">Share of each layer "
        "pruned (color: its output error, green below 1%, amber below "
        "5%)</text>\n";
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer &l = layers[i];
    int y = top + rowH * int(i);
    int w = int(barMax * l.removed());
    std::string node =
        l.node.size() > 44 ? "..." + l.node.substr(l.node.size() - 41) : l.node;
    os << "<text x=\"" << left - 6 << "\" y=\"" << y + 11
       << "\" text-anchor=\"end\">" << node << " (" << l.kind << ")</text>\n"
       << "<rect x=\"" << left << "\" y=\"" << y + 2 << "\" width=\"" << w
       << "\" height=\"" << rowH - 4 << "\" fill=\"" << colorOf(l.error)
       << "\"/>\n"
       << "<text x=\"" << left + w + 4 << "\" y=\"" << y + 11 << "\">" << l.kept
       << "/" << l.total << ", " << formatv("{0:F2}", 100 * l.error).str()
       << "%</text>\n";
  }
  for (int t = 0; t <= 100; t += 25) {
    int x = left + barMax * t / 100;
    os << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x
       << "\" y2=\"" << axisY << "\" stroke=\"#ccc\"/>\n"
       << "<text x=\"" << x << "\" y=\"" << axisY + 14
       << "\" text-anchor=\"middle\">" << t << "%</text>\n";
  }
  os << "</svg>\n";
  return s;
}

/// The trials by fraction.
std::vector<shardc::driver::PruneTrial>
sortedTrials(const shardc::driver::PruneRun &run) {
  std::vector<shardc::driver::PruneTrial> t = run.trials;
  std::sort(t.begin(), t.end(), [](const auto &a, const auto &b) {
    return a.fraction < b.fraction;
  });
  return t;
}

/// --prune=auto's trials: the metric against the fraction, the target as
/// a dashed line; with latencies, the p50 against the fraction on a right
/// axis (the unpruned program's at 0).
std::string curveSvg(const shardc::driver::PruneRun &run) {
  const int left = 60, top = 40, w = 480, h = 260;
  std::vector<shardc::driver::PruneTrial> t = sortedTrials(run);
  double lo = run.target;
  for (auto &p : t)
    lo = std::min(lo, p.metric);
  lo = std::max(0.0, std::floor(lo * 20) / 20);
  double hi = 1.0, xMax = 0.65;
  auto X = [&](double f) { return left + int(w * f / xMax); };
  auto Y = [&](double m) { return top + int(h * (hi - m) / (hi - lo)); };
  std::string s;
  raw_string_ostream os(s);
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + w + 70
     << "\" height=\"" << top + h + 50
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
     << "<text x=\"10\" y=\"20\" font-size=\"14\">--prune=auto: " << run.metric
     << (std::isnan(run.unprunedP50Ms) ? "" : " and p50 latency")
     << " against the fraction pruned</text>\n"
     << "<line x1=\"" << left << "\" y1=\"" << top + h << "\" x2=\"" << left + w
     << "\" y2=\"" << top + h << "\" stroke=\"#000\"/>\n"
     << "<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left
     << "\" y2=\"" << top + h << "\" stroke=\"#000\"/>\n"
     << "<line x1=\"" << left << "\" y1=\"" << Y(run.target) << "\" x2=\""
     << left + w << "\" y2=\"" << Y(run.target)
     << "\" stroke=\"#d9534f\" stroke-dasharray=\"4 3\"/>\n";
  for (int i = 0; i <= 13; i += 2) {
    double f = 0.05 * i;
    os << "<text x=\"" << X(f) << "\" y=\"" << top + h + 16
       << "\" text-anchor=\"middle\">" << formatv("{0:F2}", f).str()
       << "</text>\n";
  }
  for (double m = lo; m <= hi + 1e-9; m += (hi - lo) / 4)
    os << "<text x=\"" << left - 6 << "\" y=\"" << Y(m) + 4
       << "\" text-anchor=\"end\">" << formatv("{0:F3}", m).str()
       << "</text>\n";
  std::string points;
  for (const auto &p : t) {
    points +=
        std::to_string(X(p.fraction)) + "," + std::to_string(Y(p.metric)) + " ";
    os << "<circle cx=\"" << X(p.fraction) << "\" cy=\"" << Y(p.metric)
       << "\" r=\"3\" fill=\""
       << (p.metric >= run.target ? "#5cb85c" : "#d9534f") << "\"/>\n";
  }
  os << "<polyline points=\"" << points
     << "\" fill=\"none\" stroke=\"#337ab7\"/>\n";
  // Latency: 0 to the slowest, on the right.
  std::vector<std::pair<double, double>> speed;
  if (!std::isnan(run.unprunedP50Ms))
    speed.push_back({0.0, run.unprunedP50Ms});
  for (const auto &p : t)
    if (!std::isnan(p.p50Ms))
      speed.push_back({p.fraction, p.p50Ms});
  if (!speed.empty()) {
    double most = 0;
    for (auto &[f, ms] : speed)
      most = std::max(most, ms);
    most = most > 0 ? most * 1.1 : 1.0;
    auto L = [&](double ms) { return top + int(h * (1.0 - ms / most)); };
    os << "<line x1=\"" << left + w << "\" y1=\"" << top << "\" x2=\""
       << left + w << "\" y2=\"" << top + h << "\" stroke=\"#000\"/>\n";
    for (int i = 0; i <= 4; ++i)
      os << "<text x=\"" << left + w + 6 << "\" y=\"" << L(most * i / 4) + 4
         << "\">" << formatv("{0:F1}", most * i / 4).str() << "</text>\n";
    os << "<text x=\"" << left + w + 6 << "\" y=\"" << top - 8
       << "\">p50 ms</text>\n";
    std::string line;
    for (auto &[f, ms] : speed) {
      line += std::to_string(X(f)) + "," + std::to_string(L(ms)) + " ";
      os << "<rect x=\"" << X(f) - 3 << "\" y=\"" << L(ms) - 3
         << "\" width=\"6\" height=\"6\" fill=\"#f0ad4e\"/>\n";
    }
    os << "<polyline points=\"" << line
       << "\" fill=\"none\" stroke=\"#f0ad4e\" stroke-dasharray=\"5 3\"/>\n";
  }
  os << "</svg>\n";
  return s;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  raw_fd_ostream out(path, ec);
  if (ec)
    return false;
  out << text;
  return true;
}

} // namespace

int shardc::driver::writePruneReport(const Options &o, ModuleOp module,
                                     const PruneRun &run) {
  std::vector<Layer> layers = layersOf(module);
  std::string layerPath, curvePath;
  if (o.outputFile != "-") {
    SmallString<128> p(o.outputFile);
    sys::path::replace_extension(p, "prune.svg");
    if (!layers.empty()) {
      layerPath = p.str().str();
      if (!writeFile(layerPath, layerSvg(layers)))
        return fatal("cannot write '" + layerPath + "'");
    }
    sys::path::replace_extension(p, "");
    sys::path::replace_extension(p, "prune-curve.svg");
    if (!run.trials.empty()) {
      curvePath = p.str().str();
      if (!writeFile(curvePath, curveSvg(run)))
        return fatal("cannot write '" + curvePath + "'");
    }
  }
  std::error_code ec;
  raw_fd_ostream os(o.outputFile, ec);
  if (ec)
    return fatal("cannot write '" + o.outputFile + "': " + ec.message());
  os << "shardc pruning report for " << o.inputFile << " (--prune=" << o.prune;
  if (!run.trials.empty())
    os << ", chosen by --prune=auto";
  os << ")\n\n";
  module.walk([&](func::FuncOp f) {
    auto d = f->getAttrOfType<DictionaryAttr>("graph.pruned");
    auto count = [&](StringRef name) {
      auto a = d ? d.getAs<IntegerAttr>(name) : IntegerAttr();
      return a ? a.getInt() : int64_t(0);
    };
    os << "removed (@" << f.getSymName() << "): " << count("mlp_channels")
       << " MLP channels, " << count("heads") << " attention heads, "
       << count("conv_channels") << " convolution channels, "
       << count("experts") << " experts\n";
  });
  if (!run.trials.empty()) {
    bool timed = !std::isnan(run.unprunedP50Ms);
    os << "\n--prune=auto: " << run.metric << " on the calibration samples "
       << "(target " << formatv("{0}", run.target).str() << ")";
    if (timed)
      os << "; p50 of " << kTrialBenchmarkRuns
         << " runs on the first sample, unpruned "
         << format("%.3f", run.unprunedP50Ms) << " ms";
    os << "\n";
    for (const auto &p : sortedTrials(run)) {
      os << " ";
      for (auto [i, kind] : llvm::enumerate(run.kinds))
        os << (i ? "," : " ") << kind << ":"
           << formatv("{0:F2}", p.fraction).str();
      os << "  " << format("%.5f", p.metric);
      if (timed && !std::isnan(p.p50Ms))
        os << "  " << format("%.3f", p.p50Ms) << " ms ("
           << format("%.2f", run.unprunedP50Ms / p.p50Ms) << "x)";
      os << (p.metric >= run.target ? "" : "  (misses)") << "\n";
    }
  }
  if (!layers.empty()) {
    size_t width = 4;
    for (const Layer &l : layers)
      width = std::min<size_t>(std::max(width, l.node.size()), 48);
    os << "\n"
       << left_justify("node", width) << "  " << left_justify("kind", 6)
       << right_justify("kept", 12) << right_justify("removed", 9)
       << right_justify("error", 9) << "\n";
    for (const Layer &l : layers) {
      std::string node = l.node.size() > width
                             ? "..." + l.node.substr(l.node.size() - width + 3)
                             : l.node;
      os << left_justify(node, width) << "  " << left_justify(l.kind, 6)
         << right_justify(
                std::to_string(l.kept) + " of " + std::to_string(l.total), 12)
         << right_justify(formatv("{0:F1}%", 100 * l.removed()).str(), 9)
         << right_justify(formatv("{0:F2}%", 100 * l.error).str(), 9) << "\n";
    }
    os << "\n(error: the layer's estimated output error on the calibration "
          "rows, relative to its output's energy, after the least-squares "
          "update)\n";
  }
  if (!layerPath.empty())
    os << "layer chart: " << layerPath << "\n";
  if (!curvePath.empty())
    os << "search chart: " << curvePath << "\n";
  return 0;
}
