//===- FuseMoe.cpp - the graph-fuse-moe pass ------------------------------===//
//
// Recognizes the dropless expert loop of Hugging Face's MoE blocks (Mixtral,
// Qwen2-MoE, OLMoE, and every block written the same way) as one
// graph.moe. PyTorch exports the loop as
//
//   mask = one_hot(ids, E).permute(2, 1, 0)            ids = topk(...).indices
//   for e in range(E):
//     k, t = where(mask[e])                            NonZero
//     y = down_e(silu(gate_e(x[t])) * up_e(x[t])) * weights[t, k]
//     out.index_add_(0, t, y)                          ScatterElements + Add
//
// and the importer (ImportRows.cpp) carries the routed rows padded: every
// (k, t) is a row and the mask says which exist. So each expert arrives as
//
//   S_e = reduce_sum(where(M_e, Y_e * W, 0), axis 0)   [K, T, H] -> [T, H]
//   M_e[k, t, 0] = cast<i1>(gather(transpose(OH, [2, 1, 0]), e, axis 0))[k, t]
//   OH = where(equal(reshape(ids', [T, K, 1]), iota[1, 1, E]), 1, 0)
//   ids' = ids | where(less(ids, c <= 0), _, ids)    (OneHot's negative wrap)
//   W[k, t, 0] = gather(reshape(weights, [T * K, 1]), C, axis 0),
//                C[k, t] = t * K + k                  (constant)
//   Y_e = matmul(swiglu(matmul(X, G_e), matmul(X, U_e)), D_e)
//                G_e, U_e: [H, F], D_e: [F, H] constants; each matmul may
//                be followed by the add of a constant bias (nn.Linear
//                experts, exported as Gemm: the importer's matmul + add)
//   X = x through reshapes and gathers that copy (indices 0..n-1 over the
//       whole axis)
//
// and the block's output is an Add tree of the S_e (plus zero constants,
// index_add's initial zeros, and other tensors such as Qwen2-MoE's shared
// expert, which are added to the graph.moe's result). When the tree holds
// exactly one S_e for every expert e in [0, E) of one top-k over E, with one x,
// ids and weights, the tree becomes
//
//   graph.moe reshape(x, [T, H]), weights, ids, gate_up, down
//
// with gate_up = [G_e | U_e] stacked to [E, H, 2F] and down = D_e stacked to
// [E, F, H]; with biases, `biases` gate_up_bias [E, 2F] and down_bias [E,
// H] stacked the same way (zeros where a projection has none). That equals the sum because a top-k over E yields ids in
// [0, E), so each (t, k) lands in exactly one expert's mask.
//
// Left alone (test/Passes/Fusion/fuse-moe.mlir): an expert missing or
// repeated, ids not from a top-k over E, a routing table other than
// t * K + k, a mask built from another expert's column, an intermediate
// used elsewhere, another activation, non-constant expert weights.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/Passes.h"
#include "passes/Fusion/PatternUtils.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SmallSet.h"

#include <cstring>

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSEMOE
#include "passes/Fusion/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// Index tables (routing positions, iotas) are read up to this size.
constexpr int64_t kTableLimit = int64_t(1) << 24;

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}
Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}
int64_t numel(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}
bool hasShape(Value v, ArrayRef<int64_t> shape) { return shapeOf(v) == shape; }

std::optional<graph::HostTensor> constantOf(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return std::nullopt;
  return graph::readElements(c.getValue(), kTableLimit);
}

/// The value of an integer constant whose elements are all equal.
std::optional<int64_t> splatInt(Value v) {
  std::optional<graph::HostTensor> t = constantOf(v);
  if (!t || t->isFloat() || t->ints.empty() ||
      llvm::any_of(t->ints, [&](int64_t x) { return x != t->ints[0]; }))
    return std::nullopt;
  return t->ints[0];
}

bool isZeroFloat(Value v) {
  std::optional<APFloat> f = patterns::splatFloat(v);
  return f && f->isZero();
}

