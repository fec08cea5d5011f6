//===- FoldShapeOps.cpp - host evaluation of compile-time-known nodes -------===//
//
// Shapes are static, so the Shape/Gather/Concat/Unsqueeze/... chains that
// exporters emit to compute reshape targets, slice bounds and masks have
// compile-time values. This file maps such a node's ONNX form (opset-specific
// attributes and inputs, axis conventions) onto the graph dialect's constant
// evaluator (dialects/Graph/IR/ConstantEval.h), which computes it. Only ops
// that appear in such computations are folded; everything else is left to
// the graph dialect.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "dialects/Graph/IR/ShapeInference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

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
      return "target shape " + graph::shapeStr(shape) +
             " has more than 2^40 elements";
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

int64_t attrInt(const onnx::NodeProto &n, llvm::StringRef name,
                int64_t dflt) {
  for (const auto &a : n.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INT)
      return a.i();
  return dflt;
}

std::optional<SmallVector<int64_t>> attrInts(const onnx::NodeProto &n,
                                             llvm::StringRef name) {
  for (const auto &a : n.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INTS)
      return SmallVector<int64_t>(a.ints().begin(), a.ints().end());
  return std::nullopt;
}

SmallVector<int64_t> hostInts(const HostTensor *t) {
  SmallVector<int64_t> v;
  if (t)
    for (int64_t i = 0; i < t->numel(); ++i)
      v.push_back(t->i(i));
  return v;
}

/// The evaluator's function of an elementwise ONNX op.
static std::optional<graph::ElementwiseFn> elementwiseFn(llvm::StringRef op) {
  using graph::ElementwiseFn;
  return llvm::StringSwitch<std::optional<ElementwiseFn>>(op)
      .Case("Add", ElementwiseFn::Add)
      .Case("Sub", ElementwiseFn::Sub)
      .Case("Mul", ElementwiseFn::Mul)
      .Case("Div", ElementwiseFn::Div)
      .Case("Min", ElementwiseFn::Min)
      .Case("Max", ElementwiseFn::Max)
      .Case("Equal", ElementwiseFn::Equal)
      .Case("Less", ElementwiseFn::Less)
      .Case("Greater", ElementwiseFn::Greater)
      .Case("And", ElementwiseFn::And)
      .Case("Or", ElementwiseFn::Or)
      .Case("Not", ElementwiseFn::Not)
      .Case("Neg", ElementwiseFn::Neg)
      .Case("Abs", ElementwiseFn::Abs)
      .Case("Sqrt", ElementwiseFn::Sqrt)
      .Case("Cos", ElementwiseFn::Cos)
      .Case("Sin", ElementwiseFn::Sin)
      .Case("Floor", ElementwiseFn::Floor)
      .Case("Ceil", ElementwiseFn::Ceil)
      .Case("Round", ElementwiseFn::Round)
      .Default(std::nullopt);
}

