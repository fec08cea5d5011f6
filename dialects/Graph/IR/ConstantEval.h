//===- ConstantEval.h - host evaluation of graph ops on constants -*- C++ -*-===//
//
// One evaluator for everything shardc computes at compile time: the ONNX
// importer's shape arithmetic (lib/Import/ONNX/FoldShapeOps.cpp), the fold()
// methods of the graph ops (Canonicalize.cpp) and passes that inspect
// constant subgraphs (graph-fuse-attention's masks). Values are HostTensors:
// integers and booleans as int64, floating-point values as doubles that are
// exactly representable in the element type.
//
// Every result is what the generated code computes, element for element:
// integer arithmetic wraps at the element type's width (as ONNX Runtime's);
// float arithmetic is computed in double and rounded once to the element
// type, which equals fp32 arithmetic rounded to the type (the code computes
// fp16/bf16 in fp32 and rounds every op); max and min propagate NaN; integer
// division truncates and INT_MIN / -1 wraps. What the code leaves undefined
// (an integer division by zero, a float cast to an integer type it does not
// fit, abs of the most negative i32/i64) fails, or, for the importer's shape
// arithmetic, takes the importer's definition (UndefinedPolicy::Define).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_GRAPH_IR_CONSTANTEVAL_H
#define SHARDC_DIALECTS_GRAPH_IR_CONSTANTEVAL_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace shardc::graph {

/// Largest result, in elements, that the fold() methods of the graph ops
/// create. A folded constant is a DenseElementsAttr uniqued in the context
/// for the rest of the compilation and written into the program's weights,
/// so canonicalize must not trade a cheap kernel for a large one: 2^16
/// elements (256 KiB at fp32) holds every shape computation and index
/// table exporters emit, and stays far below the weights it sits beside.
/// The importer (2^20, kFoldLimit) and the fusion passes' analyses set
/// their own bounds.
constexpr int64_t kFoldCap = int64_t(1) << 16;

/// The element types the evaluator handles. The values are ONNX's
/// TensorProto.DataType codes (onnx.proto), so the importer converts by a
/// cast once it has checked the code with scalarTypeFromOnnx.
enum class ScalarType : int32_t {
  F32 = 1, U8 = 2, I8 = 3, U16 = 4, I16 = 5, I32 = 6, I64 = 7, Bool = 9,
  F16 = 10, F64 = 11, U32 = 12, U64 = 13, BF16 = 16,
};

/// The ScalarType of an ONNX element type code, if the evaluator has one.
std::optional<ScalarType> scalarTypeFromOnnx(int32_t code);
/// The ScalarType of an MLIR element type (signless and signed integers are
/// signed), if the evaluator has one.
std::optional<ScalarType> scalarTypeOf(mlir::Type type);
/// The MLIR element type of a ScalarType (signless for signed integers).
mlir::Type toMLIRType(mlir::MLIRContext *ctx, ScalarType type);
bool isFloatType(ScalarType type);
bool isUnsignedType(ScalarType type);
/// The range of an integer type (bool: 0 and 1), as int64 (uint64's upper
/// end saturates; callers treat it separately).
std::pair<int64_t, int64_t> intRange(ScalarType type);

/// A tensor whose value is known at compile time.
struct HostTensor {
  ScalarType dtype = ScalarType::F32;
  llvm::SmallVector<int64_t> dims;
  /// Integers and booleans (uint64 as its bit pattern).
  std::vector<int64_t> ints;
  /// Floating-point values, each exactly representable in `dtype`.
  std::vector<double> floats;

  bool isFloat() const { return isFloatType(dtype); }
  int64_t numel() const;
  /// Element i as a double (uint64 read as unsigned).
  double f(int64_t i) const;
  /// Element i as an integer; floats outside int64's range saturate and NaN
  /// gives 0 instead of being undefined.
  int64_t i(int64_t i) const { return isFloat() ? saturate(floats[i]) : ints[i]; }
  static int64_t saturate(double v);
  /// Sets the element count (values zero).
  void resize(int64_t n);
  /// Stores `v`: rounded to a float dtype, saturated and wrapped to an
  /// integer one.
  void set(int64_t i, double v);
  /// Stores `v` wrapped to an integer dtype (converted to a float one).
  void setInt(int64_t i, int64_t v);
};

