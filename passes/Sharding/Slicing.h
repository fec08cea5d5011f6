//===- Slicing.h - blocks of constants at compile time ----------*- C++ -*-===//
#ifndef SHARDC_PASSES_SHARDING_SLICING_H
#define SHARDC_PASSES_SHARDING_SLICING_H

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"

namespace shardc {

/// A new graph.constant holding the block of `op`'s data that starts at
/// `offset` and has shape `sizes` (weights sliced per rank, projections
/// split apart). Null when the data cannot be read byte-wise (bit-packed
/// booleans, a missing blob).
mlir::Value sliceConstantData(mlir::OpBuilder &b, graph::ConstantOp op,
                              llvm::ArrayRef<int64_t> offset,
                              llvm::ArrayRef<int64_t> sizes);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_SLICING_H
