//===- Importer.cpp - ONNX model to graph dialect ---------------------------===//

#include "Importer.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace mlir;

namespace shardc {

bool parseShapeSpec(const std::string &spec, std::vector<int64_t> &dims) {
  dims.clear();
  if (spec.empty())
    return true; // a scalar
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(spec).split(parts, 'x');
  for (llvm::StringRef p : parts) {
    int64_t d;
    if (p.getAsInteger(10, d) || d < 0)
      return false;
    dims.push_back(d);
  }
  return true;
}

namespace onnximport {

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(GraphImporter &imp, const onnx::NodeProto &node,
                         int64_t opset, Location loc)
    : node(node), opset(opset), loc(loc), b(imp.builder), imp(imp) {}

bool NodeContext::has(int i) const {
  return i < node.input_size() && !node.input(i).empty();
}

/// "[seq, 12]", for messages (the first 8 values).
static std::string symText(const SymTensor &t, ArrayRef<std::string> names) {
  if (t.values.size() <= 8)
    return sym::shapeStr(t.values, names);
  std::string head = sym::shapeStr(ArrayRef(t.values).take_front(8), names);
  return head.substr(0, head.size() - 1) + ", ... (" +
         std::to_string(t.values.size()) + " values)]";
}

SmallVector<int64_t> GraphImporter::symbolMaxes() const {
  SmallVector<int64_t> out;
  for (const graph::Symbol &s : symbols)
    out.push_back(s.max);
  return out;
}

SmallVector<int64_t> GraphImporter::symbolMins() const {
  SmallVector<int64_t> out;
  for (const graph::Symbol &s : symbols)
    out.push_back(s.min);
  return out;
}

std::optional<sym::Expr> GraphImporter::paramExpr(StringRef param,
                                                  bool *tooLarge) const {
  if (!param.contains('+'))
    return std::nullopt;
  SmallVector<StringRef> parts;
  param.split(parts, '+');
  sym::Expr sum(0);
  for (StringRef part : parts) {
    part = part.trim();
    int64_t n;
    if (!part.getAsInteger(10, n) && n >= 0 && n <= kMaxDim) {
      sum = sum + sym::Expr(n);
      continue;
    }
    auto it = symbolOfParam.find(part);
    if (it == symbolOfParam.end())
      return std::nullopt;
    sum = sum + sym::Expr::symbol(it->second);
  }
  // A sum past the importer's limit at the bounds is not one of sizes.
  std::optional<int64_t> bound = sum.eval(symbolMaxes());
  if (!bound || *bound > kMaxDim) {
    if (tooLarge)
      *tooLarge = true;
    return std::nullopt;
  }
  return sum;
}

/// The dim_params of inputs that hold a KV cache's past: an input whose
/// only reader is a Concat that appends to it along that dim and whose
/// result is a graph output (`present = Concat(past, new)`, as
/// torch.onnx.export writes Hugging Face decoders called with
/// `past_key_values`). The first step of a decode has no past, so the dim
/// may be 0 there.
static llvm::StringSet<> pastParams(const onnx::GraphProto &graph) {
  llvm::StringSet<> outputs, out;
  for (const auto &o : graph.output())
    outputs.insert(o.name());
  llvm::StringMap<int> readers;
  for (const auto &n : graph.node())
    for (const auto &i : n.input())
      ++readers[i];
  for (const auto &n : graph.node()) {
    if (n.op_type() != "Concat" || n.input_size() != 2 ||
        n.output_size() != 1 || !outputs.contains(n.output(0)))
      continue;
    for (const auto &in : graph.input()) {
      if (in.name() != n.input(0) || readers[in.name()] != 1 ||
          !in.type().tensor_type().has_shape())
        continue;
      const auto &shape = in.type().tensor_type().shape();
      int64_t axis = attrInt(n, "axis", 0);
      if (axis < 0)
        axis += shape.dim_size();
      if (axis >= 0 && axis < shape.dim_size() &&
          shape.dim(axis).has_dim_param())
        out.insert(shape.dim(axis).dim_param());
    }
  }
  return out;
}

/// The default bound of a dim named `param` (ONNXImportOptions::
/// defaultBounds): a batch or a sequence length by its words, else none.
static std::optional<int64_t> defaultBound(StringRef param) {
  std::string lower = param.lower();
  StringRef p(lower);
  if (p.contains("batch"))
    return kDefaultBatchBound;
  for (StringRef word : {"seq", "len", "token", "past", "context", "step"})
    if (p.contains(word))
      return kDefaultSeqBound;
  return std::nullopt;
}

SmallVector<std::string> GraphImporter::symbolNames() const {
  SmallVector<std::string> out;
  for (const graph::Symbol &s : symbols)
    out.push_back(s.name);
  return out;
}

Value NodeContext::in(int i) {
  Entry *e = imp.lookup(node.input(i));
  return imp.materialize(*e, node.input(i));
}

RankedTensorType NodeContext::type(int i) {
  return cast<RankedTensorType>(in(i).getType());
}

const HostTensor *NodeContext::constant(int i) {
  if (!has(i))
    return nullptr;
  return imp.hostOf(*imp.lookup(node.input(i)));
}

bool NodeContext::isSym(int i) {
  Entry *e = has(i) ? imp.lookup(node.input(i)) : nullptr;
  return e && e->sym;
}

std::optional<SmallVector<sym::Expr>> NodeContext::symInts(int i,
                                                           StringRef what) {
  SmallVector<sym::Expr> out;
  if (isSym(i)) {
    for (const sym::Expr &e : imp.lookup(node.input(i))->sym->values)
      out.push_back(e);
    return out;
  }
  std::optional<SmallVector<int64_t>> v = ints(i, what);
  if (!v)
    return std::nullopt;
  for (int64_t x : *v)
    out.push_back(sym::Expr(x));
  return out;
}

graph::SymShape NodeContext::symShape(ArrayRef<sym::Expr> exprs) {
  SmallVector<int64_t> maxes = imp.symbolMaxes();
  graph::SymShape shape;
  int64_t count = 1;
  bool symbolic =
      llvm::any_of(exprs, [](const sym::Expr &e) { return !e.isConstant(); });
  for (const sym::Expr &e : exprs) {
    std::optional<int64_t> v = e.eval(maxes);
    // A size must be one for every value of the symbols, and within the
    // importer's limits at the bounds (node creation then stops: create()
    // makes nothing once the node has failed). Static shapes keep their
    // handlers' checks and messages.
    if (!symbolic && v) {
      shape.push_back(*v, e);
      continue;
    }
    if (!v || *v < 0 || *v > kMaxDim ||
        (!e.isConstant() && !e.isMonotoneSize(imp.symbolMins())) ||
        __builtin_mul_overflow(count, std::max<int64_t>(*v, 1), &count) ||
        count > kMaxDim) {
      (void)fail("shape " + sym::shapeStr(exprs, imp.symbolNames()) +
                 " is not a shape of at most 2^40 elements for every value "
                 "of the dynamic dims within their bounds");
      v = 0;
    }
    shape.push_back(*v, e);
  }
  return shape;
}

std::optional<SmallVector<int64_t>> NodeContext::ints(int i, StringRef what) {
  const HostTensor *t = constant(i);
  if (!t) {
    Entry *e = has(i) ? imp.lookup(node.input(i)) : nullptr;
    if (e && e->sym)
      (void)fail("input '" + what + "' ('" + node.input(i) +
                 "') is computed from dynamic dims, " +
                 symText(*e->sym, imp.symbolNames()) +
                 ", but must be a compile-time constant here (give the "
                 "model's inputs a static shape with --input-shape)");
    else if (e && e->isGraphInput)
      (void)fail("input '" + what + "' is graph input '" + node.input(i) +
           "' but must be a compile-time constant; bind it with "
           "--const-input " + node.input(i) + "=FILE");
    else
      (void)fail("input '" + what + "' ('" + (has(i) ? node.input(i) : "") +
           "') must be a compile-time constant");
    return std::nullopt;
  }
  if (t->isFloat()) {
    (void)fail("input '" + what + "' ('" + node.input(i) +
               "') must be an integer tensor, got " + dtypeName(t->dtype));
    return std::nullopt;
  }
  SmallVector<int64_t> v;
  for (int64_t k = 0; k < t->numel(); ++k)
    v.push_back(t->i(k));
  return v;
}

std::optional<double> NodeContext::scalar(int i, StringRef what) {
  if (!constant(i)) {
    ints(i, what); // records the error
    return std::nullopt;
  }
  const HostTensor *t = constant(i);
  if (t->numel() != 1) {
    (void)fail("input '" + what + "' must hold one value, got " +
         std::to_string(t->numel()));
    return std::nullopt;
  }
  return t->f(0);
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

static const char *attrTypeName(int t) {
  return onnx::AttributeProto::AttributeType_IsValid(t)
             ? onnx::AttributeProto::AttributeType_Name(
                   (onnx::AttributeProto::AttributeType)t)
                   .c_str()
             : "UNKNOWN";
}

#define CHECK_ATTR_TYPE(A, T, WHAT, DFLT)                                      \
  if ((A)->type() != onnx::AttributeProto::T) {                                \
    (void)fail("attribute '" + name + "' must be " WHAT ", got " +                   \
         attrTypeName((A)->type()));                                           \
    return DFLT;                                                               \
  }

int64_t NodeContext::getInt(StringRef name, int64_t dflt) {
  const auto *a = attr(name);
  if (!a)
    return dflt;
  CHECK_ATTR_TYPE(a, INT, "an int", dflt);
  return a->i();
}

float NodeContext::getFloat(StringRef name, float dflt) {
  const auto *a = attr(name);
  if (!a)
    return dflt;
  CHECK_ATTR_TYPE(a, FLOAT, "a float", dflt);
  return a->f();
}

std::string NodeContext::getString(StringRef name, StringRef dflt) {
  const auto *a = attr(name);
  if (!a)
    return dflt.str();
  CHECK_ATTR_TYPE(a, STRING, "a string", dflt.str());
  return a->s();
}

SmallVector<int64_t> NodeContext::getInts(StringRef name,
                                          ArrayRef<int64_t> dflt) {
  const auto *a = attr(name);
  if (!a)
    return SmallVector<int64_t>(dflt);
  CHECK_ATTR_TYPE(a, INTS, "a list of ints", SmallVector<int64_t>(dflt));
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> NodeContext::getFloats(StringRef name) {
  const auto *a = attr(name);
  if (!a)
    return {};
  CHECK_ATTR_TYPE(a, FLOATS, "a list of floats", {});
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

const onnx::TensorProto *NodeContext::getTensor(StringRef name) {
  const auto *a = attr(name);
  if (!a)
    return nullptr;
  CHECK_ATTR_TYPE(a, TENSOR, "a tensor", nullptr);
  return &a->t();
}
#undef CHECK_ATTR_TYPE

int64_t NodeContext::axis(int64_t a, int64_t rank, StringRef what) {
  if (a < -rank || a >= rank) {
    (void)fail(what + " " + std::to_string(a) + " is out of range for rank " +
         std::to_string(rank));
    return 0;
  }
  return a < 0 ? a + rank : a;
}

Value NodeContext::createValue(StringRef name, ValueRange operands,
                               ArrayRef<NamedAttribute> attrs) {
  if (failed())
    return {};
  Operation *op = create(name, operands, attrs);
  return op ? op->getResult(0) : Value();
}

Value NodeContext::inOrZeroPoint(int i, int of) {
  if (has(i))
    return in(i);
  return zero(type(of).getElementType().isUnsignedInteger(8)
                  ? onnx::TensorProto::UINT8
                  : onnx::TensorProto::INT8);
}

Value NodeContext::floatScalar(Type elem, double v) {
  return b.create<graph::ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({}, elem),
                                  b.getFloatAttr(elem, v)));
}

Operation *NodeContext::create(StringRef name, ValueRange operands,
                               ArrayRef<NamedAttribute> attrs) {
  if (failed())
    return nullptr;
  OperationState state(loc, ("graph." + name).str());
  state.addOperands(operands);
  state.addAttributes(attrs);
  auto info = state.name.getRegisteredInfo();
  auto *iface = info->getInterface<InferTypeOpInterface>();
  SmallVector<Type> types;
  std::string diag;
  {
    ScopedDiagnosticHandler handler(&imp.ctx, [&](Diagnostic &d) {
      if (diag.empty())
        diag = d.str();
      return success();
    });
    if (mlir::failed(iface->inferReturnTypes(
            &imp.ctx, loc, state.operands, state.attributes.getDictionary(&imp.ctx),
            state.getRawProperties(), state.regions, types))) {
      (void)fail(diag.empty() ? "invalid operands" : diag);
      return nullptr;
    }
    for (Type t : types) {
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt)
        continue;
      int64_t n = 1;
      for (int64_t d : rt.getShape())
        if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > kMaxDim) {
          (void)fail("result shape " + graph::shapeStr(rt.getShape()) +
                     " has more than 2^40 elements");
          return nullptr;
        }
    }
    state.addTypes(types);
    Operation *op = b.create(state);
    if (mlir::failed(mlir::verify(op))) {
      (void)fail(diag.empty() ? "invalid operation" : diag);
      op->erase();
      return nullptr;
    }
    for (unsigned r = 0; r < op->getNumResults() && (int)r < node.output_size();
         ++r)
      bind(r, op->getResult(r));
    return op;
  }
}

void NodeContext::bind(int output, Value v) {
  if (output >= node.output_size() || node.output(output).empty())
    return;
  Entry &e = imp.values[node.output(output)];
  e = Entry();
  e.value = v;
}

Value NodeContext::constantOf(const HostTensor &t) {
  return b.create<graph::ConstantOp>(loc, graph::toElementsAttr(&imp.ctx, t));
}

Value NodeContext::zero(int32_t dtype) {
  std::optional<ScalarType> st = graph::scalarTypeFromOnnx(dtype);
  if (!st) {
    (void)fail("a zero of element type (" + dtypeName(dtype) +
               ") is not supported");
    return Value();
  }
  HostTensor t;
  t.dtype = *st;
  t.resize(1);
  return constantOf(t);
}

LogicalResult NodeContext::rejectOutput(int i, StringRef what) {
  if (i < node.output_size() && !node.output(i).empty())
    return fail("the " + what + " output is not supported");
  return success();
}

void NodeContext::bindSym(int output, SymTensor t) {
  if (t.isConstant())
    return bindHost(output, t.toHost());
  if (output >= node.output_size() || node.output(output).empty())
    return;
  Entry &e = imp.values[node.output(output)];
  e = Entry();
  e.sym = std::make_shared<SymTensor>(std::move(t));
}

void NodeContext::bindHost(int output, HostTensor t) {
  if (output >= node.output_size() || node.output(output).empty())
    return;
  Entry &e = imp.values[node.output(output)];
  e = Entry();
  e.host = std::make_shared<HostTensor>(std::move(t));
}

LogicalResult NodeContext::fail(const Twine &msg) {
  if (imp.error.empty()) {
    std::string name = node.name().empty()
                           ? (node.output_size() ? "output " + node.output(0)
                                                 : "#" + std::to_string(index))
                           : node.name();
    imp.error = imp.path + ": node '" + name + "' (" + node.op_type() +
                ", opset " + std::to_string(opset) + "): " + msg.str();
  }
  return failure();
}

bool NodeContext::failed() const { return !imp.error.empty(); }
LogicalResult NodeContext::status() const {
  return failed() ? failure() : success();
}

NamedAttribute NodeContext::named(StringRef name, Attribute a) {
  return b.getNamedAttr(name, a);
}
NamedAttribute NodeContext::i64(StringRef name, int64_t v) {
  return named(name, b.getI64IntegerAttr(v));
}
NamedAttribute NodeContext::f32(StringRef name, float v) {
  return named(name, b.getF32FloatAttr(v));
}
NamedAttribute NodeContext::boolean(StringRef name, bool v) {
  return named(name, b.getBoolAttr(v));
}
NamedAttribute NodeContext::str(StringRef name, StringRef v) {
  return named(name, b.getStringAttr(v));
}
NamedAttribute NodeContext::array(StringRef name, ArrayRef<int64_t> v) {
  return named(name, b.getDenseI64ArrayAttr(v));
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

GraphImporter::GraphImporter(MLIRContext &ctx, std::string path,
                             std::string baseDir)
    : ctx(ctx), builder(&ctx), path(std::move(path)),
      baseDir(std::move(baseDir)) {
  registerElementwiseOps(handlers);
  registerMathOps(handlers);
  registerShapeOps(handlers);
  registerConvOps(handlers);
  registerSelectionOps(handlers);
  registerRowOps(handlers);
}

LogicalResult GraphImporter::fail(const Twine &msg) {
  if (error.empty())
    error = path + ": " + msg.str();
  return failure();
}

Entry *GraphImporter::lookup(StringRef name) {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

bool GraphImporter::isAbsent(const onnx::TensorProto &t) const {
  return shapesOnly && t.data_location() == onnx::TensorProto::EXTERNAL &&
         !inPlace.contains(&t);
}

bool GraphImporter::canHost(const Entry &e) const {
  if (e.host)
    return true;
  if (!e.initializer || isAbsent(*e.initializer))
    return false;
  int64_t n = 1;
  for (int64_t d : e.initializer->dims())
    n *= d;
  return n <= kFoldLimit && dtypeSize(e.initializer->data_type());
}

HostTensor *GraphImporter::hostOf(Entry &e) {
  if (e.host)
    return e.host.get();
  if (!canHost(e))
    return nullptr;
  auto t = std::make_shared<HostTensor>();
  if (decodeTensor(*e.initializer, baseDir, *t))
    return nullptr;
  e.host = t;
  return t.get();
}

// Initializers become dense_resource blobs that view the protobuf's bytes
// (kept alive by the blob's deleter); booleans and small folded values become
// dense attributes.
Value GraphImporter::materialize(Entry &e, StringRef name) {
  if (e.value)
    return e.value;
  Location loc = NameLoc::get(builder.getStringAttr(name));
  ElementsAttr attr;
  std::string key = name.str();
  for (char &c : key)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  if (key.empty() || llvm::isDigit(key[0]))
    key = "w_" + key;
  RankedTensorType type;
  if (const onnx::TensorProto *t = e.initializer)
    type = RankedTensorType::get(
        SmallVector<int64_t>(t->dims().begin(), t->dims().end()),
        toMLIRType(&ctx, t->data_type()));
  if (e.initializer && isAbsent(*e.initializer)) {
    attr = graph::shapeOnlyElements(type, key);
  } else if (e.initializer &&
             e.initializer->data_type() != onnx::TensorProto::BOOL) {
    const onnx::TensorProto &t = *e.initializer;
    auto storage = std::make_shared<std::string>();
    ArrayRef<char> bytes;
    std::shared_ptr<const void> mapped;
    // Sizes were checked when the initializer was declared.
    (void)tensorBytes(t, baseDir, *storage, bytes, &externalFiles, &mapped);
    size_t align = std::max<int64_t>(1, dtypeSize(t.data_type()));
    AsmResourceBlob blob;
    if (bytes.empty()) {
      blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, align);
    } else {
      // A weight at an odd offset of the model file (protobuf packs
      // raw_data wherever it falls) is viewed where it is, with alignment
      // 1: every reader copies bytes (memcpy), and the weights file that
      // the kernels read is aligned.
      if (reinterpret_cast<uintptr_t>(bytes.data()) % align != 0)
        align = 1;
      blob = UnmanagedAsmResourceBlob::allocateWithAlign(
          bytes, align,
          [storage, mapped, owner = owner](void *, size_t, size_t) {});
    }
    attr = DenseResourceElementsAttr::get(type, key, std::move(blob));
  } else {
    HostTensor *h = hostOf(e);
    // hostOf keeps to values small enough to fold; a larger boolean
    // initializer (a causal mask of a long context) is decoded in full.
    // Its declaration was checked, so decoding it cannot fail.
    HostTensor whole;
    if (!h && e.initializer && !decodeTensor(*e.initializer, baseDir, whole))
      h = &whole;
    assert(h && "an entry without a host value is an initializer");
    attr = graph::toElementsAttr(&ctx, *h);
  }
  e.value = builder.create<graph::ConstantOp>(loc, attr);
  return e.value;
}

LogicalResult GraphImporter::checkBoundInput(const onnx::ValueInfoProto &in,
                                            const HostTensor &t,
                                            const std::string &file) {
  std::string what = "--const-input " + in.name() + "=" + file;
  if (!in.type().has_tensor_type())
    return success();
  const auto &tt = in.type().tensor_type();
  if (tt.elem_type() != 0 && tt.elem_type() != static_cast<int32_t>(t.dtype))
    return fail(what + ": the file holds " + dtypeName(t.dtype) +
                " but the input is declared " + dtypeName(tt.elem_type()));
  if (!tt.has_shape())
    return success();
  bool mismatch = tt.shape().dim_size() != (int)t.dims.size();
  SmallVector<int64_t> declared;
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    const auto &dim = tt.shape().dim(d);
    declared.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    if (!mismatch && dim.has_dim_value() && dim.dim_value() != t.dims[d])
      mismatch = true;
  }
  if (mismatch)
    return fail(what + ": the file holds shape " + graph::shapeStr(t.dims) +
                " but the input is declared " + graph::shapeStr(declared) +
                " (-1: any)");
  return success();
}

LogicalResult GraphImporter::declareSymbols(const onnx::GraphProto &graph,
                                            const ONNXImportOptions &options) {
  llvm::StringSet<> past = pastParams(graph);
  struct SumDim {
    std::string where, param;
    int64_t max;
  };
  SmallVector<SumDim> sumDims;
  // The symbol of dim_param `param`, new or checked against the bound an
  // earlier --max-shape gave it.
  auto named = [&](const std::string &where, const std::string &param,
                   int64_t max) -> LogicalResult {
    auto known = symbolOfParam.find(param);
    if (known == symbolOfParam.end()) {
      symbolOfParam[param] = symbols.size();
      symbols.push_back({param, max, past.contains(param) ? 0 : 1});
      return success();
    }
    if (symbols[known->second].max != max)
      return fail(where + " ('" + param + "') is " + std::to_string(max) +
                  " but an earlier --max-shape bounds '" + param + "' by " +
                  std::to_string(symbols[known->second].max));
    return success();
  };
  for (const auto &in : graph.input()) {
    auto bound = options.maxShapes.find(in.name());
    if (bound == options.maxShapes.end())
      continue;
    if (options.inputShapes.count(in.name()) ||
        options.constInputs.count(in.name()))
      return fail("input '" + in.name() + "' is given both --max-shape and " +
                  (options.inputShapes.count(in.name()) ? "--input-shape"
                                                        : "--const-input"));
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
      return fail("--max-shape " + in.name() +
                  ": the input has no declared shape to bound");
    const auto &shape = in.type().tensor_type().shape();
    if ((int)bound->second.size() != shape.dim_size())
      return fail("--max-shape " + in.name() + " has rank " +
                  std::to_string(bound->second.size()) +
                  " but the input has rank " +
                  std::to_string(shape.dim_size()));
    for (int d = 0; d < shape.dim_size(); ++d) {
      const auto &dim = shape.dim(d);
      int64_t max = bound->second[d];
      std::string where =
          "--max-shape " + in.name() + " dim " + std::to_string(d);
      if (dim.has_dim_value()) {
        if (dim.dim_value() != max)
          return fail(where + " is " + std::to_string(max) +
                      " but the model fixes it to " +
                      std::to_string(dim.dim_value()));
        continue;
      }
      if (max < 1 || max > kMaxDim)
        return fail(where + " is " + std::to_string(max) +
                    ": a bound is between 1 and 2^40");
      std::string param = dim.has_dim_param() ? dim.dim_param() : "";
      // A sum of other dims ("past + sequence"): checked once every plain
      // name has its symbol.
      if (param.find('+') != std::string::npos) {
        sumDims.push_back({where, param, max});
        continue;
      }
      if (!param.empty()) {
        if (failed(named(where, param, max)))
          return failure();
        continue;
      }
      std::string own = in.name() + "[" + std::to_string(d) + "]";
      symbolOfUnnamed[own] = symbols.size();
      symbols.push_back({own, max});
    }
  }
  if (options.defaultBounds && options.maxShapes.empty() &&
      options.inputShapes.empty() && options.constInputs.empty()) {
    // Every dynamic dim named as a batch or a sequence (a sum of such
    // names and integers too), or no default at all.
    llvm::MapVector<StringRef, int64_t> bounds;
    bool all = true;
    for (const auto &in : graph.input()) {
      if (options.constInputs.count(in.name()) ||
          !in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
        continue;
      for (const auto &dim : in.type().tensor_type().shape().dim()) {
        if (dim.has_dim_value())
          continue;
        SmallVector<StringRef> terms;
        StringRef(dim.dim_param()).split(terms, '+'); // "" when unset
        for (StringRef term : terms) {
          term = term.trim();
          int64_t constant;
          if (!term.empty() && !term.getAsInteger(10, constant) &&
              terms.size() > 1)
            continue;
          std::optional<int64_t> bound =
              term.empty() ? std::nullopt : defaultBound(term);
          if (!bound)
            all = false;
          else
            bounds.insert({term, *bound});
        }
      }
    }
    if (all)
      for (auto [param, bound] : bounds) {
        // A bound of 1 is that size: a static dim.
        if (bound == 1 && !past.contains(param))
          fixedParams[param] = 1;
        else if (failed(named("input dim", param.str(), bound)))
          return failure();
        if (options.boundsNote)
          *options.boundsNote +=
              (options.boundsNote->empty() ? "'" : ", '") + param.str() +
              (fixedParams.count(param) ? "' fixed at " : "' at ") +
              std::to_string(bound);
      }
  }
  for (const SumDim &s : sumDims) {
    std::optional<sym::Expr> sum = paramExpr(s.param);
    if (!sum) {
      // Not a sum of known dims: a name of its own.
      if (failed(named(s.where, s.param, s.max)))
        return failure();
      continue;
    }
    if (sum->eval(symbolMaxes()) != s.max)
      return fail(s.where + " ('" + s.param + "') is " + std::to_string(s.max) +
                  " but the bounds of its terms give " +
                  std::to_string(*sum->eval(symbolMaxes())));
  }
  return success();
}

LogicalResult GraphImporter::declareInputs(const onnx::GraphProto &graph,
                                           const ONNXImportOptions &options,
                                           SmallVectorImpl<std::string> &names,
                                           SmallVectorImpl<Type> &types) {
  for (const auto &init : graph.initializer()) {
    if (init.name().empty())
      return fail("an initializer has no name");
    if (values.count(init.name()))
      return fail("initializer '" + init.name() + "' is defined twice");
    std::string storage;
    ArrayRef<char> bytes;
    // Checks every initializer now; external data is only mapped, not read
    // (nor opened, shape-only).
    if (auto err = isAbsent(init) ? checkAbsentExternal(init)
                                  : tensorBytes(init, baseDir, storage, bytes,
                                                &externalFiles))
      return fail("initializer '" + init.name() + "' " + *err);
    values[init.name()].initializer = &init;
  }
  llvm::StringSet<> graphInputs;
  for (const auto &in : graph.input())
    graphInputs.insert(in.name());
  for (const auto &kv : options.inputShapes)
    if (!graphInputs.contains(kv.first))
      return fail("--input-shape names '" + kv.first +
                  "', which is not a graph input");
  for (const auto &kv : options.constInputs)
    if (!graphInputs.contains(kv.first))
      return fail("--const-input names '" + kv.first +
                  "', which is not a graph input");
  for (const auto &kv : options.maxShapes)
    if (!graphInputs.contains(kv.first))
      return fail("--max-shape names '" + kv.first +
                  "', which is not a graph input");
  if (failed(declareSymbols(graph, options)))
    return failure();
  llvm::StringSet<> seenInputs;
  for (const auto &in : graph.input()) {
    if (in.name().empty())
      return fail("graph input #" + std::to_string(seenInputs.size()) +
                  " has an empty name");
    if (!seenInputs.insert(in.name()).second)
      return fail("graph input '" + in.name() + "' is declared twice");
    if (values.count(in.name()))
      continue; // an initializer listed as input (IR version < 4)
    auto bound = options.constInputs.find(in.name());
    if (bound != options.constInputs.end()) {
      auto t = std::make_shared<HostTensor>();
      if (auto err = readTensorFile(bound->second, *t))
        return fail("--const-input " + in.name() + "=" + bound->second + ": " +
                    *err);
      if (failed(checkBoundInput(in, *t, bound->second)))
        return failure();
      values[in.name()].host = t;
      continue;
    }
    if (!in.type().has_tensor_type())
      return fail("input '" + in.name() +
                  "' is not a tensor (sequences, maps and optionals are not "
                  "supported)");
    const auto &tt = in.type().tensor_type();
    Type elt = toMLIRType(&ctx, tt.elem_type());
    if (!elt)
      return fail("input '" + in.name() + "' has unsupported element type " +
                  dtypeName(tt.elem_type()));
    if (!tt.has_shape())
      return fail("input '" + in.name() +
                  "' has no declared shape; bind it with --input-shape " +
                  in.name() + "=DIMS");
    graph::SymShape dims;
    auto user = options.inputShapes.find(in.name());
    auto max = options.maxShapes.find(in.name());
    int rank = tt.shape().dim_size();
    if (user != options.inputShapes.end() &&
        (int)user->second.size() != rank)
      return fail("--input-shape " + in.name() + " has rank " +
                  std::to_string(user->second.size()) + " but the input has rank " +
                  std::to_string(rank));
    for (int d = 0; d < rank; ++d) {
      const auto &dim = tt.shape().dim(d);
      if (dim.has_dim_value() && dim.dim_value() < 0)
        return fail("input '" + in.name() + "' dim " + std::to_string(d) +
                    " is " + std::to_string(dim.dim_value()) +
                    ", which is not a size (a dynamic dim has a dim_param or "
                    "no value)");
      if (dim.has_dim_value()) {
        if (dim.dim_value() > kMaxDim)
          return fail("input '" + in.name() + "' dim " + std::to_string(d) +
                      " is " + std::to_string(dim.dim_value()) +
                      ", beyond the supported 2^40");
        if (user != options.inputShapes.end() &&
            user->second[d] != dim.dim_value())
          return fail("--input-shape " + in.name() + " sets dim " +
                      std::to_string(d) + " to " +
                      std::to_string(user->second[d]) +
                      " but the model fixes it to " +
                      std::to_string(dim.dim_value()));
        dims.push_back(dim.dim_value(), dim.dim_value());
        continue;
      }
      // A dim a default bound of 1 fixed.
      if (auto fixed = fixedParams.find(dim.dim_param());
          fixed != fixedParams.end()) {
        dims.push_back(fixed->second, fixed->second);
        continue;
      }
      // A dynamic dim: symbolic when its name has a symbol (or --max-shape
      // bounds this input), else static by --input-shape.
      auto param = symbolOfParam.end();
      if (dim.has_dim_param() && !dim.dim_param().empty())
        param = symbolOfParam.find(dim.dim_param());
      // Or a sum of dims that have symbols ("past + sequence").
      std::optional<sym::Expr> sum;
      bool tooLarge = false;
      if (dim.has_dim_param() && param == symbolOfParam.end())
        sum = paramExpr(dim.dim_param(), &tooLarge);
      if (user != options.inputShapes.end() &&
          (param != symbolOfParam.end() || sum))
        return fail("--input-shape " + in.name() + " fixes dim " +
                    std::to_string(d) + " ('" + dim.dim_param() +
                    "'), which --max-shape leaves dynamic");
      if (sum) {
        dims.push_back(*sum->eval(symbolMaxes()), *sum);
      } else if (param != symbolOfParam.end() ||
                 max != options.maxShapes.end()) {
        unsigned s = param != symbolOfParam.end()
                         ? param->second
                         : symbolOfUnnamed.lookup(in.name() + "[" +
                                                  std::to_string(d) + "]");
        dims.push_back(symbols[s].max, sym::Expr::symbol(s));
      } else if (user != options.inputShapes.end()) {
        dims.push_back(user->second[d], user->second[d]);
      } else if (dim.has_dim_param() &&
                 dim.dim_param().find('+') != std::string::npos &&
                 !symbols.empty()) {
        if (tooLarge)
          return fail("input '" + in.name() + "' dim " + std::to_string(d) +
                      " is a sum of dims past 2^40 at their bounds");
        return fail("input '" + in.name() + "' dim " + std::to_string(d) +
                    " ('" + dim.dim_param() +
                    "') is a sum of dims: bound each of them with --max-shape "
                    "on an input that has it (a KV cache's past: "
                    "--max-shape past_key_values.0.key=DIMS)");
      } else {
        std::string label = dim.has_dim_param() && !dim.dim_param().empty()
                                ? " ('" + dim.dim_param() + "')"
                                : "";
        return fail("input '" + in.name() + "' dim " + std::to_string(d) +
                    label + " is dynamic; bind it with --input-shape " +
                    in.name() + "=DIMS");
      }
    }
    int64_t n = 1;
    for (int64_t d : dims.bound)
      if (__builtin_mul_overflow(n, std::max<int64_t>(d, 1), &n) ||
          n > kMaxDim)
        return fail("input '" + in.name() + "' has more than 2^40 elements");
    names.push_back(in.name());
    types.push_back(graph::tensorType(dims, elt));
  }
  return success();
}

void GraphImporter::recordOutputs(const onnx::NodeProto &node, int index) {
  std::string who = node.name().empty()
                        ? "node #" + std::to_string(index)
                        : "node '" + node.name() + "'";
  for (const auto &out : node.output())
    if (!out.empty())
      producers.try_emplace(out, who);
}

Location GraphImporter::nodeLoc(const onnx::NodeProto &node, int index) {
  std::string name = node.name().empty()
                         ? (node.output_size() ? node.output(0)
                                               : "#" + std::to_string(index))
                         : node.name();
  return NameLoc::get(builder.getStringAttr(name),
                      FileLineColLoc::get(builder.getStringAttr(path), 0, 0));
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node, int index,
                                        int64_t opset) {
  NodeContext nc(*this, node, opset, nodeLoc(node, index));
  nc.index = index;
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return nc.fail("unknown op '" + node.op_type() + "' in domain '" +
                   node.domain() + "'");
  llvm::StringSet<> attrNames;
  for (const auto &a : node.attribute()) {
    if (!attrNames.insert(a.name()).second)
      return nc.fail("attribute '" + a.name() + "' is given twice");
    if (a.type() == onnx::AttributeProto::GRAPH ||
        a.type() == onnx::AttributeProto::GRAPHS)
      return nc.fail("nested graphs (If, Loop, Scan) are not supported");
  }
  if (node.op_type() == "Constant" && node.domain().empty() &&
      node.attribute_size() != 1)
    return nc.fail("a Constant needs exactly one value attribute, got " +
                   std::to_string(node.attribute_size()));
  if (node.output_size() == 0)
    return nc.fail("has no outputs");
  if (auto err = checkArity(node, opset))
    return nc.fail(*err);
  for (const auto &out : node.output()) {
    if (out.empty())
      continue;
    auto prior = producers.find(out);
    if (prior != producers.end())
      return nc.fail("output '" + out + "' is already produced by " +
                     prior->second);
  }
  bool anyRows = false;
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty())
      continue;
    Entry *e = lookup(node.input(i));
    if (!e) {
      auto later = laterProducers.find(node.input(i));
      if (later != laterProducers.end())
        return nc.fail("input '" + node.input(i) + "' is produced by " +
                       later->second +
                       ", which comes later (nodes must be in topological "
                       "order; the graph may have a cycle)");
      return nc.fail("input '" + node.input(i) +
                     "' is not produced by any node, initializer or graph "
                     "input");
    }
    anyRows |= e->rows != nullptr;
  }
  SmallVector<int32_t> dtypes;
  for (int i = 0; i < node.input_size(); ++i) {
    Entry *e = node.input(i).empty() ? nullptr : lookup(node.input(i));
    int32_t dt = 0;
    if (e && e->host)
      dt = static_cast<int32_t>(e->host->dtype);
    else if (e && e->initializer)
      dt = e->initializer->data_type();
    else if (e && e->value)
      dt = onnxDtypeOf(cast<ShapedType>(e->value.getType()).getElementType());
    dtypes.push_back(dt);
  }
  if (auto err = checkInputTypes(node, opset, dtypes))
    return nc.fail(*err);
  if (failed(anyRows ? importRowNode(node, index, opset)
                     : dispatchNode(node, index, opset)))
    return failure();
  recordOutputs(node, index);
  return success();
}

