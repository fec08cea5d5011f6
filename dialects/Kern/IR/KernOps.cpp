//===- KernOps.cpp - kern dialect verifiers --------------------------------===//

#include "dialects/Kern/IR/KernOps.h"
#include "shardc/Support/ReductionKinds.h"

using namespace mlir;
using namespace shardc::kern;

Type shardc::kern::bodyType(Type elementType) {
  if (auto it = dyn_cast<IntegerType>(elementType))
    return IntegerType::get(it.getContext(), it.getWidth());
  return elementType;
}

int64_t shardc::kern::elementBytes(Type t) {
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

SmallVector<int64_t> shardc::kern::rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

LogicalResult WeightOp::verify() {
  auto type = cast<ShapedType>(getValue().getType());
  MemRefType buffer = getBuffer().getType();
  if (type.getShape() != buffer.getShape() ||
      type.getElementType() != buffer.getElementType())
    return emitOpError("value type ") << type << " does not match " << buffer;
  return success();
}

LogicalResult ViewOp::verify() {
  MemRefType from = getSource().getType(), to = getResult().getType();
  if (from.getElementType() != to.getElementType() ||
      from.getNumElements() != to.getNumElements())
    return emitOpError("cannot view ") << from << " as " << to;
  return success();
}

/// Checks one strided access per operand against the iteration space and the
/// operand's buffer, and the body's signature.
static LogicalResult verifyKernel(Operation *op, ValueRange inputs,
                                  ValueRange outputs, ArrayRef<int64_t> shape,
                                  ArrayAttr layouts, Region &body) {
  size_t numOperands = inputs.size() + outputs.size();
  if (layouts.size() != numOperands)
    return op->emitOpError("has ") << layouts.size() << " layouts for "
                                   << numOperands << " operands";
  bool empty = llvm::any_of(shape, [](int64_t n) { return n == 0; });
  for (auto [i, attr] : llvm::enumerate(layouts)) {
    auto layout = dyn_cast<DenseI64ArrayAttr>(attr);
    if (!layout || layout.size() != static_cast<int64_t>(shape.size()) + 1)
      return op->emitOpError("layout #")
             << i << " must be [offset, one stride per dim]";
    if (empty)
      continue;
    int64_t lo = layout[0], hi = layout[0];
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t span = layout[d + 1] * (shape[d] - 1);
      (span < 0 ? lo : hi) += span;
    }
    Value operand = i < inputs.size() ? inputs[i] : outputs[i - inputs.size()];
    int64_t size = cast<MemRefType>(operand.getType()).getNumElements();
    if (lo < 0 || hi >= size)
      return op->emitOpError("operand #")
             << i << " is accessed at [" << lo << ", " << hi
             << "], outside its " << size << " elements";
  }
  Block &block = body.front();
  if (block.getNumArguments() != inputs.size())
    return op->emitOpError("body takes ") << block.getNumArguments()
                                          << " arguments for " << inputs.size()
                                          << " inputs";
  for (auto [arg, input] : llvm::zip(block.getArguments(), inputs)) {
    Type want = bodyType(cast<MemRefType>(input.getType()).getElementType());
    if (arg.getType() != want)
      return op->emitOpError("body argument type ")
             << arg.getType() << " should be " << want;
  }
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().size() != outputs.size())
    return op->emitOpError("body yields ") << yield.getValues().size()
                                           << " values for " << outputs.size()
                                           << " outputs";
  for (auto [value, output] : llvm::zip(yield.getValues(), outputs)) {
    Type want = bodyType(cast<MemRefType>(output.getType()).getElementType());
    if (value.getType() != want)
      return op->emitOpError("body yields ")
             << value.getType() << " for an output of " << want;
  }
  return success();
}

