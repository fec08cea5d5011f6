//===- PruneCalibrated.cpp - graph-prune ----------------------------------===//
//
// FLAP's structured pruning from calibration statistics (Passes.td): the
// fluctuation of each input channel of a second projection times its weight
// row's squared norm, standardized per layer, ranked across layers, with
// the removed channels' mean contribution added to the bias.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Quantize.h"
#include "passes/Pruning/Passes.h"
#include "passes/Pruning/Prune.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shardc {
#define GEN_PASS_DEF_GRAPHPRUNE
#include "passes/Pruning/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using namespace shardc::prune;

namespace {

struct GraphPrunePass : shardc::impl::GraphPruneBase<GraphPrunePass> {
  using GraphPruneBase::GraphPruneBase;
  void runOnOperation() override;
};

/// An activation's channel means and mean squares over the samples.
struct Moments {
  std::vector<double> mean, meanSquare;
};

/// Reads "mean" and "meansq" of every activation of the driver's
/// statistics file; an error message on failure.
std::optional<std::string> readMoments(StringRef path,
                                       std::vector<Moments> &out) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return "cannot read " + path.str() + ": " + buf.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buf)->getBuffer());
  if (!json)
    return path.str() + ": " + llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *acts =
      root ? root->getArray("activations") : nullptr;
  if (!acts)
    return path.str() + ": no \"activations\" array";
  auto numbers = [](const llvm::json::Array *a, std::vector<double> &v) {
    if (!a)
      return false;
    for (const llvm::json::Value &e : *a) {
      std::optional<double> d = e.getAsNumber();
      if (!d)
        return false;
      v.push_back(*d);
    }
    return true;
  };
  for (auto [i, a] : llvm::enumerate(*acts)) {
    const llvm::json::Object *o = a.getAsObject();
    Moments m;
    if (!o || !numbers(o->getArray("mean"), m.mean) ||
        !numbers(o->getArray("meansq"), m.meanSquare) ||
        m.mean.size() != m.meanSquare.size())
      return path.str() + ": activation " + std::to_string(i) +
             " needs \"mean\" and \"meansq\" of one length";
    out.push_back(std::move(m));
  }
  return std::nullopt;
}

/// One prunable layer: its units' (channels' or heads') scores, and how
/// many of them it removes.
struct Layer {
  std::vector<double> scores;
  int64_t remove = 0;
};

/// FLAP's adaptive structure: the scores standardized per layer, ranked
/// across layers, the `fraction` lowest removed; then each layer's count
/// rounded so that what it keeps is a multiple of `multiple` (at least one
/// multiple).
void chooseCounts(std::vector<Layer> &layers, double fraction,
                  int64_t multiple) {
  struct Unit {
    double z;
    size_t layer;
  };
  std::vector<Unit> units;
  int64_t total = 0;
  for (auto [l, layer] : llvm::enumerate(layers)) {
    const std::vector<double> &s = layer.scores;
    double mean = std::accumulate(s.begin(), s.end(), 0.0) / s.size();
    double var = 0;
    for (double x : s)
      var += (x - mean) * (x - mean);
    double sd = std::sqrt(var / s.size());
    for (double x : s)
      units.push_back({sd > 0 ? (x - mean) / sd : 0.0, l});
    total += static_cast<int64_t>(s.size());
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const Unit &a, const Unit &b) { return a.z < b.z; });
  auto goal = static_cast<int64_t>(std::llround(fraction * total));
  for (int64_t i = 0; i < goal && i < static_cast<int64_t>(units.size()); ++i)
    ++layers[units[i].layer].remove;
  for (Layer &layer : layers) {
    auto n = static_cast<int64_t>(layer.scores.size());
    int64_t m = std::min(multiple, n);
    int64_t kept = n - layer.remove;
    kept = std::max(m, (kept + m / 2) / m * m);
    layer.remove = n - std::min(kept, n);
  }
}

/// The indices of `scores` without the `remove` lowest, ascending.
SmallVector<int64_t> kept(const std::vector<double> &scores, int64_t remove) {
  SmallVector<int64_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return scores[a] < scores[b];
  });
  SmallVector<int64_t> keep(order.begin() + remove, order.end());
  llvm::sort(keep);
  return keep;
}

/// var(x_j) * ||W[j, :]||^2 for every row j of the [n, m] weight `w`.
std::vector<double> fluctuation(const Moments &x, const graph::HostTensor &w,
                                int64_t n, int64_t m) {
  std::vector<double> s(n);
  for (int64_t j = 0; j < n; ++j) {
    double norm = 0;
    for (int64_t i = 0; i < m; ++i)
      norm += w.f(j * m + i) * w.f(j * m + i);
    double var = std::max(0.0, x.meanSquare[j] - x.mean[j] * x.mean[j]);
    s[j] = var * norm;
  }
  return s;
}

/// sum over the removed rows j of mean(x_j) * W[j, :] (FLAP's bias
/// compensation).
std::vector<double> compensation(const Moments &x, const graph::HostTensor &w,
                                 int64_t n, int64_t m,
                                 ArrayRef<int64_t> keptRows) {
  std::vector<bool> stays(n, false);
  for (int64_t j : keptRows)
    stays[j] = true;
  std::vector<double> shift(m, 0.0);
  for (int64_t j = 0; j < n; ++j)
    if (!stays[j])
      for (int64_t i = 0; i < m; ++i)
        shift[i] += x.mean[j] * w.f(j * m + i);
  return shift;
}

