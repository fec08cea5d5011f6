//===- FoldSymbolic.cpp - shape arithmetic on dynamic dims ----------------===//
//
// With dynamic dims, the Shape/Gather/Concat/Unsqueeze chains that exporters
// emit (Hugging Face's `view(batch, seq, heads, -1)`, `x[:, :seq]`) compute
// values that depend on the symbols. They fold here exactly, each element a
// sym::Expr, so that the consumer (Reshape, Expand, Slice, ConstantOfShape)
// gets symbolic sizes and nothing of the arithmetic runs at run time. An op
// that would need a value the symbols do not determine (a comparison that
// holds for some sizes and not others, a division that is not exact) is
// refused with the reason, never folded at the bound.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "dialects/Graph/IR/ShapeInference.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using llvm::ArrayRef;
using llvm::SmallVector;

namespace shardc::onnximport {

bool SymTensor::isConstant() const {
  return llvm::all_of(values,
                      [](const sym::Expr &e) { return e.isConstant(); });
}

HostTensor SymTensor::toHost() const {
  HostTensor t;
  t.dtype = dtype;
  t.dims = dims;
  for (const sym::Expr &e : values)
    t.ints.push_back(e.getConstant().value_or(0));
  return t;
}

std::optional<SymTensor> liftHost(const HostTensor &t) {
  if (t.isFloat() || t.numel() > kSymLimit)
    return std::nullopt;
  SymTensor s;
  s.dtype = t.dtype;
  s.dims = t.dims;
  for (int64_t i = 0; i < t.numel(); ++i)
    s.values.push_back(sym::Expr(t.i(i)));
  return s;
}

namespace {

/// The range of `e` over every symbol in [1, max], by intervals per term
/// (sound, possibly wider than the true range).
struct Range {
  __int128 lo = 0, hi = 0;
};
Range rangeOf(const sym::Expr &e, ArrayRef<int64_t> maxes) {
  Range r;
  for (const auto &[m, c] : e.terms()) {
    __int128 top = 1;
    for (unsigned s : m)
      top *= s < maxes.size() ? maxes[s] : 1;
    __int128 a = c, b = (__int128)c * top;
    r.lo += std::min(a, b);
    r.hi += std::max(a, b);
  }
  return r;
}

/// 1 when a < b for every value of the symbols, 0 when never, none when it
/// depends on them.
std::optional<int64_t> decideLess(const sym::Expr &a, const sym::Expr &b,
                                  ArrayRef<int64_t> maxes) {
  Range d = rangeOf(b - a, maxes);
  if (d.lo >= 1)
    return 1;
  if (d.hi <= 0)
    return 0;
  return std::nullopt;
}

/// For each element of a tensor of shape `out`, the index of the element of
/// an input of shape `in` that numpy broadcasting reads.
SmallVector<int64_t> broadcastIndex(ArrayRef<int64_t> out,
                                    ArrayRef<int64_t> in) {
  SmallVector<int64_t> index;
  int64_t n = product(out), rank = out.size();
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k, off = 0, stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t idx = rest % out[d];
      rest /= out[d];
      int64_t di = d - (rank - (int64_t)in.size());
      if (di >= 0) {
        off += (in[di] == 1 ? 0 : idx) * stride;
        stride *= in[di];
      }
    }
    index.push_back(off);
  }
  return index;
}

SmallVector<int64_t> constInts(const SymTensor *t) {
  SmallVector<int64_t> out;
  if (t)
    for (const sym::Expr &e : t->values)
      out.push_back(e.getConstant().value_or(0));
  return out;
}

bool allConstant(const SymTensor *t) { return !t || t->isConstant(); }

} // namespace

