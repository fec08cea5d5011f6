//===- Importer.h - internals of the ONNX importer -------------*- C++ -*-===//
//
// The importer walks the ONNX graph in order. Every value is an Entry: an SSA
// value of the graph dialect, a tensor known at compile time (HostTensor), or
// an initializer not yet materialized. Nodes whose inputs are all known are
// evaluated on the host (FoldShapeOps.cpp, through the graph dialect's
// constant evaluator), which is how PyTorch's
// Shape/Gather/Concat/Unsqueeze chains vanish. Every other node goes to the
// handler of its op family (Import*.cpp), which maps the opset-specific ONNX
// form onto the canonical graph op.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_IMPORT_ONNX_IMPORTER_H
#define SHARDC_LIB_IMPORT_ONNX_IMPORTER_H

#include "shardc/Import/ONNX.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/SymbolicShapes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <memory>
#include <optional>

namespace shardc::onnximport {

/// The number of elements of a tensor of shape `dims`.
inline int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Largest number of elements the importer evaluates on the host.
constexpr int64_t kFoldLimit = 1 << 20;
/// Largest accepted dimension.
constexpr int64_t kMaxDim = int64_t(1) << 40;
/// The newest ONNX IR version the importer reads (the newest in ONNX's
/// backend node tests).
constexpr int64_t kMaxIRVersion = 13;

/// A tensor whose value is known at compile time: the graph dialect's
/// constant evaluator holds it (ConstantEval.h), its dtype an ONNX element
/// type code.
using graph::HostTensor;
using graph::ScalarType;

/// Name of an ONNX element type ("FLOAT16").
std::string dtypeName(int32_t dtype);
inline std::string dtypeName(ScalarType dtype) {
  return dtypeName(static_cast<int32_t>(dtype));
}
/// `s` with control characters and backslashes escaped (\xNN, \\), so
/// that a name always prints on one line.
std::string printable(llvm::StringRef s);
/// The MLIR element type of an ONNX one, or null if unsupported.
mlir::Type toMLIRType(mlir::MLIRContext *ctx, int32_t dtype);
/// Size in bytes of one element of an ONNX type (0 if unsupported).
int64_t dtypeSize(int32_t dtype);
/// A model's external data files, each mapped read-only once, on first use,
/// and unmapped when the last view's owner lets go (weight blobs view the
/// mapping: a 4 GB model is neither read nor copied before its bytes are
/// needed, and never lives twice in memory).
class ExternalFiles {
public:
  struct Mapping {
    const char *data = nullptr;
    size_t size = 0;
    ~Mapping();
  };
  /// The mapping of the regular file at `realPath`, or null with `error`.
  std::shared_ptr<const Mapping> map(const std::string &realPath,
                                     std::string &error);

private:
  llvm::StringMap<std::shared_ptr<const Mapping>> files;
};

/// The packed little-endian bytes of a TensorProto: a view of raw_data, or
/// `storage` filled from typed fields or external data. Checks the size.
/// With `files`, external data is a view of the mapped file instead, and
/// `owner` (when given) keeps the mapping alive.
std::optional<std::string> tensorBytes(const onnx::TensorProto &t,
                                       const std::string &baseDir,
                                       std::string &storage,
                                       llvm::ArrayRef<char> &bytes,
                                       ExternalFiles *files = nullptr,
                                       std::shared_ptr<const void> *owner =
                                           nullptr);
/// Parses the ModelProto encoded in [data, data + size) as
/// ModelProto::ParseFromArray would, except that the raw_data of each
/// main-graph initializer of at least `minBytes` is not copied: the tensor
/// becomes an external-data reference to its own bytes inside the model
/// file, whose name in the model's folder is `selfName`
/// (ModelParse.cpp). Those tensors are added to `inPlace`. Returns false if
/// the bytes are not a model this walk can take apart (malformed; the
/// caller then lets protobuf parse, and report, the file).
bool parseModelInPlace(const char *data, size_t size,
                       const std::string &selfName, size_t minBytes,
                       onnx::ModelProto &model,
                       llvm::DenseSet<const onnx::TensorProto *> &inPlace);
/// Checks an external tensor's declaration without opening its file (a
/// shape-only import): a supported type, sane dims, a location inside the
/// model's folder by its spelling, and a length, when given, that matches
/// the shape. Returns an error message, or nothing.
std::optional<std::string> checkAbsentExternal(const onnx::TensorProto &t);
/// Decodes a TensorProto (raw, typed or external data) into a HostTensor.
/// `baseDir` resolves external data. Returns an error message on failure.
std::optional<std::string> decodeTensor(const onnx::TensorProto &t,
                                        const std::string &baseDir,
                                        HostTensor &out);
/// Reads a tensor from a .npy or TensorProto .pb file.
std::optional<std::string> readTensorFile(const std::string &path,
                                          HostTensor &out);

/// The data-dependent row count of a NonZero: its rows enumerate the true
/// entries of `mask`, a static i1 tensor of shape `dims` (ImportRows.cpp).
struct RowSet {
  mlir::Value mask;
  llvm::SmallVector<int64_t> dims;
  /// "NonZero 'name'", for messages.
  std::string source;
};

/// The entry in a host shape vector that stands for a RowSet's row count.
constexpr int64_t kRowCount = -(int64_t(1) << 62);

/// An integer tensor whose values depend on dynamic dims: the Shape of a
/// tensor with symbolic dims and the shape arithmetic on it, held on the
/// host as one symbolic size per element (FoldSymbolic.cpp). Small: at most
/// kSymLimit elements. Booleans (comparisons decided for every value of the
/// symbols) are constants 0 and 1.
struct SymTensor {
  llvm::SmallVector<int64_t> dims;
  llvm::SmallVector<sym::Expr> values;
  ScalarType dtype = ScalarType::I64;
  bool isConstant() const;
  /// The host tensor of a SymTensor whose values are all constant.
  HostTensor toHost() const;
};
constexpr int64_t kSymLimit = 64;

struct Entry {
  mlir::Value value;
  std::shared_ptr<HostTensor> host;
  /// A value computed from dynamic dims (no `value`, no `host`).
  std::shared_ptr<SymTensor> sym;
  const onnx::TensorProto *initializer = nullptr;
  bool isGraphInput = false;
  /// A tensor with one data-dependent dim, at `rowPos`, enumerating `rows`:
  /// `value` (or `host`) holds it padded, that dim replaced by the mask's
  /// dims (each the mask's size, or 1 where the tensor does not vary along
  /// it), so every mask position has a row and the mask tells which exist.
  /// With rowPos == -1, `host` is a shape vector holding kRowCount.
  std::shared_ptr<RowSet> rows;
  int64_t rowPos = -1;
  bool hasRows() const { return rows && rowPos >= 0; }
  bool isRowCount() const { return rows && rowPos < 0; }
};

class GraphImporter;

/// One node being imported: input access, typed attribute getters that record
/// the first error, op creation with type inference, and output binding.
class NodeContext {
public:
  NodeContext(GraphImporter &imp, const onnx::NodeProto &node, int64_t opset,
              mlir::Location loc);

