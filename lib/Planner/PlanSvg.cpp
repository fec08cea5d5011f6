//===- PlanSvg.cpp - pictures of the planner's candidates -----------------===//

#include "shardc/Planner/PlanSvg.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

using namespace llvm;
using namespace shardc::planner;

namespace {

constexpr double kLeft = 200, kPlot = 720, kRight = 30;
constexpr const char *kCompute[] = {"#4e79a7", "#76a1cf"};
constexpr const char *kComm = "#f28e2b", *kSend = "#9c9c9c",
                     *kGather = "#b07aa1", *kIdle = "#f2f2f2";

std::string num(double v) { return formatv("{0:F1}", v).str(); }

/// XML text: & < > escaped (names and reasons are ours, but stay safe).
std::string text(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

/// A tick step of 1, 2 or 5 times a power of ten giving at most `ticks`
/// steps up to `max`.
double tickStep(double max, int ticks) {
  if (max <= 0)
    return 1;
  double raw = max / ticks, p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw)
      return m * p;
  return 10 * p;
}

void rect(raw_ostream &os, double x, double y, double w, double h,
          StringRef fill, StringRef title = "") {
  os << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\""
     << num(std::max(w, 0.0)) << "\" height=\"" << num(h) << "\" fill=\""
     << fill << "\"";
  if (title.empty()) {
    os << "/>\n";
    return;
  }
  os << "><title>" << text(title) << "</title></rect>\n";
}

void label(raw_ostream &os, double x, double y, StringRef s,
           StringRef extra = "") {
  os << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\"" << extra << ">"
     << text(s) << "</text>\n";
}

void header(raw_ostream &os, double width, double height) {
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width)
     << "\" height=\"" << num(height)
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  rect(os, 0, 0, width, height, "white");
}

/// A horizontal axis from 0 to `max` at height `y`, ticks of 1, 2 or 5
/// times a power of ten in the unit of `units` (factor, suffix: the largest
/// whose factor is at most `max`).
void axis(raw_ostream &os, double y, double max, double scale,
          std::initializer_list<std::pair<double, const char *>> units) {
  os << "<line x1=\"" << num(kLeft) << "\" y1=\"" << num(y) << "\" x2=\""
     << num(kLeft + kPlot) << "\" y2=\"" << num(y)
     << "\" stroke=\"black\"/>\n";
  std::pair<double, const char *> unit = *units.begin();
  for (auto u : units)
    if (u.first <= max)
      unit = u;
  double step = tickStep(max / unit.first, 8);
  for (int64_t i = 0; i * step <= max / unit.first * (1 + 1e-9); ++i) {
    double x = kLeft + i * step * unit.first * scale;
    os << "<line x1=\"" << num(x) << "\" y1=\"" << num(y) << "\" x2=\""
       << num(x) << "\" y2=\"" << num(y + 4) << "\" stroke=\"black\"/>\n";
    char value[32];
    std::snprintf(value, sizeof value, "%g", i * step);
    label(os, x, y + 16, std::string(value) + " " + unit.second,
          " text-anchor=\"middle\"");
  }
}

void legend(raw_ostream &os, double y,
            std::initializer_list<std::pair<const char *, const char *>>
                entries) {
  double x = kLeft;
  for (auto [fill, name] : entries) {
    rect(os, x, y - 10, 12, 12, fill);
    label(os, x + 16, y, name);
    x += 30 + 7.0 * StringRef(name).size();
  }
}

} // namespace

std::vector<const Candidate *>
shardc::planner::familyBests(const SearchResult &result) {
  std::vector<const Candidate *> out;
  std::set<std::tuple<int64_t, int64_t, int64_t, int64_t>> seen;
  for (const Candidate &c : result.ranked)
    if (seen.insert({c.dp, c.pp, c.ep, c.tp}).second)
      out.push_back(&c);
  return out;
}

