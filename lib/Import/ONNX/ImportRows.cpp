//===- ImportRows.cpp - data-dependent rows (NonZero) ----------------------===//
//
// NonZero's output has a data-dependent size, and the graph dialect is
// static. Exporters emit NonZero where a model picks rows by a runtime mask:
// Hugging Face's dropless mixture-of-experts loop finds each expert's tokens
// with NonZero(one_hot(top_k)[e]), gathers them, runs the expert, and adds
// the results back with index_add (ScatterElements into zeros).
//
// The importer carries such a tensor padded: its data-dependent dim becomes
// the mask's dims, so every mask position has a row, and the mask says which
// rows exist. Row-wise ops (elementwise, matmul by a static weight, gathers
// by row indices, reshapes and transposes that keep the rows whole) compute
// the same rows on the padded tensor; the NonZero coordinates themselves
// are compile-time constants there. A ScatterElements whose indices are
// the rows' own coordinates returns to a static shape: the masked rows are
// summed into their destination, exactly as the scatter adds them, and no
// other row contributes. Anything else a data-dependent value meets is
// refused with the node named.
//
// Padded rows are computed and then dropped, so this form costs the dense
// work; graph-fuse-moe turns the expert loops into graph.moe, which computes
// only the routed rows.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace shardc::onnximport {

