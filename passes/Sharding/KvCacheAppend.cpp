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
// the rank's slice of the gathered past is the slice it had. The concat is
// then the past's one use, which the lowering appends in place.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_DISTKVCACHEAPPEND
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

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

struct DistKvCacheAppendPass
    : shardc::impl::DistKvCacheAppendBase<DistKvCacheAppendPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Operation *ret = func.getBody().front().getTerminator();
    for (BlockArgument past : func.getArguments()) {
      auto cache = func.getArgAttrOfType<DictionaryAttr>(past.getArgNumber(),
                                                         graph::kCacheAttr);
      if (!cache || !past.hasOneUse())
        continue;
      auto output = cache.getAs<IntegerAttr>("output");
      auto axisAttr = cache.getAs<IntegerAttr>("axis");
      auto slice = dyn_cast<graph::SliceOp>(*past.getUsers().begin());
      if (!output || !axisAttr || !slice || !slice.getOutput().hasOneUse())
        continue;
      int64_t axis = axisAttr.getInt();
      std::optional<int64_t> heads = slicedDim(slice);
      auto concat =
          dyn_cast<graph::ConcatOp>(*slice.getOutput().getUsers().begin());
      if (!heads || *heads == axis || !concat ||
          concat.getInputs().size() != 2 ||
          concat.getInputs()[0] != slice.getOutput() ||
          (int64_t)concat.getAxis() != axis)
        continue;
      // The present: the one gather of the append along the sliced dim,
      // returned as the cache's output.
      dist::AllGatherOp gather;
      for (Operation *user : concat.getOutput().getUsers())
        if (auto g = dyn_cast<dist::AllGatherOp>(user))
          if (g.getDim() == *heads && !gather)
            gather = g;
      int64_t index = output.getInt();
      if (!gather || index >= (int64_t)ret->getNumOperands() ||
          ret->getOperand(index) != gather.getResult())
        continue;
      rewrite(past, slice, concat, gather, *heads, axis);
    }
  }

  void rewrite(Value past, graph::SliceOp slice, graph::ConcatOp concat,
               dist::AllGatherOp gather, int64_t heads, int64_t axis) {
    OpBuilder b(concat);
    Location loc = concat.getLoc();
    Value fresh = concat.getInputs()[1];
    // The new entries gathered: their dims, `heads` grown as the gather
    // grows it.
    graph::SymShape dims = graph::dimsOf(fresh);
    int64_t parts = graph::dimsOf(gather.getResult()).bound[heads] /
                    graph::dimsOf(concat.getOutput()).bound[heads];
    dims.bound[heads] *= parts;
    dims.sym[heads] = sym::Expr(dims.bound[heads]);
    auto freshType = cast<RankedTensorType>(fresh.getType());
    Value all = b.create<dist::AllGatherOp>(
        loc, graph::tensorType(dims, freshType.getElementType()), fresh,
        gather.getMeshAttr(), gather.getAxesAttr(), gather.getDimAttr());
    Value present = b.create<graph::ConcatOp>(loc, gather.getType(),
                                              ValueRange{past, all},
                                              concat.getAxisAttr());
    // This rank's heads, read back from the present: the slice's extent
    // along `heads`, the whole of every other dim.
    graph::SymShape ends = graph::dimsOf(present);
    ends.bound[heads] = slice.getEnds()[heads];
    ends.sym[heads] = sym::Expr(ends.bound[heads]);
    SmallVector<NamedAttribute> attrs =
        graph::shapeAttrs(b.getContext(), "ends", ends);
    attrs.push_back(b.getNamedAttr("starts", slice.getStartsAttr()));
    attrs.push_back(b.getNamedAttr("steps", slice.getStepsAttr()));
    Value mine = b.create<graph::SliceOp>(loc, ValueRange{present}, attrs);
    gather.getResult().replaceAllUsesWith(present);
    gather.erase();
    concat.getOutput().replaceAllUsesWith(mine);
    concat.erase();
    slice.erase();
  }
};

} // namespace
