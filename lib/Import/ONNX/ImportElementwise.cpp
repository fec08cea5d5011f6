//===- ImportElementwise.cpp - elementwise, logic, cast, constants, Shape ---===//

#include "Importer.h"

#include <cmath>

using namespace mlir;

namespace shardc::onnximport {

static LogicalResult importConstant(NodeContext &c) {
  for (const char *unsupported :
       {"sparse_value", "value_string", "value_strings"})
    if (c.attr(unsupported))
      return c.fail(std::string("attribute '") + unsupported +
                    "' is not supported");
  HostTensor t;
  if (const onnx::TensorProto *tp = c.getTensor("value")) {
    int64_t n = 1;
    for (int64_t d : tp->dims())
      if (d < 0 || __builtin_mul_overflow(n, d, &n))
        return c.fail(d < 0 ? "value has a negative dim"
                            : "value has more elements than a tensor can "
                              "hold");
    if (n > kFoldLimit) {
      // A large literal is a weight: treat it like an initializer.
      std::string storage;
      ArrayRef<char> bytes;
      if (auto err = tensorBytes(*tp, c.imp.baseDir, storage, bytes))
        return c.fail("value " + *err);
      Entry &e = c.imp.values[c.node.output(0)];
      e = Entry();
      e.initializer = tp;
      return success();
    }
    if (auto err = decodeTensor(*tp, c.imp.baseDir, t))
      return c.fail("value " + *err);
  } else if (c.attr("value_float")) {
    t.dtype = ScalarType::F32;
    t.floats = {c.getFloat("value_float", 0)};
  } else if (c.attr("value_floats")) {
    t.dtype = ScalarType::F32;
    for (float f : c.getFloats("value_floats"))
      t.floats.push_back(f);
    t.dims = {(int64_t)t.floats.size()};
  } else if (c.attr("value_int")) {
    t.dtype = ScalarType::I64;
    t.ints = {c.getInt("value_int", 0)};
  } else if (c.attr("value_ints")) {
    t.dtype = ScalarType::I64;
    for (int64_t v : c.getInts("value_ints"))
      t.ints.push_back(v);
    t.dims = {(int64_t)t.ints.size()};
  } else {
    return c.fail("has no value attribute");
  }
  if (c.failed())
    return failure();
  c.bindHost(0, std::move(t));
  return success();
}

static SmallVector<int64_t> dimsOf(NodeContext &c, int i) {
  if (const HostTensor *t = c.constant(i))
    return t->dims;
  return SmallVector<int64_t>(c.type(i).getShape());
}

/// Shape and Size of a tensor with dynamic dims are symbolic sizes
/// (FoldSymbolic.cpp folds what is computed from them).
static LogicalResult importShape(NodeContext &c) {
  if (!c.constant(0) && graph::isSymbolic(c.type(0))) {
    graph::SymShape in = graph::dimsOf(c.type(0));
    int64_t rank = in.size();
    int64_t start = c.getInt("start", 0), end = c.getInt("end", rank);
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, start, rank);
    SymTensor t;
    t.values.assign(in.sym.begin() + start, in.sym.begin() + end);
    t.dims = {end - start};
    c.bindSym(0, std::move(t));
    return c.status();
  }
  SmallVector<int64_t> dims = dimsOf(c, 0);
  int64_t rank = dims.size();
  int64_t start = c.getInt("start", 0), end = c.getInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  HostTensor t;
  t.dtype = ScalarType::I64;
  t.ints.assign(dims.begin() + start, dims.begin() + end);
  t.dims = {end - start};
  c.bindHost(0, std::move(t));
  return c.status();
}

static LogicalResult importSize(NodeContext &c) {
  if (!c.constant(0) && graph::isSymbolic(c.type(0))) {
    SymTensor t;
    t.values = {sym::product(graph::dimsOf(c.type(0)).sym)};
    c.bindSym(0, std::move(t));
    return c.status();
  }
  HostTensor t;
  t.dtype = ScalarType::I64;
  int64_t n = 1;
  for (int64_t d : dimsOf(c, 0))
    n *= d;
  t.ints = {n};
  c.bindHost(0, std::move(t));
  return success();
}

