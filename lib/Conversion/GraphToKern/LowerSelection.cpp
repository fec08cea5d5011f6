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
    l.call(op.getLoc(), "sc_gather", {l.get(op.getData()), l.get(op.getIndices())},
           {out}, {l.desc(0), l.ptr(0), l.desc(1), l.ptr(1), l.ptr(2),
                   l.i64(op.getAxis())});
    return success();
  });
  addLowering<graph::TopKOp>(t, [](graph::TopKOp op, KernLowering &l) {
    Value values = l.result(op.getValues());
    Value indices = l.result(op.getIndices());
    l.call(op.getLoc(), "sc_topk", {l.get(op.getInput())}, {values, indices},
           {l.desc(0), l.ptr(0), l.ptr(1), l.ptr(2), l.i64(op.getAxis()),
            l.i64(op.getK()), l.i32(op.getLargest()), l.i32(op.getSorted())});
    return success();
  });
  addLowering<graph::ArgMaxOp>(t, [](graph::ArgMaxOp op, KernLowering &l) {
    Value out = l.result(op.getOutput());
    l.call(op.getLoc(), "sc_arg_max", {l.get(op.getInput())}, {out},
           {l.desc(0), l.ptr(0), l.ptr(1), l.i64(op.getAxis()),
            l.i32(op.getSelectLastIndex())});
    return success();
  });
  addLowering<graph::CumSumOp>(t, [](graph::CumSumOp op, KernLowering &l) {
    Value out = l.result(op.getOutput());
    l.call(op.getLoc(), "sc_cumsum", {l.get(op.getInput())}, {out},
           {l.desc(0), l.ptr(0), l.ptr(1), l.i64(op.getAxis()),
            l.i32(op.getExclusive()), l.i32(op.getReverse())});
    return success();
  });
  addLowering<graph::TriluOp>(t, [](graph::TriluOp op, KernLowering &l) {
    Value out = l.result(op.getOutput());
    l.call(op.getLoc(), "sc_trilu", {l.get(op.getInput())}, {out},
           {l.desc(0), l.ptr(0), l.ptr(1), l.i32(op.getUpper()),
            l.i64(op.getK())});
    return success();
  });
}
