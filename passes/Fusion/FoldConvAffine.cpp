//===- FoldConvAffine.cpp - the graph-fold-conv-affine pass ---------------===//
//
// A convolution followed by a per-output-channel affine map is one
// convolution with other weights (ONNX Runtime's Conv+BatchNormalization,
// Conv+Mul and Conv+Add fusions):
//
//   batch_norm(conv(x, W, b))   W' = W s,  b' = (b - mean) s + beta,
//                               s = gamma / sqrt(var + eps)
//   conv(x, W, b) * c           W' = W c,  b' = b c
//   conv(x, W, b) + c           b' = b + c
//
// per output channel, when the convolution's only user is that op, W (and
// b) are f32 constants, and c is a constant that broadcasts along the
// output channels only (a scalar, [1], [C, 1, 1] or [1, C, 1, 1]). A QDQ
// model's weight, an int8 constant dequantized per output channel or per
// tensor, folds too: the scale goes into its dequantization scales (the
// int8 values stay for graph-fold-qdq), and a bias dequantized from int32
// becomes an f32 constant. The
// folded weights are computed at compile time; the result differs from
// the unfolded one by rounding only. Chains fold one op at a time (Paddle's
// learnable affine blocks: conv, batch norm, then a scale and a shift),
// leaving a convolution whose activation graph-fuse-epilogues can take.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/Passes.h"

#include "dialects/Graph/IR/ConstantEval.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <cstring>

namespace shardc {
#define GEN_PASS_DEF_GRAPHFOLDCONVAFFINE
#include "passes/Fusion/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// Weights larger than this many elements are left unfolded.
constexpr int64_t kMaxFoldElements = int64_t(1) << 24;

/// The f32 values of a graph.constant, or none.
std::optional<graph::HostTensor> f32Values(Value v) {
  if (!cast<ShapedType>(v.getType()).getElementType().isF32())
    return std::nullopt;
  return graph::constantElements(v, kMaxFoldElements);
}

/// The per-channel values of constant `v` that broadcasts against a conv
/// output of rank `rank` with `channels` channels along dim 1 only.
std::optional<SmallVector<double>> perChannel(Value v, int64_t rank,
                                              int64_t channels) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() > rank)
    return std::nullopt;
  int64_t lead = rank - type.getRank(), along = 1;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t size = type.getDimSize(d);
    if (size == 1)
      continue;
    if (d + lead != 1 || size != channels)
      return std::nullopt;
    along = size;
  }
  std::optional<graph::HostTensor> t = f32Values(v);
  if (!t || t->numel() != along)
    return std::nullopt;
  SmallVector<double> out(channels);
  for (int64_t c = 0; c < channels; ++c)
    out[c] = t->f(along == 1 ? 0 : c);
  return out;
}

/// The values of a [C] constant (batch norm's parameters).
std::optional<SmallVector<double>> channelVector(Value v, int64_t channels) {
  std::optional<graph::HostTensor> t = f32Values(v);
  if (!t || t->dims.size() != 1 || t->numel() != channels)
    return std::nullopt;
  SmallVector<double> out(channels);
  for (int64_t c = 0; c < channels; ++c)
    out[c] = t->f(c);
  return out;
}

/// A new f32 constant of `type` holding `values`, named after `like`.
Value f32Constant(PatternRewriter &rewriter, Location loc,
                  RankedTensorType type, ArrayRef<double> values,
                  Value like) {
  auto c = like ? like.getDefiningOp<graph::ConstantOp>() : nullptr;
  std::string key =
      graph::derivedKey(c ? c.getValue() : Attribute(), ".folded", "folded");
  ElementsAttr attr = graph::elementsFromBytes(
      type, key, [&](MutableArrayRef<char> out) {
        if (out.size() != values.size() * sizeof(float))
          return false;
        for (size_t i = 0; i < values.size(); ++i) {
          float f = static_cast<float>(values[i]);
          std::memcpy(out.data() + i * sizeof(float), &f, sizeof(float));
        }
        return true;
      });
  if (!attr)
    return {};
  return rewriter.create<graph::ConstantOp>(loc, attr);
}

/// The per-output-channel scales of a dequantized convolution weight:
/// dequantize_linear(Wq, sw, 0) with Wq a constant int8 weight and sw one
/// scale or one per output channel (axis 0).
bool quantizedWeight(graph::DequantizeLinearOp dq, int64_t channels,
                     SmallVector<double> &scales) {
  auto in =
      dyn_cast<IntegerType>(getElementTypeOrSelf(dq.getInput().getType()));
  if (!in || in.getWidth() != 8 ||
      !dq.getInput().getDefiningOp<graph::ConstantOp>())
    return false;
  std::optional<graph::HostTensor> sw = f32Values(dq.getScale());
  std::optional<graph::HostTensor> zw =
      graph::constantElements(dq.getZeroPoint(), kMaxFoldElements);
  if (!sw || !zw ||
      (sw->numel() != 1 && (sw->numel() != channels || dq.getAxis() != 0)))
    return false;
  for (int64_t i = 0; i < zw->numel(); ++i)
    if (zw->i(i) != 0)
      return false;
  scales.assign(channels, 0.0);
  for (int64_t c = 0; c < channels; ++c)
    scales[c] = sw->f(sw->numel() == 1 ? 0 : c);
  return true;
}

