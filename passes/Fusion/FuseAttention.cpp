//===- FuseAttention.cpp - the graph-fuse-attention pass -------------------===//
//
// Recognizes scaled dot-product attention as exporters emit it and replaces
// it with one `graph.attention`:
//
//   MatMul(Softmax(mask(scale(MatMul(q, kT))), axis = last), v)
//
// - scale: Div by a constant scalar c (scale 1/c) or Mul by one (either
//   side), possibly several; or Mul / Div of q or of kT by constant scalars
//   before the product (q * c^-1/2 and k * c^-1/2); none is scale 1.
// - mask, after the scale (any sequence of):
//   * Add(scores, m) on either side: m joins the additive mask;
//   * Where(cond, fill, scores) or Where(cond, scores, fill) with fill -inf
//     or a constant <= -1e4 (PyTorch's masked_fill exports the first).
//   A constant mask (folded here through trilu, not, comparisons, logic,
//   where, cast, reshape, transpose, slice, expand and arithmetic, so
//   Trilu-of-ones and constant triangles both count) that is exactly causal
//   (masked iff t > s + T - S in every batch slice) sets `causal` and adds
//   no operand. Another constant boolean mask becomes a constant additive
//   mask (fill where masked, 0 elsewhere); a boolean mask computed at run
//   time becomes Where(cond, fill, 0) of q's type. Several masks add up.
// - kT: attention takes k as [..., T, D]. A Transpose(x, p) producing kT is
//   rewritten as k = Transpose(x, p with its last two entries swapped) (x
//   itself when that is the identity): GPT-2's transpose(k, 0,2,3,1)
//   becomes the same (0,2,1,3) as q's and v's, which the lowering reads
//   through strides. Any other kT gets a transpose of its last two dims.
//
// Not fused (look-alikes): a Softmax over another axis, a scale that is not
// a constant scalar (or a scale applied after a mask), a product or softmax
// whose result has other users, a Where whose fill is not -inf or <= -1e4,
// operands whose leading (batch, head) dims differ (broadcast k/v), and
// non-float types. Where-masks with a finite fill are added rather than
// selected, which differs only in a row masked entirely (all fill: uniform
// weights with Where); constant masks with such a row are therefore not
// fused, and causal is inferred from a finite fill only when S <= T (no
// query row is fully masked).
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/Passes.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSEATTENTION
#include "passes/Fusion/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// A fill at or below this counts as "masked" (finfo.min, -1e9, -1e4).
constexpr double kVeryNegative = -1e4;
/// Constant masks larger than this are not evaluated (an analysis bound:
/// nothing evaluated is kept, unlike a fold's result).
constexpr int64_t kMaxEval = 1 << 22;

RankedTensorType tensorType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// The value of a floating-point constant whose elements are all equal (a
/// splat, or an initializer blob such as a scalar), of any shape.
std::optional<double> splatFloat(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c || !isa<FloatType>(c.getValue().getElementType()))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
    if (dense.isSplat()) {
      APFloat f = dense.getSplatValue<APFloat>();
      bool lost;
      f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      return f.convertToDouble();
    }
  std::optional<graph::HostTensor> t =
      graph::readElements(c.getValue(), graph::kFoldCap);
  if (!t || t->floats.empty())
    return std::nullopt;
  for (double x : t->floats)
    if (!(x == t->floats[0]) && !(std::isnan(x) && std::isnan(t->floats[0])))
      return std::nullopt;
  return t->floats[0];
}

/// The value of a mask computed from constants only (through trilu, not,
/// comparisons, logic, where, cast, reshape, transpose, slice, expand and
/// arithmetic): the graph dialect's constant evaluator.
std::optional<graph::HostTensor> evaluateMask(Value v) {
  graph::EvalContext ctx;
  ctx.maxElements = kMaxEval;
  return graph::evaluateValue(v, ctx);
}

/// Calls `f(s, t, x)` for every element of a mask whose last two dims are
/// [S, T]; false when the shape is not that.
template <class F>
bool forEachScore(const graph::HostTensor &m, int64_t S, int64_t T, F f) {
  if (m.dims.size() < 2 || m.dims[m.dims.size() - 2] != S || m.dims.back() != T)
    return false;
  for (int64_t i = 0, n = m.numel(); i < n; ++i)
    f((int64_t)(i / T) % S, (int64_t)i % T, m.f(i));
  return true;
}

