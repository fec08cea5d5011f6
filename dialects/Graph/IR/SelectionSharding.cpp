//===- SelectionSharding.cpp - rules of top-k, arg-max, cumsum ------------===//
//
// The axis they select or scan along needs replication; the other dims are
// parallel. (arg_max without keepdims drops the axis from the result.)
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

using namespace mlir;
using namespace shardc::graph;

using Dims = ShardingRule::ValueFactors;

static ShapedType typeOf(Value v) { return cast<ShapedType>(v.getType()); }

/// Dims other than `axis` parallel and shared; `axis` its own replicated
/// factor on the operand and on each result that keeps it.
static ShardingRule alongAxis(Operation *op, int64_t axis) {
  ShardingRule rule;
  ShapedType in = typeOf(op->getOperand(0));
  axis = axis < 0 ? axis + in.getRank() : axis;
  Dims inDims;
  for (int64_t d = 0; d < in.getRank(); ++d)
    inDims.push_back({rule.addFactor(in.getDimSize(d),
                                     d == axis ? FactorKind::NeedReplication
                                               : FactorKind::Parallel)});
  rule.operands = {inDims};
  for (Value r : op->getResults()) {
    ShapedType t = typeOf(r);
    Dims dims;
    for (int64_t d = 0, i = 0; d < in.getRank(); ++d) {
      if (d == axis) {
        if (t.getRank() == in.getRank())
          dims.push_back(t.getDimSize(d) == 1 && in.getDimSize(d) != 1
                             ? SmallVector<int64_t, 2>{}
                             : SmallVector<int64_t, 2>{rule.addFactor(
                                   t.getDimSize(d),
                                   FactorKind::NeedReplication)});
        continue;
      }
      dims.push_back(inDims[d]);
      ++i;
    }
    rule.results.push_back(dims);
  }
  return rule;
}

static std::optional<ShardingRule> topk(Operation *o) {
  return alongAxis(o, cast<TopKOp>(o).getAxis());
}
static std::optional<ShardingRule> argMax(Operation *o) {
  return alongAxis(o, cast<ArgMaxOp>(o).getAxis());
}
static std::optional<ShardingRule> cumsum(Operation *o) {
  return alongAxis(o, cast<CumSumOp>(o).getAxis());
}

void shardc::graph::attachSelectionShardingRules(MLIRContext *ctx) {
  attachRule<topk, TopKOp>(ctx);
  attachRule<argMax, ArgMaxOp>(ctx);
  attachRule<cumsum, CumSumOp>(ctx);
}