std::optional<SymTensor>
foldSymbolic(const onnx::NodeProto &node, int64_t opset,
             ArrayRef<const SymTensor *> in, ArrayRef<int64_t> maxes,
             ArrayRef<std::string> names, std::string &error) {
  const std::string &op = node.op_type();
  auto refuse = [&](const std::string &why) -> std::optional<SymTensor> {
    error = why;
    return std::nullopt;
  };
  if (in.empty() || !in[0])
    return refuse("has no first input");
  const SymTensor &x = *in[0];
  SymTensor r;
  r.dtype = x.dtype;
  const std::string tooLarge = "computes more than " +
                               std::to_string(kSymLimit) +
                               " sizes from dynamic dims";

  if (op == "Identity")
    return x;
  // The shape of a value computed from dynamic dims is its (static) dims.
  if (op == "Shape" || op == "Size") {
    int64_t rank = x.dims.size();
    int64_t start = attrInt(node, "start", 0), end = attrInt(node, "end", rank);
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, start, rank);
    r.dtype = ScalarType::I64;
    if (op == "Size") {
      r.values = {sym::Expr(product(x.dims))};
      return r;
    }
    for (int64_t d = start; d < end; ++d)
      r.values.push_back(sym::Expr(x.dims[d]));
    r.dims = {end - start};
    return r;
  }
  if (op == "Cast") {
    std::optional<ScalarType> to =
        graph::scalarTypeFromOnnx(attrInt(node, "to", 1));
    if (!to || graph::isFloatType(*to))
      return refuse("casts a value computed from dynamic dims to a "
                    "floating-point type, which is not supported yet");
    // Sizes keep their values in an integer type that holds every value
    // within the bounds; a narrower type (or bool) would change them.
    std::pair<int64_t, int64_t> range = graph::intRange(*to);
    int64_t lo = range.first, hi = *to == ScalarType::Bool ? -1 : range.second;
    bool fits = llvm::all_of(x.values, [&](const sym::Expr &e) {
      Range v = rangeOf(e, maxes);
      return v.lo >= lo && v.hi <= hi;
    });
    if (!fits)
      return refuse("casts a value computed from dynamic dims to " +
                    dtypeName(*to) +
                    ", which does not hold it for every value of the "
                    "dynamic dims");
    r = x;
    r.dtype = *to;
    return r;
  }
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape") {
    // The values stay; only the dims change (the host evaluator knows how).
    HostTensor shaped;
    shaped.dtype = ScalarType::I64;
    shaped.dims = x.dims;
    shaped.resize(product(x.dims));
    std::vector<HostTensor> outs;
    // The axes or target shape, in their input positions (absent: null).
    std::vector<HostTensor> hosts(in.size());
    SmallVector<const HostTensor *> ptrs{&shaped};
    for (size_t i = 1; i < in.size(); ++i) {
      if (in[i] && !in[i]->isConstant())
        return refuse("takes its axes or shape from dynamic dims");
      if (in[i])
        hosts[i] = in[i]->toHost();
      ptrs.push_back(in[i] ? &hosts[i] : nullptr);
    }
    std::string err;
    if (!foldNode(node, opset, ptrs, outs, err) || outs.size() != 1)
      return refuse(err.empty() ? "cannot be folded" : err);
    r.dims = outs[0].dims;
    r.values = x.values;
    return r;
  }
  if (op == "Concat") {
    int64_t rank = x.dims.size(), axis = attrInt(node, "axis", 0);
    if (rank != 1 || (axis != 0 && axis != -1))
      return refuse("concatenates dynamic sizes other than 1-D vectors");
    for (const SymTensor *t : in) {
      if (!t || t->dims.size() != 1)
        return refuse("concatenates dynamic sizes other than 1-D vectors");
      llvm::append_range(r.values, t->values);
      if ((int64_t)r.values.size() > kSymLimit)
        return refuse(tooLarge);
    }
    r.dims = {(int64_t)r.values.size()};
    return r;
  }
  if (op == "Gather") {
    int64_t axis = attrInt(node, "axis", 0);
    if (x.dims.size() != 1 || (axis != 0 && axis != -1) || in.size() < 2 ||
        !in[1] || !in[1]->isConstant())
      return refuse("gathers from dynamic sizes other than a 1-D vector by "
                    "constant indices");
    int64_t n = x.dims[0];
    if (product(in[1]->dims) > kSymLimit)
      return refuse(tooLarge);
    for (int64_t idx : constInts(in[1])) {
      if (idx < -n || idx >= n)
        return refuse("index " + std::to_string(idx) + " is out of range for " +
                      std::to_string(n) + " sizes");
      r.values.push_back(x.values[idx < 0 ? idx + n : idx]);
    }
    r.dims = in[1]->dims;
    return r;
  }
  if (op == "Slice") {
    if (x.dims.size() != 1)
      return refuse("slices dynamic sizes other than a 1-D vector");
    SmallVector<int64_t> starts, ends, axes, steps, s, e, st;
    if (opset < 10) {
      starts = attrInts(node, "starts").value_or(SmallVector<int64_t>{});
      ends = attrInts(node, "ends").value_or(SmallVector<int64_t>{});
      axes = attrInts(node, "axes").value_or(SmallVector<int64_t>{});
    } else {
      for (size_t i = 1; i < in.size(); ++i)
        if (!allConstant(in[i]))
          return refuse("slices dynamic sizes by bounds that are dynamic");
      starts = constInts(in.size() > 1 ? in[1] : nullptr);
      ends = constInts(in.size() > 2 ? in[2] : nullptr);
      axes = constInts(in.size() > 3 ? in[3] : nullptr);
      steps = constInts(in.size() > 4 ? in[4] : nullptr);
    }
    if (auto err = normalizeSlice(x.dims, starts, ends, axes, steps, s, e, st))
      return refuse(*err);
    for (int64_t i = s[0]; st[0] > 0 ? i < e[0] : i > e[0]; i += st[0])
      r.values.push_back(x.values[i]);
    r.dims = {(int64_t)r.values.size()};
    return r;
  }
  if (op == "Where") {
    if (in.size() != 3 || !in[1] || !in[2] || !x.isConstant())
      return refuse("selects by a condition that depends on dynamic dims");
    SmallVector<int64_t> cx;
    if (mlir::failed(
            graph::broadcastShapes(std::nullopt, x.dims, in[1]->dims, cx)) ||
        mlir::failed(
            graph::broadcastShapes(std::nullopt, cx, in[2]->dims, r.dims)))
      return refuse("operands do not broadcast");
    if (product(r.dims) > kSymLimit)
      return refuse(tooLarge);
    r.dtype = in[1]->dtype;
    SmallVector<int64_t> ic = broadcastIndex(r.dims, x.dims),
                         ix = broadcastIndex(r.dims, in[1]->dims),
                         iy = broadcastIndex(r.dims, in[2]->dims);
    for (size_t k = 0; k < ic.size(); ++k)
      r.values.push_back(*x.values[ic[k]].getConstant() ? in[1]->values[ix[k]]
                                                        : in[2]->values[iy[k]]);
    return r;
  }
  if (op == "Neg") {
    r = x;
    for (sym::Expr &v : r.values)
      v = -v;
    return r;
  }

  static const char *binaryOps[] = {
      "Add",   "Sub",  "Mul",     "Div",         "Max",           "Min",
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"};
  if (!llvm::is_contained(binaryOps, op))
    return refuse("cannot fold " + op +
                  " on values computed from dynamic "
                  "dims yet");
  if (in.size() != 2 || !in[1])
    return refuse(op + " on dynamic sizes takes exactly two inputs");
  const SymTensor &y = *in[1];
  if (mlir::failed(
          graph::broadcastShapes(std::nullopt, x.dims, y.dims, r.dims)))
    return refuse("operands do not broadcast");
  if (product(r.dims) > kSymLimit)
    return refuse(tooLarge);
  SmallVector<int64_t> ix = broadcastIndex(r.dims, x.dims),
                       iy = broadcastIndex(r.dims, y.dims);
  bool compare = op == "Equal" || op == "Less" || op == "Greater" ||
                 op == "LessOrEqual" || op == "GreaterOrEqual";
  if (compare)
    r.dtype = ScalarType::Bool;
  for (size_t k = 0; k < ix.size(); ++k) {
    const sym::Expr &a = x.values[ix[k]], &b = y.values[iy[k]];
    std::optional<int64_t> v;
    std::optional<sym::Expr> e;
    if (op == "Add")
      e = a + b;
    else if (op == "Sub")
      e = a - b;
    else if (op == "Mul")
      e = a * b;
    else if (op == "Div") {
      if (b == sym::Expr(0))
        return refuse("divides a dynamic size by zero");
      e = a.divExact(b);
      if (!e)
        return refuse("divides " + a.str(names) + " by " + b.str(names) +
                      ", which is not exact for every value of the dynamic "
                      "dims");
    } else if (op == "Max" || op == "Min") {
      // decideLess: 1 when a < b always, 0 when a >= b always.
      std::optional<int64_t> less = decideLess(a, b, maxes);
      if (a == b)
        e = a;
      else if (!less)
        return refuse(op + " of " + a.str(names) + " and " + b.str(names) +
                      " depends on the values of the dynamic dims");
      else
        e = (*less == 1) == (op == "Max") ? b : a;
    } else if (op == "Equal") {
      if (a == b)
        v = 1;
      else if (decideLess(a, b, maxes).value_or(0) ||
               decideLess(b, a, maxes).value_or(0))
        v = 0;
    } else if (op == "Less" || op == "GreaterOrEqual") {
      v = decideLess(a, b, maxes);
      if (v && op == "GreaterOrEqual")
        v = 1 - *v;
    } else { // Greater, LessOrEqual
      v = decideLess(b, a, maxes);
      if (v && op == "LessOrEqual")
        v = 1 - *v;
    }
    if (compare && !v)
      return refuse(op + " of " + a.str(names) + " and " + b.str(names) +
                    " depends on the values of the dynamic dims");
    if (e && !e->valid())
      return refuse("overflows");
    r.values.push_back(compare ? sym::Expr(*v) : *e);
  }
  return r;
}

} // namespace shardc::onnximport