std::string
shardc::planner::timelineSvg(const Cluster &cluster,
                             const std::vector<const Candidate *> &shown,
                             StringRef firstLabel) {
  if (shown.empty())
    return "";
  constexpr double kLane = 22, kTop = 50;
  double maxTime = 0, height = kTop;
  for (const Candidate *c : shown) {
    maxTime = std::max(maxTime, c->latency);
    height += 24 + kLane * c->pp + 12;
  }
  height += 60;
  double scale = kPlot / std::max(maxTime, 1e-12);
  std::string out;
  raw_string_ostream os(out);
  header(os, kLeft + kPlot + kRight, height);
  label(os, 10, 22,
        formatv("Estimated timeline of one run on {0} ({1} devices){2}",
                cluster.name, shown.front()->dp * shown.front()->pp *
                                  shown.front()->ep * shown.front()->tp,
                shown.size() > 1 ? ": the chosen plan and the runners-up"
                                 : "")
            .str(),
        " font-size=\"14\"");
  double y = kTop;
  for (size_t i = 0; i < shown.size(); ++i) {
    const Candidate &c = *shown[i];
    std::string head = formatv("{0}{1}: {2}",
                               i == 0 ? (firstLabel + " ").str() : "",
                               c.name(), formatSeconds(c.latency))
                           .str();
    if (i > 0)
      head += formatv(" (+{0:F1}%)",
                      100 * (c.latency / shown.front()->latency - 1))
                  .str();
    label(os, 10, y + 14, head, i == 0 ? " font-weight=\"bold\"" : "");
    y += 24;
    double stage = c.stageCompute + c.stageComm;
    std::vector<double> stages(c.pp, stage);
    std::vector<std::vector<double>> start =
        pipelineStarts(stages, c.microbatches, c.sendTime);
    int64_t perStage = c.dp * c.ep * c.tp;
    for (int64_t s = 0; s < c.pp; ++s) {
      double ly = y + s * kLane;
      label(os, 20, ly + 15,
            formatv("stage {0} ({1} rank{2})", s, perStage,
                    perStage == 1 ? "" : "s")
                .str());
      rect(os, kLeft, ly + 2, c.latency * scale, kLane - 4, kIdle);
      for (int64_t k = 0; k < c.microbatches; ++k) {
        double t0 = start[s][k];
        rect(os, kLeft + t0 * scale, ly + 2, c.stageCompute * scale,
             kLane - 4, kCompute[k % 2],
             formatv("stage {0}, micro-batch {1}: kernels {2}", s, k,
                     formatSeconds(c.stageCompute))
                 .str());
        if (c.stageComm > 0)
          rect(os, kLeft + (t0 + c.stageCompute) * scale, ly + 2,
               c.stageComm * scale, kLane - 4, kComm,
               formatv("stage {0}, micro-batch {1}: collectives {2}", s, k,
                       formatSeconds(c.stageComm))
                   .str());
        if (s + 1 < c.pp && c.sendTime > 0)
          rect(os, kLeft + (t0 + stage) * scale, ly + kLane / 2 - 2,
               c.sendTime * scale, 4, kSend,
               formatv("send of micro-batch {0} to stage {1}: {2}", k, s + 1,
                       formatSeconds(c.sendTime))
                   .str());
      }
    }
    if (c.gatherTime > 0) {
      double ly = y + (c.pp - 1) * kLane;
      rect(os, kLeft + (c.latency - c.gatherTime) * scale, ly + 2,
           c.gatherTime * scale, kLane - 4, kGather,
           "gather of the outputs over dp: " + formatSeconds(c.gatherTime));
    }
    y += kLane * c.pp + 12;
  }
  axis(os, y + 4, maxTime, scale, {{1e-6, "us"}, {1e-3, "ms"}, {1, "s"}});
  legend(os, y + 48,
         {{kCompute[0], "kernels"},
          {kComm, "tp/ep collectives"},
          {kSend, "stage send"},
          {kGather, "output gather (dp)"},
          {kIdle, "idle"}});
  os << "</svg>\n";
  return out;
}

std::string
shardc::planner::memorySvg(const Cluster &cluster,
                           const std::vector<const Candidate *> &shown,
                           const std::vector<Candidate> &rejected) {
  std::vector<std::pair<const Candidate *, bool>> rows; // fits?
  for (const Candidate *c : shown)
    rows.push_back({c, true});
  std::set<std::tuple<int64_t, int64_t, int64_t, int64_t>> seen;
  for (const Candidate &c : rejected)
    if (StringRef(c.rejected).starts_with("does not fit") &&
        seen.insert({c.dp, c.pp, c.ep, c.tp}).second)
      rows.push_back({&c, false});
  if (rows.empty())
    return "";
  constexpr double kRow = 26, kTop = 50;
  double max = cluster.memoryBytes;
  for (auto &[c, fits] : rows)
    max = std::max(max, c->memory.total());
  max *= 1.05;
  double scale = kPlot / std::max(max, 1.0);
  double height = kTop + kRow * rows.size() + 70;
  std::string out;
  raw_string_ostream os(out);
  header(os, kLeft + kPlot + kRight, height);
  label(os, 10, 22,
        formatv("Estimated memory per rank on {0}: {1} per device", cluster.name,
                formatBytes(cluster.memoryBytes))
            .str(),
        " font-size=\"14\"");
  static const char *const kParts[] = {"#4e79a7", "#59a14f", "#f28e2b",
                                       "#9c9c9c", "#b07aa1"};
  double y = kTop;
  for (auto &[c, fits] : rows) {
    const MemoryEstimate &m = c->memory;
    label(os, 10, y + 17,
          c->name() + (fits ? "" : " (does not fit)"),
          fits ? "" : " fill=\"#c00000\"");
    double x = kLeft;
    double parts[] = {m.weights, m.activations, m.workspace, m.runtime,
                      m.io};
    static const char *const kNames[] = {"weights", "activations",
                                         "workspace", "runtime",
                                         "inputs and outputs"};
    for (int i = 0; i < 5; ++i) {
      rect(os, x, y + 4, parts[i] * scale, kRow - 8, kParts[i],
           std::string(kNames[i]) + ": " + formatBytes(parts[i]));
      x += parts[i] * scale;
    }
    label(os, x + 4, y + 17, formatBytes(m.total()));
    y += kRow;
  }
  double capX = kLeft + cluster.memoryBytes * scale;
  os << "<line x1=\"" << num(capX) << "\" y1=\"" << num(kTop - 4)
     << "\" x2=\"" << num(capX) << "\" y2=\"" << num(y + 2)
     << "\" stroke=\"#c00000\" stroke-dasharray=\"4 3\"><title>device "
        "memory: "
     << formatBytes(cluster.memoryBytes) << "</title></line>\n";
  axis(os, y + 6, max, scale,
       {{1024.0, "KiB"}, {1024.0 * 1024, "MiB"}, {1024.0 * 1024 * 1024, "GiB"}});
  legend(os, y + 50,
         {{kParts[0], "weights"},
          {kParts[1], "activations"},
          {kParts[2], "workspace"},
          {kParts[3], "runtime"},
          {kParts[4], "inputs and outputs"},
          {"#c00000", "device memory"}});
  os << "</svg>\n";
  return out;
}
