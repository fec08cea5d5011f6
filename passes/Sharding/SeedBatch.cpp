//===- SeedBatch.cpp - dist-seed-batch ------------------------------------===//
//
// Splits the batch over one mesh axis: every program input (and every value
// a pipeline stage receives) whose leading dim the axis divides is seeded
// split along that dim. Data parallelism (`--dp=N`, axis "dp") and
// micro-batching (`--microbatches=M`, axis "mb", see dist-microbatch) are
// both this seed followed by dist-propagate and dist-partition. A batch
// dist-pad-batch padded is seeded where its gather marks it
// (`dist.batch_source`).
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_DISTSEEDBATCH
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct DistSeedBatchPass
    : shardc::impl::DistSeedBatchBase<DistSeedBatchPass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

void DistSeedBatchPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (parts < 1 || axis.empty()) {
    module.emitError("dist-seed-batch needs an axis and parts >= 1");
    return signalPassFailure();
  }
  dist::MeshOp mesh = dist::getOrAddMeshAxis(module, axis, parts);
  if (!mesh)
    return signalPassFailure();
  // `v` split along its leading dim, if `parts` divides it.
  auto seed = [&](OpBuilder &ob, Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getRank() < 1 || type.getDimSize(0) < parts ||
        type.getDimSize(0) % parts != 0)
      return false;
    auto shard = ob.create<dist::ShardOp>(
        v.getLoc(), v, dist::splitAlong(mesh, type.getRank(), 0, axis));
    v.replaceAllUsesExcept(shard.getResult(), shard);
    return true;
  };
  int64_t seeded = 0;
  std::string shapes;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    OpBuilder ob = OpBuilder::atBlockBegin(&func.getBody().front());
    for (BlockArgument arg : func.getArguments()) {
      if (seed(ob, arg))
        ++seeded;
      else if (auto t = dyn_cast<RankedTensorType>(arg.getType()))
        if (shapes.size() < 200) {
          shapes += shapes.empty() ? "" : ", ";
          llvm::raw_string_ostream os(shapes);
          os << "input " << arg.getArgNumber() << " is " << t;
        }
    }
    func.walk([&](dist::RecvOp recv) {
      ob.setInsertionPointAfter(recv);
      if (seed(ob, recv.getResult()))
        ++seeded;
    });
    // A padded batch (dist-pad-batch): its rows laid out for the parts.
    func.walk([&](Operation *op) {
      auto dim = op->getAttrOfType<IntegerAttr>("dist.batch_source");
      if (!dim || op->getNumResults() != 1)
        return;
      op->removeAttr("dist.batch_source");
      Value v = op->getResult(0);
      auto type = cast<RankedTensorType>(v.getType());
      int64_t d = dim.getInt();
      if (d < 0 || d >= type.getRank() || type.getDimSize(d) % parts != 0)
        return;
      ob.setInsertionPointAfter(op);
      auto shard = ob.create<dist::ShardOp>(
          v.getLoc(), v, dist::splitAlong(mesh, type.getRank(), d, axis));
      v.replaceAllUsesExcept(shard.getResult(), shard);
      ++seeded;
    });
  }
  // A batch of one row: each part computes it (nothing to split).
  if (seeded == 0 && dist::batchRows(module) == 1)
    return;
  if (seeded == 0) {
    module.emitError("cannot split the batch into ")
        << static_cast<int64_t>(parts) << " parts (axis \"" << axis
        << "\"): no input has a leading (batch) dim that " << static_cast<int64_t>(parts)
        << " divides" << (shapes.empty() ? "" : " (" + shapes + ")");
    return signalPassFailure();
  }
}
