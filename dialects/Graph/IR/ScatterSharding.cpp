//===- ScatterSharding.cpp - rules of gather_elements, scatters -----------===//
//
// An element gather or scatter pairs data and indices position by position
// on every dim but the indexed ones, so a dim is parallel only where data,
// indices (and updates) have one size and share it:
//   gather_elements: the axis needs replication on data; on indices and
//     the result it is parallel (the data coordinate comes from the index
//     value, not its position); other dims are shared and parallel when
//     their sizes agree, else replicated
//   scatter_elements: the axis needs replication on all four values (a rank
//     holding part of the updates would write part of the result); other
//     dims as in gather_elements
//   scatter_nd: the k indexed dims of data and the index tuples' dims need
//     replication; data's trailing dims, which the updates' slices carry,
//     are parallel
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

using namespace mlir;
using namespace shardc::graph;

using Dims = ShardingRule::ValueFactors;

static ShapedType typeOf(Value v) { return cast<ShapedType>(v.getType()); }

/// The rule of an element gather or scatter: `full` (data, and the result
/// of a scatter) and `part` (indices, and updates or the gather's result)
/// of one rank. `partAxisParallel`: the axis of `part` is parallel.
static ShardingRule elementRule(ShapedType full, ShapedType part, int64_t axis,
                                bool partAxisParallel, Dims &fullDims,
                                Dims &partDims) {
  ShardingRule rule;
  for (int64_t d = 0; d < full.getRank(); ++d) {
    int64_t n = full.getDimSize(d), m = part.getDimSize(d);
    if (d != axis && n == m) {
      int64_t f = rule.addFactor(n, FactorKind::Parallel);
      fullDims.push_back({f});
      partDims.push_back({f});
      continue;
    }
    fullDims.push_back({rule.addFactor(n, FactorKind::NeedReplication)});
    partDims.push_back({rule.addFactor(m, d == axis && partAxisParallel
                                              ? FactorKind::Parallel
                                              : FactorKind::NeedReplication)});
  }
  return rule;
}

static std::optional<ShardingRule> gatherElements(Operation *o) {
  auto op = cast<GatherElementsOp>(o);
  Dims data, indices;
  ShardingRule rule =
      elementRule(typeOf(op.getData()), typeOf(op.getIndices()), op.getAxis(),
                  /*partAxisParallel=*/true, data, indices);
  rule.operands = {data, indices};
  rule.results = {indices};
  return rule;
}

static std::optional<ShardingRule> scatterElements(Operation *o) {
  auto op = cast<ScatterElementsOp>(o);
  Dims data, indices;
  ShardingRule rule =
      elementRule(typeOf(op.getData()), typeOf(op.getIndices()), op.getAxis(),
                  /*partAxisParallel=*/false, data, indices);
  rule.operands = {data, indices, indices};
  rule.results = {data};
  return rule;
}

static std::optional<ShardingRule> scatterND(Operation *o) {
  auto op = cast<ScatterNDOp>(o);
  ShapedType data = typeOf(op.getData()), idx = typeOf(op.getIndices());
  int64_t k = idx.getShape().back();
  ShardingRule rule;
  Dims dataDims, idxDims, updDims;
  for (int64_t d = 0; d < data.getRank(); ++d)
    dataDims.push_back(
        {rule.addFactor(data.getDimSize(d), d < k ? FactorKind::NeedReplication
                                                  : FactorKind::Parallel)});
  for (int64_t d = 0; d < idx.getRank(); ++d)
    idxDims.push_back(
        {rule.addFactor(idx.getDimSize(d), FactorKind::NeedReplication)});
  updDims.assign(idxDims.begin(), idxDims.end() - 1);
  updDims.append(dataDims.begin() + k, dataDims.end());
  rule.operands = {dataDims, idxDims, updDims};
  rule.results = {dataDims};
  return rule;
}

void shardc::graph::attachScatterShardingRules(MLIRContext *ctx) {
  attachRule<gatherElements, GatherElementsOp>(ctx);
  attachRule<scatterElements, ScatterElementsOp>(ctx);
  attachRule<scatterND, ScatterNDOp>(ctx);
}
