//===- LowerDist.cpp - dist collectives to kern collectives ---------------===//
//
//   dist.all_reduce  -> kern.all_reduce into the result's buffer
//   dist.all_gather  -> kern.all_gather into [n, local..] and, along a dim
//                       with a dim of size > 1 before it, a kern.map that
//                       puts block r at offset r * local[dim] of that dim
//   dist.reduce_scatter -> kern.reduce_scatter from the input's buffer; along
//                       a dim with a dim of size > 1 before it, a kern.map
//                       first lays block r
//                       (offset r * local[dim] of that dim) out as the r-th
//                       contiguous block
//   dist.send / dist.recv -> kern.send / kern.recv (pipeline stages: the
//                       peer `offset` steps along the axis)
//   dist.shard       -> the operand's buffer (an annotation)
// With dynamic dims the blocks' maps run over the symbolic shapes (a
// dynamic dim is never the gathered one: the dist verifier refuses it).
// A collective names its mesh axis by position in the module's dist.mesh
// (sc_rank_ctx.comms[axis]); groups over several axes are refused.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/GraphToKern/Lowering.h"

#include "dialects/Dist/IR/DistOps.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

/// Whether blocks along `dim` are contiguous in row-major order: every dim
/// before it has size 1 (the tokens of a [1, seq, hidden] activation).
static bool contiguousBlocks(MemRefType type, int64_t dim) {
  return llvm::all_of(type.getShape().take_front(dim),
                      [](int64_t size) { return size == 1; });
}

/// Block r of `whole` along `dim` (local size L there) as the iteration
/// space [r, local..]: offset 0, then r's stride L * stride[dim], then
/// whole's row-major strides (over the run's sizes with dynamic dims).
static Access blocksOf(KernLowering &l, Value whole, const SymShape &local,
                       int64_t dim) {
  SmallVector<sym::Expr> strides =
      KernLowering::strides(KernLowering::shapeOfBuffer(whole).sym);
  SmallVector<sym::Expr> layout{local.sym[dim] * strides[dim]};
  llvm::append_range(layout, strides);
  return l.access(whole, sym::Expr(0), layout);
}

/// The iteration space [n, local..] of the blocks of a gather or scatter.
static SymShape blockSpace(int64_t n, const SymShape &local) {
  SymShape blocks;
  blocks.push_back(n, sym::Expr(n));
  for (size_t d = 0; d < local.size(); ++d)
    blocks.push_back(local, d);
  return blocks;
}

static LogicalResult lowerAllReduce(Operation *o, KernLowering &l) {
  auto op = cast<dist::AllReduceOp>(o);
  auto axis = collectiveAxis(op, l);
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
  auto axis = collectiveAxis(op, l);
  if (failed(axis))
    return failure();
  auto [index, n] = *axis;
  Value in = l.get(op.getInput());
  Value out = l.result(op.getResult());
  auto inType = cast<MemRefType>(in.getType());
  int64_t dim = op.getDim();
  if (contiguousBlocks(inType, dim)) {
    // Rank order along the dim is the buffer order: gather in place.
    l.b.create<kern::AllGatherOp>(op.getLoc(), in, out, index, n);
    return success();
  }
  SymShape local = KernLowering::shapeOfBuffer(in);
  SymShape blocks = blockSpace(n, local);
  Value tmp = l.alloc(op.getLoc(), blocks, inType.getElementType());
  l.b.create<kern::AllGatherOp>(op.getLoc(), in, tmp, index, n);
  // out[.., r * L + i, ..] = tmp[r, .., i, ..]
  l.map(op.getLoc(), blocks, {KernLowering::dense(tmp)},
        {blocksOf(l, out, local, dim)},
        [](Scalar &, ValueRange args) { return SmallVector<Value>{args[0]}; });
  return success();
}

static LogicalResult lowerReduceScatter(Operation *o, KernLowering &l) {
  auto op = cast<dist::ReduceScatterOp>(o);
  auto axis = collectiveAxis(op, l);
  if (failed(axis))
    return failure();
  auto [index, n] = *axis;
  Value in = l.get(op.getInput());
  Value out = l.result(op.getResult());
  auto outType = cast<MemRefType>(out.getType());
  int64_t dim = op.getDim();
  if (contiguousBlocks(outType, dim)) {
    l.b.create<kern::ReduceScatterOp>(op.getLoc(), in, out, index, n,
                                      op.getKind());
    return success();
  }
  SymShape local = KernLowering::shapeOfBuffer(out);
  SymShape blocks = blockSpace(n, local);
  Value tmp = l.alloc(op.getLoc(), blocks, outType.getElementType());
  // tmp[r, .., i, ..] = in[.., r * L + i, ..]
  l.map(op.getLoc(), blocks, {blocksOf(l, in, local, dim)},
        {KernLowering::dense(tmp)},
        [](Scalar &, ValueRange args) { return SmallVector<Value>{args[0]}; });
  l.b.create<kern::ReduceScatterOp>(op.getLoc(), tmp, out, index, n,
                                    op.getKind());
  return success();
}

static LogicalResult lowerSend(Operation *o, KernLowering &l) {
  auto op = cast<dist::SendOp>(o);
  auto axis = collectiveAxis(op, l);
  if (failed(axis))
    return failure();
  l.b.create<kern::SendOp>(op.getLoc(), l.get(op.getInput()), axis->first,
                           axis->second, op.getOffset());
  return success();
}

static LogicalResult lowerRecv(Operation *o, KernLowering &l) {
  auto op = cast<dist::RecvOp>(o);
  auto axis = collectiveAxis(op, l);
  if (failed(axis))
    return failure();
  l.b.create<kern::RecvOp>(op.getLoc(), l.result(op.getResult()), axis->first,
                           axis->second, op.getOffset());
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
  t["dist.reduce_scatter"] = lowerReduceScatter;
  t["dist.send"] = lowerSend;
  t["dist.recv"] = lowerRecv;
  t["dist.shard"] = lowerShard;
}