/// A convolution's bias values: an f32 constant of `channels`, or an int32
/// one dequantized (a QDQ model's bias at the product's scale).
std::optional<SmallVector<double>> biasValues(Value b, int64_t channels) {
  SmallVector<double> out(channels);
  if (std::optional<graph::HostTensor> bv = f32Values(b)) {
    if (bv->numel() != channels)
      return std::nullopt;
    for (int64_t c = 0; c < channels; ++c)
      out[c] = bv->f(c);
    return out;
  }
  auto dq = b.getDefiningOp<graph::DequantizeLinearOp>();
  if (!dq)
    return std::nullopt;
  std::optional<graph::HostTensor> q =
      graph::constantElements(dq.getInput(), kMaxFoldElements);
  std::optional<graph::HostTensor> s = f32Values(dq.getScale());
  std::optional<graph::HostTensor> z =
      graph::constantElements(dq.getZeroPoint(), kMaxFoldElements);
  if (!q || !s || !z || q->isFloat() || q->numel() != channels ||
      (s->numel() != 1 && s->numel() != channels) || z->numel() != s->numel())
    return std::nullopt;
  for (int64_t c = 0; c < channels; ++c) {
    int64_t k = s->numel() == 1 ? 0 : c;
    out[c] = double(q->i(c) - z->i(k)) * s->f(k);
  }
  return out;
}

/// Folds `op` (a batch_norm, mul or add of a conv) into the conv.
struct FoldIntoConv : RewritePattern {
  FoldIntoConv(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<graph::BatchNormOp, graph::MulOp, graph::AddOp>(op))
      return failure();
    // The conv operand and the other one.
    graph::ConvOp conv;
    Value other;
    for (unsigned i = 0; i < (isa<graph::BatchNormOp>(op) ? 1u : 2u); ++i)
      if (auto c = op->getOperand(i).getDefiningOp<graph::ConvOp>();
          c && !conv) {
        conv = c;
        other = isa<graph::BatchNormOp>(op) ? Value() : op->getOperand(1 - i);
      }
    if (!conv || !conv->hasOneUse() ||
        op->getResult(0).getType() != conv.getType())
      return failure();
    auto outType = cast<RankedTensorType>(conv.getType());
    auto wType = cast<RankedTensorType>(conv.getWeight().getType());
    if (outType.getRank() < 3 || !outType.getElementType().isF32())
      return failure();
    int64_t channels = outType.getDimSize(1);
    if (wType.getDimSize(0) != channels)
      return failure();
    // The weight: an f32 constant, or an int8 one dequantized per output
    // channel or per tensor (a QDQ model's), whose scales take the fold.
    std::optional<graph::HostTensor> w = f32Values(conv.getWeight());
    SmallVector<double> wScales;
    auto dq = conv.getWeight().getDefiningOp<graph::DequantizeLinearOp>();
    if (!w && !(dq && quantizedWeight(dq, channels, wScales)))
      return failure();
    SmallVector<double> bias(channels, 0.0);
    if (Value b = conv.getBias()) {
      std::optional<SmallVector<double>> bv = biasValues(b, channels);
      if (!bv)
        return failure();
      bias = *bv;
    }
    // Per channel: W' = W scale, b' = b scale + shift.
    SmallVector<double> scale(channels, 1.0), shift(channels, 0.0);
    if (auto bn = dyn_cast<graph::BatchNormOp>(op)) {
      auto gamma = channelVector(bn.getScale(), channels);
      auto beta = channelVector(bn.getBias(), channels);
      auto mean = channelVector(bn.getMean(), channels);
      auto var = channelVector(bn.getVariance(), channels);
      if (!gamma || !beta || !mean || !var)
        return failure();
      double eps = bn.getEpsilon().convertToDouble();
      for (int64_t c = 0; c < channels; ++c) {
        scale[c] = (*gamma)[c] / std::sqrt((*var)[c] + eps);
        shift[c] = (*beta)[c] - (*mean)[c] * scale[c];
      }
    } else {
      auto c = perChannel(other, outType.getRank(), channels);
      if (!c)
        return failure();
      if (isa<graph::MulOp>(op))
        scale = *c;
      else
        shift = *c;
    }
    SmallVector<double> nb(channels);
    for (int64_t c = 0; c < channels; ++c)
      nb[c] = bias[c] * scale[c] + shift[c];
    Location loc = op->getLoc();
    Value weight;
    auto channelType = RankedTensorType::get({channels}, rewriter.getF32Type());
    if (w) {
      int64_t per = w->numel() / channels;
      SmallVector<double> nw(w->numel());
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t i = 0; i < per; ++i)
          nw[c * per + i] = w->f(c * per + i) * scale[c];
      weight = f32Constant(rewriter, loc, wType, nw, conv.getWeight());
    } else {
      // Dequantized: the int8 values stay, the scales become per channel.
      SmallVector<double> ns(channels);
      for (int64_t c = 0; c < channels; ++c)
        ns[c] = wScales[c] * scale[c];
      Value sv = f32Constant(rewriter, loc, channelType, ns, dq.getScale());
      auto zType = RankedTensorType::get(
          {channels}, getElementTypeOrSelf(dq.getInput().getType()));
      Value zero = rewriter.create<graph::ConstantOp>(
          loc, DenseElementsAttr::get(
                   zType, rewriter.getIntegerAttr(zType.getElementType(), 0)));
      if (sv)
        weight = rewriter.create<graph::DequantizeLinearOp>(
            loc, wType, dq.getInput(), sv, zero, rewriter.getI64IntegerAttr(0));
    }
    Value b = f32Constant(
        rewriter, loc,
        RankedTensorType::get({channels}, rewriter.getF32Type()), nb,
        conv.getBias());
    if (!weight || !b)
      return failure();
    auto folded = rewriter.create<graph::ConvOp>(
        conv.getLoc(), outType, conv.getInput(), weight, b,
        conv.getStridesAttr(), conv.getDilationsAttr(), conv.getPadsAttr(),
        conv.getGroupAttr());
    rewriter.replaceOp(op, folded.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

struct GraphFoldConvAffinePass
    : shardc::impl::GraphFoldConvAffineBase<GraphFoldConvAffinePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoConv>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