/// What an evaluation does with elements whose result the generated code
/// leaves to the machine (a float cast to an integer type that cannot hold
/// it, NaN included; abs of the most negative i32 or i64).
enum class UndefinedPolicy {
  /// Fail: the op stays for the runtime (fold() and the passes).
  Refuse,
  /// Saturate to int64 (NaN to 0), then wrap to the type: the importer's
  /// answer for shape arithmetic, which must produce a value.
  Define,
};

/// Bounds and policy of one evaluation, and why it failed on bad input.
struct EvalContext {
  /// Largest result (and intermediate) in elements.
  int64_t maxElements = kFoldCap;
  UndefinedPolicy undefined = UndefinedPolicy::Refuse;
  /// Set when an evaluation fails because its input is invalid rather than
  /// unsupported or too large (an integer division by zero): a message that
  /// the importer reports against the node.
  std::string error;
};

/// Elementwise functions with numpy broadcasting.
enum class ElementwiseFn {
  Add,
  Sub,
  Mul,
  Div,
  Min,
  Max,
  Equal,
  Less,
  Greater,
  And,
  Or,
  Pow, // binary
  Not,
  Neg,
  Abs,
  Sqrt,
  Floor,
  Ceil,
  Round,
  Cos,
  Sin, // unary
};

/// `fn` over `operands` (one or two) broadcast to a common shape. The
/// operation runs in the first operand's type; the result has type
/// `result` (Bool for comparisons).
std::optional<HostTensor> evalElementwise(EvalContext &ctx, ElementwiseFn fn,
                                          llvm::ArrayRef<const HostTensor *> operands,
                                          ScalarType result);
/// Where(cond, x, y), broadcast; the result has x's type.
std::optional<HostTensor> evalWhere(EvalContext &ctx, const HostTensor &cond,
                                    const HostTensor &x, const HostTensor &y);
/// Elementwise conversion, as the generated code converts (fp16/bf16
/// through fp32, to bool by != 0).
std::optional<HostTensor> evalCast(EvalContext &ctx, const HostTensor &in,
                                   ScalarType to);
/// `in` broadcast (numpy rules) to `dims`.
std::optional<HostTensor> evalBroadcast(EvalContext &ctx, const HostTensor &in,
                                        llvm::ArrayRef<int64_t> dims);
/// Result dim d is input dim perm[d].
std::optional<HostTensor> evalTranspose(EvalContext &ctx, const HostTensor &in,
                                        llvm::ArrayRef<int64_t> perm);
/// Strided slice: result dims `dims`, element k of dim d read at
/// starts[d] + k * steps[d] (bounds already normalized).
std::optional<HostTensor> evalSlice(EvalContext &ctx, const HostTensor &in,
                                    llvm::ArrayRef<int64_t> starts,
                                    llvm::ArrayRef<int64_t> steps,
                                    llvm::ArrayRef<int64_t> dims);
/// Joins tensors of one type and rank along `axis`.
std::optional<HostTensor> evalConcat(EvalContext &ctx,
                                     llvm::ArrayRef<const HostTensor *> inputs,
                                     int64_t axis);
/// Gather along `axis`; negative indices count from the end. Fails on an
/// index out of range.
std::optional<HostTensor> evalGather(EvalContext &ctx, const HostTensor &data,
                                     const HostTensor &indices, int64_t axis);
/// Keeps the upper (c - r >= k) or lower (c - r <= k) triangle of the last
/// two dims, zero elsewhere.
std::optional<HostTensor> evalTrilu(EvalContext &ctx, const HostTensor &in,
                                    bool upper, int64_t k);
/// `dims` filled with the one element of `value`.
std::optional<HostTensor> evalFill(EvalContext &ctx, const HostTensor &value,
                                   llvm::ArrayRef<int64_t> dims);
/// ONNX Range over scalars of one type: start, start + delta, ... before
/// limit (integers wrap); fails for a zero or non-finite delta.
std::optional<HostTensor> evalRange(EvalContext &ctx, const HostTensor &start,
                                    const HostTensor &limit,
                                    const HostTensor &delta);

//===----------------------------------------------------------------------===//
// Graph-dialect glue
//===----------------------------------------------------------------------===//

/// The elements of a dense attribute or a dense_resource blob, if the type
/// is one the evaluator handles and it has at most `maxElements`.
std::optional<HostTensor> readElements(mlir::ElementsAttr attr,
                                       int64_t maxElements);
