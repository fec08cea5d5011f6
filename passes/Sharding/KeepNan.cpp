//===- KeepNan.cpp - dist-keep-nan ----------------------------------------===//
//
// A max or min all-reduce (or reduce-scatter) of floats that keeps a NaN,
// as the reduction on one rank does. NCCL reduces floats with fmaxf/fminf
// and halves with __hmax/__hmin, which return the other operand when one
// is NaN, so a NaN on one rank is lost. Each such collective becomes the
// collective plus an OR of a NaN mask over the same axes (a max of
// booleans) and a select:
//
//   %y = dist.all_reduce %x on @mesh axes = ["tp"] kind = "max"
// becomes
//   %eq  = graph.equal %x, %x            (false where %x is NaN)
//   %nan = graph.not %eq
//   %any = dist.all_reduce %nan ... kind = "max"
//   %r   = dist.all_reduce %x ... kind = "max"
//   %y   = graph.where %any, NaN, %r
//
// The CPU ranks' MPI reductions keep NaN already (comm/MpiComm.cpp's
// NaN-aware ops); the kern pipeline runs this pass for programs with CUDA
// code.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include <limits>

namespace shardc {
#define GEN_PASS_DEF_DISTKEEPNAN
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct DistKeepNanPass : shardc::impl::DistKeepNanBase<DistKeepNanPass> {
  void runOnOperation() override;
};

/// The collective's result with a NaN wherever an input on any rank had
/// one; `collective(v)` builds the same collective on `v`.
Value keepNan(OpBuilder &b, Location loc, Value input, Value reduced,
              function_ref<Value(Value, Type)> collective) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(reduced.getType());
  auto boolIn = inType.clone(b.getI1Type());
  Value same = b.create<graph::EqualOp>(loc, boolIn, input, input);
  Value nan = b.create<graph::NotOp>(loc, boolIn, same);
  Value any = collective(nan, outType.clone(b.getI1Type()));
  auto scalar = RankedTensorType::get({}, outType.getElementType());
  auto elem = cast<FloatType>(outType.getElementType());
  Value quiet = b.create<graph::ConstantOp>(
      loc, DenseElementsAttr::get(
               scalar, APFloat::getQNaN(elem.getFloatSemantics())));
  return b.create<graph::WhereOp>(loc, outType, any, quiet, reduced);
}

} // namespace

void DistKeepNanPass::runOnOperation() {
  SmallVector<Operation *> extrema;
  getOperation().walk([&](Operation *op) {
    StringRef kind;
    if (auto ar = dyn_cast<dist::AllReduceOp>(op))
      kind = ar.getKind();
    else if (auto rs = dyn_cast<dist::ReduceScatterOp>(op))
      kind = rs.getKind();
    else
      return;
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if ((kind == "max" || kind == "min") &&
        isa<FloatType>(type.getElementType()))
      extrema.push_back(op);
  });
  for (Operation *op : extrema) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    Value input = op->getOperand(0), result = op->getResult(0);
    Value y;
    if (auto ar = dyn_cast<dist::AllReduceOp>(op))
      y = keepNan(b, op->getLoc(), input, result, [&](Value v, Type t) {
        return b.create<dist::AllReduceOp>(op->getLoc(), t, v,
                                           ar.getMeshAttr(), ar.getAxesAttr(),
                                           b.getStringAttr("max"));
      });
    else {
      auto rs = cast<dist::ReduceScatterOp>(op);
      y = keepNan(b, op->getLoc(), input, result, [&](Value v, Type t) {
        return b.create<dist::ReduceScatterOp>(
            op->getLoc(), t, v, rs.getMeshAttr(), rs.getAxesAttr(),
            rs.getDimAttr(), b.getStringAttr("max"));
      });
    }
    result.replaceAllUsesExcept(y, y.getDefiningOp());
  }
}
