//===- FuseEpilogues.cpp - the graph-fuse-epilogues pass -------------------===//
//
// Folds what follows a GEMM into one graph.linear, which oneDNN (post-ops)
// and cuBLASLt (epilogues, C with beta 1) run in the GEMM's store:
//
//   %p = graph.matmul %a, %b                     (a and b of rank >= 2)
//      | graph.gemm %a, %b[, %c]                 (alpha 1, no transposes;
//                                                 C absent, beta 0, or a
//                                                 row with beta 1: the bias)
//   %q = graph.add %p, %bias   (either order)    bias: a graph.constant row,
//                                                 dims 1 but the last (= N),
//                                                 rank <= the result's; the
//                                                 add's result is %p's type
//   %r = graph.relu %q | graph.gelu %q           gelu: "none" (erf, unless
//                                                 erf-gelu=false) or "tanh"
//   %s = graph.add %r, %res    (either order)    res: the result's type (no
//                                                 broadcast), only when there
//                                                 is no activation
//
// Every step is optional, but at least one must fold (a lone GEMM stays
// what it is). Each step folds only when the value it consumes has exactly
// one user: a bias add whose result is read elsewhere too keeps the GEMM's
// chain at the bias. Element types f32, f16 and bf16 (the GEMM libraries').
//
// Not folded (left as they are): a bias that is not a constant, or not a
// row ([M,1] columns, full [M,N] tensors, a row that broadcasts the product
// to a larger shape); activations other than relu and gelu; a "residual"
// that broadcasts (not the result's type); a residual after an activation
// (the libraries add C before their activation); Gemm with alpha != 1 or
// transposes (graph.linear has none; but a constant B of Gemm's trans_b,
// torch's nn.Linear on 2-D rows, is transposed at compile time, up to 2^24
// elements) or a C that is neither a row nor unused; MatMul with a 1-D
// operand. A residual add may follow a reshape of the product that keeps
// its last dim (torch's out-projection: [S*B, E] -> [S, B, E], then the
// residual): the GEMM's A is reshaped instead, so that the add folds.
//
// Convolutions (unless conv-epilogues=false), into one graph.fused_conv
// that oneDNN runs with post-ops (sum, then eltwise):
//
//   %p = graph.conv %x, %w[, %bias]
//   %q = graph.add %p, %res    (either order)    res: the result's type
//   %r = graph.relu %q | graph.hard_swish %q
//
// either step optional, at least one present, each folded only when the
// value it consumes has one user. The residual comes before the activation
// (a ResNet block); an activation followed by an add folds the activation
// only.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/Passes.h"
#include "passes/Fusion/PatternUtils.h"

#include "dialects/Graph/IR/ConstantEval.h"

#include <cstring>

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSEEPILOGUES
#include "passes/Fusion/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

bool gemmElementType(Type t) {
  Type e = cast<ShapedType>(t).getElementType();
  return e.isF32() || e.isF16() || e.isBF16();
}

/// The one user of `v`, or null when it has none or several (an op that
/// uses it twice counts twice).
Operation *soleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

/// Whether `v` is a row that a bias add broadcasts over the rows of
/// `out`: rank 1 to out's, dims 1 but the last, which is out's last.
bool isRow(Value v, RankedTensorType out) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType() != out.getElementType() || t.getRank() == 0 ||
      t.getRank() > out.getRank() || out.getRank() == 0 ||
      t.getShape().back() != out.getShape().back())
    return false;
  return llvm::all_of(t.getShape().drop_back(),
                      [](int64_t d) { return d == 1; });
}

bool isConstantRow(Value v, RankedTensorType out) {
  return v.getDefiningOp<graph::ConstantOp>() && isRow(v, out);
}