/// The elements of `v` when a graph.constant defines it with data of its
/// own (not a window on another constant, not shape-only) and readElements
/// takes it; otherwise nothing.
std::optional<HostTensor> constantElements(mlir::Value v, int64_t maxElements);
/// The stored bytes of a dense attribute or a dense_resource blob (empty
/// when the blob is missing). A splat dense attribute stores one element.
llvm::ArrayRef<char> rawElementData(mlir::ElementsAttr attr);
/// A shape-only constant: a dense_resource with no blob, as the importer
/// makes for external data it does not open (--emit=plan plans a model
/// whose weights are absent). Passes that build weights from weights
/// (slices, narrowed copies, stacked experts) make shape-only results of
/// shape-only inputs; code generation refuses them.
bool isShapeOnly(mlir::Attribute attr);
/// The resource key of a weight built from a constant's `value`: the
/// value's own key with `suffix` (a dense_resource: the weight it came from
/// stays named in the weights file), else (null included) `fallback`.
std::string derivedKey(mlir::Attribute value, llvm::StringRef suffix,
                       llvm::StringRef fallback);
/// A shape-only constant of `type` named `key`.
mlir::ElementsAttr shapeOnlyElements(mlir::RankedTensorType type,
                                     llvm::StringRef key);
/// The elements of `type` whose stored bytes `fill` writes (false: no
/// attribute): a dense attribute, or from 1 MiB a dense_resource blob named
/// `key`, written in place (weights built at compile time: stacked or
/// placed experts).
mlir::ElementsAttr
elementsFromBytes(mlir::RankedTensorType type, llvm::StringRef key,
                  llvm::function_ref<bool(llvm::MutableArrayRef<char>)> fill);
/// A window of another constant's data: compile-time slices and paddings
/// of weights (dist-partition's blocks per rank, dist-seed-megatron's
/// split projections and padded vocabularies) that are never copied. The
/// op (a graph.constant, or the kern.weight lowered from it) has a
/// shape-only value; `graph.source` holds the data it is cut from and
/// `graph.source_offset` (absent: zeros) where its first element lies in
/// it; elements past the source's end are zeros. The weights writer
/// (lib/Target/Cpp) reads the window's rows straight from the source.
inline constexpr llvm::StringLiteral kSourceAttr = "graph.source";
inline constexpr llvm::StringLiteral kSourceOffsetAttr = "graph.source_offset";

/// Where an op's data lies: the source's bytes, shape and element size and
/// the op's offset in it (its own data at offset 0 when it is no window).
struct Window {
  llvm::ArrayRef<char> raw;
  llvm::SmallVector<int64_t> sourceShape;
  int64_t elemBytes = 0;
  llvm::SmallVector<int64_t> offset;
  mlir::ElementsAttr source;
};
/// The window of `op`, whose value is `value`; none for shape-only data
/// without a source, splats, and elements that are not whole bytes.
std::optional<Window> windowOf(mlir::Operation *op, mlir::ElementsAttr value);
/// Calls `run(at, src, n)` for each run of `n` bytes of the window's
/// row-major data of shape `shape` that the source holds, `at` bytes into
/// it, in order, with adjacent runs merged; the bytes no run covers are
/// zeros.
void forEachRun(const Window &w, llvm::ArrayRef<int64_t> shape,
                llvm::function_ref<void(int64_t at, const char *src,
                                        int64_t n)> run);
/// The window's data of shape `shape`, copied (zeros past the source).
std::vector<char> windowBytes(const Window &w, llvm::ArrayRef<int64_t> shape);

/// A dense attribute holding `t`.
mlir::DenseElementsAttr toElementsAttr(mlir::MLIRContext *ctx,
                                       const HostTensor &t);
/// The result of graph op `op` (single-result) on constant operands, if the
/// evaluator implements the op.
std::optional<HostTensor> evaluateOp(mlir::Operation *op,
                                     llvm::ArrayRef<const HostTensor *> operands,
                                     EvalContext &ctx);
/// The value of `v` when it is computed from constants only, through the ops
/// evaluateOp implements (at most `maxDepth` ops deep).
std::optional<HostTensor> evaluateValue(mlir::Value v, EvalContext &ctx,
                                        int maxDepth = 24);
/// The fold() methods' constant case: a dense attribute for `op`'s result
/// when every operand is a constant and the result has at most kFoldCap
/// elements; null otherwise.
mlir::Attribute foldConstant(mlir::Operation *op,
                             llvm::ArrayRef<mlir::Attribute> operands);

} // namespace shardc::graph

#endif // SHARDC_DIALECTS_GRAPH_IR_CONSTANTEVAL_H