/// An integer constant holding 0, 1, ..., n - 1 in order.
bool isIota(Value v, int64_t n) {
  std::optional<graph::HostTensor> t = constantOf(v);
  if (!t || t->isFloat() || t->numel() != n)
    return false;
  for (int64_t i = 0; i < n; ++i)
    if (t->ints[i] != i)
      return false;
  return true;
}

/// `v` through ops that keep its elements in row-major order: reshapes,
/// and gathers whose indices enumerate the whole axis in order.
Value throughCopies(Value v) {
  while (true) {
    if (auto r = v.getDefiningOp<graph::ReshapeOp>()) {
      v = r.getInput();
      continue;
    }
    if (auto g = v.getDefiningOp<graph::GatherOp>()) {
      ArrayRef<int64_t> data = shapeOf(g.getData());
      int64_t axis = g.getAxis();
      if (axis < 0)
        axis += data.size();
      if (axis < 0 || axis >= (int64_t)data.size() ||
          !isIota(g.getIndices(), data[axis]))
        return v;
      v = g.getData();
      continue;
    }
    return v;
  }
}

/// `op`'s single result, when it has exactly one use.
template <typename OpTy> OpTy onlyUse(Value v) {
  auto op = v.getDefiningOp<OpTy>();
  return op && v.hasOneUse() ? op : OpTy();
}

/// One expert's term S_e of the sum.
struct Term {
  int64_t expert = -1;
  Value ids;     ///< top-k indices [T, K]
  Value weights; ///< routing weights [T, K]
  Value tokens;  ///< x, any shape of T * H elements in row-major order
  graph::ConstantOp gate, up, down;
  /// nn.Linear's biases (null: none): [F], [F], [H], or with leading 1s.
  graph::ConstantOp gateBias, upBias, downBias;
};

/// The ids and expert e of a mask with M[k, t, 0] = (ids[t, k] == e).
struct MaskOf {
  Value ids;
  int64_t expert;
};

/// ids' = ids, or OneHot's wrap of negative indices where(ids < c, ids + n,
/// ids) with c <= 0, which is ids for a top-k's (non-negative) indices.
Value peelNegativeWrap(Value v) {
  auto where = v.getDefiningOp<graph::WhereOp>();
  if (!where)
    return v;
  Value ids = where.getY();
  auto less = where.getCondition().getDefiningOp<graph::LessOp>();
  std::optional<int64_t> c = less ? splatInt(less.getRhs()) : std::nullopt;
  if (!less || less.getLhs() != ids || !c || *c > 0)
    return v;
  return ids;
}

std::optional<MaskOf> matchMask(Value m, int64_t k, int64_t t) {
  if (!hasShape(m, {k, t, 1}))
    return std::nullopt;
  auto reshape = onlyUse<graph::ReshapeOp>(m);
  if (!reshape || !hasShape(reshape.getInput(), {k, t}))
    return std::nullopt;
  auto cast = onlyUse<graph::CastOp>(reshape.getInput());
  if (!cast || !elemOf(cast.getOutput()).isInteger(1))
    return std::nullopt;
  auto gather = onlyUse<graph::GatherOp>(cast.getInput());
  if (!gather || gather.getAxis() != 0 || !shapeOf(gather.getIndices()).empty())
    return std::nullopt;
  std::optional<int64_t> e = splatInt(gather.getIndices());
  auto transpose = gather.getData().getDefiningOp<graph::TransposeOp>();
  if (!e || !transpose || transpose.getPerm() != ArrayRef<int64_t>{2, 1, 0})
    return std::nullopt;
  // OH [T, K, E] = where(equal(ids', iota), one, zero): as a boolean,
  // the equality itself.
  auto oneHot = transpose.getInput().getDefiningOp<graph::WhereOp>();
  if (!oneHot || shapeOf(oneHot.getOutput()).size() != 3)
    return std::nullopt;
  int64_t n = shapeOf(oneHot.getOutput())[2];
  std::optional<int64_t> one = splatInt(oneHot.getX());
  std::optional<int64_t> zero = splatInt(oneHot.getY());
  auto eq = oneHot.getCondition().getDefiningOp<graph::EqualOp>();
  if (!one || *one == 0 || !zero || *zero != 0 || !eq ||
      !hasShape(oneHot.getOutput(), {t, k, n}))
    return std::nullopt;
  int64_t expert = *e < 0 ? *e + n : *e;
  if (expert < 0 || expert >= n)
    return std::nullopt;
  for (auto [lhs, rhs] : {std::pair(eq.getLhs(), eq.getRhs()),
                          std::pair(eq.getRhs(), eq.getLhs())}) {
    if (!isIota(rhs, n) || !hasShape(rhs, {1, 1, n}))
      continue;
    auto r = lhs.getDefiningOp<graph::ReshapeOp>();
    if (!r || !hasShape(lhs, {t, k, 1}))
      continue;
    Value ids = peelNegativeWrap(r.getInput());
    auto topk = ids.getDefiningOp<graph::TopKOp>();
    if (!topk || topk.getIndices() != ids || !hasShape(ids, {t, k}) ||
        !hasShape(topk.getInput(), {t, n}) ||
        (topk.getAxis() != 1 && static_cast<int64_t>(topk.getAxis()) != -1))
      continue;
    return MaskOf{ids, expert};
  }
  return std::nullopt;
}

