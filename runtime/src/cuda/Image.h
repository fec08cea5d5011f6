//===- Image.h - which of a program's CUDA images a GPU runs ----*- C++ -*-===//
//
// A program carries cubins for some architectures (sm_80, sm_90) and PTX
// for a virtual one (compute_90). A cubin for sm_XY runs on GPUs of compute
// capability X.Z with Z >= Y only; PTX for compute_XY is JIT-compiled by
// the driver for any GPU of capability >= X.Y. Pure logic, no driver.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CUDA_IMAGE_H
#define SHARDC_RUNTIME_CUDA_IMAGE_H

#include "shardc/cpu.h"

#include <string>

namespace shardc::rt::cuda {

/// "sm_90" -> cubin, 90; "compute_90" -> PTX, 90. False for anything else
/// (arch-specific variants such as sm_90a included).
bool parseArch(const char *arch, bool &ptx, int &version);

/// Checks the CUDA part of a program: images with known archs, data and a
/// size (PTX NUL-terminated), kernel names. False with a one-line error.
bool validateCudaCode(const shardc_program &program, std::string &error);

/// The image a GPU of capability major.minor runs: the cubin of its major
/// version with the highest minor <= the GPU's, else the PTX with the
/// highest version <= the GPU's. Null with an error like "GPU 'NVIDIA T4'
/// is sm_75; this executable has code for sm_80, sm_90 and compute_90".
const sc_cuda_image *chooseImage(const shardc_program &program, int major,
                                 int minor, const std::string &gpuName,
                                 std::string &error);

} // namespace shardc::rt::cuda

#endif // SHARDC_RUNTIME_CUDA_IMAGE_H
