//===- PlanWeights.cpp - the kern-plan-weights pass ------------------------===//

#include "dialects/Kern/Transforms/Passes.h"


namespace shardc {
#define GEN_PASS_DEF_KERNPLANWEIGHTS
#include "dialects/Kern/Transforms/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {
struct KernPlanWeightsPass
    : shardc::impl::KernPlanWeightsBase<KernPlanWeightsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    Builder b(&getContext());
    uint64_t cursor = 0;
    func.walk([&](kern::WeightOp op) {
      cursor = kern::alignUp(cursor);
      op.setOffsetAttr(b.getI64IntegerAttr(cursor));
      cursor += kern::bufferBytes(op.getBuffer().getType());
    });
    func->setAttr("kern.weights_bytes",
                  b.getI64IntegerAttr(kern::alignUp(cursor)));
  }
};
} // namespace
