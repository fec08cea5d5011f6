//===- ImportShape.cpp - reshape, transpose, concat, split, slice, gather ---===//

#include "Importer.h"

using namespace mlir;

namespace shardc::onnximport {

/// ONNX Reshape's target over symbolic sizes: 0 copies the input dim, -1
/// is the element count divided exactly by the others.
static std::optional<std::string>
resolveSymReshape(ArrayRef<sym::Expr> in, ArrayRef<sym::Expr> target,
                  bool allowZero, SmallVectorImpl<sym::Expr> &out) {
  sym::Expr known(1);
  int64_t inferred = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    sym::Expr d = target[i];
    std::optional<int64_t> c = d.getConstant();
    if (c && *c == 0 && !allowZero) {
      if (i >= in.size())
        return "target dim " + std::to_string(i) +
               " is 0 (copy) but the input has rank " +
               std::to_string(in.size());
      d = in[i];
    } else if (c && *c == -1) {
      if (inferred >= 0)
        return std::string("target shape has more than one -1");
      inferred = i;
      out.push_back(sym::Expr(1));
      continue;
    } else if (c && *c < -1) {
      return "target dim " + std::to_string(*c) + " is invalid";
    }
    out.push_back(d);
    known = known * d;
  }
  sym::Expr total = sym::product(in);
  if (inferred >= 0) {
    std::optional<sym::Expr> q = total.divExact(known);
    if (!q)
      return "cannot infer the -1 dim: " + total.str() +
             " elements divided by " + known.str() +
             " is not exact for every value of the dynamic dims";
    out[inferred] = *q;
  }
  return std::nullopt;
}

static LogicalResult importReshape(NodeContext &c) {
  if (c.isSym(1) || graph::isSymbolic(c.type(0))) {
    std::optional<SmallVector<sym::Expr>> target;
    if (c.opset < 5) {
      target.emplace();
      for (int64_t v : c.getInts("shape"))
        target->push_back(sym::Expr(v));
    } else {
      target = c.symInts(1, "shape");
    }
    if (!target)
      return failure();
    SmallVector<sym::Expr> shape;
    if (auto err = resolveSymReshape(graph::dimsOf(c.type(0)).sym, *target,
                                     c.getInt("allowzero", 0), shape))
      return c.fail(*err);
    c.create("reshape", {c.in(0)},
             graph::shapeAttrs(&c.imp.ctx, "shape", c.symShape(shape)));
    return c.status();
  }
  SmallVector<int64_t> target;
  if (c.opset < 5) {
    target = c.getInts("shape");
  } else {
    auto v = c.ints(1, "shape");
    if (!v)
      return failure();
    target = *v;
  }
  SmallVector<int64_t> shape;
  if (auto err = resolveReshape(c.type(0).getShape(), target,
                                c.getInt("allowzero", 0), shape))
    return c.fail(*err);
  c.create("reshape", {c.in(0)}, {c.array("shape", shape)});
  return c.status();
}

static LogicalResult importTranspose(NodeContext &c) {
  int64_t rank = c.rank(0);
  SmallVector<int64_t> reversed;
  for (int64_t d = rank - 1; d >= 0; --d)
    reversed.push_back(d);
  SmallVector<int64_t> perm = c.getInts("perm", reversed);
  for (int64_t &p : perm)
    p = c.axis(p, rank, "perm entry");
  c.create("transpose", {c.in(0)}, {c.array("perm", perm)});
  return c.status();
}

static LogicalResult importConcat(NodeContext &c) {
  SmallVector<Value> inputs;
  for (int i = 0; i < c.numInputs(); ++i)
    if (c.has(i))
      inputs.push_back(c.in(i));
  if (inputs.empty())
    return c.fail("has no inputs");
  if (!c.attr("axis"))
    return c.fail("attribute 'axis' is required");
  int64_t rank = cast<RankedTensorType>(inputs[0].getType()).getRank();
  c.create("concat", inputs,
           {c.i64("axis", c.axis(c.getInt("axis", 0), rank))});
  return c.status();
}