LogicalResult MapOp::verify() {
  return verifyKernel(*this, getInputs(), getOutputs(), getShape(),
                      getLayouts(), getBody());
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyKernel(*this, getInputs(), getOutputs(), getShape(),
                          getLayouts(), getBody())))
    return failure();
  if (getOutputs().size() != 1)
    return emitOpError("has one output");
  StringRef kind = getKind();
  if (!shardc::isReductionKind(kind))
    return emitOpError("unknown reduction kind '") << kind << "'";
  auto outLayout = cast<DenseI64ArrayAttr>(getLayouts()[getInputs().size()]);
  for (int64_t d : getReduceDims()) {
    if (d < 0 || d >= static_cast<int64_t>(getShape().size()))
      return emitOpError("reduce dim ") << d << " out of range";
    if (outLayout[d + 1] != 0)
      return emitOpError("output stride along reduce dim ")
             << d << " must be 0";
  }
  return success();
}

LogicalResult MatmulInt8Op::verify() {
  auto shape = [](Value v) { return cast<MemRefType>(v.getType()).getShape(); };
  auto elem = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  };
  ArrayRef<int64_t> a = shape(getA()), b = shape(getB()), y = shape(getY());
  size_t r = y.size();
  if (r < 2 || a.size() != r || b.size() != r)
    return emitOpError("a, b and y need the same rank >= 2");
  if (!elem(getA()).isInteger(8) || !elem(getB()).isInteger(8) ||
      !elem(getY()).isF32() || (getAScale() && !elem(getAScale()).isF32()) ||
      !elem(getBScale()).isF32())
    return emitOpError("a and b need int8, y and the scales f32");
  if (a[r - 1] != b[r - 2] || y[r - 2] != a[r - 2] || y[r - 1] != b[r - 1])
    return emitOpError("shapes do not multiply: ")
           << getA().getType() << " x " << getB().getType() << " into "
           << getY().getType();
  for (size_t d = 0; d + 2 < r; ++d)
    if (a[d] != y[d] || b[d] != 1)
      return emitOpError("a needs y's batch dims and b dims of 1 there");
  SmallVector<int64_t> rows(y);
  rows.back() = 1;
  if (getAScale() && shape(getAScale()) != ArrayRef<int64_t>(rows))
    return emitOpError("a_scale needs one value per row");
  if (shape(getBScale()).size() != 1 || shape(getBScale())[0] != y[r - 1])
    return emitOpError("b_scale needs one value per column");
  if (Value bias = getBias()) {
    SmallVector<int64_t> row(r, 1);
    row.back() = y[r - 1];
    if (shape(bias) != ArrayRef<int64_t>(row) || !elem(bias).isF32())
      return emitOpError("bias needs a row of y's columns in f32");
  }
  if (Value res = getResidual())
    if (res.getType() != getY().getType())
      return emitOpError("residual needs y's type");
  StringRef e = getEpilogue();
  if (e != "none" && e != "relu" && e != "gelu" && e != "gelu_tanh")
    return emitOpError("epilogue must be none, relu, gelu or gelu_tanh");
  if (getResidual() && e != "none")
    return emitOpError("a residual comes only with epilogue 'none'");
  return success();
}

