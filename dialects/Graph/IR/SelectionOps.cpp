//===- SelectionOps.cpp - topk, argmax, cumsum ------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace shardc::graph {

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  int64_t axis = adaptor.getAxis(), k = adaptor.getK();
  if (failed(checkAxis(loc, "axis", axis, x.getRank())))
    return failure();
  if (k < 0 || k > x.getDimSize(axis))
    return emitOptionalError(loc, "k = ", k, " is out of range for dim ", axis,
                             " of size ", x.getDimSize(axis));
  SmallVector<int64_t> shape(x.getShape());
  shape[axis] = k;
  types.push_back(x.clone(shape));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, "axis", axis, x.getRank())))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  if (adaptor.getKeepdims())
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  if (failed(checkElementKind(loc, x, ElementKind::Numeric)) ||
      failed(checkAxis(loc, "axis", adaptor.getAxis(), x.getRank())))
    return failure();
  types.push_back(x);
  return success();
}

} // namespace shardc::graph