LogicalResult GraphImporter::dispatchNode(const onnx::NodeProto &node,
                                          int index, int64_t opset) {
  NodeContext nc(*this, node, opset, nodeLoc(node, index));
  nc.index = index;
  if (llvm::any_of(node.input(), [&](const std::string &name) {
        return !name.empty() && lookup(name)->sym;
      }))
    return dispatchSymbolic(nc);
  SmallVector<const HostTensor *> hostInputs;
  // Decode initializers only for a node that can fold: a MatMul's weight is
  // not worth a host copy when its other operand is a graph value.
  bool allKnown = llvm::all_of(node.input(), [&](const std::string &name) {
    return name.empty() || canHost(*lookup(name));
  });
  for (int i = 0; allKnown && i < node.input_size(); ++i) {
    const HostTensor *h =
        node.input(i).empty() ? nullptr : hostOf(*lookup(node.input(i)));
    allKnown &= node.input(i).empty() || h != nullptr;
    hostInputs.push_back(h);
  }
  if (allKnown) {
    std::vector<HostTensor> outs;
    std::string foldError;
    bool folded = foldNode(node, opset, hostInputs, outs, foldError);
    if (!foldError.empty())
      return nc.fail(foldError);
    if (folded) {
      for (size_t i = 0; i < outs.size(); ++i)
        nc.bindHost(i, std::move(outs[i]));
      return success();
    }
  }
  auto it = handlers.find(node.op_type());
  if (it == handlers.end())
    return nc.fail("unsupported op '" + node.op_type() + "' (domain ai.onnx)");
  if (mlir::failed(it->second(nc)) || nc.failed())
    return nc.fail("import failed");
  for (const auto &out : node.output())
    if (!out.empty() && !lookup(out))
      return nc.fail("output '" + out + "' is not supported");
  return success();
}

