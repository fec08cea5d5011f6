//===- SymAffine.h - symbolic sizes stored as MLIR attributes ---*- C++ -*-===//
//
// The graph and kern dialects both store symbolic sizes (sym::Expr) in
// attributes, as affine maps over symbols with no dims:
//
//   affine_map<()[s0, s1] -> (s0, s1, 768)>
//
// and name their symbols in a function attribute, one dictionary per symbol:
// [{name = "batch", max = 8}, {name = "seq", max = 2048}] (`graph.dims`,
// `kern.dims`). This file converts between the two forms, reads and builds
// the symbol table, and checks a mirror against the static values it mirrors
// (substituting every symbol by its bound gives the static value).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SUPPORT_SYMAFFINE_H
#define SHARDC_SUPPORT_SYMAFFINE_H

#include "shardc/Support/SymExpr.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace shardc::sym {

/// One symbol: the model's name for the dim, its largest value, and its
/// least (1, or 0 for a dim that may be empty: a KV cache's past length).
struct Symbol {
  std::string name;
  int64_t max = 1;
  int64_t min = 1;
};

/// Expressions <-> affine maps `()[s0, .., sN] -> (e0, ..)`. toAffine builds
/// canonical maps, so equal shapes give one uniqued attribute.
mlir::AffineMapAttr toAffine(mlir::MLIRContext *ctx,
                             llvm::ArrayRef<Expr> exprs);
/// Fails on dims, division or modulo: only sums and products of symbols and
/// constants are symbolic sizes.
mlir::FailureOr<llvm::SmallVector<Expr>> fromAffine(mlir::AffineMap map);
/// fromAffine of a map attribute, or none when `attr` is not one or does
/// not have `size` results.
std::optional<llvm::SmallVector<Expr>> fromAffine(mlir::Attribute attr,
                                                  size_t size);

/// The symbols listed by `func`'s attribute `attrName` (none when absent);
/// fails with a diagnostic on `func` when the list is malformed.
mlir::FailureOr<llvm::SmallVector<Symbol>>
readSymbols(mlir::Operation *func, llvm::StringRef attrName);
/// The symbol list attribute.
mlir::ArrayAttr symbolsAttr(mlir::MLIRContext *ctx,
                            llvm::ArrayRef<Symbol> symbols);

/// Checks that `exprs` are monotone sizes over `symbols` and equal `bound`
/// at the bounds; `what` names the checked thing in `op`'s message.
/// `sizes` false checks values that need not be sizes (strides and
/// offsets): only the value at the bounds.
mlir::LogicalResult checkMirror(mlir::Operation *op, llvm::StringRef what,
                                llvm::ArrayRef<Expr> exprs,
                                llvm::ArrayRef<int64_t> bound,
                                llvm::ArrayRef<Symbol> symbols,
                                llvm::StringRef attrName, bool sizes = true);

} // namespace shardc::sym

#endif // SHARDC_SUPPORT_SYMAFFINE_H
