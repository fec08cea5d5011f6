//===- SymbolicShapes.h - dynamic dims of the kern dialect ------*- C++ -*-===//
//
// The kern form of bounded dynamic dims (docs/dynamic-shapes.md). Buffers
// keep their bound memref types: memory is planned for the largest program.
// What depends on this run's sizes has a symbolic mirror:
//
//   - the function lists its symbols in `kern.dims` ([{name, max}], copied
//     from `graph.dims`); symbol k is `ctx->dims[k]` at run time;
//   - a buffer's symbolic shape is the `kern.sym` attribute of its function
//     argument (an affine map) or the `result` entry of its op's `kern.sym`
//     dictionary (kern.alloc, kern.view);
//   - an op's static i64 attribute mirrors under its own name in the op's
//     `kern.sym` dictionary: `shape` (an affine map) and `layouts` (an
//     array of affine maps, one per operand: offset then strides) of
//     kern.map and kern.reduce.
//
// Substituting every symbol by its bound gives the static program: the
// dialect's verifier checks each mirror. Ops that read their sizes from
// their operands' descriptors at run time, or from their mirrors, carry the
// KernSymbolicShapes trait; checkSymbolicGate refuses symbolic operands on
// any other op (the lowering and the C++ target run it).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_KERN_IR_SYMBOLICSHAPES_H
#define SHARDC_DIALECTS_KERN_IR_SYMBOLICSHAPES_H

#include "shardc/Support/SymAffine.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"

namespace shardc::kern {

constexpr llvm::StringLiteral kDimsAttr = "kern.dims";
constexpr llvm::StringLiteral kSymAttr = "kern.sym";
/// The argument attribute of a KV cache's past input, from graph.cache:
/// {output = R, axis = A}. Output R's buffer is laid out for the bounds
/// (the row-major strides of its static shape), and the program reads the
/// past from its first P entries along A, not from this input.
constexpr llvm::StringLiteral kCacheAttr = "kern.cache";
/// The `kern.sym` entry holding the symbolic shape of an op's result.
constexpr llvm::StringLiteral kSymResult = "result";

/// A buffer's symbolic shape (constants where static).
llvm::SmallVector<sym::Expr> symShape(mlir::Value buffer);
bool isSymbolic(mlir::Value buffer);
bool isSymbolic(llvm::ArrayRef<sym::Expr> exprs);
/// Row-major strides of a symbolic shape (rowMajorStrides' symbolic twin).
llvm::SmallVector<sym::Expr> symStrides(llvm::ArrayRef<sym::Expr> shape);

/// The mirror of static i64 array attribute `name` of `op` (the values as
/// constants when it has none).
llvm::SmallVector<sym::Expr> symArray(mlir::Operation *op,
                                      llvm::StringRef name);
/// The mirror of `layouts` (an array of i64 arrays) of kern.map/reduce.
llvm::SmallVector<llvm::SmallVector<sym::Expr>> symLayouts(mlir::Operation *op);

/// Adds `entries` to `op`'s `kern.sym` dictionary.
void addMirrors(mlir::Operation *op,
                llvm::ArrayRef<mlir::NamedAttribute> entries);

/// The symbols of the function around `op`.
mlir::FailureOr<llvm::SmallVector<sym::Symbol>>
readSymbols(mlir::Operation *op);
llvm::SmallVector<std::string> symbolNames(mlir::Operation *op);

/// The verifiers of `kern.dims` and `kern.sym` (on ops and on function
/// arguments).
mlir::LogicalResult verifySymbolicAttribute(mlir::Operation *op,
                                            mlir::NamedAttribute attr);
mlir::LogicalResult verifySymbolicArgAttribute(mlir::Operation *op,
                                               unsigned argIndex,
                                               mlir::NamedAttribute attr);
/// Refuses a symbolic operand of an op without the KernSymbolicShapes
/// trait, naming the op and the operand's shape.
mlir::LogicalResult checkSymbolicGate(mlir::Operation *op);

} // namespace shardc::kern

namespace mlir::OpTrait {
/// Marks a kern op that takes symbolic operands (see the file comment).
template <typename ConcreteType>
class KernSymbolicShapes : public TraitBase<ConcreteType, KernSymbolicShapes> {
};
} // namespace mlir::OpTrait

#endif // SHARDC_DIALECTS_KERN_IR_SYMBOLICSHAPES_H
