//===- LowerScatter.cpp - gather_elements, scatter_elements, scatter_nd ---===//
//
// Runtime kernels (KernScatterOps.td). A scatter's result starts as a copy
// of its data (a kern.map, which also fills a splat constant without
// storing it), that the scatter kernel then updates in place.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

/// The result buffer of scatter `op`, holding a copy of `data`.
static Value copiedData(Operation *op, Value data, KernLowering &l) {
  (void)l.elementwise(op, {data}, [](Scalar &, ValueRange args) {
    return SmallVector<Value>(args);
  });
  return l.buffers.lookup(op->getResult(0));
}

void shardc::kern::addScatterLowerings(LoweringTable &t) {
  addLowering<graph::GatherElementsOp>(
      t, [](graph::GatherElementsOp op, KernLowering &l) {
        Value out = l.result(op.getOutput());
        l.b.create<GatherElementsOp>(op.getLoc(), l.get(op.getData()),
                                     l.get(op.getIndices()), out, op.getAxis());
        return success();
      });
  addLowering<graph::ScatterElementsOp>(
      t, [](graph::ScatterElementsOp op, KernLowering &l) {
        Value indices = l.get(op.getIndices());
        Value updates = l.get(op.getUpdates());
        Value y = copiedData(op, op.getData(), l);
        l.b.create<ScatterElementsOp>(op.getLoc(), indices, updates, y,
                                      op.getAxis(), op.getReduction());
        return success();
      });
  addLowering<graph::ScatterNDOp>(
      t, [](graph::ScatterNDOp op, KernLowering &l) {
        Value indices = l.get(op.getIndices());
        Value updates = l.get(op.getUpdates());
        Value y = copiedData(op, op.getData(), l);
        l.b.create<ScatterNDOp>(op.getLoc(), indices, updates, y,
                                op.getReduction());
        return success();
      });
}