  const onnx::NodeProto &node;
  int64_t opset;
  mlir::Location loc;
  mlir::OpBuilder &b;

  // Inputs.
  bool has(int i) const;
  int numInputs() const { return node.input_size(); }
  mlir::Value in(int i);
  mlir::RankedTensorType type(int i);
  int64_t rank(int i) { return type(i).getRank(); }
  /// The compile-time value of input i, or null.
  const HostTensor *constant(int i);
  /// Input i as int64 values; records an error naming `what` if the input is
  /// not a compile-time constant.
  std::optional<llvm::SmallVector<int64_t>> ints(int i, llvm::StringRef what);
  std::optional<double> scalar(int i, llvm::StringRef what);
  /// Input i as symbolic sizes: a compile-time constant, or a value computed
  /// from dynamic dims; records an error naming `what` otherwise.
  std::optional<llvm::SmallVector<sym::Expr>> symInts(int i,
                                                      llvm::StringRef what);
  /// Whether input i is computed from dynamic dims.
  bool isSym(int i);

  // Attributes (the first error is recorded, and the default returned).
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t dflt);
  float getFloat(llvm::StringRef name, float dflt);
  std::string getString(llvm::StringRef name, llvm::StringRef dflt);
  llvm::SmallVector<int64_t> getInts(llvm::StringRef name,
                                     llvm::ArrayRef<int64_t> dflt = {});
  std::vector<float> getFloats(llvm::StringRef name);
  const onnx::TensorProto *getTensor(llvm::StringRef name);

