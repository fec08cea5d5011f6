//===- RuntimeCall.cpp - RuntimeCallOpInterface and shared checks ---------===//

#include "dialects/Kern/IR/RuntimeOps.h"

using namespace mlir;
using namespace shardc::kern;

#include "dialects/Kern/IR/KernInterfaces.cpp.inc"

/// The buffers `op` declares effect `E` on, in operand order.
template <typename E>
static SmallVector<Value> buffersWith(Operation *op) {
  SmallVector<MemoryEffects::EffectInstance> effects;
  cast<MemoryEffectOpInterface>(op).getEffects(effects);
  SmallVector<Value> buffers;
  for (const MemoryEffects::EffectInstance &e : effects)
    if (isa<E>(e.getEffect()) && e.getValue())
      buffers.push_back(e.getValue());
  return buffers;
}

SmallVector<Value> RuntimeCallOpInterface::getReadBuffers() {
  return buffersWith<MemoryEffects::Read>(getOperation());
}

SmallVector<Value> RuntimeCallOpInterface::getWrittenBuffers() {
  return buffersWith<MemoryEffects::Write>(getOperation());
}

std::optional<int64_t> shardc::kern::normalizeAxis(int64_t axis, int64_t rank,
                                                   bool inclusive) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a > rank || (a == rank && !inclusive))
    return std::nullopt;
  return a;
}

int64_t shardc::kern::product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

LogicalResult runtime::verifySameType(Operation *op, Value a, Value b,
                                     StringRef what) {
  if (a.getType() != b.getType())
    return op->emitOpError(what) << " need one type, not " << a.getType()
                                 << " and " << b.getType();
  return success();
}

FailureOr<int64_t> runtime::verifyAxis(Operation *op, int64_t axis,
                                      int64_t rank, bool inclusive) {
  std::optional<int64_t> a = normalizeAxis(axis, rank, inclusive);
  if (!a)
    return op->emitOpError("axis ")
           << axis << " is out of range for rank " << rank;
  return *a;
}
