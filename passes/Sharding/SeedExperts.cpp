//===- SeedExperts.cpp - dist-seed-experts --------------------------------===//
//
// Expert parallelism: the stacked expert weights of every graph.moe split
// along the experts over mesh axis "ep" (dist-partition turns the op into a
// dist.moe that moves tokens to their experts' ranks).
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_DISTSEEDEXPERTS
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct DistSeedExpertsPass
    : shardc::impl::DistSeedExpertsBase<DistSeedExpertsPass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

void DistSeedExpertsPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (ep < 1) {
    module.emitError("dist-seed-experts needs ep >= 1");
    return signalPassFailure();
  }
  SmallVector<graph::MoeOp> moes;
  module.walk([&](graph::MoeOp op) { moes.push_back(op); });
  if (moes.empty()) {
    module.emitError("--ep=")
        << static_cast<int64_t>(ep)
        << ": the model has no mixture-of-experts layer (graph.moe) to "
           "split; expert parallelism needs one (is it fused? see "
           "--fusion-report)";
    return signalPassFailure();
  }
  for (graph::MoeOp op : moes)
    if (op.getNumExperts() % ep != 0) {
      op.emitError("its ")
          << op.getNumExperts() << " experts do not split over --ep="
          << static_cast<int64_t>(ep);
      return signalPassFailure();
    }
  dist::MeshOp mesh = dist::getOrAddMeshAxis(module, "ep", ep);
  if (!mesh)
    return signalPassFailure();
  MLIRContext *ctx = &getContext();
  Builder b(ctx);
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  auto experts = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<Attribute> dims{b.getStrArrayAttr({"ep"})};
    for (int64_t d = 1; d < type.getRank(); ++d)
      dims.push_back(b.getArrayAttr({}));
    return dist::ShardingAttr::get(ctx, meshRef, b.getArrayAttr(dims),
                                   ArrayAttr());
  };
  for (graph::MoeOp op : moes) {
    OpBuilder ob(op);
    for (OpOperand *operand : {&op.getGateUpMutable(), &op.getDownMutable()}) {
      Value v = operand->get();
      operand->set(ob.create<dist::ShardOp>(op.getLoc(), v, experts(v)));
    }
  }
}
