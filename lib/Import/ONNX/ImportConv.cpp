//===- ImportConv.cpp - conv (float and quantized), pooling, resize, pad
//---===//
//
// auto_pad and ConvTranspose's output_shape are resolved here into explicit
// pads, so the graph ops carry one form.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShapeInference.h"

#include <cmath>

using namespace mlir;

namespace shardc::onnximport {

struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

// Reads kernel_shape/strides/dilations/pads/auto_pad for `spatial` dims of
// input `x` (shape NC...).
static Window readWindow(NodeContext &c, ArrayRef<int64_t> x,
                         ArrayRef<int64_t> kernel) {
  int64_t spatial = kernel.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = c.getInts("strides", SmallVector<int64_t>(spatial, 1));
  w.dilations = c.getInts("dilations", SmallVector<int64_t>(spatial, 1));
  w.pads = c.getInts("pads", SmallVector<int64_t>(2 * spatial, 0));
  if ((int64_t)w.strides.size() != spatial ||
      (int64_t)w.dilations.size() != spatial ||
      (int64_t)w.pads.size() != 2 * spatial) {
    (void)c.fail("strides, dilations and pads must match " +
           std::to_string(spatial) + " spatial dims");
    return w;
  }
  for (size_t i = 0; i < w.strides.size(); ++i)
    if (w.strides[i] < 1 || w.dilations[i] < 1) {
      (void)c.fail("strides and dilations must be >= 1");
      return w;
    }
  for (int64_t p : w.pads)
    if (p < 0) {
      (void)c.fail("pads " + graph::shapeStr(w.pads) +
                   " must be between 0 and 2^31");
      return w;
    }
  std::string autoPad = c.getString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.pads.assign(2 * spatial, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = x[i + 2], s = w.strides[i];
      int64_t out = (in + s - 1) / s;
      int64_t total = std::max<int64_t>(
          0, (out - 1) * s + (kernel[i] - 1) * w.dilations[i] + 1 - in);
      int64_t small = total / 2, big = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : big;
      w.pads[i + spatial] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad != "NOTSET") {
    (void)c.fail("unknown auto_pad '" + autoPad + "'");
  }
  return w;
}

/// The window of a convolution of input `x` by weight `wt` (the node's
/// kernel_shape, strides, dilations, pads and auto_pad), or nothing after
/// recording an error.
static std::optional<Window> convWindow(NodeContext &c, RankedTensorType x,
                                        RankedTensorType wt) {
  if (x.getRank() < 3 || wt.getRank() != x.getRank()) {
    (void)c.fail("input and weight must have the same rank >= 3");
    return std::nullopt;
  }
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2));
  SmallVector<int64_t> declared = c.getInts("kernel_shape", kernel);
  if (declared != kernel) {
    (void)c.fail("kernel_shape does not match the weight's spatial dims");
    return std::nullopt;
  }
  Window w = readWindow(c, x.getShape(), kernel);
  if (c.failed())
    return std::nullopt;
  return w;
}

/// graph.conv of `operands` (input, weight, optional bias) with the node's
/// window and group; null after recording an error.
static Value createConv(NodeContext &c, ArrayRef<Value> operands) {
  std::optional<Window> w =
      convWindow(c, cast<RankedTensorType>(operands[0].getType()),
                 cast<RankedTensorType>(operands[1].getType()));
  if (!w)
    return {};
  Operation *op = c.create(
      "conv", operands,
      {c.array("strides", w->strides), c.array("dilations", w->dilations),
       c.array("pads", w->pads), c.i64("group", c.getInt("group", 1))});
  return op ? op->getResult(0) : Value();
}

