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
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, lt.getShape(), rt.getShape(), shape)))
    return failure();
  Type elt = lt.getElementType();
  if (kind == BinaryKind::Compare)
    elt = IntegerType::get(lt.getContext(), 1);
  types.push_back(RankedTensorType::get(shape, elt));
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
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      shape.push_back(type.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult matmulShape(Loc loc, ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                          SmallVectorImpl<int64_t> &out) {
  if (a.empty() || b.empty())
    return emitOptionalError(loc, "matmul operands must have rank >= 1");
  SmallVector<int64_t> sa(a), sb(b);
  if (sa.size() == 1)
    sa.insert(sa.begin(), 1);
  if (sb.size() == 1)
    sb.push_back(1);
  int64_t k1 = sa.back(), k2 = sb[sb.size() - 2];
  if (k1 != k2)
    return emitOptionalError(loc, "inner dimensions ", k1, " and ", k2,
                             " differ (shapes ", shapeStr(a), " and ",
                             shapeStr(b), ")");
  ArrayRef<int64_t> ba = ArrayRef<int64_t>(sa).drop_back(2);
  ArrayRef<int64_t> bb = ArrayRef<int64_t>(sb).drop_back(2);
  if (failed(broadcastShapes(loc, ba, bb, out)))
    return failure();
  if (a.size() != 1)
    out.push_back(sa[sa.size() - 2]);
  if (b.size() != 1)
    out.push_back(sb.back());
  return success();
}

} // namespace shardc::graph