/// The routing weights [T, K] of W[k, t, 0] = weights[t, k].
Value matchRouteWeights(Value w, int64_t k, int64_t t) {
  auto gather = w.getDefiningOp<graph::GatherOp>();
  if (!gather || !hasShape(w, {k, t, 1}) || gather.getAxis() != 0)
    return {};
  auto flat = gather.getData().getDefiningOp<graph::ReshapeOp>();
  if (!flat || !hasShape(flat.getOutput(), {t * k, 1}) ||
      !hasShape(flat.getInput(), {t, k}))
    return {};
  std::optional<graph::HostTensor> c = constantOf(gather.getIndices());
  if (!c || c->isFloat() || c->dims != SmallVector<int64_t>{k, t})
    return {};
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < t; ++j)
      if (c->ints[i * t + j] != j * k + i)
        return {};
  return flat.getInput();
}

/// A constant [rows, cols] matrix of `elem` on the right of `mm`.
graph::ConstantOp matrixOperand(graph::MatMulOp mm, int64_t rows, int64_t cols,
                                Type elem) {
  auto c = mm.getRhs().getDefiningOp<graph::ConstantOp>();
  if (!c || !hasShape(c.getOutput(), {rows, cols}) ||
      elemOf(c.getOutput()) != elem)
    return {};
  return c;
}

/// `v` = add(p, c) with c a constant bias of `n` elements of `elem` along
/// the last dim (shape [n] or [1, .., 1, n]): p, with `bias` set to c.
/// Otherwise `v` itself.
Value peelBias(Value v, int64_t n, Type elem, graph::ConstantOp &bias) {
  auto add = onlyUse<graph::AddOp>(v);
  if (!add)
    return v;
  for (auto [p, c] : {std::pair(add.getLhs(), add.getRhs()),
                      std::pair(add.getRhs(), add.getLhs())}) {
    auto k = c.getDefiningOp<graph::ConstantOp>();
    ArrayRef<int64_t> cs = k ? shapeOf(c) : ArrayRef<int64_t>();
    if (!k || cs.empty() || cs.back() != n || numel(c) != n ||
        elemOf(c) != elem || p.getType() != v.getType())
      continue;
    bias = k;
    return p;
  }
  return v;
}

