//===- MoeSharding.cpp - the rule of graph.moe ----------------------------===//
//
//   moe  x [T, H], weights [T, K], ids [T, K], gate_up [E, H, (2, F)],
//        down [E, F, O] -> [T, O]:
//        T parallel (tokens route independently); O parallel (columns of
//        the down projections); F a sum reduction (Megatron's MLP inside
//        every expert: gate and up split by columns, down by rows); H,
//        K, E and the gate/up pair need replication (H is contracted
//        under the SiLU; expert parallelism moves tokens by all-to-all,
//        which --ep partitions explicitly rather than through a factor).
//        Biases gate_up_bias [E, (2, F)] and down_bias [E, O] share those
//        factors; with them F needs replication (a down bias added to
//        partial sums would count once per rank).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

using namespace mlir;
using namespace shardc::graph;

static std::optional<ShardingRule> moe(Operation *o) {
  auto op = cast<MoeOp>(o);
  ShardingRule rule;
  int64_t t = rule.addFactor(op.getNumTokens(), FactorKind::Parallel);
  int64_t h = rule.addFactor(op.getHidden(), FactorKind::NeedReplication);
  int64_t k = rule.addFactor(op.getTopK(), FactorKind::NeedReplication);
  int64_t e = rule.addFactor(op.getNumExperts(), FactorKind::NeedReplication);
  int64_t pair = rule.addFactor(2, FactorKind::NeedReplication);
  // A down bias would be added to each rank's partial sums: with biases
  // the ffn stays whole.
  bool biased = static_cast<bool>(op.getDownBias());
  int64_t f = biased
                  ? rule.addFactor(op.getFfn(), FactorKind::NeedReplication)
                  : rule.addFactor(op.getFfn(), FactorKind::Reduction, "sum");
  int64_t out = rule.addFactor(op.getHidden(), FactorKind::Parallel);
  rule.operands = {{{t}, {h}},
                   {{t}, {k}},
                   {{t}, {k}},
                   {{e}, {h}, {pair, f}},
                   {{e}, {f}, {out}}};
  if (biased) {
    rule.operands.push_back({{e}, {pair, f}});
    rule.operands.push_back({{e}, {out}});
  }
  rule.results = {{{t}, {out}}};
  return rule;
}

void shardc::graph::attachMoeShardingRules(MLIRContext *ctx) {
  attachRule<moe, MoeOp>(ctx);
}