void GraphPrunePass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (ffn <= 0 && heads <= 0)
    return;
  if (ffn >= 1 || heads >= 1 || ffn < 0 || heads < 0 || channelMultiple < 1 ||
      headMultiple < 1) {
    func.emitError("graph-prune: ffn and heads are fractions in [0, 1), the "
                   "multiples at least 1");
    return signalPassFailure();
  }
  if (stats.empty()) {
    func.emitError("graph-prune: structured pruning needs calibration "
                   "statistics (--calibration=DIR)");
    return signalPassFailure();
  }
  std::vector<Moments> moments;
  if (std::optional<std::string> err = readMoments(stats, moments)) {
    func.emitError(*err);
    return signalPassFailure();
  }
  // The statistics are per activation of the int8 passes' order.
  DenseMap<Value, size_t> index;
  for (auto [i, g] : llvm::enumerate(quant::quantizableGroups(func, false)))
    index[g.activation] = i;
  auto momentsOf = [&](Value activation,
                       int64_t channels) -> const Moments * {
    auto it = index.find(activation);
    if (it == index.end() || it->second >= moments.size() ||
        static_cast<int64_t>(moments[it->second].mean.size()) != channels)
      return nullptr;
    return &moments[it->second];
  };

  if (ffn > 0) {
    std::vector<Mlp> mlps;
    std::vector<const Moments *> xs;
    std::vector<graph::HostTensor> w2s;
    std::vector<Layer> layers;
    for (Mlp &mlp : findMlps(func)) {
      const Moments *x = momentsOf(mlp.up.getResult(), mlp.channels);
      std::optional<graph::HostTensor> w2 = readF32(mlp.down.getB());
      if (!x || !w2)
        continue;
      int64_t m = cast<ShapedType>(mlp.down.getB().getType()).getDimSize(1);
      layers.push_back({fluctuation(*x, *w2, mlp.channels, m)});
      mlps.push_back(mlp);
      xs.push_back(x);
      w2s.push_back(std::move(*w2));
    }
    if (mlps.empty()) {
      func.emitError("graph-prune: ffn=") << ffn.getValue()
          << ": the model has no MLP whose channels prune removes (two "
             "f32 projections by constant weights, the first read by the "
             "second only)";
      return signalPassFailure();
    }
    chooseCounts(layers, ffn, channelMultiple);
    for (size_t l = 0; l < mlps.size(); ++l) {
      if (!layers[l].remove)
        continue;
      int64_t n = mlps[l].channels;
      int64_t m = cast<ShapedType>(mlps[l].down.getB().getType()).getDimSize(1);
      SmallVector<int64_t> keep = kept(layers[l].scores, layers[l].remove);
      std::vector<double> shift = compensation(*xs[l], w2s[l], n, m, keep);
      (void)keepChannels(mlps[l], keep, shift);
      numChannels += layers[l].remove;
    }
  }

  if (heads > 0) {
    std::vector<HeadBlock> blocks;
    std::vector<const Moments *> xs;
    std::vector<graph::HostTensor> wos;
    std::vector<Layer> layers;
    for (HeadBlock &h : findHeadBlocks(func)) {
      int64_t width = h.heads * h.headDim;
      const Moments *x = momentsOf(h.merge.getResult(), width);
      std::optional<graph::HostTensor> wo = readF32(h.out.getB());
      if (!x || !wo)
        continue;
      int64_t m = cast<ShapedType>(h.out.getB().getType()).getDimSize(1);
      std::vector<double> rows = fluctuation(*x, *wo, width, m);
      Layer layer;
      for (int64_t head = 0; head < h.heads; ++head)
        layer.scores.push_back(std::accumulate(
            rows.begin() + head * h.headDim,
            rows.begin() + (head + 1) * h.headDim, 0.0));
      layers.push_back(std::move(layer));
      blocks.push_back(h);
      xs.push_back(x);
      wos.push_back(std::move(*wo));
    }
    if (blocks.empty()) {
      func.emitError("graph-prune: heads=") << heads.getValue()
          << ": the model has no attention whose heads prune removes "
             "(separate q, k and v projections by constant f32 weights, "
             "one head size; fused QKV and grouped-query attention are not "
             "pruned yet)";
      return signalPassFailure();
    }
    chooseCounts(layers, heads, headMultiple);
    for (size_t l = 0; l < blocks.size(); ++l) {
      if (!layers[l].remove)
        continue;
      int64_t d = blocks[l].headDim, width = blocks[l].heads * d;
      int64_t m = cast<ShapedType>(blocks[l].out.getB().getType()).getDimSize(1);
      SmallVector<int64_t> keep = kept(layers[l].scores, layers[l].remove);
      SmallVector<int64_t> rows;
      for (int64_t head : keep)
        for (int64_t i = 0; i < d; ++i)
          rows.push_back(head * d + i);
      std::vector<double> shift = compensation(*xs[l], wos[l], width, m, rows);
      (void)keepHeads(blocks[l], keep, shift);
      numHeads += layers[l].remove;
    }
  }
}

} // namespace
