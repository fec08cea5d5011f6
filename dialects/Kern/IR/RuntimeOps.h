//===- RuntimeOps.h - helpers of the runtime kernel ops ---------*- C++ -*-===//
//
// Private to dialects/Kern/IR: checks the verifiers of the runtime kernel
// ops (NormOps.cpp, SelectionOps.cpp, ...) share.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_KERN_IR_RUNTIMEOPS_H
#define SHARDC_DIALECTS_KERN_IR_RUNTIMEOPS_H

#include "dialects/Kern/IR/KernOps.h"

namespace shardc::kern::runtime {

inline mlir::MemRefType bufferType(mlir::Value v) {
  return llvm::cast<mlir::MemRefType>(v.getType());
}
inline mlir::Type elementOf(mlir::Value v) {
  return bufferType(v).getElementType();
}

/// f32, f64, f16 or bf16: what the runtime's float kernels dispatch on.
inline bool isRuntimeFloat(mlir::Type t) {
  return t.isF32() || t.isF64() || t.isF16() || t.isBF16();
}
/// i8 or ui8 (the quantized kernels' operands).
inline bool isInt8(mlir::Type t) { return t.isInteger(8); }
/// A signed or signless integer of `width` bits.
inline bool isSignedInt(mlir::Type t, unsigned width) {
  auto it = llvm::dyn_cast<mlir::IntegerType>(t);
  return it && it.getWidth() == width && !it.isUnsigned();
}

/// `b` has `a`'s type (`what` names them).
mlir::LogicalResult verifySameType(mlir::Operation *op, mlir::Value a,
                                   mlir::Value b, llvm::StringRef what);
/// `axis` in [-rank, rank) (or [-rank, rank] with `inclusive`); the
/// non-negative axis.
mlir::FailureOr<int64_t> verifyAxis(mlir::Operation *op, int64_t axis,
                                    int64_t rank, bool inclusive = false);

} // namespace shardc::kern::runtime

#endif // SHARDC_DIALECTS_KERN_IR_RUNTIMEOPS_H
