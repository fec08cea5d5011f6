//===- FoldQdq.cpp - the graph-fold-qdq pass ------------------------------===//
//
// A model another tool quantized (ONNX Runtime's quantize_static in QDQ
// form, TensorRT's explicit quantization) reaches the graph as float ops
// between QuantizeLinear / DequantizeLinear pairs:
//
//   y = linear(dequantize_linear(aq, sa, za), dequantize_linear(Wq, sw, 0))
//       + bias, activation, residual
//
// with aq int8 or uint8 scaled per tensor (sa, za scalars) and Wq a
// constant int8 [K, N] matrix, symmetric, per tensor or per column (axis 1).
// This pass runs that product on the int8 kernels: since
//
//   y[n] = sa sw[n] (sum_k aq[k] Wq[k, n] - za sum_k Wq[k, n]) + bias[n]
//
// it becomes graph.linear_int8(aq, Wq) with column scales sa * sw[n] and
// the zero point's term folded into the bias at compile time; the
// activation and residual stay in its epilogue. The Q/DQ pair's quantize
// still runs (one map producing aq); the dequantized f32 copies of the
// activation and of the weight go away.
//
// Convolutions fold the same way into graph.conv_int8 (foldConv below),
// except that the activation's zero point goes to oneDNN rather than into
// the bias: the padding must read as real zero.
//
// ONNX Runtime's QOperator forms reach this pass in QDQ form through the
// canonicalizers of graph.matmul_integer (quantize_dynamic) and
// graph.qlinear_matmul (quantize_static by a constant weight). In
// quantize_dynamic's, the activation's scale and zero point are computed
// at run time (DynamicQuantizeLinear, imported as reductions and a
// quantize_linear):
//
//   aq = quantize_linear(x, sa, za)                  uint8, sa and za 0-d
//   y  = linear(dequantize_linear(aq, sa, za), dequantize_linear(Wq, sw, 0))
//
// a float activation rounded to one uint8 grid for the whole tensor, times
// an int8 weight. It becomes graph.linear_int8 with Wq as it is and x
// quantized per token, as graph-quantize-dynamic quantizes activations (a
// finer grid than the model's, so the result is at least as close to the
// float model's; not bit for bit ONNX Runtime's). A graph.matmul of the
// two dequantized operands (a product with no epilogue to fuse, such as
// quantize_static's requantized QLinearMatMul) folds as a linear layer
// without bias does.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Passes.h"
#include "passes/Precision/Quantize.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

namespace shardc {
#define GEN_PASS_DEF_GRAPHFOLDQDQ
#include "passes/Precision/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

constexpr int64_t kMaxElements = int64_t(1) << 26;

/// The elements of a constant operand, or nothing.
std::optional<graph::HostTensor> constantOf(Value v) {
  return graph::constantElements(v, kMaxElements);
}

/// A one-element constant's value, or nothing.
std::optional<double> scalarOf(Value v) {
  std::optional<graph::HostTensor> t = constantOf(v);
  if (!t || t->numel() != 1)
    return std::nullopt;
  return t->isFloat() ? t->f(0) : double(t->i(0));
}

bool isInt8(Type t) {
  auto i = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
  return i && i.getWidth() == 8;
}

/// The dequantizations of `op`'s activation (int8 or uint8) and weight
/// (int8) when its result is f32; nulls otherwise.
std::pair<graph::DequantizeLinearOp, graph::DequantizeLinearOp>
dequantizedOperands(Operation *op, Value activation, Value weight) {
  auto a = activation.getDefiningOp<graph::DequantizeLinearOp>();
  auto w = weight.getDefiningOp<graph::DequantizeLinearOp>();
  auto yType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !w || !yType || !yType.getElementType().isF32() ||
      !isInt8(a.getInput().getType()) || !isInt8(w.getInput().getType()) ||
      cast<IntegerType>(getElementTypeOrSelf(w.getInput().getType()))
          .isUnsigned())
    return {};
  return {a, w};
}

