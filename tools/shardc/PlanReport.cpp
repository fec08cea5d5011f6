//===- PlanReport.cpp - the partitioning plan, for --emit=plan ------------===//
//
// Bytes moved per rank follow the ring algorithms (Megatron, NCCL's
// documentation): all-reduce 2(n-1)/n of the tensor, all-gather and
// reduce-scatter (n-1)/n of the full tensor, all-to-all (n-1)/n; the
// expert-parallel exchanges (n-1)/n of the routed rows, as under uniform
// routing.
//
//===----------------------------------------------------------------------===//

#include "PlanReport.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Kern/IR/KernOps.h"
#include "shardc/Planner/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <optional>

using namespace mlir;
using namespace shardc;

static std::string shapeText(Type type) {
  auto t = cast<ShapedType>(type);
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(t.getShape()))
    s += (i ? ", " : "") + std::to_string(d);
  std::string elem;
  llvm::raw_string_ostream os(elem);
  t.getElementType().print(os);
  return s + "] " + os.str();
}

static std::string bytesText(uint64_t b) {
  if (b >= (1ull << 30))
    return llvm::formatv("{0:F2} GiB", b / double(1ull << 30)).str();
  if (b >= (1ull << 20))
    return llvm::formatv("{0:F2} MiB", b / double(1ull << 20)).str();
  if (b >= (1ull << 10))
    return llvm::formatv("{0:F1} KiB", b / double(1ull << 10)).str();
  return std::to_string(b) + " B";
}

/// A weight's name: its resource key, else its location's name.
static std::string weightName(graph::ConstantOp op, unsigned index) {
  if (auto res = dyn_cast<DenseResourceElementsAttr>(op.getValue()))
    return res.getRawHandle().getKey().str();
  if (auto name = dyn_cast<NameLoc>(op.getLoc()))
    return name.getName().str();
  return "constant #" + std::to_string(index);
}

static std::string shardingText(dist::ShardingAttr s) {
  std::string text;
  for (unsigned d = 0; d < s.getDims().size(); ++d) {
    auto axes = s.axesOf(d);
    if (axes.empty())
      continue;
    text += (text.empty() ? "" : ", ") + std::string("dim ") +
            std::to_string(d) + " over";
    for (StringRef a : axes)
      text += " " + a.str();
  }
  return text.empty() ? "replicated" : text;
}

namespace {

/// The fill-and-drain schedule of an inference pipeline (GPipe's forward):
/// stage s starts micro-batch k when it has finished k - 1 and stage s - 1
/// has sent k. Times in units of the slowest stage's time.
struct Schedule {
  SmallVector<double> stageTime;             // per stage, max = 1
  SmallVector<double> stageFlops;            // per stage, estimated
  int64_t microbatches = 1;
  std::vector<std::vector<double>> start;    // [stage][micro-batch]
  double makespan = 0, bubble = 0;
};

std::optional<Schedule> scheduleOf(ModuleOp propagated) {
  SmallVector<std::pair<int64_t, double>> stages;
  for (auto func : propagated.getOps<func::FuncOp>()) {
    auto stage = func->getAttrOfType<IntegerAttr>("dist.stage");
    auto flops = func->getAttrOfType<FloatAttr>("dist.stage_flops");
    if (stage)
      stages.push_back({stage.getInt(), flops ? flops.getValueAsDouble() : 1});
  }
  if (stages.empty())
    return std::nullopt;
  llvm::sort(stages);
  Schedule s;
  if (auto m = propagated->getAttrOfType<IntegerAttr>("dist.microbatches"))
    s.microbatches = m.getInt();
  double slowest = 0;
  for (auto &[i, f] : stages) {
    s.stageFlops.push_back(f);
    slowest = std::max(slowest, f);
  }
  for (double f : s.stageFlops)
    s.stageTime.push_back(slowest > 0 ? f / slowest : 1.0);
  // The planner's fill-and-drain model, sends free (they do not wait).
  s.start = planner::pipelineStarts(s.stageTime, s.microbatches, 0);
  s.makespan = planner::pipelineMakespan(s.stageTime, s.microbatches, 0);
  s.bubble = planner::pipelineBubble(s.stageTime, s.microbatches, 0);
  return s;
}

} // namespace

