//===- SymbolicShapes.h - dynamic dims of the graph dialect ---*- C++ -*-===//
//
// A dim the model leaves dynamic stays symbolic (docs/dynamic-shapes.md):
// the tensor type keeps the dim's bound, so everything that sizes memory or
// prices a plan sees the largest program, and its encoding mirrors the shape
// over the function's symbols:
//
//   tensor<8x128x768xf32, affine_map<()[s0, s1] -> (s0, s1, 768)>>
//
// Symbol k is entry k of the function's `graph.dims` attribute
// ([{name = "batch", max = 8}, ...]). A static attribute that sets a shape
// has its mirror in `graph.sym` (`graph.reshape {shape = [8, 128, 12, 64],
// graph.sym = {shape = affine_map<()[s0, s1] -> (s0, s1, 12, 64)>}}`).
// Substituting every symbol by its bound gives the static program: the
// dialect's verifier checks exactly that, for every type and mirror.
//
// Ops whose inference handles symbols carry the SymbolicShapes trait; any
// other op refuses a symbolic operand or result (the SymbolicGate every
// graph op has), naming itself, so an unported op can never treat a bound
// as the size.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_GRAPH_IR_SYMBOLICSHAPES_H
#define SHARDC_DIALECTS_GRAPH_IR_SYMBOLICSHAPES_H

#include "shardc/Support/SymAffine.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace shardc::graph {

/// The function attribute naming the symbols, and the op attribute holding
/// the mirrors of static shape attributes.
constexpr llvm::StringLiteral kDimsAttr = "graph.dims";
constexpr llvm::StringLiteral kSymAttr = "graph.sym";
/// The argument attribute of a KV cache's past input (graph-kv-cache):
/// {output = R, axis = A}.
constexpr llvm::StringLiteral kCacheAttr = "graph.cache";

using sym::fromAffine;
using sym::Symbol;
using sym::toAffine;

/// A shape at its bound with its symbolic mirror (constants where static).
struct SymShape {
  llvm::SmallVector<int64_t> bound;
  llvm::SmallVector<sym::Expr> sym;

  size_t size() const { return bound.size(); }
  void push_back(int64_t b, const sym::Expr &e) {
    bound.push_back(b);
    sym.push_back(e);
  }
  /// Appends dim `d` of `other`.
  void push_back(const SymShape &other, size_t d) {
    push_back(other.bound[d], other.sym[d]);
  }
  bool isSymbolic() const;
  /// "[s0, s1, 768]" (or "[8, 768]" when static); with the symbols' names,
  /// "[batch, seq, 768]".
  std::string str(llvm::ArrayRef<std::string> names = {}) const;
};

/// True when the type is a ranked tensor with a symbolic mirror.
bool isSymbolic(mlir::Type type);
bool isSymbolic(mlir::Value value);
/// The bound shape and mirror of a ranked tensor type. A mirror that is not
/// a well-formed symbolic shape (checked by the verifier) reads as static.
SymShape dimsOf(mlir::Type type);
inline SymShape dimsOf(mlir::Value value) { return dimsOf(value.getType()); }
/// The tensor type of `dims` (no encoding when every dim is static).
mlir::RankedTensorType tensorType(const SymShape &dims, mlir::Type elementType);

/// The mirror of static shape attribute `name` from the op's `graph.sym`,
/// or the attribute's values as constants when it has none.
llvm::SmallVector<sym::Expr> symAttr(mlir::DictionaryAttr attrs,
                                     llvm::StringRef name,
                                     llvm::ArrayRef<int64_t> values);

/// The attributes that make an op's static shape attribute `name` equal to
/// `shape`: the bound values, and their `graph.sym` mirror when symbolic.
/// For builders: `create<ReshapeOp>(loc, ValueRange{x},
/// shapeAttrs(ctx, "shape", dimsOf(type)))`.
llvm::SmallVector<mlir::NamedAttribute>
shapeAttrs(mlir::MLIRContext *ctx, llvm::StringRef name, const SymShape &shape);
/// The same for several attributes, with one `graph.sym` holding the
/// mirrors of those that are symbolic.
llvm::SmallVector<mlir::NamedAttribute>
shapeAttrs(mlir::MLIRContext *ctx,
           llvm::ArrayRef<std::pair<llvm::StringRef, SymShape>> shapes);

/// The symbols of the function around `op` (none when it has no
/// `graph.dims`); fails with a diagnostic on a malformed table.
mlir::FailureOr<llvm::SmallVector<Symbol>> readSymbols(mlir::Operation *funcOp);
/// The symbols' names, for messages (s0, s1, .. where `op` is outside a
/// function with `graph.dims`).
llvm::SmallVector<std::string> symbolNames(mlir::Operation *op);
/// Builds the `graph.dims` attribute.
mlir::ArrayAttr symbolsAttr(mlir::MLIRContext *ctx,
                            llvm::ArrayRef<Symbol> symbols);

/// Checks that `exprs` are monotone sizes over `symbols` and equal `bound`
/// at the bounds; `what` names the checked thing in the message.
mlir::LogicalResult checkMirror(mlir::Operation *op, llvm::StringRef what,
                                llvm::ArrayRef<sym::Expr> exprs,
                                llvm::ArrayRef<int64_t> bound,
                                llvm::ArrayRef<Symbol> symbols,
                                bool sizes = true);

/// The verifier of `graph.dims` (on a function) and `graph.sym`.
mlir::LogicalResult verifySymbolicAttribute(mlir::Operation *op,
                                            mlir::NamedAttribute attr);
/// The gate every graph op runs (see the file comment).
mlir::LogicalResult verifySymbolicGate(mlir::Operation *op);

} // namespace shardc::graph

namespace mlir::OpTrait {
/// Marks a graph op whose type inference handles symbolic dims.
template <typename ConcreteType>
class SymbolicShapes : public TraitBase<ConcreteType, SymbolicShapes> {};

/// Every graph op: refuses symbolic types unless the op is SymbolicShapes.
template <typename ConcreteType>
class SymbolicGate : public TraitBase<ConcreteType, SymbolicGate> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return shardc::graph::verifySymbolicGate(op);
  }
};
} // namespace mlir::OpTrait

#endif // SHARDC_DIALECTS_GRAPH_IR_SYMBOLICSHAPES_H
