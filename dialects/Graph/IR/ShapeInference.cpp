//===- ShapeInference.cpp - shared shape rules ------------------------------===//

#include "dialects/Graph/IR/ShapeInference.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace shardc::graph {

std::string typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

LogicalResult broadcastShapes(Loc loc, ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                              SmallVectorImpl<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return emitOptionalError(loc, "shapes ", shapeStr(a), " and ",
                               shapeStr(b), " do not broadcast: dim ", i,
                               " is ", da, " vs ", db);
    out[i] = da == 1 ? db : da;
  }
  return success();
}

LogicalResult broadcastDims(Loc loc, const SymShape &a, const SymShape &b,
                            SymShape &out) {
  size_t rank = std::max(a.size(), b.size());
  out = SymShape();
  const sym::Expr one(1);
  for (size_t i = 0; i < rank; ++i) {
    bool hasA = i >= rank - a.size(), hasB = i >= rank - b.size();
    size_t ia = i - (rank - a.size()), ib = i - (rank - b.size());
    const sym::Expr &ea = hasA ? a.sym[ia] : one;
    const sym::Expr &eb = hasB ? b.sym[ib] : one;
    int64_t ba = hasA ? a.bound[ia] : 1, bb = hasB ? b.bound[ib] : 1;
    if (ea == eb || eb == one)
      out.push_back(ba, ea);
    else if (ea == one)
      out.push_back(bb, eb);
    else if (ea.isConstant() && eb.isConstant())
      return emitOptionalError(loc, "shapes ", a.str(), " and ", b.str(),
                               " do not broadcast: dim ", i, " is ", ba, " vs ",
                               bb);
    else
      return emitOptionalError(loc, "shapes ", a.str(), " and ", b.str(),
                               " do not broadcast: dim ", i, " is ", ea.str(),
                               " vs ", eb.str(),
                               " (dynamic dims broadcast only when equal)");
  }
  return success();
}

LogicalResult checkStaticFrom(Loc loc, StringRef what, const SymShape &dims,
                              int64_t axis) {
  for (size_t d = axis; d < dims.size(); ++d)
    if (!dims.sym[d].isConstant())
      return emitOptionalError(loc, what, " over dynamic dim ", d, " of ",
                               dims.str(), " is not supported");
  return success();
}

LogicalResult checkAxis(Loc loc, StringRef what, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, what, " ", axis, " is out of range for rank ",
                             rank, " (expected 0 to ", rank - 1, ")");
  return success();
}

LogicalResult checkElementKind(Loc loc, Type type, ElementKind kind) {
  Type elt = cast<ShapedType>(type).getElementType();
  switch (kind) {
  case ElementKind::Any:
    return success();
  case ElementKind::Numeric:
    if (isa<FloatType>(elt) || (elt.isInteger() && !elt.isInteger(1)))
      return success();
    return emitOptionalError(loc, "expected a numeric tensor, got ",
                             typeStr(type));
  case ElementKind::Float:
    if (isa<FloatType>(elt))
      return success();
    return emitOptionalError(loc, "expected a floating-point tensor, got ",
                             typeStr(type));
  case ElementKind::Bool:
    if (elt.isInteger(1))
      return success();
    return emitOptionalError(loc, "expected a boolean (i1) tensor, got ",
                             typeStr(type));
  }
  return failure();
}

LogicalResult inferUnary(Loc loc, Value input, ElementKind kind,
                         SmallVectorImpl<Type> &types) {
  if (failed(checkElementKind(loc, input.getType(), kind)))
    return failure();
  types.push_back(input.getType());
  return success();
}

LogicalResult inferBinary(Loc loc, Value lhs, Value rhs, BinaryKind kind,
                          SmallVectorImpl<Type> &types) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  if (kind != BinaryKind::Pow && lt.getElementType() != rt.getElementType())
    return emitOptionalError(loc, "operand element types differ: ",
                             typeStr(lt), " and ", typeStr(rt));
  if (kind == BinaryKind::Logic &&
      failed(checkElementKind(loc, lt, ElementKind::Bool)))
    return failure();
  SymShape shape;
  if (failed(broadcastDims(loc, dimsOf(lt), dimsOf(rt), shape)))
    return failure();
  Type elt = lt.getElementType();
  if (kind == BinaryKind::Compare)
    elt = IntegerType::get(lt.getContext(), 1);
  types.push_back(tensorType(shape, elt));
  return success();
}

LogicalResult inferReduce(Loc loc, Value input, ArrayRef<int64_t> axes,
                          bool keepdims, SmallVectorImpl<Type> &types) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, axes.empty());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (failed(checkAxis(loc, "reduction axis", axes[i], rank)))
      return failure();
    if (i > 0 && axes[i] <= axes[i - 1])
      return emitOptionalError(loc, "reduction axes ", shapeStr(axes),
                               " must be sorted and unique");
    reduced[axes[i]] = true;
  }
  SymShape in = dimsOf(type), shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      shape.push_back(in, d);
    else if (keepdims)
      shape.push_back(1, sym::Expr(1));
  }
  types.push_back(tensorType(shape, type.getElementType()));
  return success();
}

LogicalResult matmulShape(Loc loc, ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                          SmallVectorImpl<int64_t> &out) {
  SymShape da, db, dout;
  for (int64_t d : a)
    da.push_back(d, sym::Expr(d));
  for (int64_t d : b)
    db.push_back(d, sym::Expr(d));
  if (failed(matmulDims(loc, da, db, dout)))
    return failure();
  out.assign(dout.bound.begin(), dout.bound.end());
  return success();
}

LogicalResult matmulDims(Loc loc, const SymShape &a, const SymShape &b,
                         SymShape &out) {
  if (a.size() == 0 || b.size() == 0)
    return emitOptionalError(loc, "matmul operands must have rank >= 1");
  SymShape sa = a, sb = b;
  if (sa.size() == 1) {
    sa.bound.insert(sa.bound.begin(), 1);
    sa.sym.insert(sa.sym.begin(), sym::Expr(1));
  }
  if (sb.size() == 1)
    sb.push_back(1, sym::Expr(1));
  size_t ra = sa.size(), rb = sb.size();
  if (sa.sym[ra - 1] != sb.sym[rb - 2]) {
    if (sa.sym[ra - 1].isConstant() && sb.sym[rb - 2].isConstant())
      return emitOptionalError(loc, "inner dimensions ", sa.bound[ra - 1],
                               " and ", sb.bound[rb - 2], " differ (shapes ",
                               a.str(), " and ", b.str(), ")");
    return emitOptionalError(loc, "inner dimensions ", sa.sym[ra - 1].str(),
                             " and ", sb.sym[rb - 2].str(),
                             " are not equal (shapes ", a.str(), " and ",
                             b.str(), ")");
  }
  SymShape ba, bb;
  for (size_t d = 0; d + 2 < ra; ++d)
    ba.push_back(sa, d);
  for (size_t d = 0; d + 2 < rb; ++d)
    bb.push_back(sb, d);
  if (failed(broadcastDims(loc, ba, bb, out)))
    return failure();
  if (a.size() != 1)
    out.push_back(sa, ra - 2);
  if (b.size() != 1)
    out.push_back(sb, rb - 1);
  return success();
}

} // namespace shardc::graph