  /// Normalizes a possibly negative axis against `rank`; records an error if
  /// it is out of range.
  int64_t axis(int64_t a, int64_t rank, llvm::StringRef what = "axis");

  // Results.
  /// Creates `graph.<name>` with inferred result types and binds its results
  /// to the node's outputs in order. Returns null after recording an error.
  mlir::Operation *create(llvm::StringRef name, mlir::ValueRange operands,
                          llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  void bind(int output, mlir::Value v);
  /// create()'s first result, for ops that build a node's value in steps:
  /// null after recording an error, and nothing is created once the node
  /// has failed.
  mlir::Value createValue(llvm::StringRef name, mlir::ValueRange operands,
                          llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// Input `i`, or when the node omits it a zero of input `of`'s 8-bit type
  /// (the default zero point of MatMulInteger's and ConvInteger's operand
  /// `of`).
  mlir::Value inOrZeroPoint(int i, int of);
  /// A graph.constant scalar of float type `elem` holding `v`.
  mlir::Value floatScalar(mlir::Type elem, double v);
  /// A graph.constant holding `t`.
  mlir::Value constantOf(const HostTensor &t);
  /// A scalar zero of ONNX type `dtype`; null after recording an error
  /// when the type is not supported.
  mlir::Value zero(int32_t dtype);
  /// Fails if output `i` is requested (named) by the model.
  mlir::LogicalResult rejectOutput(int i, llvm::StringRef what);
  void bindHost(int output, HostTensor t);
  /// Binds a value computed from dynamic dims (a host one when constant).
  void bindSym(int output, SymTensor t);
  /// `exprs` with their values at the bounds: a shape for shapeAttrs. Fails
  /// the node when a dim is not a size for every value of the symbols or
  /// the shape is beyond 2^40 elements at the bounds.
  graph::SymShape symShape(llvm::ArrayRef<sym::Expr> exprs);

  mlir::LogicalResult fail(const llvm::Twine &msg);
  bool failed() const;
  mlir::LogicalResult status() const;

  // Attribute helpers.
  mlir::NamedAttribute named(llvm::StringRef name, mlir::Attribute a);
  mlir::NamedAttribute i64(llvm::StringRef name, int64_t v);
  mlir::NamedAttribute f32(llvm::StringRef name, float v);
  mlir::NamedAttribute boolean(llvm::StringRef name, bool v);
  mlir::NamedAttribute str(llvm::StringRef name, llvm::StringRef v);
  mlir::NamedAttribute array(llvm::StringRef name, llvm::ArrayRef<int64_t> v);

  GraphImporter &imp;
  /// Position of the node in the graph (names nodes without name or outputs).
  int index = -1;
};

using OpHandler = std::function<mlir::LogicalResult(NodeContext &)>;
using HandlerMap = llvm::StringMap<OpHandler>;

void registerElementwiseOps(HandlerMap &map);
void registerMathOps(HandlerMap &map);
void registerShapeOps(HandlerMap &map);
void registerConvOps(HandlerMap &map);
void registerSelectionOps(HandlerMap &map);
void registerRowOps(HandlerMap &map);

/// ONNX Reshape target: 0 copies the input dim (unless allowzero), -1 is
/// inferred. Returns an error message on failure.
std::optional<std::string> resolveReshape(llvm::ArrayRef<int64_t> in,
                                          llvm::ArrayRef<int64_t> shape,
                                          bool allowZero,
                                          llvm::SmallVectorImpl<int64_t> &out);
/// ONNX Slice bounds (any axes subset, negative and out-of-range values)
/// to clamped full-rank starts/ends/steps.
std::optional<std::string>
normalizeSlice(llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<int64_t> starts,
               llvm::ArrayRef<int64_t> ends, llvm::ArrayRef<int64_t> axes,
               llvm::ArrayRef<int64_t> steps, llvm::SmallVectorImpl<int64_t> &s,
               llvm::SmallVectorImpl<int64_t> &e,
               llvm::SmallVectorImpl<int64_t> &st);

/// Host evaluation of a node whose inputs are all known, through the graph
/// dialect's constant evaluator. Returns true and fills `outs` when the op is
/// one the importer folds. Integer arithmetic wraps at the element type's
/// width, as ONNX Runtime's does; an integer division by zero sets `error`
/// and returns false.
bool foldNode(const onnx::NodeProto &node, int64_t opset,
              llvm::ArrayRef<const HostTensor *> inputs,
              std::vector<HostTensor> &outs, std::string &error);

/// A node's INT attribute, or `dflt` when absent (or of another type).
int64_t attrInt(const onnx::NodeProto &n, llvm::StringRef name, int64_t dflt);
/// A node's INTS attribute, if present.
std::optional<llvm::SmallVector<int64_t>> attrInts(const onnx::NodeProto &n,
                                                   llvm::StringRef name);
/// The elements of `t` as int64 (none for null).
llvm::SmallVector<int64_t> hostInts(const HostTensor *t);

/// Shape arithmetic on values computed from dynamic dims (FoldSymbolic.cpp):
/// the node's one output, when the op and its inputs fold exactly (null
/// inputs are absent; host inputs arrive as constant SymTensors), else
/// nullopt with `error` saying why. `maxes` bound the symbols: comparisons
/// fold only when decided for every value in [1, max]; `names` name them in
/// messages.
std::optional<SymTensor> foldSymbolic(const onnx::NodeProto &node,
                                      int64_t opset,
                                      llvm::ArrayRef<const SymTensor *> inputs,
                                      llvm::ArrayRef<int64_t> maxes,
                                      llvm::ArrayRef<std::string> names,
                                      std::string &error);
/// A host integer tensor as a SymTensor (nullopt for floats or more than
/// kSymLimit elements).
std::optional<SymTensor> liftHost(const HostTensor &t);

/// Checks a node's input and output counts, and that no required input is
/// named "", against libonnx's schema of the op at `opset`. Returns an error
/// message on failure; ops libonnx does not know pass.
std::optional<std::string> checkArity(const onnx::NodeProto &node,
                                      int64_t opset);

/// Checks each input's element type (ONNX dtype, 0 = absent) against the
/// type constraints of the op's schema; only at opsets libonnx knows.
std::optional<std::string> checkInputTypes(const onnx::NodeProto &node,
                                           int64_t opset,
                                           llvm::ArrayRef<int32_t> dtypes);
/// The ONNX element type of an MLIR one (0 if none).
int32_t onnxDtypeOf(mlir::Type t);

class GraphImporter {
public:
  GraphImporter(mlir::MLIRContext &ctx, std::string path, std::string baseDir);

  mlir::OwningOpRef<mlir::ModuleOp> run(onnx::ModelProto &model,
                                        const ONNXImportOptions &options);

  mlir::MLIRContext &ctx;
  mlir::OpBuilder builder;
  std::string path, baseDir;
  std::string error;
  llvm::StringMap<Entry> values;
  /// Owner of the bytes that weight blobs view (the parsed model).
  std::shared_ptr<const void> owner;
  /// The mapped external data files weight blobs view.
  ExternalFiles externalFiles;
  /// ONNXImportOptions::shapesOnly: external data stays unopened.
  bool shapesOnly = false;
  /// Initializers whose raw_data parseModelInPlace left in the model file
  /// (external data of the model file itself, present even shape-only).
  llvm::DenseSet<const onnx::TensorProto *> inPlace;
  /// Whether `t` is an initializer whose data this import leaves unread.
  bool isAbsent(const onnx::TensorProto &t) const;

  Entry *lookup(llvm::StringRef name);
  mlir::Value materialize(Entry &e, llvm::StringRef name);
  HostTensor *hostOf(Entry &e);
  /// Whether hostOf(e) has, or would decode, a host value (nothing decoded).
  bool canHost(const Entry &e) const;
  mlir::LogicalResult fail(const llvm::Twine &msg);
  /// The location of a node (its name, or its first output's).
  mlir::Location nodeLoc(const onnx::NodeProto &node, int index);
  /// The symbols' bounds and names (graph.dims).
  llvm::SmallVector<int64_t> symbolMaxes() const;
  /// Each symbol's least value (0 for a KV cache's past length, else 1).
  llvm::SmallVector<int64_t> symbolMins() const;
  llvm::SmallVector<std::string> symbolNames() const;
  /// Folds the node when every input is known, else runs its handler.
  mlir::LogicalResult dispatchNode(const onnx::NodeProto &node, int index,
                                   int64_t opset);
  /// dispatchNode for a node with an input computed from dynamic dims:
  /// folds it symbolically, or runs a handler that takes such shapes.
  mlir::LogicalResult dispatchSymbolic(NodeContext &nc);

private:
  /// Imports a node one of whose inputs has data-dependent rows
  /// (ImportRows.cpp): rewrites it onto the padded tensors and dispatches it.
  mlir::LogicalResult importRowNode(const onnx::NodeProto &node, int index,
                                    int64_t opset);
  mlir::LogicalResult importNode(const onnx::NodeProto &node, int index,
                                 int64_t opset);
  /// Remembers which node produced each of `node`'s outputs.
  void recordOutputs(const onnx::NodeProto &node, int index);
  /// Refuses a graph output whose declared type contradicts the computed one.
  mlir::LogicalResult checkDeclaredOutput(const onnx::ValueInfoProto &out,
                                          mlir::RankedTensorType type);
  /// Refuses a --const-input tensor whose dtype or shape contradicts the
  /// input's declaration.
  mlir::LogicalResult checkBoundInput(const onnx::ValueInfoProto &in,
                                      const HostTensor &t,
                                      const std::string &file);
  /// Name -> what defines it so far: "node 'NAME'" (or "node #i"),
  /// "initializer 'w'" or "graph input 'x'".
  llvm::StringMap<std::string> producers;
  /// Name -> the first node in the graph that writes it (for messages about
  /// nodes out of topological order).
  llvm::StringMap<std::string> laterProducers;
  mlir::LogicalResult declareInputs(const onnx::GraphProto &graph,
                                    const ONNXImportOptions &options,
                                    llvm::SmallVectorImpl<std::string> &names,
                                    llvm::SmallVectorImpl<mlir::Type> &types);
  /// The symbols of the dims --max-shape leaves dynamic, in order of first
  /// appearance (the function's graph.dims), and the symbol of each
  /// dim_param.
  mlir::LogicalResult declareSymbols(const onnx::GraphProto &graph,
                                     const ONNXImportOptions &options);
  /// A dim_param that is a sum of other dims' names and integers ("past +
  /// sequence", Optimum's with-past exports): the sum, when every name has
  /// a symbol; none for a plain name.
  /// A sum past 2^40 at the bounds is none, and sets `tooLarge`.
  std::optional<sym::Expr> paramExpr(llvm::StringRef param,
                                     bool *tooLarge = nullptr) const;
  llvm::SmallVector<graph::Symbol> symbols;
  llvm::StringMap<unsigned> symbolOfParam;
  /// dim_params fixed by a default bound of 1 (ONNXImportOptions::
  /// defaultBounds): static dims of that size.
  llvm::StringMap<int64_t> fixedParams;
  /// The symbol of each unnamed dynamic dim, by "INPUT[d]".
  llvm::StringMap<unsigned> symbolOfUnnamed;
  HandlerMap handlers;
  int resourceCounter = 0;
};

} // namespace shardc::onnximport

#endif // SHARDC_LIB_IMPORT_ONNX_IMPORTER_H
