//===- QuantizeDynamic.cpp - the graph-quantize-dynamic pass
//---------------===//
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
// Convolutions with a constant f32 weight (graph.conv, graph.fused_conv)
// quantize the same way but per tensor, as ONNX Runtime's quantize_dynamic
// does (DynamicQuantizeLinear into ConvInteger):
//
//   s, z = (max(x, 0) - min(x, 0)) / 255, uint8(-min(x, 0) / s)
//   xq   = uint8(x / s + z)                                  per tensor
//   y    = conv_int8(xq - z, Wq) * s * ws[c], then the epilogue
//
// oneDNN subtracts the zero point itself (so padding reads as real zero)
// and multiplies by s after the sums (kern.conv's run-time scale); the
// weights are symmetric int8 per output channel. A per-token scale has no
// meaning for a convolution's window, and the unsigned range keeps the
// full 8 bits for the many inputs that follow a ReLU.
//
// Left in floating point: products with no constant weight (attention's
// QK^T and PV), weights of other ranks than 2, and anything not in f32.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Passes.h"
#include "passes/Precision/Quantize.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHQUANTIZEDYNAMIC
#include "passes/Precision/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// Rewrites the layers of `group` (one activation) as described above.
void quantize(quant::ActivationGroup &group,
              llvm::DenseMap<Value, Value> &replaced) {
  auto first = group.layers.front();
  OpBuilder b(first);
  Value x = quant::activationOf(group, replaced);
  auto [xq, s] = quant::quantizePerToken(b, first.getLoc(), x);
  for (auto [op, w] : llvm::zip(group.layers, group.weights)) {
    b.setInsertionPoint(op);
    std::optional<quant::QuantizedWeight> q =
        quant::quantizeWeight(b, op.getLoc(), w, {}, 1.0f, "int8");
    if (!q)
      continue;
    graph::LinearInt8Op y = quant::replaceByInt8(b, op, xq, *q, s, replaced);
    y->setAttr(quant::kQuantAttr, b.getDictionaryAttr(b.getNamedAttr(
                                      "scheme", b.getStringAttr("dynamic"))));
  }
}

/// Rewrites the convolutions of `group` (one input) as described above.
void quantizeConvs(quant::ConvGroup &group,
                   llvm::DenseMap<Value, Value> &replaced) {
  Operation *first = group.convs.front();
  OpBuilder b(first);
  Value x = replaced.lookup(group.activation);
  if (!x)
    x = group.activation;
  auto [xq, s, z] = quant::quantizePerTensorU8(b, first->getLoc(), x);
  for (Operation *op : group.convs) {
    b.setInsertionPoint(op);
    std::optional<quant::ConvWeight> w = quant::quantizeConvWeight(b, op);
    if (!w)
      continue;
    graph::ConvInt8Op y = quant::convInt8Like(b, op, xq, w->q, w->scales,
                                              /*zeroPoint=*/0, s, z);
    if (!y)
      continue;
    y->setAttr(quant::kQuantAttr, b.getDictionaryAttr(b.getNamedAttr(
                                      "scheme", b.getStringAttr("dynamic"))));
    op->getResult(0).replaceAllUsesWith(y.getResult());
    replaced[op->getResult(0)] = y.getResult();
    op->erase();
  }
}

struct GraphQuantizeDynamicPass
    : shardc::impl::GraphQuantizeDynamicBase<GraphQuantizeDynamicPass> {
  void runOnOperation() override {
    llvm::DenseMap<Value, Value> replaced;
    for (quant::ActivationGroup &group :
         quant::quantizableGroups(getOperation()))
      quantize(group, replaced);
    std::vector<quant::ConvGroup> convs =
        quant::quantizableConvs(getOperation());
    for (quant::ConvGroup &group : convs)
      quantizeConvs(group, replaced);
    if (!replaced.empty() || !convs.empty())
      quant::attentionProductsInBF16(getOperation());
  }
};

} // namespace