static LogicalResult importClip(NodeContext &c) {
  SmallVector<NamedAttribute> attrs;
  if (c.opset < 11) {
    float lo = c.getFloat("min", -INFINITY), hi = c.getFloat("max", INFINITY);
    if (!std::isinf(lo))
      attrs.push_back(c.named("min", c.b.getF64FloatAttr(lo)));
    if (!std::isinf(hi))
      attrs.push_back(c.named("max", c.b.getF64FloatAttr(hi)));
  } else {
    if (c.has(1)) {
      auto v = c.scalar(1, "min");
      if (!v)
        return failure();
      attrs.push_back(c.named("min", c.b.getF64FloatAttr(*v)));
    }
    if (c.has(2)) {
      auto v = c.scalar(2, "max");
      if (!v)
        return failure();
      attrs.push_back(c.named("max", c.b.getF64FloatAttr(*v)));
    }
  }
  c.create("clip", {c.in(0)}, attrs);
  return c.status();
}

static LogicalResult importCast(NodeContext &c) {
  int64_t to = c.getInt("to", -1);
  Type type = toMLIRType(&c.imp.ctx, to);
  if (!type)
    return c.fail("cannot cast to " + dtypeName(to));
  c.create("cast", {c.in(0)}, {c.named("to", TypeAttr::get(type))});
  return c.status();
}

static LogicalResult importDropout(NodeContext &c) {
  if (failed(c.rejectOutput(1, "mask")))
    return failure();
  c.bind(0, c.in(0));
  return success();
}

static LogicalResult importNonConstant(NodeContext &c) {
  // Reached only when folding failed: some input is not known.
  for (int i = 0; i < c.numInputs(); ++i)
    if (c.has(i) && !c.constant(i)) {
      c.ints(i, "input " + std::to_string(i));
      return failure();
    }
  return c.fail("cannot be evaluated at compile time (result too large or "
                "invalid inputs)");
}

/// Range(start, S, 1) to a length that depends on dynamic dims (position
/// ids: `torch.arange(past, past + seq)`): with a constant start, the slice
/// [0, S - start) of the constant start, start + 1, .. up to the bound; with
/// a dynamic one (the past length of a KV cache), the slice [start, S) of
/// 0, 1, .. up to the bound of S. Nothing is computed at run time.
static LogicalResult importSymbolicRange(NodeContext &c) {
  auto start = c.symInts(0, "start"), limit = c.symInts(1, "limit"),
       delta = c.symInts(2, "delta");
  if (!start || !limit || !delta)
    return failure();
  if (start->size() != 1 || limit->size() != 1 || delta->size() != 1)
    return c.fail("start, limit and delta must be scalars");
  SmallVector<int64_t> mins = c.imp.symbolMins();
  std::optional<int64_t> first = (*start)[0].getConstant();
  if ((*delta)[0] != sym::Expr(1) ||
      (!first && !(*start)[0].isMonotoneSize(mins)))
    return c.fail("a range of dynamic length needs a delta of 1 and a start "
                  "that is a constant or a size");
  sym::Expr length = (*limit)[0] - (*start)[0];
  graph::SymShape shape = c.symShape({length});
  graph::SymShape from = c.symShape({first ? sym::Expr(0) : (*start)[0]});
  if (c.failed() || !length.isMonotoneSize(mins) ||
      from.bound[0] + shape.bound[0] > kFoldLimit)
    return c.fail("range " + (*start)[0].str(c.imp.symbolNames()) + ".." +
                  (*limit)[0].str(c.imp.symbolNames()) +
                  " is not of a size of at most 2^20 for every value of the "
                  "dynamic dims");
  HostTensor values;
  values.dtype = c.constant(0) ? c.constant(0)->dtype : ScalarType::I64;
  int64_t n = from.bound[0] + shape.bound[0];
  values.dims = {n};
  values.resize(n);
  for (int64_t i = 0; i < n; ++i)
    values.setInt(i, first.value_or(0) + i);
  graph::SymShape ends = from;
  ends.bound[0] += shape.bound[0];
  ends.sym[0] = ends.sym[0] + shape.sym[0];
  SmallVector<NamedAttribute> attrs =
      graph::shapeAttrs(&c.imp.ctx, {{"starts", from}, {"ends", ends}});
  attrs.push_back(c.array("steps", {1}));
  Value all = c.constantOf(values);
  c.create("slice", {all}, attrs);
  return c.status();
}