/// Whether `v`, a mask whose shape depends on dynamic dims, is causal for
/// every value of them: a chain of slices (steps of 1) of a constant
/// triangle (element [i, j] masked iff j > i, as `masked(x)` says) whose
/// last two dims are [S, T], taken at row offset T - S and column offset 0
/// (GPT-2's `bias[:, :, past : past + seq, : past + seq]`). The evaluator
/// sees only the bounds, where another window can look causal too.
template <class Masked>
bool symbolicCausal(Value v, const sym::Expr &S, const sym::Expr &T,
                    Masked masked) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t r = type.getRank();
  graph::SymShape shape = graph::dimsOf(type);
  if (r < 2 || shape.sym[r - 2] != S || shape.sym[r - 1] != T)
    return false;
  sym::Expr row = 0, col = 0;
  while (graph::isSymbolic(v.getType())) {
    auto slice = v.getDefiningOp<graph::SliceOp>();
    if (!slice ||
        llvm::any_of(slice.getSteps(), [](int64_t s) { return s != 1; }))
      return false;
    SmallVector<sym::Expr> starts =
        graph::symAttr(slice->getAttrDictionary(), "starts", slice.getStarts());
    int64_t rank = starts.size();
    row = row + starts[rank - 2];
    col = col + starts[rank - 1];
    v = slice.getInput();
  }
  if (row != T - S || col != sym::Expr(0))
    return false;
  std::optional<graph::HostTensor> base = evaluateMask(v);
  if (!base || base->dims.size() < 2)
    return false;
  int64_t R = base->dims[base->dims.size() - 2], C = base->dims.back();
  bool exact = true;
  forEachScore(*base, R, C, [&](int64_t s, int64_t t, double x) {
    exact &= masked(x) == (t > s);
  });
  return exact;
}

/// Whether a value over dynamic dims is computed from a slice with a
/// dynamic start (the past length of a KV cache). Without one, every
/// symbolic slice the importer makes starts at a constant, so a mask is a
/// top-left window of its value at the bounds, and evaluating it there
/// decides causality for every value of the dims.
bool hasDynamicStart(Value v) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!graph::isSymbolic(x.getType()) || !seen.insert(x).second)
      continue;
    Operation *def = x.getDefiningOp();
    if (!def)
      continue;
    if (auto m = def->getAttrOfType<DictionaryAttr>(graph::kSymAttr);
        m && isa<graph::SliceOp>(def) && m.get("starts"))
      return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// One mask step of the chain.
struct MaskPart {
  bool isWhere = false;
  Value value;                 ///< the additive tensor, or the condition
  bool maskedWhenTrue = true;  ///< Where: which condition value masks
  double fill = 0;             ///< Where: the fill
};

struct Match {
  graph::MatMulOp pv, qk;
  Value q, kT, v;
  double scale = 1;
  SmallVector<MaskPart> masks;
  SmallVector<Operation *> chain; ///< ops replaced (for erasure)
};

bool isScalarSplat(Value c, std::optional<double> &value) {
  value = splatFloat(c);
  return value.has_value();
}

/// A scale step `x op c` (c a splat constant, the result x's type): the
/// other operand and the factor the scale picks up.
std::optional<std::pair<Value, double>> scaleStep(Operation *op) {
  if (!op || op->getNumResults() != 1)
    return std::nullopt;
  Type rt = op->getResult(0).getType();
  std::optional<double> c;
  if (isa<graph::DivOp>(op)) {
    Value x = op->getOperand(0);
    if (x.getType() == rt && isScalarSplat(op->getOperand(1), c) && *c != 0 &&
        std::isfinite(*c))
      return std::make_pair(x, 1.0 / *c);
    return std::nullopt;
  }
  if (isa<graph::MulOp>(op)) {
    for (int i = 0; i < 2; ++i) {
      Value x = op->getOperand(i);
      if (x.getType() == rt && isScalarSplat(op->getOperand(1 - i), c) &&
          std::isfinite(*c))
        return std::make_pair(x, *c);
    }
  }
  return std::nullopt;
}

