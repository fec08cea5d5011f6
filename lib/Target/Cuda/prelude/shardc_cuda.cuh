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

// Tensor-core fragments (sm_80 and later): a warp's 16 x 8 fp32 tile
// c += a b over k = 16, a row-major 16 x 16 (four registers of two fp16 or
// bf16 each, PTX's m16n8k16 layout), b column-major 16 x 8 (two registers).
// The emulation (emulate.py) computes the same products lane by lane.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
struct sc_f16;
struct sc_bf16;
static __device__ __forceinline__ void
sc_mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
             const sc_f16 *) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
static __device__ __forceinline__ void
sc_mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
             const sc_bf16 *) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Four 8 x 8 matrices of 16-bit elements from shared memory, transposed:
// lane l names row l % 8 of matrix l / 8 (16 bytes, 16-byte aligned);
// r[m] receives rows 2 (l % 4) and 2 (l % 4) + 1 of matrix m at column
// l / 4, which is the b fragment of m16n8k16 for a row-major k x n tile.
static __device__ __forceinline__ void sc_ldsm_x4_trans(uint32_t (&r)[4],
                                                       const uint16_t *row) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(row);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
               "{%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}
// Asynchronous 16-byte copies from global to shared memory (cp.async, L2
// only): zeros instead when `valid` is false; a group is committed, then
// waited for until at most N groups are still in flight.
static __device__ __forceinline__ void sc_cp_async16(void *dst,
                                                     const void *src,
                                                     bool valid) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :
               : "r"(d), "l"(src), "r"(valid ? 16 : 0));
}
static __device__ __forceinline__ void sc_cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> static __device__ __forceinline__ void sc_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
#endif

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
#include "attention_mma.cuh"
#include "moe.cuh"