namespace {

/// The padded dims of an entry.
SmallVector<int64_t> paddedDims(Entry &e) {
  if (e.host)
    return e.host->dims;
  if (!e.value && e.initializer)
    return SmallVector<int64_t>(e.initializer->dims().begin(),
                                e.initializer->dims().end());
  return SmallVector<int64_t>(
      cast<RankedTensorType>(e.value.getType()).getShape());
}

/// An index tensor too large to hold expanded (rows x hidden for a long
/// context): a graph.expand of a host tensor, returned compact, its dims
/// aligned on the right to the expanded rank (ones where it broadcasts).
std::optional<HostTensor> compactIndices(Value v) {
  graph::ExpandOp expand;
  if (v)
    expand = v.getDefiningOp<graph::ExpandOp>();
  if (!expand)
    return std::nullopt;
  graph::EvalContext ctx;
  ctx.maxElements = kFoldLimit;
  std::optional<HostTensor> h = graph::evaluateValue(expand.getInput(), ctx);
  if (!h)
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(expand.getType()).getRank();
  h->dims.insert(h->dims.begin(), rank - h->dims.size(), 1);
  return h;
}

/// Whether `v` is zeros known at compile time without holding them: a
/// splat constant or a graph.constant_of_shape of zero.
bool isZeroFill(Value v) {
  if (!v)
    return false;
  Attribute value;
  if (auto c = v.getDefiningOp<graph::ConstantOfShapeOp>())
    value = c.getValue();
  else if (auto k = v.getDefiningOp<graph::ConstantOp>())
    value = k.getValue();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(value);
  if (!dense || !dense.isSplat())
    return false;
  if (dense.getElementType().isIntOrIndex())
    return dense.getSplatValue<APInt>().isZero();
  if (isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>().isZero();
  return false;
}

/// Drops the row dims of a host row tensor along which it is constant (the
/// NonZero coordinates vary along one mask dim each).
void shrinkRows(HostTensor &t, int64_t pos, int64_t m) {
  for (int64_t d = pos; d < pos + m; ++d) {
    int64_t n = t.dims[d];
    if (n == 1)
      continue;
    int64_t inner = product(ArrayRef(t.dims).drop_front(d + 1));
    int64_t outer = product(ArrayRef(t.dims).take_front(d));
    auto same = [&](int64_t a, int64_t b) {
      return t.isFloat() ? t.floats[a] == t.floats[b] : t.ints[a] == t.ints[b];
    };
    bool constant = true;
    for (int64_t o = 0; o < outer && constant; ++o)
      for (int64_t j = 1; j < n && constant; ++j)
        for (int64_t i = 0; i < inner && constant; ++i)
          constant = same((o * n + j) * inner + i, o * n * inner + i);
    if (!constant)
      continue;
    HostTensor r = t;
    r.dims[d] = 1;
    r.resize(outer * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t from = o * n * inner + i;
        if (t.isFloat())
          r.floats[o * inner + i] = t.floats[from];
        else
          r.ints[o * inner + i] = t.ints[from];
      }
    t = std::move(r);
  }
}

/// A NodeProto attribute, added if absent.
onnx::AttributeProto &attrOf(onnx::NodeProto &n, StringRef name,
                             onnx::AttributeProto::AttributeType type) {
  for (auto &a : *n.mutable_attribute())
    if (a.name() == name)
      return a;
  auto *a = n.add_attribute();
  a->set_name(name.str());
  a->set_type(type);
  return *a;
}

void setInt(onnx::NodeProto &n, StringRef name, int64_t v) {
  attrOf(n, name, onnx::AttributeProto::INT).set_i(v);
}

void setInts(onnx::NodeProto &n, StringRef name, ArrayRef<int64_t> v) {
  auto &a = attrOf(n, name, onnx::AttributeProto::INTS);
  a.clear_ints();
  for (int64_t x : v)
    a.add_ints(x);
}

HostTensor int64s(ArrayRef<int64_t> v) {
  HostTensor t;
  t.dtype = ScalarType::I64;
  t.dims = {static_cast<int64_t>(v.size())};
  t.ints.assign(v.begin(), v.end());
  return t;
}

/// Rewrites one node onto padded tensors: the rewritten node reads
/// synthetic entries, and its outputs are annotated with their row position.
class RowRewriter {
public:
  RowRewriter(GraphImporter &imp, const onnx::NodeProto &node, int index,
              int64_t opset)
      : imp(imp), node(node), index(index), opset(opset), rn(node),
        nc(imp, node, opset, imp.nodeLoc(node, index)) {
    nc.index = index;
  }
  ~RowRewriter() {
    for (const std::string &n : synthetic)
      imp.values.erase(n);
  }

  LogicalResult run();

private:
  GraphImporter &imp;
  const onnx::NodeProto &node;
  int index;
  int64_t opset;
  onnx::NodeProto rn;
  NodeContext nc;
  std::shared_ptr<RowSet> set;
  std::vector<std::string> synthetic;
  /// Row position of each output of the rewritten node (-1: static).
  SmallVector<int64_t> outPos;

  int64_t m() const { return set->dims.size(); }
  Entry &in(int i) { return *imp.lookup(node.input(i)); }
  /// The ONNX rank of input i.
  int64_t rank(int i) {
    Entry &e = in(i);
    int64_t r = paddedDims(e).size();
    return e.hasRows() ? r - m() + 1 : r;
  }
  /// The ONNX dims of input i, kRowCount at its data-dependent dim.
  SmallVector<int64_t> onnxDims(int i) {
    SmallVector<int64_t> dims = paddedDims(in(i));
    if (in(i).hasRows()) {
      auto first = dims.begin() + in(i).rowPos;
      *first = kRowCount;
      dims.erase(first + 1, first + m());
    }
    return dims;
  }
  /// The padded axis of ONNX axis `a` (not the row axis) of a row tensor.
  int64_t padAxis(int64_t a, int64_t pos) const {
    return a < pos ? a : a + m() - 1;
  }
  std::string inputName(int i) { return "'" + printable(node.input(i)) + "'"; }

  /// Makes input i of the rewritten node read `e`.
  /// The outputs stay values even where the evaluator could fold them.
  bool keepUnfolded = false;
  void replaceInput(int i, Entry e) {
    std::string name = "\x1frows." + std::to_string(imp.values.size()) + "." +
                       std::to_string(synthetic.size());
    imp.values[name] = std::move(e);
    synthetic.push_back(name);
    rn.set_input(i, name);
  }
  void replaceInput(int i, HostTensor t) {
    Entry e;
    e.host = std::make_shared<HostTensor>(std::move(t));
    replaceInput(i, std::move(e));
  }
  /// Input i reshaped (padded) to `dims`, as a new synthetic input.
  LogicalResult reshapeInput(int i, ArrayRef<int64_t> dims) {
    Entry &e = in(i);
    Entry r;
    if (e.host) {
      r.host = std::make_shared<HostTensor>(*e.host);
      r.host->dims.assign(dims.begin(), dims.end());
    } else {
      Value v = imp.materialize(e, node.input(i));
      Operation *op = nc.create("reshape", {v}, {nc.array("shape", dims)});
      if (!op)
        return failure();
      r.value = op->getResult(0);
      // create() bound the node's first output: undo it.
      imp.values.erase(node.output(0));
    }
    replaceInput(i, std::move(r));
    return success();
  }
  LogicalResult refuse(const Twine &why) {
    return nc.fail(why + " (a data-dependent row count from " + set->source +
                   ")");
  }

  LogicalResult elementwise();
  LogicalResult matmul();
  LogicalResult gemm();
  LogicalResult transpose();
  LogicalResult squeeze(bool unsqueeze);
  LogicalResult split();
  LogicalResult gather();
  LogicalResult reshape();
  LogicalResult expand();
  LogicalResult shape();
  LogicalResult rowCountOp();
  LogicalResult scatterElements();
  LogicalResult finish();
};

LogicalResult RowRewriter::run() {
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty() || !in(i).rows)
      continue;
    if (set && set != in(i).rows)
      return nc.fail("combines the rows of " + set->source + " and " +
                     in(i).rows->source +
                     ", whose counts are unrelated at compile time");
    set = in(i).rows;
  }
  const std::string &op = node.op_type();
  bool rowCountOnly = llvm::all_of(llvm::seq(0, node.input_size()), [&](int i) {
    return node.input(i).empty() || !in(i).hasRows();
  });
  // Shape arithmetic on a row count: the count moves as a value.
  if (rowCountOnly && op != "Reshape" && op != "Expand")
    return rowCountOp();
  static const llvm::StringSet<> elementwiseOps = {
      "Add",  "Sub",  "Mul",     "Div",  "Pow",     "Equal",   "Less",
      "Greater", "And", "Or",    "Where", "Max",    "Min",     "Not",
      "Neg",  "Abs",  "Sqrt",    "Exp",  "Log",     "Erf",     "Tanh",
      "Sigmoid", "Relu", "Cast", "Cos",  "Sin",     "Identity", "Reciprocal"};
  if (elementwiseOps.contains(op))
    return elementwise();
  if (op == "MatMul")
    return matmul();
  if (op == "Gemm")
    return gemm();
  if (op == "Transpose")
    return transpose();
  if (op == "Squeeze" || op == "Unsqueeze")
    return squeeze(op == "Unsqueeze");
  if (op == "Split")
    return split();
  if (op == "Gather")
    return gather();
  if (op == "Reshape")
    return reshape();
  if (op == "Expand")
    return expand();
  if (op == "Shape")
    return shape();
  if (op == "ScatterElements")
    return scatterElements();
  return refuse("'" + op +
                "' on a tensor with data-dependent rows is not supported; "
                "such tensors go through row-wise ops, gathers, reshapes and "
                "transposes that keep the rows, and a ScatterElements back "
                "to a static shape");
}

