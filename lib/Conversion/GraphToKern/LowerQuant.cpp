//===- LowerQuant.cpp - quantize, dequantize, integer matmuls --------------===//
//
// Q/DQ are generated maps (per tensor or per axis through the access
// strides); the integer matmuls call the runtime.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

using Values = SmallVector<Value>;

/// Access of a quantization parameter: one value, or one per index of `axis`.
static std::optional<Access> paramAccess(KernLowering &l, Value param,
                                         ArrayRef<int64_t> shape,
                                         int64_t axis) {
  Access a{l.get(param), SmallVector<int64_t>(shape.size() + 1, 0)};
  int64_t n = cast<MemRefType>(a.buffer.getType()).getNumElements();
  if (n == 1)
    return a;
  if (shapeOf(param).size() != 1 || axis < 0 ||
      axis >= static_cast<int64_t>(shape.size()) || shape[axis] != n)
    return std::nullopt;
  a.layout[axis + 1] = 1;
  return a;
}

static std::pair<double, double> intRange(Type t) {
  auto it = cast<IntegerType>(t);
  unsigned w = it.getWidth();
  if (it.isUnsigned())
    return {0.0, std::ldexp(1.0, w) - 1};
  return {-std::ldexp(1.0, w - 1), std::ldexp(1.0, w - 1) - 1};
}

static LogicalResult lowerQuantize(graph::QuantizeLinearOp op, KernLowering &l) {
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  Type xe = elemOf(op.getInput()), se = elemOf(op.getScale()),
       qe = elemOf(op.getOutput());
  if (!isa<IntegerType>(qe))
    return l.fail(op, "quantizes to integer types only");
  auto scale = paramAccess(l, op.getScale(), shape, op.getAxis());
  auto zp = paramAccess(l, op.getZeroPoint(), shape, op.getAxis());
  if (!scale || !zp)
    return l.fail(op, "scale and zero point must be scalars or 1-D along the axis");
  auto [lo, hi] = intRange(qe);
  Value out = l.result(op.getOutput());
  l.map(op.getLoc(), shape, {KernLowering::dense(l.get(op.getInput())), *scale, *zp},
        {KernLowering::dense(out)}, [&](Scalar &s, ValueRange a) {
          Type f32 = s.b.getF32Type();
          Value x = s.convert(a[0], xe, f32), sc = s.convert(a[1], se, f32);
          Value q = s.b.create<math::RoundEvenOp>(s.loc, s.div(f32, x, sc));
          q = s.add(f32, q, s.convert(a[2], qe, f32));
          q = s.max(f32, s.min(f32, q, s.constant(f32, hi)), s.constant(f32, lo));
          return Values{s.convert(q, f32, qe)};
        });
  return success();
}

static LogicalResult lowerDequantize(graph::DequantizeLinearOp op, KernLowering &l) {
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  Type xe = elemOf(op.getInput()), se = elemOf(op.getScale()),
       ye = elemOf(op.getOutput());
  auto scale = paramAccess(l, op.getScale(), shape, op.getAxis());
  auto zp = paramAccess(l, op.getZeroPoint(), shape, op.getAxis());
  if (!scale || !zp)
    return l.fail(op, "scale and zero point must be scalars or 1-D along the axis");
  Value out = l.result(op.getOutput());
  l.map(op.getLoc(), shape, {KernLowering::dense(l.get(op.getInput())), *scale, *zp},
        {KernLowering::dense(out)}, [&](Scalar &s, ValueRange a) {
          Type f32 = s.b.getF32Type();
          Value x = s.sub(f32, s.convert(a[0], xe, f32), s.convert(a[2], xe, f32));
          Value y = s.mul(f32, x, s.convert(a[1], se, f32));
          return Values{s.convert(y, f32, ye)};
        });
  return success();
}

/// Whether `v` is a constant whose elements are all zero.
static bool isZero(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  auto dense = c ? dyn_cast<DenseIntElementsAttr>(c.getValue())
                 : DenseIntElementsAttr();
  return dense && dense.isSplat() && dense.getSplatValue<APInt>().isZero();
}

/// A signed (or signless) 8-bit integer tensor.
static bool isSignedByte(Value v) {
  auto t = dyn_cast<IntegerType>(cast<ShapedType>(v.getType()).getElementType());
  return t && t.getWidth() == 8 && !t.isUnsigned();
}

/// int8 x int8 -> int32 with no zero points (graph-quantize-dynamic's, or an
/// imported symmetric MatMulInteger): one kern.matmul on views of equal
/// rank, which oneDNN runs on VNNI (or AMX) with its weights packed once.
static LogicalResult lowerInt8Product(graph::MatMulIntegerOp op, Value out,
                                      KernLowering &l) {
  Location loc = op.getLoc();
  SmallVector<int64_t> a(shapeOf(op.getLhs())), b(shapeOf(op.getRhs()));
  if (a.size() < 2 || b.size() < 2)
    return l.fail(op, "an int8 product needs operands of rank 2 or more");
  size_t r = std::max(a.size(), b.size());
  a.insert(a.begin(), r - a.size(), 1);
  b.insert(b.begin(), r - b.size(), 1);
  SmallVector<int64_t> y;
  for (size_t d = 0; d + 2 < r; ++d)
    y.push_back(std::max(a[d], b[d]));
  y.push_back(a[r - 2]);
  y.push_back(b[r - 1]);
  l.b.create<MatmulOp>(loc, l.view(loc, l.get(op.getLhs()), a),
                       l.view(loc, l.get(op.getRhs()), b), Value(), Value(),
                       l.view(loc, out, y), l.b.getBoolAttr(false),
                       l.b.getBoolAttr(false), l.b.getF32FloatAttr(1),
                       l.b.getF32FloatAttr(0), l.b.getStringAttr("none"));
  return success();
}

void shardc::kern::addQuantLowerings(LoweringTable &t) {
  addLowering<graph::QuantizeLinearOp>(t, lowerQuantize);
  addLowering<graph::DequantizeLinearOp>(t, lowerDequantize);
  addLowering<graph::MatMulIntegerOp>(t, [](graph::MatMulIntegerOp op, KernLowering &l) {
    Value out = l.result(op.getOutput());
    if (l.int8Gemm && isZero(op.getLhsZeroPoint()) &&
        isZero(op.getRhsZeroPoint()) && isSignedByte(op.getLhs()) &&
        isSignedByte(op.getRhs()))
      return lowerInt8Product(op, out, l);
    Value a = l.get(op.getLhs()), b = l.get(op.getRhs());
    Value az = l.get(op.getLhsZeroPoint()), bz = l.get(op.getRhsZeroPoint());
    l.b.create<MatmulIntegerOp>(op.getLoc(), a, b, az, bz, out);
    return success();
  });
  addLowering<graph::QLinearMatMulOp>(t, [](graph::QLinearMatMulOp op, KernLowering &l) {
    // a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
    // y_zero_point: the op's operands in order.
    SmallVector<Value> ins;
    for (Value v : op->getOperands())
      ins.push_back(l.get(v));
    Value out = l.result(op.getOutput());
    l.b.create<QLinearMatmulOp>(op.getLoc(), ins[0], ins[1], ins[2], ins[3],
                                ins[4], ins[5], ins[6], ins[7], out);
    return success();
  });
}
