//===- SpatialOps.cpp - kern.pool, kern.pad, kern.resize -------------------===//
//
// Verifiers and C arguments of the windowing and resampling kernels
// (runtime/include/shardc/cpu.h: sc_pool, sc_pad, sc_resize). String
// attributes become the runtime's integer codes here.
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/IR/RuntimeOps.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace shardc::kern;
using namespace shardc::kern::runtime;

//===----------------------------------------------------------------------===//
// kern.pool
//===----------------------------------------------------------------------===//

static SmallVector<int64_t> logicalDims(MemRefType t, bool channelsLast) {
  if (channelsLast && t.getRank() >= 3)
    return channelsFirstDims(t.getShape());
  return SmallVector<int64_t>(t.getShape());
}

SmallVector<int64_t> PoolOp::logicalX() {
  return logicalDims(getX().getType(), getChannelsLast());
}

SmallVector<int64_t> PoolOp::logicalY() {
  return logicalDims(getY().getType(), getChannelsLast());
}

LogicalResult PoolOp::verify() {
  if (!isMax() && getKind() != "average")
    return emitOpError("kind must be max or average, not '")
           << getKind() << "'";
  SmallVector<int64_t> x = logicalX(), y = logicalY();
  int64_t spatial = static_cast<int64_t>(x.size()) - 2;
  if (spatial < 1 || y.size() != x.size())
    return emitOpError("x and y need one rank >= 3, not ")
           << getX().getType() << " and " << getY().getType();
  Type elem = elementOf(getX());
  if (elem.isInteger(1) || elementOf(getY()) != elem)
    return emitOpError("x and y need one numeric element type");
  if (x[0] != y[0] || x[1] != y[1])
    return emitOpError("x and y need the same batch and channel dims");
  if (static_cast<int64_t>(getKernelShape().size()) != spatial ||
      static_cast<int64_t>(getStrides().size()) != spatial ||
      static_cast<int64_t>(getDilations().size()) != spatial ||
      static_cast<int64_t>(getPads().size()) != 2 * spatial)
    return emitOpError("needs ")
           << spatial << " kernel dims, strides and dilations and "
           << 2 * spatial << " pads";
  for (auto [k, s, d] :
       llvm::zip(getKernelShape(), getStrides(), getDilations()))
    if (k < 1 || s < 1 || d < 1)
      return emitOpError("kernel dims, strides and dilations must be >= 1");
  if (llvm::any_of(getPads(), [](int64_t p) { return p < 0; }))
    return emitOpError("pads must be >= 0");
  if (getStorageOrder() != 0 && getStorageOrder() != 1)
    return emitOpError("storage_order must be 0 or 1, not ")
           << getStorageOrder();
  if (Value indices = getIndices()) {
    if (!isMax())
      return emitOpError("indices come with max pooling only");
    if (getChannelsLast())
      return emitOpError("indices do not come with channels-last buffers");
    MemRefType it = bufferType(indices);
    if (!isSignedInt(it.getElementType(), 64) ||
        it.getShape() != ArrayRef<int64_t>(y))
      return emitOpError("indices must be i64 of y's shape, not ") << it;
  }
  return success();
}

StringRef PoolOp::getRuntimeCallee() { return "sc_pool"; }

// sc_pool(x desc, x, y desc, y, indices|0, kind, kernel, strides, dilations,
//         pads, count_include_pad, storage_order, channels_last)
void PoolOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::desc(getY()), RuntimeArg::ptr(getY()),
               RuntimeArg::ptr(getIndices()),
               RuntimeArg::i32(isMax() ? 0 : 1),
               RuntimeArg::i64s(getKernelShape()),
               RuntimeArg::i64s(getStrides()),
               RuntimeArg::i64s(getDilations()), RuntimeArg::i64s(getPads()),
               RuntimeArg::i32(getCountIncludePad()),
               RuntimeArg::i32(getStorageOrder()),
               RuntimeArg::i32(getChannelsLast())});
}

//===----------------------------------------------------------------------===//
// kern.pad
//===----------------------------------------------------------------------===//

/// sc_pad's mode code, or -1.
static int32_t padMode(StringRef mode) {
  return llvm::StringSwitch<int32_t>(mode)
      .Case("constant", 0)
      .Case("reflect", 1)
      .Case("edge", 2)
      .Case("wrap", 3)
      .Default(-1);
}

