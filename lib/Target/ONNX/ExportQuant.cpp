//===- ExportQuant.cpp - quantized ops in QDQ form ------------------------===//
//
// graph.linear_int8 and graph.conv_int8 become the QDQ form ONNX Runtime's
// tools write: DequantizeLinear of the int8 operands (the weight per output
// channel), the float product, the epilogue. The int8 values are exactly
// the ones shardc's kernels multiply, so another runtime reproduces the
// quantized model's numbers up to the order of the sums. Activation scales
// that quantization folded into the weight's scales (static int8) stay
// folded: the activation dequantizes with scale 1.
//
//===----------------------------------------------------------------------===//

#include "Exporter.h"

#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace shardc::onnxexport {

static Type f32Of(Operation *op) { return Float32Type::get(op->getContext()); }

/// DequantizeLinear of `x` (an int8 or uint8 name of element type `q`) by
/// `scale` and zero point `zp`.
static std::string dequantize(Exporter &e, Operation *op, const std::string &x,
                              const std::string &scale, const std::string &zp,
                              std::optional<int64_t> axis = std::nullopt) {
  onnx::NodeProto *n;
  std::string y = e.value(op, "DequantizeLinear", {x, scale, zp}, &n);
  if (axis)
    attr(*n, "axis", *axis);
  return y;
}

/// A per-channel weight's DequantizeLinear: `scales` along `axis` (one
/// value: per tensor), zero points 0.
static std::string dequantizeWeight(Exporter &e, Operation *op, Value w,
                                    const std::string &scales, int64_t channels,
                                    int64_t axis) {
  Type q = graph::tensorOf(w).getElementType();
  if (channels == 1)
    return dequantize(e, op, e.in(w), scales, e.scalar(0, q, op, "w_zero"));
  return dequantize(e, op, e.in(w), scales,
                    e.scalar(0, q, op, "w_zero", {channels}), axis);
}

/// A one-element operand as ONNX wants a per-tensor scale or zero point:
/// a scalar.
static std::string scalarOf(Exporter &e, Operation *op, const std::string &v,
                            RankedTensorType type) {
  if (type.getRank() == 0)
    return v;
  return e.value(op, "Reshape", {v, e.ints({}, op, "scalar")});
}

/// A per-tensor scale: an f32 scalar.
static std::string scalarScale(Exporter &e, Operation *op, Value s) {
  return scalarOf(
      e, op,
      e.castTo(op, e.in(s), graph::tensorOf(s).getElementType(), f32Of(op)),
      graph::tensorOf(s));
}

/// QuantizeLinear's and DequantizeLinear's scale and zero point: as they
/// are per axis, else as scalars (the scale f32).
struct QdqParams {
  std::string scale, zp;
  bool perAxis;
};
static QdqParams qdqParams(Exporter &e, Operation *op, Value scale, Value zp) {
  if (graph::tensorOf(scale).getNumElements() > 1)
    return {e.in(scale), e.in(zp), true};
  return {scalarScale(e, op, scale),
          scalarOf(e, op, e.in(zp), graph::tensorOf(zp)), false};
}

static LogicalResult exportQuantize(Exporter &e, Operation *op) {
  auto q = cast<graph::QuantizeLinearOp>(op);
  // Opset 17 quantizes float32 only.
  std::string x =
      e.castTo(op, e.in(q.getInput()),
               graph::tensorOf(q.getInput()).getElementType(), f32Of(op));
  QdqParams p = qdqParams(e, op, q.getScale(), q.getZeroPoint());
  onnx::NodeProto &n =
      e.node(op, "QuantizeLinear", {x, p.scale, p.zp}, {e.out(q.getOutput())});
  if (p.perAxis)
    attr(n, "axis", q.getAxis());
  return success();
}

