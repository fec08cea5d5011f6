//===- Retype.h - ops whose result types a pass resized ---------*- C++ -*-===//
#ifndef SHARDC_PASSES_SHARDING_RETYPE_H
#define SHARDC_PASSES_SHARDING_RETYPE_H

#include "dialects/Graph/IR/SymbolicShapes.h"

#include "mlir/IR/Operation.h"

namespace shardc {

/// After `op`'s result types were resized along dims it keeps whole (a
/// rank's local shapes, dist-partition; a padded batch, dist-pad-batch),
/// the attributes that carry its result shape follow them: the shape of a
/// reshape, expand or constant_of_shape, a resize's sizes, and a slice
/// keeps whole each dim whose size differs from `before` (its result
/// types before). Fails when the op's inferred result types then differ
/// from the ones it was given: it is not an op the pass knows how to
/// resize.
mlir::LogicalResult followResultTypes(mlir::Operation *op,
                                      mlir::TypeRange before);

/// Sets `op`'s static shape attribute `name` (a reshape's `shape`, a
/// slice's `ends`) to `shape`'s bound, and its `graph.sym` mirror to
/// `shape`'s symbols (removed when static).
void setShapeAttr(mlir::Operation *op, llvm::StringRef name,
                  const graph::SymShape &shape);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_RETYPE_H