LogicalResult PadOp::verify() {
  int32_t mode = padMode(getMode());
  if (mode < 0)
    return emitOpError("mode must be constant, reflect, edge or wrap, not '")
           << getMode() << "'";
  MemRefType x = getX().getType(), y = getY().getType();
  Type elem = x.getElementType();
  if (y.getElementType() != elem)
    return emitOpError("x and y need one element type");
  if (Value value = getValue())
    if (elementOf(value) != elem || bufferType(value).getNumElements() != 1)
      return emitOpError("value must be one element of ")
             << elem << ", not " << value.getType();
  int64_t rank = x.getRank();
  ArrayRef<int64_t> pads = getPads();
  if (static_cast<int64_t>(pads.size()) != 2 * rank || y.getRank() != rank)
    return emitOpError("needs ") << 2 * rank << " pads and y of rank " << rank;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t before = pads[d], after = pads[rank + d];
    int64_t kept = x.getShape()[d] - std::max<int64_t>(0, -before) -
                   std::max<int64_t>(0, -after);
    int64_t want = x.getShape()[d] + before + after;
    if (want < 0 || y.getShape()[d] != want)
      return emitOpError("y dim ") << d << " is " << y.getShape()[d]
                                   << ", padding gives " << want;
    if (kept <= 0 && mode != 0 && y.getNumElements() > 0)
      return emitOpError("cannot pad the empty dim ")
             << d << " by " << getMode();
  }
  return success();
}

int32_t PadOp::getModeCode() { return padMode(getMode()); }

StringRef PadOp::getRuntimeCallee() { return "sc_pad"; }

// sc_pad(x desc, x, y desc, y, pads, mode, value|0)
void PadOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::desc(getY()), RuntimeArg::ptr(getY()),
               RuntimeArg::i64s(getPads()), RuntimeArg::i32(getModeCode()),
               RuntimeArg::ptr(getValue())});
}

//===----------------------------------------------------------------------===//
// kern.resize
//===----------------------------------------------------------------------===//

// sc_resize's codes, or -1.
static int32_t resizeMode(StringRef s) {
  return llvm::StringSwitch<int32_t>(s)
      .Case("nearest", 0)
      .Case("linear", 1)
      .Case("cubic", 2)
      .Default(-1);
}
static int32_t resizeCoord(StringRef s) {
  return llvm::StringSwitch<int32_t>(s)
      .Case("half_pixel", 0)
      .Case("asymmetric", 1)
      .Case("pytorch_half_pixel", 2)
      .Case("align_corners", 3)
      .Case("tf_half_pixel_for_nearest", 4)
      .Case("half_pixel_symmetric", 5)
      .Default(-1);
}
static int32_t resizeNearest(StringRef s) {
  return llvm::StringSwitch<int32_t>(s)
      .Case("round_prefer_floor", 0)
      .Case("round_prefer_ceil", 1)
      .Case("floor", 2)
      .Case("ceil", 3)
      .Default(-1);
}

LogicalResult ResizeOp::verify() {
  if (resizeMode(getMode()) < 0)
    return emitOpError("mode must be nearest, linear or cubic, not '")
           << getMode() << "'";
  if (resizeCoord(getCoordinateTransformationMode()) < 0)
    return emitOpError("unknown coordinate_transformation_mode '")
           << getCoordinateTransformationMode() << "'";
  if (resizeNearest(getNearestMode()) < 0)
    return emitOpError("unknown nearest_mode '") << getNearestMode() << "'";
  MemRefType x = getX().getType(), y = getY().getType();
  if (x.getRank() < 1 || y.getRank() != x.getRank())
    return emitOpError("x and y need one rank >= 1, not ") << x << " and " << y;
  if (x.getElementType().isInteger(1) ||
      y.getElementType() != x.getElementType())
    return emitOpError("x and y need one numeric element type");
  if (static_cast<int64_t>(getScales().size()) != x.getRank())
    return emitOpError("needs ") << x.getRank() << " scales, not "
                                 << getScales().size();
  if (x.getNumElements() == 0 && y.getNumElements() > 0)
    return emitOpError("cannot resize an empty x to a non-empty y");
  return success();
}

int32_t ResizeOp::getModeCode() { return resizeMode(getMode()); }
int32_t ResizeOp::getCoordinateTransformationCode() {
  return resizeCoord(getCoordinateTransformationMode());
}
int32_t ResizeOp::getNearestModeCode() {
  return resizeNearest(getNearestMode());
}

StringRef ResizeOp::getRuntimeCallee() { return "sc_resize"; }

// sc_resize(x desc, x, y desc, y, scales, mode, coord, nearest, cubic_a,
//           exclude_outside, extrapolation_value, antialias)
void ResizeOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::desc(getY()), RuntimeArg::ptr(getY()),
               RuntimeArg::f32s(getScales()),
               RuntimeArg::i32(getModeCode()),
               RuntimeArg::i32(getCoordinateTransformationCode()),
               RuntimeArg::i32(getNearestModeCode()),
               RuntimeArg::f32(getCubicCoeffA().convertToFloat()),
               RuntimeArg::i32(getExcludeOutside()),
               RuntimeArg::f32(getExtrapolationValue().convertToFloat()),
               RuntimeArg::i32(getAntialias())});
}
