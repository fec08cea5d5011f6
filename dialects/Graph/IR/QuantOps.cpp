//===- QuantOps.cpp - quantize/dequantize and integer matmuls ---------------===//

#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace shardc::graph {

// Scale and zero point are scalars (per tensor) or 1-D along `axis`.
static LogicalResult checkQuantParams(Loc loc, RankedTensorType x, Value scale,
                                      Value zeroPoint, int64_t axis) {
  auto st = tensorOf(scale), zt = tensorOf(zeroPoint);
  if (st.getShape() != zt.getShape())
    return emitOptionalError(loc, "scale ", typeStr(st), " and zero point ",
                             typeStr(zt), " shapes differ");
  if (st.getNumElements() == 1 && st.getRank() <= 1)
    return success();
  if (st.getRank() != 1)
    return emitOptionalError(loc, "scale must be a scalar or 1-D, got ",
                             typeStr(st));
  if (failed(checkAxis(loc, "axis", axis, x.getRank())))
    return failure();
  if (st.getDimSize(0) != x.getDimSize(axis))
    return emitOptionalError(loc, "per-axis scale ", typeStr(st),
                             " does not match dim ", axis, " of ", typeStr(x));
  return success();
}

LogicalResult QuantizeLinearOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  if (failed(checkQuantParams(loc, x, adaptor.getScale(),
                              adaptor.getZeroPoint(), adaptor.getAxis())))
    return failure();
  types.push_back(x.clone(tensorOf(adaptor.getZeroPoint()).getElementType()));
  return success();
}

LogicalResult DequantizeLinearOp::inferReturnTypes(
    MLIRContext *, Loc loc, Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  if (x.getElementType() != tensorOf(adaptor.getZeroPoint()).getElementType())
    return emitOptionalError(loc, "input ", typeStr(x),
                             " and zero point element types differ");
  if (failed(checkQuantParams(loc, x, adaptor.getScale(),
                              adaptor.getZeroPoint(), adaptor.getAxis())))
    return failure();
  types.push_back(x.clone(tensorOf(adaptor.getScale()).getElementType()));
  return success();
}

LogicalResult MatMulIntegerOp::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  if (!a.getElementType().isInteger(8) || !b.getElementType().isInteger(8))
    return emitOptionalError(loc, "operands must be 8-bit integers, got ",
                             typeStr(a), " and ", typeStr(b));
  SmallVector<int64_t> shape;
  if (failed(matmulShape(loc, a.getShape(), b.getShape(), shape)))
    return failure();
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 32)));
  return success();
}

LogicalResult QLinearMatMulOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  SmallVector<int64_t> shape;
  if (failed(matmulShape(loc, a.getShape(), b.getShape(), shape)))
    return failure();
  Type elt = tensorOf(adaptor.getOutputZeroPoint()).getElementType();
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

} // namespace shardc::graph
