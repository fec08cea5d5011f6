//===- Cuda.h - the CUDA target ---------------------------------*- C++ -*-===//
//
// Generated kernels as CUDA C++ (one extern "C" __global__ function per
// kern.map / kern.reduce / runtime kernel op), compiled in-process by NVRTC into one
// program per architecture. The host side of a CUDA program (launches,
// cuBLASLt and cuDNN calls) is C++ written by the program writer
// (include/shardc/Target/Cpp.h) against runtime/include/shardc/cuda.h.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TARGET_CUDA_H
#define SHARDC_TARGET_CUDA_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace shardc::cuda {

/// One generated kernel and how to launch it.
struct Kernel {
  std::string source;           ///< the whole __global__ definition
  int64_t grid[3] = {1, 1, 1};
  int64_t block = 256;          ///< 1-D thread blocks
  int64_t sharedBytes = 0;      ///< dynamic shared memory
  llvm::SmallVector<mlir::Value> params; ///< buffers, in parameter order
  /// With hoistOffsets: per parameter, the element offset the caller adds
  /// to the pointer (the kernel indexes from 0).
  llvm::SmallVector<int64_t> paramOffsets;
};

/// The kernel of a kern.map, kern.reduce or runtime kernel op (kern.softmax,
/// ...) named `name`. Fails
/// with a diagnostic on `op` when the CUDA target cannot take it.
/// `hoistOffsets` (maps and reductions): the operands' base offsets go to
/// the caller (Kernel::paramOffsets), so that kernels differing only there
/// have the same text.
mlir::FailureOr<Kernel> emitKernel(mlir::Operation *op, llvm::StringRef name,
                                   bool hoistOffsets = false);

/// The text every generated CUDA program starts with.
std::string programPrologue();

/// One NVRTC output.
struct Image {
  std::string arch; ///< "sm_80", "sm_90" (cubin) or "compute_90" (PTX)
  std::vector<char> data;
};

struct CompileOptions {
  std::vector<std::string> archs = {"sm_80", "sm_90", "compute_90"};
  /// Results are cached here by a hash of the source, the options and the
  /// NVRTC version; empty disables the cache.
  std::string cacheDir;
};

/// Compiles `source` once per architecture with NVRTC. On failure `error`
/// holds the NVRTC log. `cached` says whether every image came from the
/// cache.
mlir::LogicalResult compile(const std::string &source,
                            const CompileOptions &options,
                            std::vector<Image> &images, std::string &error,
                            bool &cached);

/// The default cache directory: $SHARDC_CACHE_DIR, else
/// $XDG_CACHE_HOME/shardc, else ~/.cache/shardc ("" if none is known).
std::string defaultCacheDir();

} // namespace shardc::cuda

#endif // SHARDC_TARGET_CUDA_H
