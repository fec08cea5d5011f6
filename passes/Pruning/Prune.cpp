//===- Prune.cpp - what the pruning passes share --------------------------===//

#include "passes/Pruning/Prune.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace shardc;
using namespace shardc::prune;

namespace {

/// A constant's stored bytes: its own data (no window, not shape-only),
/// whole bytes per element; a splat stores one element.
struct Data {
  ElementsAttr attr;
  ArrayRef<char> raw;
  int64_t elemBytes = 0;
};

std::optional<Data> dataOf(Value v) {
  auto c = v ? v.getDefiningOp<graph::ConstantOp>() : graph::ConstantOp();
  if (!c || c->hasAttr(graph::kSourceAttr))
    return std::nullopt;
  ElementsAttr attr = c.getValue();
  if (!attr || graph::isShapeOnly(attr))
    return std::nullopt;
  auto type = cast<RankedTensorType>(attr.getType());
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  Data d{attr, graph::rawElementData(attr), elem.getIntOrFloatBitWidth() / 8};
  int64_t want =
      attr.isSplat() ? d.elemBytes : type.getNumElements() * d.elemBytes;
  if (static_cast<int64_t>(d.raw.size()) != want)
    return std::nullopt;
  return d;
}

/// A constant operand `prune` can rewrite: f32, own data, of `rank`.
bool isPrunableConstant(Value v, int64_t rank) {
  auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
  return t && t.getRank() == rank && t.getElementType().isF32() &&
         t.hasStaticShape() && dataOf(v).has_value();
}

/// A bias of N elements ([N] or [1, N]) for a weight of N columns.
bool isPrunableBias(Value bias, int64_t n) {
  if (!bias)
    return true;
  auto t = dyn_cast<RankedTensorType>(bias.getType());
  if (!t || !t.getElementType().isF32() || !dataOf(bias) ||
      t.getNumElements() != n || t.getShape().back() != n)
    return false;
  return t.getRank() == 1 || (t.getRank() == 2 && t.getDimSize(0) == 1);
}

/// The slices `indices` (ascending) of constant `v` along `dim`.
Value gatherAlong(OpBuilder &b, Location loc, Value v, int64_t dim,
                  ArrayRef<int64_t> indices) {
  Data d = *dataOf(v);
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = static_cast<int64_t>(indices.size());
  auto result = RankedTensorType::get(shape, type.getElementType());
  if (d.attr.isSplat())
    return b.create<graph::ConstantOp>(
        loc, DenseElementsAttr::get(
                 result,
                 cast<DenseElementsAttr>(d.attr).getSplatValue<Attribute>()));
  int64_t outer = 1, inner = d.elemBytes;
  for (int64_t i = 0; i < dim; ++i)
    outer *= type.getDimSize(i);
  for (int64_t i = dim + 1; i < type.getRank(); ++i)
    inner *= type.getDimSize(i);
  int64_t along = type.getDimSize(dim);
  ElementsAttr attr = graph::elementsFromBytes(
      result, graph::derivedKey(d.attr, ".pruned", "pruned"),
      [&](MutableArrayRef<char> out) {
        char *to = out.data();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i : indices) {
            std::memcpy(to, d.raw.data() + (o * along + i) * inner, inner);
            to += inner;
          }
        return to == out.data() + out.size();
      });
  return b.create<graph::ConstantOp>(loc, attr);
}

/// A new f32 constant of `type` holding `values`, its resource named after
/// `from`'s with `suffix` (else `fallback`).
Value floatConstant(OpBuilder &b, Location loc, RankedTensorType type,
                    Attribute from, StringRef suffix, StringRef fallback,
                    ArrayRef<float> values) {
  ElementsAttr attr = graph::elementsFromBytes(
      type, graph::derivedKey(from, suffix, fallback),
      [&](MutableArrayRef<char> out) {
        if (out.size() != values.size() * sizeof(float))
          return false;
        std::memcpy(out.data(), values.data(), out.size());
        return true;
      });
  return b.create<graph::ConstantOp>(loc, attr);
}

/// The rows `rows` (ascending) of the f32 [N, M] constant `v`, row i
/// multiplied by `scale[i]`.
Value scaledRows(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> rows,
                 ArrayRef<double> scale) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t m = type.getDimSize(1);
  std::optional<F32Data> w = readF32(v);
  std::vector<float> values;
  values.reserve(rows.size() * m);
  for (auto [i, r] : llvm::enumerate(rows))
    for (int64_t c = 0; c < m; ++c)
      values.push_back(static_cast<float>(w->f(r * m + c) * scale[i]));
  return floatConstant(
      b, loc,
      RankedTensorType::get({static_cast<int64_t>(rows.size()), m},
                            type.getElementType()),
      v.getDefiningOp<graph::ConstantOp>().getValue(), ".pruned", "pruned",
      values);
}

/// Rows `rows` of the second projection's weight `v`, scaled when
/// `scale` is given.
Value keptRows(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> rows,
               ArrayRef<double> scale) {
  return scale.empty() ? gatherAlong(b, loc, v, 0, rows)
                       : scaledRows(b, loc, v, rows, scale);
}