/// QLinearConv(x, xs, xz, w, ws, wz, ys, yz, B) in its QDQ form, as
/// ONNX defines it: quantize_linear(conv(dequantize_linear(x, xs, xz),
/// dequantize_linear(w, ws, wz, axis 0), dequantize_linear(B, xs * ws)),
/// ys, yz). graph-fold-qdq then runs the convolution on the int8 kernels
/// (an int32 accumulation, as the operator's), where the weight is a
/// constant.
static LogicalResult importQLinearConv(NodeContext &c) {
  RankedTensorType wt = c.type(3);
  if (wt.getRank() < 3)
    return c.fail("the weight must have rank >= 3");
  // Per output channel where the weight's scale has one per channel.
  auto wAxis = c.i64("axis", c.type(4).getNumElements() > 1 ? 0 : 1);
  Value x = c.createValue("dequantize_linear", {c.in(0), c.in(1), c.in(2)},
                          {c.i64("axis", 1)});
  Value w =
      c.createValue("dequantize_linear", {c.in(3), c.in(4), c.in(5)}, {wAxis});
  SmallVector<Value> operands{x, w};
  if (c.has(8)) {
    if (!c.type(8).getElementType().isSignlessInteger(32) ||
        c.type(8).getRank() != 1)
      return c.fail("the bias must be a 1-D int32 tensor");
    Value scale = c.createValue("mul", {c.in(1), c.in(4)});
    if (c.failed())
      return failure();
    // A zero point of the scale's shape (per channel or per tensor).
    auto scaleType = cast<RankedTensorType>(scale.getType());
    Type i32 = c.b.getIntegerType(32);
    Value zero = c.b.create<graph::ConstantOp>(
        c.loc, DenseElementsAttr::get(scaleType.clone(i32),
                                      c.b.getIntegerAttr(i32, 0)));
    operands.push_back(
        c.createValue("dequantize_linear", {c.in(8), scale, zero}, {wAxis}));
  }
  if (c.failed())
    return failure();
  Value y = createConv(c, operands);
  if (!y)
    return failure();
  Value q = c.createValue("quantize_linear", {y, c.in(6), c.in(7)},
                          {c.i64("axis", 1)});
  if (!q)
    return failure();
  c.bind(0, q);
  return c.status();
}

/// ConvInteger(x, w, xz, wz): the int32 convolution of x - xz by w - wz.
/// Imported as cast<i32>(conv(dequantize_linear(x, 1, xz),
/// dequantize_linear(w, 1, wz, axis 0))): the products are integers below
/// 2^16 and every sum of integers rounds to an integer in f32, so the
/// result is the exact sum while partial sums stay below 2^24 and within
/// one f32 rounding of it beyond. ONNX Runtime's quantize_dynamic follows
/// it with a cast to f32 and the two scales, which graph canonicalization
/// folds into the QDQ form that graph-fold-qdq runs on the int8 kernels.
static LogicalResult importConvInteger(NodeContext &c) {
  Value xz = c.inOrZeroPoint(2, 0);
  Value wz = c.inOrZeroPoint(3, 1);
  if (c.failed())
    return failure();
  auto wzType = cast<RankedTensorType>(wz.getType());
  Value one = c.floatScalar(c.b.getF32Type(), 1.0);
  Value wScale = one;
  int64_t wAxis = 1;
  if (wzType.getRank() == 1 && wzType.getNumElements() > 1) {
    // Per output channel: a scale of ones for each.
    wAxis = 0;
    wScale = c.b.create<graph::ConstantOp>(
        c.loc, DenseElementsAttr::get(
                   RankedTensorType::get(wzType.getShape(), c.b.getF32Type()),
                   c.b.getFloatAttr(c.b.getF32Type(), 1.0)));
  }
  Value x = c.createValue("dequantize_linear", {c.in(0), one, xz},
                          {c.i64("axis", 1)});
  Value w = c.createValue("dequantize_linear", {c.in(1), wScale, wz},
                          {c.i64("axis", wAxis)});
  if (c.failed())
    return failure();
  Value y = createConv(c, {x, w});
  if (!y)
    return failure();
  c.create("cast", {y}, {c.named("to", TypeAttr::get(c.b.getIntegerType(32)))});
  return c.status();
}

