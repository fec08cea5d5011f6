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

/// GatherND(data, indices, batch_dims b) with indices [..., k]: each
/// component j of an index is checked and wrapped by a gather from the
/// iota [0, d_j) (so an index outside [-d_j, d_j) fails the run with the
/// gather's message, naming this node, on every plan), the components make
/// a row number of the data's first b + k dims merged (the batch's rows
/// first), and a gather of those rows gives the result,
/// indices.shape[:-1] + data.shape[b + k:].
static LogicalResult importGatherND(NodeContext &c) {
  RankedTensorType data = c.type(0), idx = c.type(1);
  if (c.failed())
    return failure();
  int64_t b = c.getInt("batch_dims", 0);
  int64_t r = data.getRank(), q = idx.getRank();
  if (q < 1 || idx.isDynamicDim(q - 1))
    return c.fail("indices must have a static last dim");
  int64_t k = idx.getDimSize(q - 1);
  if (b < 0 || b >= q || b > r)
    return c.fail("batch_dims " + std::to_string(b) + " is outside [0, " +
                  std::to_string(std::min(q, r + 1)) + ")");
  if (k < 1 || b + k > r)
    return c.fail("indices of " + std::to_string(k) +
                  " components index past the data's rank " +
                  std::to_string(r) + " (batch_dims " + std::to_string(b) +
                  ")");
  if (!data.hasStaticShape() || !idx.hasStaticShape())
    return c.fail("GatherND needs static shapes");
  for (int64_t d = 0; d < b; ++d)
    if (data.getDimSize(d) != idx.getDimSize(d))
      return c.fail("batch dim " + std::to_string(d) + " of data (" +
                    std::to_string(data.getDimSize(d)) +
                    ") and indices (" + std::to_string(idx.getDimSize(d)) +
                    ") differ");
  auto i64Tensor = [](ArrayRef<int64_t> dims, auto value) {
    HostTensor t;
    t.dtype = graph::ScalarType::I64;
    t.dims.assign(dims.begin(), dims.end());
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    t.resize(n);
    for (int64_t i = 0; i < n; ++i)
      t.setInt(i, value(i));
    return t;
  };
  SmallVector<int64_t> rows(idx.getShape().drop_back()); // indices.shape[:-1]
  SmallVector<int64_t> starts(q, 0), ends(idx.getShape()), steps(q, 1);
  Value row;
  int64_t stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    int64_t dj = data.getDimSize(b + j);
    starts[q - 1] = j;
    ends[q - 1] = j + 1;
    Operation *comp = c.create("slice", {c.in(1)},
                               {c.array("starts", starts),
                                c.array("ends", ends), c.array("steps", steps)});
    Operation *flat =
        comp ? c.create("reshape", {comp->getResult(0)},
                        {c.array("shape", rows)})
             : nullptr;
    Value iota = c.constantOf(i64Tensor({dj}, [](int64_t i) { return i; }));
    Operation *wrapped =
        flat ? c.create("gather", {iota, flat->getResult(0)}, {c.i64("axis", 0)})
             : nullptr;
    if (!wrapped)
      return failure();
    Value term = wrapped->getResult(0);
    if (stride != 1) {
      Operation *m = c.create(
          "mul", {term, c.constantOf(i64Tensor({1}, [&](int64_t) {
                    return stride;
                  }))});
      if (!m)
        return failure();
      term = m->getResult(0);
    }
    if (row) {
      Operation *sum = c.create("add", {row, term});
      if (!sum)
        return failure();
      term = sum->getResult(0);
    }
    row = term;
    stride *= dj;
  }
  // The batch's rows: batch coordinate i (row-major over the b dims) starts
  // at row i * stride.
  int64_t batch = 1;
  for (int64_t d = 0; d < b; ++d)
    batch *= data.getDimSize(d);
  if (b > 0) {
    SmallVector<int64_t> dims(rows.begin(), rows.begin() + b);
    dims.resize(rows.size(), 1);
    Operation *sum = c.create(
        "add", {row, c.constantOf(i64Tensor(dims, [&](int64_t i) {
                  return i * stride;
                }))});
    if (!sum)
      return failure();
    row = sum->getResult(0);
  }
  SmallVector<int64_t> merged{batch * stride};
  for (int64_t d = b + k; d < r; ++d)
    merged.push_back(data.getDimSize(d));
  Operation *table =
      c.create("reshape", {c.in(0)}, {c.array("shape", merged)});
  if (!table)
    return failure();
  c.create("gather", {table->getResult(0), row}, {c.i64("axis", 0)});
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
  map["GatherND"] = importGatherND;
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
