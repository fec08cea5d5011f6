//===- Lowering.h - graph to kern lowering helpers -------------*- C++ -*-===//
//
// The state of one graph-to-kern rewrite (which buffer holds which graph
// value) and the builders every op family uses: strided accesses, generated
// maps and reductions, and type-aware scalar arithmetic for kernel bodies.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_CONVERSION_GRAPHTOKERN_LOWERING_H
#define SHARDC_LIB_CONVERSION_GRAPHTOKERN_LOWERING_H

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Kern/IR/KernOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>
#include <optional>

namespace shardc::kern {

/// One operand of a generated kernel: a buffer and its
/// `[offset, stride...]` over the iteration space; `sym` mirrors the layout
/// over the function's symbols when it depends on a dynamic dim (empty
/// otherwise).
struct Access {
  mlir::Value buffer;
  llvm::SmallVector<int64_t> layout;
  llvm::SmallVector<sym::Expr> sym = {};
};

using graph::SymShape;

/// Type-aware scalar arithmetic on body values. `elem` is always the
/// graph-level element type (it carries signedness and fp16/bf16).
struct Scalar {
  mlir::OpBuilder &b;
  mlir::Location loc;

  static bool isFloat(mlir::Type elem) { return llvm::isa<mlir::FloatType>(elem); }
  static bool isUnsigned(mlir::Type elem);
  mlir::Value constant(mlir::Type elem, double value);
  mlir::Value add(mlir::Type elem, mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Type elem, mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Type elem, mlir::Value x, mlir::Value y);
  mlir::Value div(mlir::Type elem, mlir::Value x, mlir::Value y);
  mlir::Value max(mlir::Type elem, mlir::Value x, mlir::Value y);
  mlir::Value min(mlir::Type elem, mlir::Value x, mlir::Value y);
  enum class Cmp { EQ, LT, GT, LE, GE };
  mlir::Value cmp(mlir::Type elem, Cmp pred, mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y);
  /// Converts a body value of graph type `from` to graph type `to` (ONNX Cast).
  mlir::Value convert(mlir::Value x, mlir::Type from, mlir::Type to);
};

using BodyFn = std::function<llvm::SmallVector<mlir::Value>(
    Scalar &s, mlir::ValueRange args)>;

class KernLowering;
using LowerFn = std::function<mlir::LogicalResult(mlir::Operation *, KernLowering &)>;
using LoweringTable = llvm::StringMap<LowerFn>;
/// Whether a use reads its value through strides, without a buffer of the
/// value's own (see KernLowering::deferred).
using AbsorbFn = std::function<bool(mlir::OpOperand &)>;
using AbsorbTable = llvm::StringMap<AbsorbFn>;

class KernLowering {
public:
  KernLowering(mlir::OpBuilder &builder, mlir::Block *entry)
      : b(builder), entry(entry) {}

  mlir::OpBuilder &b;
  /// fp16/bf16 GEMMs run natively (kern.matmul on narrow buffers).
  bool halfGemm = false;
  /// int8 x int8 -> int32 products without zero points run as kern.matmul.
  bool int8Gemm = false;

  /// The buffer holding graph value `v` (materializes constants).
  mlir::Value get(mlir::Value v);
  /// A fresh buffer for op result `v`: its output argument when `v` is
  /// returned (first claim), else a `kern.alloc`. Null if `v` is unused and
  /// `optional` is set.
  mlir::Value result(mlir::Value v, bool optional = false);
  /// Records that result `v` lives in `buffer` (a view or an alias).
  void alias(mlir::Value v, mlir::Value buffer) { buffers[v] = buffer; }
  /// The splat value of `v` if it is a splat constant.
  std::optional<mlir::TypedAttr> splat(mlir::Value v);