LogicalResult MatmulOp::verify() {
  ArrayRef<int64_t> a = getA().getType().getShape(),
                    b = getB().getType().getShape(),
                    y = getY().getType().getShape();
  size_t r = y.size();
  if (r < 2 || a.size() != r || b.size() != r)
    return emitOpError("a, b and y need the same rank >= 2");
  int64_t m = getTransA() ? a[r - 1] : a[r - 2];
  int64_t k = getTransA() ? a[r - 2] : a[r - 1];
  int64_t kb = getTransB() ? b[r - 1] : b[r - 2];
  int64_t n = getTransB() ? b[r - 2] : b[r - 1];
  if (k != kb || m != y[r - 2] || n != y[r - 1])
    return emitOpError("shapes do not multiply: ")
           << getA().getType() << " x " << getB().getType() << " into "
           << getY().getType();
  for (size_t d = 0; d + 2 < r; ++d)
    if ((a[d] != y[d] && a[d] != 1) || (b[d] != y[d] && b[d] != 1))
      return emitOpError("batch dim ") << d << " does not broadcast";
  Type elem = getY().getType().getElementType();
  // int8 x int8 -> int32 (oneDNN's int8 matmul): no bias, epilogue,
  // residual or scaling; the caller dequantizes.
  auto isByte = [](Value v) {
    auto t = dyn_cast<IntegerType>(cast<MemRefType>(v.getType()).getElementType());
    return t && t.getWidth() == 8 && !t.isUnsigned();
  };
  if (elem.isInteger(32) && isByte(getA()) && isByte(getB())) {
    if (getBias() || getResidual() || getEpilogue() != "none" ||
        getAlpha().convertToDouble() != 1 || getBeta().convertToDouble() != 0)
      return emitOpError("an int8 product takes no bias, residual, epilogue "
                         "or scaling");
    return success();
  }
  if (getA().getType().getElementType() != elem ||
      getB().getType().getElementType() != elem)
    return emitOpError("a, b and y need one element type");
  if (Value bias = getBias()) {
    auto bt = cast<MemRefType>(bias.getType());
    if (bt.getElementType() != elem || bt.getRank() != static_cast<int64_t>(r))
      return emitOpError("bias needs y's rank and element type");
    for (size_t d = 0; d < r; ++d)
      if (bt.getShape()[d] != 1 && bt.getShape()[d] != y[d])
        return emitOpError("bias dim ") << d << " does not broadcast to y";
  }
  StringRef epilogue = getEpilogue();
  if (epilogue != "none" && epilogue != "relu" && epilogue != "gelu" &&
      epilogue != "gelu_tanh")
    return emitOpError("epilogue must be none, relu, gelu or gelu_tanh, not '")
           << epilogue << "'";
  if (Value res = getResidual()) {
    if (res.getType() != getY().getType())
      return emitOpError("residual ")
             << res.getType() << " must have y's type " << getY().getType();
    if (epilogue != "none")
      return emitOpError("a residual comes only with epilogue 'none'");
    if (Value bias = getBias())
      if (cast<MemRefType>(bias.getType()).getNumElements() != y[r - 1])
        return emitOpError("with a residual the bias must be a row");
  }
  if (!getBeta().isZero() && (epilogue != "none" || getResidual()))
    return emitOpError("beta comes only without epilogue and residual");
  return success();
}

LogicalResult IndexOp::verify() {
  Operation *kernel = (*this)->getParentOp();
  auto shape = kernel->getAttrOfType<DenseI64ArrayAttr>("shape");
  if (getDim() < 0 || getDim() >= static_cast<int64_t>(shape.size()))
    return emitOpError("dim ") << getDim() << " outside the kernel's "
                               << shape.size() << "-d iteration space";
  return success();
}

SmallVector<int64_t> shardc::kern::channelsLastDims(ArrayRef<int64_t> logical) {
  SmallVector<int64_t> p{logical[0]};
  p.append(logical.begin() + 2, logical.end());
  p.push_back(logical[1]);
  return p;
}

SmallVector<int64_t> shardc::kern::channelsFirstDims(ArrayRef<int64_t> physical) {
  SmallVector<int64_t> l{physical[0], physical.back()};
  l.append(physical.begin() + 1, physical.end() - 1);
  return l;
}

/// The logical dims of a conv operand of type `t`.
static SmallVector<int64_t> logicalDims(MemRefType t, bool channelsLast) {
  if (channelsLast && t.getRank() >= 3)
    return channelsFirstDims(t.getShape());
  return SmallVector<int64_t>(t.getShape());
}

SmallVector<int64_t> ConvOp::logicalX() {
  return logicalDims(getX().getType(), getXChannelsLast());
}

SmallVector<int64_t> ConvOp::logicalY() {
  return logicalDims(getY().getType(), getYChannelsLast());
}

