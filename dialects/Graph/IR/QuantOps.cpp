//===- QuantOps.cpp - quantize/dequantize, integer matmuls and convs
//-------===//

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace shardc::graph {

// Scale and zero point are scalars (per tensor) or 1-D along `axis`.
static LogicalResult checkQuantParams(Loc loc, RankedTensorType x, Value scale,
                                      Value zeroPoint, int64_t axis) {
  auto st = tensorOf(scale), zt = tensorOf(zeroPoint);
  if (st.getShape() != zt.getShape())
    return emitOptionalError(loc, "scale ", typeStr(st), " and zero point ",
                             typeStr(zt), " shapes differ");
  if (st.getNumElements() == 1 && st.getRank() <= 1)
    return success();
  if (st.getRank() != 1)
    return emitOptionalError(loc, "scale must be a scalar or 1-D, got ",
                             typeStr(st));
  if (failed(checkAxis(loc, "axis", axis, x.getRank())))
    return failure();
  if (st.getDimSize(0) != x.getDimSize(axis))
    return emitOptionalError(loc, "per-axis scale ", typeStr(st),
                             " does not match dim ", axis, " of ", typeStr(x));
  return success();
}

LogicalResult QuantizeLinearOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  if (failed(checkQuantParams(loc, x, adaptor.getScale(),
                              adaptor.getZeroPoint(), adaptor.getAxis())))
    return failure();
  types.push_back(x.clone(tensorOf(adaptor.getZeroPoint()).getElementType()));
  return success();
}

LogicalResult DequantizeLinearOp::inferReturnTypes(
    MLIRContext *, Loc loc, Adaptor adaptor, SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  if (x.getElementType() != tensorOf(adaptor.getZeroPoint()).getElementType())
    return emitOptionalError(loc, "input ", typeStr(x),
                             " and zero point element types differ");
  if (failed(checkQuantParams(loc, x, adaptor.getScale(),
                              adaptor.getZeroPoint(), adaptor.getAxis())))
    return failure();
  types.push_back(x.clone(tensorOf(adaptor.getScale()).getElementType()));
  return success();
}

LogicalResult MatMulIntegerOp::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  if (!a.getElementType().isInteger(8) || !b.getElementType().isInteger(8))
    return emitOptionalError(loc, "operands must be 8-bit integers, got ",
                             typeStr(a), " and ", typeStr(b));
  SmallVector<int64_t> shape;
  if (failed(matmulShape(loc, a.getShape(), b.getShape(), shape)))
    return failure();
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 32)));
  return success();
}

LogicalResult QLinearMatMulOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  SmallVector<int64_t> shape;
  if (failed(matmulShape(loc, a.getShape(), b.getShape(), shape)))
    return failure();
  Type elt = tensorOf(adaptor.getOutputZeroPoint()).getElementType();
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

namespace {

/// matmul(dequantize_linear(a, sa, za), dequantize_linear(b, sb, zb)) of
/// type `type` (b's parameters per tensor or per column, axis 1): the QDQ
/// form both QOperator products canonicalize to.
Value dequantizedProduct(PatternRewriter &rewriter, Location loc, Value a,
                         Value sa, Value za, Value b, Value sb, Value zb,
                         RankedTensorType type) {
  Type f32 = rewriter.getF32Type();
  auto dequantize = [&](Value x, Value scale, Value zeroPoint) -> Value {
    return rewriter.create<DequantizeLinearOp>(loc, tensorOf(x).clone(f32), x,
                                               scale, zeroPoint,
                                               rewriter.getI64IntegerAttr(1));
  };
  // a's first, then b's (argument order would be unspecified).
  Value da = dequantize(a, sa, za);
  Value db = dequantize(b, sb, zb);
  return rewriter.create<MatMulOp>(loc, type.clone(f32), da, db);
}

/// `v`'s only user when it has one.
Operation *soleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

/// `v * (s1 * s2)`: the multiply that is `v`'s only use and keeps `v`'s
/// type (the scales do not broadcast it), and the product of the two
/// scales it multiplies by; nulls otherwise. ONNX Runtime's QOperator forms
/// scale an integer product so after its cast to f32.
std::pair<MulOp, MulOp> scaledByProduct(Value v) {
  auto scaled = dyn_cast_or_null<MulOp>(soleUser(v));
  if (!scaled || scaled.getOutput().getType() != v.getType())
    return {};
  Value factor = scaled.getLhs() == v ? scaled.getRhs() : scaled.getLhs();
  auto product = factor.getDefiningOp<MulOp>();
  if (!product)
    return {};
  return {scaled, product};
}

/// cast<f32>(matmul_integer(a, b, za, zb)) * (sa * sb) -> matmul of the
/// dequantized operands (MatMulIntegerOp's description).
struct QOperatorToQdq : OpRewritePattern<MatMulIntegerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulIntegerOp mm,
                                PatternRewriter &rewriter) const override {
    auto widen = dyn_cast_or_null<CastOp>(soleUser(mm.getOutput()));
    if (!widen || !getElementTypeOrSelf(widen.getOutput().getType()).isF32())
      return failure();
    auto [scaled, product] = scaledByProduct(widen.getOutput());
    auto aType = tensorOf(mm.getLhs()), bType = tensorOf(mm.getRhs());
    if (!product || bType.getRank() != 2 || aType.getRank() < 2)
      return failure();
    int64_t n = bType.getDimSize(1);
    auto isScalar = [](Value v) {
      auto t = tensorOf(v);
      return t.getRank() == 0 && t.getElementType().isF32();
    };
    auto isColumns = [&](Value v) {
      auto t = tensorOf(v);
      return t.getRank() == 1 && t.getDimSize(0) == n &&
             t.getElementType().isF32();
    };
    // a's scale is per tensor, b's per tensor or per column; of two
    // scalars, a's is the one its quantize (if any) used.
    Value sa = product.getLhs(), sb = product.getRhs();
    auto q = mm.getLhs().getDefiningOp<QuantizeLinearOp>();
    if (!isScalar(sa) || (q && q.getScale() == sb && isScalar(sb)))
      std::swap(sa, sb);
    if (!isScalar(sa) || !(isScalar(sb) || isColumns(sb)))
      return failure();
    Value za = mm.getLhsZeroPoint(), zb = mm.getRhsZeroPoint();
    if (tensorOf(za).getRank() != 0 ||
        tensorOf(zb).getShape() != tensorOf(sb).getShape())
      return failure();
    rewriter.replaceOp(scaled,
                       dequantizedProduct(rewriter, mm.getLoc(), mm.getLhs(),
                                          sa, za, mm.getRhs(), sb, zb,
                                          tensorOf(scaled.getOutput())));
    return success();
  }
};

