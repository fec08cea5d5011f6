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

#include "runtime/src/Status.h"
#include "shardc/cpu.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct cublasLtContext;
struct cudnnContext;

namespace shardc::rt {
class Communicator;
namespace cuda {
struct CublasLt;
struct Cudnn;
} // namespace cuda
} // namespace shardc::rt

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

  // The rank's NCCL communicators (null or empty without them): a runtime
  // call that waits for the stream polls them (synchronizeStream), so that
  // a lost peer fails the run instead of hanging it.
  const std::vector<std::unique_ptr<shardc::rt::Communicator>> *ncclComms =
      nullptr;
  // Expert parallelism (sc_cu_moe_dispatch / sc_cu_moe_return) reads row
  // counts back to the host, so it waits for the stream in the middle of
  // run(): the first call sets hostSyncs, and the device then never
  // captures run() into a CUDA graph. The first call is always in a direct
  // run (the warm-up), never in a capture.
  bool hostSyncs = false;
  // Their buffers, grown on demand right after a wait for the stream (so
  // no queued copy still uses the old ones) and freed with the device
  // (releaseExpertBuffers): the arriving rows in sender order, and
  // page-locked counts and offsets, so that the copies to and from the
  // host are asynchronous and every wait is the watched one.
  CUdeviceptr expertStaging = 0;
  size_t expertStagingBytes = 0;
  int32_t *expertHost = nullptr;
  size_t expertHostInts = 0;
};

namespace shardc::rt::cuda {

/// Grows `buffer` (of `capacity` bytes, device memory of cu) to at least
/// `bytes`, freeing the old one first: no queued work may still use it.
/// False after sc_fail() naming `what` and the buffer's `kind`.
bool growDeviceBuffer(sc_cuda &cu, CUdeviceptr &buffer, size_t &capacity,
                      size_t bytes, const char *what, const char *kind);

/// Grows cu.workspace to at least `bytes`. Call from create() only: the
/// old buffer is freed, so no queued or captured work may use it yet, which
/// holds in init(), before the first run. False after sc_fail() naming
/// `what`.
bool reserveWorkspace(sc_cuda &cu, size_t bytes, const char *what);

/// Waits for cu.stream; `r` is cuStreamSynchronize's result. With NCCL
/// communicators (cu.ncclComms) the stream is polled under their watch
/// first (waitWithNccl), which fails, aborting them, on a peer's error or
/// after SHARDC_NCCL_TIMEOUT.
Status synchronizeStream(sc_cuda &cu, const char *what, CUresult &r);

/// Frees the buffers of sc_cu_moe_* (no-op when never allocated), once
/// nothing queued uses them.
void releaseExpertBuffers(sc_cuda &cu);

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