/// `bias` (null: zeros) plus `shift`, as a new f32 constant of `bias`'s
/// shape (or [M]).
Value shiftedBias(OpBuilder &b, Location loc, Value bias,
                  ArrayRef<double> shift) {
  int64_t m = static_cast<int64_t>(shift.size());
  std::vector<float> values(m, 0.0f);
  if (bias) {
    std::optional<F32Data> h = readF32(bias);
    for (int64_t i = 0; i < m; ++i)
      values[i] = static_cast<float>(h->f(i));
  }
  for (int64_t i = 0; i < m; ++i)
    values[i] = static_cast<float>(values[i] + shift[i]);
  auto type = bias ? cast<RankedTensorType>(bias.getType())
                   : RankedTensorType::get({m}, b.getF32Type());
  Attribute from =
      bias ? Attribute(bias.getDefiningOp<graph::ConstantOp>().getValue())
           : Attribute();
  return floatConstant(b, loc, type, from, ".compensated", "pruned_bias",
                       values);
}

/// `t` with dim `dim` (negative: from the back) set to `size`.
RankedTensorType withDim(Type t, int64_t dim, int64_t size) {
  auto r = cast<RankedTensorType>(t);
  SmallVector<int64_t> shape(r.getShape());
  shape[dim < 0 ? shape.size() + dim : dim] = size;
  return RankedTensorType::get(shape, r.getElementType());
}

/// Erases the constants `values` came from once nothing reads them (a
/// constant read twice, as CSE leaves a shared bias, once).
void eraseDead(ArrayRef<Value> values) {
  llvm::SetVector<Operation *> constants;
  for (Value v : values)
    if (auto c = v ? v.getDefiningOp<graph::ConstantOp>() : nullptr)
      constants.insert(c);
  for (Operation *c : constants)
    if (c->use_empty())
      c->erase();
}

/// The single reader of `v`, if it has exactly one.
Operation *soleUser(Value v) {
  return v.hasOneUse() ? *v.user_begin() : nullptr;
}

bool isHeadsPerm(ArrayRef<int64_t> perm) {
  return perm.size() == 4 && perm[0] == 0 && perm[1] == 2 && perm[2] == 1 &&
         perm[3] == 3;
}

} // namespace

std::optional<F32Data> prune::readF32(Value v) {
  if (!v || !cast<ShapedType>(v.getType()).getElementType().isF32())
    return std::nullopt;
  std::optional<Data> d = dataOf(v);
  if (!d)
    return std::nullopt;
  return F32Data{d->raw, d->attr.isSplat()};
}

F32Data prune::weightData(Value v) {
  std::optional<F32Data> d = readF32(v);
  assert(d && "the matchers take only weights prune can read");
  return *d;
}

std::optional<F32Data> prune::biasData(Value bias) {
  if (!bias)
    return std::nullopt;
  return weightData(bias);
}

prune::Projection::Projection(Operation *op)
    : op(isa_and_nonnull<graph::LinearOp, graph::MatMulOp>(op) ? op : nullptr) {
}

Value prune::Projection::bias() const {
  auto l = dyn_cast<graph::LinearOp>(op);
  return l ? l.getBias() : Value();
}

bool prune::Projection::hasResidual() const {
  auto l = dyn_cast<graph::LinearOp>(op);
  return l && l.getResidual();
}

StringRef prune::Projection::activation() const {
  auto l = dyn_cast<graph::LinearOp>(op);
  return l ? l.getActivation() : "none";
}

void prune::Projection::setBias(Value bias) {
  if (auto l = dyn_cast<graph::LinearOp>(op)) {
    l.getBiasMutable().assign(bias);
    return;
  }
  auto mm = cast<graph::MatMulOp>(op);
  OpBuilder b(mm);
  auto linear = b.create<graph::LinearOp>(mm.getLoc(), mm.getType(),
                                          mm.getLhs(), mm.getRhs(), bias,
                                          Value(), b.getStringAttr("none"));
  mm.getResult().replaceAllUsesWith(linear.getResult());
  mm.erase();
  op = linear;
}

void prune::recordPruned(func::FuncOp func, int64_t channels, int64_t heads,
                         int64_t convChannels, int64_t experts) {
  if (!channels && !heads && !convChannels && !experts)
    return;
  auto before = func->getAttrOfType<DictionaryAttr>(kPrunedAttr);
  Builder b(func.getContext());
  auto add = [&](StringRef name, int64_t n) {
    auto a = before ? before.getAs<IntegerAttr>(name) : IntegerAttr();
    return b.getNamedAttr(name, b.getI64IntegerAttr((a ? a.getInt() : 0) + n));
  };
  func->setAttr(kPrunedAttr, b.getDictionaryAttr(
                                 {add("conv_channels", convChannels),
                                  add("experts", experts), add("heads", heads),
                                  add("mlp_channels", channels)}));
}

double prune::activate(StringRef activation, double x) {
  if (activation == "relu")
    return x > 0 ? x : 0;
  if (activation == "gelu")
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  if (activation == "gelu_tanh")
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  return x;
}

