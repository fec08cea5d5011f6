//===- ExportModel.cpp - the model, its names and initializers ------------===//
//
// exportONNX walks `@main` in order: the arguments become graph inputs
// (named by their `graph.name`), each op its nodes (the family tables of
// Export*.cpp), each graph.constant one initializer on first use, and the
// returned values graph outputs under their `graph.name`. A value is
// named once; an output that is an input, a constant or returned twice
// goes through an Identity.
//
//===----------------------------------------------------------------------===//

#include "Exporter.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/FileSystem.h"

#include <climits>

using namespace mlir;

namespace shardc::onnxexport {

/// The opset the exporter writes (LayerNormalization is in 17; Gelu and
/// RMSNormalization come later and are decomposed).
static constexpr int64_t kOpset = 17;
/// Tensors from this size go to the external data file when there is one.
static constexpr int64_t kExternalMin = 1024;

int32_t onnxType(Type type) {
  std::optional<graph::ScalarType> st = graph::scalarTypeOf(type);
  return st ? static_cast<int32_t>(*st) : 0;
}

static int64_t elementBytes(Type t) {
  if (t.isInteger(1))
    return 1;
  return t.isIntOrFloat() ? (t.getIntOrFloatBitWidth() + 7) / 8 : 0;
}

/// The first name in `loc` (the ONNX node an op came from).
static std::string locName(Location loc) {
  if (auto n = dyn_cast<NameLoc>(loc))
    return n.getName().str();
  if (auto f = dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (std::string s = locName(l); !s.empty())
        return s;
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return locName(c.getCallee());
  return "";
}

static void setValueInfo(onnx::ValueInfoProto &vi, const std::string &name,
                         Type type) {
  vi.set_name(name);
  auto ranked = cast<RankedTensorType>(type);
  auto *tensor = vi.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnxType(ranked.getElementType()));
  auto *shape = tensor->mutable_shape();
  for (int64_t d : ranked.getShape())
    shape->add_dim()->set_dim_value(d);
}

std::string Exporter::unique(std::string base) {
  if (base.empty())
    base = "t";
  if (used.insert(base).second)
    return base;
  for (int64_t i = 1;; ++i) {
    std::string s = base + "_" + std::to_string(i);
    if (used.insert(s).second)
      return s;
  }
}

std::string Exporter::tmp(Operation *op, StringRef hint) {
  std::string base = locName(op->getLoc());
  return unique(base.empty() ? hint.str() : base + "/" + hint.str());
}

std::string Exporter::out(Value v) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  std::string base = locName(v.getLoc());
  if (base.empty() && v.getDefiningOp())
    base = v.getDefiningOp()->getName().stripDialect().str();
  if (auto r = dyn_cast<OpResult>(v); r && r.getOwner()->getNumResults() > 1)
    base += ":" + std::to_string(r.getResultNumber());
  return names[v] = unique(base);
}

std::string Exporter::in(Value v) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  if (Operation *def = v.getDefiningOp(); def && isa<graph::ConstantOp>(def))
    return names[v] = initializer(def);
  // Ops are visited in order, so an operand is named before its use.
  return out(v);
}

onnx::NodeProto &Exporter::node(Operation *op, StringRef type,
                                ArrayRef<std::string> inputs,
                                ArrayRef<std::string> outputs) {
  onnx::NodeProto &n = *graph.add_node();
  std::string base = locName(op->getLoc());
  n.set_name(
      unique((base.empty() ? std::string("node") : base) + "#" + type.str()));
  n.set_op_type(type.str());
  for (const std::string &s : inputs)
    n.add_input(s);
  for (const std::string &s : outputs)
    n.add_output(s);
  return n;
}

std::string Exporter::value(Operation *op, StringRef type,
                            ArrayRef<std::string> inputs,
                            onnx::NodeProto **made) {
  std::string name = tmp(op, type.lower());
  onnx::NodeProto &n = node(op, type, inputs, {name});
  if (made)
    *made = &n;
  return name;
}

void Exporter::result(Operation *op, const std::string &name, unsigned i) {
  std::string want = out(op->getResult(i));
  int n = graph.node_size();
  if (n > 0 && graph.node(n - 1).output_size() == 1 &&
      graph.node(n - 1).output(0) == name) {
    graph.mutable_node(n - 1)->set_output(0, want);
    return;
  }
  node(op, "Identity", {name}, {want});
}

onnx::TensorProto &Exporter::newInitializer(const std::string &name,
                                            int32_t type,
                                            ArrayRef<int64_t> dims) {
  onnx::TensorProto &t = *graph.add_initializer();
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : dims)
    t.add_dims(d);
  return t;
}

