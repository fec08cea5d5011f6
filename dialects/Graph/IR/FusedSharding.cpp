//===- FusedSharding.cpp - rules of the ops fusion creates ----------------===//
//
//   linear  act(a x b + bias) + residual: a contraction; k is a sum
//           reduction without an activation (a bias and a residual are
//           added after the all-reduce: dist-partition splits them off,
//           Megatron's row-parallel linear)
//   attention  q [.., S, D], k [.., T, D], v [.., T, E] -> [.., S, E]: the
//           leading (batch, head) dims and E are parallel (heads split
//           Megatron-style); S, T and D need replication (the softmax runs
//           over T; causal offsets depend on global positions); the mask
//           broadcasts against [.., S, T]
//   rms_norm: as layer_norm; gelu, swiglu: elementwise
//   fused_conv: conv's rule with a residual; the channel sum is a
//           reduction only without bias, residual and activation
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

using namespace mlir;
using namespace shardc::graph;

using Dims = ShardingRule::ValueFactors;

static ShapedType typeOf(Value v) { return cast<ShapedType>(v.getType()); }

static std::optional<ShardingRule> linear(Operation *o) {
  auto op = cast<LinearOp>(o);
  ShapedType ta = typeOf(op.getA()), tb = typeOf(op.getB()),
             ty = typeOf(op.getOutput());
  if (ta.getRank() < 2 || tb.getRank() < 2)
    return std::nullopt;
  // k is a sum when nothing nonlinear follows it; a bias and a residual
  // are added after the all-reduce (dist-partition splits them off).
  bool plain = op.getActivation() == "none";
  ShardingRule rule;
  int64_t r = ty.getRank();
  Dims yDims;
  for (int64_t d = 0; d < r - 2; ++d)
    yDims.push_back({rule.addFactor(ty.getDimSize(d), FactorKind::Parallel)});
  int64_t m = rule.addFactor(ty.getDimSize(r - 2), FactorKind::Parallel);
  int64_t n = rule.addFactor(ty.getDimSize(r - 1), FactorKind::Parallel);
  int64_t k = rule.addFactor(ta.getDimSize(ta.getRank() - 1),
                             plain ? FactorKind::Reduction
                                   : FactorKind::NeedReplication,
                             "sum");
  Dims yFull = yDims;
  yFull.push_back({m});
  yFull.push_back({n});
  ArrayRef<int64_t> yShape = ty.getShape();
  Dims aDims =
      broadcastFactors(ta.getShape().drop_back(2), yShape.drop_back(2), yDims);
  aDims.push_back({m});
  aDims.push_back({k});
  Dims bDims =
      broadcastFactors(tb.getShape().drop_back(2), yShape.drop_back(2), yDims);
  bDims.push_back({k});
  bDims.push_back({n});
  rule.operands = {aDims, bDims};
  if (Value bias = op.getBias())
    rule.operands.push_back(
        broadcastFactors(typeOf(bias).getShape(), yShape, yFull));
  if (Value residual = op.getResidual())
    rule.operands.push_back(
        broadcastFactors(typeOf(residual).getShape(), yShape, yFull));
  rule.results = {yFull};
  return rule;
}

static std::optional<ShardingRule> attention(Operation *o) {
  auto op = cast<AttentionOp>(o);
  ShapedType q = typeOf(op.getQuery()), k = typeOf(op.getKey()),
             v = typeOf(op.getValue()), y = typeOf(op.getOutput());
  int64_t r = q.getRank();
  if (r < 2 || k.getRank() != r || v.getRank() != r)
    return std::nullopt;
  ShardingRule rule;
  Dims lead;
  for (int64_t d = 0; d < r - 2; ++d)
    lead.push_back({rule.addFactor(q.getDimSize(d), FactorKind::Parallel)});
  int64_t s = rule.addFactor(q.getDimSize(r - 2), FactorKind::NeedReplication);
  int64_t dq = rule.addFactor(q.getDimSize(r - 1), FactorKind::NeedReplication);
  int64_t t = rule.addFactor(k.getDimSize(r - 2), FactorKind::NeedReplication);
  int64_t e = rule.addFactor(v.getDimSize(r - 1), FactorKind::Parallel);
  auto with = [&](int64_t a, int64_t b) {
    Dims dims = lead;
    dims.push_back({a});
    dims.push_back({b});
    return dims;
  };
  rule.operands = {with(s, dq), with(t, dq), with(t, e)};
  if (Value mask = op.getMask()) {
    ShapedType tm = typeOf(mask);
    Dims full = with(s, t);
    SmallVector<int64_t> shape(q.getShape().drop_back(2));
    shape.push_back(q.getDimSize(r - 2));
    shape.push_back(k.getDimSize(r - 2));
    rule.operands.push_back(broadcastFactors(tm.getShape(), shape, full));
  }
  (void)y;
  rule.results = {with(s, e)};
  return rule;
}