/// Ops whose handlers read shape operands computed from dynamic dims
/// (NodeContext::symInts).
static bool takesSymbolicShapes(StringRef op) {
  return op == "Reshape" || op == "Expand" || op == "ConstantOfShape" ||
         op == "Slice" || op == "Range";
}

LogicalResult GraphImporter::dispatchSymbolic(NodeContext &nc) {
  const onnx::NodeProto &node = nc.node;
  // Shape arithmetic: every input a small host integer tensor or symbolic.
  SmallVector<std::optional<SymTensor>> lifted(node.input_size());
  SmallVector<const SymTensor *> inputs;
  bool onHost = true;
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    // Only small host tensors can be shape arithmetic: a large initializer
    // is not decoded to find that out.
    Entry &e = *lookup(node.input(i));
    int64_t n = 1;
    if (e.host)
      n = e.host->numel();
    else if (e.initializer)
      for (int64_t d : e.initializer->dims())
        n = d < 0 || d > kSymLimit ? kSymLimit + 1
                                   : std::min(n * d, kSymLimit + 1);
    if (!e.sym && n <= kSymLimit && canHost(e))
      if (HostTensor *h = hostOf(e))
        lifted[i] = liftHost(*h);
    inputs.push_back(e.sym ? e.sym.get() : lifted[i] ? &*lifted[i] : nullptr);
    onHost &= inputs.back() != nullptr;
  }
  std::string why;
  if (onHost && node.output_size() == 1) {
    std::optional<SymTensor> r =
        foldSymbolic(node, nc.opset, inputs, symbolMaxes(), symbolNames(), why);
    if (r) {
      nc.bindSym(0, std::move(*r));
      return success();
    }
  }
  // A consumer takes symbolic shape operands, not symbolic data.
  bool dataIsSym = node.op_type() != "ConstantOfShape" &&
                   node.op_type() != "Range" && !node.input(0).empty() &&
                   lookup(node.input(0))->sym;
  if (takesSymbolicShapes(node.op_type()) && !dataIsSym) {
    auto it = handlers.find(node.op_type());
    if (failed(it->second(nc)) || nc.failed())
      return nc.fail("import failed");
    return success();
  }
  for (int i = 0; i < node.input_size(); ++i) {
    Entry *e = node.input(i).empty() ? nullptr : lookup(node.input(i));
    if (e && e->sym)
      return nc.fail(
          "input " + std::to_string(i) + " ('" + node.input(i) +
          "') is computed from dynamic dims, " +
          symText(*e->sym, symbolNames()) + ", and " +
          (why.empty() ? node.op_type() + " cannot take it yet" : why) +
          " (give the model's inputs a static shape with --input-shape)");
  }
  return nc.fail("import failed");
}