/// A projection prune can rewrite, by a constant f32 [K, N] weight with
/// a bias of N (if any); `plain`: no activation or residual.
static bool isPrunable(Projection p, bool plain) {
  if (!p || !isPrunableConstant(p.weight(), 2) ||
      !cast<ShapedType>(p.getType()).getElementType().isF32())
    return false;
  if (plain && (p.hasResidual() || p.activation() != "none"))
    return false;
  auto w = cast<RankedTensorType>(p.weight().getType());
  return isPrunableBias(p.bias(), w.getDimSize(1));
}

static int64_t columnsOf(Projection p) {
  return cast<ShapedType>(p.weight().getType()).getDimSize(1);
}
static int64_t rowsOf(Projection p) {
  return cast<ShapedType>(p.weight().getType()).getDimSize(0);
}

/// The projection that reads `v` as its input, if it is `v`'s only reader.
static Projection readerOf(Value v) {
  Projection p(soleUser(v));
  return p && p.input() == v && p.weight() != v ? p : Projection();
}

std::vector<Mlp> prune::findMlps(func::FuncOp func) {
  std::vector<Mlp> mlps;
  func.walk([&](Operation *op) {
    // Gated: down(swiglu(gate(x), up(x))).
    if (auto swiglu = dyn_cast<graph::SwigluOp>(op)) {
      Projection down = readerOf(swiglu.getResult());
      Projection gate(swiglu.getGate().getDefiningOp()),
          up(swiglu.getUp().getDefiningOp());
      if (!isPrunable(down, false) || !isPrunable(gate, true) ||
          !isPrunable(up, true) || gate == up || !gate.result().hasOneUse() ||
          !up.result().hasOneUse())
        return;
      int64_t n = rowsOf(down);
      if (columnsOf(gate) == n && columnsOf(up) == n)
        mlps.push_back({up, down, gate, swiglu, n});
      return;
    }
    Projection up(op);
    if (!up || up.hasResidual() || !isPrunable(up, false))
      return;
    Projection down = readerOf(up.result());
    if (!isPrunable(down, false) || rowsOf(down) != columnsOf(up))
      return;
    mlps.push_back({up, down, {}, {}, columnsOf(up)});
  });
  return mlps;
}

namespace {

/// Whether `v`, an operand of an elementwise op with result type `out`
/// ([B, H, S, D]), is the same for every head: its dim aligned with the
/// heads (numpy broadcasting aligns the last dims) is 1 or absent.
bool sameForEveryHead(Value v, RankedTensorType out) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t at = t.getRank() - (out.getRank() - 1);
  return at < 0 || t.getDimSize(at) == 1;
}

/// The per-head ops from a heads transpose to `operand` ([B, H, S, D]),
/// walking back: elementwise ops whose other operands are the same for
/// every head, negations, slices and concats along another dim. Sets `from`
/// to the transpose; false when something else is on the way.
bool perHeadOps(Value operand, graph::TransposeOp &from,
                llvm::SetVector<Operation *> &ops) {
  SmallVector<Value> stack{operand};
  while (!stack.empty()) {
    Value v = stack.pop_back_val();
    Operation *def = v.getDefiningOp();
    auto out = dyn_cast<RankedTensorType>(v.getType());
    if (!def || !out || out.getRank() != 4)
      return false;
    if (auto t = dyn_cast<graph::TransposeOp>(def);
        t && isHeadsPerm(t.getPerm())) {
      if (from && from != t)
        return false;
      from = t;
      continue;
    }
    if (!ops.insert(def))
      continue;
    if (isa<graph::NegOp>(def)) {
      stack.push_back(def->getOperand(0));
    } else if (isa<graph::MulOp, graph::AddOp, graph::SubOp, graph::DivOp>(
                   def)) {
      bool any = false;
      for (Value x : def->getOperands()) {
        auto t = cast<RankedTensorType>(x.getType());
        if (t.getRank() == 4 && t.getDimSize(1) == out.getDimSize(1) &&
            out.getDimSize(1) != 1) {
          stack.push_back(x);
          any = true;
        } else if (!sameForEveryHead(x, out)) {
          return false;
        }
      }
      if (!any)
        return false;
    } else if (auto slice = dyn_cast<graph::SliceOp>(def)) {
      auto in = cast<RankedTensorType>(slice.getInput().getType());
      if (slice.getStarts()[1] != 0 || slice.getSteps()[1] != 1 ||
          out.getDimSize(1) != in.getDimSize(1))
        return false;
      stack.push_back(slice.getInput());
    } else if (auto concat = dyn_cast<graph::ConcatOp>(def)) {
      if (concat.getAxis() == 1)
        return false;
      for (Value x : concat.getInputs())
        stack.push_back(x);
    } else {
      return false;
    }
  }
  return static_cast<bool>(from);
}

