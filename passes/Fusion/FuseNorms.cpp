//===- FuseNorms.cpp - the graph-fuse-norms pass ---------------------------===//
//
// Recognizes LayerNorm and RMSNorm as exporters decompose them. A match is
// rooted at the normalization n = num / sqrt(mean(num^2) + eps):
//
//   n   = Div(num, Sqrt(s)) | Mul(num, R) | Mul(R, num)
//         R = Reciprocal(Sqrt(s)) | Div(1, Sqrt(s))      (rsqrt exports)
//   s   = Add(ms, eps) | Add(eps, ms)           eps: constant scalar >= 0
//   ms  = ReduceMean(Pow(num, 2) | Mul(num, num), A, keepdims)
//   A   = contiguous axes ending at the last one (empty: every axis)
//
// LayerNorm when num = Sub(x, ReduceMean(x, A, keepdims)), then forward
// from n an optional Mul by gamma and an optional Add of beta (either
// operand order). RMSNorm otherwise, with x = num or x = Cast(num) when
// the cast only widens (HF exports compute in fp32), then an optional Cast
// back to x's type and an optional Mul by the weight. gamma, beta and the
// weight must vary along the normalized axes only (every leading dim 1).
//
// Every intermediate value has no user outside the match, and no step
// broadcasts x to a larger shape. Absent gamma / weight become constants of
// ones; absent beta is no bias.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/Passes.h"
#include "passes/Fusion/PatternUtils.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSENORMS
#include "passes/Fusion/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// The value of a constant whose elements are all equal (a scalar or a
/// splat): a float one as patterns::splatFloat reads it (NaN never counts),
/// or a dense integer one.
std::optional<double> scalarConstant(Value v) {
  if (std::optional<APFloat> f = patterns::splatFloat(v)) {
    if (f->isNaN())
      return std::nullopt;
    bool lost;
    f->convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return f->convertToDouble();
  }
  auto c = v.getDefiningOp<graph::ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
  auto it = dense ? dyn_cast<IntegerType>(dense.getElementType()) : nullptr;
  if (!it || it.getWidth() <= 1 || dense.getNumElements() < 1 ||
      dense.getNumElements() > 1024)
    return std::nullopt;
  SmallVector<double> values;
  for (APInt i : dense.getValues<APInt>())
    values.push_back(it.isUnsigned() ? (double)i.getZExtValue()
                                     : (double)i.getSExtValue());
  if (llvm::any_of(values, [&](double d) { return d != values.front(); }))
    return std::nullopt;
  return values.front();
}

bool usedOnlyBy(Value v, ArrayRef<Operation *> ops) {
  return llvm::all_of(v.getUsers(),
                      [&](Operation *u) { return llvm::is_contained(ops, u); });
}

/// The only user of `v` if it is an `OpTy`.
template <typename OpTy> OpTy soleUser(Value v) {
  if (v.use_empty())
    return {};
  Operation *user = *v.getUsers().begin();
  if (!usedOnlyBy(v, {user}))
    return {};
  return dyn_cast<OpTy>(user);
}


/// The first normalized axis of a keepdims mean over contiguous axes ending
/// at the last one.
std::optional<int64_t> trailingAxis(graph::ReduceMeanOp mean) {
  if (!mean.getKeepdims())
    return std::nullopt;
  int64_t rank = cast<ShapedType>(mean.getInput().getType()).getRank();
  ArrayRef<int64_t> axes = mean.getAxes();
  if (axes.empty())
    return rank > 0 ? std::optional<int64_t>(0) : std::nullopt;
  for (auto [i, a] : llvm::enumerate(axes))
    if (a != rank - static_cast<int64_t>(axes.size() - i))
      return std::nullopt;
  return axes.front();
}

/// True if `p` (gamma, beta, weight) has x's element type and varies along
/// the normalized axes [axis, rank) only.
bool isNormParam(Value p, RankedTensorType x, int64_t axis) {
  auto pt = cast<RankedTensorType>(p.getType());
  int64_t lead = x.getRank() - pt.getRank();
  if (pt.getElementType() != x.getElementType() || lead < 0)
    return false;
  for (int64_t i = 0; i < pt.getRank(); ++i) {
    int64_t d = pt.getDimSize(i), j = lead + i;
    if (d != 1 && (j < axis || d != x.getDimSize(j)))
      return false;
  }
  return true;
}