/// Y_e = down(swiglu(gate(X), up(X))) of shape [1, T, H] or [T, H], each
/// projection with or without a bias (nn.Linear's).
bool matchExpert(Value y, int64_t t, int64_t h, Term &term) {
  ArrayRef<int64_t> s = shapeOf(y);
  if (s != ArrayRef<int64_t>{1, t, h} && s != ArrayRef<int64_t>{t, h})
    return false;
  Type elem = elemOf(y);
  auto down = onlyUse<graph::MatMulOp>(peelBias(y, h, elem, term.downBias));
  auto swiglu =
      down ? onlyUse<graph::SwigluOp>(down.getLhs()) : graph::SwigluOp();
  if (!swiglu)
    return false;
  int64_t ffn = shapeOf(swiglu.getOutput()).back();
  auto gate = onlyUse<graph::MatMulOp>(
      peelBias(swiglu.getGate(), ffn, elem, term.gateBias));
  auto up = onlyUse<graph::MatMulOp>(
      peelBias(swiglu.getUp(), ffn, elem, term.upBias));
  if (!gate || !up || gate.getLhs() != up.getLhs())
    return false;
  Value x = gate.getLhs();
  ArrayRef<int64_t> xs = shapeOf(x);
  if (xs.size() < 2 || xs.back() != h || numel(x) != t * h)
    return false;
  int64_t f = ffn;
  term.gate = matrixOperand(gate, h, f, elem);
  term.up = matrixOperand(up, h, f, elem);
  term.down = matrixOperand(down, f, h, elem);
  term.tokens = throughCopies(x);
  return term.gate && term.up && term.down && numel(term.tokens) == t * h &&
         elemOf(term.tokens) == elem;
}

/// S_e = reduce_sum(where(M_e, Y_e * W, 0), axis 0).
std::optional<Term> matchTerm(Value s) {
  auto sum = onlyUse<graph::ReduceSumOp>(s);
  if (!sum || sum.getKeepdims() || sum.getAxes() != ArrayRef<int64_t>{0} ||
      shapeOf(s).size() != 2)
    return std::nullopt;
  int64_t t = shapeOf(s)[0], h = shapeOf(s)[1];
  auto where = onlyUse<graph::WhereOp>(sum.getInput());
  if (!where || shapeOf(where.getOutput()).size() != 3 ||
      !isZeroFloat(where.getY()))
    return std::nullopt;
  int64_t k = shapeOf(where.getOutput())[0];
  std::optional<MaskOf> mask = matchMask(where.getCondition(), k, t);
  auto mul = onlyUse<graph::MulOp>(where.getX());
  if (!mask || !mul || !hasShape(mul.getOutput(), {k, t, h}))
    return std::nullopt;
  Term term;
  term.expert = mask->expert;
  term.ids = mask->ids;
  for (auto [y, w] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    term.weights = matchRouteWeights(w, k, t);
    if (term.weights && elemOf(term.weights) == elemOf(s) &&
        matchExpert(y, t, h, term))
      return term;
  }
  return std::nullopt;
}

/// The bytes of a constant's elements; empty for a splat or a missing blob.
ArrayRef<char> rawData(graph::ConstantOp c) {
  auto type = cast<RankedTensorType>(c.getType());
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  ArrayRef<char> raw = graph::rawElementData(c.getValue());
  if (bits % 8 || (int64_t)raw.size() != type.getNumElements() * bits / 8)
    return {};
  return raw;
}

/// [E, rows, sum of cols]: for each expert, its matrices side by side.
Value stackExperts(OpBuilder &b, Location loc,
                   MutableArrayRef<SmallVector<graph::ConstantOp>> parts,
                   StringRef key) {
  auto first = cast<RankedTensorType>(parts[0][0].getOutput().getType());
  int64_t rows = first.getDimSize(0);
  int64_t eb = first.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t cols = 0;
  for (graph::ConstantOp c : parts[0])
    cols += shapeOf(c.getOutput())[1];
  int64_t experts = parts.size();
  auto type =
      RankedTensorType::get({experts, rows, cols}, first.getElementType());
  // Experts whose weights are absent (shape-only planning) stack to a
  // shape-only constant.
  bool shapeOnly = llvm::any_of(parts, [](ArrayRef<graph::ConstantOp> mats) {
    return llvm::any_of(mats, [](graph::ConstantOp c) {
      return graph::isShapeOnly(c.getValue());
    });
  });
  if (shapeOnly)
    return b.create<graph::ConstantOp>(loc, graph::shapeOnlyElements(type, key));
  ElementsAttr stacked = graph::elementsFromBytes(
      type, key, [&](MutableArrayRef<char> data) {
        char *out = data.data();
        for (auto [e, mats] : llvm::enumerate(parts)) {
          int64_t col = 0;
          for (graph::ConstantOp c : mats) {
            ArrayRef<char> raw = rawData(c);
            int64_t n = shapeOf(c.getOutput())[1];
            if (raw.empty())
              return false;
            for (int64_t r = 0; r < rows; ++r)
              std::memcpy(out + ((e * rows + r) * cols + col) * eb,
                          raw.data() + r * n * eb, n * eb);
            col += n;
          }
        }
        return true;
      });
  if (!stacked)
    return {};
  return b.create<graph::ConstantOp>(loc, stacked);
}

