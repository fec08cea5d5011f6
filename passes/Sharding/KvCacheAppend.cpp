//===- KvCacheAppend.cpp - dist-kv-cache-append ---------------------------===//
//
// A partitioned KV cache's present, gathered after the append,
//
//   %s = graph.slice %past        (this rank's heads, along dim G)
//   %c = graph.concat %s, %new {axis = A}
//   %g = dist.all_gather %c ... dim = G          (returned)
//
// becomes the append of the gathered new entries to the whole past, the
// rank's heads read back from it:
//
//   %n = dist.all_gather %new ... dim = G
//   %p = graph.concat %past, %n {axis = A}       (returned)
//   %c = graph.slice %p           (the same heads)
//
// exact, since a gather along G commutes with a concat along A != G, and
// the rank's slice of the gathered past is the slice it had: checked, the
// gather rebuilds the past's G extent and the slice is this rank's part in
// the gather's order (its coordinates on the mesh along the gather's
// axes). Decided once per past input for every rank function, so that the
// ranks' collectives stay alike. The concat is then the past's one use,
// which the lowering appends in place.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace shardc {
#define GEN_PASS_DEF_DISTKVCACHEAPPEND
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// The rank a rank function serves (dist-partition's mark; kRanks).
constexpr llvm::StringLiteral kRanks = "kern.ranks";

/// The one dim along which `slice` takes part of its input (steps of 1,
/// every other dim whole), or none.
std::optional<int64_t> slicedDim(graph::SliceOp slice) {
  graph::SymShape in = graph::dimsOf(slice.getInput()),
                  out = graph::dimsOf(slice.getOutput());
  std::optional<int64_t> dim;
  for (size_t d = 0; d < in.size(); ++d) {
    if (slice.getSteps()[d] != 1)
      return std::nullopt;
    bool whole = slice.getStarts()[d] == 0 && out.bound[d] == in.bound[d] &&
                 out.sym[d] == in.sym[d];
    if (whole)
      continue;
    if (dim || in.sym[d] != sym::Expr(in.bound[d]))
      return std::nullopt; // two sliced dims, or a dynamic one
    dim = d;
  }
  return dim;
}

/// One rank function's rewrite of one past input, once checked.
struct Candidate {
  Value past;
  graph::SliceOp slice;
  graph::ConcatOp concat;
  dist::AllGatherOp gather;
  int64_t heads = 0, axis = 0;
};

/// The rewrite of past input `past` of rank function `func` when it has
/// the form above and is exact: the gather rebuilds the whole past's
/// heads, and this rank's slice is its part in the gather's order.
std::optional<Candidate> candidate(func::FuncOp func, BlockArgument past) {
  auto cache = func.getArgAttrOfType<DictionaryAttr>(past.getArgNumber(),
                                                     graph::kCacheAttr);
  auto ranks = func->getAttrOfType<DenseI64ArrayAttr>(kRanks);
  if (!cache || !past.hasOneUse() || !ranks || ranks.size() != 1)
    return std::nullopt;
  auto output = cache.getAs<IntegerAttr>("output");
  auto axisAttr = cache.getAs<IntegerAttr>("axis");
  auto slice = dyn_cast<graph::SliceOp>(*past.getUsers().begin());
  if (!output || !axisAttr || !slice || !slice.getOutput().hasOneUse())
    return std::nullopt;
  Candidate c{past, slice};
  c.axis = axisAttr.getInt();
  std::optional<int64_t> heads = slicedDim(slice);
  c.concat = dyn_cast<graph::ConcatOp>(*slice.getOutput().getUsers().begin());
  if (!heads || *heads == c.axis || !c.concat ||
      c.concat.getInputs().size() != 2 ||
      c.concat.getInputs()[0] != slice.getOutput() ||
      (int64_t)c.concat.getAxis() != c.axis)
    return std::nullopt;
  c.heads = *heads;
  // The present: the one gather of the append along the sliced dim,
  // returned as the cache's output.
  for (Operation *user : c.concat.getOutput().getUsers())
    if (auto g = dyn_cast<dist::AllGatherOp>(user))
      if ((int64_t)g.getDim() == c.heads && !c.gather)
        c.gather = g;
  Operation *ret = func.getBody().front().getTerminator();
  int64_t index = output.getInt();
  if (!c.gather || index >= (int64_t)ret->getNumOperands() ||
      ret->getOperand(index) != c.gather.getResult())
    return std::nullopt;
  // Exact: the gathered heads are the past's, and this rank's slice is
  // part `part` of `parts` along them.
  int64_t whole = graph::dimsOf(past).bound[c.heads];
  int64_t extent = graph::dimsOf(slice.getOutput()).bound[c.heads];
  auto mesh = SymbolTable::lookupNearestSymbolFrom<dist::MeshOp>(
      c.gather, c.gather.getMeshAttr());
  // This rank's part along the gather's axes, as the partitioner numbers
  // its parts.
  SmallVector<StringRef> axes;
  for (Attribute a : c.gather.getAxesAttr())
    axes.push_back(cast<StringAttr>(a).getValue());
  std::optional<std::pair<int64_t, int64_t>> part =
      mesh ? mesh.part(mesh.coordinates(ranks[0]), axes) : std::nullopt;
  if (graph::dimsOf(c.gather.getResult()).bound[c.heads] != whole || !part ||
      extent <= 0 || whole % extent ||
      slice.getStarts()[c.heads] != part->second * extent)
    return std::nullopt;
  return c;
}