/// Hugging Face's repeat_kv ending at `operand`: [B, Hk, S, D] reshaped to
/// [B, Hk, 1, S, D], expanded to [B, Hk, G, S, D], reshaped to
/// [B, Hk*G, S, D]. Returns G and appends the three ops (in order), or 0.
int64_t repeatedHeads(Value &operand, SmallVector<Operation *> &ops) {
  auto after = operand.getDefiningOp<graph::ReshapeOp>();
  auto expand = after ? after.getInput().getDefiningOp<graph::ExpandOp>()
                      : graph::ExpandOp();
  auto before = expand ? expand.getInput().getDefiningOp<graph::ReshapeOp>()
                       : graph::ReshapeOp();
  if (!before || !after.getInput().hasOneUse() ||
      !expand.getInput().hasOneUse())
    return 0;
  auto in = cast<RankedTensorType>(before.getInput().getType());
  auto one = cast<RankedTensorType>(before.getType());
  auto wide = cast<RankedTensorType>(expand.getType());
  auto out = cast<RankedTensorType>(after.getType());
  if (in.getRank() != 4 || one.getRank() != 5 || wide.getRank() != 5 ||
      out.getRank() != 4 || one.getDimSize(2) != 1 ||
      one.getShape().drop_front(3) != in.getShape().drop_front(2) ||
      wide.getShape().drop_front(3) != in.getShape().drop_front(2) ||
      wide.getDimSize(0) != in.getDimSize(0) ||
      wide.getDimSize(1) != in.getDimSize(1) ||
      out.getDimSize(1) != in.getDimSize(1) * wide.getDimSize(2) ||
      out.getShape().drop_front(2) != in.getShape().drop_front(2))
    return 0;
  ops.append({before, expand, after});
  operand = before.getInput();
  return wide.getDimSize(2);
}

} // namespace

