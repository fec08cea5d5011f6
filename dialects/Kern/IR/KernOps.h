//===- KernOps.h - kern dialect --------------------------------*- C++ -*-===//
#ifndef SHARDC_DIALECTS_KERN_IR_KERNOPS_H
#define SHARDC_DIALECTS_KERN_IR_KERNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Kern/IR/KernDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/Kern/IR/KernOps.h.inc"

namespace shardc::kern {

/// The scalar type a kernel body uses for elements of `t`: signless for
/// integers (arith's rule), unchanged otherwise.
mlir::Type bodyType(mlir::Type elementType);

/// Bytes one element of `t` takes in a buffer (i1 takes a byte).
int64_t elementBytes(mlir::Type t);
/// Bytes of a buffer.
inline int64_t bufferBytes(mlir::MemRefType t) {
  return t.getNumElements() * elementBytes(t.getElementType());
}

/// Row-major strides (in elements) of a static shape.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

} // namespace shardc::kern

#endif // SHARDC_DIALECTS_KERN_IR_KERNOPS_H
