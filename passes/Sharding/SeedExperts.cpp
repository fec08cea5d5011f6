//===- SeedExperts.cpp - dist-seed-experts --------------------------------===//
//
// Expert parallelism: the stacked expert weights of every graph.moe split
// along the experts over mesh axis "ep" (dist-partition turns the op into a
// dist.moe that moves tokens to their experts' ranks).
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "passes/Sharding/ExpertPlacement.h"

#include <cmath>
#include <cstring>

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
  LogicalResult place(graph::MoeOp op, ArrayRef<int64_t> layerLoads,
                      int64_t copies);
};

/// The rows of constant `v` ([E, ..]) in the order of `slots`: [S, ..].
FailureOr<Value> placeRows(OpBuilder &b, graph::MoeOp op, Value v,
                           ArrayRef<int64_t> slots, StringRef key) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return op.emitError("expert load balancing moves the experts' weights "
                        "at compile time, but they are not constants");
  auto type = cast<RankedTensorType>(v.getType());
  int64_t eb = type.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t row = type.getNumElements() / type.getDimSize(0) * eb;
  ArrayRef<char> raw = graph::rawElementData(c.getValue());
  bool splat = raw.size() == static_cast<size_t>(eb);
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = static_cast<int64_t>(slots.size());
  auto placed = RankedTensorType::get(shape, type.getElementType());
  ElementsAttr attr = graph::elementsFromBytes(
      placed, key, [&](MutableArrayRef<char> out) {
        if (eb == 0 || (!splat && static_cast<int64_t>(raw.size()) !=
                                      type.getDimSize(0) * row))
          return false;
        for (auto [s, e] : llvm::enumerate(slots))
          for (int64_t i = 0; i < row; i += eb)
            std::memcpy(out.data() + s * row + i,
                        splat ? raw.data() : raw.data() + e * row + i, eb);
        return true;
      });
  if (!attr)
    return op.emitError("cannot read the experts' weights to place them");
  return b.create<graph::ConstantOp>(op.getLoc(), attr).getResult();
}

LogicalResult DistSeedExpertsPass::place(graph::MoeOp op,
                                         ArrayRef<int64_t> layerLoads,
                                         int64_t copies) {
  ExpertPlacement p = placeExperts(layerLoads, ep, copies);
  OpBuilder b(op);
  FailureOr<Value> gu = placeRows(b, op, op.getGateUp(), p.slots,
                                  "moe.gate_up.placed");
  if (failed(gu))
    return failure();
  FailureOr<Value> dn =
      placeRows(b, op, op.getDown(), p.slots, "moe.down.placed");
  if (failed(dn))
    return failure();
  op.getGateUpMutable().set(*gu);
  op.getDownMutable().set(*dn);
  // Biases go with their experts.
  for (OpOperand &bias : op.getGateUpBiasMutable()) {
    FailureOr<Value> placed = placeRows(b, op, bias.get(), p.slots,
                                        "moe.gate_up_bias.placed");
    if (failed(placed))
      return failure();
    bias.set(*placed);
  }
  for (OpOperand &bias : op.getDownBiasMutable()) {
    FailureOr<Value> placed =
        placeRows(b, op, bias.get(), p.slots, "moe.down_bias.placed");
    if (failed(placed))
      return failure();
    bias.set(*placed);
  }
  auto rounded = [](ArrayRef<double> v) {
    SmallVector<int64_t> out;
    for (double x : v)
      out.push_back(static_cast<int64_t>(std::llround(x)));
    return out;
  };
  op->setAttr("dist.placement", b.getDenseI64ArrayAttr(p.slots));
  op->setAttr("dist.load_before", b.getDenseI64ArrayAttr(rounded(p.before)));
  op->setAttr("dist.load_after", b.getDenseI64ArrayAttr(rounded(p.after)));
  return success();
}

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
  // Copies that fill the slots up to a multiple of the ranks: 6 experts
  // over --ep=4 take 2 copies (8 slots, 2 per rank), the way EPLB's
  // redundant experts do (the hottest ones, by calibration; without it,
  // the first ones).
  auto fill = [&](int64_t slots) {
    return (slots + ep - 1) / ep * ep - slots;
  };
  if (redundant < 0 || (redundant > 0 && loads.empty())) {
    module.emitError("--ep-redundant=")
        << static_cast<int64_t>(redundant)
        << ": the copies go to the hottest experts, which calibration "
           "finds: give --calibration DIR";
    return signalPassFailure();
  }
  if (loads.empty()) {
    for (graph::MoeOp op : moes) {
      int64_t extra = fill(op.getNumExperts());
      if (extra == 0)
        continue;
      SmallVector<int64_t> uniform(op.getNumExperts(), 1);
      if (failed(place(op, uniform, extra)))
        return signalPassFailure();
      op->setAttr("dist.load_uniform", UnitAttr::get(&getContext()));
    }
  } else {
    int64_t want = 0;
    for (graph::MoeOp op : moes)
      want += op.getNumExperts();
    if (static_cast<int64_t>(loads.size()) != want) {
      module.emitError("the calibration counted ")
          << loads.size() << " expert loads; the model's " << moes.size()
          << " mixture-of-experts layers have " << want << " experts";
      return signalPassFailure();
    }
    size_t at = 0;
    for (graph::MoeOp op : moes) {
      int64_t experts = op.getNumExperts();
      ArrayRef<int64_t> layer = ArrayRef<int64_t>(loads).slice(at, experts);
      at += experts;
      if (failed(place(op, layer, redundant + fill(experts + redundant))))
        return signalPassFailure();
    }
  }
  dist::MeshOp mesh = dist::getOrAddMeshAxis(module, dist::kExpertAxis, ep);
  if (!mesh)
    return signalPassFailure();
  for (graph::MoeOp op : moes) {
    OpBuilder ob(op);
    SmallVector<OpOperand *> experts{&op.getGateUpMutable(),
                                     &op.getDownMutable()};
    for (OpOperand &bias : op.getGateUpBiasMutable())
      experts.push_back(&bias);
    for (OpOperand &bias : op.getDownBiasMutable())
      experts.push_back(&bias);
    for (OpOperand *operand : experts) {
      Value v = operand->get();
      int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
      operand->set(ob.create<dist::ShardOp>(
          op.getLoc(), v, dist::splitAlong(mesh, rank, 0, dist::kExpertAxis)));
    }
  }
}
