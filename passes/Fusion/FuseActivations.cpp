//===- FuseActivations.cpp - the graph-fuse-activations pass ---------------===//
//
// Recognizes activations as exporters decompose them:
//
//   GELU (erf):  x * 0.5 * (1 + erf(u))       u = x / sqrt(2) | x * (1/sqrt(2))
//   GELU (tanh): x * 0.5 * (1 + tanh(v))
//                v = sqrt(2/pi) * (x + 0.044715 * c),  c = Pow(x, 3) | x * (x * x)
//   SiLU:        x * sigmoid(x)
//   HardSwish:   x * clip(x + 3, 0, 6) / 6 (the product and the sixth in
//                either order: Paddle's and torch's decompositions), or
//                x * hard_sigmoid(x) with alpha 1/6, beta 1/2
//   SwiGLU:      silu(a) * b                  a, b and the result of one type
//
// The three factors of a GELU multiply in any order and association
// (PyTorch: Mul(Mul(x, A), 0.5) at opsets 14 and 17; HF: Mul(Mul(x, 0.5),
// A); ONNX's function: Mul(x, Mul(0.5, A))), and every commutative op takes
// its operands in either order. Constants are scalars or splats compared
// with a relative tolerance of 1e-4, or one unit in the last place of the
// element type for fp16 / bf16 graphs (--precision runs first).
// Intermediates have no other users and no step broadcasts x.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/Passes.h"
#include "passes/Fusion/PatternUtils.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSEACTIVATIONS
#include "passes/Fusion/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// True if `v` is a scalar or splat float constant within the tolerance of
/// `want`: 1e-4 relative, or one unit in the last place of fp16 / bf16.
bool isConstant(Value v, double want) {
  std::optional<APFloat> f = patterns::splatFloat(v);
  if (!f)
    return false;
  int precision = APFloat::semanticsPrecision(f->getSemantics());
  double tol = std::max(1e-4, std::ldexp(1.0, 1 - precision));
  return std::abs(f->convertToDouble() - want) <= tol * std::abs(want);
}

/// The operands of commutative binary `op` as (a, b) and (b, a).
SmallVector<std::pair<Value, Value>, 2> orders(Operation *op) {
  return {{op->getOperand(0), op->getOperand(1)},
          {op->getOperand(1), op->getOperand(0)}};
}

/// `v` defined by an `OpTy` with `v` as its only use and x's type.
template <typename OpTy> OpTy intermediate(Value v, Type x) {
  auto op = v.getDefiningOp<OpTy>();
  if (!op || !op->hasOneUse() || v.getType() != x)
    return {};
  return op;
}

/// `v` = k * x or x * k (a Mul), or x / (1/k) when `div` (a Div).
bool isScaled(Value v, Value x, double k) {
  Type t = x.getType();
  if (auto div = intermediate<graph::DivOp>(v, t))
    return div.getLhs() == x && isConstant(div.getRhs(), 1.0 / k);
  if (auto mul = intermediate<graph::MulOp>(v, t))
    return llvm::any_of(orders(mul), [&](auto ab) {
      return ab.first == x && isConstant(ab.second, k);
    });
  return false;
}

/// `v` = Pow(x, 3), x * (x * x) or (x * x) * x.
bool isCube(Value v, Value x) {
  Type t = x.getType();
  if (auto pow = intermediate<graph::PowOp>(v, t))
    return pow.getLhs() == x && isConstant(pow.getRhs(), 3.0);
  auto mul = intermediate<graph::MulOp>(v, t);
  if (!mul)
    return false;
  return llvm::any_of(orders(mul), [&](auto ab) {
    auto sq = intermediate<graph::MulOp>(ab.second, t);
    return ab.first == x && sq && sq.getLhs() == x && sq.getRhs() == x;
  });
}

/// tanh's argument: sqrt(2/pi) * (x + 0.044715 * x^3).
bool isTanhArg(Value v, Value x) {
  Type t = x.getType();
  auto outer = intermediate<graph::MulOp>(v, t);
  if (!outer)
    return false;
  return llvm::any_of(orders(outer), [&](auto ab) {
    auto sum = intermediate<graph::AddOp>(ab.first, t);
    if (!sum || !isConstant(ab.second, std::sqrt(2.0 / M_PI)))
      return false;
    return llvm::any_of(orders(sum), [&](auto cd) {
      auto cubic = intermediate<graph::MulOp>(cd.second, t);
      return cd.first == x && cubic &&
             llvm::any_of(orders(cubic), [&](auto ef) {
               return isConstant(ef.first, 0.044715) && isCube(ef.second, x);
             });
    });
  });
}

/// The approximation when `v` = 1 + erf(x / sqrt(2)) or 1 + tanh(...).
std::optional<StringRef> phiOf(Value v, Value x) {
  Type t = x.getType();
  auto add = intermediate<graph::AddOp>(v, t);
  if (!add)
    return std::nullopt;
  for (auto [f, one] : orders(add)) {
    if (!isConstant(one, 1.0))
      continue;
    if (auto erf = intermediate<graph::ErfOp>(f, t);
        erf && isScaled(erf.getInput(), x, M_SQRT1_2))
      return StringRef("none");
    if (auto tanh = intermediate<graph::TanhOp>(f, t);
        tanh && isTanhArg(tanh.getInput(), x))
      return StringRef("tanh");
  }
  return std::nullopt;
}

