//===- FusedOps.cpp - ops created by the fusion passes ---------------------===//

#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace shardc::graph {

static LogicalResult sameType(Loc loc, Value a, Value b, StringRef what) {
  if (a.getType() != b.getType())
    return emitOptionalError(loc, what, " types differ: ", typeStr(a.getType()),
                             " and ", typeStr(b.getType()));
  return success();
}

LogicalResult GeluOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferUnary(loc, adaptor.getInput(), ElementKind::Float, types);
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be 'none' or 'tanh', not '")
           << getApproximate() << "'";
  return success();
}

LogicalResult SwigluOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(sameType(loc, adaptor.getGate(), adaptor.getUp(), "gate and up")))
    return failure();
  return inferUnary(loc, adaptor.getGate(), ElementKind::Float, types);
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *, Loc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput()), scale = tensorOf(adaptor.getScale());
  int64_t axis = adaptor.getAxis();
  if (failed(checkElementKind(loc, x, ElementKind::Float)) ||
      failed(checkAxis(loc, "axis", axis, x.getRank())))
    return failure();
  if (x.getElementType() != scale.getElementType())
    return emitOptionalError(loc, "scale element type differs: ", typeStr(x),
                             " and ", typeStr(scale));
  if (failed(checkStaticFrom(loc, "RMS normalization", dimsOf(x), axis)))
    return failure();
  ArrayRef<int64_t> norm = x.getShape().drop_front(axis);
  SmallVector<int64_t> out;
  if (failed(broadcastShapes(std::nullopt, scale.getShape(), norm, out)) ||
      ArrayRef<int64_t>(out) != norm)
    return emitOptionalError(loc, "scale ", typeStr(scale),
                             " does not broadcast to the normalized shape ",
                             shapeStr(norm));
  types.push_back(x);
  return success();
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto q = tensorOf(adaptor.getQuery()), k = tensorOf(adaptor.getKey()),
       v = tensorOf(adaptor.getValue());
  if (failed(checkElementKind(loc, q, ElementKind::Float)))
    return failure();
  if (q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType())
    return emitOptionalError(loc, "query, key and value element types differ: ",
                             typeStr(q), ", ", typeStr(k), ", ", typeStr(v));
  int64_t r = q.getRank();
  if (r < 2 || k.getRank() != r || v.getRank() != r)
    return emitOptionalError(loc, "query, key and value need one rank >= 2: ",
                             typeStr(q), ", ", typeStr(k), ", ", typeStr(v));
  SymShape qd = dimsOf(q), kd = dimsOf(k), vd = dimsOf(v);
  if (ArrayRef(qd.sym).drop_back(2) != ArrayRef(kd.sym).drop_back(2) ||
      ArrayRef(qd.sym).drop_back(2) != ArrayRef(vd.sym).drop_back(2))
    return emitOptionalError(loc, "query, key and value leading dims differ: ",
                             typeStr(q), ", ", typeStr(k), ", ", typeStr(v));
  if (!qd.sym[r - 1].isConstant() || !vd.sym[r - 1].isConstant())
    return emitOptionalError(loc, "attention with a dynamic head size is not "
                                  "supported");
  if (kd.sym[r - 2] != vd.sym[r - 2])
    return emitOptionalError(loc, "key ", typeStr(k), " and value ", typeStr(v),
                             " differ in length");
  int64_t d = q.getDimSize(r - 1), t = k.getDimSize(r - 2);
  if (k.getDimSize(r - 1) != d || v.getDimSize(r - 2) != t ||
      kd.sym[r - 1] != qd.sym[r - 1])
    return emitOptionalError(loc, "key ", typeStr(k), " and value ",
                             typeStr(v), " do not fit query ", typeStr(q));
  SymShape shape;
  for (int64_t i = 0; i + 1 < r; ++i)
    shape.push_back(qd, i);
  shape.push_back(vd, r - 1);
  if (Value mask = adaptor.getMask()) {
    auto m = tensorOf(mask);
    SymShape scores, out;
    for (int64_t i = 0; i + 1 < r; ++i)
      scores.push_back(qd, i);
    scores.push_back(kd, r - 2);
    if (m.getElementType() != q.getElementType())
      return emitOptionalError(loc, "mask ", typeStr(m),
                               " must have the query's element type");
    if (failed(broadcastDims(loc, dimsOf(m), scores, out)) ||
        out.sym != scores.sym)
      return emitOptionalError(loc, "mask ", typeStr(m),
                               " does not broadcast to the scores ",
                               scores.str());
  }
  types.push_back(tensorType(shape, q.getElementType()));
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto a = tensorOf(adaptor.getA()), b = tensorOf(adaptor.getB());
  SymShape shape;
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "operand element type differs: ", typeStr(a),
                             " and ", typeStr(b));
  if (failed(checkElementKind(loc, a, ElementKind::Float)) ||
      failed(matmulDims(loc, dimsOf(a), dimsOf(b), shape)))
    return failure();
  if (shape.size() && !shape.sym.back().isConstant())
    return emitOptionalError(loc, "a linear layer with a dynamic number of "
                                  "columns is not supported");
  auto out = tensorType(shape, a.getElementType());
  if (Value bias = adaptor.getBias()) {
    auto bt = tensorOf(bias);
    int64_t n = shape.size() == 0 ? 1 : shape.bound.back();
    bool row = bt.getElementType() == a.getElementType() &&
               bt.getNumElements() == n && !bt.getShape().empty() &&
               bt.getShape().back() == n;
    if (!row)
      return emitOptionalError(loc, "bias ", typeStr(bt), " must be a row of ",
                               n, " elements of the operands' type");
  }
  if (Value res = adaptor.getResidual())
    if (res.getType() != out)
      return emitOptionalError(loc, "residual ", typeStr(res.getType()),
                               " must have the result's type ", typeStr(out));
  types.push_back(out);
  return success();
}

