//===- ConvOps.cpp - convolution, pooling, resize, pad ----------------------===//

#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace shardc::graph {

// Checks that the per-spatial-dim attributes have the right lengths.
static LogicalResult checkWindowAttrs(Loc loc, int64_t spatial,
                                      ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> dilations,
                                      ArrayRef<int64_t> pads,
                                      bool negativePads = false) {
  if ((int64_t)strides.size() != spatial ||
      (int64_t)dilations.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return emitOptionalError(loc, "expected ", spatial, " strides, ", spatial,
                             " dilations and ", 2 * spatial,
                             " pads for the spatial dims, got ",
                             strides.size(), ", ", dilations.size(), " and ",
                             pads.size());
  constexpr int64_t kMaxWindowAttr = int64_t(1) << 31;
  for (int64_t i = 0; i < spatial; ++i)
    if (strides[i] < 1 || dilations[i] < 1 || strides[i] > kMaxWindowAttr ||
        dilations[i] > kMaxWindowAttr)
      return emitOptionalError(loc, "strides ", shapeStr(strides),
                               " and dilations ", shapeStr(dilations),
                               " must be between 1 and 2^31");
  // ConvTranspose's importer turns output_shape into pads, which may be
  // negative (extra output); the output size is checked there instead.
  for (int64_t p : pads)
    if ((p < 0 && !negativePads) || p > kMaxWindowAttr ||
        p < -kMaxWindowAttr)
      return emitOptionalError(loc, "pads ", shapeStr(pads),
                               " must be between 0 and 2^31");
  return success();
}

// Output size of a sliding window along one dim, or -1 if the (dilated)
// window does not fit in the padded input. Attributes are bounded by
// checkWindowAttrs and dims by 2^40, so nothing here overflows.
static int64_t windowOutput(int64_t in, int64_t k, int64_t stride,
                            int64_t dilation, int64_t padBegin, int64_t padEnd,
                            bool ceilMode) {
  int64_t span = in + padBegin + padEnd - dilation * (k - 1) - 1;
  if (span < 0)
    return -1;
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // The last window must start inside the input or the begin padding.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

// Appends the window outputs of every spatial dim to `shape`; refuses a
// window larger than its padded input, as ONNX Runtime and PyTorch do.
static LogicalResult windowShape(Loc loc, RankedTensorType x,
                                 ArrayRef<int64_t> kernel,
                                 ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> dilations,
                                 ArrayRef<int64_t> pads, bool ceilMode,
                                 SmallVectorImpl<int64_t> &shape) {
  int64_t spatial = kernel.size();
  for (int64_t i = 0; i < spatial; ++i) {
    if (kernel[i] < 1 || kernel[i] > (int64_t(1) << 31))
      return emitOptionalError(loc, "kernel shape ", shapeStr(kernel),
                               " must be between 1 and 2^31");
    int64_t in = x.getDimSize(i + 2);
    // An empty unpadded input gives an empty output (zero-size tensors are
    // legal ONNX); only a non-empty one must hold the window.
    int64_t out = in == 0 && pads[i] == 0 && pads[i + spatial] == 0
                      ? 0
                      : windowOutput(in, kernel[i], strides[i], dilations[i],
                                     pads[i], pads[i + spatial], ceilMode);
    if (out < 0)
      return emitOptionalError(
          loc, "the window along spatial dim ", i, " (kernel ", kernel[i],
          ", dilation ", dilations[i], ") is larger than the padded input (",
          in, " + pads ", pads[i], " + ", pads[i + spatial], ")");
    shape.push_back(out);
  }
  return success();
}

LogicalResult inferConv(Loc loc, Value input, Value weight, Value bias,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                        ArrayRef<int64_t> pads, int64_t group,
                        SmallVectorImpl<Type> &types, bool int8) {
  auto x = tensorOf(input), w = tensorOf(weight);
  int64_t spatial = x.getRank() - 2;
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return emitOptionalError(loc, "input ", typeStr(x), " and weight ",
                             typeStr(w), " must have the same rank >= 3");
  if (!int8 && x.getElementType() != w.getElementType())
    return emitOptionalError(loc, "input and weight element types differ");
  if (failed(checkWindowAttrs(loc, spatial, strides, dilations, pads)))
    return failure();
  int64_t m = w.getDimSize(0);
  if (x.getDimSize(1) == 0 && m != 0)
    return emitOptionalError(loc, "input ", typeStr(x),
                             " has no channels: an empty convolution sum is "
                             "not supported");
  if (group < 1 || x.getDimSize(1) != w.getDimSize(1) * group || m % group)
    return emitOptionalError(loc, "input channels ", x.getDimSize(1),
                             " do not match weight ", typeStr(w),
                             " with group ", group);
  if (bias)
    if (tensorOf(bias).getShape() != ArrayRef<int64_t>{m})
      return emitOptionalError(loc, "bias ", typeStr(bias.getType()),
                               " must have shape [", m, "]");
  SmallVector<int64_t> shape{x.getDimSize(0), m};
  if (failed(windowShape(loc, x, w.getShape().drop_front(2), strides,
                         dilations, pads, false, shape)))
    return failure();
  // int8: the sums are scaled back to f32.
  types.push_back(
      int8 ? RankedTensorType::get(shape, Float32Type::get(x.getContext()))
           : x.clone(shape));
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferConv(loc, adaptor.getInput(), adaptor.getWeight(),
                   adaptor.getBias(), adaptor.getStrides(),
                   adaptor.getDilations(), adaptor.getPads(),
                   adaptor.getGroup(), types);
}

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput()), w = tensorOf(adaptor.getWeight());
  int64_t spatial = x.getRank() - 2, group = adaptor.getGroup();
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return emitOptionalError(loc, "input ", typeStr(x), " and weight ",
                             typeStr(w), " must have the same rank >= 3");
  if (failed(checkWindowAttrs(loc, spatial, adaptor.getStrides(),
                              adaptor.getDilations(), adaptor.getPads(),
                              /*negativePads=*/true)))
    return failure();
  if ((int64_t)adaptor.getOutputPadding().size() != spatial)
    return emitOptionalError(loc, "expected ", spatial, " output_padding");
  if (group < 1 || x.getDimSize(1) != w.getDimSize(0))
    return emitOptionalError(loc, "input channels ", x.getDimSize(1),
                             " do not match weight ", typeStr(w));
  int64_t m = w.getDimSize(1) * group;
  SmallVector<int64_t> shape{x.getDimSize(0), m};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t k = w.getDimSize(i + 2), outPad = adaptor.getOutputPadding()[i];
    if (outPad < 0 ||
        (outPad >= adaptor.getStrides()[i] &&
         outPad >= adaptor.getDilations()[i]))
      return emitOptionalError(loc, "output_padding ",
                               shapeStr(adaptor.getOutputPadding()),
                               " must be non-negative and smaller than the "
                               "stride or the dilation");
    int64_t out = adaptor.getStrides()[i] * (x.getDimSize(i + 2) - 1) +
                  outPad + (k - 1) * adaptor.getDilations()[i] + 1 -
                  adaptor.getPads()[i] - adaptor.getPads()[i + spatial];
    if (out < 0 || out > (int64_t(1) << 40))
      return emitOptionalError(loc, "output dim ", i + 2, " would be ", out);
    shape.push_back(out);
  }
  types.push_back(x.clone(shape));
  return success();
}

