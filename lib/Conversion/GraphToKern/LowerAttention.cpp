//===- LowerAttention.cpp - scaled dot-product attention -------------------===//
//
// graph.attention becomes one runtime kernel call (sc_attention,
// runtime/src/cpu/Attention.cpp; a flash-attention kernel on CUDA) that
// never materializes the score matrix.
//
// The kernel takes each operand as a base buffer plus [offset, batch
// strides, row stride, column stride], so the layout ops around attention
// in transformer exports cost nothing:
//
// - inputs: q, k and v are read through the deferred layout ops that
//   produce them (GraphToKern.cpp defers a split / slice / transpose /
//   reshape whose every use absorbs it): GPT-2's split of the QKV GEMM
//   output (torch's nn.MultiheadAttention: slices of it), reshape to
//   [B, S, H, D] and transpose (0, 2, 1, 3) become offsets and strides into
//   the GEMM's buffer. A view the strides cannot express (a reshape that
//   merges non-contiguous dims) is materialized after all.
// - output: a chain of single-use transposes and reshapes after attention
//   (GPT-2's transpose (0, 2, 1, 3) and reshape to [B, S, H * E]) is
//   absorbed backwards: the kernel writes the chain's final value directly,
//   and the chain's ops are marked lowered.
//
// The leading (batch) dims of all operands are merged where every operand's
// strides allow, and size-1 ones dropped, so the kernel usually sees two.
//
// Sizes, offsets and strides are sym::Expr throughout: with dynamic dims
// the same arithmetic gives the kernel's symbolic dims and layouts (kern.sym
// mirrors; the static attributes are their values at the bounds), and a
// view or merge is taken only where it holds for every value of the
// symbols. A static program gets constants, and exactly its old attributes.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