static std::string printType(Type t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << t;
  return text;
}

LogicalResult GraphImporter::checkDeclaredOutput(const onnx::ValueInfoProto &out,
                                                RankedTensorType type) {
  if (out.name().empty())
    return fail("a graph output has an empty name");
  if (!out.type().has_tensor_type())
    return success();
  const auto &tt = out.type().tensor_type();
  if (tt.elem_type() != 0) {
    Type declared = toMLIRType(&ctx, tt.elem_type());
    if (declared != type.getElementType())
      return fail("graph output '" + out.name() + "' is declared " +
                  dtypeName(tt.elem_type()) + " but the graph computes " +
                  printType(type.getElementType()));
  }
  if (!tt.has_shape())
    return success();
  std::string shape = graph::shapeStr(type.getShape());
  if (tt.shape().dim_size() != type.getRank())
    return fail("graph output '" + out.name() + "' is declared with rank " +
                std::to_string(tt.shape().dim_size()) +
                " but the graph computes shape " + shape);
  graph::SymShape dims = graph::dimsOf(type);
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    const auto &dim = tt.shape().dim(d);
    if (dim.has_dim_value() && !dims.sym[d].isConstant())
      return fail(
          "graph output '" + out.name() + "' dim " + std::to_string(d) +
          " is declared " + std::to_string(dim.dim_value()) +
          " but the graph computes shape " +
          dims.str(llvm::to_vector(llvm::map_range(
              symbols, [](const graph::Symbol &x) { return x.name; }))) +
          ", dynamic in that dim");
    if (dim.has_dim_value() && dim.dim_value() != type.getDimSize(d))
      return fail("graph output '" + out.name() + "' dim " +
                  std::to_string(d) + " is declared " +
                  std::to_string(dim.dim_value()) +
                  " but the graph computes shape " + shape);
  }
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run(onnx::ModelProto &model,
                                         const ONNXImportOptions &options) {
  if (!model.has_graph() || model.ir_version() <= 0) {
    (void)fail("not an ONNX model (no ir_version or graph)");
    return nullptr;
  }
  if (model.ir_version() > kMaxIRVersion) {
    (void)fail("IR version " + std::to_string(model.ir_version()) +
               " is newer than the newest supported (" +
               std::to_string(kMaxIRVersion) + ")");
    return nullptr;
  }
  int64_t opset = -1;
  for (const auto &imp : model.opset_import()) {
    if (!imp.domain().empty() && imp.domain() != "ai.onnx")
      continue;
    if (opset >= 0 && opset != imp.version()) {
      (void)fail("the model imports the ai.onnx opset twice, as " +
                 std::to_string(opset) + " and " +
                 std::to_string(imp.version()));
      return nullptr;
    }
    opset = imp.version();
  }
  if (opset < 0) {
    (void)fail(model.opset_import_size() == 0
                   ? "the model imports no opset (opset_import is empty; "
                     "IR version " + std::to_string(model.ir_version()) + ")"
                   : std::string("the model does not import the ai.onnx "
                                 "opset"));
    return nullptr;
  }
  const onnx::GraphProto &graph = model.graph();
  if (opset < 7 || opset > 22) {
    (void)fail("unsupported opset " + std::to_string(opset) +
         " of domain ai.onnx (supported: 7 to 22)");
    return nullptr;
  }
  if (graph.output_size() == 0) {
    (void)fail("graph '" + graph.name() + "' is empty (it has no outputs)");
    return nullptr;
  }
  if (graph.sparse_initializer_size()) {
    (void)fail("sparse initializer '" + graph.sparse_initializer(0).values().name() +
               "': sparse tensors are not supported");
    return nullptr;
  }
  SmallVector<std::string> inputNames;
  SmallVector<Type> inputTypes;
  if (failed(declareInputs(graph, options, inputNames, inputTypes)))
    return nullptr;
  // Who defines each name, for the one-writer rule and for messages about
  // nodes out of order.
  for (const auto &init : graph.initializer())
    producers.try_emplace(init.name(), "initializer '" + init.name() + "'");
  for (const auto &in : graph.input())
    producers.try_emplace(in.name(), "graph input '" + in.name() + "'");
  for (int i = graph.node_size() - 1; i >= 0; --i) {
    const auto &n = graph.node(i);
    for (const auto &out : n.output())
      if (!out.empty())
        laterProducers[out] = n.name().empty()
                                  ? "node #" + std::to_string(i)
                                  : "node '" + n.name() + "'";
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(
      FileLineColLoc::get(builder.getStringAttr(path), 0, 0));
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<func::FuncOp>(
      module->getLoc(), "main", builder.getFunctionType(inputTypes, {}));
  Block *body = func.addEntryBlock();
  if (!symbols.empty())
    func->setAttr(graph::kDimsAttr, graph::symbolsAttr(&ctx, symbols));
  // The name attributes are set all at once: setArgAttr/setResultAttr in a
  // loop rebuild the whole attribute array each time (quadratic in the
  // number of inputs and outputs).
  auto nameDict = [&](StringRef name) {
    return DictionaryAttr::get(
        &ctx, {builder.getNamedAttr("graph.name", builder.getStringAttr(name))});
  };
  SmallVector<DictionaryAttr> argAttrs;
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    values[name].value = body->getArgument(i);
    values[name].isGraphInput = true;
    argAttrs.push_back(nameDict(name));
  }
  func.setAllArgAttrs(argAttrs);
  // Graph inputs bound by --const-input are still graph inputs for messages.
  for (const auto &kv : options.constInputs)
    if (Entry *e = lookup(kv.first))
      e->isGraphInput = true;
  builder.setInsertionPointToEnd(body);

  for (int i = 0; i < graph.node_size(); ++i)
    if (failed(importNode(graph.node(i), i, opset)))
      return nullptr;

  SmallVector<Value> results;
  for (const auto &out : graph.output()) {
    Entry *e = lookup(out.name());
    if (!e) {
      (void)fail("graph output '" + out.name() + "' is not produced by any node");
      return nullptr;
    }
    if (e->sym) {
      (void)fail("graph output '" + out.name() +
                 "' is computed from dynamic "
                 "dims, " +
                 sym::shapeStr(e->sym->values, symbolNames()) +
                 ": sizes as outputs are not supported yet");
      return nullptr;
    }
    if (e->hasRows()) {
      (void)fail("graph output '" + out.name() +
                 "' has a data-dependent number of rows (from " +
                 e->rows->source +
                 "), which a static-shape program cannot return");
      return nullptr;
    }
    Value v = materialize(*e, out.name());
    if (failed(checkDeclaredOutput(out, cast<RankedTensorType>(v.getType()))))
      return nullptr;
    results.push_back(v);
  }
  builder.create<func::ReturnOp>(module->getLoc(), results);
  func.setType(builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
  SmallVector<DictionaryAttr> resultAttrs;
  for (const auto &out : graph.output())
    resultAttrs.push_back(nameDict(out.name()));
  func.setAllResultAttrs(resultAttrs);

  std::string diag;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (diag.empty())
      diag = d.str();
    return success();
  });
  if (failed(verify(*module))) {
    (void)fail("internal error: imported IR does not verify: " + diag);
    return nullptr;
  }
  return module;
}

} // namespace onnximport