LogicalResult ConvOp::verify() {
  SmallVector<int64_t> x = logicalX(), y = logicalY();
  ArrayRef<int64_t> w = getW().getType().getShape();
  size_t r = x.size();
  if (r < 3 || w.size() != r || y.size() != r)
    return emitOpError("x, w and y need the same rank >= 3");
  size_t spatial = r - 2;
  if (getStrides().size() != spatial || getDilations().size() != spatial ||
      getPads().size() != 2 * spatial)
    return emitOpError("needs ") << spatial << " strides and dilations and "
                                 << 2 * spatial << " pads";
  int64_t g = getGroup();
  int64_t cin = getTransposed() ? w[0] : w[1] * g;
  int64_t cout = getTransposed() ? w[1] * g : w[0];
  if (g < 1 || x[1] != cin || y[1] != cout || x[0] != y[0])
    return emitOpError("channels do not match: ")
           << getX().getType() << ", " << getW().getType() << " (group " << g
           << ") into " << getY().getType();
  if (Value bias = getBias())
    if (cast<MemRefType>(bias.getType()).getNumElements() != cout)
      return emitOpError("bias needs ") << cout << " elements";
  if (Value res = getResidual())
    if (res.getType() != getY().getType())
      return emitOpError("residual ") << res.getType()
                                      << " must have y's type " << getY().getType();
  StringRef e = getEpilogue();
  if (e != "none" && e != "relu" && e != "gelu" && e != "gelu_tanh" &&
      e != "hard_swish")
    return emitOpError("epilogue must be none, relu, gelu, gelu_tanh or "
                       "hard_swish, not '")
           << e << "'";
  if (getTransposed() && (getXChannelsLast() || getYChannelsLast()))
    return emitOpError("a transposed convolution has no channels-last operands");
  auto elem = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  };
  std::optional<ArrayRef<float>> scales = getScales();
  if (!scales) {
    if (getXZeroPoint() != 0)
      return emitOpError("x_zero_point needs scales (an int8 convolution)");
    if (getXScale() || getXZero())
      return emitOpError("a run-time scale needs scales (an int8 "
                         "convolution)");
    return success();
  }
  if (!getXScale() != !getXZero())
    return emitOpError("needs both a run-time scale and zero point, or "
                       "neither");
  if (Value s = getXScale()) {
    auto st = cast<MemRefType>(s.getType()),
         zt = cast<MemRefType>(getXZero().getType());
    if (st.getNumElements() != 1 || !st.getElementType().isF32() ||
        zt.getNumElements() != 1 || zt.getElementType() != elem(getX()))
      return emitOpError("run-time scale and zero point must be one f32 and "
                         "one of x's type");
    if (getXZeroPoint() != 0)
      return emitOpError("x_zero_point must be 0 with a run-time zero point");
  }
  // The int8 convolution.
  Type xe = elem(getX());
  if (getTransposed() || !xe.isInteger(8) ||
      !elem(getW()).isSignlessInteger(8) || !elem(getY()).isF32() ||
      (getBias() && !elem(getBias()).isF32()))
    return emitOpError("with scales takes ui8 or i8 x, i8 w, f32 bias and y, "
                       "and is not transposed");
  if (scales->size() != 1 && (int64_t)scales->size() != cout)
    return emitOpError("needs 1 or ")
           << cout << " scales, not " << scales->size();
  for (float s : *scales)
    if (!(s > 0) || std::isinf(s))
      return emitOpError("scales must be finite and positive");
  int64_t lo = xe.isUnsignedInteger() ? 0 : -128,
          hi = xe.isUnsignedInteger() ? 255 : 127;
  // I64Attr's getter is unsigned: read the zero point as the signed
  // value it holds.
  int64_t zp = static_cast<int64_t>(getXZeroPoint());
  if (zp < lo || zp > hi)
    return emitOpError("x_zero_point ")
           << zp << " is outside " << xe << "'s range";
  return success();
}

#define GET_OP_CLASSES
#include "dialects/Kern/IR/KernOps.cpp.inc"
