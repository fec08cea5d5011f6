//===- LowerConv.cpp - convolution, pooling and resize
//---------------------===//
//
// Conv, ConvTranspose, fused_conv and conv_int8 (the CPU only) become
// kern.conv (oneDNN on the CPU,
// cuDNN on CUDA; fp16 through fp32 copies unless `half-gemm`, bf16 narrow).
// Pooling and Resize call the runtime; GlobalAveragePool is a generated mean
// reduction.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

/// The epilogue of a graph.fused_conv (none for Conv and ConvTranspose).
static Value residualOf(graph::FusedConvOp op) { return op.getResidual(); }
static Value residualOf(Operation *) { return Value(); }
static StringRef activationOf(graph::FusedConvOp op) {
  return op.getActivation();
}
static StringRef activationOf(Operation *) { return "none"; }

template <typename OpTy>
static LogicalResult lowerConv(OpTy op, KernLowering &l, bool transposed) {
  Location loc = op.getLoc();
  Type elem = elemOf(op.getInput());
  bool half = elem.isF16() || elem.isBF16();
  if (!elem.isF32() && !half)
    return l.fail(op, "convolution runs in float32, float16 or bfloat16 "
                      "only (got " +
                          graph::typeStr(op.getInput().getType()) + ")");
  size_t spatial = shapeOf(op.getInput()).size() - 2;
  if (spatial < 1 || spatial > 3)
    return l.fail(op, "oneDNN takes 1 to 3 spatial dims, not " +
                          std::to_string(spatial));
  // fp16 without native half library calls (the CPU: oneDNN 2.6 has no
  // fp16 convolution there): an fp32 convolution of widened copies,
  // narrowed at the end. bf16 stays narrow (oneDNN's bf16 convolution, on
  // AMX where the CPU has it; cuDNN).
  bool widen = elem.isF16() && !l.halfGemm;
  Type f32 = l.b.getF32Type();
  auto operand = [&](Value v) {
    return widen ? l.converted(loc, l.get(v), f32) : l.get(v);
  };
  Value bias = op.getBias() ? operand(op.getBias()) : Value();
  Value residual = residualOf(op);
  if (residual)
    residual = operand(residual);
  Value out = l.result(op.getOutput());
  Value y = widen ? l.alloc(loc, shapeOf(op.getOutput()), f32) : out;
  l.b.create<ConvOp>(loc, operand(op.getInput()), operand(op.getWeight()), bias,
                     residual, y, Value(), Value(), op.getStridesAttr(),
                     op.getDilationsAttr(), op.getPadsAttr(), op.getGroupAttr(),
                     transposed ? l.b.getUnitAttr() : UnitAttr(),
                     l.b.getStringAttr(activationOf(op)), UnitAttr(),
                     UnitAttr(), DenseF32ArrayAttr(), l.b.getI64IntegerAttr(0));
  if (widen)
    l.map(loc, shapeOf(op.getOutput()), {KernLowering::dense(y)},
          {KernLowering::dense(out)}, [&](Scalar &s, ValueRange v) {
            return SmallVector<Value>{s.convert(v[0], f32, elem)};
          });
  return success();
}

/// graph.conv_int8: kern.conv with its scales and zero point (oneDNN's
/// int8 convolution), and its run-time scale and zero point when dynamic.
static LogicalResult lowerConvInt8(graph::ConvInt8Op op, KernLowering &l) {
  size_t spatial = shapeOf(op.getInput()).size() - 2;
  if (spatial < 1 || spatial > 3)
    return l.fail(op, "oneDNN takes 1 to 3 spatial dims, not " +
                          std::to_string(spatial));
  Value bias = op.getBias() ? l.get(op.getBias()) : Value();
  Value residual = op.getResidual() ? l.get(op.getResidual()) : Value();
  Value scale = op.getDynamicScale() ? l.get(op.getDynamicScale()) : Value();
  Value zero =
      op.getDynamicZeroPoint() ? l.get(op.getDynamicZeroPoint()) : Value();
  l.b.create<ConvOp>(op.getLoc(), l.get(op.getInput()), l.get(op.getWeight()),
                     bias, residual, l.result(op.getOutput()), scale, zero,
                     op.getStridesAttr(), op.getDilationsAttr(),
                     op.getPadsAttr(), op.getGroupAttr(), UnitAttr(),
                     op.getActivationAttr(), UnitAttr(), UnitAttr(),
                     op.getScalesAttr(), op.getInputZeroPointAttr());
  return success();
}