static std::optional<ShardingRule> rmsNorm(Operation *o) {
  auto op = cast<RmsNormOp>(o);
  return normRule(o, op.getInput(), op.getAxis());
}

static std::optional<ShardingRule> fusedConv(Operation *o) {
  auto op = cast<FusedConvOp>(o);
  if (typeOf(op.getInput()).getRank() < 3)
    return std::nullopt;
  bool plain = !op.getBias() && !op.getResidual() &&
               op.getActivation() == "none";
  return convRule(o, op.getInput(), op.getWeight(), op.getBias(),
                  op.getResidual(), op.getOutput(), op.getGroup(), false,
                  plain);
}

/// A row-parallel linear (its contraction split, Megatron's) with a bias
/// or residual: the product's partial sums are reduced first, then the
/// bias and residual are added once, in the layout the reduction gives,
/// each taking that layout on the dims it spans. False otherwise (the
/// generic rewrite).
static FailureOr<bool> rowParallel(Operation *o, LocalPartitioner &p,
                                   OpBuilder &b) {
  using Layout = LocalPartitioner::Layout;
  auto op = cast<LinearOp>(o);
  if (!op.getBias() && !op.getResidual())
    return false;
  FailureOr<LocalPartitioner::RuleLayouts> rule = p.ruleLayouts(o);
  if (failed(rule))
    return failure();
  if (rule->partial.empty())
    return false;
  Location loc = op.getLoc();
  SmallVector<Value, 2> operands;
  for (unsigned i : {0u, 1u}) {
    Value v = o->getOperand(i);
    FailureOr<Value> local =
        p.reshard(b, loc, p.lookup(v), p.layoutOf(v), rule->need[i]);
    if (failed(local))
      return failure();
    operands.push_back(*local);
  }
  auto full = cast<RankedTensorType>(op.getType());
  Value result = b.create<LinearOp>(loc, operands[0], operands[1], Value(),
                                    Value(), op.getActivationAttr());
  result.setType(RankedTensorType::get(
      p.localShape(full, rule->produced[0]), full.getElementType()));
  Layout layout =
      p.reducePartial(b, loc, result, rule->partial, rule->partialKind,
                      rule->produced[0], p.recordedLayout(o, 0));
  // Bias and residual broadcast against the result's trailing dims.
  for (Value addend : {op.getBias(), op.getResidual()}) {
    if (!addend)
      continue;
    auto type = cast<RankedTensorType>(addend.getType());
    int64_t lead = full.getRank() - type.getRank();
    Layout want(type.getRank());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (lead + d >= 0 && type.getDimSize(d) == full.getDimSize(lead + d))
        want[d] = layout[lead + d];
    FailureOr<Value> local =
        p.reshard(b, loc, p.lookup(addend), p.layoutOf(addend), want);
    if (failed(local))
      return failure();
    result = b.create<AddOp>(loc, result, *local);
  }
  if (failed(p.define(b, op.getResult(), result, layout)))
    return failure();
  return true;
}

void shardc::graph::attachFusedShardingRules(MLIRContext *ctx) {
  attachRuleAndRewrite<linear, rowParallel, LinearOp>(ctx);
  attachRule<attention, AttentionOp>(ctx);
  attachRule<rmsNorm, RmsNormOp>(ctx);
  attachRuleAndRewrite<fusedConv, partitionGroupedConv, FusedConvOp>(ctx);
}
