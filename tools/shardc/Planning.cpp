//===- Planning.cpp - --devices: the planner in the driver ----------------===//

#include "Planning.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Sharding/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

using namespace mlir;
using namespace shardc;
using namespace shardc::planner;

namespace {

double bytesOf(Type t) {
  auto s = dyn_cast<ShapedType>(t);
  if (!s || !s.hasStaticShape() || !s.getElementType().isIntOrFloat())
    return 0;
  return static_cast<double>(s.getNumElements()) *
         std::max<unsigned>(8, s.getElementType().getIntOrFloatBitWidth()) / 8;
}

std::string bytesText(double b) {
  if (b >= 1024.0 * 1024 * 1024)
    return llvm::formatv("{0:F2} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024)
    return llvm::formatv("{0:F1} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0)
    return llvm::formatv("{0:F1} KiB", b / 1024.0);
  return llvm::formatv("{0} B", static_cast<int64_t>(b));
}

std::string timeText(double s) {
  if (s >= 1)
    return llvm::formatv("{0:F3} s", s);
  if (s >= 1e-3)
    return llvm::formatv("{0:F3} ms", s * 1e3);
  return llvm::formatv("{0:F1} us", s * 1e6);
}

} // namespace

ModelSummary shardc::summarizeModel(ModuleOp module, StringRef dtype) {
  ModelSummary m;
  m.dtype = dtype.str();
  m.elementBytes = dtype == "fp16" || dtype == "bf16" ? 2 : 4;
  func::FuncOp main;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal()) {
      main = f;
      break;
    }
  if (!main)
    return m;
  for (Type t : main.getArgumentTypes())
    if (auto s = dyn_cast<ShapedType>(t); s && s.getRank() >= 1) {
      m.batch = s.getDimSize(0);
      break;
    }
  double totalFlops = 0, weights = 0;
  int64_t attentions = 0, kernels = 0;
  Value hiddenState;
  main.walk([&](Operation *op) {
    if (isa<func::ReturnOp>(op)) {
      for (Value v : op->getOperands())
        m.outputBytes += bytesOf(v.getType());
      return;
    }
    if (isa<graph::ConstantOp>(op)) {
      weights += bytesOf(op->getResult(0).getType());
      return;
    }
    if (op->getNumResults() == 0 || op == main)
      return;
    ++kernels;
    for (Value r : op->getResults())
      m.peakActivation = std::max(m.peakActivation, bytesOf(r.getType()));
    totalFlops += estimateFlops(op);
    if (auto attn = dyn_cast<graph::AttentionOp>(op)) {
      ++attentions;
      auto q = cast<ShapedType>(attn.getQuery().getType());
      if (q.getRank() >= 3)
        m.heads = std::max(m.heads, q.getDimSize(q.getRank() - 3));
    }
    if (auto moe = dyn_cast<graph::MoeOp>(op)) {
      ++m.moeLayers;
      m.experts = std::max(m.experts, moe.getNumExperts());
      m.topK = std::max(m.topK, moe.getTopK());
      m.expertFlops += estimateFlops(op);
      m.expertWeights += bytesOf(moe.getGateUp().getType()) +
                         bytesOf(moe.getDown().getType());
    }
    if (!hiddenState && isa<graph::LayerNormOp, graph::RmsNormOp>(op))
      hiddenState = op->getOperand(0);
  });
  m.layers = std::max<int64_t>(1, attentions);
  m.kernels = std::max<int64_t>(1, kernels);
  m.denseFlops = totalFlops - m.expertFlops;
  m.denseWeights = weights - m.expertWeights;
  if (auto s = hiddenState ? dyn_cast<ShapedType>(hiddenState.getType())
                           : ShapedType();
      s && s.hasStaticShape() && s.getRank() >= 1) {
    m.hidden = s.getDimSize(s.getRank() - 1);
    m.tokens = s.getNumElements() / std::max<int64_t>(1, m.hidden);
  } else {
    m.tokens = m.batch;
    m.hidden = std::max<int64_t>(
        1, static_cast<int64_t>(m.outputBytes / m.elementBytes) /
               std::max<int64_t>(1, m.batch));
  }
  return m;
}

void shardc::printPlannerReport(llvm::raw_ostream &os, const ModelSummary &m,
                                const Cluster &c, int64_t devices,
                                Objective objective,
                                const SearchResult &result,
                                StringRef planFile, StringRef planJson) {
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
                      bytesText(m.denseWeights + m.expertWeights));
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
      os << "  " << lead << k.name() << ": latency " << timeText(k.latency)
         << ", throughput "
         << llvm::formatv("{0:F1}", k.throughput) << " rows/s, memory per rank "
         << bytesText(k.memory.total()) << " (weights "
         << bytesText(k.memory.weights) << ", activations "
         << bytesText(k.memory.activations);
      if (k.memory.workspace > 0)
        os << ", workspace " << bytesText(k.memory.workspace);
      if (k.memory.runtime > 0)
        os << ", runtime " << bytesText(k.memory.runtime);
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
          os << " " << kind << " " << bytesText(bytes);
        os << "\n";
      }
    };
    line(best, planFile.empty() ? "chosen: " : "plan: ");
    // The best variant of every other family (micro-batch counts and sp
    // are variants of one family).
    std::set<std::string> seen = {llvm::formatv("{0} {1} {2} {3}", best.dp,
                                                best.pp, best.ep, best.tp)};
    unsigned shown = 0;
    for (const Candidate &k : result.ranked) {
      std::string family =
          llvm::formatv("{0} {1} {2} {3}", k.dp, k.pp, k.ep, k.tp);
      if (!seen.insert(family).second)
        continue;
      line(k, ++shown <= 3 ? "runner-up: " : "also: ");
    }
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
  os << "\n";
}
