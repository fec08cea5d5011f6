//===- PruneLossless.cpp - graph-prune-lossless ---------------------------===//
//
// Removes the MLP channels and attention heads whose weights make them
// contribute nothing or a constant (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Pruning/Passes.h"
#include "passes/Pruning/Prune.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHPRUNELOSSLESS
#include "passes/Pruning/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using namespace shardc::prune;

namespace {

struct GraphPruneLosslessPass
    : shardc::impl::GraphPruneLosslessBase<GraphPruneLosslessPass> {
  void runOnOperation() override;
};

/// Whether W[r, c] is zero for every r in [r0, r1) and c in [c0, c1) of the
/// row-major [*, n] tensor `w`.
bool zeroBlock(const F32Data &w, int64_t n, int64_t r0, int64_t r1, int64_t c0,
               int64_t c1) {
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = c0; c < c1; ++c)
      if (w.f(r * n + c) != 0)
        return false;
  return true;
}

/// A gated MLP's channel is silent when its down row is zero, or its gate
/// or its up column and bias are (silu(0) = 0, and 0 times anything).
void pruneGatedMlp(Mlp &mlp, int64_t &removed) {
  F32Data w2 = weightData(mlp.down.weight());
  int64_t n = mlp.channels;
  int64_t m = cast<ShapedType>(mlp.down.weight().getType()).getDimSize(1);
  std::vector<bool> silent(n, false);
  for (int64_t j = 0; j < n; ++j)
    silent[j] = zeroBlock(w2, m, j, j + 1, 0, m);
  for (Projection p : {mlp.gate, mlp.up}) {
    F32Data w = weightData(p.weight());
    std::optional<F32Data> bias = biasData(p.bias());
    int64_t k = cast<ShapedType>(p.weight().getType()).getDimSize(0);
    for (int64_t j = 0; j < n; ++j)
      silent[j] = silent[j] || (zeroBlock(w, n, 0, k, j, j + 1) &&
                                (!bias || bias->f(j) == 0));
  }
  SmallVector<int64_t> keep;
  for (int64_t j = 0; j < n; ++j)
    if (!silent[j])
      keep.push_back(j);
  if (keep.empty())
    keep.push_back(0);
  if (static_cast<int64_t>(keep.size()) == n)
    return;
  removed += n - static_cast<int64_t>(keep.size());
  (void)keepChannels(mlp, keep, {});
}

/// The MLP's channels that stay, and the constant the others add to the
/// second projection's output.
void pruneMlp(Mlp &mlp, int64_t &removed) {
  if (mlp.swiglu)
    return pruneGatedMlp(mlp, removed);
  F32Data w1 = weightData(mlp.up.weight()), w2 = weightData(mlp.down.weight());
  std::optional<F32Data> b1 = biasData(mlp.up.bias());
  int64_t k = cast<ShapedType>(mlp.up.weight().getType()).getDimSize(0);
  int64_t n = mlp.channels;
  int64_t m = cast<ShapedType>(mlp.down.weight().getType()).getDimSize(1);
  // Each channel: read through zeros (silent), the constant act(b1[j])
  // whatever the input (constant), or kept.
  enum class Kind { Kept, Silent, Constant };
  std::vector<Kind> kinds(n, Kind::Kept);
  for (int64_t j = 0; j < n; ++j) {
    if (zeroBlock(w2, m, j, j + 1, 0, m))
      kinds[j] = Kind::Silent;
    else if (zeroBlock(w1, n, 0, k, j, j + 1))
      kinds[j] = Kind::Constant;
  }
  if (llvm::none_of(kinds, [](Kind c) { return c == Kind::Kept; }))
    kinds[0] = Kind::Kept; // no empty tensors: one channel stays
  SmallVector<int64_t> keep;
  std::vector<double> shift(m, 0.0);
  bool shifted = false;
  for (int64_t j = 0; j < n; ++j) {
    if (kinds[j] == Kind::Kept)
      keep.push_back(j);
    if (kinds[j] != Kind::Constant)
      continue;
    double c = activate(mlp.up.activation(), b1 ? b1->f(j) : 0.0);
    for (int64_t i = 0; i < m && c != 0; ++i) {
      shift[i] += c * w2.f(j * m + i);
      shifted = true;
    }
  }
  if (static_cast<int64_t>(keep.size()) == n)
    return;
  removed += n - static_cast<int64_t>(keep.size());
  (void)keepChannels(mlp, keep,
                     shifted ? ArrayRef<double>(shift) : ArrayRef<double>());
}