LogicalResult RowRewriter::elementwise() {
  int64_t outRank = 0, fromRight = -1;
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty())
      continue;
    if (in(i).isRowCount())
      return refuse("arithmetic on a row count is not supported");
    outRank = std::max(outRank, rank(i));
    if (!in(i).hasRows())
      continue;
    int64_t f = rank(i) - in(i).rowPos;
    if (fromRight >= 0 && f != fromRight)
      return refuse("inputs whose data-dependent dims do not line up");
    fromRight = f;
  }
  // A static input that reaches the row axis has size 1 there: it gets one
  // size-1 dim per mask dim.
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty() || in(i).hasRows() || rank(i) < fromRight)
      continue;
    SmallVector<int64_t> dims = paddedDims(in(i));
    int64_t at = dims.size() - fromRight;
    if (dims[at] != 1)
      return refuse("input " + inputName(i) + " has size " +
                    std::to_string(dims[at]) +
                    " where the other input's rows are");
    dims.insert(dims.begin() + at, m() - 1, 1);
    if (failed(reshapeInput(i, dims)))
      return failure();
  }
  outPos.assign(node.output_size(), outRank - fromRight);
  return finish();
}

LogicalResult RowRewriter::matmul() {
  if (in(1).hasRows())
    return refuse("a matmul whose right operand has data-dependent rows is "
                  "not supported");
  int64_t pos = in(0).rowPos, r0 = rank(0), r1 = rank(1);
  if (r0 < 2 || pos == r0 - 1)
    return refuse("a matmul that contracts the data-dependent dim is not "
                  "supported");
  if (r1 > r0 - pos)
    return refuse("the right operand's batch dims reach the data-dependent "
                  "dim");
  outPos.assign(1, pos);
  return finish();
}

/// Gemm(A, B, C) with A's rows data-dependent and B, C static (nn.Linear
/// with a bias on 2-D rows): row-wise, imported as a matmul and an add on
/// the padded rows (importGemm).
LogicalResult RowRewriter::gemm() {
  if (in(1).hasRows() || (node.input_size() > 2 && !node.input(2).empty() &&
                          in(2).hasRows()))
    return refuse("a Gemm whose B or C has data-dependent rows is not "
                  "supported");
  if (in(0).rowPos != 0 || attrInt(node, "transA", 0))
    return refuse("a Gemm that contracts the data-dependent dim is not "
                  "supported");
  outPos.assign(1, 0);
  return finish();
}

