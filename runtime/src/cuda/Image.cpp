//===- Image.cpp - which of a program's CUDA images a GPU runs ------------===//
#include "Image.h"

#include <cstring>

namespace shardc::rt::cuda {

bool parseArch(const char *arch, bool &ptx, int &version) {
  if (!arch)
    return false;
  const char *digits;
  if (std::strncmp(arch, "sm_", 3) == 0) {
    ptx = false;
    digits = arch + 3;
  } else if (std::strncmp(arch, "compute_", 8) == 0) {
    ptx = true;
    digits = arch + 8;
  } else {
    return false;
  }
  size_t n = std::strlen(digits);
  if (n < 2 || n > 3 || digits[0] == '0')
    return false;
  version = 0;
  for (size_t i = 0; i < n; ++i) {
    if (digits[i] < '0' || digits[i] > '9')
      return false;
    version = version * 10 + (digits[i] - '0');
  }
  return true;
}

bool validateCudaCode(const shardc_program &p, std::string &error) {
  if (p.num_cuda_images == 0 || !p.cuda_images) {
    error = "program has CUDA entry points but no CUDA images";
    return false;
  }
  for (uint32_t i = 0; i < p.num_cuda_images; ++i) {
    const sc_cuda_image &img = p.cuda_images[i];
    bool ptx = false;
    int version = 0;
    if (!parseArch(img.arch, ptx, version)) {
      error = std::string("program has a CUDA image for unknown arch '") +
              (img.arch ? img.arch : "(null)") + "'";
      return false;
    }
    if (!img.data || img.size == 0) {
      error = std::string("program's CUDA image for ") + img.arch + " is empty";
      return false;
    }
    // The driver reads PTX as a C string.
    if (ptx && img.data[img.size - 1] != 0) {
      error = std::string("program's PTX for ") + img.arch +
              " is not NUL-terminated";
      return false;
    }
  }
  if (p.num_cuda_kernels && !p.cuda_kernels) {
    error = "program has " + std::to_string(p.num_cuda_kernels) +
            " CUDA kernels but no kernel names";
    return false;
  }
  for (uint32_t i = 0; i < p.num_cuda_kernels; ++i)
    if (!p.cuda_kernels[i] || !*p.cuda_kernels[i]) {
      error = "program's CUDA kernel " + std::to_string(i) + " has no name";
      return false;
    }
  return true;
}

const sc_cuda_image *chooseImage(const shardc_program &p, int major, int minor,
                                 const std::string &gpuName,
                                 std::string &error) {
  const int gpu = major * 10 + minor;
  const sc_cuda_image *cubin = nullptr, *ptx = nullptr;
  int cubinVersion = -1, ptxVersion = -1;
  std::string have;
  for (uint32_t i = 0; i < p.num_cuda_images; ++i) {
    const sc_cuda_image &img = p.cuda_images[i];
    bool isPtx = false;
    int v = 0;
    if (!parseArch(img.arch, isPtx, v))
      continue; // validateCudaCode rejects such programs
    if (i)
      have += i + 1 == p.num_cuda_images ? " and " : ", ";
    have += img.arch;
    if (isPtx) {
      if (v <= gpu && v > ptxVersion) {
        ptx = &img;
        ptxVersion = v;
      }
    } else if (v / 10 == major && v <= gpu && v > cubinVersion) {
      cubin = &img;
      cubinVersion = v;
    }
  }
  if (cubin)
    return cubin;
  if (ptx)
    return ptx;
  error = "GPU '" + gpuName + "' is sm_" + std::to_string(gpu) +
          "; this executable has code for " + have;
  return nullptr;
}

} // namespace shardc::rt::cuda