/// Follows the chain from the softmax input `x` back to MatMul(q, kT).
/// `sawScale`: a scale has been seen, so no mask may come before it.
bool matchChain(Value x, Match &m, bool sawScale) {
  if (!x.hasOneUse())
    return false;
  Operation *op = x.getDefiningOp();
  if (!op)
    return false;
  if (auto mm = dyn_cast<graph::MatMulOp>(op)) {
    m.qk = mm;
    m.chain.push_back(op);
    return true;
  }
  if (auto step = scaleStep(op)) {
    m.scale *= step->second;
    m.chain.push_back(op);
    return matchChain(step->first, m, true);
  }
  if (sawScale)
    return false;
  Type rt = x.getType();
  if (isa<graph::AddOp>(op)) {
    // Either side may be the scores; try both.
    for (int i = 0; i < 2; ++i) {
      Value s = op->getOperand(i), mask = op->getOperand(1 - i);
      if (s.getType() != rt)
        continue;
      Match tryM = m;
      tryM.masks.push_back({false, mask, true, 0});
      tryM.chain.push_back(op);
      if (matchChain(s, tryM, false)) {
        m = std::move(tryM);
        return true;
      }
    }
    return false;
  }
  if (auto w = dyn_cast<graph::WhereOp>(op)) {
    for (int i = 0; i < 2; ++i) {
      Value fill = op->getOperand(1 + i), s = op->getOperand(2 - i);
      std::optional<double> f = splatFloat(fill);
      if (s.getType() != rt || !f || !(*f <= kVeryNegative))
        continue;
      Match tryM = m;
      // Where(c, fill, s) masks where c is true; Where(c, s, fill) where
      // it is false.
      tryM.masks.push_back({true, w.getCondition(), i == 0, *f});
      tryM.chain.push_back(op);
      if (matchChain(s, tryM, false)) {
        m = std::move(tryM);
        return true;
      }
    }
    return false;
  }
  return false;
}

/// Peels constant scalar Mul / Div steps off an operand of the product.
Value peelScale(Value v, double &scale, SmallVectorImpl<Operation *> &ops) {
  while (auto step = scaleStep(v.getDefiningOp())) {
    ops.push_back(v.getDefiningOp());
    scale *= step->second;
    v = step->first;
  }
  return v;
}

struct GraphFuseAttentionPass
    : shardc::impl::GraphFuseAttentionBase<GraphFuseAttentionPass> {
  void runOnOperation() override;
  bool fuse(graph::SoftmaxOp softmax);

  /// Constant masks evaluated so far: a decoder's layers share one (CSE
  /// merged their copies), and a long context's has millions of elements
  /// (GPT-3's 2048 x 2048: evaluated for each of 96 layers, 22 s). An op's
  /// entries go when the op is erased.
  std::map<const void *, std::optional<graph::HostTensor>> masks;
  const std::optional<graph::HostTensor> &mask(Value v) {
    auto it = masks.find(v.getAsOpaquePointer());
    if (it == masks.end())
      it = masks.emplace(v.getAsOpaquePointer(), evaluateMask(v)).first;
    return it->second;
  }
};