static LogicalResult importConv(NodeContext &c, bool transpose) {
  SmallVector<Value> operands{c.in(0), c.in(1)};
  if (c.has(2))
    operands.push_back(c.in(2));
  if (!transpose)
    return success(static_cast<bool>(createConv(c, operands)));
  std::optional<Window> win = convWindow(c, c.type(0), c.type(1));
  if (!win)
    return failure();
  Window &w = *win;
  auto x = c.type(0);
  SmallVector<int64_t> kernel(c.type(1).getShape().drop_front(2));
  int64_t group = c.getInt("group", 1);
  int64_t spatial = kernel.size();
  SmallVector<int64_t> outPad =
      c.getInts("output_padding", SmallVector<int64_t>(spatial, 0));
  SmallVector<int64_t> outShape = c.getInts("output_shape");
  std::string autoPad = c.getString("auto_pad", "NOTSET");
  if (outShape.size() > (size_t)spatial)
    outShape.erase(outShape.begin(), outShape.end() - spatial);
  if (outShape.empty() && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"))
    for (int64_t i = 0; i < spatial; ++i)
      outShape.push_back(x.getDimSize(i + 2) * w.strides[i]);
  if (!outShape.empty()) {
    if ((int64_t)outShape.size() != spatial || (int64_t)outPad.size() != spatial)
      return c.fail("output_shape must have one entry per spatial dim");
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t total = w.strides[i] * (x.getDimSize(i + 2) - 1) + outPad[i] +
                      (kernel[i] - 1) * w.dilations[i] + 1 - outShape[i];
      int64_t half = total / 2;
      bool lower = autoPad == "SAME_LOWER";
      w.pads[i] = lower ? total - half : half;
      w.pads[i + spatial] = lower ? half : total - half;
    }
  }
  c.create("conv_transpose", operands,
           {c.array("strides", w.strides), c.array("dilations", w.dilations),
            c.array("pads", w.pads), c.array("output_padding", outPad),
            c.i64("group", group)});
  return c.status();
}

static LogicalResult importPool(NodeContext &c, bool max) {
  auto x = c.type(0);
  SmallVector<int64_t> kernel = c.getInts("kernel_shape");
  if (kernel.empty() || (int64_t)kernel.size() != x.getRank() - 2)
    return c.fail("kernel_shape must have one entry per spatial dim");
  Window w = readWindow(c, x.getShape(), kernel);
  if (c.failed())
    return failure();
  SmallVector<NamedAttribute> attrs{
      c.array("kernel_shape", kernel), c.array("strides", w.strides),
      c.array("dilations", w.dilations), c.array("pads", w.pads),
      c.boolean("ceil_mode", c.getInt("ceil_mode", 0))};
  if (max)
    attrs.push_back(c.i64("storage_order", c.getInt("storage_order", 0)));
  else
    attrs.push_back(
        c.boolean("count_include_pad", c.getInt("count_include_pad", 0)));
  c.create(max ? "max_pool" : "average_pool", {c.in(0)}, attrs);
  return c.status();
}

static LogicalResult importResize(NodeContext &c) {
  auto x = c.type(0);
  int64_t rank = x.getRank();
  int scalesInput = c.opset < 11 ? 1 : 2, sizesInput = 3;
  SmallVector<int64_t> axes = c.getInts("axes");
  for (int64_t &a : axes)
    a = c.axis(a, rank);
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  SmallVector<int64_t> sizes(x.getShape());
  SmallVector<float> scales(rank, 1.0f);
  // An empty tensor stands for an absent input.
  auto present = [&](int i) {
    const HostTensor *t = c.constant(i);
    return c.has(i) && (!t || t->numel() > 0);
  };
  if (present(sizesInput)) {
    auto v = c.ints(sizesInput, "sizes");
    if (!v)
      return failure();
    if (v->size() != axes.size())
      return c.fail("sizes must have one entry per resized axis");
    std::string policy = c.getString("keep_aspect_ratio_policy", "stretch");
    double common = policy == "not_smaller" ? 0.0 : 1e300;
    for (size_t i = 0; i < axes.size(); ++i) {
      double s = (double)(*v)[i] / x.getDimSize(axes[i]);
      common = policy == "not_smaller" ? std::max(common, s)
                                       : std::min(common, s);
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      if (policy == "stretch") {
        sizes[axes[i]] = (*v)[i];
        scales[axes[i]] = (float)(*v)[i] / x.getDimSize(axes[i]);
      } else {
        sizes[axes[i]] = (int64_t)std::round(x.getDimSize(axes[i]) * common);
        scales[axes[i]] = (float)common;
      }
    }
  } else if (present(scalesInput)) {
    if (!c.constant(scalesInput)) {
      (void)c.ints(scalesInput, "scales"); // records the error
      return failure();
    }
    const HostTensor *sc = c.constant(scalesInput);
    if ((size_t)sc->numel() != axes.size())
      return c.fail("scales must have one entry per resized axis");
    for (size_t i = 0; i < axes.size(); ++i) {
      if (!(sc->f(i) > 0) || !std::isfinite(sc->f(i)))
        return c.fail("scale " + std::to_string(sc->f(i)) + " (element " +
                      std::to_string(i) +
                      " of the scales) must be positive and finite");
      scales[axes[i]] = (float)sc->f(i);
      sizes[axes[i]] =
          (int64_t)std::floor(x.getDimSize(axes[i]) * (double)scales[axes[i]]);
    }
  } else {
    return c.fail("needs scales or sizes");
  }
  std::string ctm = c.opset < 11 ? "asymmetric"
                                 : c.getString("coordinate_transformation_mode",
                                               "half_pixel");
  c.create("resize", {c.in(0)},
           {c.array("sizes", sizes),
            c.named("scales", c.b.getDenseF32ArrayAttr(scales)),
            c.str("mode", c.getString("mode", "nearest")),
            c.str("coordinate_transformation_mode", ctm),
            c.str("nearest_mode", c.getString("nearest_mode", "round_prefer_floor")),
            c.f32("cubic_coeff_a", c.getFloat("cubic_coeff_a", -0.75f)),
            c.boolean("exclude_outside", c.getInt("exclude_outside", 0)),
            c.f32("extrapolation_value", c.getFloat("extrapolation_value", 0)),
            c.boolean("antialias", c.getInt("antialias", 0))});
  return c.status();
}

