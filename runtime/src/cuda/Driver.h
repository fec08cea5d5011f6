//===- Driver.h - the CUDA driver API, reached through dlopen ---*- C++ -*-===//
//
// The executable must start on machines without a GPU, so it links no CUDA
// library: libcuda.so.1 is opened at load time and every entry point the
// runtime uses is looked up into a table. <cuda.h> is included for its types
// only. Its macros map the API names to the versioned symbols of this
// toolkit's ABI (cuMemAlloc -> cuMemAlloc_v2, cuStreamBeginCapture ->
// cuStreamBeginCapture_v2, cuGraphInstantiate ->
// cuGraphInstantiateWithFlags, ...); the table looks up exactly the name the
// macro expands to, so each pointer has the signature its declaration says.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CUDA_DRIVER_H
#define SHARDC_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include <string>

namespace shardc::rt::cuda {

// X(name): one driver entry point, named as in <cuda.h> (macro-expanded).
#define SHARDC_CUDA_DRIVER_FUNCTIONS(X)                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamQuery)                                                             \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemAllocHost)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuMemsetD8)                                                                \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)

/// The driver's entry points. Members are named like the API functions, so
/// calls read `drv.cuMemAlloc(&p, n)`.
struct Driver {
#define SHARDC_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  SHARDC_CUDA_DRIVER_FUNCTIONS(SHARDC_CUDA_DRIVER_MEMBER)
#undef SHARDC_CUDA_DRIVER_MEMBER

  /// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
  std::string errorText(CUresult r) const;
};

/// Opens the driver library (libcuda.so.1, or $SHARDC_LIBCUDA), resolves
/// the table and calls cuInit. A driver that loaded is kept for the life of
/// the process (one per path); a failure is retried by the next call. On
/// failure returns null with a one-line `error` that starts with "no usable
/// GPU: ".
const Driver *loadDriver(std::string &error);

} // namespace shardc::rt::cuda

#endif // SHARDC_RUNTIME_CUDA_DRIVER_H
