//===- LinalgSharding.cpp - rules of contractions, reductions, norms ------===//
//
//   matmul  [b.., m, k] x [b.., k, n] -> [b.., m, n]: k a sum reduction,
//           the rest parallel (batch dims broadcast like elementwise)
//   gemm    the same with transposes; the bias C broadcasts onto [m, n]
//   einsum  a factor per letter: letters missing from the output are sum
//           reductions
//   reduce_sum / max / min / prod: reduced dims are reductions combined by
//   the same reduction (partial values of that kind);
//   reduce_mean of floats: a "mean" reduction, whose partial state is
//   (sum, count): dist-partition sums locally, sums the sums and divides by
//   the whole count (a mean of partial means would be wrong for uneven
//   parts); of other types, the reduced dims need replication
//   softmax, log_softmax: the axis needs replication
//   layer_norm, rms_norm (FusedSharding.cpp), batch_norm: the normalized
//   dims need replication; batch_norm normalizes per channel with
//   running statistics, so every dim is parallel (channels with their
//   scale, bias, mean and variance)
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace shardc::graph;

using Dims = ShardingRule::ValueFactors;

static ShapedType typeOf(Value v) { return cast<ShapedType>(v.getType()); }

/// y[b.., m, n] = sum_k a[b.., m, k] b[b.., k, n] (with optional transposes
/// of the last two dims of a and b).
static ShardingRule contraction(Value a, Value b, Value y, bool transA,
                                bool transB, FactorKind kKind) {
  ShardingRule rule;
  ShapedType ta = typeOf(a), tb = typeOf(b), ty = typeOf(y);
  int64_t r = ty.getRank();
  // matmul of vectors promotes rank-1 operands; only the rank >= 2 form
  // gets a rule (the caller checks).
  Dims yDims;
  for (int64_t d = 0; d < r - 2; ++d)
    yDims.push_back({rule.addFactor(ty.getDimSize(d), FactorKind::Parallel)});
  int64_t m = rule.addFactor(ty.getDimSize(r - 2), FactorKind::Parallel);
  int64_t n = rule.addFactor(ty.getDimSize(r - 1), FactorKind::Parallel);
  int64_t kSize = ta.getDimSize(transA ? ta.getRank() - 2 : ta.getRank() - 1);
  int64_t k = rule.addFactor(kSize, kKind, "sum");
  ArrayRef<int64_t> yBatch = ty.getShape().drop_back(2);
  Dims aDims = broadcastFactors(ta.getShape().drop_back(2), yBatch, yDims);
  Dims bDims = broadcastFactors(tb.getShape().drop_back(2), yBatch, yDims);
  aDims.push_back({transA ? k : m});
  aDims.push_back({transA ? m : k});
  bDims.push_back({transB ? n : k});
  bDims.push_back({transB ? k : n});
  yDims.push_back({m});
  yDims.push_back({n});
  rule.operands = {aDims, bDims};
  rule.results = {yDims};
  return rule;
}

static std::optional<ShardingRule> matmul(Operation *o) {
  auto op = cast<MatMulOp>(o);
  if (typeOf(op.getLhs()).getRank() < 2 || typeOf(op.getRhs()).getRank() < 2)
    return std::nullopt;
  return contraction(op.getLhs(), op.getRhs(), op.getOutput(), false, false,
                     FactorKind::Reduction);
}

static std::optional<ShardingRule> gemm(Operation *o) {
  auto op = cast<GemmOp>(o);
  ShardingRule rule =
      contraction(op.getA(), op.getB(), op.getOutput(), op.getTransA(),
                  op.getTransB(), FactorKind::Reduction);
  if (Value c = op.getC()) {
    // C broadcasts onto [m, n]; splitting k would add it once per rank.
    rule.factors[2].kind = FactorKind::NeedReplication;
    rule.operands.push_back(broadcastFactors(
        typeOf(c).getShape(), typeOf(op.getOutput()).getShape(),
        rule.results[0]));
  }
  return rule;
}

