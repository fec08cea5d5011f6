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
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    Builder b(&getContext());
    SmallVector<kern::WeightOp> weights;
    func.walk([&](kern::WeightOp op) { weights.push_back(op); });
    uint64_t cursor = 0;
    auto place = [&](kern::WeightOp op) {
      cursor = kern::alignUp(cursor);
      op.setOffsetAttr(b.getI64IntegerAttr(cursor));
      cursor += kern::bufferBytes(op.getBuffer().getType());
    };
    // A program of several ranks: what they all read alike first, in
    // program order, then the weights whose data differs per rank.
    auto ranks = func->getAttrOfType<DenseI64ArrayAttr>(kern::kRanksAttr);
    auto perRank = [](kern::WeightOp op) {
      return op->hasAttr(kern::kPerRankAttr);
    };
    int64_t alike = 0;
    for (kern::WeightOp op : weights)
      if (!perRank(op))
        alike += kern::alignUp(kern::bufferBytes(op.getBuffer().getType()));
    if (ranks && ranks.size() > 1 && llvm::any_of(weights, perRank) &&
        alike > 0 && alike >= minSharedBytes) {
      for (kern::WeightOp op : weights)
        if (!perRank(op))
          place(op);
      cursor = kern::alignUp(cursor, kern::kSharedWeightsAlignment);
      func->setAttr(kern::kWeightsSharedBytesAttr, b.getI64IntegerAttr(cursor));
      for (kern::WeightOp op : weights)
        if (perRank(op))
          place(op);
    } else {
      llvm::for_each(weights, place);
    }
    func->setAttr("kern.weights_bytes",
                  b.getI64IntegerAttr(kern::alignUp(cursor)));
  }
};
} // namespace
