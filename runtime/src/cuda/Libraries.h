//===- Libraries.h - cuBLASLt and cuDNN, reached through dlopen -*- C++ -*-===//
//
// Like the driver (Driver.h): the headers give the types and signatures,
// the functions come from dlopen'ed libraries, looked up into tables that
// live for the life of the process. The library's major version must be
// the headers' (their enums and structs are the ABI).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CUDA_LIBRARIES_H
#define SHARDC_RUNTIME_CUDA_LIBRARIES_H

#include <cublasLt.h>
#include <cudnn.h>

#include "shardc/cpu.h"
#include "shardc/format.h"

#include <string>

namespace shardc::rt::cuda {

#define SHARDC_CUBLASLT_FUNCTIONS(X)                                           \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

#define SHARDC_CUDNN_FUNCTIONS(X)                                              \
  X(cudnnGetVersion)                                                           \
  X(cudnnGetErrorString)                                                       \
  X(cudnnCreate)                                                               \
  X(cudnnDestroy)                                                              \
  X(cudnnSetStream)                                                            \
  X(cudnnCreateTensorDescriptor)                                               \
  X(cudnnSetTensorNdDescriptor)                                                \
  X(cudnnDestroyTensorDescriptor)                                              \
  X(cudnnCreateFilterDescriptor)                                               \
  X(cudnnSetFilterNdDescriptor)                                                \
  X(cudnnDestroyFilterDescriptor)                                              \
  X(cudnnCreateConvolutionDescriptor)                                          \
  X(cudnnSetConvolutionNdDescriptor)                                           \
  X(cudnnSetConvolutionGroupCount)                                             \
  X(cudnnSetConvolutionMathType)                                               \
  X(cudnnDestroyConvolutionDescriptor)                                         \
  X(cudnnGetConvolutionForwardAlgorithm_v7)                                    \
  X(cudnnGetConvolutionForwardWorkspaceSize)                                   \
  X(cudnnConvolutionForward)                                                   \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)                               \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)                              \
  X(cudnnConvolutionBackwardData)                                              \
  X(cudnnAddTensor)                                                            \
  X(cudnnTransformTensor)

#define SHARDC_CUDA_LIBRARY_MEMBER(name) decltype(&::name) name = nullptr;

struct CublasLt {
  SHARDC_CUBLASLT_FUNCTIONS(SHARDC_CUDA_LIBRARY_MEMBER)
  /// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not
  /// supported)".
  std::string statusText(cublasStatus_t s) const;
};

struct Cudnn {
  SHARDC_CUDNN_FUNCTIONS(SHARDC_CUDA_LIBRARY_MEMBER)
  std::string statusText(cudnnStatus_t s) const;
};

#undef SHARDC_CUDA_LIBRARY_MEMBER

/// libcublasLt.so.13 (else libcublasLt.so of major version 13), loaded once
/// per process; null with a one-line error ("cannot load libcublasLt.so.13
/// (...)") if it cannot be loaded, lacks a function or has another major
/// version. A failure is retried by the next call.
const CublasLt *loadCublasLt(std::string &error);

/// libcudnn.so.9 (else libcudnn.so of major version 9), as loadCublasLt.
const Cudnn *loadCudnn(std::string &error);

/// "float32 [2,3]": a tensor as the library wrappers' errors name it.
inline std::string describe(const sc_desc *d) {
  std::string s = shardc::format::dtypeName(d->dtype);
  s += " [";
  for (int i = 0; i < d->rank; ++i)
    s += (i ? "," : "") + std::to_string(d->dims[i]);
  return s + "]";
}

} // namespace shardc::rt::cuda

#endif // SHARDC_RUNTIME_CUDA_LIBRARIES_H
