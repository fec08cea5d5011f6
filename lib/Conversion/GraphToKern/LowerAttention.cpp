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
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

namespace {

/// A graph value as a strided view of a buffer.
struct Strided {
  Value buffer;
  int64_t offset = 0;
  SmallVector<int64_t> shape, strides;
};

int64_t product(ArrayRef<int64_t> v) {
  int64_t n = 1;
  for (int64_t x : v)
    n *= x;
  return n;
}

/// The strides of a reshape to `to` of elements laid out as `shape` with
/// `strides`, or nothing when a group of merged dims is not contiguous.
std::optional<SmallVector<int64_t>> reshapeStrides(ArrayRef<int64_t> shape,
                                                   ArrayRef<int64_t> strides,
                                                   ArrayRef<int64_t> to) {
  SmallVector<int64_t> out(to.size(), 0);
  if (product(shape) == 0)
    return out;
  SmallVector<int64_t> os, ost; // size-1 dims carry no stride
  for (auto [d, s] : llvm::zip(shape, strides))
    if (d != 1) {
      os.push_back(d);
      ost.push_back(s);
    }
  size_t i = 0, j = 0;
  while (j < to.size()) {
    if (to[j] == 1) {
      ++j;
      continue;
    }
    // The smallest group of old dims [i, i2) and new dims [j, j2) with
    // equal products.
    size_t i2 = i + 1, j2 = j + 1;
    int64_t po = os[i], pn = to[j];
    while (po != pn) {
      if (pn < po)
        pn *= to[j2++];
      else
        po *= os[i2++];
    }
    for (size_t k = i; k + 1 < i2; ++k)
      if (ost[k] != ost[k + 1] * os[k + 1])
        return std::nullopt;
    int64_t s = ost[i2 - 1];
    for (size_t m = j2; m-- > j;) {
      out[m] = s;
      s *= to[m];
    }
    i = i2;
    j = j2;
  }
  return out;
}

Strided denseView(Value buffer, ArrayRef<int64_t> shape) {
  return {buffer, 0, SmallVector<int64_t>(shape), rowMajorStrides(shape)};
}

/// `v` as a strided view: through the deferred layout ops that produce it,
/// else its own buffer.
Strided stridedView(KernLowering &l, Value v) {
  Operation *def = v.getDefiningOp();
  if (!l.buffers.count(v) && def && l.deferred.contains(def) &&
      !l.lowered.contains(def)) {
    ArrayRef<int64_t> shape = shapeOf(v);
    if (auto t = dyn_cast<graph::TransposeOp>(def)) {
      Strided in = stridedView(l, t.getInput());
      Strided out{in.buffer, in.offset, SmallVector<int64_t>(shape), {}};
      for (int64_t p : t.getPerm())
        out.strides.push_back(in.strides[p]);
      return out;
    }
    if (auto s = dyn_cast<graph::SplitOp>(def)) {
      Strided in = stridedView(l, s.getInput());
      int64_t axis = s.getAxis(), start = 0;
      for (Value r : s.getOutputs()) {
        if (r == v)
          break;
        start += shapeOf(r)[axis];
      }
      in.offset += start * in.strides[axis];
      in.shape.assign(shape.begin(), shape.end());
      return in;
    }
    // A slice with positive steps (torch's q, k, v cut out of the packed
    // projection): an offset and scaled strides.
    if (auto sl = dyn_cast<graph::SliceOp>(def);
        sl && llvm::all_of(sl.getSteps(), [](int64_t s) { return s > 0; })) {
      Strided in = stridedView(l, sl.getInput());
      for (auto [d, start] : llvm::enumerate(sl.getStarts())) {
        in.offset += start * in.strides[d];
        in.strides[d] *= sl.getSteps()[d];
      }
      in.shape.assign(shape.begin(), shape.end());
      return in;
    }
    if (isa<graph::ReshapeOp, graph::SqueezeOp, graph::UnsqueezeOp,
            graph::FlattenOp>(def)) {
      Strided in = stridedView(l, def->getOperand(0));
      if (auto st = reshapeStrides(in.shape, in.strides, shape))
        return {in.buffer, in.offset, SmallVector<int64_t>(shape), *st};
    }
    // Not expressible: materialized below (get() lowers it lazily).
  }
  return denseView(l.get(v), shapeOf(v));
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
  SmallVector<int64_t> strides;
};

std::optional<SmallVector<int64_t>> stridesThrough(ArrayRef<Operation *> ops,
                                                   Value final) {
  SmallVector<int64_t> shape(shapeOf(final)), strides = rowMajorStrides(shape);
  for (Operation *op : llvm::reverse(ops)) {
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    if (auto t = dyn_cast<graph::TransposeOp>(op)) {
      SmallVector<int64_t> s(in.size());
      for (auto [d, p] : llvm::enumerate(t.getPerm()))
        s[p] = strides[d];
      strides = s;
    } else {
      auto s = reshapeStrides(shape, strides, in);
      if (!s)
        return std::nullopt;
      strides = *s;
    }
    shape.assign(in.begin(), in.end());
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

/// Attention over dynamic dims: q, k and v are dense buffers (the layout
/// ops around them are not deferred with dynamic dims) and y is written
/// dense; `dims` and the layouts are symbolic, mirrored in kern.sym.
LogicalResult lowerSymbolicAttention(graph::AttentionOp op, KernLowering &l) {
  SymShape qs = graph::dimsOf(op.getQuery()), ks = graph::dimsOf(op.getKey()),
           vs = graph::dimsOf(op.getValue());
  size_t r = qs.size();
  sym::Expr S = qs.sym[r - 2], D = qs.sym[r - 1], T = ks.sym[r - 2],
            E = vs.sym[r - 1];
  ArrayRef<sym::Expr> lead = ArrayRef(qs.sym).drop_back(2);
  struct Operand {
    Value buffer;
    sym::Expr offset;
    SmallVector<sym::Expr> strides;
  };
  auto dense = [&](Value buffer, const SymShape &shape) {
    return Operand{buffer, 0, KernLowering::strides(shape.sym)};
  };
  SmallVector<Operand> ops{dense(l.get(op.getQuery()), qs),
                           dense(l.get(op.getKey()), ks),
                           dense(l.get(op.getValue()), vs)};
  bool hasMask = static_cast<bool>(op.getMask());
  if (hasMask) {
    SmallVector<int64_t> scores(ArrayRef(qs.bound).drop_back(2));
    scores.append({qs.bound[r - 2], ks.bound[r - 2]});
    Access a = KernLowering::broadcast(l.get(op.getMask()), scores);
    SmallVector<sym::Expr> layout(a.sym);
    if (layout.empty())
      for (int64_t v : a.layout)
        layout.push_back(v);
    ops.push_back({a.buffer, layout[0],
                   SmallVector<sym::Expr>(ArrayRef(layout).drop_front())});
  }
  Value y = l.result(op.getOutput());
  ops.push_back(dense(y, graph::dimsOf(op.getOutput())));

  // Merge the leading dims where every operand allows (for every value of
  // the symbols); drop static size-1 ones.
  SmallVector<sym::Expr> dims;
  SmallVector<SmallVector<sym::Expr>> bstr(ops.size());
  for (size_t d = 0; d < lead.size(); ++d) {
    if (lead[d] == sym::Expr(1))
      continue;
    bool merge = !dims.empty();
    for (auto [o, st] : llvm::zip(ops, bstr))
      merge &= !st.empty() && st.back() == o.strides[d] * lead[d];
    if (merge) {
      dims.back() = dims.back() * lead[d];
      for (auto [o, st] : llvm::zip(ops, bstr))
        st.back() = o.strides[d];
      continue;
    }
    dims.push_back(lead[d]);
    for (auto [o, st] : llvm::zip(ops, bstr))
      st.push_back(o.strides[d]);
  }
  dims.append({S, T, D, E});

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
    SmallVector<sym::Expr> a{ops[i].offset};
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
  return success();
}

LogicalResult lowerAttention(graph::AttentionOp op, KernLowering &l) {
  Location loc = op.getLoc();
  Type elem = elemOf(op.getQuery());
  if (onnxFloatDType(elem) < 0)
    return l.fail(op, "needs f32, f16, bf16 or f64 operands");
  if (llvm::any_of(op->getOperands(),
                   [](Value v) { return graph::isSymbolic(v); }) ||
      graph::isSymbolic(op.getOutput()))
    return lowerSymbolicAttention(op, l);
  ArrayRef<int64_t> qs = shapeOf(op.getQuery()), ks = shapeOf(op.getKey()),
                    vs = shapeOf(op.getValue());
  int64_t r = qs.size();
  int64_t S = qs[r - 2], D = qs[r - 1], T = ks[r - 2], E = vs[r - 1];
  SmallVector<int64_t> lead(qs.drop_back(2));

  // Operands: q, k, v, mask (broadcast to the scores), y.
  SmallVector<Strided> ops{stridedView(l, op.getQuery()),
                           stridedView(l, op.getKey()),
                           stridedView(l, op.getValue())};
  bool hasMask = static_cast<bool>(op.getMask());
  if (hasMask) {
    SmallVector<int64_t> scores(lead);
    scores.append({S, T});
    Access a = KernLowering::broadcast(l.get(op.getMask()), scores);
    ops.push_back({a.buffer, a.layout[0], scores,
                   SmallVector<int64_t>(ArrayRef(a.layout).drop_front())});
  }
  OutputChain chain = outputChain(l, op.getOutput());
  Value y = l.result(chain.final);
  ops.push_back({y, 0, SmallVector<int64_t>(shapeOf(op.getOutput())),
                 chain.strides});

  // Merge the leading dims where every operand allows; drop size-1 ones.
  SmallVector<int64_t> dims;
  SmallVector<SmallVector<int64_t>> bstr(ops.size());
  for (size_t d = 0; d < lead.size(); ++d) {
    if (lead[d] == 1)
      continue;
    bool merge = !dims.empty();
    for (auto [o, s] : llvm::zip(ops, bstr))
      merge &= !s.empty() && s.back() == o.strides[d] * lead[d];
    if (merge) {
      dims.back() *= lead[d];
      for (auto [o, s] : llvm::zip(ops, bstr))
        s.back() = o.strides[d];
      continue;
    }
    dims.push_back(lead[d]);
    for (auto [o, s] : llvm::zip(ops, bstr))
      s.push_back(o.strides[d]);
  }
  dims.append({S, T, D, E});

  // Each operand: its base buffer and [offset, batch strides, row stride,
  // column stride].
  auto layout = [&](size_t i) {
    SmallVector<int64_t> a{ops[i].offset};
    a.append(bstr[i]);
    a.append(ArrayRef(ops[i].strides).take_back(2).begin(),
             ArrayRef(ops[i].strides).take_back(2).end());
    return l.b.getDenseI64ArrayAttr(a);
  };
  size_t yi = ops.size() - 1;
  l.b.create<AttentionOp>(
      loc, ops[0].buffer, ops[1].buffer, ops[2].buffer,
      hasMask ? ops[3].buffer : Value(), y, l.b.getDenseI64ArrayAttr(dims),
      layout(0), layout(1), layout(2),
      hasMask ? layout(3) : DenseI64ArrayAttr(), layout(yi),
      l.b.getF32FloatAttr(op.getScale().convertToFloat()),
      op.getCausal() ? l.b.getUnitAttr() : UnitAttr(),
      op.getBf16Products() ? l.b.getUnitAttr() : UnitAttr());
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