LogicalResult RowRewriter::transpose() {
  int64_t r = rank(0), pos = in(0).rowPos;
  SmallVector<int64_t> perm = attrInts(node, "perm").value_or(
      SmallVector<int64_t>{});
  if (perm.empty())
    for (int64_t i = r - 1; i >= 0; --i)
      perm.push_back(i);
  if ((int64_t)perm.size() != r)
    return nc.fail("perm has " + std::to_string(perm.size()) +
                   " entries for rank " + std::to_string(r));
  SmallVector<int64_t> padded;
  int64_t out = -1;
  for (int64_t j = 0; j < r; ++j) {
    if (perm[j] < 0 || perm[j] >= r)
      return nc.fail("perm entry " + std::to_string(perm[j]) +
                     " is out of range");
    if (perm[j] == pos) {
      out = j;
      for (int64_t k = 0; k < m(); ++k)
        padded.push_back(pos + k);
    } else {
      padded.push_back(padAxis(perm[j], pos));
    }
  }
  setInts(rn, "perm", padded);
  outPos.assign(1, out);
  return finish();
}

LogicalResult RowRewriter::squeeze(bool unsqueeze) {
  int64_t r = rank(0), pos = in(0).rowPos;
  SmallVector<int64_t> axes;
  bool axesInput = opset >= 13;
  if (axesInput && node.input_size() > 1 && !node.input(1).empty()) {
    HostTensor *h = imp.hostOf(in(1));
    if (!h)
      return nc.fail("axes must be known at compile time");
    axes = hostInts(h);
  } else if (!axesInput) {
    axes = attrInts(node, "axes").value_or(SmallVector<int64_t>{});
  }
  int64_t outRank = unsqueeze ? r + axes.size() : r;
  for (int64_t &a : axes) {
    a = nc.axis(a, outRank, unsqueeze ? "unsqueeze axis" : "squeeze axis");
    if (nc.failed())
      return failure();
  }
  SmallVector<int64_t> padded;
  int64_t out = pos;
  if (unsqueeze) {
    llvm::sort(axes);
    // The input dim `pos` lands after every inserted axis before it.
    for (int64_t a : axes)
      if (a <= out)
        ++out;
    for (int64_t a : axes)
      padded.push_back(a < out ? a : a + m() - 1);
  } else {
    if (axes.empty()) {
      SmallVector<int64_t> dims = paddedDims(in(0));
      for (int64_t a = 0; a < r; ++a)
        if (a != pos && dims[padAxis(a, pos)] == 1)
          axes.push_back(a);
    }
    for (int64_t a : axes) {
      if (a == pos)
        return refuse("squeezing the data-dependent dim is not supported");
      padded.push_back(padAxis(a, pos));
      if (a < pos)
        --out;
    }
  }
  if (axesInput) {
    if (rn.input_size() < 2)
      rn.add_input("");
    replaceInput(1, int64s(padded));
  } else {
    setInts(rn, "axes", padded);
  }
  outPos.assign(1, out);
  return finish();
}

LogicalResult RowRewriter::split() {
  int64_t pos = in(0).rowPos;
  int64_t axis = nc.axis(attrInt(node, "axis", 0), rank(0));
  if (nc.failed())
    return failure();
  if (axis == pos)
    return refuse("splitting the data-dependent dim is not supported");
  setInt(rn, "axis", padAxis(axis, pos));
  outPos.assign(node.output_size(), pos);
  HostTensor *h = imp.hostOf(in(0));
  if (!h)
    return finish();
  // Coordinates split on the host (the folders do not split).
  int64_t pa = padAxis(axis, pos), n = h->dims[pa];
  SmallVector<int64_t> sizes;
  if (opset >= 13 && node.input_size() > 1 && !node.input(1).empty()) {
    HostTensor *s = imp.hostOf(in(1));
    if (!s)
      return nc.fail("split sizes must be known at compile time");
    sizes = hostInts(s);
  } else if (auto attr = attrInts(node, "split")) {
    sizes = *attr;
  } else {
    int64_t parts = node.output_size(), each = (n + parts - 1) / parts;
    for (int64_t k = 0; k < parts; ++k)
      sizes.push_back(std::max<int64_t>(0, std::min(each, n - k * each)));
  }
  int64_t total = 0;
  bool negative = false;
  for (int64_t v : sizes) {
    negative |= v < 0;
    total += v;
  }
  if ((int64_t)sizes.size() != node.output_size() || negative || total != n)
    return nc.fail("split sizes do not add up to the axis size " +
                   std::to_string(n));
  int64_t outer = product(ArrayRef(h->dims).take_front(pa)),
          inner = product(ArrayRef(h->dims).drop_front(pa + 1));
  for (int64_t k = 0, start = 0; k < (int64_t)sizes.size();
       start += sizes[k], ++k) {
    HostTensor t = *h;
    t.dims[pa] = sizes[k];
    t.resize(outer * sizes[k] * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < sizes[k]; ++j)
        for (int64_t i = 0; i < inner; ++i)
          t.setInt((o * sizes[k] + j) * inner + i,
                   h->i((o * n + start + j) * inner + i));
    shrinkRows(t, pos, m());
    Entry e;
    e.host = std::make_shared<HostTensor>(std::move(t));
    e.rows = set;
    e.rowPos = pos;
    imp.values[node.output(k)] = std::move(e);
  }
  return success();
}

