//===- PadColumns.cpp - graph-pad-columns ---------------------------------===//
//
// A product by a constant [K, N] weight whose output rows are not whole
// 16-byte units gets zero columns up to a multiple of `multiple` and a
// slice back to N. The padded weight is a window of the original's data
// (Slicing.h: padConstantData), so the weights file holds no copy; the
// GEMM's rows become 16-byte aligned, which cuBLASLt's fast kernels need.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"
#include "passes/Sharding/Slicing.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHPADCOLUMNS
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct GraphPadColumnsPass
    : shardc::impl::GraphPadColumnsBase<GraphPadColumnsPass> {
  using Base::Base;
  void runOnOperation() override;
};

/// The padded column count of `op`'s weight, or 0 to leave it.
int64_t paddedColumns(graph::MatMulOp op, int64_t multiple,
                      int64_t minColumns) {
  auto weight = op.getRhs().getDefiningOp<graph::ConstantOp>();
  auto w = cast<RankedTensorType>(op.getRhs().getType());
  auto y = cast<RankedTensorType>(op.getOutput().getType());
  if (!weight || w.getRank() != 2 || !w.hasStaticShape() ||
      !y.hasStaticShape() || multiple < 1)
    return 0;
  unsigned bits = w.getElementTypeBitWidth();
  int64_t n = w.getDimSize(1);
  if (bits % 8 != 0 || n < minColumns || n % multiple == 0 ||
      n * (bits / 8) % 16 == 0 || y.getShape().back() != n)
    return 0;
  return (n + multiple - 1) / multiple * multiple;
}

} // namespace

void GraphPadColumnsPass::runOnOperation() {
  SmallVector<std::pair<graph::MatMulOp, int64_t>> products;
  getOperation().walk([&](graph::MatMulOp op) {
    if (int64_t padded = paddedColumns(op, multiple, minColumns))
      products.push_back({op, padded});
  });
  for (auto [op, padded] : products) {
    auto weight = op.getRhs().getDefiningOp<graph::ConstantOp>();
    OpBuilder b(op);
    Value w = padConstantData(b, weight, 1, padded);
    if (!w)
      continue; // a splat or a window already: left as is
    w.getDefiningOp()->setLoc(weight.getLoc());
    op->setOperand(1, w);
    widenToWeight(op);
    if (weight->use_empty())
      weight.erase();
  }
}