/// x * 0.5 * phi(x) -> gelu(x), rooted at the outer Mul.
struct FuseGelu : OpRewritePattern<graph::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::MulOp root,
                                PatternRewriter &rewriter) const override {
    Type t = root.getType();
    if (!isa<FloatType>(cast<ShapedType>(t).getElementType()))
      return failure();
    // The three factors: one root operand is an inner Mul.
    for (auto [in, c] : orders(root)) {
      auto inner = intermediate<graph::MulOp>(in, t);
      if (!inner)
        continue;
      Value f[3] = {inner.getLhs(), inner.getRhs(), c};
      // Try each factor as x, each other one as 0.5.
      for (int xi = 0; xi < 3; ++xi)
        for (int hi = 0; hi < 3; ++hi) {
          if (hi == xi)
            continue; // before indexing: f[3 - xi - hi] needs xi != hi
          Value x = f[xi], half = f[hi], phi = f[3 - xi - hi];
          if (x.getType() != t || !isConstant(half, 0.5))
            continue;
          if (std::optional<StringRef> approx = phiOf(phi, x)) {
            rewriter.replaceOpWithNewOp<graph::GeluOp>(root, x, *approx);
            return success();
          }
        }
    }
    return failure();
  }
};

/// x * sigmoid(x) -> silu(x).
struct FuseSilu : OpRewritePattern<graph::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::MulOp root,
                                PatternRewriter &rewriter) const override {
    for (auto [x, s] : orders(root)) {
      auto sigmoid = intermediate<graph::SigmoidOp>(s, root.getType());
      if (sigmoid && sigmoid.getInput() == x) {
        rewriter.replaceOpWithNewOp<graph::SiluOp>(root, x);
        return success();
      }
    }
    return failure();
  }
};

/// silu(a) * b -> swiglu(a, b), a and b of the result's type.
struct FuseSwiglu : OpRewritePattern<graph::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::MulOp root,
                                PatternRewriter &rewriter) const override {
    for (auto [s, up] : orders(root)) {
      auto silu = intermediate<graph::SiluOp>(s, root.getType());
      if (silu && up.getType() == root.getType()) {
        rewriter.replaceOpWithNewOp<graph::SwigluOp>(root, silu.getInput(), up);
        return success();
      }
    }
    return failure();
  }
};

/// `v` = clip(x + 3, 0, 6) with no other use.
bool isRelu6Shift(Value v, Value x) {
  Type t = x.getType();
  auto clip = intermediate<graph::ClipOp>(v, t);
  if (!clip || !clip.getMinAttr() || !clip.getMaxAttr() ||
      clip.getMinAttr().getValueAsDouble() != 0.0 ||
      clip.getMaxAttr().getValueAsDouble() != 6.0)
    return false;
  auto add = intermediate<graph::AddOp>(clip.getInput(), t);
  return add && llvm::any_of(orders(add), [&](auto ab) {
           return ab.first == x && isConstant(ab.second, 3.0);
         });
}

/// `v` = clip(x + 3, 0, 6) / 6 (or * 1/6), or hard_sigmoid(x) with alpha
/// 1/6 and beta 1/2, with no other use.
bool isHardSigmoid(Value v, Value x) {
  Type t = x.getType();
  if (auto hs = intermediate<graph::HardSigmoidOp>(v, t))
    return hs.getInput() == x &&
           std::abs(hs.getAlpha().convertToDouble() - 1.0 / 6) < 1e-6 &&
           hs.getBeta().convertToDouble() == 0.5;
  if (auto div = intermediate<graph::DivOp>(v, t))
    return isConstant(div.getRhs(), 6.0) && isRelu6Shift(div.getLhs(), x);
  if (auto mul = intermediate<graph::MulOp>(v, t))
    return llvm::any_of(orders(mul), [&](auto ab) {
      return isConstant(ab.second, 1.0 / 6) && isRelu6Shift(ab.first, x);
    });
  return false;
}

/// x * clip(x + 3, 0, 6) / 6 -> hard_swish(x), rooted at the last op: the
/// sixth (Div or Mul) of the product, or the product of x and the sixth.
struct FuseHardSwish : RewritePattern {
  FuseHardSwish(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    if (!isa<graph::MulOp, graph::DivOp>(root) ||
        !isa<FloatType>(
            cast<ShapedType>(root->getResult(0).getType()).getElementType()))
      return failure();
    Type t = root->getResult(0).getType();
    auto replace = [&](Value x) {
      rewriter.replaceOpWithNewOp<graph::HardSwishOp>(root, x);
      return success();
    };
    // (x * r) / 6 or (x * r) * 1/6, r = clip(x + 3, 0, 6).
    auto product = [&](Value v) -> Value {
      auto mul = intermediate<graph::MulOp>(v, t);
      if (!mul)
        return {};
      for (auto [x, r] : orders(mul))
        if (x.getType() == t && isRelu6Shift(r, x))
          return x;
      return {};
    };
    if (auto div = dyn_cast<graph::DivOp>(root)) {
      if (Value x = product(div.getLhs()); x && isConstant(div.getRhs(), 6.0))
        return replace(x);
      return failure();
    }
    for (auto [a, b] : orders(root)) {
      if (Value x = product(a); x && isConstant(b, 1.0 / 6))
        return replace(x);
      if (a.getType() == t && isHardSigmoid(b, a))
        return replace(a);
    }
    return failure();
  }
};

struct GraphFuseActivationsPass
    : shardc::impl::GraphFuseActivationsBase<GraphFuseActivationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseGelu, FuseSilu, FuseSwiglu, FuseHardSwish>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