LogicalResult RowRewriter::gather() {
  int64_t axis = attrInt(node, "axis", 0);
  // (Gathers from a row count alone went to rowCountOp.)
  if (in(1).isRowCount() || in(0).isRowCount())
    return refuse("a gather that mixes rows with a row count is not "
                  "supported");
  if (in(0).hasRows() && in(1).hasRows())
    return refuse("a gather of data-dependent rows by data-dependent "
                  "indices is not supported");
  if (in(1).hasRows()) {
    // Static data at row indices: the rows land at `axis`.
    axis = nc.axis(axis, rank(0));
    if (nc.failed())
      return failure();
    setInt(rn, "axis", axis);
    outPos.assign(1, axis + in(1).rowPos);
    return finish();
  }
  int64_t pos = in(0).rowPos;
  axis = nc.axis(axis, rank(0));
  if (nc.failed())
    return failure();
  if (axis == pos)
    return refuse("gathering along the data-dependent dim is not supported");
  setInt(rn, "axis", padAxis(axis, pos));
  outPos.assign(1, axis < pos ? pos + rank(1) - 1 : pos);
  return finish();
}

LogicalResult RowRewriter::reshape() {
  if (!in(0).hasRows())
    return refuse("a static tensor reshaped to a data-dependent shape is "
                  "not supported");
  HostTensor *h = imp.hostOf(in(1));
  if (!h)
    return nc.fail("the shape must be known at compile time");
  int64_t pos = in(0).rowPos, r = rank(0);
  SmallVector<int64_t> in0 = paddedDims(in(0)), dims = onnxDims(0);
  SmallVector<int64_t> target = hostInts(h);
  bool allowZero = attrInt(node, "allowzero", 0) != 0;
  int64_t at = -1;
  for (int64_t j = 0; j < (int64_t)target.size(); ++j) {
    if (target[j] == 0 && !allowZero) {
      if (j >= r)
        return nc.fail("shape entry " + std::to_string(j) +
                       " copies a dim the input does not have");
      target[j] = dims[j];
    }
    if (target[j] == kRowCount || target[j] == -1) {
      if (at >= 0)
        return refuse("a shape with two unknown dims");
      at = j;
    } else if (target[j] < 0) {
      return nc.fail("shape entry " + std::to_string(target[j]) +
                     " is negative");
    }
  }
  if (at < 0)
    return refuse("a static shape cannot hold a data-dependent number of "
                  "rows");
  // The rows stay whole: what precedes and follows them keeps its size.
  ArrayRef<int64_t> d(dims), t(target);
  int64_t beforeIn = product(d.take_front(pos)),
          afterIn = product(d.drop_front(pos + 1));
  int64_t beforeOut = product(t.take_front(at)),
          afterOut = product(t.drop_front(at + 1));
  if (beforeIn != beforeOut || afterIn != afterOut)
    return refuse("a reshape that mixes the data-dependent dim with static "
                  "ones is not supported");
  SmallVector<int64_t> padded(t.take_front(at));
  for (int64_t k = 0; k < m(); ++k)
    padded.push_back(in0[pos + k]);
  padded.append(t.begin() + at + 1, t.end());
  replaceInput(1, int64s(padded));
  setInt(rn, "allowzero", 0);
  outPos.assign(1, at);
  return finish();
}

