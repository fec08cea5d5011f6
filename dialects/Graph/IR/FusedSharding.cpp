//===- FusedSharding.cpp - rules of the ops fusion creates ----------------===//
//
//   linear  act(a x b + bias) + residual: a contraction; k is a sum
//           reduction without an activation (a bias and a residual are
//           added after the all-reduce: dist-partition splits them off,
//           Megatron's row-parallel linear)
//   linear_int8  the same contraction of int8 a and b: the column scales
//           (and the bias) split with n, the row scales with a's rows;
//           the int32 partial sums are scaled to f32 on each rank before
//           the all-reduce (a and b's scales are constant along k; a
//           dynamic row scale over a split k is a max all-reduced first,
//           by reduce_max's rule)
//   attention  q [.., S, D], k [.., T, D], v [.., T, E] -> [.., S, E]: the
//           leading (batch, head) dims and E are parallel (heads split
//           Megatron-style); S, T and D need replication (the softmax runs
//           over T; causal offsets depend on global positions); the mask
//           broadcasts against [.., S, T]
//   rms_norm: as layer_norm; gelu, swiglu: elementwise
//   fused_conv: conv's rule with a residual; the channel sum is a
//           reduction only without bias, residual and activation
//   conv_int8: conv's rule, the input channels whole (scales and epilogue
//           follow the sums); split on its output channels, each rank
//           keeps its block of the per-channel scales (an attribute)
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

#include <type_traits>

using namespace mlir;
using namespace shardc::graph;

using Dims = ShardingRule::ValueFactors;

static ShapedType typeOf(Value v) { return cast<ShapedType>(v.getType()); }

/// The rule of a linear layer y [.., M, N] = act(a [.., M, K] x b [.., K, N]
/// + bias) + residual; `scales` are int8's (row scales [.., M, 1], column
/// scales [N]), null for graph.linear.
static std::optional<ShardingRule>
linearRule(Value a, Value bm, Value rowScale, Value colScale, Value bias,
           Value residual, Value y, StringRef activation, bool int8) {
  ShapedType ta = typeOf(a), tb = typeOf(bm), ty = typeOf(y);
  if (ta.getRank() < 2 || tb.getRank() < 2)
    return std::nullopt;
  // k is a sum when nothing nonlinear follows it; a bias and a residual
  // are added after the all-reduce (dist-partition splits them off).
  bool plain = activation == "none";
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
  if (int8) {
    if (rowScale) // [.., M, 1]: a's rows
      rule.operands.push_back(
          broadcastFactors(typeOf(rowScale).getShape(), yShape, yFull));
    rule.operands.push_back(
        broadcastFactors(typeOf(colScale).getShape(), yShape, yFull));
  }
  if (bias)
    rule.operands.push_back(
        broadcastFactors(typeOf(bias).getShape(), yShape, yFull));
  if (residual)
    rule.operands.push_back(
        broadcastFactors(typeOf(residual).getShape(), yShape, yFull));
  rule.results = {yFull};
  return rule;
}

static std::optional<ShardingRule> linear(Operation *o) {
  auto op = cast<LinearOp>(o);
  return linearRule(op.getA(), op.getB(), Value(), Value(), op.getBias(),
                    op.getResidual(), op.getOutput(), op.getActivation(),
                    /*int8=*/false);
}