  /// A view of `buffer` with another shape (same elements).
  mlir::Value view(mlir::Location loc, mlir::Value buffer,
                   llvm::ArrayRef<int64_t> shape);
  /// The same with a symbolic shape (kern.sym's `result` when symbolic).
  mlir::Value view(mlir::Location loc, mlir::Value buffer,
                   const SymShape &shape);
  /// The bound and symbolic shape of a buffer.
  static SymShape shapeOfBuffer(mlir::Value buffer);
  /// A new arena buffer.
  /// A fresh buffer holding `buffer`'s elements converted to `to`.
  mlir::Value converted(mlir::Location loc, mlir::Value buffer, mlir::Type to);
  mlir::Value alloc(mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                    mlir::Type elem);
  mlir::Value alloc(mlir::Location loc, const SymShape &shape, mlir::Type elem);

  /// Dense row-major access of a buffer whose shape is the iteration space.
  static Access dense(mlir::Value buffer);
  /// Numpy-broadcast access of `buffer` (its own shape) over `iter`.
  static Access broadcast(mlir::Value buffer, llvm::ArrayRef<int64_t> iter);
  /// Row-major strides of a symbolic shape.
  static llvm::SmallVector<sym::Expr> strides(llvm::ArrayRef<sym::Expr> shape);
  /// An access of `buffer` at `offset` with `strides`: the layout at the
  /// bounds, and its mirror when an entry depends on a dynamic dim.
  Access access(mlir::Value buffer, const sym::Expr &offset,
                llvm::ArrayRef<sym::Expr> strides) const;
  /// The value of `e` at the bounds of the function's symbols.
  int64_t atBound(const sym::Expr &e) const;
  /// The function's symbols' bounds (graph.dims), in order.
  llvm::SmallVector<int64_t> bounds;

  /// Generated kernels over an iteration space. With a static `shape`, an
  /// access that depends on a dynamic dim marks the lowering unported
  /// (`unported`): only lowerings that pass the symbolic space take them.
  mlir::Operation *map(mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<Access> ins, llvm::ArrayRef<Access> outs,
                       const BodyFn &body);
  mlir::Operation *map(mlir::Location loc, const SymShape &shape,
                       llvm::ArrayRef<Access> ins, llvm::ArrayRef<Access> outs,
                       const BodyFn &body);
  mlir::Operation *reduce(mlir::Location loc, llvm::StringRef kind,
                          llvm::ArrayRef<int64_t> shape,
                          llvm::ArrayRef<int64_t> reduceDims,
                          llvm::ArrayRef<Access> ins, Access out,
                          const BodyFn &body);
  mlir::Operation *reduce(mlir::Location loc, llvm::StringRef kind,
                          const SymShape &shape,
                          llvm::ArrayRef<int64_t> reduceDims,
                          llvm::ArrayRef<Access> ins, Access out,
                          const BodyFn &body);
  /// Set when a generated kernel of the op being lowered reads a dynamic
  /// dim through a lowering that does not handle them.
  bool unported = false;
  /// A copy of `src` into `dst` (same shape).
  void copy(mlir::Location loc, mlir::Value src, mlir::Value dst);
  /// The same from `src` read through an access over `dst`'s shape.
  void copy(mlir::Location loc, const Access &src, mlir::Value dst);

  /// An elementwise op over graph operands with numpy broadcasting into the
  /// result's shape; splat constants become body constants.
  mlir::LogicalResult elementwise(mlir::Operation *op,
                                  mlir::ValueRange operands,
                                  const BodyFn &body);

  /// Fails the lowering of `op` with a message naming it.
  mlir::LogicalResult fail(mlir::Operation *op, const llvm::Twine &msg);