LogicalResult RowRewriter::expand() {
  HostTensor *h = imp.hostOf(in(1));
  if (!h)
    return nc.fail("the shape must be known at compile time");
  SmallVector<int64_t> shape = hostInts(h);
  SmallVector<int64_t> in0 = paddedDims(in(0)), dims = onnxDims(0);
  int64_t r = rank(0), pos = in(0).hasRows() ? in(0).rowPos : -1;
  int64_t outRank = std::max<int64_t>(r, shape.size());
  // Align both on the right; the row count broadcasts only against 1.
  int64_t out = -1;
  SmallVector<int64_t> padded;
  for (int64_t j = 0; j < outRank; ++j) {
    int64_t a = j - (outRank - r), s = j - (outRank - (int64_t)shape.size());
    int64_t di = a >= 0 ? dims[a] : 1, si = s >= 0 ? shape[s] : 1;
    if (di == kRowCount || si == kRowCount) {
      int64_t other = di == kRowCount ? si : di;
      if (other != 1 && other != kRowCount)
        return refuse("broadcasting the data-dependent dim against " +
                      std::to_string(other));
      out = j;
      // The padded input's row dims, or ones for a static input.
      for (int64_t k = 0; k < m(); ++k)
        padded.push_back(pos >= 0 ? in0[pos + k] : 1);
      continue;
    }
    padded.push_back(si);
  }
  replaceInput(1, int64s(padded));
  outPos.assign(1, out);
  // Coordinates broadcast over a wide dim (index_add's indices, rows x
  // hidden) stay a graph.expand of the compact ones: a ScatterElements
  // checks them compact, and folding them would copy rows x hidden
  // integers per expert and layer.
  if (in(0).host && product(padded) > graph::kFoldCap) {
    Entry compact;
    compact.value = imp.materialize(in(0), node.input(0));
    replaceInput(0, std::move(compact));
    keepUnfolded = true;
  }
  return finish();
}

LogicalResult RowRewriter::shape() {
  int64_t r = rank(0);
  SmallVector<int64_t> dims = onnxDims(0);
  int64_t start = attrInt(node, "start", 0), end = attrInt(node, "end", r);
  start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
  end = std::clamp<int64_t>(end < 0 ? end + r : end, 0, r);
  SmallVector<int64_t> v(dims.begin() + start,
                         dims.begin() + std::max(start, end));
  nc.bindHost(0, int64s(v));
  Entry &e = imp.values[node.output(0)];
  if (llvm::is_contained(v, kRowCount))
    e.rows = set;
  return success();
}

/// Shape vectors holding a row count go through the ops that move values
/// (the count stays a marker); arithmetic on it is refused.
LogicalResult RowRewriter::rowCountOp() {
  static const llvm::StringSet<> moves = {"Gather", "Concat", "Slice",
                                          "Unsqueeze", "Squeeze", "Identity",
                                          "Cast"};
  if (!moves.contains(node.op_type()))
    return refuse("'" + node.op_type() +
                  "' on a shape that holds a data-dependent row count is not "
                  "supported");
  for (int i = 0; i < node.input_size(); ++i)
    if (!node.input(i).empty() && !imp.hostOf(in(i)))
      return refuse("a row count mixed with a runtime tensor");
  if (failed(imp.dispatchNode(node, index, opset)))
    return failure();
  for (const auto &o : node.output()) {
    Entry *e = imp.lookup(o);
    if (e && e->host && llvm::is_contained(hostInts(e->host.get()), kRowCount))
      e->rows = set;
  }
  return success();
}

