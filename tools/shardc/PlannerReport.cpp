//===- PlannerReport.cpp - the planner's section of --emit=plan ----------===//

#include "PlannerReport.h"

#include "shardc/Planner/PlanSvg.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

using namespace llvm;
using namespace shardc;
using namespace shardc::planner;

void shardc::printPlannerReport(llvm::raw_ostream &os, const ModelSummary &m,
                                const Cluster &c, int64_t devices,
                                Objective objective,
                                const SearchResult &result,
                                StringRef planFile, StringRef planJson,
                                StringRef timelinePath,
                                StringRef memoryPath) {
  os << "planner: " << devices << " devices on cluster " << c.name << " ("
     << c.devicesPerNode << " per node, " << c.nodes << " node"
     << (c.nodes == 1 ? "" : "s") << "), ";
  if (planFile.empty())
    os << "optimizing "
       << (objective == Objective::Latency ? "latency" : "throughput");
  else
    os << "the plan of " << planFile;
  os << "\n";
  os << llvm::formatv("  model: {0} layers, {1} heads, hidden {2}, {3} "
                      "tokens (batch {4}), {5:F2} GFLOP and {6} of weights "
                      "per run",
                      m.layers, m.heads, m.hidden, m.tokens, m.batch,
                      (m.denseFlops + m.expertFlops) / 1e9,
                      formatBytes(m.denseWeights + m.expertWeights));
  if (m.experts)
    os << llvm::formatv(", {0} MoE layers of {1} experts (top-{2})",
                        m.moeLayers, m.experts, m.topK);
  os << "\n";
  if (result.ranked.empty()) {
    if (planFile.empty())
      os << "  no family runs on " << devices << " devices\n";
  } else {
    const Candidate &best = result.ranked.front();
    auto line = [&](const Candidate &k, const char *lead) {
      os << "  " << lead << k.name() << ": latency " << formatSeconds(k.latency)
         << ", throughput "
         << llvm::formatv("{0:F1}", k.throughput) << " rows/s, memory per rank "
         << formatBytes(k.memory.total()) << " (weights "
         << formatBytes(k.memory.weights) << ", activations "
         << formatBytes(k.memory.activations);
      if (k.memory.workspace > 0)
        os << ", workspace " << formatBytes(k.memory.workspace);
      if (k.memory.runtime > 0)
        os << ", runtime " << formatBytes(k.memory.runtime);
      if (k.memory.io > 0)
        os << ", inputs and outputs " << formatBytes(k.memory.io);
      os << ")";
      if (&k != &best) {
        double worse = objective == Objective::Latency
                           ? k.latency / best.latency - 1
                           : best.throughput / k.throughput - 1;
        os << llvm::formatv(", slower by {0:F1}%", 100 * worse);
      }
      os << "\n";
      if (!k.traffic.empty()) {
        os << "      collectives per run and rank:";
        for (auto &[kind, bytes] : k.traffic)
          os << " " << kind << " " << formatBytes(bytes);
        os << "\n";
      }
    };
    line(best, planFile.empty() ? "chosen: " : "plan: ");
    for (const std::string &note : best.strategyNotes)
      os << "      per layer: " << note << "\n";
    // The best variant of every other family (micro-batch counts and sp
    // are variants of one family).
    std::vector<const Candidate *> bests = familyBests(result);
    for (size_t i = 1; i < bests.size(); ++i)
      line(*bests[i], i <= 3 ? "runner-up: " : "also: ");
  }
  // Each rejected family once per reason.
  std::map<std::string, std::set<std::string>> byReason;
  for (const Candidate &k : result.rejected)
    byReason[k.rejected].insert(
        llvm::formatv("dp{0} pp{1} ep{2} tp{3}", k.dp, k.pp, k.ep, k.tp));
  for (auto &[reason, families] : byReason) {
    os << "  rejected:";
    unsigned n = 0;
    for (const std::string &f : families) {
      if (++n > 4) {
        os << " and " << families.size() - 4 << " more";
        break;
      }
      os << (n > 1 ? ", " : " ") << f;
    }
    os << ": " << reason << "\n";
  }
  if (!planJson.empty())
    os << "  plan file: " << planJson
       << " (compile it, edited or not, with --plan=FILE)\n";
  if (!timelinePath.empty())
    os << "  timeline: " << timelinePath << "\n";
  if (!memoryPath.empty())
    os << "  memory per rank: " << memoryPath << "\n";
  os << "\n";
}