static std::optional<ShardingRule> einsum(Operation *o) {
  auto op = cast<EinsumOp>(o);
  std::string eq;
  for (char c : op.getEquation())
    if (c != ' ')
      eq += c;
  size_t arrow = eq.find("->");
  if (arrow == std::string::npos || eq.find("...") != std::string::npos)
    return std::nullopt; // implicit outputs and ellipses: replicated
  SmallVector<StringRef> terms;
  StringRef(eq).take_front(arrow).split(terms, ',');
  StringRef output = StringRef(eq).drop_front(arrow + 2);
  if (terms.size() != op.getInputs().size())
    return std::nullopt;
  ShardingRule rule;
  std::map<char, int64_t> factorOf;
  auto factor = [&](char c, int64_t size, bool reduced) {
    auto it = factorOf.find(c);
    if (it != factorOf.end())
      return it->second;
    int64_t f = rule.addFactor(size, reduced ? FactorKind::Reduction
                                             : FactorKind::Parallel,
                               "sum");
    return factorOf[c] = f;
  };
  ShapedType ty = typeOf(op.getOutput());
  if (static_cast<int64_t>(output.size()) != ty.getRank())
    return std::nullopt;
  Dims yDims;
  for (auto [d, c] : llvm::enumerate(output))
    yDims.push_back({factor(c, ty.getDimSize(d), false)});
  for (auto [term, input] : llvm::zip(terms, op.getInputs())) {
    ShapedType t = typeOf(input);
    if (static_cast<int64_t>(term.size()) != t.getRank())
      return std::nullopt;
    Dims dims;
    for (auto [d, c] : llvm::enumerate(term)) {
      int64_t f = factor(c, t.getDimSize(d), !output.contains(c));
      if (rule.factors[f].size != t.getDimSize(d))
        dims.push_back({}); // a broadcast size-1 dim
      else
        dims.push_back({f});
    }
    rule.operands.push_back(dims);
  }
  rule.results = {yDims};
  return rule;
}

/// Reductions: the reduced dims are reductions combined with `combiner`
/// (or need replication when it is empty), kept as factor-less size-1 dims
/// with keepdims.
template <typename Op>
static std::optional<ShardingRule> reduction(Operation *o,
                                             StringRef combiner) {
  auto op = cast<Op>(o);
  ShapedType t = typeOf(op.getInput());
  ArrayRef<int64_t> axes = op.getAxes();
  ShardingRule rule;
  Dims in, out;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    bool reduced = axes.empty() || llvm::is_contained(axes, d);
    FactorKind kind = !reduced          ? FactorKind::Parallel
                      : combiner.empty() ? FactorKind::NeedReplication
                                         : FactorKind::Reduction;
    int64_t f = rule.addFactor(t.getDimSize(d), kind, combiner);
    in.push_back({f});
    if (!reduced)
      out.push_back({f});
    else if (op.getKeepdims())
      out.push_back({});
  }
  rule.operands = {in};
  rule.results = {out};
  return rule;
}

static std::optional<ShardingRule> reduceSum(Operation *o) {
  return reduction<ReduceSumOp>(o, "sum");
}
static std::optional<ShardingRule> reduceMax(Operation *o) {
  return reduction<ReduceMaxOp>(o, "max");
}
static std::optional<ShardingRule> reduceMin(Operation *o) {
  return reduction<ReduceMinOp>(o, "min");
}
static std::optional<ShardingRule> reduceProd(Operation *o) {
  return reduction<ReduceProdOp>(o, "prod");
}
static std::optional<ShardingRule> reduceMean(Operation *o) {
  Type elem = typeOf(o->getResult(0)).getElementType();
  return reduction<ReduceMeanOp>(o, elem.isF32() || elem.isF64() ? "mean"
                                                                  : "");
}

template <typename Op>
static std::optional<ShardingRule> softmax(Operation *o) {
  auto op = cast<Op>(o);
  int64_t rank = typeOf(op.getInput()).getRank();
  return sameShapeRule(o, {normalizedAxis(op.getAxis(), rank)});
}

/// x [lead.., norm..] with scale (and bias) over the normalized dims;
/// extra results (mean, inv_std) have the leading dims and size-1 rest.
ShardingRule shardc::graph::normRule(Operation *o, Value input,
                                     int64_t axis) {
  ShardingRule rule;
  ShapedType t = typeOf(input);
  axis = normalizedAxis(axis, t.getRank());
  Dims x;
  for (int64_t d = 0; d < t.getRank(); ++d)
    x.push_back({rule.addFactor(t.getDimSize(d),
                                d < axis ? FactorKind::Parallel
                                         : FactorKind::NeedReplication)});
  for (Value operand : o->getOperands()) {
    if (operand == input) {
      rule.operands.push_back(x);
      continue;
    }
    // scale / bias: broadcast against the normalized (trailing) dims.
    rule.operands.push_back(
        broadcastFactors(typeOf(operand).getShape(), t.getShape(), x));
  }
  for (Value result : o->getResults()) {
    ShapedType r = typeOf(result);
    Dims dims;
    for (int64_t d = 0; d < r.getRank(); ++d)
      dims.push_back(d < t.getRank() && r.getDimSize(d) == t.getDimSize(d)
                         ? x[d]
                         : SmallVector<int64_t, 2>{});
    rule.results.push_back(dims);
  }
  return rule;
}