LogicalResult RowRewriter::scatterElements() {
  if (in(0).hasRows() || !in(1).hasRows() || !in(2).hasRows())
    return refuse("a ScatterElements returns to a static shape only when its "
                  "data is static and its indices and updates are rows");
  std::string reduction = "none";
  for (const auto &a : node.attribute())
    if (a.name() == "reduction")
      reduction = a.s();
  if (reduction != "none" && reduction != "add")
    return refuse("a ScatterElements with reduction '" + reduction +
                  "' is not supported");
  int64_t r = rank(0), pos = in(1).rowPos;
  int64_t axis = nc.axis(attrInt(node, "axis", 0), r);
  if (nc.failed())
    return failure();
  if (rank(1) != r || rank(2) != r || in(2).rowPos != pos || axis != pos)
    return refuse("a ScatterElements whose rows are not along its axis is "
                  "not supported");
  SmallVector<int64_t> data = paddedDims(in(0)), upd = paddedDims(in(2));
  for (int64_t a = 0; a < r; ++a)
    if (a != pos && upd[padAxis(a, pos)] != data[a])
      return refuse("updates of shape smaller than the data's are not "
                    "supported");
  // The indices must be the rows' own coordinate along one mask dim, which
  // then indexes the data's axis.
  // (Row tensors computed from the coordinates alone are host tensors:
  // finish() evaluates them.)
  // Indices too large to fold are checked compact: broadcasting repeats
  // them along the dims where they have size 1, which must not be the row
  // dim they index by (checked against the expanded dims, `full`).
  HostTensor *idx = imp.hostOf(in(1));
  std::optional<HostTensor> compact;
  SmallVector<int64_t> full;
  if (!idx && (compact = compactIndices(in(1).value))) {
    idx = &*compact;
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(in(1).value.getType()).getShape();
    full.assign(shape.begin(), shape.end());
  }
  if (!idx)
    return refuse("the scatter indices must be the NonZero coordinates");
  if (full.empty())
    full = idx->dims;
  int64_t along = -1;
  SmallVector<int64_t> idims = idx->dims;
  const int64_t numel = idx->numel();
  for (int64_t k = 0; k < m() && along < 0; ++k) {
    if (set->dims[k] != data[axis] ||
        (idims[pos + k] != set->dims[k] && set->dims[k] != 1) ||
        full[pos + k] != idims[pos + k])
      continue;
    bool ok = true;
    SmallVector<int64_t> coord(idims.size(), 0);
    for (int64_t e = 0; e < numel && ok; ++e) {
      int64_t v = idx->i(e);
      if (v < 0)
        v += data[axis];
      ok = v == coord[pos + k];
      for (int64_t d = idims.size() - 1; d >= 0; --d) {
        if (++coord[d] < idims[d])
          break;
        coord[d] = 0;
      }
    }
    if (ok)
      along = k;
  }
  if (along < 0)
    return refuse("the scatter indices are not the rows' own NonZero "
                  "coordinates");
  // sum over the other mask dims of where(mask, updates, 0).
  Value updates = imp.materialize(in(2), node.input(2));
  Type elem = cast<RankedTensorType>(updates.getType()).getElementType();
  SmallVector<int64_t> maskShape(pos, 1);
  maskShape.append(set->dims.begin(), set->dims.end());
  maskShape.append(r - pos - 1, 1);
  Operation *mask =
      nc.create("reshape", {set->mask}, {nc.array("shape", maskShape)});
  Value zero = nc.zero(onnxDtypeOf(elem));
  Operation *kept =
      mask ? nc.create("where", {mask->getResult(0), updates, zero}) : nullptr;
  SmallVector<int64_t> axes;
  for (int64_t k = 0; k < m(); ++k)
    if (k != along)
      axes.push_back(pos + k);
  Operation *sum = kept;
  if (kept && !axes.empty())
    sum = nc.create("reduce_sum", {kept->getResult(0)},
                    {nc.array("axes", axes), nc.boolean("keepdims", false)});
  if (!sum)
    return failure();
  Value result = sum->getResult(0);
  Value dataValue;
  HostTensor *dataHost = imp.hostOf(in(0));
  bool zeroData =
      dataHost ? (dataHost->isFloat()
                      ? llvm::all_of(dataHost->floats,
                                     [](double v) { return v == 0; })
                      : llvm::all_of(dataHost->ints,
                                     [](int64_t v) { return v == 0; }))
               : isZeroFill(in(0).value);
  if (!zeroData || reduction == "add") {
    dataValue = imp.materialize(in(0), node.input(0));
    Operation *out = nullptr;
    if (reduction == "add") {
      out = nc.create("add", {dataValue, result});
    } else {
      // Rows that exist replace their destination; others keep the data.
      HostTensor one;
      one.dtype = ScalarType::F32;
      one.resize(1);
      one.set(0, 1);
      Operation *count = nc.create(
          "where", {mask->getResult(0), nc.constantOf(one), nc.zero(1)});
      if (count && !axes.empty())
        count = nc.create("reduce_sum", {count->getResult(0)},
                          {nc.array("axes", axes),
                           nc.boolean("keepdims", false)});
      Operation *hit =
          count ? nc.create("greater", {count->getResult(0), nc.zero(1)})
                : nullptr;
      out = hit ? nc.create("where", {hit->getResult(0), result, dataValue})
                : nullptr;
    }
    if (!out)
      return failure();
    result = out->getResult(0);
  }
  nc.bind(0, result);
  return success();
}