/// [E, sum of widths]: for each expert, its biases side by side, zeros for
/// a missing one (a projection without a bias). Null when no expert has a
/// bias in any part.
Value stackBiases(OpBuilder &b, Location loc,
                  ArrayRef<SmallVector<graph::ConstantOp>> parts,
                  ArrayRef<int64_t> widths, Type elem, StringRef key) {
  bool any = llvm::any_of(parts, [](ArrayRef<graph::ConstantOp> biases) {
    return llvm::any_of(biases, [](graph::ConstantOp c) { return bool(c); });
  });
  if (!any)
    return {};
  int64_t experts = parts.size(), cols = 0;
  for (int64_t w : widths)
    cols += w;
  auto type = RankedTensorType::get({experts, cols}, elem);
  bool shapeOnly = llvm::any_of(parts, [](ArrayRef<graph::ConstantOp> bs) {
    return llvm::any_of(bs, [](graph::ConstantOp c) {
      return c && graph::isShapeOnly(c.getValue());
    });
  });
  if (shapeOnly)
    return b.create<graph::ConstantOp>(loc, graph::shapeOnlyElements(type, key));
  int64_t eb = elem.getIntOrFloatBitWidth() / 8;
  ElementsAttr stacked = graph::elementsFromBytes(
      type, key, [&](MutableArrayRef<char> data) {
        std::memset(data.data(), 0, data.size());
        for (auto [e, biases] : llvm::enumerate(parts)) {
          int64_t col = 0;
          for (auto [i, bias] : llvm::enumerate(biases)) {
            char *out = data.data() + (e * cols + col) * eb;
            col += widths[i];
            graph::ConstantOp c = bias;
            if (!c)
              continue;
            ArrayRef<char> raw = graph::rawElementData(c.getValue());
            if (static_cast<int64_t>(raw.size()) == eb) { // a splat
              for (int64_t j = 0; j < widths[i]; ++j)
                std::memcpy(out + j * eb, raw.data(), eb);
            } else if (static_cast<int64_t>(raw.size()) == widths[i] * eb) {
              std::memcpy(out, raw.data(), raw.size());
            } else {
              return false;
            }
          }
        }
        return true;
      });
  if (!stacked)
    return {};
  return b.create<graph::ConstantOp>(loc, stacked);
}

struct GraphFuseMoePass : shardc::impl::GraphFuseMoeBase<GraphFuseMoePass> {
  void runOnOperation() override;
  bool fuse(graph::AddOp root);
};

