//===- ConvSharding.cpp - rules of convolutions and pooling ---------------===//
//
//   conv  x [N, C, sp..] * w [O, C/g, k..] (+ bias [O]) -> y [N, O, sp'..]:
//         N parallel; with g groups the channels are compound factors
//         C = (g, c), O = (g, o): g and o parallel, c a sum reduction
//         (nothing to sum for depthwise, c = 1); spatial dims and the
//         kernel window need replication (halos are not exchanged)
//   conv_transpose  w is [C, O/g, k..]: the same factors, w's dims swapped
//   max_pool, average_pool: N and C parallel, windows need replication;
//         max_pool's indices count over the whole tensor, so a used
//         indices result leaves the op without a rule
//   global_average_pool: N and C parallel, the averaged dims replicated
//   resize, pad: dims they change need replication, the rest is parallel
//
// A grouped convolution (and a fused one) whose input channels arrive
// split holds the groups of its rank's channels: its own partitioning is
// the generic rewrite with the local group count (partitionGroupedConv).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

using namespace mlir;
using namespace shardc::graph;

using Dims = ShardingRule::ValueFactors;

static ShapedType typeOf(Value v) { return cast<ShapedType>(v.getType()); }

/// The rule of a (transposed) convolution with optional bias and residual
/// (`residual` has y's type); `sumChannels` is false when an epilogue after
/// the sum forbids partial sums.
ShardingRule shardc::graph::convRule(Operation *op, Value x, Value w,
                                     Value bias, Value residual, Value y,
                                     int64_t groups, bool transposed,
                                     bool sumChannels) {
  ShardingRule rule;
  ShapedType tx = typeOf(x), tw = typeOf(w), ty = typeOf(y);
  int64_t c = tx.getDimSize(1), o = ty.getDimSize(1);
  int64_t n = rule.addFactor(tx.getDimSize(0), FactorKind::Parallel);
  SmallVector<int64_t, 2> cDims, oDims;
  int64_t cPer = rule.addFactor(c / groups, sumChannels
                                                ? FactorKind::Reduction
                                                : FactorKind::NeedReplication,
                                "sum");
  int64_t oPer = rule.addFactor(o / groups, FactorKind::Parallel);
  if (groups > 1) {
    int64_t g = rule.addFactor(groups, FactorKind::Parallel);
    cDims = {g, cPer};
    oDims = {g, oPer};
  } else {
    cDims = {cPer};
    oDims = {oPer};
  }
  Dims xDims = {{n}, cDims}, yDims = {{n}, oDims};
  Dims wDims = transposed ? Dims{cDims, {oPer}} : Dims{oDims, {cPer}};
  for (int64_t d = 2; d < tx.getRank(); ++d)
    xDims.push_back(
        {rule.addFactor(tx.getDimSize(d), FactorKind::NeedReplication)});
  for (int64_t d = 2; d < ty.getRank(); ++d)
    yDims.push_back(
        {rule.addFactor(ty.getDimSize(d), FactorKind::NeedReplication)});
  for (int64_t d = 2; d < tw.getRank(); ++d)
    wDims.push_back(
        {rule.addFactor(tw.getDimSize(d), FactorKind::NeedReplication)});
  rule.operands = {xDims, wDims};
  if (bias)
    rule.operands.push_back({oDims});
  if (residual)
    rule.operands.push_back(yDims);
  rule.results = {yDims};
  return rule;
}

static std::optional<ShardingRule> conv(Operation *o) {
  auto op = cast<ConvOp>(o);
  if (typeOf(op.getInput()).getRank() < 3)
    return std::nullopt;
  return convRule(o, op.getInput(), op.getWeight(), op.getBias(), Value(),
                  op.getOutput(), op.getGroup(), false,
                  /*sumChannels=*/!op.getBias());
}

static std::optional<ShardingRule> convTranspose(Operation *o) {
  auto op = cast<ConvTransposeOp>(o);
  if (typeOf(op.getInput()).getRank() < 3)
    return std::nullopt;
  return convRule(o, op.getInput(), op.getWeight(), op.getBias(), Value(),
                  op.getOutput(), op.getGroup(), true,
                  /*sumChannels=*/!op.getBias());
}