void pruneHeads(HeadBlock &h, int64_t &removed) {
  F32Data wo = weightData(h.out.weight()), wv = weightData(h.proj[2].weight());
  std::optional<F32Data> bv = biasData(h.proj[2].bias());
  int64_t d = h.headDim, width = h.heads * d;
  int64_t m = cast<ShapedType>(h.out.weight().getType()).getDimSize(1);
  int64_t k = cast<ShapedType>(h.proj[2].weight().getType()).getDimSize(0);
  // The value columns: the projection's own, or the third part of a
  // fused QKV projection's.
  // Under grouped-query attention a value head serves G query heads: a
  // group goes when all of its query heads are silent or its values are 0.
  int64_t g = h.group(), kvWidth = width / g;
  int64_t at = h.split ? 2 * width : 0, columns = h.split ? 3 * width : kvWidth;
  SmallVector<int64_t> keep;
  for (int64_t group = 0; group < h.heads / g; ++group) {
    int64_t c0 = group * d, c1 = c0 + d;
    bool silent = zeroBlock(wo, m, group * g * d, (group + 1) * g * d, 0, m);
    bool zeroValues = zeroBlock(wv, columns, 0, k, at + c0, at + c1) &&
                      (!bv || zeroBlock(*bv, columns, 0, 1, at + c0, at + c1));
    if (!silent && !zeroValues)
      for (int64_t j = 0; j < g; ++j)
        keep.push_back(group * g + j);
  }
  if (keep.empty())
    for (int64_t j = 0; j < g; ++j)
      keep.push_back(j);
  if (static_cast<int64_t>(keep.size()) == h.heads)
    return;
  removed += h.heads - static_cast<int64_t>(keep.size());
  (void)keepHeads(h, keep, {});
}

/// A channel between two convolutions is silent when the second reads it
/// through zero filters; with zero filters of its own it is the constant
/// act(b[c]), which an unpadded second convolution adds as act(b[c]) times
/// the sum of its filters over c (with padding, the borders would differ:
/// kept).
void pruneConvChannels(ConvPair &pair, int64_t &removed) {
  F32Data w1 = weightData(convWeight(pair.first)),
          w2 = weightData(convWeight(pair.second));
  std::optional<F32Data> b1 = biasData(convBias(pair.first));
  auto t1 = cast<ShapedType>(convWeight(pair.first).getType());
  auto t2 = cast<ShapedType>(convWeight(pair.second).getType());
  int64_t c = pair.channels, cout = t2.getDimSize(0);
  int64_t per1 = t1.getNumElements() / c;            // one filter of the first
  int64_t window = t2.getNumElements() / (cout * c); // one (o, c) kernel
  bool unpadded =
      llvm::all_of(convPads(pair.second), [](int64_t p) { return p == 0; });
  StringRef act = convActivation(pair.first);
  bool knownAct = act == "none" || act == "relu";
  std::vector<double> shift(cout, 0.0);
  bool shifted = false;
  SmallVector<int64_t> keep;
  for (int64_t ch = 0; ch < c; ++ch) {
    bool silent = true;
    for (int64_t o = 0; o < cout && silent; ++o)
      silent = zeroBlock(w2, 1, (o * c + ch) * window,
                         (o * c + ch + 1) * window, 0, 1);
    if (silent)
      continue;
    if (unpadded && knownAct &&
        zeroBlock(w1, 1, ch * per1, (ch + 1) * per1, 0, 1)) {
      double v = activate(act, b1 ? b1->f(ch) : 0.0);
      for (int64_t o = 0; o < cout && v != 0; ++o) {
        double sum = 0;
        for (int64_t i = 0; i < window; ++i)
          sum += w2.f((o * c + ch) * window + i);
        shift[o] += v * sum;
        shifted = true;
      }
      continue;
    }
    keep.push_back(ch);
  }
  if (keep.empty() || static_cast<int64_t>(keep.size()) == c)
    return; // all of them: left for a later version (no empty tensors)
  removed += c - static_cast<int64_t>(keep.size());
  (void)keepConvChannels(
      pair, keep, shifted ? ArrayRef<double>(shift) : ArrayRef<double>());
}

void GraphPruneLosslessPass::runOnOperation() {
  int64_t channels = 0, heads = 0;
  for (Mlp &mlp : findMlps(getOperation()))
    pruneMlp(mlp, channels);
  for (HeadBlock &h : findHeadBlocks(getOperation()))
    pruneHeads(h, heads);
  int64_t convChannels = 0;
  for (ConvPair &pair : findConvPairs(getOperation()))
    pruneConvChannels(pair, convChannels);
  numChannels += channels + convChannels;
  numHeads += heads;
  recordPruned(getOperation(), channels, heads, convChannels);
  if (channels || heads || convChannels)
    getOperation().emitRemark()
        << "graph-prune-lossless: removed " << channels << " MLP channels, "
        << convChannels << " convolution channels and " << heads
        << " attention heads that contribute nothing or a constant";
}

} // namespace