namespace {

using Exprs = SmallVector<sym::Expr>;

/// A graph value as a strided view of a buffer.
struct Strided {
  Value buffer;
  sym::Expr offset = 0;
  SymShape shape;
  Exprs strides;
};

/// The strides of a reshape to `to` of elements laid out as `shape` with
/// `strides`, or nothing when a group of merged dims is not contiguous.
/// Groups of old and new dims are matched on the bounds and kept only when
/// their symbolic sizes agree too.
std::optional<Exprs> reshapeStrides(const SymShape &shape,
                                    ArrayRef<sym::Expr> strides,
                                    const SymShape &to) {
  Exprs out(to.size(), sym::Expr(0));
  if (llvm::is_contained(shape.bound, 0))
    return out;
  SymShape os; // size-1 dims carry no stride
  Exprs ost;
  for (auto [d, s] : llvm::enumerate(strides))
    if (shape.bound[d] != 1) {
      os.push_back(shape, d);
      ost.push_back(s);
    }
  size_t i = 0, j = 0;
  while (j < to.size()) {
    if (to.bound[j] == 1) {
      ++j;
      continue;
    }
    // The smallest group of old dims [i, i2) and new dims [j, j2) with
    // equal products.
    size_t i2 = i + 1, j2 = j + 1;
    int64_t po = os.bound[i], pn = to.bound[j];
    while (po != pn) {
      if (pn < po)
        pn *= to.bound[j2++];
      else
        po *= os.bound[i2++];
    }
    if (sym::product(ArrayRef(os.sym).slice(i, i2 - i)) !=
        sym::product(ArrayRef(to.sym).slice(j, j2 - j)))
      return std::nullopt;
    for (size_t k = i; k + 1 < i2; ++k)
      if (ost[k] != ost[k + 1] * os.sym[k + 1])
        return std::nullopt;
    sym::Expr s = ost[i2 - 1];
    for (size_t m = j2; m-- > j;) {
      out[m] = s;
      s = s * to.sym[m];
    }
    i = i2;
    j = j2;
  }
  return out;
}

Strided denseView(Value buffer, const SymShape &shape) {
  return {buffer, 0, shape, KernLowering::strides(shape.sym)};
}

/// `v` as a strided view: through the deferred layout ops that produce it,
/// else its own buffer.
Strided stridedView(KernLowering &l, Value v) {
  if (auto view = l.views.find(v); view != l.views.end())
    return {view->second.buffer, view->second.offset, graph::dimsOf(v),
            view->second.strides};
  Operation *def = v.getDefiningOp();
  if (!l.buffers.count(v) && def && l.deferred.contains(def) &&
      !l.lowered.contains(def)) {
    SymShape shape = graph::dimsOf(v);
    if (auto t = dyn_cast<graph::TransposeOp>(def)) {
      Strided in = stridedView(l, t.getInput());
      Strided out{in.buffer, in.offset, shape, {}};
      for (int64_t p : t.getPerm())
        out.strides.push_back(in.strides[p]);
      return out;
    }
    if (auto s = dyn_cast<graph::SplitOp>(def)) {
      Strided in = stridedView(l, s.getInput());
      int64_t axis = s.getAxis();
      sym::Expr start = 0;
      for (Value r : s.getOutputs()) {
        if (r == v)
          break;
        start = start + graph::dimsOf(r).sym[axis];
      }
      in.offset = in.offset + start * in.strides[axis];
      in.shape = shape;
      return in;
    }
    // A slice with positive steps (torch's q, k, v cut out of the packed
    // projection): an offset and scaled strides.
    if (auto sl = dyn_cast<graph::SliceOp>(def);
        sl && llvm::all_of(sl.getSteps(), [](int64_t s) { return s > 0; })) {
      Strided in = stridedView(l, sl.getInput());
      SmallVector<sym::Expr> starts =
          graph::symAttr(sl->getAttrDictionary(), "starts", sl.getStarts());
      for (auto [d, start] : llvm::enumerate(starts)) {
        in.offset = in.offset + in.strides[d] * start;
        in.strides[d] = in.strides[d] * sl.getSteps()[d];
      }
      in.shape = shape;
      return in;
    }
    if (isa<graph::ReshapeOp, graph::SqueezeOp, graph::UnsqueezeOp,
            graph::FlattenOp>(def)) {
      Strided in = stridedView(l, def->getOperand(0));
      if (auto st = reshapeStrides(in.shape, in.strides, shape))
        return {in.buffer, in.offset, shape, *st};
    }
    // Not expressible: materialized below (get() lowers it lazily).
  }
  return denseView(l.get(v), graph::dimsOf(v));
}

int32_t onnxFloatDType(Type t) {
  if (t.isF32())
    return 1;
  if (t.isF16())
    return 10;
  if (t.isF64())
    return 11;
  if (t.isBF16())
    return 16;
  return -1;
}

/// The single-use transposes and reshapes after `v` that can be written
/// through strides: the ops (in order), the final value and the strides of
/// `v`'s elements in the final value's dense buffer.
struct OutputChain {
  SmallVector<Operation *> ops;
  Value final;
  Exprs strides;
};

std::optional<Exprs> stridesThrough(ArrayRef<Operation *> ops, Value final) {
  SymShape shape = graph::dimsOf(final);
  Exprs strides = KernLowering::strides(shape.sym);
  for (Operation *op : llvm::reverse(ops)) {
    SymShape in = graph::dimsOf(op->getOperand(0));
    if (auto t = dyn_cast<graph::TransposeOp>(op)) {
      Exprs s(in.size(), sym::Expr(0));
      for (auto [d, p] : llvm::enumerate(t.getPerm()))
        s[p] = strides[d];
      strides = s;
    } else {
      auto s = reshapeStrides(shape, strides, in);
      if (!s)
        return std::nullopt;
      strides = *s;
    }
    shape = in;
  }
  return strides;
}

OutputChain outputChain(KernLowering &l, Value v) {
  OutputChain c;
  Value cur = v;
  while (cur.hasOneUse()) {
    Operation *user = *cur.getUsers().begin();
    if (!isa<graph::TransposeOp, graph::ReshapeOp, graph::SqueezeOp,
             graph::UnsqueezeOp, graph::FlattenOp>(user) ||
        l.deferred.contains(user))
      break;
    c.ops.push_back(user);
    cur = user->getResult(0);
  }
  // The longest prefix whose strides can be expressed.
  while (true) {
    c.final = c.ops.empty() ? v : c.ops.back()->getResult(0);
    if (auto s = stridesThrough(c.ops, c.final)) {
      c.strides = *s;
      return c;
    }
    c.ops.pop_back();
  }
}

LogicalResult lowerAttention(graph::AttentionOp op, KernLowering &l) {
  Type elem = elemOf(op.getQuery());
  if (onnxFloatDType(elem) < 0)
    return l.fail(op, "needs f32, f16, bf16 or f64 operands");
  SymShape qs = graph::dimsOf(op.getQuery()), ks = graph::dimsOf(op.getKey()),
           vs = graph::dimsOf(op.getValue());
  size_t r = qs.size();
  sym::Expr S = qs.sym[r - 2], D = qs.sym[r - 1], T = ks.sym[r - 2],
            E = vs.sym[r - 1];
  SymShape lead;
  for (size_t d = 0; d + 2 < r; ++d)
    lead.push_back(qs, d);

  // Operands: q, k, v, mask (broadcast to the scores), y.
  SmallVector<Strided, 5> ops{stridedView(l, op.getQuery()),
                           stridedView(l, op.getKey()),
                           stridedView(l, op.getValue())};
  bool hasMask = static_cast<bool>(op.getMask());
  if (hasMask) {
    SymShape scores = lead;
    scores.push_back(qs, r - 2);
    scores.push_back(ks, r - 2);
    Access a = KernLowering::broadcast(l.get(op.getMask()), scores.bound);
    Exprs layout(a.sym);
    if (layout.empty())
      for (int64_t v : a.layout)
        layout.push_back(v);
    ops.push_back({a.buffer, layout[0], scores,
                   Exprs(ArrayRef(layout).drop_front())});
  }
  OutputChain chain = outputChain(l, op.getOutput());
  Value y = l.result(chain.final);
  ops.push_back({y, 0, graph::dimsOf(op.getOutput()), chain.strides});

  // Merge the leading dims where every operand allows (for every value of
  // the symbols); drop size-1 ones.
  Exprs dims;
  SmallVector<Exprs> bstr(ops.size());
  for (size_t d = 0; d < lead.size(); ++d) {
    if (lead.bound[d] == 1)
      continue;
    bool merge = !dims.empty();
    for (auto [o, s] : llvm::zip(ops, bstr))
      merge &= !s.empty() && s.back() == o.strides[d] * lead.sym[d];
    if (merge) {
      dims.back() = dims.back() * lead.sym[d];
      for (auto [o, s] : llvm::zip(ops, bstr))
        s.back() = o.strides[d];
      continue;
    }
    dims.push_back(lead.sym[d]);
    for (auto [o, s] : llvm::zip(ops, bstr))
      s.push_back(o.strides[d]);
  }
  dims.append({S, T, D, E});

  // Each operand: its base buffer and [offset, batch strides, row stride,
  // column stride], at the bounds, with their mirrors where symbolic.
  MLIRContext *ctx = op.getContext();
  SmallVector<NamedAttribute> mirrors;
  auto attr = [&](StringRef name, ArrayRef<sym::Expr> values) {
    SmallVector<int64_t> bound;
    for (const sym::Expr &e : values)
      bound.push_back(l.atBound(e));
    if (isSymbolic(values))
      mirrors.push_back(l.b.getNamedAttr(name, sym::toAffine(ctx, values)));
    return l.b.getDenseI64ArrayAttr(bound);
  };
  auto layout = [&](StringRef name, size_t i) {
    Exprs a{ops[i].offset};
    a.append(bstr[i]);
    a.append(ArrayRef(ops[i].strides).take_back(2).begin(),
             ArrayRef(ops[i].strides).take_back(2).end());
    return attr(name, a);
  };
  size_t yi = ops.size() - 1;
  auto attention = l.b.create<AttentionOp>(
      op.getLoc(), ops[0].buffer, ops[1].buffer, ops[2].buffer,
      hasMask ? ops[3].buffer : Value(), y, attr("dims", dims),
      layout("q_layout", 0), layout("k_layout", 1), layout("v_layout", 2),
      hasMask ? layout("mask_layout", 3) : DenseI64ArrayAttr(),
      layout("y_layout", yi),
      l.b.getF32FloatAttr(op.getScale().convertToFloat()),
      op.getCausal() ? l.b.getUnitAttr() : UnitAttr(),
      op.getBf16Products() ? l.b.getUnitAttr() : UnitAttr());
  if (!mirrors.empty())
    addMirrors(attention, mirrors);
  for (Operation *o : chain.ops)
    l.lowered.insert(o);
  return success();
}

} // namespace

void shardc::kern::addAttentionLowerings(LoweringTable &t) {
  addLowering<graph::AttentionOp>(t, lowerAttention);
}

void shardc::kern::addAttentionAbsorbers(AbsorbTable &t) {
  // q, k and v are read through strides; the mask is not (it is usually a
  // constant or a broadcast).
  t[graph::AttentionOp::getOperationName()] = [](OpOperand &use) {
    return use.getOperandNumber() < 3;
  };
}