static std::optional<ShardingRule> linearInt8(Operation *o) {
  auto op = cast<LinearInt8Op>(o);
  return linearRule(op.getA(), op.getB(), op.getAScale(), op.getBScale(),
                    op.getBias(), op.getResidual(), op.getOutput(),
                    op.getActivation(), /*int8=*/true);
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

/// An int8 convolution: a convolution's rule whose input channels need
/// replication (the scales and epilogue follow the sums), the run-time
/// scale and zero point scalars.
static std::optional<ShardingRule> convInt8(Operation *o) {
  auto op = cast<ConvInt8Op>(o);
  if (typeOf(op.getInput()).getRank() < 3)
    return std::nullopt;
  ShardingRule rule =
      convRule(o, op.getInput(), op.getWeight(), op.getBias(), op.getResidual(),
               op.getOutput(), op.getGroup(), false, /*sumChannels=*/false);
  if (op.getDynamicScale())
    rule.operands.push_back(Dims{});
  if (op.getDynamicZeroPoint())
    rule.operands.push_back(Dims{});
  return rule;
}

/// An int8 convolution split on its output channels: the rank's filters,
/// bias and residual (the generic rewrite's operands) with the rank's
/// block of the per-channel `scales` (an attribute, which the generic
/// rewrite would keep whole); with its input channels split (a grouped
/// convolution after a split one), the local group count, as
/// partitionGroupedConv.
static FailureOr<bool> partitionConvInt8(Operation *o, LocalPartitioner &p,
                                         OpBuilder &b) {
  auto op = cast<ConvInt8Op>(o);
  FailureOr<LocalPartitioner::RuleLayouts> rule = p.ruleLayouts(o);
  if (failed(rule))
    return failure();
  auto full = cast<RankedTensorType>(op.getType());
  int64_t channels = full.getDimSize(1);
  auto [parts, index] = p.part(rule->produced[0][1]);
  auto xType = cast<ShapedType>(op.getInput().getType());
  int64_t globalIn = xType.getDimSize(1);
  int64_t localIn = p.localShape(xType, rule->need[0])[1];
  int64_t group = op.getGroup();
  if (parts == 1 && localIn == globalIn)
    return false; // channels whole: the generic rewrite
  if (channels % parts != 0 || (group * localIn) % globalIn != 0 ||
      !rule->partial.empty())
    return false;
  FailureOr<Operation *> cloned = cloneOnLocalOperands(o, p, b, rule->need);
  if (failed(cloned))
    return failure();
  auto clone = cast<ConvInt8Op>(*cloned);
  ArrayRef<float> scales = op.getScales();
  SmallVector<float> local(scales);
  if (static_cast<int64_t>(scales.size()) == channels && parts > 1) {
    int64_t block = channels / parts;
    local.assign(scales.begin() + index * block,
                 scales.begin() + (index + 1) * block);
  }
  clone.setScales(local);
  clone.setGroup(group * localIn / globalIn);
  clone.getOutput().setType(p.localType(full, rule->produced[0]));
  if (failed(p.define(b, op.getOutput(), clone.getOutput(), rule->produced[0])))
    return failure();
  return true;
}

/// `value` (the result's local form, in `layout`) combined with each of
/// `operands` (each broadcasting against `full`'s trailing dims, resharded
/// to `layout` on the dims it spans) by `combine`, in order.
template <class Combine>
static FailureOr<Value> applyEach(LocalPartitioner &p, OpBuilder &b,
                                  Location loc, Value value,
                                  RankedTensorType full,
                                  const LocalPartitioner::Layout &layout,
                                  ArrayRef<Value> operands, Combine combine) {
  for (Value operand : operands) {
    if (!operand)
      continue;
    auto type = cast<RankedTensorType>(operand.getType());
    int64_t lead = full.getRank() - type.getRank();
    LocalPartitioner::Layout want(type.getRank());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (lead + d >= 0 && type.getDimSize(d) == full.getDimSize(lead + d))
        want[d] = layout[lead + d];
    FailureOr<Value> local =
        p.reshard(b, loc, p.lookup(operand), p.layoutOf(operand), want);
    if (failed(local))
      return failure();
    value = combine(value, *local);
  }
  return value;
}

/// A row-parallel linear (its contraction split, Megatron's) with a bias
/// or residual: the product's partial sums are reduced first, then the
/// bias and residual are added once, in the layout the reduction gives,
/// each taking that layout on the dims it spans. False otherwise (the
/// generic rewrite).
///
/// An int8 linear's partial sums are int32 and exact, so they are reduced
/// as integers (graph.matmul_integer, a sum all-reduce of int32) and
/// scaled once after, in linear_int8's order (the column scales, the row
/// scales, the bias, the residual): the ranks give the one-rank program's
/// values, where f32 partials added in another order would round
/// differently and move the next quantization's steps.
template <class Op>
static FailureOr<bool> rowParallel(Operation *o, LocalPartitioner &p,
                                   OpBuilder &b) {
  using Layout = LocalPartitioner::Layout;
  constexpr bool int8 = std::is_same_v<Op, LinearInt8Op>;
  auto op = cast<Op>(o);
  if (!int8 && !op.getBias() && !op.getResidual())
    return false;
  FailureOr<LocalPartitioner::RuleLayouts> rule = p.ruleLayouts(o);
  if (failed(rule))
    return failure();
  if (rule->partial.empty())
    return false;
  Location loc = op.getLoc();
  // The product's operands: a and b.
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
  RankedTensorType localType = p.localType(full, rule->produced[0]);
  Value result;
  if constexpr (int8) {
    Value zero = b.create<ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, b.getI8Type()),
                                    b.getI8IntegerAttr(0)));
    result = b.create<MatMulIntegerOp>(loc, localType.clone(b.getI32Type()),
                                       operands[0], operands[1], zero, zero);
  } else {
    result = b.create<LinearOp>(loc, operands[0], operands[1], Value(),
                                Value(), op.getActivationAttr());
    result.setType(localType);
  }
  Layout layout =
      p.reducePartial(b, loc, result, rule->partial, rule->partialKind,
                      rule->produced[0], p.recordedLayout(o, 0));
  FailureOr<Value> y = result;
  if constexpr (int8) {
    auto f32 = cast<RankedTensorType>(result.getType()).clone(b.getF32Type());
    Value acc = b.create<CastOp>(loc, f32, result,
                                 TypeAttr::get(b.getF32Type()));
    y = applyEach(p, b, loc, acc, full, layout,
                  {op.getBScale(), op.getAScale()}, [&](Value x, Value s) {
                    return b.create<MulOp>(loc, x, s).getResult();
                  });
    if (failed(y))
      return failure();
  }
  // Bias and residual broadcast against the result's trailing dims.
  y = applyEach(p, b, loc, *y, full, layout,
                {op.getBias(), op.getResidual()}, [&](Value x, Value a) {
                  return b.create<AddOp>(loc, x, a).getResult();
                });
  if (failed(y) || failed(p.define(b, op.getResult(), *y, layout)))
    return failure();
  return true;
}

void shardc::graph::attachFusedShardingRules(MLIRContext *ctx) {
  attachRuleAndRewrite<linear, rowParallel<LinearOp>, LinearOp>(ctx);
  attachRuleAndRewrite<linearInt8, rowParallel<LinearInt8Op>, LinearInt8Op>(
      ctx);
  attachRule<attention, AttentionOp>(ctx);
  attachRule<rmsNorm, RmsNormOp>(ctx);
  attachRuleAndRewrite<fusedConv, partitionGroupedConv, FusedConvOp>(ctx);
  attachRuleAndRewrite<convInt8, partitionConvInt8, ConvInt8Op>(ctx);
}
