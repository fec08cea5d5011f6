//===- FoldShapeOps.cpp - host evaluation of compile-time-known nodes -------===//
//
// Shapes are static, so the Shape/Gather/Concat/Unsqueeze/... chains that
// exporters emit to compute reshape targets, slice bounds and masks have
// compile-time values. This file evaluates them on small host tensors. Only
// ops that appear in such computations are folded; everything else is left to
// the graph dialect.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using onnx::TensorProto;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace shardc::onnximport {

std::optional<std::string> resolveReshape(ArrayRef<int64_t> in,
                                          ArrayRef<int64_t> shape,
                                          bool allowZero,
                                          llvm::SmallVectorImpl<int64_t> &out) {
  int64_t total = 1, known = 1, inferred = -1;
  for (int64_t d : in)
    total *= d;
  out.clear();
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return "target dim " + std::to_string(i) +
               " is 0 (copy) but the input has rank " +
               std::to_string(in.size());
      d = in[i];
    } else if (d == -1) {
      if (inferred >= 0)
        return std::string("target shape has more than one -1");
      inferred = i;
      out.push_back(1);
      continue;
    } else if (d < -1) {
      return "target dim " + std::to_string(d) + " is invalid";
    }
    out.push_back(d);
    if (__builtin_mul_overflow(known, d, &known) || known > kMaxDim)
      return "target shape [" + llvm::join(llvm::map_range(shape, [](int64_t v) {
               return std::to_string(v);
             }), ", ") + "] has more than 2^40 elements";
  }
  if (inferred >= 0) {
    if (known == 0 || total % known)
      return "cannot infer the -1 dim: " + std::to_string(total) +
             " elements are not divisible by " + std::to_string(known);
    out[inferred] = total / known;
  } else if (known != total) {
    return "cannot reshape " + std::to_string(total) + " elements to " +
           std::to_string(known);
  }
  return std::nullopt;
}

std::optional<std::string>
normalizeSlice(ArrayRef<int64_t> dims, ArrayRef<int64_t> starts,
               ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
               ArrayRef<int64_t> steps, llvm::SmallVectorImpl<int64_t> &s,
               llvm::SmallVectorImpl<int64_t> &e,
               llvm::SmallVectorImpl<int64_t> &st) {
  int64_t rank = dims.size();
  s.assign(rank, 0);
  e.assign(dims.begin(), dims.end());
  st.assign(rank, 1);
  if (starts.size() != ends.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size()))
    return std::string("starts, ends, axes and steps differ in length");
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes.empty() ? i : axes[i];
    if (a < -rank || a >= rank)
      return "axis " + std::to_string(a) + " is out of range for rank " +
             std::to_string(rank);
    if (a < 0)
      a += rank;
    if (seen[a])
      return "axis " + std::to_string(a) + " is repeated";
    seen[a] = true;
    int64_t step = steps.empty() ? 1 : steps[i], dim = dims[a];
    if (step == 0)
      return std::string("a step is zero");
    int64_t b = starts[i], en = ends[i];
    if (b < 0)
      b = b < -dim ? 0 : b + dim; // INT64_MIN safe
    if (en < 0)
      en = en < -dim ? -1 : en + dim;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      en = std::clamp<int64_t>(en, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, -1, dim - 1);
      en = std::clamp<int64_t>(en, -1, dim - 1);
      if (starts[i] < -dim)
        b = -1;
    }
    s[a] = b;
    e[a] = en;
    // A step longer than the dim takes one element either way; clamping it
    // keeps the length arithmetic (-step, en - b + step) from overflowing.
    st[a] = std::clamp<int64_t>(step, -(dim + 1), dim + 1);
  }
  return std::nullopt;
}

static int64_t attrInt(const onnx::NodeProto &n, const char *name,
                       int64_t dflt) {
  for (const auto &a : n.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INT)
      return a.i();
  return dflt;
}

static std::optional<SmallVector<int64_t>>
attrInts(const onnx::NodeProto &n, const char *name) {
  for (const auto &a : n.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INTS)
      return SmallVector<int64_t>(a.ints().begin(), a.ints().end());
  return std::nullopt;
}

static SmallVector<int64_t> values(const HostTensor *t) {
  SmallVector<int64_t> v;
  if (t)
    for (int64_t i = 0; i < t->numel(); ++i)
      v.push_back(t->i(i));
  return v;
}