/// Replaces `op` by its int8 form `y` (marked with `scheme` for the
/// report) and drops the activation's and weight's dequantizations when
/// nothing else reads them.
void replaceFolded(Operation *op, Operation *y, StringRef scheme,
                   graph::DequantizeLinearOp a, graph::DequantizeLinearOp w) {
  Builder b(op->getContext());
  y->setAttr(quant::kQuantAttr, b.getDictionaryAttr(b.getNamedAttr(
                                    "scheme", b.getStringAttr(scheme))));
  op->getResult(0).replaceAllUsesWith(y->getResult(0));
  op->erase();
  for (Operation *dq : {a.getOperation(), w.getOperation()})
    if (dq->use_empty())
      dq->erase();
}

/// Rewrites `op` when it reads the Q/DQ form above; false otherwise.
/// `perToken` holds each dynamically quantized activation's per-token
/// quantization (q, k and v read one activation through three quantizes).
/// `op` is a graph.linear (its bias, residual and activation given) or a
/// graph.matmul (none of them).
bool fold(Operation *op, Value lhs, Value rhs, Value biasValue,
          Value residual, StringAttr activation,
          llvm::DenseMap<Value, std::pair<Value, Value>> &perToken) {
  auto [a, w] = dequantizedOperands(op, lhs, rhs);
  if (!a)
    return false;
  auto yType = cast<RankedTensorType>(op->getResult(0).getType());
  auto wType = dyn_cast<RankedTensorType>(w.getInput().getType());
  if (!wType || wType.getRank() != 2)
    return false;
  int64_t k = wType.getDimSize(0), n = wType.getDimSize(1);
  // The activation: per tensor, constant, or computed at run time from an
  // f32 activation x (aq = quantize_linear(x, sa, za), ONNX Runtime's
  // dynamic form), which is quantized per token instead.
  std::optional<double> sa = scalarOf(a.getScale());
  std::optional<double> za = scalarOf(a.getZeroPoint());
  Value x;
  if (!sa || !za) {
    auto q = a.getInput().getDefiningOp<graph::QuantizeLinearOp>();
    auto st = cast<RankedTensorType>(a.getScale().getType());
    if (!q || q.getScale() != a.getScale() ||
        q.getZeroPoint() != a.getZeroPoint() || st.getRank() != 0 ||
        !getElementTypeOrSelf(q.getInput().getType()).isF32() ||
        cast<RankedTensorType>(q.getInput().getType()).getRank() < 2)
      return false;
    x = q.getInput();
    sa = 1.0;
    za = 0.0;
  }
  // The weight: constant, symmetric, per tensor or per column.
  std::optional<graph::HostTensor> wq = constantOf(w.getInput());
  std::optional<graph::HostTensor> sw = constantOf(w.getScale());
  std::optional<graph::HostTensor> zw = constantOf(w.getZeroPoint());
  if (!sa || !za || !wq || !sw || !zw ||
      (sw->numel() != 1 && (sw->numel() != n || w.getAxis() != 1)))
    return false;
  for (int64_t i = 0; i < zw->numel(); ++i)
    if (zw->i(i) != 0)
      return false;
  std::optional<graph::HostTensor> bias;
  if (Value b = biasValue) {
    bias = constantOf(b);
    if (!bias || bias->numel() != n)
      return false;
  }
  OpBuilder b(op);
  Location loc = op->getLoc();
  std::vector<float> scales(n), newBias(n, 0.0f);
  for (int64_t j = 0; j < n; ++j) {
    double s = *sa * sw->f(sw->numel() == 1 ? 0 : j);
    scales[j] = static_cast<float>(s);
    double colsum = 0;
    for (int64_t i = 0; i < k; ++i)
      colsum += double(wq->i(i * n + j));
    newBias[j] =
        static_cast<float>((bias ? bias->f(j) : 0.0) - s * *za * colsum);
  }
  auto vec = [&](ArrayRef<float> v) {
    auto type = RankedTensorType::get({n}, b.getF32Type());
    return b.create<graph::ConstantOp>(loc, DenseElementsAttr::get(type, v));
  };
  bool needBias = bias || *za != 0;
  Value aq = a.getInput(), rows;
  if (x) {
    auto &[xq, s] = perToken[x];
    if (!xq) {
      OpBuilder at(a.getInput().getDefiningOp());
      std::tie(xq, s) = quant::quantizePerToken(at, loc, x);
    }
    aq = xq;
    rows = s;
  }
  auto y = b.create<graph::LinearInt8Op>(
      loc, yType, aq, w.getInput(), rows, vec(scales),
      needBias ? Value(vec(newBias)) : Value(), residual, activation);
  replaceFolded(op, y, x ? "imported dynamic" : "imported QDQ", a, w);
  return true;
}

