//===- LowerSelection.cpp - gather, top-k, arg-max, cumsum, trilu ----------===//
//
// Data-dependent indexing and scans call runtime kernels.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

void shardc::kern::addSelectionLowerings(LoweringTable &t) {
  addLowering<graph::GatherOp>(t, [](graph::GatherOp op, KernLowering &l) {
    Value out = l.result(op.getOutput());
    Value data = l.get(op.getData());
    Value indices = l.get(op.getIndices());
    l.b.create<GatherOp>(op.getLoc(), data, indices, out, op.getAxis(),
                         op.getPartAttr());
    return success();
  });
  addLowering<graph::TopKOp>(t, [](graph::TopKOp op, KernLowering &l) {
    Value values = l.result(op.getValues());
    Value indices = l.result(op.getIndices());
    l.b.create<TopKOp>(op.getLoc(), l.get(op.getInput()), values, indices,
                       op.getAxis(), op.getK(), op.getLargest(),
                       op.getSorted());
    return success();
  });
  addLowering<graph::ArgMaxOp>(t, [](graph::ArgMaxOp op, KernLowering &l) {
    Value out = l.result(op.getOutput());
    l.b.create<ArgMaxOp>(op.getLoc(), l.get(op.getInput()), out, op.getAxis(),
                         op.getSelectLastIndex());
    return success();
  });
  addLowering<graph::CumSumOp>(t, [](graph::CumSumOp op, KernLowering &l) {
    Value out = l.result(op.getOutput());
    l.b.create<CumSumOp>(op.getLoc(), l.get(op.getInput()), out, op.getAxis(),
                         op.getExclusive(), op.getReverse());
    return success();
  });
  addLowering<graph::TriluOp>(t, [](graph::TriluOp op, KernLowering &l) {
    Value out = l.result(op.getOutput());
    l.b.create<TriluOp>(op.getLoc(), l.get(op.getInput()), out, op.getUpper(),
                        op.getK());
    return success();
  });
}
