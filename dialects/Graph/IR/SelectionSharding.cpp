//===- SelectionSharding.cpp - rules of top-k, arg-max, cumsum ------------===//
//
// The axis they select or scan along needs replication; the other dims are
// parallel. (arg_max without keepdims drops the axis from the result.)
//
// Their own partitioning (partitionLocally): an operand that arrives split
// along the axis is not gathered whole. Each rank selects or scans its
// block and the ranks combine: the blocks' winners with their global
// indices (arg_max, sorted top-k), or the totals of the blocks before
// each one (cumsum).
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

/// A constant i64 tensor of `rank` ones-dims holding `value`.
static Value indexConstant(OpBuilder &b, Location loc, int64_t rank,
                           int64_t value) {
  auto type = RankedTensorType::get(SmallVector<int64_t>(rank, 1),
                                    b.getI64Type());
  return b.create<ConstantOp>(loc, DenseElementsAttr::get(type, value));
}

using Layout = LocalPartitioner::Layout;

static FailureOr<bool> selectSplit(Operation *op, LocalPartitioner &p,
                                   OpBuilder &b) {
  int64_t axis;
  if (auto a = dyn_cast<ArgMaxOp>(op))
    axis = a.getAxis();
  else if (auto t = dyn_cast<TopKOp>(op); t && t.getSorted())
    axis = t.getAxis();
  else if (auto c = dyn_cast<CumSumOp>(op))
    axis = c.getAxis();
  else
    return false;
  Value in = op->getOperand(0);
  auto type = cast<RankedTensorType>(in.getType());
  axis = axis < 0 ? axis + type.getRank() : axis;
  const Layout &layout = p.layoutOf(in);
  if (layout.empty() || axis < 0 || axis >= type.getRank() ||
      layout[axis].empty())
    return false;
  ArrayRef<StringRef> axes = layout[axis];
  auto [parts, index] = p.part(axes);
  int64_t block = type.getDimSize(axis) / parts;
  auto topk = dyn_cast<TopKOp>(op);
  if (topk && static_cast<int64_t>(topk.getK()) > block)
    return false; // a block has fewer than k: selected whole
  Location loc = op->getLoc();
  Value x = p.lookup(in);
  int64_t rank = type.getRank();
  auto axisAttr = b.getI64IntegerAttr(axis);
  // Results keep the operand's layout off the axis; the axis is whole
  // (selections) or stays split (a scan).
  Layout whole = layout;
  whole[axis].clear();
  SmallVector<std::pair<Value, Layout>> results;

  if (auto cumsum = dyn_cast<CumSumOp>(op)) {
    // Each block's scan, plus the totals of the blocks before it (after
    // it, reversed), all-gathered.
    Value local = b.create<CumSumOp>(loc, x, axisAttr,
                                     cumsum.getExclusiveAttr(),
                                     cumsum.getReverseAttr());
    Value total = b.create<ReduceSumOp>(
        loc, x, b.getDenseI64ArrayAttr({axis}), b.getBoolAttr(true));
    Value totals = p.allGather(b, loc, total, axes, axis);
    int64_t from = cumsum.getReverse() ? index + 1 : 0;
    int64_t to = cumsum.getReverse() ? parts : index;
    if (from < to) {
      auto t = cast<RankedTensorType>(totals.getType());
      SmallVector<int64_t> starts(rank, 0), ends(t.getShape()),
          steps(rank, 1);
      starts[axis] = from;
      ends[axis] = to;
      Value before = b.create<SliceOp>(
          loc, totals, b.getDenseI64ArrayAttr(starts),
          b.getDenseI64ArrayAttr(ends), b.getDenseI64ArrayAttr(steps));
      before = b.create<ReduceSumOp>(
          loc, before, b.getDenseI64ArrayAttr({axis}), b.getBoolAttr(true));
      local = b.create<AddOp>(loc, local, before);
    }
    results.push_back({local, layout});
  } else if (auto argmax = dyn_cast<ArgMaxOp>(op)) {
    // Each block's winner (the value at its index, so that NaN and ties
    // are judged as on one rank) with its global index; the winner of the
    // winners, first (or last) on a tie as the blocks are in order.
    Value idx = b.create<ArgMaxOp>(loc, x, axisAttr, b.getBoolAttr(true),
                                   argmax.getSelectLastIndexAttr());
    Value val = b.create<GatherElementsOp>(loc, x, idx, axisAttr);
    if (index > 0)
      idx = b.create<AddOp>(loc, idx,
                            indexConstant(b, loc, rank, index * block));
    Value vals = p.allGather(b, loc, val, axes, axis);
    Value idxs = p.allGather(b, loc, idx, axes, axis);
    Value which = b.create<ArgMaxOp>(loc, vals, axisAttr, b.getBoolAttr(true),
                                     argmax.getSelectLastIndexAttr());
    Value out = b.create<GatherElementsOp>(loc, idxs, which, axisAttr);
    Layout outLayout = whole;
    if (!argmax.getKeepdims()) {
      auto t = cast<RankedTensorType>(out.getType());
      SmallVector<int64_t> shape(t.getShape());
      shape.erase(shape.begin() + axis);
      out = b.create<ReshapeOp>(loc, out, b.getDenseI64ArrayAttr(shape));
      outLayout.erase(outLayout.begin() + axis);
    }
    results.push_back({out, outLayout});
  } else {
    // Each block's top k with their global indices; the top k of those
    // (a tie goes to the lower index, as the blocks are in order).
    auto k = topk.getKAttr();
    auto local = b.create<TopKOp>(loc, x, k, axisAttr, topk.getLargestAttr(),
                                  b.getBoolAttr(true));
    Value idx = local.getIndices();
    if (index > 0)
      idx = b.create<AddOp>(loc, idx,
                            indexConstant(b, loc, rank, index * block));
    Value vals = p.allGather(b, loc, local.getValues(), axes, axis);
    Value idxs = p.allGather(b, loc, idx, axes, axis);
    auto merged = b.create<TopKOp>(loc, vals, k, axisAttr,
                                   topk.getLargestAttr(), b.getBoolAttr(true));
    Value out =
        b.create<GatherElementsOp>(loc, idxs, merged.getIndices(), axisAttr);
    results.push_back({merged.getValues(), whole});
    results.push_back({out, whole});
  }
  for (auto [i, r] : llvm::enumerate(results))
    if (failed(p.define(b, op->getResult(i), r.first, r.second)))
      return failure();
  return true;
}

void shardc::graph::attachSelectionShardingRules(MLIRContext *ctx) {
  attachRuleAndRewrite<topk, selectSplit, TopKOp>(ctx);
  attachRuleAndRewrite<argMax, selectSplit, ArgMaxOp>(ctx);
  attachRuleAndRewrite<cumsum, selectSplit, CumSumOp>(ctx);
}
