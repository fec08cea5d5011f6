//===- FusionReport.cpp - what fusion did, for --fusion-report -------------===//

#include "FusionReport.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Kern/IR/KernOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"

#include <set>

using namespace mlir;
using namespace shardc;

std::map<std::string, unsigned> shardc::countGraphOps(ModuleOp module) {
  std::map<std::string, unsigned> counts;
  module.walk([&](Operation *op) {
    if (isa<graph::GraphDialect>(op->getDialect()) && !isa<graph::ConstantOp>(op))
      ++counts[op->getName().stripDialect().str()];
  });
  return counts;
}

/// The layer an op belongs to, from the ONNX node names in its location.
static std::string layerOf(Location loc) {
  std::string found;
  loc->walk([&](Location l) {
    auto name = dyn_cast<NameLoc>(l);
    if (!name || !found.empty())
      return WalkResult::advance();
    // The shortest prefix of the path whose last component ends in a number.
    StringRef path = name.getName().strref();
    SmallVector<StringRef> parts;
    path.split(parts, '/');
    std::string prefix;
    for (StringRef part : parts) {
      prefix += (prefix.empty() && part.empty()) ? "" : "/" + part.str();
      if (part.empty())
        continue;
      size_t digits = part.size();
      while (digits > 0 && isdigit(static_cast<unsigned char>(part[digits - 1])))
        --digits;
      if (digits < part.size() && digits > 0 &&
          (part[digits - 1] == '.' || part[digits - 1] == '_')) {
        found = prefix;
        break;
      }
    }
    return found.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  return found;
}

static std::string shortName(Operation *op) {
  if (auto call = dyn_cast<kern::RuntimeCallOpInterface>(op))
    return call.getRuntimeCallee().str();
  if (isa<kern::MatmulOp>(op))
    return "matmul";
  return op->getName().stripDialect().str();
}

KernelStats shardc::kernelStats(ModuleOp module) {
  KernelStats stats;
  module.walk([&](Operation *op) {
    if (!isa<kern::MapOp, kern::ReduceOp, kern::MatmulOp, kern::ConvOp,
             kern::RuntimeCallOpInterface>(op))
      return;
    (isa<kern::MapOp, kern::ReduceOp>(op) ? stats.generated : stats.library)++;
    llvm::SmallPtrSet<void *, 8> seen;
    for (Value v : op->getOperands())
      if (seen.insert(v.getAsOpaquePointer()).second)
        stats.bytes += kern::bufferBytes(cast<MemRefType>(v.getType()));
    std::string layer = layerOf(op->getLoc());
    ++stats.perLayer[layer];
    std::string &names = stats.layerKernels[layer];
    names += (names.empty() ? "" : ", ") + shortName(op);
  });
  return stats;
}

void shardc::printFusionReport(raw_ostream &os,
                               const std::map<std::string, unsigned> &gb,
                               const std::map<std::string, unsigned> &ga,
                               const KernelStats &before,
                               const KernelStats &after) {
  os << "fusion report\n";
  os << "  graph ops per kind (before -> after):\n";
  std::set<std::string> kinds;
  for (auto &[k, n] : gb)
    kinds.insert(k);
  for (auto &[k, n] : ga)
    kinds.insert(k);
  for (const std::string &k : kinds) {
    unsigned b = gb.count(k) ? gb.at(k) : 0, a = ga.count(k) ? ga.at(k) : 0;
    if (a != b)
      os << llvm::format("    %-20s %5u -> %u\n", k.c_str(), b, a);
  }
  unsigned same = 0;
  for (const std::string &k : kinds)
    same += (gb.count(k) ? gb.at(k) : 0) == (ga.count(k) ? ga.at(k) : 0);
  os << "    (" << same << " other kinds unchanged)\n";
  os << llvm::format("  kernels: %u -> %u (generated %u -> %u, library calls "
                     "%u -> %u)\n",
                     before.generated + before.library,
                     after.generated + after.library, before.generated,
                     after.generated, before.library, after.library);
  os << llvm::format("  estimated bytes moved per run: %.2f MB -> %.2f MB\n",
                     before.bytes / 1e6, after.bytes / 1e6);
  os << "  kernels per layer (before -> after):\n";
  for (auto &[layer, n] : after.perLayer) {
    unsigned b = before.perLayer.count(layer) ? before.perLayer.at(layer) : 0;
    os << llvm::format("    %-24s %4u -> %u", layer.empty() ? "(outside layers)"
                                                             : layer.c_str(),
                       b, n);
    if (!layer.empty())
      os << ": " << after.layerKernels.at(layer);
    os << "\n";
  }
}
