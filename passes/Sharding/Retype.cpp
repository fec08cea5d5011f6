//===- Retype.cpp - ops whose result types a pass resized -----------------===//

#include "passes/Sharding/Retype.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace shardc;
using graph::SymShape;

void shardc::setShapeAttr(Operation *op, StringRef name,
                          const SymShape &shape) {
  Builder b(op->getContext());
  op->setAttr(name, b.getDenseI64ArrayAttr(shape.bound));
  NamedAttrList mirrors;
  if (auto dict = op->getAttrOfType<DictionaryAttr>(graph::kSymAttr))
    mirrors.assign(dict.getValue());
  if (shape.isSymbolic())
    mirrors.set(name, graph::toAffine(op->getContext(), shape.sym));
  else
    mirrors.erase(name);
  if (mirrors.empty())
    op->removeAttr(graph::kSymAttr);
  else
    op->setAttr(graph::kSymAttr, mirrors.getDictionary(op->getContext()));
}

LogicalResult shardc::followResultTypes(Operation *op, TypeRange before) {
  auto shapeOf = [](Value v) { return graph::dimsOf(v); };
  if (isa<graph::ReshapeOp, graph::ExpandOp, graph::ConstantOfShapeOp>(op))
    setShapeAttr(op, "shape", shapeOf(op->getResult(0)));
  if (auto resize = dyn_cast<graph::ResizeOp>(op);
      resize && !resize.getSizes().empty())
    resize.setSizes(shapeOf(resize).bound);
  if (auto slice = dyn_cast<graph::SliceOp>(op)) {
    // A resized dim of a slice is one it keeps whole (its sharding rule):
    // it stays whole at the new size.
    SymShape was = graph::dimsOf(before.front()), now = shapeOf(slice);
    SmallVector<int64_t> starts(slice.getStarts()), steps(slice.getSteps());
    SymShape ends;
    ends.bound.assign(slice.getEnds().begin(), slice.getEnds().end());
    ends.sym = graph::symAttr(op->getAttrDictionary(), "ends", ends.bound);
    for (size_t d = 0; d < now.size(); ++d)
      if (now.bound[d] != was.bound[d] || now.sym[d] != was.sym[d]) {
        starts[d] = 0;
        ends.bound[d] = now.bound[d];
        ends.sym[d] = now.sym[d];
        steps[d] = 1;
      }
    slice.setStarts(starts);
    setShapeAttr(op, "ends", ends);
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
