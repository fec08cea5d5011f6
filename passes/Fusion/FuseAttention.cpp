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

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <cstring>
#include <limits>
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
/// Constant masks larger than this are not evaluated.
constexpr int64_t kMaxEval = 1 << 22;

double toDouble(APFloat a) {
  bool lost;
  a.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return a.convertToDouble();
}

RankedTensorType tensorType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

bool readElements(ElementsAttr attr, std::vector<double> &out);

/// The value of a floating-point constant whose elements are all equal (a
/// splat, or an initializer blob such as a scalar), of any shape.
std::optional<double> splatFloat(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c || !isa<FloatType>(c.getValue().getElementType()))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
    if (dense.isSplat())
      return toDouble(dense.getSplatValue<APFloat>());
  std::vector<double> values;
  if (c.getValue().getNumElements() > (1 << 16) ||
      !readElements(c.getValue(), values) || values.empty())
    return std::nullopt;
  for (double x : values)
    if (!(x == values[0]) && !(std::isnan(x) && std::isnan(values[0])))
      return std::nullopt;
  return values[0];
}

//===----------------------------------------------------------------------===//
// Host evaluation of constant masks
//===----------------------------------------------------------------------===//

struct Host {
  SmallVector<int64_t> shape;
  std::vector<double> data;
};

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool readElements(ElementsAttr attr, std::vector<double> &out) {
  Type elem = attr.getElementType();
  int64_t n = numElements(attr.getShapedType().getShape());
  out.clear();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (elem.isInteger(1)) {
      for (bool b : dense.getValues<bool>())
        out.push_back(b);
    } else if (isa<FloatType>(elem)) {
      for (APFloat f : dense.getValues<APFloat>())
        out.push_back(toDouble(f));
    } else if (auto it = dyn_cast<IntegerType>(elem)) {
      for (APInt i : dense.getValues<APInt>())
        out.push_back(it.isUnsigned() ? (double)i.getZExtValue()
                                      : (double)i.getSExtValue());
    } else {
      return false;
    }
    return (int64_t)out.size() == n;
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!res)
    return false;
  AsmResourceBlob *blob = res.getRawHandle().getBlob();
  if (!blob)
    return false;
  ArrayRef<char> raw = blob->getData();
  int64_t bits = elem.isInteger(1) ? 8 : elem.getIntOrFloatBitWidth();
  int64_t bytes = bits / 8;
  if (bits % 8 || (int64_t)raw.size() != n * bytes)
    return false;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t word = 0;
    std::memcpy(&word, raw.data() + i * bytes, bytes); // little endian
    if (auto ft = dyn_cast<FloatType>(elem)) {
      out.push_back(
          toDouble(APFloat(ft.getFloatSemantics(), APInt(bits, word))));
    } else if (auto it = dyn_cast<IntegerType>(elem)) {
      APInt v(bits, word);
      out.push_back(it.isInteger(1)     ? (double)(word != 0)
                    : it.isUnsigned()   ? (double)v.getZExtValue()
                                        : (double)v.getSExtValue());
    } else {
      return false;
    }
  }
  return true;
}

