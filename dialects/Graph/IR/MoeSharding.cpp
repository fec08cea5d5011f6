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
// Its own partitioning (partitionLocally), expert parallelism: when
// dist-seed-experts has split the stacked experts' weights along E, the op
// becomes the partitioner's expert-parallel op (dist.moe: tokens reach their
// experts' ranks by all-to-all) over those axes.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

#include "llvm/ADT/StringSet.h"

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

/// `type` with `rows` rows.
static RankedTensorType padRows(RankedTensorType type, int64_t rows) {
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = rows;
  return RankedTensorType::get(shape, type.getElementType());
}

/// Operand `v` of an expert-parallel moe (its tokens [T, ...] on dim 0)
/// whole along the tokens, padded to `rows` with zero rows (`iota`: rows
/// [0, 1, .., K-1], the expert ids of a padded token, which must be
/// distinct as a router's top-k are), then laid out as `want` (its block
/// of the padded rows).
static FailureOr<Value> padTokens(LocalPartitioner &p, OpBuilder &b,
                                  Location loc, Value v,
                                  const LocalPartitioner::Layout &want,
                                  int64_t rows, bool iota) {
  LocalPartitioner::Layout whole = want;
  whole[0].clear();
  FailureOr<Value> local = p.reshard(b, loc, p.lookup(v), p.layoutOf(v), whole);
  if (failed(local))
    return failure();
  auto type = cast<RankedTensorType>(local->getType());
  SmallVector<int64_t> zerosShape(type.getShape());
  zerosShape[0] = rows - type.getDimSize(0);
  auto zerosType = RankedTensorType::get(zerosShape, type.getElementType());
  Type elem = type.getElementType();
  DenseElementsAttr fill =
      DenseElementsAttr::get(zerosType, b.getZeroAttr(elem));
  if (iota && type.getRank() == 2 && isa<IntegerType>(elem)) {
    SmallVector<APInt> ids;
    unsigned width = elem.getIntOrFloatBitWidth();
    for (int64_t r = 0; r < zerosShape[0]; ++r)
      for (int64_t k = 0; k < zerosShape[1]; ++k)
        ids.push_back(APInt(width, k));
    fill = DenseElementsAttr::get(zerosType, ids);
  }
  Value zeros = b.create<ConstantOp>(loc, fill);
  Value padded =
      b.create<ConcatOp>(loc, padRows(type, rows), ValueRange{*local, zeros},
                         b.getI64IntegerAttr(0));
  return p.reshard(b, loc, padded, whole, want);
}

/// Expert parallelism (dist-seed-experts): the stacked experts' weights
/// split along E make the op the partitioner's expert-parallel moe over
/// those axes. Its tokens are split over them too (each rank dispatches
/// its share) and over every other axis of the stage the op leaves idle,
/// so that no two ranks route the same tokens. Tokens the ranks do not
/// divide (7 over 2, a decode step's 1) are padded with zero rows to the
/// next multiple (weight 0 on distinct experts 0..K-1: they add nothing),
/// and the padding is sliced off once the result is gathered. False when
/// the experts are whole (the generic rewrite).
static FailureOr<bool> expertParallel(Operation *o, LocalPartitioner &p,
                                      OpBuilder &b) {
  using Layout = LocalPartitioner::Layout;
  auto op = cast<MoeOp>(o);
  const Layout &experts = p.layoutOf(op.getGateUp());
  if (experts.empty() || experts[0].empty())
    return false;
  FailureOr<LocalPartitioner::RuleLayouts> rule = p.ruleLayouts(o);
  if (failed(rule))
    return failure();
  if (!rule->hasRule)
    return false;
  const Layout &down = p.layoutOf(op.getDown());
  if (down.empty() || down[0] != experts[0])
    return op.emitError("the experts' gate/up and down weights are split "
                        "differently");
  SmallVector<Layout> need = rule->need;
  Layout produced = rule->produced[0];
  // The experts' weights and their biases go with the experts.
  for (unsigned i = 3; i < need.size(); ++i)
    need[i][0] = experts[0];
  llvm::StringSet<> busy;
  for (const Layout &dims : need)
    for (const auto &axes : dims)
      for (StringRef a : axes)
        busy.insert(a);
  SmallVector<StringRef> tokenAxes(need[0][0].begin(), need[0][0].end());
  tokenAxes.append(experts[0].begin(), experts[0].end());
  int64_t tokens = op.getNumTokens();
  for (auto [name, size] : p.stageAxes())
    if (!busy.contains(name) && tokens % (p.part(tokenAxes).first * size) == 0)
      tokenAxes.push_back(name);
  int64_t parts = p.part(tokenAxes).first;
  int64_t paddedTokens =
      tokens % parts ? (tokens + parts - 1) / parts * parts : 0;
  for (unsigned i : {0u, 1u, 2u})
    need[i][0].assign(tokenAxes.begin(), tokenAxes.end());
  produced[0].assign(tokenAxes.begin(), tokenAxes.end());

  Location loc = op.getLoc();
  SmallVector<Value> operands;
  for (auto [i, v] : llvm::enumerate(o->getOperands())) {
    FailureOr<Value> local =
        paddedTokens && i <= 2
            ? padTokens(p, b, loc, v, need[i], paddedTokens, i == 2)
            : p.reshard(b, loc, p.lookup(v), p.layoutOf(v), need[i]);
    if (failed(local))
      return failure();
    operands.push_back(*local);
  }
  auto type = cast<RankedTensorType>(op.getType());
  if (paddedTokens)
    type = padRows(type, paddedTokens);
  Value result = p.expertParallelMoe(
      b, o, p.localType(type, produced), operands,
      SmallVector<StringRef>(experts[0].begin(), experts[0].end()));
  Layout layout = produced;
  if (!paddedTokens) {
    if (!rule->partial.empty())
      layout = p.reducePartial(b, loc, result, rule->partial, rule->partialKind,
                               layout, p.recordedLayout(o, 0));
  } else {
    // Reduce, gather the padded tokens whole, drop the padding.
    if (!rule->partial.empty())
      layout = p.reducePartial(b, loc, result, rule->partial, rule->partialKind,
                               layout, layout);
    Layout whole = layout;
    whole[0].clear();
    FailureOr<Value> gathered = p.reshard(b, loc, result, layout, whole);
    if (failed(gathered))
      return failure();
    auto full = cast<RankedTensorType>(gathered->getType());
    SmallVector<int64_t> starts(full.getRank(), 0), ends(full.getShape()),
        steps(full.getRank(), 1);
    ends[0] = tokens;
    result = b.create<SliceOp>(loc, *gathered, b.getDenseI64ArrayAttr(starts),
                               b.getDenseI64ArrayAttr(ends),
                               b.getDenseI64ArrayAttr(steps));
    layout = whole;
  }
  if (failed(p.define(b, op.getResult(), result, layout)))
    return failure();
  return true;
}

void shardc::graph::attachMoeShardingRules(MLIRContext *ctx) {
  attachRuleAndRewrite<moe, expertParallel, MoeOp>(ctx);
}
