//===- Partition.cpp - dist-partition -------------------------------------===//
//
// After dist-propagate: one program per rank (MPMD; ranks of a group run the
// same code on their own slices), with local shapes, weights sliced at
// compile time and the collectives that restore what the next op needs.
//
// For each op, the shardings its operands must have follow from its rule and
// the shardings of its results (dist.shardings); an operand whose current
// sharding differs is resharded (all-gathered along its split dims, then
// sliced to what the op needs). A result holding partial sums is
// all-reduced right away; a linear whose contraction is split and that has
// a bias or residual runs without them, and they are added after the
// all-reduce (Megatron's row-parallel linear). Function arguments arrive
// whole on every rank (every rank reads the inputs) and results leave whole.
//
// An op that partitions better than its rule's generic rewrite does so
// itself, beside its rule (ShardingRuleOpInterface::partitionLocally in
// dialects/Graph/IR/*Sharding.cpp: the vocab-parallel gather, selections
// over a split axis, the row-parallel linear's bias and residual, a mean's
// count), through this partitioner as a graph::LocalPartitioner, which
// also gives them the generic rewrite's layouts (ruleLayouts); grouped
// convolutions' local group counts and expert-parallel moe (which this
// partitioner builds as a dist.moe for it: expertParallelMoe) too. What
// is left here is the generic rewrite itself.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Graph/IR/ShardingRule.h"
#include "passes/Sharding/Projection.h"
#include "passes/Sharding/Retype.h"
#include "passes/Sharding/Slicing.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringSet.h"

#include <map>

namespace shardc {
#define GEN_PASS_DEF_DISTPARTITION
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using graph::ShardingRule;

namespace {

/// Mesh axes per dim (partial sums resolved).
using DimAxes = SmallVector<SmallVector<StringRef, 2>>;

DimAxes replicated(Type type) {
  return DimAxes(cast<ShapedType>(type).getRank());
}

DimAxes dimsOf(dist::ShardingAttr s, Type type) {
  if (!s)
    return replicated(type);
  DimAxes dims;
  for (unsigned d = 0; d < s.getDims().size(); ++d) {
    dims.emplace_back();
    for (StringRef a : s.axesOf(d))
      dims.back().push_back(a);
  }
  return dims;
}

/// A constant, or a seed on one: its slices are cut at compile time.
bool isWeight(Value v) {
  if (auto shard = v.getDefiningOp<dist::ShardOp>())
    v = shard.getInput();
  return static_cast<bool>(v.getDefiningOp<graph::ConstantOp>());
}

/// `shape` with dim `d` multiplied by `mul` and divided by `div`, its
/// mirror too. A dynamic dim is never split, so its mirror divides exactly
/// where partitioning divides it at all; one that would not keeps its
/// mirror, which the verifier then refuses (it no longer matches the bound).
graph::SymShape resized(graph::SymShape shape, size_t d, int64_t mul,
                        int64_t div) {
  if (mul == 1 && div == 1)
    return shape;
  shape.bound[d] = shape.bound[d] * mul / div;
  if (std::optional<sym::Expr> e =
          (shape.sym[d] * sym::Expr(mul)).divExact(sym::Expr(div)))
    shape.sym[d] = *e;
  return shape;
}

/// `type` with dim `d` multiplied by `mul` and divided by `div`.
RankedTensorType resized(RankedTensorType type, size_t d, int64_t mul,
                         int64_t div) {
  return graph::tensorType(resized(graph::dimsOf(type), d, mul, div),
                           type.getElementType());
}

/// One rank's partitioning: what ops' own rewrites (the sharding
/// interface's partitionLocally, beside their rules in dialects/Graph/IR)
/// ask of it, and the generic rewrite from a rule for the rest.
class RankPartitioner : public graph::LocalPartitioner {
public:
  RankPartitioner(dist::MeshOp mesh, int64_t rank)
      : mesh(mesh), rank(rank), coord(mesh.coordinates(rank)) {}

  LogicalResult run(func::FuncOp global, func::FuncOp local);