OwningOpRef<ModuleOp> importONNXModel(MLIRContext &context,
                                      const std::string &path,
                                      const ONNXImportOptions &options,
                                      std::string &error) {
  context.loadDialect<graph::GraphDialect, func::FuncDialect>();
  if (path.empty()) {
    error = "the model path is empty";
    return nullptr;
  }
  if (llvm::sys::fs::is_directory(path)) {
    error = onnximport::printable(path) + ": is a directory, not an ONNX model file";
    return nullptr;
  }
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(path, st) &&
      st.type() != llvm::sys::fs::file_type::regular_file) {
    error = onnximport::printable(path) +
            ": is not a regular file (a device, FIFO or socket)";
    return nullptr;
  }
  std::string baseDir = ".";
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos)
    baseDir = path.substr(0, slash);
  onnximport::GraphImporter importer(context, path, baseDir);
  // Kept alive by the weight blobs that view its small raw_data.
  auto model = std::make_shared<onnx::ModelProto>();
  // The file is mapped (through the importer's external files, so that the
  // weights left in it are viewed through the same mapping) and parsed in
  // place: large initializers' raw_data is not copied. A file whose real
  // path is not in the model's folder (a symlink from elsewhere) could not
  // name itself as external data: protobuf copies its weights.
  llvm::SmallString<256> realFile, realDir;
  std::string mapError;
  std::shared_ptr<const onnximport::ExternalFiles::Mapping> mapping;
  if (!llvm::sys::fs::real_path(path, realFile) &&
      !llvm::sys::fs::real_path(baseDir, realDir))
    mapping = importer.externalFiles.map(realFile.str().str(), mapError);
  bool inPlace = mapping && llvm::sys::path::parent_path(realFile) == realDir;
  bool parsed = false;
  // protobuf reads at most 2 GB. Parsed whole from the mapping, a file would
  // live twice in memory; from 1 GB on it streams instead, so that the peak
  // stays under the file + 1 GB.
  if (mapping && mapping->size < (size_t(1) << 31) &&
      (inPlace || mapping->size < (size_t(1) << 30))) {
    if (inPlace)
      parsed = onnximport::parseModelInPlace(
          mapping->data, mapping->size,
          llvm::sys::path::filename(realFile).str(), 64 << 10, *model,
          importer.inPlace);
    if (!parsed) {
      importer.inPlace.clear();
      model->Clear();
      parsed = model->ParseFromArray(mapping->data, (int)mapping->size);
    }
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      error = onnximport::printable(path) + ": cannot open file";
      return nullptr;
    }
    parsed = model->ParseFromIstream(&in);
  }
  if (!parsed) {
    error = path + ": not a valid ONNX model (protobuf parsing failed: the "
                   "file is truncated, corrupt or not ONNX)";
    return nullptr;
  }
  importer.owner = model;
  importer.shapesOnly = options.shapesOnly;
  auto module = importer.run(*model, options);
  if (!module) {
    // Names come from the model: escape control characters so that the
    // error stays one line.
    error = onnximport::printable(importer.error.empty() ? path + ": import failed"
                                             : importer.error);
    return nullptr;
  }
  return module;
}

} // namespace shardc
