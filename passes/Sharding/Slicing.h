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

/// The attribute of a constant padded by padConstantData: the data it
/// extends (the constant's own value is shape-only).
inline constexpr llvm::StringLiteral kPadSource = "dist.pad_source";

/// A new graph.constant whose data is `op`'s followed by zeros along `dim`,
/// which grows to `size` (a vocabulary padded to a multiple of the tp
/// degree, as Megatron-LM and vLLM pad theirs). The padded data is never
/// made whole: sliceConstantData cuts each rank's block from the source,
/// with zeros where the block passes its end (a slice of the whole shape
/// makes it whole). Null for a splat or an already padded constant.
mlir::Value padConstantData(mlir::OpBuilder &b, graph::ConstantOp op,
                            int64_t dim, int64_t size);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_SLICING_H