static LogicalResult importSplit(NodeContext &c) {
  auto type = c.type(0);
  int64_t axis = c.axis(c.getInt("axis", 0), type.getRank());
  if (c.failed())
    return failure();
  SmallVector<int64_t> sizes;
  if (c.opset < 13) {
    sizes = c.getInts("split");
  } else if (c.has(1)) {
    auto v = c.ints(1, "split");
    if (!v)
      return failure();
    sizes = *v;
  }
  if (sizes.empty()) {
    int64_t n = c.opset >= 18 && c.attr("num_outputs")
                    ? c.getInt("num_outputs", 1)
                    : c.node.output_size();
    int64_t dim = type.getDimSize(axis);
    if (n <= 0)
      return c.fail("num_outputs must be positive");
    int64_t chunk = (dim + n - 1) / n;
    if (c.opset < 18 && dim % n)
      return c.fail("dim " + std::to_string(axis) + " of size " +
                    std::to_string(dim) + " does not split evenly into " +
                    std::to_string(n));
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  if ((int64_t)sizes.size() != c.node.output_size())
    return c.fail(std::to_string(sizes.size()) + " split sizes for " +
                  std::to_string(c.node.output_size()) + " outputs");
  c.create("split", {c.in(0)},
           {c.i64("axis", axis), c.array("sizes", sizes)});
  return c.status();
}

/// A slice whose bounds depend on dynamic dims (`position_ids[:, :seq]`,
/// GPT-2's `bias[:, :, k - q : k, :k]`, whose start is the past length with
/// a KV cache): steps of 1 on those axes; the starts' and ends' mirrors go
/// to graph.sym.
static LogicalResult importSymbolicSlice(NodeContext &c) {
  auto starts = c.symInts(1, "starts");
  auto ends = c.symInts(2, "ends");
  if (!starts || !ends)
    return failure();
  graph::SymShape data = graph::dimsOf(c.type(0));
  int64_t rank = data.size();
  SmallVector<int64_t> axes, steps;
  if (c.has(3)) {
    auto a = c.ints(3, "axes");
    if (!a)
      return failure();
    axes = *a;
  } else {
    for (size_t i = 0; i < starts->size(); ++i)
      axes.push_back(i);
  }
  if (c.has(4)) {
    auto st = c.ints(4, "steps");
    if (!st)
      return failure();
    steps = *st;
  }
  if (axes.size() != starts->size() || ends->size() != starts->size() ||
      (!steps.empty() && steps.size() != starts->size()))
    return c.fail("starts, ends, axes and steps differ in length");
  SmallVector<int64_t> st(rank, 1);
  SmallVector<sym::Expr> s(rank, sym::Expr(0)),
      e(data.sym.begin(), data.sym.end());
  SmallVector<int64_t> mins = c.imp.symbolMins();
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = c.axis(axes[i], rank, "slice axis");
    if (c.failed())
      return failure();
    if (seen[a])
      return c.fail("slice axis " + std::to_string(a) + " is repeated");
    seen[a] = true;
    if (!steps.empty() && steps[i] != 1)
      return c.fail("a slice by a step other than 1 along dynamic dims is "
                    "not supported yet");
    std::optional<int64_t> constStart = (*starts)[i].getConstant();
    std::optional<int64_t> end = (*ends)[i].getConstant();
    if (!data.sym[a].isConstant()) {
      // Along a dynamic dim: only the whole of it (an end past the bound,
      // or the dim's own size: Llama's `mask[..., :seq]`).
      bool whole = end ? *end >= data.bound[a] : (*ends)[i] == data.sym[a];
      if (constStart != 0 || !whole)
        return c.fail("slicing dynamic dim " + std::to_string(a) + " of " +
                      data.str(c.imp.symbolNames()) +
                      " other than whole is not supported yet");
      continue;
    }
    int64_t dim = data.bound[a];
    if (!constStart) {
      // A dynamic start (the past length): within the dim, and the end
      // past it, for every value of the symbols.
      sym::Expr start = (*starts)[i];
      graph::SymShape size = c.symShape({(*ends)[i] - start});
      graph::SymShape at = c.symShape({start});
      if (c.failed() || !start.isMonotoneSize(mins) ||
          !(*ends)[i].isMonotoneSize(mins) ||
          !size.sym[0].isMonotoneSize(mins) ||
          at.bound[0] + size.bound[0] > dim)
        return c.fail("slice " + start.str(c.imp.symbolNames()) + ":" +
                      (*ends)[i].str(c.imp.symbolNames()) + " of dim " +
                      std::to_string(a) + " (size " + std::to_string(dim) +
                      ") is not within the dim for every value of the "
                      "dynamic dims");
      s[a] = start;
      e[a] = (*ends)[i];
      continue;
    }
    int64_t start = *constStart;
    start =
        start < 0 ? std::max<int64_t>(0, start + dim) : std::min(start, dim);
    s[a] = sym::Expr(start);
    if (end) {
      e[a] = sym::Expr(*end < 0 ? std::max<int64_t>(0, *end + dim)
                                : std::min(*end, dim));
      continue;
    }
    // A dynamic end must stay within the dim and past the start for every
    // value of the symbols.
    graph::SymShape size = c.symShape({(*ends)[i] - sym::Expr(start)});
    if (!size.sym[0].isMonotoneSize(mins) || size.bound[0] + start > dim)
      return c.fail("slice end " + (*ends)[i].str(c.imp.symbolNames()) +
                    " of dim " + std::to_string(a) + " (size " +
                    std::to_string(dim) + ", start " + std::to_string(start) +
                    ") is not within the dim for every value of the dynamic "
                    "dims");
    e[a] = (*ends)[i];
  }
  SmallVector<NamedAttribute> attrs = graph::shapeAttrs(
      &c.imp.ctx, {{"starts", c.symShape(s)}, {"ends", c.symShape(e)}});
  attrs.push_back(c.array("steps", st));
  c.create("slice", {c.in(0)}, attrs);
  return c.status();
}