/// Dispatches the rewritten node and moves its outputs to the real names,
/// annotated with their rows.
LogicalResult RowRewriter::finish() {
  SmallVector<std::string> outs;
  for (int i = 0; i < rn.output_size(); ++i) {
    if (rn.output(i).empty()) {
      outs.push_back("");
      continue;
    }
    std::string name = "\x1frows.out." + std::to_string(i) + "." +
                       std::to_string(imp.values.size());
    synthetic.push_back(name);
    rn.set_output(i, name);
    outs.push_back(name);
  }
  if (failed(imp.dispatchNode(rn, index, opset)))
    return failure();
  for (int i = 0; i < rn.output_size(); ++i) {
    if (outs[i].empty())
      continue;
    Entry *e = imp.lookup(outs[i]);
    if (!e)
      return nc.fail("output '" + printable(node.output(i)) +
                     "' is not supported");
    Entry out = *e;
    out.rows = set;
    out.rowPos = outPos[i];
    // Keep what is computed from the coordinates alone a host tensor (the
    // evaluator knows ops the importer's folder does not, such as Split).
    if (!out.host && out.value && !keepUnfolded) {
      graph::EvalContext ctx;
      ctx.maxElements = kFoldLimit;
      if (auto h = graph::evaluateValue(out.value, ctx)) {
        out.host = std::make_shared<HostTensor>(std::move(*h));
        out.value = Value();
      }
    }
    if (out.host) {
      auto h = std::make_shared<HostTensor>(*out.host);
      shrinkRows(*h, out.rowPos, m());
      out.host = h;
    }
    imp.values[node.output(i)] = std::move(out);
  }
  return success();
}

/// NonZero of a known tensor folds; of a runtime one, its coordinates are
/// constants over the padded rows, and its mask says which rows exist.
LogicalResult importNonZero(NodeContext &c) {
  RankedTensorType type = c.type(0);
  int64_t r = type.getRank(), n = type.getNumElements();
  if (r == 0)
    return c.fail("NonZero of a scalar is not supported");
  if (n * r > kFoldLimit)
    return c.fail("NonZero of " + std::to_string(n) +
                  " elements: its coordinates exceed the importer's limit");
  ArrayRef<int64_t> dims = type.getShape();
  // Coordinates [r, dims...]: entry (d, i...) is i_d.
  HostTensor coords;
  coords.dtype = ScalarType::I64;
  coords.dims = {r};
  coords.dims.append(dims.begin(), dims.end());
  coords.resize(r * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t d = r - 1, rest = i; d >= 0; --d) {
      coords.setInt(d * n + i, rest % dims[d]);
      rest /= dims[d];
    }
  if (const HostTensor *h = c.constant(0)) {
    // Known: the columns of the nonzero elements.
    SmallVector<int64_t> hits;
    for (int64_t i = 0; i < n; ++i)
      if (h->isFloat() ? h->f(i) != 0 : h->i(i) != 0)
        hits.push_back(i);
    HostTensor out;
    out.dtype = ScalarType::I64;
    out.dims = {r, (int64_t)hits.size()};
    out.resize(r * hits.size());
    for (int64_t d = 0; d < r; ++d)
      for (size_t j = 0; j < hits.size(); ++j)
        out.setInt(d * hits.size() + j, coords.ints[d * n + hits[j]]);
    c.bindHost(0, std::move(out));
    return success();
  }
  Value mask = c.in(0);
  if (!type.getElementType().isInteger(1)) {
    Value zero = c.zero(onnxDtypeOf(type.getElementType()));
    Operation *eq = zero ? c.create("equal", {c.in(0), zero}) : nullptr;
    Operation *ne = eq ? c.create("not", {eq->getResult(0)}) : nullptr;
    if (!ne)
      return failure();
    mask = ne->getResult(0);
  }
  auto set = std::make_shared<RowSet>();
  set->mask = mask;
  set->dims.assign(dims.begin(), dims.end());
  set->source = "NonZero '" +
                printable(c.node.name().empty() ? c.node.output(0)
                                                : c.node.name()) +
                "'";
  // Each coordinate varies along its own mask dim, so these do not shrink
  // until a Split or Gather takes one.
  c.bindHost(0, std::move(coords));
  Entry &e = c.imp.values[c.node.output(0)];
  e.rows = set;
  e.rowPos = 1;
  return success();
}

} // namespace

LogicalResult GraphImporter::importRowNode(const onnx::NodeProto &node,
                                           int index, int64_t opset) {
  RowRewriter rw(*this, node, index, opset);
  return rw.run();
}

void registerRowOps(HandlerMap &map) { map["NonZero"] = importNonZero; }

} // namespace shardc::onnximport