void rewrite(Candidate c) {
  OpBuilder b(c.concat);
  Location loc = c.concat.getLoc();
  Value fresh = c.concat.getInputs()[1];
  // The new entries gathered: their dims, `heads` grown as the gather
  // grows it.
  graph::SymShape dims = graph::dimsOf(fresh);
  int64_t parts = graph::dimsOf(c.gather.getResult()).bound[c.heads] /
                  graph::dimsOf(c.concat.getOutput()).bound[c.heads];
  dims.bound[c.heads] *= parts;
  dims.sym[c.heads] = sym::Expr(dims.bound[c.heads]);
  auto freshType = cast<RankedTensorType>(fresh.getType());
  Value all = b.create<dist::AllGatherOp>(
      loc, graph::tensorType(dims, freshType.getElementType()), fresh,
      c.gather.getMeshAttr(), c.gather.getAxesAttr(), c.gather.getDimAttr());
  Value present = b.create<graph::ConcatOp>(
      loc, c.gather.getType(), ValueRange{c.past, all}, c.concat.getAxisAttr());
  // This rank's heads, read back from the present: the slice's extent
  // along `heads`, the whole of every other dim.
  graph::SymShape ends = graph::dimsOf(present);
  ends.bound[c.heads] = c.slice.getEnds()[c.heads];
  ends.sym[c.heads] = sym::Expr(ends.bound[c.heads]);
  SmallVector<NamedAttribute> attrs =
      graph::shapeAttrs(b.getContext(), "ends", ends);
  attrs.push_back(b.getNamedAttr("starts", c.slice.getStartsAttr()));
  attrs.push_back(b.getNamedAttr("steps", c.slice.getStepsAttr()));
  Value mine = b.create<graph::SliceOp>(loc, ValueRange{present}, attrs);
  c.gather.getResult().replaceAllUsesWith(present);
  c.gather.erase();
  c.concat.getOutput().replaceAllUsesWith(mine);
  c.concat.erase();
  c.slice.erase();
}

struct DistKvCacheAppendPass
    : shardc::impl::DistKvCacheAppendBase<DistKvCacheAppendPass> {
  void runOnOperation() override {
    // Decided once per past input for all rank functions: the collectives
    // must stay the same on every rank, so a past rewritten on one rank is
    // rewritten on all of them, or on none.
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && func->hasAttr(kRanks))
        funcs.push_back(func);
    if (funcs.empty())
      return;
    unsigned numArgs = funcs.front().getNumArguments();
    for (unsigned i = 0; i < numArgs; ++i) {
      SmallVector<Candidate> all;
      for (func::FuncOp func : funcs) {
        std::optional<Candidate> c;
        if (i < func.getNumArguments())
          c = candidate(func, func.getArgument(i));
        if (!c)
          break;
        all.push_back(*c);
      }
      if (all.size() != funcs.size())
        continue;
      for (const Candidate &c : all)
        rewrite(c);
    }
  }
};

} // namespace