/// qlinear_matmul by a constant weight -> its QDQ form (QLinearMatMulOp's
/// description).
struct QLinearToQdq : OpRewritePattern<QLinearMatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QLinearMatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto isConstant = [](Value v) {
      return static_cast<bool>(v.getDefiningOp<ConstantOp>());
    };
    auto aType = tensorOf(op.getLhs()), bType = tensorOf(op.getRhs());
    auto sa = tensorOf(op.getLhsScale()), sb = tensorOf(op.getRhsScale());
    // dequantize_linear's parameters: a scale and a zero point of one
    // shape, per tensor (a's) or per tensor or column (b's).
    auto za = tensorOf(op.getLhsZeroPoint()),
         zb = tensorOf(op.getRhsZeroPoint());
    if (bType.getRank() != 2 || aType.getRank() < 2 ||
        !sa.getElementType().isF32() || !sb.getElementType().isF32() ||
        sa.getNumElements() != 1 || sa.getShape() != za.getShape() ||
        sb.getShape() != zb.getShape() || sb.getRank() > 1 ||
        (sb.getNumElements() != 1 &&
         sb.getNumElements() != bType.getDimSize(1)) ||
        !llvm::all_of(ValueRange{op.getRhs(), op.getLhsScale(),
                                 op.getLhsZeroPoint(), op.getRhsScale(),
                                 op.getRhsZeroPoint()},
                      isConstant))
      return failure();
    auto y = tensorOf(op.getOutput());
    Value product =
        dequantizedProduct(rewriter, op.getLoc(), op.getLhs(), op.getLhsScale(),
                           op.getLhsZeroPoint(), op.getRhs(), op.getRhsScale(),
                           op.getRhsZeroPoint(), y);
    rewriter.replaceOpWithNewOp<QuantizeLinearOp>(
        op, y, product, op.getOutputScale(), op.getOutputZeroPoint(),
        rewriter.getI64IntegerAttr(1));
    return success();
  }
};

/// Whether `v` is a constant whose every element is 1.0.
bool isConstantOne(Value v) {
  DenseElementsAttr a;
  if (!matchPattern(v, m_Constant(&a)) || !a.getElementType().isF32())
    return false;
  return llvm::all_of(a.getValues<float>(), [](float f) { return f == 1.0f; });
}

