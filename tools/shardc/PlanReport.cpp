//===- PlanReport.cpp - the partitioning plan, for --emit=plan ------------===//
//
// Bytes moved per rank follow the ring algorithms (Megatron, NCCL's
// documentation): all-reduce 2(n-1)/n of the tensor, all-gather and
// reduce-scatter (n-1)/n of the full tensor, all-to-all (n-1)/n.
//
//===----------------------------------------------------------------------===//

#include "PlanReport.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Kern/IR/KernOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

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

void shardc::printPlanReport(raw_ostream &os, StringRef model,
                             ModuleOp propagated, ModuleOp planned) {
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

  // Weights and their shardings.
  os << "weights (global shape, sharding, bytes per rank):\n";
  uint64_t total = 0, perRank = 0;
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
    perRank += bytes / parts;
    if (bytes < 1024 && parts == 1)
      return; // small replicated constants: counted, not listed
    ++count;
    split += parts > 1;
    os << "  " << llvm::left_justify(weightName(op, index), 32) << " "
       << llvm::left_justify(shapeText(type), 20) << " "
       << llvm::left_justify(s ? shardingText(s) : "replicated", 18) << " "
       << bytesText(bytes / parts) << "\n";
  });
  os << "  " << count << " weights listed (" << split << " split); all "
     << "constants: " << bytesText(total) << ", per rank "
     << bytesText(perRank) << "\n\n";

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

  // Per rank: collectives and memory.
  os << "per rank (collectives per run; bytes moved per rank by ring "
        "algorithms):\n";
  for (auto func : planned.getOps<func::FuncOp>()) {
    auto ranks = func->getAttrOfType<DenseI64ArrayAttr>("kern.ranks");
    os << "  @" << func.getName();
    if (ranks) {
      os << " (rank";
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
      StringRef kind;
      int64_t group = 1;
      uint64_t bytes = 0, traffic = 0;
      auto tensorBytes = [](Value v) {
        return static_cast<uint64_t>(
            kern::bufferBytes(cast<MemRefType>(v.getType())));
      };
      if (auto c = dyn_cast<kern::AllReduceOp>(op)) {
        kind = "all_reduce";
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
        group = c.getGroupSize();
        bytes = tensorBytes(c.getInput());
        traffic = bytes * (group - 1) / group;
      } else if (auto c = dyn_cast<kern::AllToAllOp>(op)) {
        kind = "all_to_all";
        group = c.getGroupSize();
        bytes = tensorBytes(c.getInput());
        traffic = bytes * (group - 1) / group;
      } else {
        return;
      }
      ++n;
      moved += traffic;
      auto &k = byKind[kind.str()];
      ++k.first;
      k.second += bytes;
      // The shape of the tensor on this rank: a reduce-scatter's output
      // (its input may be laid out as [group, shard..] for the call).
      Value shown = isa<kern::ReduceScatterOp>(op) ? op->getOperand(1)
                                                   : op->getOperand(0);
      os << "    " << llvm::left_justify(kind, 15)
         << llvm::left_justify(shapeText(shown.getType()), 22)
         << " group " << group << ": tensor " << bytesText(bytes)
         << ", moves " << bytesText(traffic) << "\n";
    });
    os << "    " << n << " collectives";
    for (auto &[kind, v] : byKind)
      os << ", " << v.first << " " << kind << " (" << bytesText(v.second)
         << ")";
    os << "; " << bytesText(moved) << " moved per run\n";
  }
}