template <typename OpTy>
static LogicalResult lowerPool(OpTy op, KernLowering &l, StringRef kind,
                               Value indices, bool countIncludePad,
                               int64_t storageOrder) {
  Type elem = elemOf(op.getInput());
  if (!Scalar::isFloat(elem) && !elem.isInteger(8))
    return l.fail(op, "pooling takes floating-point or 8-bit integer inputs");
  Value out = l.result(op.getOutput());
  Value x = l.get(op.getInput());
  l.b.create<PoolOp>(op.getLoc(), x, out, indices, kind,
                     op.getKernelShape(), op.getStrides(), op.getDilations(),
                     op.getPads(), countIncludePad, storageOrder);
  return success();
}

static LogicalResult lowerResize(graph::ResizeOp op, KernLowering &l) {
  StringRef mode = op.getMode(), nearest = op.getNearestMode();
  StringRef coord = op.getCoordinateTransformationMode();
  if (coord == "tf_half_pixel_for_nn") // its name in opset 10
    coord = "tf_half_pixel_for_nearest";
  if (!llvm::StringSwitch<bool>(mode)
           .Cases("nearest", "linear", "cubic", true)
           .Default(false))
    return l.fail(op, "unknown mode '" + mode + "'");
  if (!llvm::StringSwitch<bool>(coord)
           .Cases("half_pixel", "asymmetric", "pytorch_half_pixel",
                  "align_corners", "tf_half_pixel_for_nearest",
                  "half_pixel_symmetric", true)
           .Default(false))
    return l.fail(op, "coordinate_transformation_mode '" + coord +
                          "' is not supported");
  if (!llvm::StringSwitch<bool>(nearest)
           .Cases("round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
                  true)
           .Default(false))
    return l.fail(op, "unknown nearest_mode '" + nearest + "'");
  ArrayRef<int64_t> in = shapeOf(op.getInput()), out = shapeOf(op.getOutput());
  SmallVector<float> scales(op.getScales());
  if (scales.size() != in.size()) {
    scales.clear();
    for (size_t d = 0; d < in.size(); ++d)
      scales.push_back(in[d] ? static_cast<float>(out[d]) / in[d] : 1.0f);
  }
  Value y = l.result(op.getOutput());
  Value x = l.get(op.getInput());
  l.b.create<ResizeOp>(op.getLoc(), x, y, scales, mode,
                       coord, nearest, op.getCubicCoeffA(),
                       op.getExcludeOutside(), op.getExtrapolationValue(),
                       op.getAntialias());
  return success();
}

void shardc::kern::addConvLowerings(LoweringTable &t) {
  addLowering<graph::ConvOp>(t, [](graph::ConvOp op, KernLowering &l) {
    return lowerConv(op, l, false);
  });
  addLowering<graph::FusedConvOp>(t, [](graph::FusedConvOp op, KernLowering &l) {
    return lowerConv(op, l, false);
  });
  addLowering<graph::ConvInt8Op>(t, lowerConvInt8);
  addLowering<graph::ConvTransposeOp>(t, [](graph::ConvTransposeOp op, KernLowering &l) {
    return lowerConv(op, l, true);
  });
  addLowering<graph::MaxPoolOp>(t, [](graph::MaxPoolOp op, KernLowering &l) {
    Value indices = l.result(op.getIndices(), /*optional=*/true);
    return lowerPool(op, l, "max", indices, false, op.getStorageOrder());
  });
  addLowering<graph::AveragePoolOp>(t, [](graph::AveragePoolOp op, KernLowering &l) {
    return lowerPool(op, l, "average", Value(), op.getCountIncludePad(), 0);
  });
  addLowering<graph::GlobalAveragePoolOp>(t, [](graph::GlobalAveragePoolOp op, KernLowering &l) {
    SmallVector<int64_t> axes;
    for (size_t d = 2; d < shapeOf(op.getInput()).size(); ++d)
      axes.push_back(d);
    reduceAll(l, op.getLoc(), "mean", op.getInput(), axes,
              l.result(op.getOutput()));
    return success();
  });
  addLowering<graph::ResizeOp>(t, lowerResize);
}