/// cast<f32>(cast<i32>(conv(dequantize_linear(x, 1, zx),
/// dequantize_linear(w, 1, zw)))) * (sa * sb) -> conv(dequantize_linear(x,
/// sa, zx), dequantize_linear(w, sb, zw)): ConvInteger as the importer
/// writes it (ImportConv.cpp), in ONNX Runtime's quantize_dynamic form, a
/// cast to f32 and the two per-tensor scales. The same numbers (the casts
/// change no value of an integer convolution below 2^31), in the QDQ form
/// that fusion and graph-fold-qdq extend.
struct ConvIntegerToQdq : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp widen,
                                PatternRewriter &rewriter) const override {
    auto narrow = widen.getInput().getDefiningOp<CastOp>();
    if (!narrow || !tensorOf(widen.getOutput()).getElementType().isF32() ||
        !tensorOf(narrow.getOutput()).getElementType().isSignlessInteger(32) ||
        !narrow.getOutput().hasOneUse())
      return failure();
    auto conv = narrow.getInput().getDefiningOp<ConvOp>();
    if (!conv || conv.getBias() || !conv.getOutput().hasOneUse())
      return failure();
    auto dx = conv.getInput().getDefiningOp<DequantizeLinearOp>();
    auto dw = conv.getWeight().getDefiningOp<DequantizeLinearOp>();
    auto wt = tensorOf(conv.getWeight());
    int64_t channels = wt.getDimSize(0);
    // w's scale of ones is per tensor, or per output channel (a zero point
    // per channel: quantize_dynamic's per_channel form).
    if (!dx || !dw || !isConstantOne(dx.getScale()) ||
        !isConstantOne(dw.getScale()) ||
        tensorOf(dx.getScale()).getNumElements() != 1 ||
        (tensorOf(dw.getScale()).getNumElements() != 1 &&
         (dw.getAxis() != 0 ||
          tensorOf(dw.getScale()).getNumElements() != channels)))
      return failure();
    // Every sum fits int32 (|x - zx| <= 255, |w - zw| <= 255 over the
    // window), so the casts change no value.
    if (wt.getNumElements() / std::max<int64_t>(channels, 1) >=
        (int64_t(1) << 31) / (255 * 255))
      return failure();
    auto [scaled, product] = scaledByProduct(widen.getOutput());
    if (!product)
      return failure();
    auto isScalar = [](Value v) {
      auto t = tensorOf(v);
      return t.getNumElements() == 1 && t.getRank() <= 1 &&
             t.getElementType().isF32();
    };
    // One scale per output channel, broadcast over the output: [C] or
    // [1, C, 1, ...].
    int64_t rank = tensorOf(conv.getOutput()).getRank();
    auto isChannels = [&](Value v) {
      auto t = tensorOf(v);
      if (!t.getElementType().isF32() || t.getNumElements() != channels ||
          channels == 1)
        return false;
      if (t.getRank() == 1)
        return true;
      return t.getRank() == rank && t.getDimSize(1) == channels;
    };
    // x's scale is the one its quantize (if any) used, or the scalar of a
    // scalar and a per-channel scale.
    Value sa = product.getLhs(), sb = product.getRhs();
    auto q = dx.getInput().getDefiningOp<QuantizeLinearOp>();
    if ((q && q.getScale() == sb) || (isChannels(sa) && isScalar(sb)))
      std::swap(sa, sb);
    if (!isScalar(sa) || !(isScalar(sb) || isChannels(sb)))
      return failure();
    // dequantize_linear's scale and zero point have one shape: a
    // per-channel scale takes a zero point per channel (a constant one of
    // a single value is repeated), a scalar one a single zero point.
    Value zw = dw.getZeroPoint();
    bool perChannel = isChannels(sb);
    int64_t zeros = tensorOf(zw).getNumElements();
    std::optional<HostTensor> zone;
    if (perChannel && zeros == 1)
      zone = constantElements(zw, 1);
    if (perChannel ? zeros != channels && !zone : zeros != 1)
      return failure();
    Location loc = conv.getLoc();
    if (perChannel) {
      sb = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get({channels}, tensorOf(sb).getElementType()),
          sb, rewriter.getDenseI64ArrayAttr({channels}));
      if (zone) {
        Type elem = tensorOf(zw).getElementType();
        zw = rewriter.create<ConstantOp>(
            loc,
            DenseElementsAttr::get(RankedTensorType::get({channels}, elem),
                                   rewriter.getIntegerAttr(elem, zone->i(0))));
      }
    }
    auto dequantize = [&](DequantizeLinearOp d, Value scale, Value zero,
                          int64_t axis) -> Value {
      return rewriter.create<DequantizeLinearOp>(
          loc, d.getOutput().getType(), d.getInput(), scale, zero,
          rewriter.getI64IntegerAttr(axis));
    };
    Value x = dequantize(dx, sa, dx.getZeroPoint(), dx.getAxis());
    Value w = dequantize(dw, sb, zw, perChannel ? 0 : dw.getAxis());
    rewriter.replaceOpWithNewOp<ConvOp>(
        scaled, scaled.getOutput().getType(), x, w, Value(),
        conv.getStridesAttr(), conv.getDilationsAttr(), conv.getPadsAttr(),
        conv.getGroupAttr());
    return success();
  }
};

} // namespace

void CastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<ConvIntegerToQdq>(context);
}

void QLinearMatMulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<QLinearToQdq>(context);
}

void MatMulIntegerOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<QOperatorToQdq>(context);
}

} // namespace shardc::graph