/// N and C parallel, every other dim its own replicated factor.
static std::optional<ShardingRule> pool(Operation *o) {
  ShapedType in = typeOf(o->getOperand(0));
  if (in.getRank() < 2)
    return std::nullopt;
  ShardingRule rule;
  int64_t n = rule.addFactor(in.getDimSize(0), FactorKind::Parallel);
  int64_t c = rule.addFactor(in.getDimSize(1), FactorKind::Parallel);
  auto dims = [&](ShapedType t) {
    Dims d = {{n}, {c}};
    for (int64_t i = 2; i < t.getRank(); ++i)
      d.push_back({rule.addFactor(t.getDimSize(i),
                                  FactorKind::NeedReplication)});
    return d;
  };
  rule.operands = {dims(in)};
  for (Value r : o->getResults())
    rule.results.push_back(dims(typeOf(r)));
  return rule;
}

static std::optional<ShardingRule> maxPool(Operation *o) {
  if (!cast<MaxPoolOp>(o).getIndices().use_empty())
    return std::nullopt;
  return pool(o);
}

static std::optional<ShardingRule> changedDims(Operation *o) {
  return equalDimsRule(o);
}

FailureOr<Operation *>
shardc::graph::cloneOnLocalOperands(Operation *o, LocalPartitioner &p,
                                    OpBuilder &b,
                                    ArrayRef<LocalPartitioner::Layout> need) {
  SmallVector<Value> operands;
  for (auto [v, want] : llvm::zip(o->getOperands(), need)) {
    FailureOr<Value> l =
        p.reshard(b, o->getLoc(), p.lookup(v), p.layoutOf(v), want);
    if (failed(l))
      return failure();
    operands.push_back(*l);
  }
  Operation *clone = b.clone(*o);
  clone->setOperands(operands);
  clone->removeAttr("dist.shardings");
  clone->removeAttr("dist.no_rule");
  return clone;
}

FailureOr<bool> shardc::graph::partitionGroupedConv(Operation *o,
                                                    LocalPartitioner &p,
                                                    OpBuilder &b) {
  auto groupAttr = o->getAttrOfType<IntegerAttr>("group");
  int64_t group = groupAttr ? groupAttr.getInt() : 1;
  if (group <= 1)
    return false;
  FailureOr<LocalPartitioner::RuleLayouts> rule = p.ruleLayouts(o);
  if (failed(rule))
    return failure();
  auto xType = cast<ShapedType>(o->getOperand(0).getType());
  int64_t global = xType.getDimSize(1);
  int64_t local = p.localShape(xType, rule->need[0])[1];
  if (local == global || (group * local) % global != 0)
    return false; // the channels whole: the generic rewrite
  FailureOr<Operation *> cloned = cloneOnLocalOperands(o, p, b, rule->need);
  if (failed(cloned))
    return failure();
  Operation *clone = *cloned;
  clone->setAttr("group", IntegerAttr::get(groupAttr.getType(),
                                           group * local / global));
  auto full = cast<RankedTensorType>(o->getResult(0).getType());
  Value result = clone->getResult(0);
  result.setType(p.localType(full, rule->produced[0]));
  LocalPartitioner::Layout layout = rule->produced[0];
  if (!rule->partial.empty())
    layout = p.reducePartial(b, o->getLoc(), result, rule->partial,
                             rule->partialKind, layout, p.recordedLayout(o, 0));
  if (failed(p.define(b, o->getResult(0), result, layout)))
    return failure();
  return true;
}

void shardc::graph::attachConvShardingRules(MLIRContext *ctx) {
  attachRuleAndRewrite<conv, partitionGroupedConv, ConvOp>(ctx);
  attachRule<convTranspose, ConvTransposeOp>(ctx);
  attachRule<maxPool, MaxPoolOp>(ctx);
  attachRule<pool, AveragePoolOp, GlobalAveragePoolOp>(ctx);
  attachRule<changedDims, ResizeOp, PadOp>(ctx);
}