/// A convolution (graph.conv, or graph.fused_conv with its epilogue)
/// between DequantizeLinear ops:
///
///   y = conv(dequantize_linear(xq, sa, za), dequantize_linear(Wq, sw, 0))
///
/// with xq int8 or uint8 per tensor and Wq a constant int8 weight,
/// symmetric, per tensor or per output channel (axis 0), becomes
/// graph.conv_int8(xq, Wq) with scales sa * sw[c] and zero point za, which
/// oneDNN subtracts itself (the padding then reads as real zero, which a
/// correction folded into the bias would get wrong at the borders). With
/// sa and za known only at run time (a DynamicQuantizeLinear's, one each)
/// they stay operands: the scales are then sw's and oneDNN multiplies by
/// sa after the sums.
bool foldConv(Operation *op) {
  auto [a, w] = dequantizedOperands(op, op->getOperand(0), op->getOperand(1));
  if (!a)
    return false;
  auto wType = dyn_cast<RankedTensorType>(w.getInput().getType());
  if (!wType || wType.getRank() < 3 || !wType.hasStaticShape())
    return false;
  int64_t channels = wType.getDimSize(0);
  std::optional<double> sa = scalarOf(a.getScale());
  std::optional<double> za = scalarOf(a.getZeroPoint());
  std::optional<graph::HostTensor> sw = constantOf(w.getScale());
  std::optional<graph::HostTensor> zw = constantOf(w.getZeroPoint());
  // Run-time activation parameters: one scale and one zero point.
  bool dynamic = !sa || !za;
  auto one = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getNumElements() == 1;
  };
  if (dynamic && (!one(a.getScale()) || !one(a.getZeroPoint())))
    return false;
  if (dynamic)
    sa = 1.0, za = 0.0;
  if (!sw || !zw || !constantOf(w.getInput()) ||
      (sw->numel() != 1 && (sw->numel() != channels || w.getAxis() != 0)))
    return false;
  for (int64_t i = 0; i < zw->numel(); ++i)
    if (zw->i(i) != 0)
      return false;
  SmallVector<float> scales;
  for (int64_t c = 0; c < sw->numel(); ++c) {
    double s = *sa * sw->f(c);
    if (!(s > 0) || !std::isfinite(float(s)))
      return false; // kept as imported: oneDNN needs positive scales
    scales.push_back(static_cast<float>(s));
  }
  OpBuilder b(op);
  graph::ConvInt8Op y = quant::convInt8Like(
      b, op, a.getInput(), w.getInput(), scales, static_cast<int64_t>(*za),
      dynamic ? a.getScale() : Value(), dynamic ? a.getZeroPoint() : Value());
  if (!y)
    return false;
  replaceFolded(op, y, dynamic ? "imported dynamic" : "imported QDQ", a, w);
  return true;
}

