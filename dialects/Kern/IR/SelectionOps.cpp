//===- SelectionOps.cpp - kern.gather, arg_max, topk, cumsum, trilu -------===//
//
// Verifiers and C arguments of the indexing and scan kernels
// (runtime/include/shardc/cpu.h: sc_gather, sc_arg_max, sc_topk, sc_cumsum,
// sc_trilu).
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/IR/RuntimeOps.h"

using namespace mlir;
using namespace shardc::kern;
using namespace shardc::kern::runtime;

//===----------------------------------------------------------------------===//
// kern.gather
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  MemRefType data = getData().getType();
  FailureOr<int64_t> axis = verifyAxis(*this, getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  Type it = elementOf(getIndices());
  if (!isSignedInt(it, 32) && !isSignedInt(it, 64))
    return emitOpError("indices must be i32 or i64, not ") << it;
  SmallVector<int64_t> dims(data.getShape().take_front(*axis));
  llvm::append_range(dims, getIndices().getType().getShape());
  llvm::append_range(dims, data.getShape().drop_front(*axis + 1));
  MemRefType want = MemRefType::get(dims, data.getElementType());
  if (getY().getType() != want)
    return emitOpError("y must be ") << want << ", not " << getY().getType();
  return success();
}

StringRef GatherOp::getRuntimeCallee() {
  return getPart() ? "sc_gather_part" : "sc_gather";
}

// sc_gather(data desc, data, idx desc, idx, y, axis)
// sc_gather_part(data desc, data, idx desc, idx, y, axis, rows, offset)
void GatherOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getData()), RuntimeArg::ptr(getData()),
               RuntimeArg::desc(getIndices()), RuntimeArg::ptr(getIndices()),
               RuntimeArg::ptr(getY()), RuntimeArg::i64(getAxis())});
  if (std::optional<ArrayRef<int64_t>> part = getPart())
    args.append({RuntimeArg::i64((*part)[0]), RuntimeArg::i64((*part)[1])});
}

//===----------------------------------------------------------------------===//
// kern.arg_max
//===----------------------------------------------------------------------===//

LogicalResult ArgMaxOp::verify() {
  MemRefType x = getX().getType(), y = getY().getType();
  if (!isSignedInt(y.getElementType(), 64))
    return emitOpError("y must hold i64, not ") << y.getElementType();
  int64_t slices = 1;
  if (x.getRank() > 0) {
    FailureOr<int64_t> axis = verifyAxis(*this, getAxis(), x.getRank());
    if (failed(axis))
      return failure();
    slices = product(x.getShape().take_front(*axis)) *
             product(x.getShape().drop_front(*axis + 1));
  }
  if (y.getNumElements() != slices)
    return emitOpError("y needs one element per slice (")
           << slices << "), not " << y;
  return success();
}

StringRef ArgMaxOp::getRuntimeCallee() { return "sc_arg_max"; }

// sc_arg_max(x desc, x, y, axis, select_last_index)
void ArgMaxOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::ptr(getY()), RuntimeArg::i64(getAxis()),
               RuntimeArg::i32(getSelectLastIndex())});
}

//===----------------------------------------------------------------------===//
// kern.topk
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::verify() {
  MemRefType x = getX().getType();
  FailureOr<int64_t> axis = verifyAxis(*this, getAxis(), x.getRank());
  if (failed(axis))
    return failure();
  int64_t k = getK(), n = x.getShape()[*axis];
  if (k < 0 || k > n)
    return emitOpError("k = ") << k << " is out of range [0, " << n << "]";
  SmallVector<int64_t> dims(x.getShape());
  dims[*axis] = k;
  MemRefType values = MemRefType::get(dims, x.getElementType());
  if (getValues().getType() != values)
    return emitOpError("values must be ")
           << values << ", not " << getValues().getType();
  MemRefType indices = getIndices().getType();
  if (indices.getShape() != ArrayRef<int64_t>(dims) ||
      !isSignedInt(indices.getElementType(), 64))
    return emitOpError("indices must be i64 of values' shape, not ")
           << indices;
  return success();
}

StringRef TopKOp::getRuntimeCallee() { return "sc_topk"; }

// sc_topk(x desc, x, values, indices, axis, k, largest, sorted)
void TopKOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::ptr(getValues()), RuntimeArg::ptr(getIndices()),
               RuntimeArg::i64(getAxis()), RuntimeArg::i64(getK()),
               RuntimeArg::i32(getLargest()), RuntimeArg::i32(getSorted())});
}

//===----------------------------------------------------------------------===//
// kern.cumsum
//===----------------------------------------------------------------------===//

LogicalResult CumSumOp::verify() {
  if (elementOf(getX()).isInteger(1))
    return emitOpError("needs numeric elements, not i1");
  if (failed(verifySameType(*this, getX(), getY(), "x and y")))
    return failure();
  if (getX().getType().getRank() == 0)
    return success();
  return verifyAxis(*this, getAxis(), getX().getType().getRank());
}

StringRef CumSumOp::getRuntimeCallee() { return "sc_cumsum"; }

// sc_cumsum(x desc, x, y, axis, exclusive, reverse)
void CumSumOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::ptr(getY()), RuntimeArg::i64(getAxis()),
               RuntimeArg::i32(getExclusive()),
               RuntimeArg::i32(getReverse())});
}

//===----------------------------------------------------------------------===//
// kern.trilu
//===----------------------------------------------------------------------===//

LogicalResult TriluOp::verify() {
  if (getX().getType().getRank() < 2)
    return emitOpError("needs rank >= 2, not ") << getX().getType();
  return verifySameType(*this, getX(), getY(), "x and y");
}

StringRef TriluOp::getRuntimeCallee() { return "sc_trilu"; }

// sc_trilu(x desc, x, y, upper, k)
void TriluOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::ptr(getY()), RuntimeArg::i32(getUpper()),
               RuntimeArg::i64(getK())});
}