LogicalResult LinearInt8Op::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto a = tensorOf(adaptor.getA()), b = tensorOf(adaptor.getB());
  if (a.getRank() < 2 || b.getRank() != 2)
    return emitOptionalError(loc, "linear_int8 needs a of rank 2 or more "
                                  "and b of rank 2, not ",
                             typeStr(a), " and ", typeStr(b));
  SmallVector<int64_t> shape(a.getShape());
  shape.back() = b.getDimSize(1);
  types.push_back(RankedTensorType::get(shape, Float32Type::get(ctx)));
  return success();
}

/// The epilogue of graph.linear and graph.linear_int8: a known activation,
/// and a residual only without one.
static LogicalResult verifyLinearEpilogue(Operation *op, StringRef act,
                                          Value residual) {
  if (act != "none" && act != "relu" && act != "gelu" && act != "gelu_tanh")
    return op->emitOpError("activation must be none, relu, gelu or "
                           "gelu_tanh, not '")
           << act << "'";
  if (residual && act != "none")
    return op->emitOpError("a residual comes only with activation 'none'");
  return success();
}

LogicalResult LinearInt8Op::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto as = getAScale() ? cast<RankedTensorType>(getAScale().getType())
                         : RankedTensorType();
  auto bs = cast<RankedTensorType>(getBScale().getType());
  auto y = cast<RankedTensorType>(getOutput().getType());
  if (!a.getElementType().isInteger(8) || !b.getElementType().isInteger(8))
    return emitOpError("a and b need int8 elements");
  if ((as && !as.getElementType().isF32()) || !bs.getElementType().isF32() ||
      !y.getElementType().isF32())
    return emitOpError("the scales and the result need f32 elements");
  int64_t r = a.getRank();
  if (r < 2 || b.getRank() != 2)
    return emitOpError("a needs rank 2 or more and b rank 2");
  int64_t k = a.getDimSize(r - 1), n = b.getDimSize(1);
  if (b.getDimSize(0) != k)
    return emitOpError("a's ") << k << " columns do not meet b's "
                               << b.getDimSize(0) << " rows";
  SmallVector<int64_t> out(a.getShape()), rows(a.getShape());
  out.back() = n;
  rows.back() = 1;
  if (y.getShape() != ArrayRef<int64_t>(out))
    return emitOpError("result ") << y << " is not a's rows by b's columns";
  if (as && as.getShape() != ArrayRef<int64_t>(rows))
    return emitOpError("a_scale needs one value per row of a, not ") << as;
  if (bs.getRank() != 1 || bs.getDimSize(0) != n)
    return emitOpError("b_scale needs one value per column of b, not ") << bs;
  if (Value bias = getBias()) {
    auto bt = cast<RankedTensorType>(bias.getType());
    if (bt.getRank() != 1 || bt.getDimSize(0) != n || !bt.getElementType().isF32())
      return emitOpError("bias needs ") << n << " f32 elements, not " << bt;
  }
  if (Value res = getResidual())
    if (res.getType() != y)
      return emitOpError("residual needs the result's type");
  return verifyLinearEpilogue(*this, getActivation(), getResidual());
}

