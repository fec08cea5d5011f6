//===- CollectiveOps.cpp - verifiers of kern collectives ------------------===//

#include "dialects/Kern/IR/KernOps.h"
#include "shardc/Support/ReductionKinds.h"

using namespace mlir;
using namespace shardc::kern;

/// Axis and group size in range, one element type, and the output holding
/// `outPerIn` times the input's elements (or the input `inPerOut` times the
/// output's).
template <typename Op>
static LogicalResult verifyCollective(Op op, int64_t outPerIn,
                                      int64_t inPerOut) {
  // I64Attr accessors are unsigned.
  int64_t axis = static_cast<int64_t>(op.getAxis());
  int64_t group = static_cast<int64_t>(op.getGroupSize());
  if (axis < 0)
    return op.emitOpError("mesh axis ") << axis << " is negative";
  if (group < 1)
    return op.emitOpError("group size ") << group << " is below 1";
  auto in = op.getInput().getType(), out = op.getOutput().getType();
  if (in.getElementType() != out.getElementType())
    return op.emitOpError("input and output element types differ (")
           << in.getElementType() << " vs " << out.getElementType() << ")";
  if (in.getNumElements() * outPerIn != out.getNumElements() * inPerOut)
    return op.emitOpError("output has ")
           << out.getNumElements() << " elements; expected "
           << in.getNumElements() * outPerIn / inPerOut;
  // With dynamic dims the counts agree for every value of the symbols: the
  // runtime moves the run's elements, and block r sits at r times them.
  Value input = op.getInput(), output = op.getOutput();
  if (isSymbolic(input) || isSymbolic(output)) {
    shardc::sym::Expr inCount = shardc::sym::product(symShape(input)),
                      outCount = shardc::sym::product(symShape(output));
    if (inCount * shardc::sym::Expr(outPerIn) !=
        outCount * shardc::sym::Expr(inPerOut))
      return op.emitOpError("output has ")
             << outCount.str() << " elements; expected "
             << (inCount * shardc::sym::Expr(outPerIn)).str() << " / "
             << inPerOut;
  }
  return success();
}

static LogicalResult verifyKind(Operation *op, StringRef kind) {
  if (!shardc::isCollectiveReduction(kind))
    return op->emitOpError("kind '")
           << kind << "': expected sum, max, min or prod";
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (failed(verifyKind(*this, getKind())))
    return failure();
  return verifyCollective(*this, 1, 1);
}

LogicalResult AllGatherOp::verify() {
  return verifyCollective(*this, getGroupSize(), 1);
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyKind(*this, getKind())))
    return failure();
  return verifyCollective(*this, 1, getGroupSize());
}

LogicalResult AllToAllOp::verify() {
  if (static_cast<int64_t>(getGroupSize()) < 1)
    return emitOpError("group size ")
           << static_cast<int64_t>(getGroupSize()) << " is below 1";
  if (getInput().getType().getNumElements() %
          static_cast<int64_t>(getGroupSize()) !=
      0)
    return emitOpError("input of ")
           << getInput().getType().getNumElements()
           << " elements does not split into " << getGroupSize() << " blocks";
  if (isSymbolic(getInput()) &&
      !shardc::sym::product(symShape(getInput()))
           .divExact(shardc::sym::Expr(static_cast<int64_t>(getGroupSize()))))
    return emitOpError("input of ")
           << shardc::sym::product(symShape(getInput())).str()
           << " elements does not split into " << getGroupSize()
           << " blocks for every value of the dynamic dims";
  return verifyCollective(*this, 1, 1);
}

/// Axis, group size and a peer offset that stays inside the group.
template <typename Op> static LogicalResult verifyPointToPoint(Op op) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  int64_t group = static_cast<int64_t>(op.getGroupSize());
  if (axis < 0)
    return op.emitOpError("mesh axis ") << axis << " is negative";
  if (group < 2)
    return op.emitOpError("group size ")
           << group << ": a point-to-point peer needs at least 2 ranks";
  int64_t offset = op.getOffset();
  if (offset == 0 || offset <= -group || offset >= group)
    return op.emitOpError("peer offset ")
           << offset << " is not a peer in a group of " << group;
  return success();
}

LogicalResult SendOp::verify() { return verifyPointToPoint(*this); }
LogicalResult RecvOp::verify() { return verifyPointToPoint(*this); }