  // graph::LocalPartitioner
  Value lookup(Value v) override { return map.lookup(v); }
  const Layout &layoutOf(Value v) override { return current[v]; }
  Layout recordedLayout(Operation *op, unsigned i) override {
    auto all = op->getAttrOfType<ArrayAttr>("dist.shardings");
    return dimsOf(all ? dyn_cast<dist::ShardingAttr>(all[i])
                      : dist::ShardingAttr(),
                  op->getResult(i).getType());
  }
  Value unannotated(Value v) override {
    if (auto shard = v.getDefiningOp<dist::ShardOp>())
      return shard.getInput();
    return v;
  }
  LogicalResult define(OpBuilder &b, Value result, Value local,
                       const Layout &layout) override {
    Layout want = recordedLayout(result.getDefiningOp(),
                                 cast<OpResult>(result).getResultNumber());
    FailureOr<Value> v = reshard(b, result.getLoc(), local, layout, want);
    if (failed(v))
      return failure();
    map.map(result, *v);
    current[result] = want;
    return success();
  }
  SmallVector<std::pair<StringRef, int64_t>> stageAxes() override {
    SmallVector<std::pair<StringRef, int64_t>> axes;
    for (Attribute a : mesh.getAxes()) {
      StringRef name = cast<StringAttr>(a).getValue();
      if (name != dist::kPipelineAxis)
        axes.push_back({name, axisSize(name)});
    }
    return axes;
  }
  Value expertParallelMoe(OpBuilder &b, Operation *original,
                          RankedTensorType type, ValueRange operands,
                          ArrayRef<StringRef> expertAxes) override {
    // dist-seed-experts' placement (expert load balancing), if any.
    bool biased = operands.size() == 7;
    return b.create<dist::MoeOp>(
        original->getLoc(), type, operands[0], operands[1], operands[2],
        operands[3], operands[4], biased ? operands[5] : Value(),
        biased ? operands[6] : Value(), meshRef(), axesAttr(expertAxes),
        original->getAttrOfType<DenseI64ArrayAttr>("dist.placement"));
  }

private:
  int64_t axisSize(StringRef a) { return *mesh.axisSize(a); }
  /// How many parts dim axes make, and this rank's part.
  std::pair<int64_t, int64_t> part(ArrayRef<StringRef> axes) override {
    return *mesh.part(coord, axes);
  }
  SmallVector<int64_t> localShape(ShapedType type,
                                 const DimAxes &dims) override {
    SmallVector<int64_t> shape(type.getShape());
    for (auto [d, axes] : llvm::enumerate(dims))
      shape[d] /= part(axes).first;
    return shape;
  }
  RankedTensorType localType(ShapedType type, const DimAxes &dims) override {
    graph::SymShape shape = graph::dimsOf(type);
    for (auto [d, axes] : llvm::enumerate(dims))
      shape = resized(shape, d, 1, part(axes).first);
    return graph::tensorType(shape, type.getElementType());
  }
  FlatSymbolRefAttr meshRef() {
    return FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  }
  ArrayAttr axesAttr(ArrayRef<StringRef> axes) {
    SmallVector<Attribute> a;
    for (StringRef s : axes)
      a.push_back(StringAttr::get(mesh.getContext(), s));
    return ArrayAttr::get(mesh.getContext(), a);
  }