/// The evaluation of one node, or nullopt when the importer does not fold
/// it (the op's handler then imports it, and reports bad input).
static std::optional<HostTensor> evaluate(const onnx::NodeProto &node,
                                          int64_t opset,
                                          ArrayRef<const HostTensor *> in,
                                          graph::EvalContext &ctx) {
  const std::string &op = node.op_type();
  if (auto fn = elementwiseFn(op)) {
    bool compare = op == "Equal" || op == "Less" || op == "Greater";
    bool binary = *fn < graph::ElementwiseFn::Not;
    // Variadic Min and Max fold with exactly two inputs.
    if (in.size() != (binary ? 2u : 1u))
      return std::nullopt;
    return graph::evalElementwise(ctx, *fn, in,
                                  compare ? ScalarType::Bool : in[0]->dtype);
  }
  if (op == "Where")
    return graph::evalWhere(ctx, *in[0], *in[1], *in[2]);
  if (op == "Identity")
    return *in[0];
  if (op == "Cast") {
    std::optional<ScalarType> to =
        graph::scalarTypeFromOnnx(attrInt(node, "to", 1));
    if (!to)
      return std::nullopt;
    return graph::evalCast(ctx, *in[0], *to);
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    auto axesOpt = opset < 13 ? attrInts(node, "axes")
                              : (in.size() > 1 && in[1]
                                     ? std::optional(hostInts(in[1]))
                                     : std::nullopt);
    SmallVector<int64_t> axes = axesOpt.value_or(SmallVector<int64_t>{});
    HostTensor r = *in[0];
    int64_t rank = r.dims.size() + (op == "Unsqueeze" ? axes.size() : 0);
    for (int64_t &a : axes) {
      if (a < -rank || a >= rank)
        return std::nullopt;
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
          return std::nullopt;
      }
      r.dims = dims;
    }
    return r;
  }
  if (op == "Reshape") {
    HostTensor r = *in[0];
    if (opset < 5 || !in[1] ||
        resolveReshape(in[0]->dims, hostInts(in[1]),
                       attrInt(node, "allowzero", 0), r.dims))
      return std::nullopt;
    return r;
  }
  if (op == "Concat") {
    int64_t rank = in[0]->dims.size(), axis = attrInt(node, "axis", 0);
    return graph::evalConcat(ctx, in, axis < 0 ? axis + rank : axis);
  }
  if (op == "Gather") {
    // An index out of range is not folded: the handler reports it.
    int64_t rank = in[0]->dims.size(), axis = attrInt(node, "axis", 0);
    return graph::evalGather(ctx, *in[0], *in[1], axis < 0 ? axis + rank : axis);
  }
  if (op == "Slice") {
    const HostTensor &data = *in[0];
    SmallVector<int64_t> starts, ends, axes, steps, s, e, st;
    if (opset < 10) {
      starts = attrInts(node, "starts").value_or(SmallVector<int64_t>{});
      ends = attrInts(node, "ends").value_or(SmallVector<int64_t>{});
      axes = attrInts(node, "axes").value_or(SmallVector<int64_t>{});
    } else {
      starts = hostInts(in[1]);
      ends = hostInts(in[2]);
      axes = in.size() > 3 ? hostInts(in[3]) : SmallVector<int64_t>{};
      steps = in.size() > 4 ? hostInts(in[4]) : SmallVector<int64_t>{};
    }
    if (normalizeSlice(data.dims, starts, ends, axes, steps, s, e, st))
      return std::nullopt;
    SmallVector<int64_t> dims;
    for (size_t d = 0; d < data.dims.size(); ++d)
      dims.push_back(std::max<int64_t>(
          0, st[d] > 0 ? (e[d] - s[d] + st[d] - 1) / st[d]
                       : (s[d] - e[d] - st[d] - 1) / -st[d]));
    return graph::evalSlice(ctx, data, s, st, dims);
  }
  if (op == "Expand") {
    SmallVector<int64_t> dims;
    if (mlir::failed(graph::broadcastShapes(std::nullopt, in[0]->dims,
                                      hostInts(in[1]), dims)))
      return std::nullopt;
    return graph::evalBroadcast(ctx, *in[0], dims);
  }
  if (op == "ConstantOfShape") {
    HostTensor value;
    value.dtype = ScalarType::F32;
    value.dims = {1};
    value.floats = {0.0};
    for (const auto &a : node.attribute())
      if (a.name() == "value" && decodeTensor(a.t(), "", value))
        return std::nullopt;
    return graph::evalFill(ctx, value, hostInts(in[0]));
  }
  if (op == "Range")
    return graph::evalRange(ctx, *in[0], *in[1], *in[2]);
  return std::nullopt;
}

bool foldNode(const onnx::NodeProto &node, int64_t opset,
              ArrayRef<const HostTensor *> in, std::vector<HostTensor> &outs,
              std::string &error) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return false;
  // Shape arithmetic must produce a value: what C++ leaves undefined takes
  // the importer's definition (saturate, then wrap).
  graph::EvalContext ctx;
  ctx.maxElements = kFoldLimit;
  ctx.undefined = graph::UndefinedPolicy::Define;
  std::optional<HostTensor> r = evaluate(node, opset, in, ctx);
  if (!r) {
    error = ctx.error;
    return false;
  }
  outs.push_back(std::move(*r));
  return true;
}

} // namespace shardc::onnximport