std::vector<HeadBlock> prune::findHeadBlocks(func::FuncOp func) {
  std::vector<HeadBlock> blocks;
  func.walk([&](graph::AttentionOp attn) {
    HeadBlock h;
    h.attention = attn;
    Value inputs[3] = {attn.getQuery(), attn.getKey(), attn.getValue()};
    int64_t repeats[3] = {1, 1, 1};
    for (int i = 0; i < 3; ++i) {
      // Back from the attention: a repeat (k and v), the per-head ops,
      // the heads transpose.
      Value operand = inputs[i];
      SmallVector<Operation *> repeat;
      if (i > 0 && (repeats[i] = repeatedHeads(operand, repeat)) == 0)
        repeats[i] = 1;
      graph::TransposeOp t;
      llvm::SetVector<Operation *> ops;
      if (auto direct = operand.getDefiningOp<graph::TransposeOp>();
          direct && isHeadsPerm(direct.getPerm()))
        t = direct;
      else if (!perHeadOps(operand, t, ops))
        return;
      // Nothing outside reads a value in between.
      llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
      inside.insert(repeat.begin(), repeat.end());
      Value last = inputs[i];
      SmallVector<Operation *> all{t.getOperation()};
      all.append(ops.begin(), ops.end());
      all.append(repeat.begin(), repeat.end());
      for (Operation *op : all)
        for (Value r : op->getResults())
          for (OpOperand &use : r.getUses())
            if (!inside.count(use.getOwner()) &&
                !(r == last && use.getOwner() == attn.getOperation() &&
                  use.getOperandNumber() == static_cast<unsigned>(i)))
              return;
      SmallVector<Operation *> between(ops.begin(), ops.end());
      llvm::sort(between, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      if (!llvm::all_of(between, [&](Operation *op) {
            return op->getBlock() == t->getBlock();
          }))
        return;
      between.append(repeat);
      auto r = t.getInput().getDefiningOp<graph::ReshapeOp>();
      if (!r || !t.getInput().hasOneUse() || !r.getInput().hasOneUse())
        return;
      // Its own projection, or part i of a fused QKV projection's split.
      Projection p;
      if (auto split = r.getInput().getDefiningOp<graph::SplitOp>()) {
        if (split.getNumResults() != 3 || r.getInput() != split.getResult(i) ||
            (h.split && h.split != split))
          return;
        h.split = split;
        p = Projection(split.getInput().getDefiningOp());
        if (!split.getInput().hasOneUse())
          return;
      } else {
        p = Projection(r.getInput().getDefiningOp());
      }
      if (!isPrunable(p, true))
        return;
      auto shape = cast<RankedTensorType>(r.getType()).getShape();
      auto from = cast<RankedTensorType>(r.getInput().getType()).getShape();
      if (shape.size() != 4 || from.size() != 3 || shape[0] != from[0] ||
          shape[1] != from[1] || shape[2] * shape[3] != from[2])
        return;
      if (i == 0) {
        h.heads = shape[2];
        h.headDim = shape[3];
      } else if (shape[3] != h.headDim || shape[2] * repeats[i] != h.heads ||
                 (i == 2 && shape[2] != h.kvHeads)) {
        return; // another head size, or heads that do not repeat to q's
      }
      if (i == 1)
        h.kvHeads = shape[2];
      h.proj[i] = p;
      h.toHeads[i] = r;
      h.toBhsd[i] = t;
      h.between[i] = std::move(between);
    }
    if (h.split) {
      // One projection split into q, k and v along its last axis.
      auto sizes = h.split.getSizes();
      int64_t width = h.heads * h.headDim;
      if (h.kvHeads != h.heads ||
          static_cast<int64_t>(h.split.getAxis()) !=
              cast<RankedTensorType>(h.split.getInput().getType()).getRank() -
                  1 ||
          sizes.size() != 3 || sizes[0] != width || sizes[1] != width ||
          sizes[2] != width)
        return;
    } else if (h.proj[0] == h.proj[1] || h.proj[0] == h.proj[2] ||
               h.proj[1] == h.proj[2]) {
      return; // two of q, k and v from one projection, unsplit
    }
    if (Value mask = attn.getMask()) {
      auto m = cast<RankedTensorType>(mask.getType());
      if (m.getRank() == 4 && m.getDimSize(1) != 1)
        return;
    }
    auto back =
        dyn_cast_or_null<graph::TransposeOp>(soleUser(attn.getResult()));
    if (!back || !isHeadsPerm(back.getPerm()))
      return;
    auto merge = dyn_cast_or_null<graph::ReshapeOp>(soleUser(back.getResult()));
    if (!merge || cast<RankedTensorType>(merge.getType()).getRank() != 3)
      return;
    Projection out = readerOf(merge.getResult());
    if (!isPrunable(out, false) || rowsOf(out) != h.heads * h.headDim)
      return;
    h.fromBhsd = back;
    h.merge = merge;
    h.out = out;
    blocks.push_back(h);
  });
  return blocks;
}

Value prune::convWeight(Operation *conv) { return conv->getOperand(1); }

Value prune::convBias(Operation *conv) {
  if (auto c = dyn_cast<graph::ConvOp>(conv))
    return c.getBias();
  return cast<graph::FusedConvOp>(conv).getBias();
}

ArrayRef<int64_t> prune::convPads(Operation *conv) {
  if (auto c = dyn_cast<graph::ConvOp>(conv))
    return c.getPads();
  return cast<graph::FusedConvOp>(conv).getPads();
}

StringRef prune::convActivation(Operation *conv) {
  auto f = dyn_cast<graph::FusedConvOp>(conv);
  return f ? f.getActivation() : "none";
}

/// A convolution prune can rewrite: group 1, constant f32 filters of
/// rank 3 or more, a constant bias (if any), no residual when `first`.
static bool isPrunableConv(Operation *op, bool first) {
  int64_t group;
  if (auto c = dyn_cast_or_null<graph::ConvOp>(op))
    group = c.getGroup();
  else if (auto f = dyn_cast_or_null<graph::FusedConvOp>(op))
    group = (first && f.getResidual()) ? 0 : f.getGroup();
  else
    return false;
  if (group != 1 ||
      !cast<ShapedType>(op->getResult(0).getType()).getElementType().isF32())
    return false;
  Value w = convWeight(op);
  auto t = dyn_cast<RankedTensorType>(w.getType());
  if (!t || t.getRank() < 3 || !isPrunableConstant(w, t.getRank()))
    return false;
  Value bias = convBias(op);
  return !bias ||
         (isPrunableConstant(bias, 1) &&
          cast<ShapedType>(bias.getType()).getDimSize(0) == t.getDimSize(0));
}

std::vector<ConvPair> prune::findConvPairs(func::FuncOp func) {
  std::vector<ConvPair> pairs;
  func.walk([&](Operation *first) {
    if (!isPrunableConv(first, /*first=*/true))
      return;
    Operation *second = soleUser(first->getResult(0));
    if (!isPrunableConv(second, /*first=*/false) ||
        second->getOperand(0) != first->getResult(0))
      return;
    int64_t c = cast<ShapedType>(convWeight(first).getType()).getDimSize(0);
    if (cast<ShapedType>(convWeight(second).getType()).getDimSize(1) == c)
      pairs.push_back({first, second, c});
  });
  return pairs;
}

/// A depthwise convolution over `c` channels that a chain may pass
/// through: group c, constant f32 filters [c, 1, k...], a constant bias of
/// c (if any), no residual.
static bool isPrunableDepthwise(Operation *op, int64_t c) {
  int64_t group = 0;
  if (auto conv = dyn_cast_or_null<graph::ConvOp>(op))
    group = conv.getGroup();
  else if (auto f = dyn_cast_or_null<graph::FusedConvOp>(op))
    group = f.getResidual() ? 0 : f.getGroup();
  if (group != c || c < 2)
    return false;
  auto out = cast<ShapedType>(op->getResult(0).getType());
  Value w = convWeight(op);
  auto t = dyn_cast<RankedTensorType>(w.getType());
  if (!out.getElementType().isF32() || out.getDimSize(1) != c || !t ||
      t.getRank() < 3 || t.getDimSize(0) != c || t.getDimSize(1) != 1 ||
      !isPrunableConstant(w, t.getRank()))
    return false;
  Value bias = convBias(op);
  return !bias || (isPrunableConstant(bias, 1) &&
                   cast<ShapedType>(bias.getType()).getDimSize(0) == c);
}

/// An op that treats every channel of `v` alike and keeps its shape: a
/// product, sum, difference or quotient by a one-element constant, or a
/// unary activation.
static bool isChannelwise(Operation *op, Value v) {
  if (!op || op->getNumResults() != 1 ||
      op->getResult(0).getType() != v.getType())
    return false;
  if (isa<graph::ReluOp, graph::HardSwishOp, graph::HardSigmoidOp,
          graph::SigmoidOp, graph::TanhOp>(op))
    return true;
  if (!isa<graph::MulOp, graph::AddOp, graph::SubOp, graph::DivOp>(op) ||
      op->getNumOperands() != 2)
    return false;
  Value other = op->getOperand(0) == v ? op->getOperand(1) : op->getOperand(0);
  if (op->getOperand(0) != v && op->getOperand(1) != v)
    return false;
  auto t = dyn_cast<RankedTensorType>(other.getType());
  return t && t.getNumElements() == 1 &&
         other.getDefiningOp<graph::ConstantOp>();
}

std::vector<ConvChain> prune::findConvChains(func::FuncOp func) {
  std::vector<ConvChain> chains;
  func.walk([&](Operation *first) {
    if (!isPrunableConv(first, /*first=*/true))
      return;
    int64_t c = cast<ShapedType>(convWeight(first).getType()).getDimSize(0);
    ConvChain chain{first, nullptr, {}, c};
    Value v = first->getResult(0);
    while (Operation *next = soleUser(v)) {
      if (isPrunableConv(next, /*first=*/false) && next->getOperand(0) == v) {
        if (cast<ShapedType>(convWeight(next).getType()).getDimSize(1) == c) {
          chain.second = next;
          chains.push_back(chain);
        }
        return;
      }
      if (!(isPrunableDepthwise(next, c) && next->getOperand(0) == v) &&
          !isChannelwise(next, v))
        return;
      chain.between.push_back(next);
      v = next->getResult(0);
    }
  });
  return chains;
}

bool prune::isPixelProjection(const ConvChain &chain) {
  auto t = cast<RankedTensorType>(convWeight(chain.second).getType());
  return t.getNumElements() == t.getDimSize(0) * t.getDimSize(1) &&
         llvm::all_of(convPads(chain.second), [](int64_t p) { return !p; });
}

LogicalResult prune::keepChainChannels(ConvChain &chain, ArrayRef<int64_t> keep,
                                       ArrayRef<double> biasShift,
                                       ArrayRef<double> scale) {
  auto setBias = [](Operation *conv, Value bias) {
    if (auto c = dyn_cast<graph::ConvOp>(conv))
      c.getBiasMutable().assign(bias);
    else
      cast<graph::FusedConvOp>(conv).getBiasMutable().assign(bias);
  };
  auto n = static_cast<int64_t>(keep.size());
  SmallVector<Value> dead;
  // The channels' own filters and biases: first's and each depthwise
  // convolution's, along their output channels.
  SmallVector<Operation *> owners = {chain.first};
  for (Operation *op : chain.between)
    if (isa<graph::ConvOp, graph::FusedConvOp>(op))
      owners.push_back(op);
  for (Operation *conv : owners) {
    OpBuilder b(conv);
    Value w = convWeight(conv), bias = convBias(conv);
    conv->setOperand(1, gatherAlong(b, conv->getLoc(), w, 0, keep));
    if (bias)
      setBias(conv, gatherAlong(b, conv->getLoc(), bias, 0, keep));
    if (conv != chain.first) {
      if (auto c = dyn_cast<graph::ConvOp>(conv))
        c.setGroup(n);
      else
        cast<graph::FusedConvOp>(conv).setGroup(n);
    }
    dead.append({w, bias});
  }
  chain.first->getResult(0).setType(
      withDim(chain.first->getResult(0).getType(), 1, n));
  for (Operation *op : chain.between)
    op->getResult(0).setType(withDim(op->getResult(0).getType(), 1, n));
  // The second convolution's input slices [Cout, C, k...] -> [Cout, n,
  // k...], scaled.
  Operation *second = chain.second;
  OpBuilder b(second);
  Value w2 = convWeight(second), b2 = convBias(second);
  auto t2 = cast<RankedTensorType>(w2.getType());
  Value kept = gatherAlong(b, second->getLoc(), w2, 1, keep);
  if (!scale.empty()) {
    std::optional<F32Data> k = readF32(kept);
    int64_t cout = t2.getDimSize(0),
            taps = t2.getNumElements() / (cout * t2.getDimSize(1));
    std::vector<float> values(cout * n * taps);
    for (int64_t o = 0; o < cout; ++o)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t t = 0; t < taps; ++t) {
          int64_t at = (o * n + j) * taps + t;
          values[at] = static_cast<float>(k->f(at) * scale[j]);
        }
    Value scaled = floatConstant(
        b, second->getLoc(), cast<RankedTensorType>(kept.getType()),
        w2.getDefiningOp<graph::ConstantOp>().getValue(), ".pruned", "pruned",
        values);
    kept.getDefiningOp()->erase();
    kept = scaled;
  }
  second->setOperand(1, kept);
  if (!biasShift.empty())
    setBias(second, shiftedBias(b, second->getLoc(), b2, biasShift));
  dead.append({w2, b2});
  eraseDead(dead);
  chain.channels = n;
  return success();
}

