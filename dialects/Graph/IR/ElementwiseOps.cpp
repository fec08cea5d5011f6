//===- ElementwiseOps.cpp - constants, where, cast --------------------------===//
//
// Type inference of the elementwise ops that are not covered by the shared
// unary/binary rules of ShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"

#include <cmath>

using namespace mlir;

namespace shardc::graph {

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, Loc loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOptionalError(loc, "constant value must be a static tensor");
  types.push_back(type);
  return success();
}

LogicalResult ConstantOfShapeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &types) {
  ElementsAttr value = adaptor.getValue();
  if (value.getNumElements() != 1)
    return emitOptionalError(loc, "value must have exactly one element, got ",
                             value.getNumElements());
  for (int64_t d : adaptor.getShape())
    if (d < 0)
      return emitOptionalError(loc, "shape ", shapeStr(adaptor.getShape()),
                               " has a negative dim");
  SymShape shape;
  for (auto [b, e] :
       llvm::zip(adaptor.getShape(),
                 symAttr(adaptor.getAttributes(), "shape", adaptor.getShape())))
    shape.push_back(b, e);
  types.push_back(tensorType(shape, value.getElementType()));
  return success();
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  double start = adaptor.getStart().convertToDouble();
  double limit = adaptor.getLimit().convertToDouble();
  double delta = adaptor.getDelta().convertToDouble();
  if (delta == 0)
    return emitOptionalError(loc, "delta must be non-zero");
  int64_t n = std::max<int64_t>(0, (int64_t)std::ceil((limit - start) / delta));
  types.push_back(RankedTensorType::get({n}, adaptor.getElementType()));
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto ct = cast<RankedTensorType>(adaptor.getCondition().getType());
  auto xt = cast<RankedTensorType>(adaptor.getX().getType());
  auto yt = cast<RankedTensorType>(adaptor.getY().getType());
  if (xt.getElementType() != yt.getElementType())
    return emitOptionalError(loc, "branch element types differ: ", typeStr(xt),
                             " and ", typeStr(yt));
  SymShape s1, s2;
  if (failed(broadcastDims(loc, dimsOf(ct), dimsOf(xt), s1)) ||
      failed(broadcastDims(loc, s1, dimsOf(yt), s2)))
    return failure();
  types.push_back(tensorType(s2, xt.getElementType()));
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  Type to = adaptor.getTo();
  if (!to.isIntOrFloat())
    return emitOptionalError(loc, "cannot cast to ", typeStr(to));
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  types.push_back(type.clone(to));
  return success();
}

} // namespace shardc::graph
