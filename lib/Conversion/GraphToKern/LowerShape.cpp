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