static LogicalResult exportDequantize(Exporter &e, Operation *op) {
  auto d = cast<graph::DequantizeLinearOp>(op);
  QdqParams p = qdqParams(e, op, d.getScale(), d.getZeroPoint());
  std::string y = dequantize(e, op, e.in(d.getInput()), p.scale, p.zp,
                             p.perAxis ? std::optional<int64_t>(d.getAxis())
                                       : std::nullopt);
  // Opset 17 dequantizes to float32.
  e.result(op, e.castTo(op, y, f32Of(op),
                        graph::tensorOf(d.getOutput()).getElementType()));
  return success();
}

static LogicalResult exportMatMulInteger(Exporter &e, Operation *op) {
  std::vector<std::string> inputs;
  for (Value v : op->getOperands())
    inputs.push_back(e.in(v));
  e.node(op, "MatMulInteger", inputs, {e.out(op->getResult(0))});
  return success();
}

static LogicalResult exportQLinearMatMul(Exporter &e, Operation *op) {
  // Scales are float32 until opset 21.
  std::vector<std::string> inputs;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    inputs.push_back(i == 1 || i == 4 || i == 6
                         ? e.castTo(op, e.in(v),
                                    graph::tensorOf(v).getElementType(),
                                    f32Of(op))
                         : e.in(v));
  e.node(op, "QLinearMatMul", inputs, {e.out(op->getResult(0))});
  return success();
}

static LogicalResult exportLinearInt8(Exporter &e, Operation *op) {
  auto l = cast<graph::LinearInt8Op>(op);
  Type f32 = f32Of(op);
  Type qa = graph::tensorOf(l.getA()).getElementType();
  std::string a =
      dequantize(e, op, e.in(l.getA()), e.scalar(1.0, f32, op, "one"),
                 e.scalar(0, qa, op, "a_zero"));
  // A dynamic activation's scale is one per row: a product after the
  // exact dequantization.
  if (Value rows = l.getAScale())
    a = e.value(op, "Mul", {a, e.in(rows)});
  int64_t columns = graph::tensorOf(l.getB()).getShape().back();
  std::string w =
      dequantizeWeight(e, op, l.getB(), e.in(l.getBScale()), columns,
                       graph::tensorOf(l.getB()).getRank() - 1);
  std::string y = e.value(op, "MatMul", {a, w});
  return linearEpilogue(e, op, y, l.getBias(), l.getActivation(),
                        l.getResidual());
}

static LogicalResult exportConvInt8(Exporter &e, Operation *op) {
  auto c = cast<graph::ConvInt8Op>(op);
  Type f32 = f32Of(op);
  Type qx = graph::tensorOf(c.getInput()).getElementType();
  std::string x;
  if (Value s = c.getDynamicScale())
    x = dequantize(e, op, e.in(c.getInput()), scalarScale(e, op, s),
                   scalarOf(e, op, e.in(c.getDynamicZeroPoint()),
                            graph::tensorOf(c.getDynamicZeroPoint())));
  else
    x = dequantize(e, op, e.in(c.getInput()), e.scalar(1.0, f32, op, "one"),
                   e.scalar(c.getInputZeroPoint(), qx, op, "x_zero"));
  ArrayRef<float> scales = c.getScales();
  std::string s = scales.size() == 1 ? e.scalar(scales[0], f32, op, "w_scale")
                                     : e.floats(scales, op, "w_scales");
  std::string w = dequantizeWeight(e, op, c.getWeight(), s,
                                   static_cast<int64_t>(scales.size()), 0);
  std::string y =
      convNode(e, op, "Conv", x, w, graph::tensorOf(c.getWeight()).getShape(),
               c.getBias());
  return convEpilogue(e, op, y, c.getResidual(), c.getActivation());
}

void registerQuantExports(ExportMap &map) {
  map["graph.quantize_linear"] = exportQuantize;
  map["graph.dequantize_linear"] = exportDequantize;
  map["graph.matmul_integer"] = exportMatMulInteger;
  map["graph.qlinear_matmul"] = exportQLinearMatMul;
  map["graph.linear_int8"] = exportLinearInt8;
  map["graph.conv_int8"] = exportConvInt8;
}

} // namespace shardc::onnxexport