static LogicalResult importPad(NodeContext &c) {
  int64_t rank = c.rank(0);
  SmallVector<int64_t> pads;
  SmallVector<Value> operands{c.in(0)};
  if (c.opset < 11) {
    pads = c.getInts("pads");
    float value = c.getFloat("value", 0.0f);
    if (value != 0.0f) {
      HostTensor t;
      t.dtype = ScalarType::F32;
      t.floats = {value};
      operands.push_back(c.constantOf(t));
    }
  } else {
    auto v = c.ints(1, "pads");
    if (!v)
      return failure();
    pads = *v;
    if (c.has(2))
      operands.push_back(c.in(2));
    if (c.has(3)) {
      auto axes = c.ints(3, "axes");
      if (!axes)
        return failure();
      if (pads.size() != 2 * axes->size())
        return c.fail("pads must have two entries per axis");
      SmallVector<int64_t> full(2 * rank, 0);
      for (size_t i = 0; i < axes->size(); ++i) {
        int64_t a = c.axis((*axes)[i], rank);
        full[a] = pads[i];
        full[a + rank] = pads[i + axes->size()];
      }
      pads = full;
    }
  }
  c.create("pad", operands,
           {c.array("pads", pads), c.str("mode", c.getString("mode", "constant"))});
  return c.status();
}

void registerConvOps(HandlerMap &map) {
  map["Conv"] = [](NodeContext &c) { return importConv(c, false); };
  map["QLinearConv"] = importQLinearConv;
  map["ConvInteger"] = importConvInteger;
  map["ConvTranspose"] = [](NodeContext &c) { return importConv(c, true); };
  map["MaxPool"] = [](NodeContext &c) { return importPool(c, true); };
  map["AveragePool"] = [](NodeContext &c) { return importPool(c, false); };
  map["GlobalAveragePool"] = [](NodeContext &c) {
    c.create("global_average_pool", {c.in(0)});
    return c.status();
  };
  // GlobalMaxPool: the maximum over the spatial dims, kept (a reduce_max,
  // so that a split spatial or token dim combines by max).
  map["GlobalMaxPool"] = [](NodeContext &c) {
    int64_t rank = c.rank(0);
    if (rank < 3)
      return c.fail("GlobalMaxPool needs an input of rank 3 or more, not " +
                    std::to_string(rank));
    SmallVector<int64_t> spatial;
    for (int64_t d = 2; d < rank; ++d)
      spatial.push_back(d);
    c.create("reduce_max", {c.in(0)},
             {c.array("axes", spatial), c.boolean("keepdims", true)});
    return c.status();
  };
  map["Resize"] = importResize;
  map["Pad"] = importPad;
}

} // namespace shardc::onnximport
