//===- Epilogue.cpp - IEEE activations applied after oneDNN primitives ----===//
//
// oneDNN's eltwise_relu post-op is not IEEE: the JIT injector computes
// ReLU with alpha 0 as vmaxps(v, 0), which returns 0 for NaN, and the
// reference and alpha != 0 forms compute v > 0 ? v : v * alpha, which gives
// NaN for -Inf. ONNX Runtime's Relu (and PyTorch's) keep NaN and map -Inf
// to 0, so the convolution and GEMM wrappers (Dnnl.cpp) run without the
// post-op and apply reluInPlace to the output they have just written
// (still in cache: the cost is measured in docs/performance.md).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <cstring>

namespace shardc::rt::cpu {

namespace {

// One contiguous run; cloned for AVX-512 and AVX2 (the runtime is built
// for the baseline ISA), where the compare-and-blend is a few instructions
// per vector.
template <class T> inline __attribute__((always_inline)) void
reluRun(T *__restrict y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i)
    y[i] = maxNaN(y[i], T(0));
}
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
reluRunF32(float *y, int64_t n) {
  reluRun(y, n);
}
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
reluRunF64(double *y, int64_t n) {
  reluRun(y, n);
}
void reluChunk(float *y, int64_t n) { reluRunF32(y, n); }
void reluChunk(double *y, int64_t n) { reluRunF64(y, n); }

// Large outputs are split over the threads (no OpenMP region for small
// ones: a region costs more than the pass).
template <class T> void reluFloat(T *y, int64_t n) {
  const int64_t chunk = 1 << 16;
  if (n <= 4 * chunk) {
    reluChunk(y, n);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < (n + chunk - 1) / chunk; ++c)
    reluChunk(y + c * chunk, std::min(chunk, n - c * chunk));
}

// f16 / bf16 on their bits: a negative number (sign set, not NaN) becomes
// +0. `nanAbove`: the largest |bits| that is not NaN (the infinity).
void reluBits(uint16_t *y, int64_t n, uint16_t nanAbove) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    uint16_t b = y[i];
    bool negative = (b & 0x8000) && (b & 0x7fff) <= nanAbove;
    y[i] = negative ? 0 : b;
  }
}

} // namespace

void reluInPlace(void *y, int32_t dtype, int64_t n) {
  switch (dtype) {
  case kF32:
    reluFloat(static_cast<float *>(y), n);
    break;
  case kF64:
    reluFloat(static_cast<double *>(y), n);
    break;
  case kF16:
    reluBits(static_cast<uint16_t *>(y), n, 0x7c00);
    break;
  case kBF16:
    reluBits(static_cast<uint16_t *>(y), n, 0x7f80);
    break;
  default:
    break;
  }
}

} // namespace shardc::rt::cpu
