//===- ExportElementwise.cpp - elementwise, logic, cast, activations ------===//

#include "Exporter.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include <cmath>

using namespace mlir;

namespace shardc::onnxexport {

/// The op's one result computed by one node of `type` over its operands.
static ExportFn direct(StringRef type) {
  std::string t = type.str();
  return [t](Exporter &e, Operation *op) {
    std::vector<std::string> inputs;
    for (Value v : op->getOperands())
      inputs.push_back(e.in(v));
    e.node(op, t, inputs, {e.out(op->getResult(0))});
    return success();
  };
}

std::string gelu(Exporter &e, Operation *op, const std::string &x, bool tanh,
                 Type elem) {
  auto c = [&](double v, StringRef hint) {
    return e.scalar(v, elem, op, hint);
  };
  std::string phi;
  if (tanh) {
    // sqrt(2/pi) * (x + 0.044715 x^3)
    std::string x3 = e.value(op, "Mul", {e.value(op, "Mul", {x, x}), x});
    std::string inner = e.value(
        op, "Add", {x, e.value(op, "Mul", {x3, c(0.044715, "gelu_k")})});
    phi = e.value(
        op, "Tanh",
        {e.value(op, "Mul", {inner, c(std::sqrt(2.0 / M_PI), "gelu_c")})});
  } else {
    phi = e.value(op, "Erf", {e.value(op, "Mul", {x, c(M_SQRT1_2, "gelu_c")})});
  }
  std::string onePlus = e.value(op, "Add", {phi, c(1.0, "one")});
  return e.value(op, "Mul", {e.value(op, "Mul", {x, onePlus}), c(0.5, "half")});
}

bool activation(Exporter &e, Operation *op, StringRef act, std::string &x,
                Type elem) {
  if (act == "none")
    return true;
  if (act == "relu")
    x = e.value(op, "Relu", {x});
  else if (act == "hard_swish")
    x = e.value(op, "HardSwish", {x});
  else if (act == "gelu" || act == "gelu_tanh")
    x = gelu(e, op, x, act == "gelu_tanh", elem);
  else
    return false;
  return true;
}

static LogicalResult exportClip(Exporter &e, Operation *op) {
  auto clip = cast<graph::ClipOp>(op);
  Type elem = graph::tensorOf(clip.getInput()).getElementType();
  std::string lo, hi;
  if (auto m = clip.getMin())
    lo = e.scalar(m->convertToDouble(), elem, op, "min");
  if (auto m = clip.getMax())
    hi = e.scalar(m->convertToDouble(), elem, op, "max");
  e.node(op, "Clip", {e.in(clip.getInput()), lo, hi},
         {e.out(clip.getOutput())});
  return success();
}

static LogicalResult exportCast(Exporter &e, Operation *op) {
  auto c = cast<graph::CastOp>(op);
  int32_t to = onnxType(c.getTo());
  if (!to)
    return op->emitError("--emit=onnx: no ONNX type for ") << c.getTo();
  attr(e.node(op, "Cast", {e.in(c.getInput())}, {e.out(c.getOutput())}), "to",
       static_cast<int64_t>(to));
  return success();
}

static LogicalResult exportLeakyRelu(Exporter &e, Operation *op) {
  auto l = cast<graph::LeakyReluOp>(op);
  attrFloat(
      e.node(op, "LeakyRelu", {e.in(l.getInput())}, {e.out(l.getOutput())}),
      "alpha", l.getAlpha().convertToFloat());
  return success();
}

static LogicalResult exportHardSigmoid(Exporter &e, Operation *op) {
  auto h = cast<graph::HardSigmoidOp>(op);
  onnx::NodeProto &n =
      e.node(op, "HardSigmoid", {e.in(h.getInput())}, {e.out(h.getOutput())});
  attrFloat(n, "alpha", h.getAlpha().convertToFloat());
  attrFloat(n, "beta", h.getBeta().convertToFloat());
  return success();
}

static LogicalResult exportGelu(Exporter &e, Operation *op) {
  auto g = cast<graph::GeluOp>(op);
  if (g.getApproximate() != "none" && g.getApproximate() != "tanh")
    return op->emitError("--emit=onnx: GELU approximation '")
           << g.getApproximate() << "'";
  e.result(op, gelu(e, op, e.in(g.getInput()), g.getApproximate() == "tanh",
                    graph::tensorOf(g.getInput()).getElementType()));
  return success();
}

static LogicalResult exportSilu(Exporter &e, Operation *op) {
  std::string x = e.in(op->getOperand(0));
  e.node(op, "Mul", {x, e.value(op, "Sigmoid", {x})},
         {e.out(op->getResult(0))});
  return success();
}

static LogicalResult exportSwiglu(Exporter &e, Operation *op) {
  auto s = cast<graph::SwigluOp>(op);
  std::string g = e.in(s.getGate());
  std::string silu = e.value(op, "Mul", {g, e.value(op, "Sigmoid", {g})});
  e.node(op, "Mul", {silu, e.in(s.getUp())}, {e.out(s.getOutput())});
  return success();
}

static LogicalResult exportConstantOfShape(Exporter &e, Operation *op) {
  auto c = cast<graph::ConstantOfShapeOp>(op);
  std::optional<graph::HostTensor> v = graph::readElements(c.getValue(), 1);
  if (!v || v->numel() != 1)
    return op->emitError("--emit=onnx: constant_of_shape's value");
  Type elem = cast<RankedTensorType>(c.getType()).getElementType();
  attrTensor(e.node(op, "ConstantOfShape", {e.ints(c.getShape(), op, "shape")},
                    {e.out(c.getOutput())}),
             "value", v->f(0), elem);
  return success();
}

static LogicalResult exportRange(Exporter &e, Operation *op) {
  auto r = cast<graph::RangeOp>(op);
  Type elem = r.getElementType();
  e.node(op, "Range",
         {e.scalar(r.getStart().convertToDouble(), elem, op, "start"),
          e.scalar(r.getLimit().convertToDouble(), elem, op, "limit"),
          e.scalar(r.getDelta().convertToDouble(), elem, op, "delta")},
         {e.out(r.getOutput())});
  return success();
}

void registerElementwiseExports(ExportMap &map) {
  static const std::pair<const char *, const char *> kDirect[] = {
      {"add", "Add"},         {"sub", "Sub"},   {"mul", "Mul"},
      {"div", "Div"},         {"pow", "Pow"},   {"max", "Max"},
      {"min", "Min"},         {"sqrt", "Sqrt"}, {"reciprocal", "Reciprocal"},
      {"exp", "Exp"},         {"log", "Log"},   {"erf", "Erf"},
      {"cos", "Cos"},         {"sin", "Sin"},   {"tanh", "Tanh"},
      {"floor", "Floor"},     {"ceil", "Ceil"}, {"round", "Round"},
      {"sigmoid", "Sigmoid"}, {"relu", "Relu"}, {"hard_swish", "HardSwish"},
      {"neg", "Neg"},         {"abs", "Abs"},   {"identity", "Identity"},
      {"equal", "Equal"},     {"less", "Less"}, {"greater", "Greater"},
      {"and", "And"},         {"or", "Or"},     {"not", "Not"},
      {"where", "Where"},
  };
  for (auto [graphName, onnxName] : kDirect)
    map[std::string("graph.") + graphName] = direct(onnxName);
  map["graph.clip"] = exportClip;
  map["graph.cast"] = exportCast;
  map["graph.leaky_relu"] = exportLeakyRelu;
  map["graph.hard_sigmoid"] = exportHardSigmoid;
  map["graph.gelu"] = exportGelu;
  map["graph.silu"] = exportSilu;
  map["graph.swiglu"] = exportSwiglu;
  map["graph.constant_of_shape"] = exportConstantOfShape;
  map["graph.range"] = exportRange;
}

} // namespace shardc::onnxexport