void Exporter::storeBytes(onnx::TensorProto &t, std::string bytes) {
  if (dataFile && static_cast<int64_t>(bytes.size()) >= kExternalMin) {
    // 64-byte aligned, so that a reader may map the file.
    int64_t pad = (64 - externalOffset % 64) % 64;
    dataFile->write_zeros(pad);
    externalOffset += pad;
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto entry = [&](const char *key, const std::string &value) {
      auto *kv = t.add_external_data();
      kv->set_key(key);
      kv->set_value(value);
    };
    entry("location", options.dataLocation);
    entry("offset", std::to_string(externalOffset));
    entry("length", std::to_string(bytes.size()));
    dataFile->write(bytes.data(), bytes.size());
    externalOffset += static_cast<int64_t>(bytes.size());
    return;
  }
  t.set_raw_data(std::move(bytes));
}

std::string Exporter::initializer(Operation *op) {
  auto c = cast<graph::ConstantOp>(op);
  auto type = cast<RankedTensorType>(c.getType());
  Type elem = type.getElementType();
  int64_t eb = elementBytes(elem);
  int32_t code = onnxType(elem);
  // The weight's name, else the ONNX node the constant came from (or the
  // op that reads it first) with "/const".
  std::string base = graph::derivedKey(c.getValue(), "", "");
  if (base.empty()) {
    base = locName(op->getLoc());
    if (base.empty() && current)
      base = locName(current->getLoc());
    base = base.empty() ? "const" : base + "/const";
  }
  std::string name = unique(base);
  std::string bytes;
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  bool windowed = op->hasAttr(graph::kSourceAttr);
  if (code == 0 || eb == 0) {
    op->emitError("--emit=onnx: a constant of type ")
        << type << " has no ONNX element type";
    return name;
  }
  if (elem.isInteger(1) && dense && !windowed) {
    for (bool b : dense.getValues<bool>())
      bytes.push_back(b ? 1 : 0);
  } else if (dense && dense.isSplat() && !windowed) {
    ArrayRef<char> one = dense.getRawData();
    for (int64_t i = 0, n = type.getNumElements(); i < n; ++i)
      bytes.append(one.data(), eb);
  } else if (std::optional<graph::Window> w =
                 graph::windowOf(op, c.getValue())) {
    std::vector<char> b = graph::windowBytes(*w, type.getShape());
    bytes.assign(b.begin(), b.end());
  } else {
    op->emitError("--emit=onnx: the data of constant '")
        << name << "' is absent (a shape-only import has no weights)";
    return name;
  }
  storeBytes(newInitializer(name, code, type.getShape()), std::move(bytes));
  return name;
}

std::string Exporter::ints(ArrayRef<int64_t> v, Operation *op, StringRef hint) {
  std::string name = tmp(op, hint);
  onnx::TensorProto &t =
      newInitializer(name, onnx::TensorProto::INT64, {(int64_t)v.size()});
  for (int64_t x : v)
    t.add_int64_data(x);
  return name;
}

std::string Exporter::int64Scalar(int64_t v, Operation *op, StringRef hint) {
  std::string name = tmp(op, hint);
  newInitializer(name, onnx::TensorProto::INT64, {}).add_int64_data(v);
  return name;
}

std::string Exporter::floats(ArrayRef<float> v, Operation *op, StringRef hint) {
  std::string name = tmp(op, hint);
  onnx::TensorProto &t =
      newInitializer(name, onnx::TensorProto::FLOAT, {(int64_t)v.size()});
  for (float x : v)
    t.add_float_data(x);
  return name;
}

std::string scalarBytes(double v, Type elem, int64_t n) {
  // Through the evaluator's conversion, so that bf16/f16 and integer
  // elements round as the graph's constants do.
  graph::HostTensor t;
  t.dtype = *graph::scalarTypeOf(elem);
  t.resize(1);
  t.set(0, v);
  DenseElementsAttr attr = graph::toElementsAttr(elem.getContext(), t);
  std::string one;
  if (elem.isInteger(1))
    one.push_back(attr.getValues<bool>()[0] ? 1 : 0);
  else
    one.assign(attr.getRawData().data(), elementBytes(elem));
  std::string bytes;
  bytes.reserve(one.size() * n);
  for (int64_t i = 0; i < n; ++i)
    bytes += one;
  return bytes;
}

std::string Exporter::scalar(double v, Type elem, Operation *op, StringRef hint,
                             ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  std::string name = tmp(op, hint);
  storeBytes(newInitializer(name, onnxType(elem), dims),
             scalarBytes(v, elem, n));
  return name;
}

std::string Exporter::castTo(Operation *op, const std::string &name, Type from,
                             Type to) {
  if (from == to)
    return name;
  onnx::NodeProto *n;
  std::string r = value(op, "Cast", {name}, &n);
  attr(*n, "to", static_cast<int64_t>(onnxType(to)));
  return r;
}