  /// `v` (laid out as `from`) laid out as `to`; the same request twice
  /// gives the first answer (three projections of one normalized,
  /// token-split activation all-gather it once).
  FailureOr<Value> reshard(OpBuilder &b, Location loc, Value v,
                           const DimAxes &from, const DimAxes &to) override;
  FailureOr<Value> reshardUncached(OpBuilder &b, Location loc, Value v,
                                   const DimAxes &from, const DimAxes &to);
  /// `v`, laid out as `layout` and holding partial values over `axes`
  /// that `kind` combines ("sum", "max", "min", "prod"), reduced: by a
  /// reduce-scatter along a dim that `want` splits over exactly `axes` and
  /// `layout` does not split (Megatron's sequence parallelism), else by an
  /// all-reduce. Returns the layout it gives.
  DimAxes reducePartial(OpBuilder &b, Location loc, Value &v,
                        ArrayRef<StringRef> axes, StringRef kind,
                        DimAxes layout, const DimAxes &want) override;
  /// The layout of a value sent between pipeline stages: its rows split
  /// over "dp" when the mesh has that axis and it divides them (each data
  /// parallel replica pipelines its own rows), else whole.
  DimAxes crossingLayout(Type type) {
    DimAxes dims = replicated(type);
    auto t = cast<RankedTensorType>(type);
    std::optional<int64_t> dp = mesh.axisSize(dist::kDataAxis);
    if (dp && t.getRank() >= 1 && t.getDimSize(0) % *dp == 0)
      dims[0].push_back(dist::kDataAxis);
    return dims;
  }
  /// The constant `op` sliced for this rank by `dims`.
  FailureOr<Value> sliceConstant(OpBuilder &b, graph::ConstantOp op,
                                 const DimAxes &dims);
  LogicalResult partitionOp(OpBuilder &b, Operation *op);
  FailureOr<RuleLayouts> ruleLayouts(Operation *op) override;
  /// `v` all-gathered along `dim` over `axes` (minor first: the blocks in
  /// the order of part()'s index).
  Value allGather(OpBuilder &b, Location loc, Value v,
                  ArrayRef<StringRef> axes, int64_t dim) override;

