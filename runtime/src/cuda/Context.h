//===- Context.h - sc_cuda, the device state generated code sees -*- C++
//-*-===//
//
// Generated CUDA code passes an sc_cuda* to every runtime call
// (shardc/cuda.h). It holds what those calls need: the driver, the model's
// context and stream, the kernels of the loaded module, and the library
// state the matmul and convolution wrappers create on first use. The
// buffers and the graph belong to the device that owns the sc_cuda
// (CudaDevice.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CUDA_CONTEXT_H
#define SHARDC_RUNTIME_CUDA_CONTEXT_H

#include "Driver.h"

#include "shardc/cpu.h"

#include <cstdint>
#include <string>
#include <vector>

struct cublasLtContext;
struct cudnnContext;

namespace shardc::rt::cuda {
struct CublasLt;
struct Cudnn;
} // namespace shardc::rt::cuda

struct sc_cuda {
  explicit sc_cuda(const shardc::rt::cuda::Driver &drv) : drv(drv) {}
  sc_cuda(const sc_cuda &) = delete;
  sc_cuda &operator=(const sc_cuda &) = delete;

  const shardc::rt::cuda::Driver &drv;
  std::string gpuName;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  CUmodule module = nullptr;
  // Indexed like shardc_program.cuda_kernels.
  std::vector<CUfunction> kernels;
  std::vector<const char *> kernelNames;
  // The dynamic shared memory each kernel may use so far (raised past the
  // default 48 KiB on demand).
  std::vector<uint32_t> kernelSharedBytes;

  // Library state, created by the first matmul or convolution create().
  // create() runs in init(), before any graph capture: creating handles and
  // allocating memory cannot be captured.
  const shardc::rt::cuda::CublasLt *cublasLt = nullptr;
  cublasLtContext *cublasLtHandle = nullptr;
  const shardc::rt::cuda::Cudnn *cudnn = nullptr;
  cudnnContext *cudnnHandle = nullptr;
  // One scratch buffer for all library calls: they run one at a time on the
  // one stream. It only grows, and only in create().
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 0;
};

namespace shardc::rt::cuda {

/// Grows cu.workspace to at least `bytes`. Call from create() only: the
/// old buffer is freed, so no queued or captured work may use it yet, which
/// holds in init(), before the first run. False after sc_fail() naming
/// `what`.
bool reserveWorkspace(sc_cuda &cu, size_t bytes, const char *what);

/// Destroy the library handles (no-ops when never created). The wrappers'
/// own handles must be freed first.
void releaseCublasLt(sc_cuda &cu);
void releaseCudnn(sc_cuda &cu);

/// A device address as the pointer type generated code and the libraries
/// take.
inline void *devicePointer(CUdeviceptr p) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(p));
}
inline CUdeviceptr deviceAddress(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

} // namespace shardc::rt::cuda

#endif // SHARDC_RUNTIME_CUDA_CONTEXT_H
