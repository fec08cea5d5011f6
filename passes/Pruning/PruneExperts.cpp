//===- PruneExperts.cpp - graph-prune-experts -----------------------------===//
//
// Removes the experts of each mixture-of-experts layer that the
// calibration samples route (almost) no tokens to (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Pruning/Passes.h"
#include "passes/Pruning/Prune.h"

#include <numeric>

namespace shardc {
#define GEN_PASS_DEF_GRAPHPRUNEEXPERTS
#include "passes/Pruning/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using namespace shardc::prune;

namespace {

struct GraphPruneExpertsPass
    : shardc::impl::GraphPruneExpertsBase<GraphPruneExpertsPass> {
  using GraphPruneExpertsBase::GraphPruneExpertsBase;
  void runOnOperation() override;
};

/// The experts of one layer that stay: those whose share of the layer's
/// routed choices is above `share` (0: every expert routed to at all), and
/// the most loaded of the others until `atLeast` stay.
SmallVector<int64_t> keptExperts(ArrayRef<int64_t> loads, double share,
                                 int64_t atLeast) {
  int64_t total = std::accumulate(loads.begin(), loads.end(), int64_t(0));
  SmallVector<int64_t> keep, rest;
  for (auto [e, load] : llvm::enumerate(loads))
    (static_cast<double>(load) > share * static_cast<double>(total) && load > 0
         ? keep
         : rest)
        .push_back(static_cast<int64_t>(e));
  llvm::stable_sort(rest,
                    [&](int64_t a, int64_t b) { return loads[a] > loads[b]; });
  for (int64_t e : rest) {
    if (static_cast<int64_t>(keep.size()) >= atLeast)
      break;
    keep.push_back(e);
  }
  llvm::sort(keep);
  return keep;
}

} // namespace

void GraphPruneExpertsPass::runOnOperation() {
  func::FuncOp func = getOperation();
  std::vector<MoeLayer> layers = findMoeLayers(func);
  if (layers.empty())
    return;
  int64_t need = 0;
  for (const MoeLayer &l : layers)
    need += l.experts;
  if (static_cast<int64_t>(expertLoads.size()) != need) {
    func.emitError() << "graph-prune-experts: the calibration routed "
                     << expertLoads.size() << " expert loads, but the "
                     << layers.size() << " mixture-of-experts layers have "
                     << need << " experts";
    return signalPassFailure();
  }
  int64_t offset = 0, removed = 0;
  for (MoeLayer &layer : layers) {
    ArrayRef<int64_t> loads =
        ArrayRef<int64_t>(expertLoads).slice(offset, layer.experts);
    offset += layer.experts;
    SmallVector<int64_t> keep = keptExperts(loads, share, layer.moe.getTopK());
    int64_t drop = layer.experts - static_cast<int64_t>(keep.size());
    if (!drop)
      continue;
    if (failed(keepExperts(layer, keep))) {
      layer.moe.emitRemark()
          << "graph-prune-experts: " << drop
          << " experts of this layer are rarely routed, but its router is "
             "not one the pass can narrow; kept";
      continue;
    }
    removed += drop;
  }
  numExperts += removed;
  recordPruned(func, 0, 0, 0, removed);
  if (removed)
    func.emitRemark() << "graph-prune-experts: removed " << removed
                      << " experts";
}
