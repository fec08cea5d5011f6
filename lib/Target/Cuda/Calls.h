//===- Calls.h - runtime kernel ops on CUDA ---------------------*- C++ -*-===//
//
// On the CPU a runtime kernel op (kern.softmax, kern.gather, ...: the ops
// with RuntimeCallOpInterface) calls a kernel of runtime/src/cpu. On CUDA
// the same op becomes a generated __global__ wrapper, specialised to the
// static shapes, around a device function of the CUDA prelude
// (lib/Target/Cuda/prelude); the writers are in lib/Target/Cuda/Calls, one
// file per family.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_TARGET_CUDA_CALLS_H
#define SHARDC_LIB_TARGET_CUDA_CALLS_H

#include "dialects/Kern/IR/KernOps.h"
#include "shardc/Target/Cuda.h"

namespace shardc::cuda {

/// Launch geometry shared by the generated kernels (Kernels.cpp) and the
/// runtime-kernel wrappers (Calls/): threads per block, and the most
/// blocks a grid gets (grid-stride loops beyond it).
constexpr int64_t kBlock = 256;
constexpr int64_t kMaxGrid = 1 << 16;

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The CUDA kernel of `op`, named `name`; a diagnostic when the op has no
/// CUDA form.
mlir::FailureOr<Kernel> emitCallKernel(kern::RuntimeCallOpInterface op,
                                       llvm::StringRef name);

} // namespace shardc::cuda

#endif // SHARDC_LIB_TARGET_CUDA_CALLS_H