static LogicalResult inferPool(Loc loc, Value input, ArrayRef<int64_t> kernel,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> dilations,
                               ArrayRef<int64_t> pads, bool ceilMode,
                               SmallVectorImpl<Type> &types) {
  auto x = tensorOf(input);
  int64_t spatial = x.getRank() - 2;
  if (x.getRank() < 3)
    return emitOptionalError(loc, "input must have rank >= 3, got ",
                             typeStr(x));
  if ((int64_t)kernel.size() != spatial)
    return emitOptionalError(loc, "kernel_shape ", shapeStr(kernel),
                             " does not match ", spatial, " spatial dims");
  if (failed(checkWindowAttrs(loc, spatial, strides, dilations, pads)))
    return failure();
  SmallVector<int64_t> shape(x.getShape().take_front(2));
  if (failed(windowShape(loc, x, kernel, strides, dilations, pads, ceilMode,
                         shape)))
    return failure();
  types.push_back(x.clone(shape));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(inferPool(loc, adaptor.getInput(), adaptor.getKernelShape(),
                       adaptor.getStrides(), adaptor.getDilations(),
                       adaptor.getPads(), adaptor.getCeilMode(), types)))
    return failure();
  types.push_back(cast<RankedTensorType>(types[0]).clone(IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *, Loc loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  return inferPool(loc, adaptor.getInput(), adaptor.getKernelShape(),
                   adaptor.getStrides(), adaptor.getDilations(),
                   adaptor.getPads(), adaptor.getCeilMode(), types);
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(
    MLIRContext *, Loc loc, Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  if (x.getRank() < 3)
    return emitOptionalError(loc, "input must have rank >= 3, got ",
                             typeStr(x));
  SmallVector<int64_t> shape(x.getShape().take_front(2));
  shape.append(x.getRank() - 2, 1);
  types.push_back(x.clone(shape));
  return success();
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  if ((int64_t)sizes.size() != x.getRank() ||
      (int64_t)adaptor.getScales().size() != x.getRank())
    return emitOptionalError(loc, "sizes and scales need ", x.getRank(),
                             " entries each");
  StringRef mode = adaptor.getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitOptionalError(loc, "unknown mode '", mode, "'");
  types.push_back(x.clone(sizes));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = x.getRank();
  if ((int64_t)pads.size() != 2 * rank)
    return emitOptionalError(loc, "pads ", shapeStr(pads), " need ", 2 * rank,
                             " entries");
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitOptionalError(loc, "unknown mode '", mode, "'");
  if (Value v = adaptor.getValue())
    if (tensorOf(v).getNumElements() != 1 ||
        tensorOf(v).getElementType() != x.getElementType())
      return emitOptionalError(loc, "pad value ", typeStr(v.getType()),
                               " must be one element of the input type");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = x.getDimSize(d), lo = pads[d], hi = pads[d + rank];
    if (std::abs(lo) > (int64_t(1) << 40) || std::abs(hi) > (int64_t(1) << 40))
      return emitOptionalError(loc, "pads ", shapeStr(pads),
                               " must be within 2^40");
    int64_t n = in + lo + hi;
    if (n < 0)
      return emitOptionalError(loc, "pads crop dim ", d, " below zero");
    // What ONNX Runtime refuses: padding an empty dim from its own values,
    // and reflecting further than the dim reaches.
    if ((mode == "edge" || mode == "reflect" || mode == "wrap") && in == 0 &&
        (lo > 0 || hi > 0))
      return emitOptionalError(loc, mode, " padding of dim ", d,
                               ", which is empty");
    if (mode == "reflect" && (lo >= in || hi >= in) && (lo > 0 || hi > 0))
      return emitOptionalError(loc, "reflect pads ", lo, " and ", hi,
                               " of dim ", d, " must be smaller than its size ",
                               in);
    shape.push_back(n);
  }
  types.push_back(x.clone(shape));
  return success();
}

} // namespace shardc::graph