std::string shardc::timelineSvg(ModuleOp propagated) {
  std::optional<Schedule> s = scheduleOf(propagated);
  if (!s)
    return "";
  const int64_t p = s->stageTime.size(), m = s->microbatches;
  const int64_t left = 90, top = 40, row = 34, width = 720;
  const double scale = width / std::max(s->makespan, 1e-9);
  std::string out;
  llvm::raw_string_ostream os(out);
  int64_t h = top + p * row + 40;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 20
     << "\" height=\"" << h
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << left << "\" y=\"20\" font-size=\"14\">Expected "
        "pipeline timeline: "
     << p << " stages, " << m << " micro-batches, bubble "
     << llvm::formatv("{0:F1}", 100 * s->bubble) << "% (equal stages: "
     << llvm::formatv("{0:F1}", 100.0 * (p - 1) / (m + p - 1))
     << "%)</text>\n";
  static const char *const kColors[] = {"#4e79a7", "#f28e2b", "#59a14f",
                                        "#e15759", "#76b7b2", "#edc948",
                                        "#b07aa1", "#ff9da7"};
  for (int64_t st = 0; st < p; ++st) {
    int64_t y = top + st * row;
    os << "<text x=\"8\" y=\"" << y + row / 2 + 4 << "\">stage " << st
       << "</text>\n"
       << "<rect x=\"" << left << "\" y=\"" << y + 3 << "\" width=\"" << width
       << "\" height=\"" << row - 6
       << "\" fill=\"#f2f2f2\" stroke=\"#cccccc\"/>\n";
    for (int64_t k = 0; k < m; ++k) {
      double x = left + s->start[st][k] * scale;
      double w = s->stageTime[st] * scale;
      os << "<rect x=\"" << llvm::formatv("{0:F1}", x) << "\" y=\"" << y + 3
         << "\" width=\"" << llvm::formatv("{0:F1}", w) << "\" height=\""
         << row - 6 << "\" fill=\"" << kColors[k % 8]
         << "\" stroke=\"white\"/>\n"
         << "<text x=\"" << llvm::formatv("{0:F1}", x + w / 2 - 4)
         << "\" y=\"" << y + row / 2 + 4 << "\" fill=\"white\">" << k
         << "</text>\n";
    }
  }
  os << "<text x=\"" << left << "\" y=\"" << h - 12
     << "\">time, in units of the slowest stage's time per micro-batch "
        "(grey: idle)</text>\n</svg>\n";
  return out;
}