/// The transpose of a 2-D constant `b` (Gemm's trans_b) of at most 2^24
/// elements, computed at compile time; null otherwise.
Value transposedConstant(OpBuilder &builder, Value b) {
  auto c = b.getDefiningOp<graph::ConstantOp>();
  auto type = cast<RankedTensorType>(b.getType());
  if (!c || type.getRank() != 2 || type.getNumElements() > (int64_t(1) << 24) ||
      c->hasAttr(graph::kSourceAttr))
    return {};
  auto attr = dyn_cast<ElementsAttr>(c.getValue());
  if (!attr || graph::isShapeOnly(attr) ||
      type.getElementType().getIntOrFloatBitWidth() % 8 != 0)
    return {};
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  auto out = RankedTensorType::get({cols, rows}, type.getElementType());
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat())
    return builder.create<graph::ConstantOp>(c.getLoc(),
                                             dense.resizeSplat(out));
  ArrayRef<char> raw = graph::rawElementData(attr);
  size_t eb = type.getElementType().getIntOrFloatBitWidth() / 8;
  if (raw.size() != static_cast<size_t>(rows * cols) * eb)
    return {};
  std::string key = graph::derivedKey(attr, ".t", "transposed");
  ElementsAttr t = graph::elementsFromBytes(
      out, key, [&](MutableArrayRef<char> dst) {
        if (dst.size() != raw.size())
          return false;
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            std::memcpy(dst.data() + (j * rows + i) * eb,
                        raw.data() + (i * cols + j) * eb, eb);
        return true;
      });
  if (!t)
    return {};
  return builder.create<graph::ConstantOp>(c.getLoc(), t);
}

struct Chain {
  Value a, b, bias, residual;
  bool transposeB = false; ///< b is Gemm's constant trans_b operand
  graph::ReshapeOp reshape; ///< of the product, before the residual
  StringRef activation = "none";
  SmallVector<Operation *, 4> ops; // the GEMM and what folds, in order
  Operation *last() const { return ops.back(); }
};