bool GraphFuseAttentionPass::fuse(graph::SoftmaxOp softmax) {
  auto st = tensorType(softmax.getOutput());
  if (!st || !isa<FloatType>(st.getElementType()) || st.getRank() < 2 ||
      (int64_t)softmax.getAxis() != st.getRank() - 1 || !softmax->hasOneUse())
    return false;
  auto pv = dyn_cast<graph::MatMulOp>(*softmax->getUsers().begin());
  if (!pv || pv.getLhs() != softmax.getOutput())
    return false;
  Match m;
  m.pv = pv;
  m.chain = {pv, softmax};
  if (!matchChain(softmax.getInput(), m, false))
    return false;
  SmallVector<Operation *> extra; // pre-product scales, kT's transpose
  m.q = peelScale(m.qk.getLhs(), m.scale, extra);
  m.kT = peelScale(m.qk.getRhs(), m.scale, extra);
  m.v = pv.getRhs();
  if (!std::isfinite(m.scale))
    return false;

  // Shapes: q [..., S, D], kT [..., D, T], v [..., T, E], equal leading dims.
  auto qt = tensorType(m.q), kt = tensorType(m.kT), vt = tensorType(m.v);
  if (!qt || !kt || !vt || !qt.hasStaticShape() || !kt.hasStaticShape() ||
      !vt.hasStaticShape())
    return false;
  int64_t r = qt.getRank();
  if (r < 2 || kt.getRank() != r || vt.getRank() != r ||
      qt.getElementType() != st.getElementType() ||
      kt.getElementType() != st.getElementType() ||
      vt.getElementType() != st.getElementType())
    return false;
  if (qt.getShape().drop_back(2) != kt.getShape().drop_back(2) ||
      qt.getShape().drop_back(2) != vt.getShape().drop_back(2))
    return false;
  int64_t S = qt.getDimSize(r - 2), T = kt.getDimSize(r - 1);
  if (kt.getDimSize(r - 2) != qt.getDimSize(r - 1) ||
      vt.getDimSize(r - 2) != T)
    return false;
  Type elem = qt.getElementType();

  // Masks: constant ones are evaluated (causal, or a constant additive
  // mask); run-time ones are built below.
  bool causal = false;
  struct Additive {
    SmallVector<int64_t> shape;
    std::vector<double> data;
  };
  struct Built {
    Value value;                      ///< an existing additive mask
    std::optional<Additive> constant; ///< a constant additive mask
    const MaskPart *where = nullptr;  ///< a run-time Where mask
  };
  SmallVector<Built> parts;
  graph::SymShape qs = graph::dimsOf(qt), ks = graph::dimsOf(kt);
  static const std::optional<graph::HostTensor> none;
  for (const MaskPart &part : m.masks) {
    // A mask over dynamic dims is causal when proved so for every value
    // of them, else computed at run time (its evaluation is at the bounds).
    bool symbolic = hasDynamicStart(part.value);
    if (symbolic &&
        symbolicCausal(part.value, qs.sym[r - 2], ks.sym[r - 1],
                       [&](double x) {
                         return part.isWhere ? (x != 0) == part.maskedWhenTrue
                                             : x <= kVeryNegative;
                       }) &&
        (!part.isWhere || !std::isfinite(part.fill) ||
         qs.bound[r - 2] <= ks.bound[r - 1])) {
      causal = true;
      continue;
    }
    const std::optional<graph::HostTensor> &h =
        symbolic ? none : mask(part.value);
    if (!part.isWhere) {
      if (h) {
        bool exact = true, finite = false;
        bool shaped = forEachScore(*h, S, T, [&](int64_t s, int64_t t,
                                                 double x) {
          if (t > s + T - S) {
            exact &= x <= kVeryNegative;
            finite |= std::isfinite(x);
          } else {
            exact &= x == 0;
          }
        });
        if (shaped && exact && (!finite || S <= T)) {
          causal = true;
          continue;
        }
      }
      parts.push_back({part.value, std::nullopt, nullptr});
      continue;
    }
    if (!h) {
      parts.push_back({Value(), std::nullopt, &part});
      continue;
    }
    auto masked = [&](double c) { return (c != 0) == part.maskedWhenTrue; };
    bool exact = true;
    bool shaped = forEachScore(*h, S, T, [&](int64_t s, int64_t t, double c) {
      exact &= masked(c) == (t > s + T - S);
    });
    bool finite = std::isfinite(part.fill);
    if (shaped && exact && (!finite || S <= T)) {
      causal = true;
      continue;
    }
    // A constant additive mask; with a finite fill, no row may be masked
    // entirely (Where would give it uniform weights).
    int64_t n = h->numel();
    Additive add{h->dims, std::vector<double>(n)};
    int64_t cols = h->dims.empty() ? 1 : h->dims.back();
    bool fullRow = false;
    for (int64_t i = 0; i < n; i += cols) {
      bool all = true;
      for (int64_t j = 0; j < cols; ++j) {
        bool mk = masked(h->f(i + j));
        add.data[i + j] = mk ? part.fill : 0.0;
        all &= mk;
      }
      fullRow |= all;
    }
    // (A mask whose last dim is 1 masks whole rows wherever it masks.)
    if (finite && fullRow)
      return false;
    parts.push_back({Value(), std::move(add), nullptr});
  }

  // Build.
  OpBuilder b(pv);
  Location loc = pv.getLoc();
  auto floatAttr = [&](RankedTensorType t, ArrayRef<double> values) {
    const llvm::fltSemantics &sem = cast<FloatType>(elem).getFloatSemantics();
    SmallVector<APFloat> v;
    for (double x : values) {
      bool lost;
      APFloat a(x);
      a.convert(sem, APFloat::rmNearestTiesToEven, &lost);
      v.push_back(a);
    }
    return DenseElementsAttr::get(t, v);
  };
  auto scalar = [&](double x) {
    auto t = RankedTensorType::get({}, elem);
    return b.create<graph::ConstantOp>(loc, floatAttr(t, {x})).getOutput();
  };
  Value mask;
  for (Built &part : parts) {
    Value v = part.value;
    if (part.constant) {
      auto t = RankedTensorType::get(part.constant->shape, elem);
      v = b.create<graph::ConstantOp>(loc, floatAttr(t, part.constant->data))
              .getOutput();
    } else if (part.where) {
      Value fill = scalar(part.where->fill), zero = scalar(0);
      v = part.where->maskedWhenTrue
              ? b.create<graph::WhereOp>(loc, part.where->value, fill, zero)
                    .getOutput()
              : b.create<graph::WhereOp>(loc, part.where->value, zero, fill)
                    .getOutput();
    }
    mask = mask ? b.create<graph::AddOp>(loc, mask, v).getOutput() : v;
  }

  // k as [..., T, D]: fold kT's transpose, or transpose kT back.
  SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(swap[r - 2], swap[r - 1]);
  Value k;
  if (auto tr = m.kT.getDefiningOp<graph::TransposeOp>()) {
    SmallVector<int64_t> perm(tr.getPerm());
    std::swap(perm[r - 2], perm[r - 1]);
    bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, r));
    k = identity ? tr.getInput()
                 : b.create<graph::TransposeOp>(tr.getLoc(), tr.getInput(),
                                                perm)
                       .getOutput();
    extra.push_back(tr);
  } else {
    k = b.create<graph::TransposeOp>(loc, m.kT, swap).getOutput();
  }

  auto att = b.create<graph::AttentionOp>(loc, m.q, k, m.v, mask,
                                          b.getF32FloatAttr((float)m.scale),
                                          b.getBoolAttr(causal));
  if (att.getOutput().getType() != pv.getOutput().getType()) {
    att.erase(); // cannot happen for matching shapes; be safe
    return false;
  }
  pv.getOutput().replaceAllUsesWith(att.getOutput());
  // Erase the replaced chain, then whatever it alone kept alive.
  SetVector<Operation *> dead(m.chain.begin(), m.chain.end());
  dead.insert(extra.begin(), extra.end());
  for (const MaskPart &part : m.masks)
    if (Operation *def = part.value.getDefiningOp())
      dead.insert(def);
  SmallVector<Operation *> work(dead.begin(), dead.end());
  while (!work.empty()) {
    Operation *op = work.front();
    work.erase(work.begin());
    if (!op->use_empty() || !isa<graph::GraphDialect>(op->getDialect()))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (llvm::find(work, def) == work.end())
          work.push_back(def);
    for (Value r : op->getResults())
      masks.erase(r.getAsOpaquePointer());
    op->erase();
  }
  return true;
}

void GraphFuseAttentionPass::runOnOperation() {
  masks.clear();
  SmallVector<graph::SoftmaxOp> softmaxes;
  getOperation().walk([&](graph::SoftmaxOp op) { softmaxes.push_back(op); });
  // A fusion erases only its own chain and ops nothing else uses, never
  // another softmax (each has its own use), so the list stays valid.
  for (graph::SoftmaxOp op : softmaxes)
    fuse(op);
  masks.clear();
}

} // namespace