/// `h` broadcast (numpy rules) to `shape`.
std::optional<Host> broadcastTo(const Host &h, ArrayRef<int64_t> shape) {
  if (h.shape.size() > shape.size())
    return std::nullopt;
  size_t lead = shape.size() - h.shape.size();
  SmallVector<int64_t> strides(shape.size(), 0);
  int64_t s = 1;
  for (int64_t i = h.shape.size() - 1; i >= 0; --i) {
    int64_t d = h.shape[i], o = shape[lead + i];
    if (d != o && d != 1)
      return std::nullopt;
    strides[lead + i] = d == 1 ? 0 : s;
    s *= d;
  }
  Host out{SmallVector<int64_t>(shape), {}};
  int64_t n = numElements(shape);
  out.data.resize(n);
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      src += idx[d] * strides[d];
    out.data[i] = h.data[src];
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

/// Rounds `x` to element type `t` (a cast, or a result's type).
double roundTo(double x, Type t) {
  if (t.isInteger(1))
    return x != 0;
  if (isa<IntegerType>(t))
    return std::trunc(x);
  if (auto ft = dyn_cast<FloatType>(t)) {
    if (ft.isF64())
      return x;
    bool lost;
    APFloat a(x);
    a.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return toDouble(a);
  }
  return x;
}

std::optional<Host> evaluate(Value v, int depth = 0);

std::optional<Host> evalBroadcast(Value v, ArrayRef<int64_t> shape,
                                  int depth) {
  std::optional<Host> h = evaluate(v, depth + 1);
  if (!h)
    return std::nullopt;
  return broadcastTo(*h, shape);
}

/// The value of `v` when it is computed from constants only.
std::optional<Host> evaluate(Value v, int depth) {
  auto type = tensorType(v);
  if (depth > 24 || !type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxEval)
    return std::nullopt;
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  Type elem = type.getElementType();
  Host out{SmallVector<int64_t>(shape), {}};
  if (auto c = dyn_cast<graph::ConstantOp>(op)) {
    if (!readElements(c.getValue(), out.data))
      return std::nullopt;
    return out;
  }
  if (auto c = dyn_cast<graph::ConstantOfShapeOp>(op)) {
    Host one;
    if (!readElements(c.getValue(), one.data) || one.data.size() != 1)
      return std::nullopt;
    out.data.assign(type.getNumElements(), one.data[0]);
    return out;
  }
  if (isa<graph::ReshapeOp>(op)) {
    std::optional<Host> in = evaluate(op->getOperand(0), depth + 1);
    if (!in)
      return std::nullopt;
    in->shape.assign(shape.begin(), shape.end());
    return in;
  }
  if (isa<graph::ExpandOp>(op))
    return evalBroadcast(op->getOperand(0), shape, depth);
  if (auto t = dyn_cast<graph::TriluOp>(op)) {
    std::optional<Host> in = evaluate(t.getInput(), depth + 1);
    if (!in || shape.size() < 2)
      return std::nullopt;
    int64_t rows = shape[shape.size() - 2], cols = shape.back(), k = t.getK();
    for (int64_t i = 0; i < (int64_t)in->data.size(); ++i) {
      int64_t r = (i / cols) % rows, c = i % cols;
      bool keep = t.getUpper() ? c - r >= k : c - r <= k;
      if (!keep)
        in->data[i] = 0;
    }
    return in;
  }
  if (auto t = dyn_cast<graph::TransposeOp>(op)) {
    std::optional<Host> in = evaluate(t.getInput(), depth + 1);
    if (!in)
      return std::nullopt;
    ArrayRef<int64_t> perm = t.getPerm();
    SmallVector<int64_t> inStrides(in->shape.size(), 1);
    for (int64_t d = (int64_t)in->shape.size() - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * in->shape[d + 1];
    SmallVector<int64_t> idx(shape.size(), 0);
    out.data.resize(type.getNumElements());
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      int64_t src = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        src += idx[d] * inStrides[perm[d]];
      out.data[i] = in->data[src];
      for (int64_t d = shape.size() - 1; d >= 0; --d) {
        if (++idx[d] < shape[d])
          break;
        idx[d] = 0;
      }
    }
    return out;
  }
  if (auto s = dyn_cast<graph::SliceOp>(op)) {
    std::optional<Host> in = evaluate(s.getInput(), depth + 1);
    if (!in)
      return std::nullopt;
    SmallVector<int64_t> inStrides(in->shape.size(), 1);
    for (int64_t d = (int64_t)in->shape.size() - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * in->shape[d + 1];
    ArrayRef<int64_t> starts = s.getStarts(), steps = s.getSteps();
    SmallVector<int64_t> idx(shape.size(), 0);
    out.data.resize(type.getNumElements());
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      int64_t src = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        src += (starts[d] + idx[d] * steps[d]) * inStrides[d];
      out.data[i] = in->data[src];
      for (int64_t d = shape.size() - 1; d >= 0; --d) {
        if (++idx[d] < shape[d])
          break;
        idx[d] = 0;
      }
    }
    return out;
  }
  if (isa<graph::NotOp, graph::CastOp>(op)) {
    std::optional<Host> in = evaluate(op->getOperand(0), depth + 1);
    if (!in)
      return std::nullopt;
    bool isNot = isa<graph::NotOp>(op);
    for (double &x : in->data)
      x = isNot ? (double)(x == 0) : roundTo(x, elem);
    return in;
  }
  if (isa<graph::WhereOp>(op)) {
    std::optional<Host> c = evalBroadcast(op->getOperand(0), shape, depth),
                        x = evalBroadcast(op->getOperand(1), shape, depth),
                        y = evalBroadcast(op->getOperand(2), shape, depth);
    if (!c || !x || !y)
      return std::nullopt;
    for (size_t i = 0; i < c->data.size(); ++i)
      c->data[i] = c->data[i] != 0 ? x->data[i] : y->data[i];
    return c;
  }
  if (isa<graph::AddOp, graph::SubOp, graph::MulOp, graph::DivOp,
          graph::EqualOp, graph::LessOp, graph::GreaterOp, graph::AndOp,
          graph::OrOp>(op)) {
    if (isa<graph::DivOp>(op) && !isa<FloatType>(elem))
      return std::nullopt; // integer division: not worth the care
    std::optional<Host> a = evalBroadcast(op->getOperand(0), shape, depth),
                        b = evalBroadcast(op->getOperand(1), shape, depth);
    if (!a || !b)
      return std::nullopt;
    for (size_t i = 0; i < a->data.size(); ++i) {
      double x = a->data[i], y = b->data[i], r;
      if (isa<graph::AddOp>(op))
        r = x + y;
      else if (isa<graph::SubOp>(op))
        r = x - y;
      else if (isa<graph::MulOp>(op))
        r = x * y;
      else if (isa<graph::DivOp>(op))
        r = x / y;
      else if (isa<graph::EqualOp>(op))
        r = x == y;
      else if (isa<graph::LessOp>(op))
        r = x < y;
      else if (isa<graph::GreaterOp>(op))
        r = x > y;
      else if (isa<graph::AndOp>(op))
        r = x != 0 && y != 0;
      else
        r = x != 0 || y != 0;
      a->data[i] = roundTo(r, elem);
    }
    return a;
  }
  return std::nullopt;
}

/// Calls `f(s, t, x)` for every element of a mask whose last two dims are
/// [S, T]; false when the shape is not that.
template <class F>
bool forEachScore(const Host &m, int64_t S, int64_t T, F f) {
  if (m.shape.size() < 2 || m.shape[m.shape.size() - 2] != S ||
      m.shape.back() != T)
    return false;
  for (size_t i = 0; i < m.data.size(); ++i)
    f((int64_t)(i / T) % S, (int64_t)i % T, m.data[i]);
  return true;
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
  struct Built {
    Value value;                    ///< an existing additive mask
    std::optional<Host> constant;   ///< a constant additive mask
    const MaskPart *where = nullptr; ///< a run-time Where mask
  };
  SmallVector<Built> parts;
  for (const MaskPart &part : m.masks) {
    std::optional<Host> h = evaluate(part.value);
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
    Host add{h->shape, std::vector<double>(h->data.size())};
    int64_t cols = h->shape.empty() ? 1 : h->shape.back();
    bool fullRow = false;
    for (size_t i = 0; i < h->data.size(); i += cols) {
      bool all = true;
      for (int64_t j = 0; j < cols; ++j) {
        bool mk = masked(h->data[i + j]);
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
    op->erase();
  }
  return true;
}

void GraphFuseAttentionPass::runOnOperation() {
  SmallVector<graph::SoftmaxOp> softmaxes;
  getOperation().walk([&](graph::SoftmaxOp op) { softmaxes.push_back(op); });
  // A fusion erases only its own chain and ops nothing else uses, never
  // another softmax (each has its own use), so the list stays valid.
  for (graph::SoftmaxOp op : softmaxes)
    fuse(op);
}

} // namespace
