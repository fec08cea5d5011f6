//===- Slicing.h - blocks of constants at compile time ----------*- C++ -*-===//
#ifndef SHARDC_PASSES_SHARDING_SLICING_H
#define SHARDC_PASSES_SHARDING_SLICING_H

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"

namespace shardc {

/// A new graph.constant holding the block of `op`'s data that starts at
/// `offset` and has shape `sizes` (weights sliced per rank, projections
/// split apart). From 64 KiB nothing is copied: a contiguous block of the
/// data is a view of it, any other a window (graph::kSourceAttr: the
/// weights writer reads its rows from the source). A window of a window
/// is a window of the same source. Null when the data cannot be read
/// byte-wise (bit-packed booleans, a missing blob).
mlir::Value sliceConstantData(mlir::OpBuilder &b, graph::ConstantOp op,
                              llvm::ArrayRef<int64_t> offset,
                              llvm::ArrayRef<int64_t> sizes);

/// A new graph.constant whose data is `op`'s followed by zeros along `dim`,
/// which grows to `size` (a vocabulary padded to a multiple of the tp
/// degree, as Megatron-LM and vLLM pad theirs): a window of `op`'s data
/// as large as the padded shape, never made whole. Null for a splat or a
/// window.
mlir::Value padConstantData(mlir::OpBuilder &b, graph::ConstantOp op,
                            int64_t dim, int64_t size);

/// Recomputes `op`, a graph.matmul whose weight operand has been padded
/// with columns past its result's last dim (padConstantData), at the
/// weight's width: a wide graph.matmul and a graph.slice back to `op`'s
/// result type replace `op` (the padded columns are zeros the slice
/// drops). Returns the wide product.
graph::MatMulOp widenToWeight(graph::MatMulOp op);

/// `v`'s slices along `dim` at the constant `indices` (a graph.gather of
/// a new i64 constant), built at `b`'s insertion point.
mlir::Value gatherAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     int64_t dim, llvm::ArrayRef<int64_t> indices);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_SLICING_H
