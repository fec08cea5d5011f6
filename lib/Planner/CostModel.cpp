//===- CostModel.cpp - time and memory of a plan --------------------------===//

#include "shardc/Planner/CostModel.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace llvm;
using namespace shardc::planner;

double shardc::planner::kernelTime(const Cluster &c, double flops,
                                   double bytes, StringRef dtype) {
  double peak = c.peakFlops(dtype);
  double compute = peak > 0 ? flops / peak : 0;
  double memory = c.memoryBandwidth > 0 ? bytes / c.memoryBandwidth : 0;
  return std::max({compute, memory, c.launchFloor});
}

bool shardc::planner::withinNode(const Cluster &c, Group g) {
  return g.size * g.stride <= c.devicesPerNode;
}

Link shardc::planner::linkOf(const Cluster &c, Group g) {
  return withinNode(c, g) ? c.intraNode : c.interNode;
}

double shardc::planner::collectiveTime(const Cluster &c, Collective kind,
                                       Algorithm algo, Group g,
                                       double bytes) {
  if (g.size <= 1)
    return 0;
  Link l = linkOf(c, g);
  double p = static_cast<double>(g.size), a = l.latency,
         perByte = 1.0 / l.bandwidth;
  switch (kind) {
  case Collective::AllReduce:
    if (algo == Algorithm::Tree)
      return 2 * std::ceil(std::log2(p)) * a + 2 * bytes * perByte;
    return 2 * (p - 1) * a + 2 * (p - 1) / p * bytes * perByte;
  case Collective::AllGather:
  case Collective::ReduceScatter:
  case Collective::AllToAll:
    return (p - 1) * a + (p - 1) / p * bytes * perByte;
  case Collective::SendRecv:
    return a + bytes * perByte;
  }
  return 0;
}

double shardc::planner::allReduceTime(const Cluster &c, Group g,
                                      double bytes) {
  return std::min(
      collectiveTime(c, Collective::AllReduce, Algorithm::Ring, g, bytes),
      collectiveTime(c, Collective::AllReduce, Algorithm::Tree, g, bytes));
}

double shardc::planner::balancedStageCost(ArrayRef<double> segments,
                                          int64_t stages) {
  if (stages < 1 || static_cast<int64_t>(segments.size()) < stages)
    return 0;
  // The least limit such that greedy grouping (a new stage whenever the
  // next segment would pass the limit) needs at most `stages` stages; the
  // answer is one of the sums of consecutive segments, so bisect to the
  // precision of a double and return the grouping's actual maximum.
  auto fits = [&](double limit, double &worst) {
    int64_t used = 1;
    double current = 0;
    worst = 0;
    for (double s : segments) {
      if (current + s > limit && current > 0) {
        ++used;
        current = 0;
      }
      current += s;
      worst = std::max(worst, current);
    }
    return used <= stages;
  };
  double lo = 0, hi = 0;
  for (double s : segments) {
    lo = std::max(lo, s);
    hi += s;
  }
  double worst = hi;
  if (fits(lo, worst))
    return worst;
  for (int i = 0; i < 200; ++i) {
    double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi)
      break;
    if (fits(mid, worst))
      hi = mid;
    else
      lo = mid;
  }
  fits(hi, worst);
  return worst;
}

std::vector<int64_t>
shardc::planner::balancedStageStarts(ArrayRef<double> segments,
                                     int64_t stages) {
  int64_t n = static_cast<int64_t>(segments.size());
  if (stages < 1 || n < stages)
    return {};
  double limit = balancedStageCost(segments, stages);
  std::vector<int64_t> starts = {0};
  double current = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t opened = static_cast<int64_t>(starts.size());
    bool full = current > 0 && current + segments[i] > limit * (1 + 1e-12);
    bool needed = n - i == stages - opened; // one segment per stage left
    if (i > 0 && opened < stages && (full || needed)) {
      starts.push_back(i);
      current = 0;
    }
    current += segments[i];
  }
  return starts;
}

std::vector<std::vector<double>>
shardc::planner::pipelineStarts(ArrayRef<double> stageTimes,
                                int64_t microbatches, double sendTime) {
  // Stage s starts micro-batch k when it has finished k-1 and stage s-1
  // has finished k and sent it.
  std::vector<std::vector<double>> start(
      stageTimes.size(), std::vector<double>(std::max<int64_t>(0, microbatches)));
  for (int64_t k = 0; k < microbatches; ++k)
    for (size_t s = 0; s < stageTimes.size(); ++s) {
      double ready = s ? start[s - 1][k] + stageTimes[s - 1] + sendTime : 0;
      if (k)
        ready = std::max(ready, start[s][k - 1] + stageTimes[s]);
      start[s][k] = ready;
    }
  return start;
}

double shardc::planner::pipelineMakespan(ArrayRef<double> stageTimes,
                                         int64_t microbatches,
                                         double sendTime) {
  if (stageTimes.empty() || microbatches <= 0)
    return 0;
  std::vector<std::vector<double>> start =
      pipelineStarts(stageTimes, microbatches, sendTime);
  return start.back().back() + stageTimes.back();
}

double shardc::planner::pipelineBubble(ArrayRef<double> stageTimes,
                                       int64_t microbatches,
                                       double sendTime) {
  double makespan = pipelineMakespan(stageTimes, microbatches, sendTime);
  if (makespan <= 0)
    return 0;
  double busy = 0;
  for (double t : stageTimes)
    busy += t * static_cast<double>(microbatches);
  return 1 - busy / (static_cast<double>(stageTimes.size()) * makespan);
}

double shardc::planner::memoryExcess(const Cluster &c,
                                     const MemoryEstimate &m) {
  return m.total() - c.memoryBytes;
}