static std::optional<ShardingRule> layerNorm(Operation *o) {
  auto op = cast<LayerNormOp>(o);
  return normRule(o, op.getInput(), op.getAxis());
}

static std::optional<ShardingRule> batchNorm(Operation *o) {
  // [N, C, spatial..]; the per-channel operands are [C].
  auto op = cast<BatchNormOp>(o);
  ShapedType t = typeOf(op.getInput());
  if (t.getRank() < 2)
    return std::nullopt;
  ShardingRule rule;
  Dims x;
  for (int64_t d = 0; d < t.getRank(); ++d)
    x.push_back({rule.addFactor(t.getDimSize(d), FactorKind::Parallel)});
  rule.operands.push_back(x);
  for (unsigned i = 1; i < o->getNumOperands(); ++i)
    rule.operands.push_back({x[1]});
  rule.results = {x};
  return rule;
}

/// A mean whose reduced dims are split ("mean" partials): each rank sums
/// its part, the sums are added across the ranks, and the total is divided
/// by the whole count. False otherwise.
static FailureOr<bool> splitMean(Operation *o, LocalPartitioner &p,
                                 OpBuilder &b) {
  auto mean = cast<ReduceMeanOp>(o);
  FailureOr<LocalPartitioner::RuleLayouts> rule = p.ruleLayouts(o);
  if (failed(rule))
    return failure();
  if (rule->partial.empty() || rule->partialKind != "mean")
    return false;
  Location loc = mean.getLoc();
  Value in = mean.getInput();
  FailureOr<Value> x =
      p.reshard(b, loc, p.lookup(in), p.layoutOf(in), rule->need[0]);
  if (failed(x))
    return failure();
  auto full = cast<RankedTensorType>(mean.getType());
  auto inType = cast<ShapedType>(in.getType());
  ArrayRef<int64_t> axes = mean.getAxes();
  SymShape inDims = dimsOf(inType);
  int64_t count = 1, localCount = 1;
  bool dynamic = false;
  SmallVector<int64_t> local = p.localShape(inType, rule->need[0]);
  for (int64_t d = 0; d < inType.getRank(); ++d)
    if (axes.empty() || llvm::is_contained(axes, d)) {
      count *= inType.getDimSize(d);
      localCount *= local[d];
      dynamic |= !inDims.sym[d].isConstant();
    }
  // Over a dynamic dim (never split) the count is the run's: each rank
  // takes the mean of its part, whose count is the whole count divided
  // by the parts, and the sum of the means is divided by the parts.
  Value sum;
  if (dynamic)
    sum = b.create<ReduceMeanOp>(loc, full, *x, mean.getAxesAttr(),
                                 mean.getKeepdimsAttr());
  else
    sum = b.create<ReduceSumOp>(loc, full, *x, mean.getAxesAttr(),
                                mean.getKeepdimsAttr());
  sum.setType(p.localType(full, rule->produced[0]));
  LocalPartitioner::Layout layout =
      p.reducePartial(b, loc, sum, rule->partial, "sum", rule->produced[0],
                      p.recordedLayout(o, 0));
  if (dynamic)
    count /= localCount;
  Type elem = full.getElementType();
  Value n = b.create<ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({}, elem),
                                  b.getFloatAttr(elem, count)));
  Value total = b.create<DivOp>(loc, sum, n);
  if (failed(p.define(b, mean.getResult(), total, layout)))
    return failure();
  return true;
}

void shardc::graph::attachLinalgShardingRules(MLIRContext *ctx) {
  attachRule<matmul, MatMulOp>(ctx);
  attachRule<gemm, GemmOp>(ctx);
  attachRule<einsum, EinsumOp>(ctx);
  attachRule<reduceSum, ReduceSumOp>(ctx);
  attachRule<reduceMax, ReduceMaxOp>(ctx);
  attachRule<reduceMin, ReduceMinOp>(ctx);
  attachRule<reduceProd, ReduceProdOp>(ctx);
  attachRuleAndRewrite<reduceMean, splitMean, ReduceMeanOp>(ctx);
  attachRule<softmax<SoftmaxOp>, SoftmaxOp>(ctx);
  attachRule<softmax<LogSoftmaxOp>, LogSoftmaxOp>(ctx);
  attachRule<layerNorm, LayerNormOp>(ctx);
  attachRule<batchNorm, BatchNormOp>(ctx);
}
