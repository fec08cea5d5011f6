//===- ShapeInference.h - shared shape rules of the graph dialect -*- C++ -*-===//
//
// The rules that several op families share: numpy broadcasting, axis
// normalization, element-type classes and reductions. Each returns failure with
// a diagnostic naming the mismatch when a location is given.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_GRAPH_IR_SHAPEINFERENCE_H
#define SHARDC_DIALECTS_GRAPH_IR_SHAPEINFERENCE_H

#include "dialects/Graph/IR/SymbolicShapes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace shardc::graph {

/// Element types accepted by same-type unary ops.
enum class ElementKind { Any, Numeric, Float, Bool };
/// Result rule of broadcasting binary ops.
enum class BinaryKind { Arith, Pow, Compare, Logic };

using Loc = std::optional<mlir::Location>;

/// The ranked tensor type of a graph-dialect value (all of them are).
inline mlir::RankedTensorType tensorOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

/// "tensor<2x3xf32>" for messages.
std::string typeStr(mlir::Type type);
/// "[2, 3]" for messages.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

/// Numpy broadcasting of two shapes into `out`.
mlir::LogicalResult broadcastShapes(Loc loc, llvm::ArrayRef<int64_t> a,
                                    llvm::ArrayRef<int64_t> b,
                                    llvm::SmallVectorImpl<int64_t> &out);
/// Numpy broadcasting of shapes with symbolic dims: two dims broadcast when
/// their expressions are equal or one is the constant 1 (a symbol that might
/// be 1 at run time does not broadcast against a constant other than 1).
mlir::LogicalResult broadcastDims(Loc loc, const SymShape &a, const SymShape &b,
                                  SymShape &out);
/// Checks 0 <= axis < rank.
mlir::LogicalResult checkAxis(Loc loc, llvm::StringRef what, int64_t axis,
                              int64_t rank);
/// Checks that `type` has an element type of class `kind`.
mlir::LogicalResult checkElementKind(Loc loc, mlir::Type type,
                                     ElementKind kind);

mlir::LogicalResult inferUnary(Loc loc, mlir::Value input, ElementKind kind,
                               llvm::SmallVectorImpl<mlir::Type> &types);
mlir::LogicalResult inferBinary(Loc loc, mlir::Value lhs, mlir::Value rhs,
                                BinaryKind kind,
                                llvm::SmallVectorImpl<mlir::Type> &types);
mlir::LogicalResult inferReduce(Loc loc, mlir::Value input,
                                llvm::ArrayRef<int64_t> axes, bool keepdims,
                                llvm::SmallVectorImpl<mlir::Type> &types);
/// Result type of an N-D grouped convolution (graph.conv, graph.fused_conv;
/// with `int8`, graph.conv_int8: any element types, an f32 result).
mlir::LogicalResult inferConv(Loc loc, mlir::Value input, mlir::Value weight,
                              mlir::Value bias, llvm::ArrayRef<int64_t> strides,
                              llvm::ArrayRef<int64_t> dilations,
                              llvm::ArrayRef<int64_t> pads, int64_t group,
                              llvm::SmallVectorImpl<mlir::Type> &types,
                              bool int8 = false);
/// Shape of numpy matmul of `a` and `b` (1-D operands promoted and dropped).
mlir::LogicalResult matmulShape(Loc loc, llvm::ArrayRef<int64_t> a,
                                llvm::ArrayRef<int64_t> b,
                                llvm::SmallVectorImpl<int64_t> &out);
mlir::LogicalResult matmulDims(Loc loc, const SymShape &a, const SymShape &b,
                               SymShape &out);
/// Fails when a dim from `axis` on is symbolic: `what` (a normalization)
/// needs its normalized dims static.
mlir::LogicalResult checkStaticFrom(Loc loc, llvm::StringRef what,
                                    const SymShape &dims, int64_t axis);

} // namespace shardc::graph

#endif // SHARDC_DIALECTS_GRAPH_IR_SHAPEINFERENCE_H
