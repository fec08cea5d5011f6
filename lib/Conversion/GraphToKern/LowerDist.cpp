//===- LowerDist.cpp - dist collectives to kern collectives ---------------===//
//
//   dist.all_reduce  -> kern.all_reduce into the result's buffer
//   dist.all_gather  -> kern.all_gather into [n, local..] and, along any
//                       dim but the first, a kern.map that puts block r at
//                       offset r * local[dim] of that dim
//   dist.shard       -> the operand's buffer (an annotation)
// A collective names its mesh axis by position in the module's dist.mesh
// (sc_rank_ctx.comms[axis]); groups over several axes are refused.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/GraphToKern/Lowering.h"

#include "dialects/Dist/IR/DistOps.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

/// The position of a collective's single mesh axis and the group size.
template <typename Op>
static FailureOr<std::pair<int64_t, int64_t>> axisOf(Op op,
                                                     KernLowering &l) {
  dist::MeshOp mesh = op.getMeshOp();
  if (op.getAxes().size() != 1) {
    (void)l.fail(op, "collectives over several mesh axes are not supported");
    return failure();
  }
  StringRef name = cast<StringAttr>(op.getAxes()[0]).getValue();
  for (auto [i, a] : llvm::enumerate(mesh.getAxes()))
    if (cast<StringAttr>(a).getValue() == name)
      return std::make_pair(static_cast<int64_t>(i), op.groupSize());
  (void)l.fail(op, "no mesh axis '" + name + "'");
  return failure();
}

static LogicalResult lowerAllReduce(Operation *o, KernLowering &l) {
  auto op = cast<dist::AllReduceOp>(o);
  auto axis = axisOf(op, l);
  if (failed(axis))
    return failure();
  Value in = l.get(op.getInput());
  Value out = l.result(op.getResult());
  l.b.create<kern::AllReduceOp>(op.getLoc(), in, out, axis->first,
                                axis->second, op.getKind());
  return success();
}

static LogicalResult lowerAllGather(Operation *o, KernLowering &l) {
  auto op = cast<dist::AllGatherOp>(o);
  auto axis = axisOf(op, l);
  if (failed(axis))
    return failure();
  auto [index, n] = *axis;
  Value in = l.get(op.getInput());
  Value out = l.result(op.getResult());
  auto inType = cast<MemRefType>(in.getType());
  int64_t dim = op.getDim();
  if (dim == 0) {
    // Rank order along the first dim is the buffer order: gather in place.
    l.b.create<kern::AllGatherOp>(op.getLoc(), in, out, index, n);
    return success();
  }
  SmallVector<int64_t> blocks{n};
  llvm::append_range(blocks, inType.getShape());
  Value tmp = l.alloc(op.getLoc(), blocks, inType.getElementType());
  l.b.create<kern::AllGatherOp>(op.getLoc(), in, tmp, index, n);
  // out[.., r * L + i, ..] = tmp[r, .., i, ..]
  Access src = KernLowering::dense(tmp);
  SmallVector<int64_t> outStrides =
      rowMajorStrides(cast<MemRefType>(out.getType()).getShape());
  Access dst{out, {0, inType.getDimSize(dim) * outStrides[dim]}};
  llvm::append_range(dst.layout, outStrides);
  l.map(op.getLoc(), blocks, {src}, {dst},
        [](Scalar &, ValueRange args) { return SmallVector<Value>{args[0]}; });
  return success();
}

static LogicalResult lowerShard(Operation *o, KernLowering &l) {
  auto op = cast<dist::ShardOp>(o);
  l.alias(op.getResult(), l.get(op.getInput()));
  return success();
}

void shardc::kern::addDistLowerings(LoweringTable &t) {
  t["dist.all_reduce"] = lowerAllReduce;
  t["dist.all_gather"] = lowerAllGather;
  t["dist.shard"] = lowerShard;
}
