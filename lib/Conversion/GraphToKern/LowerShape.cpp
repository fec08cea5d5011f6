//===- LowerShape.cpp - data movement graph ops to kern --------------------===//
//
// Reshapes are views (no copy). Transpose, slice, expand, concat and split
// are generated copies whose strided accesses do the index arithmetic. Pad
// calls the runtime (its reflect/edge/wrap modes are not strided).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

static SmallVector<Value> identityBody(Scalar &, ValueRange args) {
  return SmallVector<Value>(args);
}

/// A reshape-like op: the result is a view of the input's buffer.
template <typename OpTy>
static void viewLowering(LoweringTable &t) {
  addLowering<OpTy>(t, [](OpTy op, KernLowering &l) {
    Value out = op->getResult(0);
    l.alias(out, l.view(op.getLoc(), l.get(op.getInput()), graph::dimsOf(out)));
    return success();
  });
}

/// Row-major strides of graph value `v` (symbolic where its dims are).
static SmallVector<sym::Expr> stridesOf(Value v) {
  return KernLowering::strides(graph::dimsOf(v).sym);
}

/// present = Concat(past, new) of a KV cache input (graph-kv-cache): the
/// past is already the first P entries of the present's output buffer,
/// which is laid out for the bounds, so only `new` is written, at offset P;
/// the present is read from there (a view at the bound's strides). Only
/// when the concat is the past's one use: the runtime then fills the
/// output's buffer instead of the input's, which another use would read
/// unfilled (a --tp program with more ranks than KV heads gathers each
/// rank's head from the past besides appending to the whole of it).
static bool appendToCache(graph::ConcatOp op, KernLowering &l) {
  if (op.getInputs().size() != 2 || !op.getInputs()[0].hasOneUse())
    return false;
  auto cache = l.caches.find(op.getInputs()[0]);
  if (cache == l.caches.end())
    return false;
  auto [index, axis] = cache->second;
  Value present = op.getOutput();
  auto pending = l.pendingOutputs.find(present);
  if (axis != (int64_t)op.getAxis() || pending == l.pendingOutputs.end() ||
      pending->second.size() != 1 ||
      pending->second.front() != l.outputArgs[index])
    return false;
  Value out = l.result(present);
  l.buffers.erase(present);
  SmallVector<sym::Expr> strides;
  for (int64_t s : rowMajorStrides(shapeOf(out)))
    strides.push_back(sym::Expr(s));
  sym::Expr past = graph::dimsOf(op.getInputs()[0]).sym[axis];
  Value fresh = op.getInputs()[1];
  l.map(op.getLoc(), graph::dimsOf(fresh), {KernLowering::dense(l.get(fresh))},
        {l.access(out, past * strides[axis], strides)}, identityBody);
  l.views[present] = {out, sym::Expr(0), strides};
  l.inPlaceCaches.push_back(op.getInputs()[0]);
  return true;
}

void shardc::kern::addShapeLowerings(LoweringTable &t) {
  viewLowering<graph::ReshapeOp>(t);
  viewLowering<graph::SqueezeOp>(t);
  viewLowering<graph::UnsqueezeOp>(t);
  viewLowering<graph::FlattenOp>(t);

  addLowering<graph::TransposeOp>(
      t, [](graph::TransposeOp op, KernLowering &l) {
        SmallVector<sym::Expr> in = stridesOf(op.getInput()), strides;
        for (int64_t p : op.getPerm())
          strides.push_back(in[p]);
        Access a = l.access(l.get(op.getInput()), 0, strides);
        Value out = l.result(op.getOutput());
        l.map(op.getLoc(), graph::dimsOf(op.getOutput()), {a},
              {KernLowering::dense(out)}, identityBody);
        return success();
      });

  addLowering<graph::SliceOp>(t, [](graph::SliceOp op, KernLowering &l) {
    SmallVector<sym::Expr> in = stridesOf(op.getInput()), strides;
    sym::Expr offset = 0;
    SmallVector<sym::Expr> starts =
        graph::symAttr(op->getAttrDictionary(), "starts", op.getStarts());
    for (auto [d, start, step] : llvm::enumerate(starts, op.getSteps())) {
      offset = offset + in[d] * start;
      strides.push_back(in[d] * step);
    }
    Access a = l.access(l.get(op.getInput()), offset, strides);
    Value out = l.result(op.getOutput());
    l.map(op.getLoc(), graph::dimsOf(op.getOutput()), {a},
          {KernLowering::dense(out)}, identityBody);
    return success();
  });

  addLowering<graph::ExpandOp>(t, [](graph::ExpandOp op, KernLowering &l) {
    SymShape shape = graph::dimsOf(op.getOutput());
    Access a = KernLowering::broadcast(l.get(op.getInput()), shape.bound);
    Value out = l.result(op.getOutput());
    l.map(op.getLoc(), shape, {a}, {KernLowering::dense(out)}, identityBody);
    return success();
  });

  addLowering<graph::ConcatOp>(t, [](graph::ConcatOp op, KernLowering &l) {
    if (appendToCache(op, l))
      return success();
    int64_t axis = op.getAxis();
    Value out = l.result(op.getOutput());
    SmallVector<sym::Expr> strides = stridesOf(op.getOutput());
    sym::Expr at = 0;
    for (Value input : op.getInputs()) {
      SymShape shape = graph::dimsOf(input);
      if (shape.bound[axis] == 0)
        continue;
      Access o = l.access(out, at * strides[axis], strides);
      l.map(op.getLoc(), shape, {KernLowering::dense(l.get(input))}, {o},
            identityBody);
      at = at + shape.sym[axis];
    }
    return success();
  });

  addLowering<graph::SplitOp>(t, [](graph::SplitOp op, KernLowering &l) {
    int64_t axis = op.getAxis();
    Value in = l.get(op.getInput());
    SmallVector<sym::Expr> strides = stridesOf(op.getInput());
    sym::Expr at = 0;
    for (Value res : op.getOutputs()) {
      SymShape shape = graph::dimsOf(res);
      Value out = l.result(res, /*optional=*/true);
      if (out && shape.bound[axis] > 0)
        l.map(op.getLoc(), shape, {l.access(in, at * strides[axis], strides)},
              {KernLowering::dense(out)}, identityBody);
      at = at + shape.sym[axis];
    }
    return success();
  });

  addLowering<graph::PadOp>(t, [](graph::PadOp op, KernLowering &l) {
    StringRef mode = op.getMode();
    if (!llvm::StringSwitch<bool>(mode)
             .Cases("constant", "reflect", "edge", "wrap", true)
             .Default(false))
      return l.fail(op, "unknown pad mode '" + mode + "'");
    Value x = l.get(op.getInput());
    Value value = op.getValue() ? l.get(op.getValue()) : Value();
    Value out = l.result(op.getOutput());
    l.b.create<PadOp>(op.getLoc(), x, value, out, op.getPads(), mode);
    return success();
  });
}
