//===- ShapeSharding.cpp - rules of shape and data movement ops -----------===//
//
//   reshape, squeeze, unsqueeze, flatten: compound factors carry the
//     operand's dims onto the result's ([6] -> [2, 3] is (i, j) -> i, j);
//     shapes whose factors do not line up get no rule (replicated)
//   transpose: result dim d is operand dim perm[d]
//   concat, split: the axis needs replication, the rest is parallel
//   slice: dims the slice shortens need replication
//   gather: data dims around the axis and the index dims are parallel; the
//     gathered axis needs replication (the vocab-parallel embedding, which
//     splits it, is a seed of partitioning with its own collective)
//   trilu: the two matrix dims need replication (the triangle depends on
//     global positions)
//   range: replicated (no rule)
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

using namespace mlir;
using namespace shardc::graph;

using Dims = ShardingRule::ValueFactors;

static ShapedType typeOf(Value v) { return cast<ShapedType>(v.getType()); }

static std::optional<ShardingRule> reshapeLike(Operation *op) {
  ShardingRule rule;
  auto factors = reshapeFactors(rule, typeOf(op->getOperand(0)).getShape(),
                                typeOf(op->getResult(0)).getShape());
  if (!factors)
    return std::nullopt;
  rule.operands = {factors->first};
  rule.results = {factors->second};
  return rule;
}

static std::optional<ShardingRule> transpose(Operation *o) {
  auto op = cast<TransposeOp>(o);
  ShardingRule rule;
  ShapedType t = typeOf(op.getInput());
  Dims in;
  for (int64_t d = 0; d < t.getRank(); ++d)
    in.push_back({rule.addFactor(t.getDimSize(d), FactorKind::Parallel)});
  Dims out;
  for (int64_t p : op.getPerm())
    out.push_back(in[p]);
  rule.operands = {in};
  rule.results = {out};
  return rule;
}

/// One factor per dim of the result shape, shared by every operand and
/// result of `shape`'s rank, except `axis`, where each value has its own
/// factor that needs replication.
static ShardingRule alongAxis(Operation *op, int64_t axis) {
  ShardingRule rule;
  ShapedType ref = typeOf(op->getNumOperands() ? op->getOperand(0)
                                               : op->getResult(0));
  SmallVector<SmallVector<int64_t, 2>> shared(ref.getRank());
  for (int64_t d = 0; d < ref.getRank(); ++d)
    if (d != axis)
      shared[d] = {rule.addFactor(ref.getDimSize(d), FactorKind::Parallel)};
  auto dimsOf = [&](Value v) {
    Dims dims = shared;
    dims[axis] = {rule.addFactor(typeOf(v).getDimSize(axis),
                                 FactorKind::NeedReplication)};
    return dims;
  };
  for (Value v : op->getOperands())
    rule.operands.push_back(dimsOf(v));
  for (Value v : op->getResults())
    rule.results.push_back(dimsOf(v));
  return rule;
}

static std::optional<ShardingRule> concat(Operation *o) {
  auto op = cast<ConcatOp>(o);
  int64_t rank = typeOf(op.getOutput()).getRank();
  int64_t axis = normalizedAxis(op.getAxis(), rank);
  return alongAxis(o, axis);
}

static std::optional<ShardingRule> split(Operation *o) {
  auto op = cast<SplitOp>(o);
  int64_t rank = typeOf(op.getInput()).getRank();
  int64_t axis = normalizedAxis(op.getAxis(), rank);
  return alongAxis(o, axis);
}

static std::optional<ShardingRule> slice(Operation *o) {
  return equalDimsRule(o);
}

static std::optional<ShardingRule> gather(Operation *o) {
  auto op = cast<GatherOp>(o);
  ShapedType data = typeOf(op.getData()), idx = typeOf(op.getIndices());
  int64_t axis = normalizedAxis(op.getAxis(), data.getRank());
  ShardingRule rule;
  Dims dataDims, idxDims, outDims;
  for (int64_t d = 0; d < axis; ++d) {
    int64_t f = rule.addFactor(data.getDimSize(d), FactorKind::Parallel);
    dataDims.push_back({f});
    outDims.push_back({f});
  }
  dataDims.push_back(
      {rule.addFactor(data.getDimSize(axis), FactorKind::NeedReplication)});
  for (int64_t d = 0; d < idx.getRank(); ++d) {
    int64_t f = rule.addFactor(idx.getDimSize(d), FactorKind::Parallel);
    idxDims.push_back({f});
    outDims.push_back({f});
  }
  for (int64_t d = axis + 1; d < data.getRank(); ++d) {
    int64_t f = rule.addFactor(data.getDimSize(d), FactorKind::Parallel);
    dataDims.push_back({f});
    outDims.push_back({f});
  }
  rule.operands = {dataDims, idxDims};
  rule.results = {outDims};
  return rule;
}

static std::optional<ShardingRule> trilu(Operation *o) {
  int64_t rank = typeOf(o->getOperand(0)).getRank();
  return sameShapeRule(o, {rank - 2, rank - 1});
}

void shardc::graph::attachShapeShardingRules(MLIRContext *ctx) {
  attachRule<reshapeLike, ReshapeOp, SqueezeOp, UnsqueezeOp, FlattenOp>(ctx);
  attachRule<transpose, TransposeOp>(ctx);
  attachRule<concat, ConcatOp>(ctx);
  attachRule<split, SplitOp>(ctx);
  attachRule<slice, SliceOp>(ctx);
  attachRule<gather, GatherOp>(ctx);
  attachRule<trilu, TriluOp>(ctx);
}
