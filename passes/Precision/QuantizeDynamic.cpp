//===- QuantizeDynamic.cpp - the graph-quantize-dynamic pass ---------------===//
//
// Dynamic int8 quantization of the linear layers (`--quantize=int8-dynamic`,
// issue 30): W8A8 with the weights quantized once, here, and the
// activations at run time.
//
// A graph.linear whose weight is a constant [K, N] f32 matrix becomes:
//
//   s    = max(reduce_max(|x|, last axis), tiny) / 127      per token
//   xq   = quantize_linear(x / s, 1, 0)                     int8, symmetric
//   y    = linear_int8(xq, Wq, s, ws, bias, residual, act)
//        = act((xq x Wq) * s * ws + bias) + residual        f32
//
// graph.linear_int8 is one oneDNN int8 matmul (kern.matmul_int8): the
// int32 product scaled and the epilogue applied in its store.
//
// with Wq = round(W / ws) and ws = max|W[:, n]| / 127 per output column
// (per-channel symmetric, as ONNX Runtime's per_channel option and
// oneDNN's int8 matmul take them). The products are exact in int32 (K <
// 2^17 keeps |acc| below 2^31); the error is the two roundings. Per-token
// activation scales follow the rows' ranges (a transformer's tokens differ
// by orders of magnitude), where a per-tensor scale (ONNX Runtime's
// DynamicQuantizeLinear) gives the smallest tokens few levels.
//
// Left in floating point: products with no constant weight (attention's
// QK^T and PV), weights of other ranks than 2, and anything not in f32.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Passes.h"

#include "dialects/Graph/IR/ConstantEval.h"

#include <cmath>
#include <cstring>

namespace shardc {
#define GEN_PASS_DEF_GRAPHQUANTIZEDYNAMIC
#include "passes/Precision/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// Weights with more elements than this stay in floating point (reading
/// them as doubles costs 8 bytes per element at compile time).
constexpr int64_t kMaxWeightElements = int64_t(1) << 26;

/// The smallest scale: an all-zero token quantizes to zeros, not NaN.
constexpr float kTinyScale = 1e-30f;

/// Per-column symmetric int8 weights of a [K, N] f32 constant: the int8
/// matrix and the N scales.
struct QuantizedWeight {
  Value q, scales;
};

std::optional<QuantizedWeight> quantizeWeight(OpBuilder &b, Location loc,
                                              Value w) {
  auto c = w.getDefiningOp<graph::ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(w.getType());
  if (!c || c->hasAttr(graph::kSourceAttr) || !type || type.getRank() != 2 ||
      !type.getElementType().isF32() ||
      type.getNumElements() > kMaxWeightElements)
    return std::nullopt;
  auto attr = dyn_cast<ElementsAttr>(c.getValue());
  if (!attr || graph::isShapeOnly(attr))
    return std::nullopt;
  std::optional<graph::HostTensor> t =
      graph::readElements(attr, kMaxWeightElements);
  if (!t)
    return std::nullopt;
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  std::vector<float> scales(n, 0.0f);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      scales[j] = std::max(scales[j],
                           static_cast<float>(std::fabs(t->f(i * n + j))));
  for (float &s : scales)
    s = s > 0 ? s / 127.0f : 1.0f;
  auto qType = RankedTensorType::get({k, n}, b.getIntegerType(8));
  ElementsAttr q = graph::elementsFromBytes(
      qType, graph::derivedKey(attr, ".int8", "int8"),
      [&](MutableArrayRef<char> out) {
        if (static_cast<int64_t>(out.size()) != k * n)
          return false;
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double v = std::nearbyint(t->f(i * n + j) / scales[j]);
            out[i * n + j] = static_cast<char>(
                static_cast<int8_t>(std::clamp(v, -127.0, 127.0)));
          }
        return true;
      });
  auto sType = RankedTensorType::get({n}, b.getF32Type());
  ElementsAttr s = graph::elementsFromBytes(
      sType, graph::derivedKey(attr, ".scales", "scales"),
      [&](MutableArrayRef<char> out) {
        if (out.size() != scales.size() * sizeof(float))
          return false;
        std::memcpy(out.data(), scales.data(), out.size());
        return true;
      });
  if (!q || !s)
    return std::nullopt;
  return QuantizedWeight{b.create<graph::ConstantOp>(loc, q),
                         b.create<graph::ConstantOp>(loc, s)};
}

