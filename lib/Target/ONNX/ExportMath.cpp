//===- ExportMath.cpp - reductions, normalizations, softmax, selection ----===//

#include "Exporter.h"

#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace shardc::onnxexport {

/// At opset 17 ReduceSum takes its axes as an input, the others as an
/// attribute; no axes means every axis in both.
static ExportFn reduce(StringRef type) {
  std::string t = type.str();
  return [t](Exporter &e, Operation *op) {
    auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
    auto keep = op->getAttrOfType<BoolAttr>("keepdims");
    // Booleans (max: any, min: all) reduce as uint8 until opset 20.
    Type elem = graph::tensorOf(op->getOperand(0)).getElementType();
    Type u8 = IntegerType::get(op->getContext(), 8, IntegerType::Unsigned);
    Type through = elem.isInteger(1) ? u8 : elem;
    std::vector<std::string> inputs{
        e.castTo(op, e.in(op->getOperand(0)), elem, through)};
    bool axesInput = t == "ReduceSum";
    if (axesInput && axes && !axes.empty())
      inputs.push_back(e.ints(axes.asArrayRef(), op, "axes"));
    onnx::NodeProto *n;
    std::string y = e.value(op, t, inputs, &n);
    if (!axesInput && axes && !axes.empty())
      attr(*n, "axes", axes.asArrayRef());
    attr(*n, "keepdims", static_cast<int64_t>(!keep || keep.getValue()));
    e.result(op, e.castTo(op, y, through, elem));
    return success();
  };
}

template <typename OpTy>
static LogicalResult exportSoftmax(Exporter &e, Operation *op, StringRef type) {
  auto s = cast<OpTy>(op);
  attr(e.node(op, type, {e.in(s.getInput())}, {e.out(s.getOutput())}), "axis",
       s.getAxis());
  return success();
}

/// `v` broadcast to `shape` when its shape differs (ONNX Runtime's
/// LayerNormalization wants the normalized shape exactly).
static std::string broadcastTo(Exporter &e, Operation *op, Value v,
                               ArrayRef<int64_t> shape) {
  std::string name = e.in(v);
  if (graph::tensorOf(v).getShape() == shape)
    return name;
  std::string full = e.value(op, "Expand", {name, e.ints(shape, op, "shape")});
  if (graph::tensorOf(v).getRank() > static_cast<int64_t>(shape.size()))
    return e.value(op, "Reshape", {full, e.ints(shape, op, "shape")});
  return full;
}

static LogicalResult exportLayerNorm(Exporter &e, Operation *op) {
  auto l = cast<graph::LayerNormOp>(op);
  ArrayRef<int64_t> shape = graph::tensorOf(l.getInput()).getShape();
  int64_t axis = l.getAxis();
  ArrayRef<int64_t> normalized = shape.drop_front(axis);
  std::vector<std::string> inputs{e.in(l.getInput()),
                                  broadcastTo(e, op, l.getScale(), normalized)};
  if (Value b = l.getBias())
    inputs.push_back(broadcastTo(e, op, b, normalized));
  // Mean and InvStdDev only when something reads them.
  std::vector<std::string> outputs{e.out(l.getOutput())};
  if (!l.getMean().use_empty() || !l.getInvStdDev().use_empty()) {
    outputs.push_back(e.out(l.getMean()));
    outputs.push_back(e.out(l.getInvStdDev()));
  }
  onnx::NodeProto &n = e.node(op, "LayerNormalization", inputs, outputs);
  attr(n, "axis", axis);
  attrFloat(n, "epsilon", l.getEpsilon().convertToFloat());
  return success();
}

static LogicalResult exportBatchNorm(Exporter &e, Operation *op) {
  auto b = cast<graph::BatchNormOp>(op);
  attrFloat(e.node(op, "BatchNormalization",
                   {e.in(b.getInput()), e.in(b.getScale()), e.in(b.getBias()),
                    e.in(b.getMean()), e.in(b.getVariance())},
                   {e.out(b.getOutput())}),
            "epsilon", b.getEpsilon().convertToFloat());
  return success();
}

/// RMSNormalization comes at opset 23: x / sqrt(mean(x^2) + eps) * scale,
/// the statistics in fp32 as the kernels compute them.
static LogicalResult exportRmsNorm(Exporter &e, Operation *op) {
  auto r = cast<graph::RmsNormOp>(op);
  Type elem = graph::tensorOf(r.getInput()).getElementType();
  Type f32 = Float32Type::get(op->getContext());
  int64_t rank = graph::tensorOf(r.getInput()).getRank();
  std::string x = e.castTo(op, e.in(r.getInput()), elem, f32);
  onnx::NodeProto *mean;
  std::string ms =
      e.value(op, "ReduceMean", {e.value(op, "Mul", {x, x})}, &mean);
  attr(*mean, "axes",
       ArrayRef<int64_t>(
           llvm::to_vector(llvm::seq<int64_t>(r.getAxis(), rank))));
  attr(*mean, "keepdims", int64_t(1));
  std::string rms =
      e.value(op, "Sqrt",
              {e.value(op, "Add",
                       {ms, e.scalar(r.getEpsilon().convertToDouble(), f32, op,
                                     "eps")})});
  std::string y = e.castTo(op, e.value(op, "Div", {x, rms}), f32, elem);
  e.node(op, "Mul", {y, e.in(r.getScale())}, {e.out(r.getOutput())});
  return success();
}