LogicalResult prune::keepConvChannels(ConvPair &pair, ArrayRef<int64_t> keep,
                                      ArrayRef<double> biasShift) {
  ConvChain chain{pair.first, pair.second, {}, pair.channels};
  if (failed(keepChainChannels(chain, keep, biasShift)))
    return failure();
  pair.channels = chain.channels;
  return success();
}

LogicalResult prune::keepChannels(Mlp &mlp, ArrayRef<int64_t> keep,
                                  ArrayRef<double> biasShift,
                                  ArrayRef<double> rowScale) {
  Projection &down = mlp.down;
  Value oldW2 = down.weight(), oldB2 = down.bias();
  int64_t n = static_cast<int64_t>(keep.size());
  SmallVector<Value> dead = {oldW2, oldB2};
  // The first projections (up, and a gated MLP's gate): their columns.
  for (Projection *p : {&mlp.up, &mlp.gate}) {
    if (!*p)
      continue;
    OpBuilder b(p->getOperation());
    Value w = p->weight(), bias = p->bias();
    dead.append({w, bias});
    p->setWeight(gatherAlong(b, p->getLoc(), w, 1, keep));
    if (bias)
      p->setBias(gatherAlong(
          b, p->getLoc(), bias,
          cast<RankedTensorType>(bias.getType()).getRank() - 1, keep));
    p->result().setType(withDim(p->getType(), -1, n));
  }
  if (mlp.swiglu)
    mlp.swiglu.getResult().setType(withDim(mlp.swiglu.getType(), -1, n));
  OpBuilder b(down.getOperation());
  down.setWeight(keptRows(b, down.getLoc(), oldW2, keep, rowScale));
  if (!biasShift.empty())
    down.setBias(shiftedBias(b, down.getLoc(), oldB2, biasShift));
  eraseDead(dead);
  mlp.channels = n;
  return success();
}