static bool broadcastDims(ArrayRef<const HostTensor *> ins,
                          SmallVector<int64_t> &out) {
  out.clear();
  for (const HostTensor *t : ins) {
    size_t rank = std::max(out.size(), t->dims.size());
    SmallVector<int64_t> r(rank, 1);
    for (size_t i = 0; i < rank; ++i) {
      int64_t a = i < rank - out.size() ? 1 : out[i - (rank - out.size())];
      int64_t b = i < rank - t->dims.size() ? 1
                                            : t->dims[i - (rank - t->dims.size())];
      if (a != b && a != 1 && b != 1)
        return false;
      r[i] = a == 1 ? b : a;
    }
    out = r;
  }
  return true;
}

// Index into `t` of the output element `linear` under broadcasting.
static int64_t bcastIndex(const HostTensor &t, ArrayRef<int64_t> out,
                          int64_t linear) {
  int64_t idx = 0, stride = 1;
  int64_t off = out.size() - t.dims.size();
  for (int64_t d = out.size() - 1; d >= 0; --d) {
    int64_t coord = linear % out[d];
    linear /= out[d];
    if (d >= off) {
      int64_t td = t.dims[d - off];
      idx += (td == 1 ? 0 : coord) * stride;
      stride *= td;
    }
  }
  return idx;
}

static int64_t numel(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

static bool foldElementwise(const std::string &op,
                            ArrayRef<const HostTensor *> in,
                            std::vector<HostTensor> &outs, std::string &error) {
  HostTensor r;
  if (!broadcastDims(in, r.dims) || numel(r.dims) > kFoldLimit)
    return false;
  bool compare = op == "Equal" || op == "Less" || op == "Greater";
  r.dtype = compare ? TensorProto::BOOL
                    : (op == "Where" ? in[1]->dtype : in[0]->dtype);
  int64_t n = r.numel();
  r.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    auto a = [&](int j) { return in[j]->f(bcastIndex(*in[j], r.dims, k)); };
    auto ai = [&](int j) { return in[j]->i(bcastIndex(*in[j], r.dims, k)); };
    bool fp = in[0]->isFloat();
    // Integer arithmetic in unsigned: it wraps instead of being undefined.
    auto u = [&](int j) { return (uint64_t)ai(j); };
    if (op == "Add") fp ? r.set(k, a(0) + a(1)) : r.setInt(k, u(0) + u(1));
    else if (op == "Sub") fp ? r.set(k, a(0) - a(1)) : r.setInt(k, u(0) - u(1));
    else if (op == "Mul") fp ? r.set(k, a(0) * a(1)) : r.setInt(k, u(0) * u(1));
    else if (op == "Div") {
      if (fp) r.set(k, a(0) / a(1));
      else if (ai(1) == 0) {
        error = "integer division by zero (element " + std::to_string(k) +
                " of the divisor is 0)";
        return false;
      }
      else if (ai(1) == -1) r.setInt(k, 0 - u(0)); // INT64_MIN / -1 wraps
      else r.setInt(k, ai(0) / ai(1));
    }
    else if (op == "Min") fp ? r.set(k, std::min(a(0), a(1))) : r.setInt(k, std::min(ai(0), ai(1)));
    else if (op == "Max") fp ? r.set(k, std::max(a(0), a(1))) : r.setInt(k, std::max(ai(0), ai(1)));
    else if (op == "Equal") r.setInt(k, fp ? a(0) == a(1) : ai(0) == ai(1));
    else if (op == "Less") r.setInt(k, fp ? a(0) < a(1) : ai(0) < ai(1));
    else if (op == "Greater") r.setInt(k, fp ? a(0) > a(1) : ai(0) > ai(1));
    else if (op == "And") r.setInt(k, ai(0) && ai(1));
    else if (op == "Or") r.setInt(k, ai(0) || ai(1));
    else if (op == "Not") r.setInt(k, !ai(0));
    else if (op == "Neg") fp ? r.set(k, -a(0)) : r.setInt(k, 0 - u(0));
    else if (op == "Abs") fp ? r.set(k, std::fabs(a(0))) : r.setInt(k, ai(0) < 0 ? 0 - u(0) : u(0));
    else if (op == "Sqrt") r.set(k, std::sqrt(a(0)));
    else if (op == "Floor") r.set(k, std::floor(a(0)));
    else if (op == "Ceil") r.set(k, std::ceil(a(0)));
    else if (op == "Where") {
      int64_t src = ai(0) ? 1 : 2;
      r.isFloat() ? r.set(k, a(src)) : r.setInt(k, ai(src));
    }
    else return false;
  }
  if (r.dtype == TensorProto::FLOAT)
    for (double &v : r.floats)
      v = (float)v;
  outs.push_back(std::move(r));
  return true;
}