LogicalResult Exporter::run(func::FuncOp func) {
  ExportMap table;
  registerElementwiseExports(table);
  registerShapeExports(table);
  registerMathExports(table);
  registerContractionExports(table);
  registerQuantExports(table);

  // The external data file, when the weights are past the inline limit.
  int64_t total = 0;
  func.walk([&](graph::ConstantOp c) {
    auto t = cast<RankedTensorType>(c.getType());
    total += t.getNumElements() * elementBytes(t.getElementType());
  });
  if (!options.dataPath.empty() && total > options.inlineLimit) {
    std::error_code ec;
    dataFile = std::make_unique<llvm::raw_fd_ostream>(options.dataPath, ec);
    if (ec)
      return func.emitError("--emit=onnx: cannot write ")
             << options.dataPath << ": " << ec.message();
  }

  Block &body = func.getBody().front();
  auto name = [&](DictionaryAttr attrs, const char *prefix, unsigned i) {
    if (attrs)
      if (auto s = attrs.getAs<StringAttr>("graph.name"))
        return s.str();
    return std::string(prefix) + std::to_string(i);
  };
  for (BlockArgument arg : body.getArguments()) {
    std::string n = unique(name(func.getArgAttrDict(arg.getArgNumber()),
                                "input_", arg.getArgNumber()));
    names[arg] = n;
    setValueInfo(*graph.add_input(), n, arg.getType());
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  std::vector<std::pair<Value, std::string>> through;
  std::vector<std::string> outputNames;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    std::string n = unique(name(func.getResultAttrDict(i), "output_", i));
    outputNames.push_back(n);
    bool direct = v.getDefiningOp() &&
                  !isa<graph::ConstantOp>(v.getDefiningOp()) && !names.count(v);
    if (direct)
      names[v] = n;
    else
      through.push_back({v, n});
  }

  for (Operation &op : body.without_terminator()) {
    if (isa<graph::ConstantOp>(op))
      continue; // an initializer at its first use
    auto it = table.find(op.getName().getStringRef());
    if (it == table.end())
      return op.emitError("--emit=onnx: '")
             << op.getName() << "' has no ONNX form";
    current = &op;
    // A diagnostic from an initializer (absent weights) fails the op.
    bool failedHere = false;
    ScopedDiagnosticHandler handler(op.getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        failedHere = true;
      return failure(); // pass it on
    });
    if (failed(it->second(*this, &op)) || failedHere)
      return failure();
  }
  for (auto &[v, n] : through)
    node(ret, "Identity", {in(v)}, {n});
  for (auto [i, v] : llvm::enumerate(ret.getOperands()))
    setValueInfo(*graph.add_output(), outputNames[i], v.getType());
  return checkWritten(func);
}

LogicalResult Exporter::checkWritten(func::FuncOp func) {
  // Every name a node reads or the graph returns is written first: a
  // result an op's export left out would otherwise make a model that no
  // runtime loads.
  llvm::StringSet<> written;
  for (const auto &i : graph.input())
    written.insert(i.name());
  for (const auto &t : graph.initializer())
    written.insert(t.name());
  for (const auto &n : graph.node()) {
    for (const std::string &in : n.input())
      if (!in.empty() && !written.count(in))
        return func.emitError("--emit=onnx: node '")
               << n.name() << "' reads '" << in << "', which nothing writes";
    for (const std::string &out : n.output())
      written.insert(out);
  }
  for (const auto &o : graph.output())
    if (!written.count(o.name()))
      return func.emitError("--emit=onnx: output '")
             << o.name() << "' is not written by the export";
  return success();
}

void attr(onnx::NodeProto &n, StringRef name, int64_t v) {
  auto *a = n.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void attrFloat(onnx::NodeProto &n, StringRef name, float v) {
  auto *a = n.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void attr(onnx::NodeProto &n, StringRef name, ArrayRef<int64_t> v) {
  auto *a = n.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a->add_ints(x);
}

void attrTensor(onnx::NodeProto &n, StringRef name, double v, Type elem) {
  auto *a = n.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto &t = *a->mutable_t();
  t.set_data_type(onnxType(elem));
  t.add_dims(1);
  t.set_raw_data(scalarBytes(v, elem, 1));
}

void attr(onnx::NodeProto &n, StringRef name, StringRef v) {
  auto *a = n.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v.str());
}

} // namespace shardc::onnxexport

namespace shardc {

LogicalResult exportONNX(ModuleOp module, llvm::raw_ostream &os,
                         const ONNXExportOptions &options) {
  func::FuncOp main = module.lookupSymbol<func::FuncOp>("main");
  if (!main) {
    for (auto f : module.getOps<func::FuncOp>())
      if (!main)
        main = f;
  }
  if (!main || main.isExternal())
    return module.emitError("--emit=onnx: the module has no function");
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("shardc");
  model.set_producer_version(options.producerVersion);
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(onnxexport::kOpset);
  onnx::GraphProto &graph = *model.mutable_graph();
  graph.set_name(main.getName().str());
  graph.set_doc_string("written by shardc --emit=onnx: the optimized "
                       "single-rank graph (fused, quantized, pruned)");
  onnxexport::Exporter exporter(graph, options);
  if (failed(exporter.run(main)))
    return failure();
  size_t size = model.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX))
    return main.emitError("--emit=onnx: the model is ")
           << size / (1 << 20)
           << " MiB, past protobuf's 2 GiB; write it to a file (-o "
              "model.onnx) so that its weights go to external data";
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return main.emitError("--emit=onnx: protobuf could not serialize the "
                          "model");
  os << bytes;
  return success();
}

} // namespace shardc