LogicalResult prune::keepHeads(HeadBlock &h, ArrayRef<int64_t> keep,
                               ArrayRef<double> biasShift,
                               ArrayRef<double> rowScale) {
  int64_t heads = static_cast<int64_t>(keep.size()), d = h.headDim;
  int64_t g = h.group();
  // Whole groups: the key and value heads that stay.
  SmallVector<int64_t> kvKeep;
  if (heads % g)
    return failure();
  for (int64_t c = 0; c < heads; c += g) {
    if (keep[c] % g)
      return failure();
    for (int64_t j = 0; j < g; ++j)
      if (keep[c + j] != keep[c] + j)
        return failure();
    kvKeep.push_back(keep[c] / g);
  }
  auto columnsOf = [&](ArrayRef<int64_t> kept) {
    SmallVector<int64_t> cols;
    for (int64_t head : kept)
      for (int64_t i = 0; i < d; ++i)
        cols.push_back(head * d + i);
    return cols;
  };
  SmallVector<int64_t> columns = columnsOf(keep), kvColumns = columnsOf(kvKeep);
  SmallVector<Value> dead;
  // The projections' columns: each of q, k and v, or the three parts of a
  // fused one.
  auto keepColumns = [&](Projection &p, ArrayRef<int64_t> cols) {
    OpBuilder b(p.getOperation());
    Value w = p.weight(), bias = p.bias();
    dead.append({w, bias});
    p.setWeight(gatherAlong(b, p.getLoc(), w, 1, cols));
    if (bias)
      p.setBias(gatherAlong(
          b, p.getLoc(), bias,
          cast<RankedTensorType>(bias.getType()).getRank() - 1, cols));
    p.result().setType(
        withDim(p.getType(), -1, static_cast<int64_t>(cols.size())));
  };
  if (h.split) {
    int64_t width = h.heads * d;
    SmallVector<int64_t> fused;
    for (int64_t part = 0; part < 3; ++part)
      for (int64_t c : columns)
        fused.push_back(part * width + c);
    keepColumns(h.proj[0], fused);
    for (int i = 1; i < 3; ++i)
      h.proj[i] = h.proj[0];
    h.split.setSizes({heads * d, heads * d, heads * d});
    for (Value r : h.split.getResults())
      r.setType(withDim(r.getType(), -1, heads * d));
  } else {
    keepColumns(h.proj[0], columns);
    keepColumns(h.proj[1], kvColumns);
    keepColumns(h.proj[2], kvColumns);
  }
  int64_t kvHeads = static_cast<int64_t>(kvKeep.size());
  for (int i = 0; i < 3; ++i) {
    int64_t n = i == 0 ? heads : kvHeads;
    graph::ReshapeOp r = h.toHeads[i];
    SmallVector<int64_t> shape(r.getShape());
    shape[2] = n;
    r.setShape(shape);
    r.getResult().setType(withDim(r.getType(), 2, n));
    h.toBhsd[i].getResult().setType(withDim(h.toBhsd[i].getType(), 1, n));
    // The per-head ops carry n heads in dim 1; a repeat's last reshape
    // gives n * G.
    for (Operation *op : h.between[i]) {
      auto type = cast<RankedTensorType>(op->getResult(0).getType());
      if (auto slice = dyn_cast<graph::SliceOp>(op)) {
        SmallVector<int64_t> ends(slice.getEnds());
        ends[1] = n;
        slice.setEnds(ends);
      } else if (auto reshape = dyn_cast<graph::ReshapeOp>(op)) {
        if (type.getRank() == 4) // [B, n * G, S, D]: the repeat's last
          n *= g;
        SmallVector<int64_t> dims(reshape.getShape());
        dims[1] = n;
        reshape.setShape(dims);
      } else if (auto expand = dyn_cast<graph::ExpandOp>(op)) {
        SmallVector<int64_t> dims(expand.getShape());
        dims[1] = n;
        expand.setShape(dims);
      }
      op->getResult(0).setType(withDim(type, 1, n));
    }
  }
  h.attention.getResult().setType(withDim(h.attention.getType(), 1, heads));
  h.fromBhsd.getResult().setType(withDim(h.fromBhsd.getType(), 2, heads));
  SmallVector<int64_t> merged(h.merge.getShape());
  merged.back() = heads * d;
  h.merge.setShape(merged);
  h.merge.getResult().setType(withDim(h.merge.getType(), -1, heads * d));
  OpBuilder b(h.out.getOperation());
  Value wo = h.out.weight(), bo = h.out.bias();
  dead.append({wo, bo});
  h.out.setWeight(keptRows(b, h.out.getLoc(), wo, columns, rowScale));
  if (!biasShift.empty())
    h.out.setBias(shiftedBias(b, h.out.getLoc(), bo, biasShift));
  eraseDead(dead);
  h.heads = heads;
  h.kvHeads = kvHeads;
  return success();
}