bool GraphFuseMoePass::fuse(graph::AddOp root) {
  Type type = root.getOutput().getType();
  // The leaves of the Add tree under `root` (inner Adds have one use).
  SmallVector<Value> leaves, stack{root.getOutput()};
  while (!stack.empty()) {
    Value v = stack.pop_back_val();
    auto add = v.getDefiningOp<graph::AddOp>();
    if (add && (add == root || v.hasOneUse())) {
      if (add.getLhs().getType() != type || add.getRhs().getType() != type)
        return false;
      stack.push_back(add.getRhs());
      stack.push_back(add.getLhs());
      continue;
    }
    leaves.push_back(v);
  }
  // Other leaves (Qwen2-MoE's gated shared expert) are added to the result.
  SmallVector<Term> terms;
  SmallVector<Value> others;
  for (Value leaf : leaves) {
    if (isZeroFloat(leaf))
      continue;
    if (std::optional<Term> term = matchTerm(leaf))
      terms.push_back(*term);
    else
      others.push_back(leaf);
  }
  if (terms.empty())
    return false;
  Term first = terms.front();
  int64_t numExperts =
      shapeOf(first.ids.getDefiningOp<graph::TopKOp>().getInput())[1];
  if ((int64_t)terms.size() != numExperts)
    return false;
  SmallVector<SmallVector<graph::ConstantOp>> gateUp(numExperts),
      down(numExperts), gateUpBias(numExperts), downBias(numExperts);
  llvm::SmallSet<int64_t, 16> seen;
  for (Term &term : terms) {
    if (term.ids != first.ids || term.weights != first.weights ||
        term.tokens != first.tokens ||
        term.gate.getOutput().getType() != first.gate.getOutput().getType() ||
        !seen.insert(term.expert).second)
      return false;
    gateUp[term.expert] = {term.gate, term.up};
    down[term.expert] = {term.down};
    gateUpBias[term.expert] = {term.gateBias, term.upBias};
    downBias[term.expert] = {term.downBias};
  }
  OpBuilder b(root);
  Location loc = root.getLoc();
  Value gu = stackExperts(b, loc, gateUp, "moe.gate_up");
  Value dn = gu ? stackExperts(b, loc, down, "moe.down") : Value();
  if (!gu || !dn) {
    if (gu)
      gu.getDefiningOp()->erase();
    return false;
  }
  // nn.Linear experts' biases: both stacked (zeros where a projection has
  // none) when any expert has one.
  Type elem = elemOf(root.getOutput());
  int64_t f = shapeOf(first.gate.getOutput())[1];
  int64_t h = shapeOf(first.down.getOutput())[1];
  bool biased = llvm::any_of(terms, [](const Term &t) {
    return t.gateBias || t.upBias || t.downBias;
  });
  Value gub, db;
  if (biased) {
    // One all-zero part still makes the pair: the op takes both or neither.
    gub = stackBiases(b, loc, gateUpBias, {f, f}, elem, "moe.gate_up_bias");
    if (!gub)
      gub = b.create<graph::ConstantOp>(
          loc, DenseElementsAttr::get(
                   RankedTensorType::get({numExperts, 2 * f}, elem),
                   b.getZeroAttr(elem)));
    db = stackBiases(b, loc, downBias, {h}, elem, "moe.down_bias");
    if (!db)
      db = b.create<graph::ConstantOp>(
          loc, DenseElementsAttr::get(
                   RankedTensorType::get({numExperts, h}, elem),
                   b.getZeroAttr(elem)));
  }
  ArrayRef<int64_t> out = shapeOf(root.getOutput());
  Value x = first.tokens;
  if (shapeOf(x) != out)
    x = b.create<graph::ReshapeOp>(loc, x, b.getDenseI64ArrayAttr(out));
  Value y = b.create<graph::MoeOp>(loc, x, first.weights, first.ids, gu, dn,
                                   gub, db);
  for (Value other : others)
    y = b.create<graph::AddOp>(loc, y, other);
  root.getOutput().replaceAllUsesWith(y);
  return true;
}

void GraphFuseMoePass::runOnOperation() {
  // Roots: Adds whose result is not the single use of another Add.
  SmallVector<graph::AddOp> roots;
  getOperation().walk([&](graph::AddOp add) {
    Value v = add.getOutput();
    if (v.hasOneUse() && isa<graph::AddOp>(*v.getUsers().begin()))
      return;
    roots.push_back(add);
  });
  bool changed = false;
  for (graph::AddOp root : roots)
    changed |= fuse(root);
  if (!changed)
    return;
  // The replaced trees and what only they used.
  IRRewriter rewriter(&getContext());
  (void)runRegionDCE(rewriter, getOperation()->getRegions());
}

} // namespace
