//===- ImportSelection.cpp - topk, argmax, cumsum, one-hot, scatters ------===//

#include "Importer.h"

using namespace mlir;

namespace shardc::onnximport {

static LogicalResult importTopK(NodeContext &c) {
  int64_t k;
  if (c.opset < 10) {
    k = c.getInt("k", -1);
  } else {
    auto v = c.scalar(1, "K");
    if (!v)
      return failure();
    k = (int64_t)*v;
  }
  c.create("topk", {c.in(0)},
           {c.i64("k", k), c.i64("axis", c.axis(c.getInt("axis", -1), c.rank(0))),
            c.boolean("largest", c.getInt("largest", 1)),
            c.boolean("sorted", c.getInt("sorted", 1))});
  return c.status();
}

static LogicalResult importArgMax(NodeContext &c) {
  c.create("arg_max", {c.in(0)},
           {c.i64("axis", c.axis(c.getInt("axis", 0), c.rank(0))),
            c.boolean("keepdims", c.getInt("keepdims", 1)),
            c.boolean("select_last_index", c.getInt("select_last_index", 0))});
  return c.status();
}

// ArgMin of floats is the ArgMax of their negation: the same positions win,
// ties resolve alike (select_last_index as given), and a NaN, which both
// take as the extreme, stays NaN.
static LogicalResult importArgMin(NodeContext &c) {
  if (!isa<FloatType>(c.type(0).getElementType()))
    return c.fail("ArgMin of a non-float tensor is not supported");
  Operation *neg = c.create("neg", {c.in(0)});
  if (!neg)
    return failure();
  c.create("arg_max", {neg->getResult(0)},
           {c.i64("axis", c.axis(c.getInt("axis", 0), c.rank(0))),
            c.boolean("keepdims", c.getInt("keepdims", 1)),
            c.boolean("select_last_index", c.getInt("select_last_index", 0))});
  return c.status();
}

static LogicalResult importCumSum(NodeContext &c) {
  auto axis = c.scalar(1, "axis");
  if (!axis)
    return failure();
  c.create("cumsum", {c.in(0)},
           {c.i64("axis", c.axis((int64_t)*axis, c.rank(0))),
            c.boolean("exclusive", c.getInt("exclusive", 0)),
            c.boolean("reverse", c.getInt("reverse", 0))});
  return c.status();
}

/// OneHot(indices, depth, [off, on]) is where(indices == iota, on, off),
/// the iota laid along `axis`; negative indices count from `depth`, and an
/// index outside [-depth, depth) selects nothing. Depth must be known.
static LogicalResult importOneHot(NodeContext &c) {
  auto depth = c.scalar(1, "depth");
  if (!depth)
    return failure();
  if (*depth < 1 || *depth > kMaxDim)
    return c.fail("depth " + std::to_string((int64_t)*depth) +
                  " is not a positive dimension");
  const HostTensor *values = c.constant(2);
  if (!values)
    return c.fail("values (off, on) must be known at compile time");
  if (values->numel() != 2)
    return c.fail("values must hold 2 elements (off, on), got " +
                  std::to_string(values->numel()));
  RankedTensorType idxType = c.type(0);
  if (!idxType.getElementType().isSignlessInteger() ||
      idxType.getElementType().isInteger(1))
    return c.fail("indices of type " + dtypeName(onnxDtypeOf(
                      idxType.getElementType())) +
                  " are not supported (integers only)");
  int64_t rank = idxType.getRank() + 1;
  int64_t axis = c.axis(c.getInt("axis", -1), rank);
  if (c.failed())
    return failure();
  auto n = (int64_t)*depth;
  // indices + depth where negative, unsqueezed at `axis`.
  HostTensor d;
  d.dtype = *graph::scalarTypeFromOnnx(onnxDtypeOf(idxType.getElementType()));
  d.resize(1);
  d.setInt(0, n);
  HostTensor zero = d;
  zero.setInt(0, 0);
  Operation *neg = c.create("less", {c.in(0), c.constantOf(zero)});
  Operation *wrapped =
      neg ? c.create("add", {c.in(0), c.constantOf(d)}) : nullptr;
  Operation *idx = wrapped ? c.create("where", {neg->getResult(0),
                                                wrapped->getResult(0), c.in(0)})
                           : nullptr;
  Operation *expanded =
      idx ? c.create("unsqueeze", {idx->getResult(0)}, {c.array("axes", {axis})})
          : nullptr;
  // The iota [0, depth) with size-1 dims everywhere but `axis`.
  HostTensor iota = d;
  iota.dims.assign(rank, 1);
  iota.dims[axis] = n;
  iota.resize(n);
  for (int64_t i = 0; i < n; ++i)
    iota.setInt(i, i);
  Operation *hit = expanded ? c.create("equal", {expanded->getResult(0),
                                                 c.constantOf(iota)})
                            : nullptr;
  if (!hit)
    return failure();
  HostTensor off = *values, on = *values;
  off.dims.clear();
  on.dims.clear();
  off.resize(1);
  on.resize(1);
  if (values->isFloat()) {
    off.set(0, values->f(0));
    on.set(0, values->f(1));
  } else {
    off.setInt(0, values->i(0));
    on.setInt(0, values->i(1));
  }
  c.create("where", {hit->getResult(0), c.constantOf(on), c.constantOf(off)});
  return c.status();
}

static LogicalResult importGatherElements(NodeContext &c) {
  c.create("gather_elements", {c.in(0), c.in(1)},
           {c.i64("axis", c.axis(c.getInt("axis", 0), c.rank(0)))});
  return c.status();
}

/// The `reduction` attribute of a scatter, checked against what its opset
/// defines (none before 16; add, mul from 16; max, min from 18).
static std::optional<std::string> scatterReduction(NodeContext &c) {
  std::string r = c.getString("reduction", "none");
  if (c.failed())
    return std::nullopt;
  bool known = r == "none" || ((r == "add" || r == "mul") && c.opset >= 16) ||
               ((r == "max" || r == "min") && c.opset >= 18);
  if (!known) {
    (void)c.fail("reduction '" + printable(r) + "' is not defined at opset " +
                 std::to_string(c.opset) +
                 (c.opset >= 18   ? " (none, add, mul, max or min)"
                  : c.opset >= 16 ? " (none, add or mul)"
                                  : " (none)"));
    return std::nullopt;
  }
  return r;
}

/// ScatterElements, and the older Scatter (the same op without reduction).
static LogicalResult importScatterElements(NodeContext &c) {
  std::optional<std::string> reduction = scatterReduction(c);
  if (!reduction)
    return failure();
  c.create("scatter_elements", {c.in(0), c.in(1), c.in(2)},
           {c.i64("axis", c.axis(c.getInt("axis", 0), c.rank(0))),
            c.str("reduction", *reduction)});
  return c.status();
}

static LogicalResult importScatterND(NodeContext &c) {
  std::optional<std::string> reduction = scatterReduction(c);
  if (!reduction)
    return failure();
  c.create("scatter_nd", {c.in(0), c.in(1), c.in(2)},
           {c.str("reduction", *reduction)});
  return c.status();
}

void registerSelectionOps(HandlerMap &map) {
  map["GatherElements"] = importGatherElements;
  map["ScatterElements"] = importScatterElements;
  map["Scatter"] = importScatterElements;
  map["ScatterND"] = importScatterND;
  map["OneHot"] = importOneHot;
  map["TopK"] = importTopK;
  map["ArgMax"] = importArgMax;
  map["ArgMin"] = importArgMin;
  map["CumSum"] = importCumSum;
}

} // namespace shardc::onnximport