/// ONNX's index results are int64: a graph result of another type is cast.
static std::string
indexResult(Exporter &e, Operation *op, unsigned i,
            std::vector<std::pair<std::string, Type>> &casts) {
  Type elem = graph::tensorOf(op->getResult(i)).getElementType();
  if (elem.isInteger(64))
    return e.out(op->getResult(i));
  std::string t = e.tmp(op, "indices");
  casts.push_back({t, elem});
  return t;
}

static void castIndices(Exporter &e, Operation *op, unsigned i,
                        std::vector<std::pair<std::string, Type>> &casts) {
  for (auto &[name, elem] : casts)
    attr(e.node(op, "Cast", {name}, {e.out(op->getResult(i))}), "to",
         static_cast<int64_t>(onnxType(elem)));
}

static LogicalResult exportTopK(Exporter &e, Operation *op) {
  auto t = cast<graph::TopKOp>(op);
  std::vector<std::pair<std::string, Type>> casts;
  std::string indices = indexResult(e, op, 1, casts);
  onnx::NodeProto &n = e.node(
      op, "TopK",
      {e.in(t.getInput()), e.ints({static_cast<int64_t>(t.getK())}, op, "k")},
      {e.out(t.getValues()), indices});
  attr(n, "axis", t.getAxis());
  attr(n, "largest", static_cast<int64_t>(t.getLargest()));
  attr(n, "sorted", static_cast<int64_t>(t.getSorted()));
  castIndices(e, op, 1, casts);
  return success();
}

static LogicalResult exportArgMax(Exporter &e, Operation *op) {
  auto a = cast<graph::ArgMaxOp>(op);
  std::vector<std::pair<std::string, Type>> casts;
  onnx::NodeProto &n = e.node(op, "ArgMax", {e.in(a.getInput())},
                              {indexResult(e, op, 0, casts)});
  attr(n, "axis", a.getAxis());
  attr(n, "keepdims", static_cast<int64_t>(a.getKeepdims()));
  attr(n, "select_last_index", static_cast<int64_t>(a.getSelectLastIndex()));
  castIndices(e, op, 0, casts);
  return success();
}

static LogicalResult exportCumSum(Exporter &e, Operation *op) {
  auto c = cast<graph::CumSumOp>(op);
  onnx::NodeProto &n =
      e.node(op, "CumSum",
             {e.in(c.getInput()), e.int64Scalar(c.getAxis(), op, "axis")},
             {e.out(c.getOutput())});
  attr(n, "exclusive", static_cast<int64_t>(c.getExclusive()));
  attr(n, "reverse", static_cast<int64_t>(c.getReverse()));
  return success();
}

static LogicalResult exportEinsum(Exporter &e, Operation *op) {
  auto x = cast<graph::EinsumOp>(op);
  std::vector<std::string> inputs;
  for (Value v : x.getInputs())
    inputs.push_back(e.in(v));
  attr(e.node(op, "Einsum", inputs, {e.out(x.getOutput())}), "equation",
       x.getEquation());
  return success();
}

void registerMathExports(ExportMap &map) {
  map["graph.reduce_sum"] = reduce("ReduceSum");
  map["graph.reduce_mean"] = reduce("ReduceMean");
  map["graph.reduce_max"] = reduce("ReduceMax");
  map["graph.reduce_min"] = reduce("ReduceMin");
  map["graph.reduce_prod"] = reduce("ReduceProd");
  map["graph.softmax"] = [](Exporter &e, Operation *op) {
    return exportSoftmax<graph::SoftmaxOp>(e, op, "Softmax");
  };
  map["graph.log_softmax"] = [](Exporter &e, Operation *op) {
    return exportSoftmax<graph::LogSoftmaxOp>(e, op, "LogSoftmax");
  };
  map["graph.layer_norm"] = exportLayerNorm;
  map["graph.batch_norm"] = exportBatchNorm;
  map["graph.rms_norm"] = exportRmsNorm;
  map["graph.topk"] = exportTopK;
  map["graph.arg_max"] = exportArgMax;
  map["graph.cumsum"] = exportCumSum;
  map["graph.einsum"] = exportEinsum;
}

} // namespace shardc::onnxexport