void shardc::printPlanReport(raw_ostream &os, StringRef model,
                             ModuleOp propagated, ModuleOp planned,
                             StringRef svgPath) {
  os << "shardc plan for " << model << "\n\n";
  dist::MeshOp mesh;
  for (auto m : propagated.getOps<dist::MeshOp>())
    mesh = m;
  if (mesh) {
    os << "mesh @" << mesh.getSymName() << ":";
    for (auto [a, n] : llvm::zip(mesh.getAxes(), mesh.getShape()))
      os << " " << cast<StringAttr>(a).getValue() << "=" << n;
    os << " (" << mesh.numDevices() << " ranks)\n\n";
  }

  // What pruning removed (passes/Pruning: graph.pruned on the program).
  propagated.walk([&](func::FuncOp f) {
    auto pruned = f->getAttrOfType<DictionaryAttr>("graph.pruned");
    auto count = [&](StringRef name) {
      auto a = pruned ? pruned.getAs<IntegerAttr>(name) : IntegerAttr();
      return a ? a.getInt() : int64_t(0);
    };
    if (pruned)
      os << "pruned (@" << f.getSymName() << "): " << count("mlp_channels")
         << " MLP channels, " << count("conv_channels")
         << " convolution channels, " << count("heads") << " attention heads, "
         << count("experts") << " experts\n\n";
  });

  // Weights and their shardings.
  os << "weights (global shape, sharding, bytes per rank):\n";
  uint64_t total = 0;
  std::map<Operation *, uint64_t> perProgram; // pipeline stages differ
  unsigned index = 0, split = 0, count = 0;
  propagated.walk([&](graph::ConstantOp op) {
    ++index;
    auto type = cast<ShapedType>(op.getType());
    uint64_t bytes = type.getNumElements() *
                     std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    auto shardings = op->getAttrOfType<ArrayAttr>("dist.shardings");
    dist::ShardingAttr s =
        shardings ? dyn_cast<dist::ShardingAttr>(shardings[0]) : nullptr;
    uint64_t parts = 1;
    if (s && mesh)
      for (unsigned d = 0; d < s.getDims().size(); ++d)
        for (StringRef a : s.axesOf(d))
          parts *= *mesh.axisSize(a);
    total += bytes;
    perProgram[op->getParentOfType<func::FuncOp>()] += bytes / parts;
    if (bytes < 1024 && parts == 1)
      return; // small replicated constants: counted, not listed
    ++count;
    split += parts > 1;
    os << "  " << llvm::left_justify(weightName(op, index), 32) << " "
       << llvm::left_justify(shapeText(type), 20) << " "
       << llvm::left_justify(s ? shardingText(s) : "replicated", 18) << " "
       << bytesText(bytes / parts) << "\n";
  });
  uint64_t perRank = 0;
  for (auto &[func, bytes] : perProgram)
    perRank = std::max(perRank, bytes);
  os << "  " << count << " weights listed (" << split << " split); all "
     << "constants: " << bytesText(total)
     << (perProgram.size() > 1 ? ", per rank at most " : ", per rank ")
     << bytesText(perRank) << "\n\n";

  // Vocabularies padded to a multiple of the tp degree.
  propagated.walk([&](graph::ConstantOp op) {
    auto from = op->getAttrOfType<DenseI64ArrayAttr>("dist.padded_from");
    if (!from)
      return;
    auto type = cast<RankedTensorType>(op.getType());
    os << "padded with zeros so that tp divides it: "
       << weightName(op, 0) << " "
       << shapeText(RankedTensorType::get(from.asArrayRef(),
                                          type.getElementType()))
       << " -> " << shapeText(type) << "\n";
  });

  // Ops without a sharding rule run replicated.
  std::map<std::string, unsigned> noRule;
  propagated.walk([&](Operation *op) {
    if (op->hasAttr("dist.no_rule"))
      ++noRule[op->getName().getStringRef().str()];
  });
  os << "replicated for want of a sharding rule:";
  if (noRule.empty())
    os << " none";
  for (auto &[name, n] : noRule)
    os << " " << name << " x" << n;
  os << "\n\n";

  // Expert load balancing (--calibration): each layer's expected tokens
  // per ep rank with the experts in order, and as placed.
  unsigned layer = 0;
  propagated.walk([&](graph::MoeOp op) {
    auto placement = op->getAttrOfType<DenseI64ArrayAttr>("dist.placement");
    auto before = op->getAttrOfType<DenseI64ArrayAttr>("dist.load_before");
    auto after = op->getAttrOfType<DenseI64ArrayAttr>("dist.load_after");
    if (!placement || !before || !after)
      return;
    if (layer == 0)
      os << (op->hasAttr("dist.load_uniform")
                 ? "expert placement (ep does not divide the experts: "
                   "copies fill its slots; without --calibration every "
                   "expert counts 1; before: experts in order, after: "
                   "placed):\n"
                 : "expert placement (tokens per ep rank expected from the "
                   "calibration; before: experts in order, after: "
                   "placed):\n");
    auto list = [&](ArrayRef<int64_t> v) {
      std::string text;
      int64_t most = 0;
      for (int64_t x : v) {
        text += (text.empty() ? "" : " ") + std::to_string(x);
        most = std::max(most, x);
      }
      return text + " (busiest " + std::to_string(most) + ")";
    };
    os << "  layer " << layer++ << ": before " << list(before.asArrayRef())
       << ", after " << list(after.asArrayRef()) << "\n";
    int64_t ranks = before.size();
    int64_t perRank = static_cast<int64_t>(placement.size()) / ranks;
    for (int64_t r = 0; r < ranks; ++r) {
      os << "    rank " << r << " holds experts";
      for (int64_t i = 0; i < perRank; ++i)
        os << " " << placement[r * perRank + i];
      os << "\n";
    }
  });
  if (layer)
    os << "\n";

  // The pipeline schedule.
  if (std::optional<Schedule> sched = scheduleOf(propagated)) {
    int64_t p = sched->stageTime.size(), m = sched->microbatches;
    os << "pipeline: " << p << " stages, " << m
       << " micro-batches (each rank runs its stage once per micro-batch; "
          "sends do not wait)\n";
    for (int64_t st = 0; st < p; ++st)
      os << "  stage " << st << ": "
         << llvm::formatv("{0:F3}", sched->stageFlops[st] / 1e9)
         << " GFLOP per micro-batch ("
         << llvm::formatv("{0:F2}", sched->stageTime[st])
         << " of the slowest)\n";
    os << "  expected timeline (fill and drain): "
       << llvm::formatv("{0:F2}", sched->makespan)
       << " slowest-stage times, bubble "
       << llvm::formatv("{0:F1}", 100 * sched->bubble)
       << "% (equal stages: (p-1)/(m+p-1) = "
       << llvm::formatv("{0:F1}", 100.0 * (p - 1) / (m + p - 1)) << "%)\n";
    // One column per half of the slowest stage's time; digits are
    // micro-batches, dots idle time.
    int64_t cols = static_cast<int64_t>(std::ceil(sched->makespan * 2 - 1e-9));
    for (int64_t st = 0; st < p; ++st) {
      std::string line(cols, '.');
      for (int64_t k = 0; k < m; ++k) {
        int64_t a = std::lround(sched->start[st][k] * 2);
        int64_t b = std::lround(
            (sched->start[st][k] + sched->stageTime[st]) * 2);
        for (int64_t c = a; c < b && c < cols; ++c)
          line[c] = k < 10 ? static_cast<char>('0' + k)
                           : static_cast<char>('a' + (k - 10) % 26);
      }
      os << "    stage " << st << " |" << line << "|\n";
    }
    if (!svgPath.empty())
      os << "  timeline picture: " << svgPath << "\n";
    os << "\n";
  }

  // Per rank: collectives and memory.
  os << "per rank (collectives per run; bytes moved per rank by ring "
        "algorithms):\n";
  for (auto func : planned.getOps<func::FuncOp>()) {
    auto ranks = func->getAttrOfType<DenseI64ArrayAttr>("kern.ranks");
    os << "  @" << func.getName();
    if (ranks) {
      // A merged program (kern-merge-ranks) serves several.
      os << (ranks.size() > 1 ? " (ranks" : " (rank");
      for (int64_t r : ranks.asArrayRef())
        os << " " << r;
      os << ")";
    }
    auto attrInt = [&](StringRef name) -> uint64_t {
      if (auto a = func->getAttrOfType<IntegerAttr>(name))
        return a.getInt();
      return 0;
    };
    uint64_t weights = attrInt("kern.weights_bytes"),
             arena = attrInt("kern.arena_bytes");
    os << ": weights " << bytesText(weights) << ", arena "
       << bytesText(arena) << ", total " << bytesText(weights + arena)
       << "\n";
    uint64_t moved = 0;
    unsigned n = 0;
    std::map<std::string, std::pair<unsigned, uint64_t>> byKind;
    func.walk([&](Operation *op) {
      StringRef kind, reduction;
      int64_t group = 1;
      uint64_t bytes = 0, traffic = 0;
      auto tensorBytes = [](Value v) {
        return static_cast<uint64_t>(
            kern::bufferBytes(cast<MemRefType>(v.getType())));
      };
      if (auto c = dyn_cast<kern::AllReduceOp>(op)) {
        kind = "all_reduce";
        reduction = c.getKind();
        group = c.getGroupSize();
        bytes = tensorBytes(c.getInput());
        traffic = 2 * bytes * (group - 1) / group;
      } else if (auto c = dyn_cast<kern::AllGatherOp>(op)) {
        kind = "all_gather";
        group = c.getGroupSize();
        bytes = tensorBytes(c.getOutput());
        traffic = bytes * (group - 1) / group;
      } else if (auto c = dyn_cast<kern::ReduceScatterOp>(op)) {
        kind = "reduce_scatter";
        reduction = c.getKind();
        group = c.getGroupSize();
        bytes = tensorBytes(c.getInput());
        traffic = bytes * (group - 1) / group;
      } else if (auto c = dyn_cast<kern::AllToAllOp>(op)) {
        kind = "all_to_all";
        group = c.getGroupSize();
        bytes = tensorBytes(c.getInput());
        traffic = bytes * (group - 1) / group;
      } else if (isa<kern::MoeDispatchOp, kern::MoeReturnOp>(op)) {
        // Expert parallelism: the rows of this rank's tokens, out and back;
        // under uniform routing (n - 1) / n of them cross to other ranks.
        auto d = dyn_cast<kern::MoeDispatchOp>(op);
        auto r = dyn_cast<kern::MoeReturnOp>(op);
        kind = d ? "moe_dispatch" : "moe_return";
        group = d ? d.getGroupSize() : r.getGroupSize();
        bytes = tensorBytes(d ? d.getRows() : r.getRows());
        traffic = bytes * (group - 1) / group;
      } else if (auto c = dyn_cast<kern::SendOp>(op)) {
        kind = "send";
        group = c.getGroupSize();
        bytes = traffic = tensorBytes(c.getInput());
      } else if (auto c = dyn_cast<kern::RecvOp>(op)) {
        kind = "recv";
        group = c.getGroupSize();
        bytes = tensorBytes(c.getOutput());
      } else {
        return;
      }
      ++n;
      moved += traffic;
      auto &k = byKind[kind.str()];
      ++k.first;
      k.second += bytes;
      // The shape of the tensor on this rank: a reduce-scatter's output
      // (its input may be laid out as [group, shard..] for the call), an
      // expert exchange's routed rows.
      Value shown = isa<kern::ReduceScatterOp>(op) ? op->getOperand(1)
                    : isa<kern::MoeReturnOp>(op)
                        ? cast<kern::MoeReturnOp>(op).getRows()
                        : op->getOperand(0);
      os << "    " << llvm::left_justify(kind, 15)
         << llvm::left_justify(shapeText(shown.getType()), 22)
         << " group " << group
         << (reduction.empty() || reduction == "sum"
                 ? std::string()
                 : ", " + reduction.str())
         << ": tensor " << bytesText(bytes)
         << ", moves " << bytesText(traffic) << "\n";
    });
    os << "    " << n << " collectives";
    for (auto &[kind, v] : byKind)
      os << ", " << v.first << " " << kind << " (" << bytesText(v.second)
         << ")";
    os << "; " << bytesText(moved) << " moved per run\n";
  }
}
