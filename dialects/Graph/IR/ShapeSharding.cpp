//===- ShapeSharding.cpp - rules of shape and data movement ops -----------===//
//
//   reshape, squeeze, unsqueeze, flatten: compound factors carry the
//     operand's dims onto the result's ([6] -> [2, 3] is (i, j) -> i, j);
//     shapes whose factors do not line up get no rule (replicated)
//   transpose: result dim d is operand dim perm[d]
//   concat, split: the axis needs replication, the rest is parallel
//   slice: dims the slice shortens need replication
//   gather: data dims around the axis and the index dims are parallel; the
//     gathered axis needs replication, but for its own partitioning: the
//     vocab-parallel embedding (a table split along the gathered axis) looks
//     up each rank's rows and sums the parts (partitionLocally)
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

/// A gather from a table split along the gathered axis (Megatron's
/// vocab-parallel embedding): each rank looks up the indices that fall in
/// its rows (graph.gather's `part`: indices are checked against the whole
/// table's rows, as on one rank, and the others give zeros), and an
/// all-reduce sums the parts. A vocabulary padded to a multiple of the
/// ranks (dist.padded_from) is checked and wrapped by its real rows. False
/// when the table is not split that way.
static FailureOr<bool> vocabParallel(Operation *o, LocalPartitioner &p,
                                     OpBuilder &b) {
  using Layout = LocalPartitioner::Layout;
  auto op = cast<GatherOp>(o);
  Value data = op.getData();
  auto type = cast<RankedTensorType>(data.getType());
  int64_t axis = normalizedAxis(op.getAxis(), type.getRank());
  const Layout &layout = p.layoutOf(data);
  if (layout.empty() || layout[axis].empty() || op.getPart())
    return false;
  for (auto [d, axes] : llvm::enumerate(layout))
    if (static_cast<int64_t>(d) != axis && !axes.empty())
      return false; // only the gathered axis split
  Location loc = op.getLoc();
  SmallVector<StringRef> axes(layout[axis].begin(), layout[axis].end());
  auto [parts, index] = p.part(axes);
  int64_t localRows = type.getDimSize(axis) / parts;
  int64_t rows = type.getDimSize(axis);
  if (Operation *def = p.unannotated(data).getDefiningOp())
    if (auto from = def->getAttrOfType<DenseI64ArrayAttr>("dist.padded_from"))
      if (static_cast<int64_t>(from.size()) == type.getRank())
        rows = from[axis];
  // Every rank of the table's group must look up the same ids (their parts
  // are summed): ids split over one of the table's axes are gathered first.
  Value ids = op.getIndices();
  Layout idxLayout = p.layoutOf(ids);
  if (idxLayout.empty())
    idxLayout = Layout(typeOf(ids).getRank());
  Layout idsWanted = idxLayout;
  for (auto &dimAxes : idsWanted)
    for (size_t i = 0; i < dimAxes.size(); ++i)
      if (llvm::is_contained(axes, dimAxes[i])) {
        dimAxes.resize(i); // a dim keeps only its axes major to this one
        break;
      }
  FailureOr<Value> localIds =
      p.reshard(b, loc, p.lookup(ids), idxLayout, idsWanted);
  if (failed(localIds))
    return failure();
  Value sum = b.create<GatherOp>(
      loc, p.lookup(data), *localIds, op.getAxisAttr(),
      b.getDenseI64ArrayAttr({rows, index * localRows}));
  // The looked-up rows come in the layout the indices arrive in (ids
  // split over dp give rows split the same way); the data's other dims
  // are whole.
  Layout rowsLayout(axis);
  for (int64_t d = 0; d < typeOf(ids).getRank(); ++d)
    rowsLayout.push_back(idsWanted[d]);
  while (static_cast<int64_t>(rowsLayout.size()) < typeOf(op.getResult()).getRank())
    rowsLayout.emplace_back();
  Layout reduced = p.reducePartial(b, loc, sum, axes, "sum", rowsLayout,
                                   p.recordedLayout(op, 0));
  if (failed(p.define(b, op.getResult(), sum, reduced)))
    return failure();
  return true;
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
  attachRuleAndRewrite<gather, vocabParallel, GatherOp>(ctx);
  attachRule<trilu, TriluOp>(ctx);
}