  llvm::DenseMap<mlir::Value, mlir::Value> buffers;
  /// Graph values held at other strides than dense row-major: a KV cache's
  /// present, in its output buffer laid out for the bounds. A reader
  /// through strides (attention) takes it as it is; get() materializes a
  /// dense copy for others.
  struct View {
    mlir::Value buffer;
    sym::Expr offset;
    llvm::SmallVector<sym::Expr> strides;
  };
  llvm::DenseMap<mlir::Value, View> views;
  /// The KV cache inputs (graph.cache): argument -> {output index, axis};
  /// those whose append was lowered in place (kern.cache).
  llvm::DenseMap<mlir::Value, std::pair<int64_t, int64_t>> caches;
  llvm::SmallVector<mlir::Value> inPlaceCaches;
  /// The output arguments, in order.
  llvm::SmallVector<mlir::Value> outputArgs;
  /// Layout ops (split, transpose, reshape-likes) whose every use reads
  /// them through strides (an AbsorbTable entry, or another deferred op):
  /// not lowered in program order; get() lowers one where something needs
  /// its buffer after all.
  llvm::DenseSet<mlir::Operation *> deferred;
  /// Ops lowered out of program order (lazily, or written directly by the
  /// op they feed): the driver skips them.
  llvm::DenseSet<mlir::Operation *> lowered;
  const LoweringTable *table = nullptr;
  /// Returned graph values not yet claimed, to the output argument(s).
  llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value, 1>> pendingOutputs;

private:
  mlir::Block *entry;
};

void addElementwiseLowerings(LoweringTable &table);
void addShapeLowerings(LoweringTable &table);
void addLinalgLowerings(LoweringTable &table);
void addConvLowerings(LoweringTable &table);
void addSelectionLowerings(LoweringTable &table);
void addScatterLowerings(LoweringTable &table);
void addMoeLowerings(LoweringTable &table);
void addQuantLowerings(LoweringTable &table);
void addFusedLowerings(LoweringTable &table);
void addAttentionLowerings(LoweringTable &table);
void addDistLowerings(LoweringTable &table);
void addAttentionAbsorbers(AbsorbTable &table);

/// A generated reduction of graph value `input` over `axes` (empty: all)
/// into `output`, whose elements are the kept dims in order.
void reduceAll(KernLowering &l, mlir::Location loc, llvm::StringRef kind,
               mlir::Value input, llvm::ArrayRef<int64_t> axes,
               mlir::Value output);

/// The type a body computes `elem` in: f32 for fp16 / bf16.
mlir::Type computeType(mlir::Type elem);
/// silu(gate) * up in body type `t` (LowerFused.cpp).
mlir::Value swiglu(Scalar &s, mlir::Type t, mlir::Value gate, mlir::Value up);

/// The shape of a shaped value.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  return llvm::cast<mlir::ShapedType>(v.getType()).getShape();
}
inline mlir::Type elemOf(mlir::Value v) {
  return llvm::cast<mlir::ShapedType>(v.getType()).getElementType();
}

/// Registers `fn` for the op class `OpTy`.
template <typename OpTy, typename Fn>
void addLowering(LoweringTable &table, Fn fn) {
  table[OpTy::getOperationName()] = [fn](mlir::Operation *op,
                                         KernLowering &l) {
    return fn(llvm::cast<OpTy>(op), l);
  };
}

/// The position of a dist collective's single mesh axis in the module's
/// dist.mesh (sc_rank_ctx.comms[axis]) and its group size; groups over
/// several axes are refused.
template <typename Op>
llvm::FailureOr<std::pair<int64_t, int64_t>> collectiveAxis(Op op,
                                                            KernLowering &l) {
  auto mesh = op.getMeshOp();
  if (op.getAxes().size() != 1) {
    (void)l.fail(op, "collectives over several mesh axes are not supported");
    return mlir::failure();
  }
  llvm::StringRef name = llvm::cast<mlir::StringAttr>(op.getAxes()[0]).getValue();
  for (auto [i, a] : llvm::enumerate(mesh.getAxes()))
    if (llvm::cast<mlir::StringAttr>(a).getValue() == name)
      return std::make_pair(static_cast<int64_t>(i), op.groupSize());
  (void)l.fail(op, "no mesh axis '" + name + "'");
  return mlir::failure();
}

} // namespace shardc::kern

#endif // SHARDC_LIB_CONVERSION_GRAPHTOKERN_LOWERING_H