struct GraphFuseEpiloguesPass
    : shardc::impl::GraphFuseEpiloguesBase<GraphFuseEpiloguesPass> {
  using Base::Base;

  /// The GEMM part of a chain: its operands and a bias it already has.
  /// False for GEMMs a graph.linear cannot express.
  static bool startChain(Operation *op, Chain &c) {
    if (auto mm = dyn_cast<graph::MatMulOp>(op)) {
      if (cast<ShapedType>(mm.getLhs().getType()).getRank() < 2 ||
          cast<ShapedType>(mm.getRhs().getType()).getRank() < 2)
        return false;
      c.a = mm.getLhs();
      c.b = mm.getRhs();
    } else {
      auto gemm = cast<graph::GemmOp>(op);
      if (!gemm.getAlpha().isExactlyValue(1.0) || gemm.getTransA() ||
          (gemm.getTransB() &&
           !gemm.getB().getDefiningOp<graph::ConstantOp>()))
        return false;
      c.transposeB = gemm.getTransB();
      c.a = gemm.getA();
      c.b = gemm.getB();
      Value cv = gemm.getC();
      if (cv && !gemm.getBeta().isZero()) {
        auto out = cast<RankedTensorType>(gemm.getOutput().getType());
        if (!gemm.getBeta().isExactlyValue(1.0) || !isRow(cv, out))
          return false;
        c.bias = cv;
      }
    }
    c.ops.push_back(op);
    return gemmElementType(op->getResult(0).getType());
  }

  /// conv -> [add residual] -> [relu | hard_swish] into a graph.fused_conv.
  static void fuseConv(graph::ConvOp conv) {
    Value cur = conv.getOutput();
    auto type = cast<RankedTensorType>(cur.getType());
    if (!gemmElementType(type))
      return;
    SmallVector<Operation *, 3> ops{conv};
    Value residual;
    if (auto add = dyn_cast_or_null<graph::AddOp>(soleUser(cur)))
      if (Value other = patterns::otherOperand(add, cur);
          other && other.getType() == type && add.getType() == type) {
        residual = other;
        cur = add.getOutput();
        ops.push_back(add);
      }
    StringRef activation = "none";
    Operation *act = soleUser(cur);
    if (isa_and_nonnull<graph::ReluOp>(act))
      activation = "relu";
    else if (isa_and_nonnull<graph::HardSwishOp>(act))
      activation = "hard_swish";
    if (activation != "none") {
      cur = act->getResult(0);
      ops.push_back(act);
    }
    if (ops.size() < 2)
      return;
    OpBuilder b(ops.back());
    auto fused = b.create<graph::FusedConvOp>(
        conv.getLoc(), type, conv.getInput(), conv.getWeight(),
        conv.getBias(), residual, conv.getStridesAttr(),
        conv.getDilationsAttr(), conv.getPadsAttr(), conv.getGroupAttr(),
        b.getStringAttr(activation));
    cur.replaceAllUsesWith(fused.getOutput());
    for (Operation *dead : llvm::reverse(ops))
      dead->erase();
  }

  void runOnOperation() override {
    if (convEpilogues) {
      SmallVector<graph::ConvOp> convs;
      getOperation().walk([&](graph::ConvOp op) { convs.push_back(op); });
      for (graph::ConvOp conv : convs)
        fuseConv(conv);
    }
    SmallVector<Operation *> gemms;
    getOperation().walk([&](Operation *op) {
      if (isa<graph::MatMulOp, graph::GemmOp>(op))
        gemms.push_back(op);
    });
    for (Operation *op : gemms) {
      Chain c;
      if (!startChain(op, c))
        continue;
      Value cur = op->getResult(0);
      auto type = cast<RankedTensorType>(cur.getType());

      // The bias add.
      if (!c.bias)
        if (auto add = dyn_cast_or_null<graph::AddOp>(soleUser(cur)))
          if (Value other = patterns::otherOperand(add, cur);
              other && add.getType() == type && isConstantRow(other, type)) {
            c.bias = other;
            cur = add.getOutput();
            c.ops.push_back(add);
          }

      // The activation.
      Operation *user = soleUser(cur);
      if (isa_and_nonnull<graph::ReluOp>(user)) {
        c.activation = "relu";
      } else if (auto gelu = dyn_cast_or_null<graph::GeluOp>(user)) {
        if (gelu.getApproximate() == "tanh")
          c.activation = "gelu_tanh";
        else if (gelu.getApproximate() == "none" && erfGelu)
          c.activation = "gelu";
      }
      if (c.activation != "none") {
        cur = user->getResult(0);
        c.ops.push_back(user);
      }

      // The residual add: only after no activation (the op's rule), maybe
      // after a reshape of the product that keeps its last dim.
      if (c.activation == "none") {
        auto reshape = dyn_cast_or_null<graph::ReshapeOp>(soleUser(cur));
        Value at = cur;
        auto atType = type;
        if (reshape && reshape.getType().getRank() >= 2 &&
            reshape.getType().getShape().back() == type.getShape().back()) {
          at = reshape.getOutput();
          atType = reshape.getType();
        }
        if (auto add = dyn_cast_or_null<graph::AddOp>(soleUser(at)))
          if (Value other = patterns::otherOperand(add, at);
              other && other.getType() == atType && add.getType() == atType) {
            c.residual = other;
            if (at != cur) {
              c.reshape = reshape;
              c.ops.push_back(reshape);
              type = atType;
            }
            cur = add.getOutput();
            c.ops.push_back(add);
          }
      }

      if (c.ops.size() < 2)
        continue;
      // Every operand dominates the last op of the chain (each was an
      // operand of a chain op, all of which come before or at it).
      // The GEMM's location: errors name its node.
      OpBuilder b(c.last());
      if (c.transposeB) {
        b.setInsertionPoint(op);
        c.b = transposedConstant(b, c.b);
        if (!c.b)
          continue;
        b.setInsertionPoint(c.last());
      }
      if (c.reshape) {
        // A's rows regrouped as the product's: [.., K] -> reshape's dims
        // with K last.
        // (Dynamic dims: the reshape's symbolic shape, K static.)
        auto aType = cast<RankedTensorType>(c.a.getType());
        graph::SymShape shape = graph::dimsOf(c.reshape.getType());
        shape.bound.back() = aType.getShape().back();
        shape.sym.back() = sym::Expr(aType.getShape().back());
        c.a = b.create<graph::ReshapeOp>(
            c.reshape.getLoc(),
            TypeRange{graph::tensorType(shape, aType.getElementType())},
            ValueRange{c.a}, graph::shapeAttrs(b.getContext(), "shape", shape));
      }
      auto linear = b.create<graph::LinearOp>(
          op->getLoc(), type, c.a, c.b, c.bias, c.residual,
          b.getStringAttr(c.activation));
      Value result = c.last()->getResult(0);
      result.replaceAllUsesWith(linear.getOutput());
      // Erase the chain from its end: no op's result has a user left.
      for (Operation *dead : llvm::reverse(c.ops))
        dead->erase();
    }
  }
};

} // namespace