  dist::MeshOp mesh;
  int64_t rank;
  SmallVector<int64_t> coord;
  IRMapping map;
  DenseMap<Value, DimAxes> current; ///< layout of each mapped global value
  /// Reshards made so far: (local value, target layout) -> result.
  std::map<std::pair<void *, std::string>, Value> resharded;
};

std::string layoutKey(const DimAxes &dims) {
  std::string key;
  for (const auto &axes : dims) {
    for (StringRef a : axes)
      key += a.str() + ",";
    key += ";";
  }
  return key;
}

FailureOr<Value> RankPartitioner::reshard(OpBuilder &b, Location loc, Value v,
                                          const DimAxes &from,
                                          const DimAxes &to) {
  if (from == to)
    return v;
  auto key = std::make_pair(v.getAsOpaquePointer(), layoutKey(to));
  auto it = resharded.find(key);
  if (it != resharded.end())
    return it->second;
  FailureOr<Value> r = reshardUncached(b, loc, v, from, to);
  if (succeeded(r))
    resharded[key] = *r;
  return r;
}

DimAxes RankPartitioner::reducePartial(OpBuilder &b, Location loc, Value &v,
                                       ArrayRef<StringRef> axes,
                                       StringRef kind, DimAxes layout,
                                       const DimAxes &want) {
  // A collective runs over one mesh axis: partial values over several are
  // reduced one axis after the other, major first (the reduction is
  // associative; a reduce-scatter over [a, b] is one over a, then one over
  // b within a's block).
  for (auto [d, dimAxes] : llvm::enumerate(layout)) {
    if (!dimAxes.empty() || ArrayRef<StringRef>(want[d]) != axes)
      continue;
    for (StringRef axis : axes)
      v = b.create<dist::ReduceScatterOp>(
          loc,
          resized(cast<RankedTensorType>(v.getType()), d, 1, axisSize(axis)), v,
          meshRef(), axesAttr({axis}), b.getI64IntegerAttr(d),
          b.getStringAttr(kind));
    dimAxes.assign(axes.begin(), axes.end());
    return layout;
  }
  for (StringRef axis : axes)
    v = b.create<dist::AllReduceOp>(loc, v.getType(), v, meshRef(),
                                    axesAttr({axis}), b.getStringAttr(kind));
  return layout;
}

FailureOr<Value> RankPartitioner::reshardUncached(OpBuilder &b, Location loc,
                                                  Value v, const DimAxes &from,
                                                  const DimAxes &to) {
  // Gather every dim that is split differently from what is needed: the
  // axes past the part the target keeps, minor first (a dim split over
  // [ep, tp] gathers over tp, then ep). `kept` is the target's prefix.
  SmallVector<size_t> kept(from.size(), 0);
  for (auto [d, axes] : llvm::enumerate(from)) {
    if (axes == to[d])
      continue;
    size_t prefix = 0;
    if (to[d].size() <= axes.size() &&
        std::equal(to[d].begin(), to[d].end(), axes.begin()))
      prefix = to[d].size();
    kept[d] = prefix;
    v = allGather(b, loc, v, ArrayRef<StringRef>(axes).drop_front(prefix), d);
  }
  // Slice the dims the target splits further than what is left.
  auto type = cast<RankedTensorType>(v.getType());
  graph::SymShape ends = graph::dimsOf(type);
  SmallVector<int64_t> starts(type.getRank(), 0), steps(type.getRank(), 1);
  bool slice = false;
  for (auto [d, axes] : llvm::enumerate(to)) {
    if (axes == from[d] || axes.size() == kept[d])
      continue;
    // The part of the axes after the kept prefix, within the kept block.
    ArrayRef<StringRef> extra = ArrayRef<StringRef>(axes).drop_front(kept[d]);
    auto [parts, index] = part(extra);
    int64_t size = type.getDimSize(d) / parts;
    starts[d] = index * size;
    ends.bound[d] = starts[d] + size;
    ends.sym[d] = sym::Expr(ends.bound[d]);
    slice = true;
  }
  if (slice) {
    // The dims it keeps whole end at their (possibly dynamic) size.
    SmallVector<NamedAttribute> attrs =
        graph::shapeAttrs(b.getContext(), "ends", ends);
    attrs.push_back(b.getNamedAttr("starts", b.getDenseI64ArrayAttr(starts)));
    attrs.push_back(b.getNamedAttr("steps", b.getDenseI64ArrayAttr(steps)));
    v = b.create<graph::SliceOp>(loc, ValueRange{v}, attrs);
  }
  return v;
}

FailureOr<Value> RankPartitioner::sliceConstant(OpBuilder &b,
                                                graph::ConstantOp op,
                                                const DimAxes &dims) {
  auto type = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> local = localShape(type, dims);
  auto whole = [&] {
    Operation *c = b.clone(*op);
    c->removeAttr("dist.shardings");
    return c->getResult(0);
  };
  if (ArrayRef<int64_t>(local) == type.getShape())
    return whole();
  SmallVector<int64_t> offset(type.getRank(), 0);
  for (auto [d, axes] : llvm::enumerate(dims))
    offset[d] = part(axes).second * local[d];
  if (Value v = sliceConstantData(b, op, offset, local))
    return v;
  // Data the slicer cannot read (bit-packed booleans): slice at run time.
  return reshard(b, op.getLoc(), whole(), replicated(type), dims);
}

Value RankPartitioner::allGather(OpBuilder &b, Location loc, Value v,
                                 ArrayRef<StringRef> axes, int64_t dim) {
  for (size_t i = axes.size(); i-- > 0;)
    v = b.create<dist::AllGatherOp>(
        loc,
        resized(cast<RankedTensorType>(v.getType()), dim, axisSize(axes[i]), 1),
        v, meshRef(), axesAttr({axes[i]}), b.getI64IntegerAttr(dim));
  return v;
}

/// `type` with `rows` rows (dim 0).
FailureOr<graph::LocalPartitioner::RuleLayouts>
RankPartitioner::ruleLayouts(Operation *op) {
  // Factor axes from the results' recorded layouts (never on factors that
  // need replication), reduction factors from the operands that arrive
  // split along them. Without a rule everything is replicated.
  std::optional<ShardingRule> rule;
  if (!op->hasAttr("dist.no_rule"))
    if (auto iface = dyn_cast<graph::ShardingRuleOpInterface>(op))
      rule = iface.getShardingRule();
  RuleLayouts L;
  L.hasRule = rule.has_value();
  SmallVector<DimAxes> &need = L.need, &produced = L.produced;
  SmallVector<StringRef> &partial = L.partial;
  StringRef &partialKind = L.partialKind;
  if (!rule) {
    for (Value v : op->getOperands())
      need.push_back(replicated(v.getType()));
    for (Value v : op->getResults())
      produced.push_back(replicated(v.getType()));
  } else {
    size_t numFactors = rule->factors.size();
    SmallVector<SmallVector<StringRef, 2>> factorAxes(numFactors);
    SmallVector<bool> known(numFactors, false);
    // A dynamic dim is computed whole (its size divides only at the bound).
    SmallVector<bool> dynamic = dynamicFactors(op, *rule);
    llvm::StringSet<> used;
    auto assign = [&](int64_t f, ArrayRef<StringRef> axes) {
      if (known[f] || axes.empty() || dynamic[f] ||
          rule->factors[f].kind == graph::FactorKind::NeedReplication)
        return;
      int64_t product = 1;
      for (StringRef a : axes) {
        if (used.contains(a))
          return;
        product *= axisSize(a);
      }
      if (rule->factors[f].size % product != 0)
        return;
      for (StringRef a : axes)
        used.insert(a);
      factorAxes[f].assign(axes.begin(), axes.end());
      known[f] = true;
    };
    // Axes of a dim go to its factors major to minor; a minor factor takes
    // axes only once the major ones are whole.
    auto take = [&](const ShardingRule::ValueFactors &dims,
                    const DimAxes &axes, bool reductionsOnly) {
      for (auto [fs, a] : llvm::zip(dims, axes))
        projectAxesOntoFactors(
            a, fs, *rule, mesh, [&](int64_t f, ArrayRef<StringRef> taken) {
              if (!reductionsOnly ||
                  rule->factors[f].kind == graph::FactorKind::Reduction)
                assign(f, taken);
            });
    };
    // Constants first (their slices are cut at compile time in their
    // recorded layout: any other would move weights at run time); then
    // contractions an operand arrives split along, contracted locally and
    // reduced after (by a reduce-scatter where the result is wanted split
    // another way) rather than gathered because the result's layout
    // claims the same axis; then the results' layouts.
    for (auto [v, dims] : llvm::zip(op->getOperands(), rule->operands))
      if (isWeight(v))
        take(dims, current[v], false);
    for (auto [v, dims] : llvm::zip(op->getOperands(), rule->operands))
      take(dims, current[v], true);
    for (auto [i, dims] : llvm::enumerate(rule->results))
      take(dims, recordedLayout(op, i), false);
    // A split that a compound dim of any operand or result cannot hold (a
    // minor factor split under an unsplit major one: a reshape of [B*S] to
    // [B, S] with S split) is dropped for the whole op, so that every
    // value computes it whole: the op then runs on whole data along that
    // factor and its result is sliced to its recorded layout after.
    // (Dropping it for one value only would leave the local op with shapes
    // that do not match.)
    auto dropInexpressible = [&](const ShardingRule::ValueFactors &dims) {
      for (const auto &fs : dims) {
        bool whole = true;
        for (int64_t f : fs) {
          if (!whole) {
            factorAxes[f].clear();
            continue;
          }
          int64_t product = 1;
          for (StringRef a : factorAxes[f])
            product *= axisSize(a);
          whole = product == rule->factors[f].size;
        }
      }
    };
    for (const auto &dims : rule->operands)
      dropInexpressible(dims);
    for (const auto &dims : rule->results)
      dropInexpressible(dims);
    // Every remaining split is expressible: a dim's axes are its factors'
    // axes, major to minor.
    auto project = [&](const ShardingRule::ValueFactors &dims) {
      DimAxes out;
      for (const auto &fs : dims) {
        out.emplace_back();
        for (int64_t f : fs)
          out.back().append(factorAxes[f].begin(), factorAxes[f].end());
      }
      return out;
    };
    for (const auto &dims : rule->operands)
      need.push_back(project(dims));
    for (const auto &dims : rule->results)
      produced.push_back(project(dims));
    llvm::DenseSet<int64_t> inResults;
    for (const auto &dims : rule->results)
      for (const auto &fs : dims)
        inResults.insert(fs.begin(), fs.end());
    for (size_t f = 0; f < numFactors; ++f) {
      if (rule->factors[f].kind != graph::FactorKind::Reduction ||
          inResults.contains(f) || factorAxes[f].empty())
        continue;
      if (!partial.empty() && partialKind != rule->factors[f].combiner) {
        op->emitError("cannot partition '")
            << op->getName() << "': its split reductions combine by "
            << partialKind << " and " << rule->factors[f].combiner;
        return failure();
      }
      partial.append(factorAxes[f].begin(), factorAxes[f].end());
      partialKind = rule->factors[f].combiner;
    }
  }

  return L;
}

LogicalResult RankPartitioner::partitionOp(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  auto resultShardings = op->getAttrOfType<ArrayAttr>("dist.shardings");
  auto resultDims = [&](unsigned i) {
    return dimsOf(resultShardings
                      ? dyn_cast<dist::ShardingAttr>(resultShardings[i])
                      : dist::ShardingAttr(),
                  op->getResult(i).getType());
  };

  if (auto shard = dyn_cast<dist::ShardOp>(op)) {
    Value in = shard.getInput();
    DimAxes want = dimsOf(shard.getSharding(), in.getType());
    auto v = reshard(b, loc, map.lookup(in), current[in], want);
    if (failed(v))
      return failure();
    map.map(shard.getResult(), *v);
    current[shard.getResult()] = want;
    return success();
  }
  // Pipeline sends and receives move a stage's boundary value in one
  // layout both ends agree on (crossingLayout).
  if (auto send = dyn_cast<dist::SendOp>(op)) {
    Value in = send.getInput();
    auto v = reshard(b, loc, map.lookup(in), current[in],
                     crossingLayout(in.getType()));
    if (failed(v))
      return failure();
    b.create<dist::SendOp>(loc, *v, send.getMeshAttr(), send.getAxesAttr(),
                           send.getOffsetAttr());
    return success();
  }
  if (auto recv = dyn_cast<dist::RecvOp>(op)) {
    DimAxes dims = crossingLayout(recv.getType());
    auto type = cast<RankedTensorType>(recv.getType());
    auto local =
        b.create<dist::RecvOp>(loc, localType(type, dims), recv.getMeshAttr(),
                               recv.getAxesAttr(), recv.getOffsetAttr());
    map.map(recv.getResult(), local.getResult());
    current[recv.getResult()] = dims;
    return success();
  }
  // The op's own rewrite, beside its rule (a vocab-parallel lookup, a
  // selection over a split axis), where it has one that applies.
  if (auto iface = dyn_cast<graph::ShardingRuleOpInterface>(op)) {
    FailureOr<bool> done = iface.partitionLocally(*this, b);
    if (failed(done))
      return failure();
    if (*done)
      return success();
  }
  if (auto constant = dyn_cast<graph::ConstantOp>(op)) {
    DimAxes dims = resultDims(0);
    auto v = sliceConstant(b, constant, dims);
    if (failed(v))
      return failure();
    map.map(constant.getResult(), *v);
    current[constant.getResult()] = dims;
    return success();
  }

  // The op computes what its rule allows (ruleLayouts). Operands are
  // resharded to the projection; each result, produced in the
  // projection's layout, is resharded to its recorded layout afterwards.
  FailureOr<RuleLayouts> layouts = ruleLayouts(op);
  if (failed(layouts))
    return failure();
  SmallVector<DimAxes> &need = layouts->need, &produced = layouts->produced;
  SmallVector<StringRef> &partial = layouts->partial;
  StringRef partialKind = layouts->partialKind;

  SmallVector<Value> operands;
  for (auto [v, want] : llvm::zip(op->getOperands(), need)) {
    auto local = reshard(b, loc, map.lookup(v), current[v], want);
    if (failed(local))
      return failure();
    operands.push_back(*local);
  }
  Operation *clone = b.clone(*op);
  clone->setOperands(operands);
  clone->removeAttr("dist.shardings");
  clone->removeAttr("dist.no_rule");
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    clone->getResult(i).setType(localType(
        cast<RankedTensorType>(op->getResult(i).getType()), produced[i]));
  // The attributes that carry the result shape follow the local types;
  // anything else must still infer its local type, or the op is not one
  // this partitioner knows how to localize: say so rather than miscompile.
  if (failed(followResultTypes(clone, op->getResultTypes())))
    return op->emitError("cannot partition '")
           << op->getName() << "' with its operands split this way";
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    Value result = clone->getResult(i);
    DimAxes recorded = resultDims(i);
    DimAxes layout = produced[i];
    if (!partial.empty())
      layout = reducePartial(b, loc, result, partial, partialKind, layout,
                             recorded);
    // The layout the rest of the program expects.
    auto v = reshard(b, loc, result, layout, recorded);
    if (failed(v))
      return failure();
    map.map(op->getResult(i), *v);
    current[op->getResult(i)] = recorded;
  }
  return success();
}

LogicalResult RankPartitioner::run(func::FuncOp global, func::FuncOp local) {
  Block *entry = local.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  for (auto [g, l] : llvm::zip(global.getArguments(), entry->getArguments())) {
    map.map(g, l);
    current[g] = replicated(g.getType()); // every rank reads the inputs
  }
  for (Operation &op : global.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<Value> results;
      for (Value v : ret.getOperands()) {
        auto whole =
            reshard(b, op.getLoc(), map.lookup(v), current[v],
                    replicated(v.getType()));
        if (failed(whole))
          return failure();
        results.push_back(*whole);
      }
      b.create<func::ReturnOp>(op.getLoc(), results);
      continue;
    }
    if (failed(partitionOp(b, &op)))
      return failure();
  }
  return success();
}

