//===- ScatterOps.cpp - kern.gather_elements, scatter_elements, scatter_nd ===//
//
// Verifiers and C arguments of the element gather and scatter kernels
// (runtime/include/shardc/cpu.h: sc_gather_elements, sc_scatter_elements,
// sc_scatter_nd).
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/IR/RuntimeOps.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace shardc::kern;
using namespace shardc::kern::runtime;

static LogicalResult verifyIndexType(Operation *op, Value indices) {
  Type it = elementOf(indices);
  if (!isSignedInt(it, 32) && !isSignedInt(it, 64))
    return op->emitOpError("indices must be i32 or i64, not ") << it;
  return success();
}

/// `part` (indices, updates) has `full`'s rank and at most its dims but on
/// `axis`; the non-negative axis.
static FailureOr<int64_t> verifyElementShape(Operation *op, MemRefType full,
                                             MemRefType part, int64_t axis) {
  FailureOr<int64_t> a = verifyAxis(op, axis, full.getRank());
  if (failed(a))
    return failure();
  if (part.getRank() != full.getRank())
    return op->emitOpError("indices ")
           << part << " must have the rank of " << full;
  for (int64_t d = 0; d < full.getRank(); ++d)
    if (d != *a && part.getDimSize(d) > full.getDimSize(d))
      return op->emitOpError("indices ")
             << part << " exceed " << full << " on dim " << d;
  return a;
}

/// SC_SCATTER_* of `reduction`, or -1.
static int32_t reductionCode(StringRef reduction) {
  return llvm::StringSwitch<int32_t>(reduction)
      .Case("none", 0)
      .Case("add", 1)
      .Case("mul", 2)
      .Case("max", 3)
      .Case("min", 4)
      .Default(-1);
}

static LogicalResult verifyReduction(Operation *op, StringRef reduction,
                                     Value y, Value updates) {
  if (reductionCode(reduction) < 0)
    return op->emitOpError("reduction must be none, add, mul, max or min, "
                           "not '")
           << reduction << "'";
  if (reduction != "none" && elementOf(y).isInteger(1))
    return op->emitOpError("reduction '")
           << reduction << "' needs numeric elements, not i1";
  if (elementOf(updates) != elementOf(y))
    return op->emitOpError("updates must hold ")
           << elementOf(y) << ", not " << elementOf(updates);
  return success();
}

//===----------------------------------------------------------------------===//
// kern.gather_elements
//===----------------------------------------------------------------------===//

LogicalResult GatherElementsOp::verify() {
  MemRefType data = getData().getType(), idx = getIndices().getType();
  if (failed(verifyIndexType(*this, getIndices())) ||
      failed(verifyElementShape(*this, data, idx, getAxis())))
    return failure();
  MemRefType want = MemRefType::get(idx.getShape(), data.getElementType());
  if (getY().getType() != want)
    return emitOpError("y must be ") << want << ", not " << getY().getType();
  return success();
}

StringRef GatherElementsOp::getRuntimeCallee() { return "sc_gather_elements"; }

// sc_gather_elements(data desc, data, idx desc, idx, y, axis)
void GatherElementsOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getData()), RuntimeArg::ptr(getData()),
               RuntimeArg::desc(getIndices()), RuntimeArg::ptr(getIndices()),
               RuntimeArg::ptr(getY()), RuntimeArg::i64(getAxis())});
}

//===----------------------------------------------------------------------===//
// kern.scatter_elements
//===----------------------------------------------------------------------===//

LogicalResult ScatterElementsOp::verify() {
  MemRefType y = getY().getType(), idx = getIndices().getType();
  if (failed(verifyIndexType(*this, getIndices())) ||
      failed(verifyElementShape(*this, y, idx, getAxis())) ||
      failed(verifyReduction(*this, getReduction(), getY(), getUpdates())))
    return failure();
  if (getUpdates().getType().getShape() != idx.getShape())
    return emitOpError("updates ") << getUpdates().getType()
                                   << " must have the shape of indices " << idx;
  return success();
}

int32_t ScatterElementsOp::getReductionCode() {
  return reductionCode(getReduction());
}

StringRef ScatterElementsOp::getRuntimeCallee() {
  return "sc_scatter_elements";
}

// sc_scatter_elements(y desc, y, idx desc, idx, updates, axis, reduction)
void ScatterElementsOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getY()), RuntimeArg::ptr(getY()),
               RuntimeArg::desc(getIndices()), RuntimeArg::ptr(getIndices()),
               RuntimeArg::ptr(getUpdates()), RuntimeArg::i64(getAxis()),
               RuntimeArg::i32(getReductionCode())});
}

//===----------------------------------------------------------------------===//
// kern.scatter_nd
//===----------------------------------------------------------------------===//

LogicalResult ScatterNDOp::verify() {
  MemRefType y = getY().getType(), idx = getIndices().getType();
  if (failed(verifyIndexType(*this, getIndices())) ||
      failed(verifyReduction(*this, getReduction(), getY(), getUpdates())))
    return failure();
  if (y.getRank() < 1 || idx.getRank() < 1)
    return emitOpError("y and indices need rank >= 1");
  int64_t k = idx.getShape().back();
  if (k < 1 || k > y.getRank())
    return emitOpError("index tuples of ")
           << k << " entries must be 1 to the rank of y (" << y.getRank()
           << ")";
  SmallVector<int64_t> want(idx.getShape().drop_back());
  llvm::append_range(want, y.getShape().drop_front(k));
  MemRefType updates = MemRefType::get(want, y.getElementType());
  if (getUpdates().getType() != updates)
    return emitOpError("updates must be ")
           << updates << ", not " << getUpdates().getType();
  return success();
}

int32_t ScatterNDOp::getReductionCode() {
  return reductionCode(getReduction());
}

StringRef ScatterNDOp::getRuntimeCallee() { return "sc_scatter_nd"; }

// sc_scatter_nd(y desc, y, idx desc, idx, updates, reduction)
void ScatterNDOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getY()), RuntimeArg::ptr(getY()),
               RuntimeArg::desc(getIndices()), RuntimeArg::ptr(getIndices()),
               RuntimeArg::ptr(getUpdates()),
               RuntimeArg::i32(getReductionCode())});
}