/// `p` with the dims before the normalized ones dropped (all 1), or ones of
/// the normalized shape when absent.
Value normParam(PatternRewriter &rewriter, Location loc, Value p,
                RankedTensorType x, int64_t axis) {
  ArrayRef<int64_t> norm = x.getShape().drop_front(axis);
  if (!p) {
    auto type = RankedTensorType::get(norm, x.getElementType());
    auto one = rewriter.getFloatAttr(x.getElementType(), 1.0);
    return rewriter.create<graph::ConstantOp>(
        loc, DenseElementsAttr::get(type, ArrayRef<Attribute>{one}));
  }
  auto pt = cast<RankedTensorType>(p.getType());
  if (pt.getRank() <= static_cast<int64_t>(norm.size()))
    return p;
  return rewriter.create<graph::ReshapeOp>(
      loc, p, pt.getShape().take_back(norm.size()));
}

/// n = num / sqrt(mean(num^2 over the trailing axes from `axis`) + eps).
struct Core {
  Value num;
  Operation *square;
  int64_t axis;
  double eps;
};

/// The Sqrt of `v` = Reciprocal(Sqrt(s)) or Div(1, Sqrt(s)), used only there.
graph::SqrtOp rsqrtOf(Value v) {
  Operation *r = v.getDefiningOp();
  Value sqrt;
  if (auto rec = dyn_cast_or_null<graph::ReciprocalOp>(r))
    sqrt = rec.getInput();
  else if (auto div = dyn_cast_or_null<graph::DivOp>(r);
           div && scalarConstant(div.getLhs()) == 1.0 &&
           div.getType() == div.getRhs().getType())
    sqrt = div.getRhs();
  auto op = sqrt ? sqrt.getDefiningOp<graph::SqrtOp>() : nullptr;
  if (!op || !r->hasOneUse() || !op->hasOneUse())
    return {};
  return op;
}