LogicalResult LinearOp::verify() {
  return verifyLinearEpilogue(*this, getActivation(), getResidual());
}

/// The result type of a convolution with a fused epilogue (graph.fused_conv,
/// graph.conv_int8: `int8` operands, an f32 result), its residual checked.
template <typename Adaptor>
static LogicalResult inferFusedConv(Loc loc, Adaptor adaptor, bool int8,
                                    SmallVectorImpl<Type> &types) {
  if (failed(inferConv(loc, adaptor.getInput(), adaptor.getWeight(),
                       adaptor.getBias(), adaptor.getStrides(),
                       adaptor.getDilations(), adaptor.getPads(),
                       adaptor.getGroup(), types, int8)))
    return failure();
  if (Value res = adaptor.getResidual())
    if (res.getType() != types.back())
      return emitOptionalError(loc, "residual ", typeStr(res.getType()),
                               " must have the result's type ",
                               typeStr(types.back()));
  return success();
}

/// A fused convolution's activation: none, relu or hard_swish.
static LogicalResult verifyConvActivation(Operation *op, StringRef act) {
  if (act != "none" && act != "relu" && act != "hard_swish")
    return op->emitOpError("activation must be none, relu or hard_swish, "
                           "not '")
           << act << "'";
  return success();
}

LogicalResult FusedConvOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferFusedConv(loc, adaptor, /*int8=*/false, types);
}

LogicalResult FusedConvOp::verify() {
  return verifyConvActivation(*this, getActivation());
}

LogicalResult ConvInt8Op::inferReturnTypes(MLIRContext *, Loc loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  return inferFusedConv(loc, adaptor, /*int8=*/true, types);
}

LogicalResult ConvInt8Op::verify() {
  if (failed(verifyConvActivation(*this, getActivation())))
    return failure();
  auto x = cast<RankedTensorType>(getInput().getType());
  auto w = cast<RankedTensorType>(getWeight().getType());
  auto y = cast<RankedTensorType>(getOutput().getType());
  Type xe = x.getElementType();
  if (!xe.isInteger(8) || !w.getElementType().isSignlessInteger(8) ||
      !y.getElementType().isF32())
    return emitOpError("takes ui8 or i8 input and i8 weight into f32");
  if (x.getRank() < 3 || w.getRank() != x.getRank() ||
      y.getRank() != x.getRank())
    return emitOpError("input, weight and output need the same rank >= 3");
  int64_t cout = w.getDimSize(0);
  size_t n = getScales().size();
  if (n != 1 && (ShapedType::isDynamic(cout) || (int64_t)n != cout))
    return emitOpError("needs 1 or ") << cout << " scales, not " << n;
  for (float s : getScales())
    if (!(s > 0) || std::isinf(s))
      return emitOpError("scales must be finite and positive");
  int64_t lo = xe.isUnsignedInteger() ? 0 : -128,
          hi = xe.isUnsignedInteger() ? 255 : 127;
  // I64Attr's getter is unsigned: read the zero point as the signed
  // value it holds.
  int64_t zp = static_cast<int64_t>(getInputZeroPoint());
  if (zp < lo || zp > hi)
    return emitOpError("input_zero_point ")
           << zp << " is outside " << xe << "'s range";
  if (Value b = getBias())
    if (!cast<RankedTensorType>(b.getType()).getElementType().isF32())
      return emitOpError("bias must be f32");
  Value ds = getDynamicScale(), dz = getDynamicZeroPoint();
  if (!ds != !dz)
    return emitOpError("needs both a dynamic scale and a dynamic zero point, "
                       "or neither");
  if (ds) {
    auto st = cast<RankedTensorType>(ds.getType()),
         zt = cast<RankedTensorType>(dz.getType());
    if (st.getNumElements() != 1 || st.getRank() > 1 ||
        !st.getElementType().isF32())
      return emitOpError("dynamic scale must be one f32, not ") << typeStr(st);
    if (zt.getNumElements() != 1 || zt.getRank() > 1 ||
        zt.getElementType() != xe)
      return emitOpError("dynamic zero point must be one ")
             << xe << ", not " << typeStr(zt);
    if (zp != 0)
      return emitOpError("input_zero_point must be 0 with a dynamic zero "
                         "point");
  }
  return success();
}

} // namespace shardc::graph