struct DistPartitionPass
    : shardc::impl::DistPartitionBase<DistPartitionPass> {
  void runOnOperation() override;
};

} // namespace

void DistPartitionPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<dist::MeshOp> single =
      dist::getSingleMesh(module, "dist-partition");
  if (failed(single))
    return signalPassFailure();
  dist::MeshOp mesh = *single;
  int64_t world = mesh.numDevices();
  SmallVector<func::FuncOp> globals(module.getOps<func::FuncOp>());
  if (globals.empty()) {
    module.emitError("dist-partition found no global program");
    return signalPassFailure();
  }
  // Pipeline stages (dist-pipeline) are programs of their own: stage s
  // serves the ranks whose "pp" coordinate is s.
  std::optional<int64_t> stages = mesh.axisSize(dist::kPipelineAxis);
  int64_t ppIndex = -1;
  for (auto [i, a] : llvm::enumerate(mesh.getAxes()))
    if (cast<StringAttr>(a).getValue() == dist::kPipelineAxis)
      ppIndex = i;
  for (func::FuncOp global : globals) {
    auto stage = global->getAttrOfType<IntegerAttr>("dist.stage");
    if (stages.has_value() != static_cast<bool>(stage) ||
        (stage && (stage.getInt() < 0 || stage.getInt() >= *stages))) {
      global.emitError(stages ? "the mesh has pipeline stages but @"
                              : "the mesh has no pp axis but @")
          << global.getName()
          << (stage ? " is stage " + std::to_string(stage.getInt())
                    : std::string(" is not a stage"));
      return signalPassFailure();
    }
    OpBuilder b(global);
    for (int64_t r = 0; r < world; ++r) {
      if (stage && mesh.coordinates(r)[ppIndex] != stage.getInt())
        continue;
      auto local = b.create<func::FuncOp>(
          global.getLoc(), (global.getName() + "_rank" + Twine(r)).str(),
          global.getFunctionType());
      local.setAllArgAttrs(global.getAllArgAttrs());
      local.setAllResultAttrs(global.getAllResultAttrs());
      for (unsigned i = 0; i < local.getNumArguments(); ++i)
        local.removeArgAttr(i, "dist.sharding");
      for (NamedAttribute attr : global->getDiscardableAttrs())
        local->setAttr(attr.getName(), attr.getValue());
      local->setAttr("kern.ranks", b.getDenseI64ArrayAttr({r}));
      RankPartitioner partitioner(mesh, r);
      if (failed(partitioner.run(global, local)))
        return signalPassFailure();
    }
    global.erase();
  }
}