Value scalar(OpBuilder &b, Location loc, Type elem, double v) {
  auto type = RankedTensorType::get({}, elem);
  Attribute a = isa<FloatType>(elem)
                    ? Attribute(b.getFloatAttr(elem, v))
                    : Attribute(b.getIntegerAttr(elem, (int64_t)v));
  return b.create<graph::ConstantOp>(loc, DenseElementsAttr::get(type, a));
}

/// Rewrites `op` as described above; false when it stays in floating point.
bool quantize(graph::LinearOp op) {
  auto xType = dyn_cast<RankedTensorType>(op.getA().getType());
  auto yType = dyn_cast<RankedTensorType>(op.getOutput().getType());
  if (!xType || !yType || xType.getRank() < 2 ||
      !xType.getElementType().isF32() || !yType.getElementType().isF32())
    return false;
  OpBuilder b(op);
  Location loc = op.getLoc();
  std::optional<QuantizedWeight> w = quantizeWeight(b, loc, op.getB());
  if (!w)
    return false;
  Type f32 = b.getF32Type(), i8 = b.getIntegerType(8);
  int64_t last = xType.getRank() - 1;
  // The token's scale: its largest magnitude over 127 (never zero).
  Value absx = b.create<graph::AbsOp>(loc, op.getA());
  Value peak = b.create<graph::ReduceMaxOp>(
      loc, absx, b.getDenseI64ArrayAttr({last}), b.getBoolAttr(true));
  Value floor = scalar(b, loc, f32, kTinyScale * 127.0);
  Value s = b.create<graph::MulOp>(
      loc, b.create<graph::MaxOp>(loc, peak, floor),
      scalar(b, loc, f32, 1.0 / 127.0));
  // Round half to even and saturate: QuantizeLinear's rule.
  Value scaled = b.create<graph::DivOp>(loc, op.getA(), s);
  Value zero8 = scalar(b, loc, i8, 0);
  SmallVector<int64_t> qShape(xType.getShape());
  Value xq = b.create<graph::QuantizeLinearOp>(
      loc, RankedTensorType::get(qShape, i8), scaled,
      scalar(b, loc, f32, 1.0), zero8, b.getI64IntegerAttr(1));
  // A bias of another shape than [N] (a [1, N] row) is reshaped to [N].
  Value bias = op.getBias();
  if (bias && cast<RankedTensorType>(bias.getType()).getRank() != 1) {
    auto bt = cast<RankedTensorType>(bias.getType());
    if (bt.getNumElements() != yType.getShape().back())
      return false;
    bias = b.create<graph::ReshapeOp>(
        loc, RankedTensorType::get({bt.getNumElements()}, f32), bias,
        b.getDenseI64ArrayAttr({bt.getNumElements()}));
  }
  Value y = b.create<graph::LinearInt8Op>(
      loc, yType, xq, w->q, s, w->scales, bias, op.getResidual(),
      op.getActivationAttr());
  op.getOutput().replaceAllUsesWith(y);
  op.erase();
  return true;
}

struct GraphQuantizeDynamicPass
    : shardc::impl::GraphQuantizeDynamicBase<GraphQuantizeDynamicPass> {
  void runOnOperation() override {
    SmallVector<graph::LinearOp> linears;
    getOperation().walk([&](graph::LinearOp op) { linears.push_back(op); });
    for (graph::LinearOp op : linears)
      quantize(op);
  }
};

} // namespace