std::vector<MoeLayer> prune::findMoeLayers(func::FuncOp func) {
  std::vector<MoeLayer> layers;
  func.walk([&](graph::MoeOp moe) {
    MoeLayer layer;
    layer.moe = moe;
    layer.experts = moe.getNumExperts();
    layers.push_back(layer);
    auto isExperts = [&](Value v, int64_t rank) {
      return !v ||
             (isPrunableConstant(v, rank) &&
              cast<ShapedType>(v.getType()).getDimSize(0) == layer.experts);
    };
    if (!isExperts(moe.getGateUp(), 3) || !isExperts(moe.getDown(), 3) ||
        !isExperts(moe.getGateUpBias(), 2) || !isExperts(moe.getDownBias(), 2))
      return;
    auto topk = moe.getIds().getDefiningOp<graph::TopKOp>();
    if (!topk || moe.getIds() != topk.getIndices())
      return;
    auto scores = cast<RankedTensorType>(topk.getInput().getType());
    if (scores.getRank() != 2 || topk.getAxis() != 1 ||
        scores.getDimSize(1) != layer.experts ||
        soleUser(topk.getInput()) != topk.getOperation())
      return;
    // Back from the scores to the router's projection.
    SmallVector<Operation *> between;
    Value v = topk.getInput();
    Operation *def = v.getDefiningOp();
    while (def && (isa<graph::SigmoidOp>(def) ||
                   (isa<graph::SoftmaxOp>(def) &&
                    cast<graph::SoftmaxOp>(def).getAxis() == 1))) {
      between.push_back(def);
      v = def->getOperand(0);
      if (soleUser(v) != def)
        return;
      def = v.getDefiningOp();
    }
    Projection router(def);
    if (!isPrunable(router, /*plain=*/true) ||
        columnsOf(router) != layer.experts)
      return;
    layer.router = router;
    layer.between.assign(between.rbegin(), between.rend());
    layers.back() = layer;
  });
  return layers;
}

LogicalResult prune::keepExperts(MoeLayer &layer, ArrayRef<int64_t> keep) {
  auto n = static_cast<int64_t>(keep.size());
  if (!layer.router || n < layer.moe.getTopK() || n > layer.experts)
    return failure();
  Projection &router = layer.router;
  Value w = router.weight(), bias = router.bias();
  SmallVector<Value> dead = {w, bias};
  OpBuilder b(router.getOperation());
  router.setWeight(gatherAlong(b, router.getLoc(), w, 1, keep));
  if (bias)
    router.setBias(gatherAlong(
        b, router.getLoc(), bias,
        cast<RankedTensorType>(bias.getType()).getRank() - 1, keep));
  router.result().setType(withDim(router.getType(), -1, n));
  for (Operation *op : layer.between)
    op->getResult(0).setType(withDim(op->getResult(0).getType(), -1, n));
  graph::MoeOp moe = layer.moe;
  b.setInsertionPoint(moe);
  for (OpOperand *operand : {&moe.getGateUpMutable(), &moe.getDownMutable()}) {
    dead.push_back(operand->get());
    operand->set(gatherAlong(b, moe.getLoc(), operand->get(), 0, keep));
  }
  if (Value gub = moe.getGateUpBias()) {
    Value db = moe.getDownBias();
    dead.append({gub, db});
    moe.getGateUpBiasMutable().assign(
        gatherAlong(b, moe.getLoc(), gub, 0, keep));
    moe.getDownBiasMutable().assign(gatherAlong(b, moe.getLoc(), db, 0, keep));
  }
  eraseDead(dead);
  layer.experts = n;
  return success();
}
