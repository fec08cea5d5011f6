//===- Retype.cpp - ops whose result types a pass resized -----------------===//

#include "passes/Sharding/Retype.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;

LogicalResult shardc::followResultTypes(Operation *op, TypeRange before) {
  auto shapeOf = [](Value v) { return cast<ShapedType>(v.getType()).getShape(); };
  if (auto reshape = dyn_cast<graph::ReshapeOp>(op))
    reshape.setShape(shapeOf(reshape));
  if (auto expand = dyn_cast<graph::ExpandOp>(op))
    expand.setShape(shapeOf(expand));
  if (auto cos = dyn_cast<graph::ConstantOfShapeOp>(op))
    cos.setShape(shapeOf(cos));
  if (auto resize = dyn_cast<graph::ResizeOp>(op);
      resize && !resize.getSizes().empty())
    resize.setSizes(shapeOf(resize));
  if (auto slice = dyn_cast<graph::SliceOp>(op)) {
    // A resized dim of a slice is one it keeps whole (its sharding rule):
    // it stays whole at the new size.
    ArrayRef<int64_t> was = cast<ShapedType>(before.front()).getShape(),
                      now = shapeOf(slice);
    SmallVector<int64_t> starts(slice.getStarts()), ends(slice.getEnds()),
        steps(slice.getSteps());
    for (size_t d = 0; d < now.size(); ++d)
      if (now[d] != was[d]) {
        starts[d] = 0;
        ends[d] = now[d];
        steps[d] = 1;
      }
    slice.setStarts(starts);
    slice.setEnds(ends);
    slice.setSteps(steps);
  }
  auto infer = dyn_cast<InferTypeOpInterface>(op);
  if (!infer)
    return success();
  SmallVector<Type> inferred;
  if (failed(infer.inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getAttrDictionary(), op->getPropertiesStorage(),
          op->getRegions(), inferred)) ||
      TypeRange(inferred) != op->getResultTypes())
    return failure();
  return success();
}
