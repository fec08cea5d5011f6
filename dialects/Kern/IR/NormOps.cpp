//===- NormOps.cpp - kern.softmax, kern.layer_norm -------------------------===//
//
// Verifiers and C arguments of the row normalizations
// (runtime/include/shardc/cpu.h: sc_softmax, sc_layer_norm).
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/IR/RuntimeOps.h"

using namespace mlir;
using namespace shardc::kern;
using namespace shardc::kern::runtime;

//===----------------------------------------------------------------------===//
// kern.softmax
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  if (!isRuntimeFloat(elementOf(getX())))
    return emitOpError("needs f32, f64, f16 or bf16 elements, not ")
           << elementOf(getX());
  if (failed(verifySameType(*this, getX(), getY(), "x and y")))
    return failure();
  // A scalar is its own one-element axis.
  int64_t rank = std::max<int64_t>(1, getX().getType().getRank());
  return verifyAxis(*this, getAxis(), rank);
}

StringRef SoftmaxOp::getRuntimeCallee() { return "sc_softmax"; }

// sc_softmax(x desc, x, y, axis, is_log)
void SoftmaxOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::ptr(getY()), RuntimeArg::i64(getAxis()),
               RuntimeArg::i32(getLog())});
}

//===----------------------------------------------------------------------===//
// kern.layer_norm
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  MemRefType x = getX().getType();
  if (!isRuntimeFloat(x.getElementType()))
    return emitOpError("needs f32, f64, f16 or bf16 elements, not ")
           << x.getElementType();
  if (failed(verifySameType(*this, getX(), getY(), "x and y")))
    return failure();
  FailureOr<int64_t> axis =
      verifyAxis(*this, getAxis(), x.getRank(), /*inclusive=*/true);
  if (failed(axis))
    return failure();
  int64_t rows = product(x.getShape().take_front(*axis));
  int64_t n = product(x.getShape().drop_front(*axis));
  for (Value param : {getScale(), getBias()}) {
    if (!param)
      continue;
    if (elementOf(param) != x.getElementType() ||
        bufferType(param).getNumElements() != n)
      return emitOpError("scale and bias need ")
             << n << " elements of " << x.getElementType() << ", not "
             << param.getType();
  }
  for (Value stat : {getMean(), getInvStd()}) {
    if (!stat)
      continue;
    if (!elementOf(stat).isF32() || bufferType(stat).getNumElements() != rows)
      return emitOpError("mean and inv_std need one f32 per row (")
             << rows << "), not " << stat.getType();
  }
  return success();
}

StringRef LayerNormOp::getRuntimeCallee() { return "sc_layer_norm"; }

// sc_layer_norm(x desc, x, scale, bias|0, y, mean|0, inv_std|0, axis, eps)
void LayerNormOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::ptr(getScale()), RuntimeArg::ptr(getBias()),
               RuntimeArg::ptr(getY()), RuntimeArg::ptr(getMean()),
               RuntimeArg::ptr(getInvStd()), RuntimeArg::i64(getAxis()),
               RuntimeArg::f32(getEpsilon().convertToFloat())});
}