// Copies elements of `in` at the multi-indices produced by `map`.
template <typename MapFn>
static HostTensor gatherElements(const HostTensor &in, ArrayRef<int64_t> dims,
                                 MapFn map) {
  HostTensor r;
  r.dtype = in.dtype;
  r.dims.assign(dims.begin(), dims.end());
  int64_t n = r.numel();
  r.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = map(k);
    if (r.isFloat())
      r.floats[k] = in.floats[src];
    else
      r.ints[k] = in.ints[src];
  }
  return r;
}

static SmallVector<int64_t> strides(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> s(dims.size(), 1);
  for (int64_t d = (int64_t)dims.size() - 2; d >= 0; --d)
    s[d] = s[d + 1] * dims[d + 1];
  return s;
}

bool foldNode(const onnx::NodeProto &node, int64_t opset,
              ArrayRef<const HostTensor *> in, std::vector<HostTensor> &outs,
              std::string &error) {
  const std::string &op = node.op_type();
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return false;
  static const char *elementwise[] = {
      "Add", "Sub", "Mul", "Div", "Min", "Max", "Equal", "Less", "Greater",
      "And", "Or", "Not", "Neg", "Abs", "Sqrt", "Floor", "Ceil", "Where"};
  for (const char *e : elementwise)
    if (op == e)
      return (op == "Min" || op == "Max" ? in.size() == 2 : true) &&
             foldElementwise(op, in, outs, error);

  if (op == "Identity") {
    outs.push_back(*in[0]);
    return true;
  }
  if (op == "Cast") {
    HostTensor r = *in[0];
    int64_t to = attrInt(node, "to", 1);
    if (!dtypeSize(to))
      return false;
    r.dtype = to;
    r.floats.clear();
    r.ints.clear();
    r.resize(r.numel());
    for (int64_t k = 0; k < r.numel(); ++k) {
      if (r.isFloat())
        r.floats[k] = to == TensorProto::FLOAT ? (float)in[0]->f(k) : in[0]->f(k);
      else if (to == TensorProto::BOOL)
        r.ints[k] = in[0]->f(k) != 0;
      else
        r.ints[k] = in[0]->i(k);
    }
    outs.push_back(std::move(r));
    return true;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    auto axesOpt = opset < 13 ? attrInts(node, "axes")
                              : (in.size() > 1 && in[1]
                                     ? std::optional(values(in[1]))
                                     : std::nullopt);
    SmallVector<int64_t> axes = axesOpt.value_or(SmallVector<int64_t>{});
    HostTensor r = *in[0];
    int64_t rank = r.dims.size() + (op == "Unsqueeze" ? axes.size() : 0);
    for (int64_t &a : axes) {
      if (a < -rank || a >= rank)
        return false;
      if (a < 0)
        a += rank;
    }
    llvm::sort(axes);
    if (op == "Unsqueeze") {
      for (int64_t a : axes)
        r.dims.insert(r.dims.begin() + a, 1);
    } else {
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < rank; ++d) {
        bool drop = axes.empty() ? r.dims[d] == 1 : llvm::is_contained(axes, d);
        if (!drop)
          dims.push_back(r.dims[d]);
        else if (r.dims[d] != 1)
          return false;
      }
      r.dims = dims;
    }
    outs.push_back(std::move(r));
    return true;
  }
  if (op == "Reshape") {
    HostTensor r = *in[0];
    if (opset < 5 || !in[1] ||
        resolveReshape(in[0]->dims, values(in[1]), attrInt(node, "allowzero", 0),
                       r.dims))
      return false;
    outs.push_back(std::move(r));
    return true;
  }
  if (op == "Concat") {
    int64_t rank = in[0]->dims.size();
    int64_t axis = attrInt(node, "axis", 0);
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return false;
    HostTensor r;
    r.dtype = in[0]->dtype;
    r.dims = in[0]->dims;
    r.dims[axis] = 0;
    for (const HostTensor *t : in) {
      if (!t || (int64_t)t->dims.size() != rank || t->dtype != r.dtype)
        return false;
      r.dims[axis] += t->dims[axis];
    }
    if (r.numel() > kFoldLimit)
      return false;
    int64_t outer = numel(ArrayRef<int64_t>(r.dims).take_front(axis));
    for (int64_t o = 0; o < outer; ++o)
      for (const HostTensor *t : in) {
        int64_t chunk = numel(ArrayRef<int64_t>(t->dims).drop_front(axis));
        for (int64_t k = 0; k < chunk; ++k) {
          if (r.isFloat())
            r.floats.push_back(t->floats[o * chunk + k]);
          else
            r.ints.push_back(t->ints[o * chunk + k]);
        }
      }
    outs.push_back(std::move(r));
    return true;
  }
  if (op == "Gather") {
    const HostTensor &data = *in[0], &idx = *in[1];
    int64_t rank = data.dims.size(), axis = attrInt(node, "axis", 0);
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return false;
    SmallVector<int64_t> dims(data.dims.begin(), data.dims.begin() + axis);
    dims.append(idx.dims.begin(), idx.dims.end());
    dims.append(data.dims.begin() + axis + 1, data.dims.end());
    if (numel(dims) > kFoldLimit)
      return false;
    int64_t inner = numel(ArrayRef<int64_t>(data.dims).drop_front(axis + 1));
    int64_t nidx = idx.numel(), dimA = data.dims[axis];
    for (int64_t k = 0; k < nidx; ++k)
      if (idx.i(k) < -dimA || idx.i(k) >= dimA)
        return false;
    outs.push_back(gatherElements(data, dims, [&](int64_t k) {
      int64_t in_ = k % inner, rest = k / inner;
      int64_t j = rest % nidx, o = rest / nidx;
      int64_t i = idx.i(j);
      if (i < 0)
        i += dimA;
      return (o * dimA + i) * inner + in_;
    }));
    return true;
  }
  if (op == "Slice") {
    const HostTensor &data = *in[0];
    SmallVector<int64_t> starts, ends, axes, steps, s, e, st;
    if (opset < 10) {
      starts = attrInts(node, "starts").value_or(SmallVector<int64_t>{});
      ends = attrInts(node, "ends").value_or(SmallVector<int64_t>{});
      axes = attrInts(node, "axes").value_or(SmallVector<int64_t>{});
    } else {
      starts = values(in[1]);
      ends = values(in[2]);
      axes = in.size() > 3 ? values(in[3]) : SmallVector<int64_t>{};
      steps = in.size() > 4 ? values(in[4]) : SmallVector<int64_t>{};
    }
    if (normalizeSlice(data.dims, starts, ends, axes, steps, s, e, st))
      return false;
    SmallVector<int64_t> dims;
    for (size_t d = 0; d < data.dims.size(); ++d)
      dims.push_back(std::max<int64_t>(
          0, st[d] > 0 ? (e[d] - s[d] + st[d] - 1) / st[d]
                       : (s[d] - e[d] - st[d] - 1) / -st[d]));
    if (numel(dims) > kFoldLimit)
      return false;
    SmallVector<int64_t> inStrides = strides(data.dims);
    outs.push_back(gatherElements(data, dims, [&](int64_t k) {
      int64_t src = 0;
      for (int64_t d = dims.size() - 1; d >= 0; --d) {
        src += (s[d] + (k % dims[d]) * st[d]) * inStrides[d];
        k /= dims[d];
      }
      return src;
    }));
    return true;
  }
  if (op == "Expand") {
    SmallVector<int64_t> target = values(in[1]), dims;
    HostTensor proto;
    proto.dims = target;
    if (!broadcastDims({in[0], &proto}, dims) || numel(dims) > kFoldLimit)
      return false;
    outs.push_back(gatherElements(*in[0], dims, [&](int64_t k) {
      return bcastIndex(*in[0], dims, k);
    }));
    return true;
  }
  if (op == "ConstantOfShape") {
    SmallVector<int64_t> dims = values(in[0]);
    for (int64_t d : dims)
      if (d < 0)
        return false;
    if (numel(dims) > kFoldLimit)
      return false;
    HostTensor value;
    value.dtype = TensorProto::FLOAT;
    value.dims = {1};
    value.floats = {0.0};
    for (const auto &a : node.attribute())
      if (a.name() == "value" && decodeTensor(a.t(), "", value))
        return false;
    if (value.numel() != 1)
      return false;
    outs.push_back(gatherElements(value, dims, [](int64_t) { return 0; }));
    return true;
  }
  if (op == "Range") {
    if (in[0]->numel() != 1 || in[1]->numel() != 1 || in[2]->numel() != 1)
      return false;
    double start = in[0]->f(0), limit = in[1]->f(0), delta = in[2]->f(0);
    if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) ||
        !std::isfinite(delta))
      return false;
    double count = std::ceil((limit - start) / delta);
    if (!(count <= (double)kFoldLimit))
      return false;
    int64_t n = std::max<int64_t>(0, (int64_t)count);
    if (n > kFoldLimit)
      return false;
    HostTensor r;
    r.dtype = in[0]->dtype;
    r.dims = {n};
    r.resize(n);
    for (int64_t k = 0; k < n; ++k) {
      if (r.isFloat())
        r.set(k, start + k * delta);
      else
        r.setInt(k, (uint64_t)in[0]->i(0) + (uint64_t)k * in[2]->i(0));
    }
    outs.push_back(std::move(r));
    return true;
  }
  return false;
}

} // namespace shardc::onnximport