std::optional<Core> matchCore(Operation *root) {
  Value num;
  graph::SqrtOp sqrt;
  if (auto div = dyn_cast<graph::DivOp>(root)) {
    num = div.getLhs();
    sqrt = div.getRhs().getDefiningOp<graph::SqrtOp>();
    if (sqrt && !sqrt->hasOneUse())
      sqrt = {};
  } else if (auto mul = dyn_cast<graph::MulOp>(root)) {
    for (auto [a, b] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if ((sqrt = rsqrtOf(b))) {
        num = a;
        break;
      }
  }
  if (!sqrt || root->getResult(0).getType() != num.getType())
    return std::nullopt;
  auto add = sqrt.getInput().getDefiningOp<graph::AddOp>();
  if (!add || !add->hasOneUse() || add.getType() != sqrt.getType())
    return std::nullopt;
  for (auto [m, e] : {std::pair(add.getLhs(), add.getRhs()),
                      std::pair(add.getRhs(), add.getLhs())}) {
    auto mean = m.getDefiningOp<graph::ReduceMeanOp>();
    std::optional<double> eps = scalarConstant(e);
    if (!mean || !eps || !(*eps >= 0) || m.getType() != add.getType() ||
        !mean->hasOneUse())
      continue;
    std::optional<int64_t> axis = trailingAxis(mean);
    Operation *sq = mean.getInput().getDefiningOp();
    if (!axis || !sq || !sq->hasOneUse() ||
        sq->getResult(0).getType() != num.getType())
      return std::nullopt;
    bool square =
        (isa<graph::PowOp>(sq) && sq->getOperand(0) == num &&
         scalarConstant(sq->getOperand(1)) == 2.0) ||
        (isa<graph::MulOp>(sq) && sq->getOperand(0) == num &&
         sq->getOperand(1) == num);
    if (!square)
      return std::nullopt;
    return Core{num, sq, *axis, *eps};
  }
  return std::nullopt;
}

template <typename RootOp>
struct FuseNorm : OpRewritePattern<RootOp> {
  using OpRewritePattern<RootOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(RootOp root,
                                PatternRewriter &rewriter) const override {
    std::optional<Core> core = matchCore(root);
    if (!core)
      return failure();
    Value num = core->num;
    int64_t axis = core->axis;
    auto numType = cast<RankedTensorType>(num.getType());
    if (!isa<FloatType>(numType.getElementType()))
      return failure();
    bool onlyCore = usedOnlyBy(num, {core->square, root.getOperation()});

    // LayerNorm: num = x - mean(x) over the same axes.
    auto sub = num.getDefiningOp<graph::SubOp>();
    auto mean = sub ? sub.getRhs().getDefiningOp<graph::ReduceMeanOp>()
                    : graph::ReduceMeanOp();
    if (onlyCore && mean && mean.getInput() == sub.getLhs() &&
        mean->hasOneUse() && trailingAxis(mean) == axis &&
        sub.getLhs().getType() == numType) {
      Value x = sub.getLhs();
      Value cur = root.getResult(), gamma, beta;
      Operation *last = root;
      if (auto mul = soleUser<graph::MulOp>(cur)) {
        Value p = patterns::otherOperand(mul, cur);
        if (p && mul.getType() == numType && isNormParam(p, numType, axis)) {
          gamma = p;
          cur = mul.getResult();
          last = mul;
        }
      }
      if (auto add = soleUser<graph::AddOp>(cur)) {
        Value p = patterns::otherOperand(add, cur);
        if (p && add.getType() == numType && isNormParam(p, numType, axis)) {
          beta = p;
          last = add;
        }
      }
      rewriter.setInsertionPoint(last);
      Location loc = last->getLoc();
      gamma = normParam(rewriter, loc, gamma, numType, axis);
      if (beta)
        beta = normParam(rewriter, loc, beta, numType, axis);
      auto ln = rewriter.create<graph::LayerNormOp>(
          loc, x, gamma, beta, rewriter.getI64IntegerAttr(axis),
          rewriter.getF32FloatAttr(static_cast<float>(core->eps)));
      rewriter.replaceOp(last, ln.getOutput());
      return success();
    }

    // RMSNorm of x = num, or of Cast(num)'s input when the cast widens.
    SmallVector<Value, 2> inputs;
    if (auto widen = num.getDefiningOp<graph::CastOp>(); widen && onlyCore) {
      auto from = dyn_cast<FloatType>(elemOf(widen.getInput()));
      auto to = cast<FloatType>(numType.getElementType());
      if (from && (from == to || from.getWidth() < to.getWidth()))
        inputs.push_back(widen.getInput());
    }
    inputs.push_back(num);
    for (Value x : inputs) {
      auto xType = cast<RankedTensorType>(x.getType());
      Value cur = root.getResult(), weight;
      Operation *last = root;
      if (auto back = soleUser<graph::CastOp>(cur);
          back && back.getType() == xType && cur.getType() != xType) {
        cur = back.getResult();
        last = back;
      }
      if (auto mul = soleUser<graph::MulOp>(cur)) {
        Value p = patterns::otherOperand(mul, cur);
        if (p && mul.getType() == xType && isNormParam(p, xType, axis)) {
          weight = p;
          last = mul;
          cur = mul.getResult();
        }
      }
      if (cur.getType() != xType)
        continue;
      rewriter.setInsertionPoint(last);
      Location loc = last->getLoc();
      weight = normParam(rewriter, loc, weight, xType, axis);
      auto rms = rewriter.create<graph::RmsNormOp>(
          loc, x, weight, rewriter.getI64IntegerAttr(axis),
          rewriter.getF32FloatAttr(static_cast<float>(core->eps)));
      rewriter.replaceOp(last, rms.getOutput());
      return success();
    }
    return failure();
  }

  static Type elemOf(Value v) {
    return cast<ShapedType>(v.getType()).getElementType();
  }
};

struct GraphFuseNormsPass
    : shardc::impl::GraphFuseNormsBase<GraphFuseNormsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseNorm<graph::DivOp>, FuseNorm<graph::MulOp>>(
        &getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
