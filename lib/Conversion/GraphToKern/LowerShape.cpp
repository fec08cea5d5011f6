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
    l.alias(out, l.view(op.getLoc(), l.get(op.getInput()), shapeOf(out)));
    return success();
  });
}

static int32_t padMode(StringRef mode) {
  return llvm::StringSwitch<int32_t>(mode)
      .Case("constant", 0)
      .Case("reflect", 1)
      .Case("edge", 2)
      .Case("wrap", 3)
      .Default(-1);
}

void shardc::kern::addShapeLowerings(LoweringTable &t) {
  viewLowering<graph::ReshapeOp>(t);
  viewLowering<graph::SqueezeOp>(t);
  viewLowering<graph::UnsqueezeOp>(t);
  viewLowering<graph::FlattenOp>(t);

  addLowering<graph::TransposeOp>(t, [](graph::TransposeOp op, KernLowering &l) {
    Value in = l.get(op.getInput());
    SmallVector<int64_t> strides = rowMajorStrides(shapeOf(op.getInput()));
    Access a{in, {0}};
    for (int64_t p : op.getPerm())
      a.layout.push_back(strides[p]);
    Value out = l.result(op.getOutput());
    l.map(op.getLoc(), shapeOf(op.getOutput()), {a}, {KernLowering::dense(out)},
          identityBody);
    return success();
  });

  addLowering<graph::SliceOp>(t, [](graph::SliceOp op, KernLowering &l) {
    Value in = l.get(op.getInput());
    SmallVector<int64_t> strides = rowMajorStrides(shapeOf(op.getInput()));
    Access a{in, {0}};
    for (auto [d, start, step] :
         llvm::enumerate(op.getStarts(), op.getSteps())) {
      a.layout[0] += start * strides[d];
      a.layout.push_back(step * strides[d]);
    }
    Value out = l.result(op.getOutput());
    l.map(op.getLoc(), shapeOf(op.getOutput()), {a}, {KernLowering::dense(out)},
          identityBody);
    return success();
  });

  addLowering<graph::ExpandOp>(t, [](graph::ExpandOp op, KernLowering &l) {
    ArrayRef<int64_t> shape = shapeOf(op.getOutput());
    Access a = KernLowering::broadcast(l.get(op.getInput()), shape);
    Value out = l.result(op.getOutput());
    l.map(op.getLoc(), shape, {a}, {KernLowering::dense(out)}, identityBody);
    return success();
  });

  addLowering<graph::ConcatOp>(t, [](graph::ConcatOp op, KernLowering &l) {
    int64_t axis = op.getAxis();
    Value out = l.result(op.getOutput());
    SmallVector<int64_t> strides = rowMajorStrides(shapeOf(op.getOutput()));
    int64_t at = 0;
    for (Value input : op.getInputs()) {
      ArrayRef<int64_t> shape = shapeOf(input);
      if (shape[axis] == 0)
        continue;
      Access o{out, {at * strides[axis]}};
      o.layout.append(strides);
      l.map(op.getLoc(), shape, {KernLowering::dense(l.get(input))}, {o},
            identityBody);
      at += shape[axis];
    }
    return success();
  });

  addLowering<graph::SplitOp>(t, [](graph::SplitOp op, KernLowering &l) {
    int64_t axis = op.getAxis();
    Value in = l.get(op.getInput());
    SmallVector<int64_t> strides = rowMajorStrides(shapeOf(op.getInput()));
    int64_t at = 0;
    for (Value res : op.getOutputs()) {
      ArrayRef<int64_t> shape = shapeOf(res);
      Value out = l.result(res, /*optional=*/true);
      if (out && shape[axis] > 0) {
        Access a{in, {at * strides[axis]}};
        a.layout.append(strides);
        l.map(op.getLoc(), shape, {a}, {KernLowering::dense(out)},
              identityBody);
      }
      at += shape[axis];
    }
    return success();
  });

  addLowering<graph::PadOp>(t, [](graph::PadOp op, KernLowering &l) {
    int32_t mode = padMode(op.getMode());
    if (mode < 0)
      return l.fail(op, "unknown pad mode '" + op.getMode() + "'");
    SmallVector<Value> ins{l.get(op.getInput())};
    if (op.getValue())
      ins.push_back(l.get(op.getValue()));
    Value out = l.result(op.getOutput());
    unsigned y = ins.size();
    l.call(op.getLoc(), "sc_pad", ins, {out},
           {l.desc(0), l.ptr(0), l.desc(y), l.ptr(y), l.i64s(op.getPads()),
            l.i32(mode), op.getValue() ? l.ptr(1) : l.null()});
    return success();
  });
}