static LogicalResult importSlice(NodeContext &c) {
  if (c.opset >= 10 && (c.isSym(2) || graph::isSymbolic(c.type(0))))
    return importSymbolicSlice(c);
  SmallVector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    starts = c.getInts("starts");
    ends = c.getInts("ends");
    axes = c.getInts("axes");
  } else {
    auto s = c.ints(1, "starts"), e = c.ints(2, "ends");
    if (!s || !e)
      return failure();
    starts = *s;
    ends = *e;
    if (c.has(3)) {
      auto a = c.ints(3, "axes");
      if (!a)
        return failure();
      axes = *a;
    }
    if (c.has(4)) {
      auto st = c.ints(4, "steps");
      if (!st)
        return failure();
      steps = *st;
    }
  }
  SmallVector<int64_t> s, e, st;
  if (auto err = normalizeSlice(c.type(0).getShape(), starts, ends, axes,
                                steps, s, e, st))
    return c.fail(*err);
  c.create("slice", {c.in(0)},
           {c.array("starts", s), c.array("ends", e), c.array("steps", st)});
  return c.status();
}

static LogicalResult importSqueeze(NodeContext &c, bool squeeze) {
  SmallVector<int64_t> axes;
  if (c.opset < 13) {
    axes = c.getInts("axes");
  } else if (c.has(1)) {
    auto v = c.ints(1, "axes");
    if (!v)
      return failure();
    axes = *v;
  }
  auto type = c.type(0);
  int64_t rank = type.getRank() + (squeeze ? 0 : axes.size());
  if (!squeeze && axes.empty())
    return c.fail("axes are required");
  for (int64_t &a : axes)
    a = c.axis(a, rank, squeeze ? "squeeze axis" : "unsqueeze axis");
  if (squeeze && axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      if (type.getDimSize(d) == 1)
        axes.push_back(d);
  llvm::sort(axes);
  c.create(squeeze ? "squeeze" : "unsqueeze", {c.in(0)},
           {c.array("axes", axes)});
  return c.status();
}

static LogicalResult importFlatten(NodeContext &c) {
  int64_t rank = c.rank(0), axis = c.getInt("axis", 1);
  if (axis < -rank || axis > rank)
    return c.fail("axis " + std::to_string(axis) +
                  " is out of range for rank " + std::to_string(rank));
  if (axis < 0)
    axis += rank;
  c.create("flatten", {c.in(0)}, {c.i64("axis", axis)});
  return c.status();
}

static LogicalResult importExpand(NodeContext &c) {
  auto shape = c.symInts(1, "shape");
  if (!shape)
    return failure();
  c.create("expand", {c.in(0)},
           graph::shapeAttrs(&c.imp.ctx, "shape", c.symShape(*shape)));
  return c.status();
}

static LogicalResult importTrilu(NodeContext &c) {
  int64_t k = 0;
  if (c.has(1)) {
    auto v = c.scalar(1, "k");
    if (!v)
      return failure();
    // Any diagonal past the matrix keeps all or nothing; clamping keeps the
    // kernel's index arithmetic (i + k) from overflowing.
    auto x = c.type(0);
    int64_t bound = 1;
    if (x.getRank() >= 2)
      bound += x.getDimSize(x.getRank() - 1) + x.getDimSize(x.getRank() - 2);
    k = HostTensor::saturate(*v);
    k = std::clamp<int64_t>(k, -bound, bound);
  }
  c.create("trilu", {c.in(0)},
           {c.boolean("upper", c.getInt("upper", 1)), c.i64("k", k)});
  return c.status();
}

void registerShapeOps(HandlerMap &map) {
  map["Reshape"] = importReshape;
  map["Transpose"] = importTranspose;
  map["Concat"] = importConcat;
  map["Split"] = importSplit;
  map["Slice"] = importSlice;
  map["Gather"] = [](NodeContext &c) {
    int64_t axis = c.axis(c.getInt("axis", 0), c.rank(0));
    if (c.failed())
      return failure();
    // Constant indices are checked here; the generated code does not
    // bounds-check at run time.
    if (const HostTensor *idx = c.constant(1)) {
      int64_t dim = c.type(0).getDimSize(axis);
      for (int64_t k = 0; k < idx->numel(); ++k)
        if (idx->i(k) < -dim || idx->i(k) >= dim)
          return c.fail("index " + std::to_string(idx->i(k)) +
                        " (element " + std::to_string(k) +
                        " of the indices) is out of range for axis " +
                        std::to_string(axis) + " of size " +
                        std::to_string(dim));
    }
    c.create("gather", {c.in(0), c.in(1)}, {c.i64("axis", axis)});
    return c.status();
  };
  map["Squeeze"] = [](NodeContext &c) { return importSqueeze(c, true); };
  map["Unsqueeze"] = [](NodeContext &c) { return importSqueeze(c, false); };
  map["Flatten"] = importFlatten;
  map["Expand"] = importExpand;
  map["Trilu"] = importTrilu;
}

} // namespace shardc::onnximport