/// qlinear_matmul by a run-time `rhs` (the attention products of a
/// transformer that quantize_static wrote in QOperator form), every scale
/// f32 and per tensor, every zero point per tensor:
///
///   acc = matmul(dequantize_linear(lhs, 1, za), dequantize_linear(rhs, 1, zb))
///   y   = quantize_linear(acc * (sa * sb / sy), 1, zy)
///
/// The product of the integers runs on the f32 GEMM instead of the scalar
/// reference kernel: exact while its partial sums stay below 2^24 (every
/// sum of integers rounds to an integer in f32), within one f32 rounding
/// beyond; the multiplier is the reference's, rounded to f32 after each
/// step. Here, after graph-convert-precision, rather than as a
/// canonicalization: an f16 or bf16 program's scales are narrow and the
/// op keeps its kernel (integer sums in f16 would overflow at 65504).
void unfoldRunTimeProduct(graph::QLinearMatMulOp op) {
  if (matchPattern(op.getRhs(), m_Constant()))
    return; // QLinearMatMulOp's canonicalization makes it a QDQ product
  auto isScalar = [](Value v, bool f32) {
    auto t = cast<RankedTensorType>(v.getType());
    return t.getNumElements() == 1 && t.getRank() <= 1 &&
           (!f32 || t.getElementType().isF32());
  };
  if (!isScalar(op.getLhsScale(), true) || !isScalar(op.getRhsScale(), true) ||
      !isScalar(op.getOutputScale(), true) ||
      !isScalar(op.getLhsZeroPoint(), false) ||
      !isScalar(op.getRhsZeroPoint(), false) ||
      !isScalar(op.getOutputZeroPoint(), false))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();
  // A scale of ones shaped as `zeroPoint` (dequantize_linear's and
  // quantize_linear's parameters share one shape).
  auto ones = [&](Value zeroPoint) -> Value {
    auto t = RankedTensorType::get(
        cast<RankedTensorType>(zeroPoint.getType()).getShape(), f32);
    return b.create<graph::ConstantOp>(
        loc, DenseElementsAttr::get(t, b.getF32FloatAttr(1.0f)));
  };
  auto integers = [&](Value x, Value zeroPoint) -> Value {
    return b.create<graph::DequantizeLinearOp>(
        loc, cast<RankedTensorType>(x.getType()).clone(f32), x, ones(zeroPoint),
        zeroPoint, b.getI64IntegerAttr(1));
  };
  auto y = cast<RankedTensorType>(op.getOutput().getType());
  Value lhs = integers(op.getLhs(), op.getLhsZeroPoint());
  Value rhs = integers(op.getRhs(), op.getRhsZeroPoint());
  Value acc = b.create<graph::MatMulOp>(loc, y.clone(f32), lhs, rhs);
  Value scales =
      b.create<graph::MulOp>(loc, op.getLhsScale(), op.getRhsScale());
  Value multiplier = b.create<graph::DivOp>(loc, scales, op.getOutputScale());
  Value scaled = b.create<graph::MulOp>(loc, y.clone(f32), acc, multiplier);
  Value q = b.create<graph::QuantizeLinearOp>(
      loc, y, scaled, ones(op.getOutputZeroPoint()), op.getOutputZeroPoint(),
      b.getI64IntegerAttr(1));
  op.getOutput().replaceAllUsesWith(q);
  op.erase();
}

struct GraphFoldQdqPass : shardc::impl::GraphFoldQdqBase<GraphFoldQdqPass> {
  void runOnOperation() override {
    SmallVector<graph::QLinearMatMulOp> qlinear;
    getOperation().walk(
        [&](graph::QLinearMatMulOp op) { qlinear.push_back(op); });
    for (graph::QLinearMatMulOp op : qlinear)
      unfoldRunTimeProduct(op);
    // Linear layers, and products with no epilogue to fuse (a
    // QLinearMatMul's QDQ form requantizes its product).
    SmallVector<Operation *> products;
    getOperation().walk([&](Operation *op) {
      if (isa<graph::LinearOp, graph::MatMulOp, graph::ConvOp,
              graph::FusedConvOp>(op))
        products.push_back(op);
    });
    llvm::DenseMap<Value, std::pair<Value, Value>> perToken;
    for (Operation *op : products) {
      if (isa<graph::ConvOp, graph::FusedConvOp>(op)) {
        foldConv(op);
        continue;
      }
      if (auto linear = dyn_cast<graph::LinearOp>(op))
        fold(op, linear.getA(), linear.getB(), linear.getBias(),
             linear.getResidual(), linear.getActivationAttr(), perToken);
      else
        fold(op, op->getOperand(0), op->getOperand(1), Value(), Value(),
             StringAttr::get(op->getContext(), "none"), perToken);
    }
  }
};

} // namespace
