// shardc_cuda.cuh - the header of every generated CUDA program.
//
// NVRTC compiles generated kernels with no system headers but CUDA's own, so
// this header supplies what the shared scalar emitter (lib/Target/Common)
// prints: the fixed-width integer types, INFINITY / NAN / INT64_MIN, and the
// fp16 / bf16 storage conversions (elements are stored as raw uint16_t, as
// on the CPU; arithmetic is in float).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#define INT64_MIN (-9223372036854775807LL - 1)

static __device__ __forceinline__ float sc_h2f(uint16_t h) {
  return __half2float(__ushort_as_half(h));
}
static __device__ __forceinline__ uint16_t sc_f2h(float f) {
  return __half_as_ushort(__float2half_rn(f));
}
static __device__ __forceinline__ float sc_bf2f(uint16_t h) {
  return __uint_as_float(static_cast<uint32_t>(h) << 16);
}
static __device__ __forceinline__ uint16_t sc_f2bf(float f) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

// Warp-level exchange for the reductions of generated kernels. Narrow
// integers and bool promote to int; the rest have native overloads.
template <typename T>
static __device__ __forceinline__ T sc_shfl_xor(T v, int lane_mask) {
  return static_cast<T>(__shfl_xor_sync(0xffffffffu, v, lane_mask));
}
// The lanes of the warp whose p is true, as bits (every lane must call it).
static __device__ __forceinline__ unsigned sc_ballot(bool p) {
  return __ballot_sync(0xffffffffu, p);
}

// The runtime kernels (kern.softmax, kern.gather, ...) on CUDA, by family.
#include "elem.cuh"
#include "gather.cuh"
#include "scatter.cuh"
#include "normalize.cuh"
#include "select.cuh"
#include "pad.cuh"
#include "pool.cuh"
#include "resize.cuh"
#include "matmul.cuh"
#include "attention.cuh"
#include "moe.cuh"