/// ConstantOfShape whose result is over the fold limit (a causal mask of
/// S x S for a long context, a MoE's zeros of tokens x hidden): a
/// graph.constant_of_shape, which canonicalization makes a splat (one
/// element stored, whatever the shape).
static LogicalResult importConstantOfShape(NodeContext &c) {
  std::optional<SmallVector<sym::Expr>> exprs = c.symInts(0, "input shape");
  if (!exprs)
    return failure();
  graph::SymShape shape = c.symShape(*exprs);
  for (const sym::Expr &d : shape.sym)
    if (d.getConstant().value_or(0) < 0)
      return c.fail("shape has a negative dim " + d.str());
  HostTensor value;
  value.dims = {1};
  value.floats = {0.0};
  for (const auto &a : c.node.attribute())
    if (a.name() == "value")
      if (auto err = decodeTensor(a.t(), "", value))
        return c.fail("value " + *err);
  if (value.numel() != 1)
    return c.fail("value must have exactly one element, got " +
                  std::to_string(value.numel()));
  SmallVector<NamedAttribute> attrs =
      graph::shapeAttrs(&c.imp.ctx, "shape", shape);
  attrs.push_back(c.named("value", graph::toElementsAttr(&c.imp.ctx, value)));
  c.create("constant_of_shape", {}, attrs);
  return c.status();
}

void registerElementwiseOps(HandlerMap &map) {
  static const std::pair<const char *, const char *> unary[] = {
      {"Sqrt", "sqrt"},       {"Reciprocal", "reciprocal"},
      {"Exp", "exp"},         {"Log", "log"},
      {"Erf", "erf"},         {"Tanh", "tanh"},
      {"Cos", "cos"},         {"Sin", "sin"},
      {"Floor", "floor"},     {"Ceil", "ceil"},
      {"Round", "round"},
      {"Sigmoid", "sigmoid"}, {"Relu", "relu"},
      {"HardSwish", "hard_swish"}, {"Neg", "neg"},
      {"Abs", "abs"},         {"Identity", "identity"},
      {"Not", "not"}};
  for (auto [onnx, graph] : unary) {
    std::string name = graph;
    map[onnx] = [name](NodeContext &c) {
      c.create(name, {c.in(0)});
      return c.status();
    };
  }
  static const std::pair<const char *, const char *> binary[] = {
      {"Add", "add"},     {"Sub", "sub"},     {"Mul", "mul"},
      {"Div", "div"},     {"Pow", "pow"},     {"Equal", "equal"},
      {"Less", "less"},   {"Greater", "greater"}, {"And", "and"},
      {"Or", "or"}};
  for (auto [onnx, graph] : binary) {
    std::string name = graph;
    map[onnx] = [name](NodeContext &c) {
      c.create(name, {c.in(0), c.in(1)});
      return c.status();
    };
  }
  // Variadic Max/Min: a left-to-right chain of binary ops (one input is the
  // identity).
  for (auto [onnx, graph] : {std::pair<const char *, const char *>{"Max", "max"},
                             {"Min", "min"}}) {
    std::string name = graph;
    map[onnx] = [name](NodeContext &c) {
      Value acc = c.in(0);
      for (int i = 1; i < c.numInputs(); ++i) {
        Operation *op = c.create(name, {acc, c.in(i)});
        if (!op)
          return failure();
        acc = op->getResult(0);
      }
      c.bind(0, acc);
      return c.status();
    };
  }
  map["LeakyRelu"] = [](NodeContext &c) {
    c.create("leaky_relu", {c.in(0)},
             {c.f32("alpha", c.getFloat("alpha", 0.01f))});
    return c.status();
  };
  map["HardSigmoid"] = [](NodeContext &c) {
    c.create("hard_sigmoid", {c.in(0)},
             {c.f32("alpha", c.getFloat("alpha", 0.2f)),
              c.f32("beta", c.getFloat("beta", 0.5f))});
    return c.status();
  };
  map["Where"] = [](NodeContext &c) {
    c.create("where", {c.in(0), c.in(1), c.in(2)});
    return c.status();
  };
  map["Clip"] = importClip;
  map["Cast"] = importCast;
  map["Dropout"] = importDropout;
  map["Constant"] = importConstant;
  map["Shape"] = importShape;
  map["Size"] = importSize;
  map["ConstantOfShape"] = importConstantOfShape;
  map["Range"] = [](NodeContext &c) {
    for (int i = 0; i < c.numInputs(); ++i)
      if (c.isSym(i))
        return importSymbolicRange(c);
    return importNonConstant(c);
  };
}

} // namespace shardc::onnximport
