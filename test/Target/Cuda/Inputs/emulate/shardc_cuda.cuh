// shardc_cuda.cuh for the host emulation of generated CUDA programs
// (emulate.py): the prelude's family headers compiled as host C++.
//
// A block runs as one std::thread per CUDA thread; blocks run one after
// another. __syncthreads is a barrier of the block, a warp shuffle or
// ballot goes through a slot per thread between two barriers of the warp,
// __shared__ variables are statics (one block at a time). A __syncthreads
// that not every thread of the block reaches, or a shuffle or ballot that
// not every lane of the warp does, aborts (CUDA leaves both undefined).
// fp16 / bf16 conversions are the CPU runtime's (round to nearest even, as
// CUDA's).
#pragma once
#include <algorithm>
#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "shardc/cpu.h"

using std::exp;
using std::fmax;
using std::fmin;
using std::log;
using std::rint;
using std::sqrt;

struct sc_dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local sc_dim3 threadIdx, blockIdx;
inline sc_dim3 blockDim, gridDim;

#define __device__
#define __global__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static
#define __launch_bounds__(x)
#define __align__(n) __attribute__((aligned(n)))

struct uint4 {
  uint32_t x, y, z, w;
};
// Without FMA contraction (-ffp-contract=off), as the _rn intrinsics.
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }

// A barrier whose phases must be reached by all of its threads or by none
// (a phase that only returning threads complete is their exit).
struct EmuPhaseCheck {
  std::atomic<unsigned> *arrived;
  unsigned size;
  const char *what;
  void operator()() noexcept {
    unsigned n = arrived->exchange(0);
    if (n && n != size) {
      std::fprintf(stderr, "emulate: %s reached by %u of %u threads\n", what,
                   n, size);
      std::abort();
    }
  }
};
struct EmuBarrier {
  std::atomic<unsigned> arrived{0};
  std::barrier<EmuPhaseCheck> b;
  EmuBarrier(unsigned n, const char *what)
      : b(n, EmuPhaseCheck{&arrived, n, what}) {}
  void wait() {
    ++arrived;
    b.arrive_and_wait();
  }
  void leave() { b.arrive_and_drop(); }
};

struct EmuBlock {
  std::unique_ptr<EmuBarrier> block;
  std::vector<std::unique_ptr<EmuBarrier>> warps;
  std::vector<uint64_t> slots;
};
inline EmuBlock *emu_block;

inline void __syncthreads() { emu_block->block->wait(); }

template <class T> inline T sc_shfl_xor(T v, int lane_mask) {
  static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
  unsigned t = threadIdx.x, w = t / 32;
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  emu_block->slots[t] = bits;
  emu_block->warps[w]->wait();
  unsigned src = (t & ~31u) | ((t & 31u) ^ (unsigned)lane_mask);
  if (src >= blockDim.x) {
    std::fprintf(stderr, "emulate: shuffle from lane %u outside the block\n",
                 src);
    std::abort();
  }
  uint64_t o = emu_block->slots[src];
  emu_block->warps[w]->wait();
  T r;
  std::memcpy(&r, &o, sizeof(T));
  return r;
}

// __ballot_sync over the whole warp: every lane posts its bit between two
// barriers of the warp, then ORs the warp's bits.
inline unsigned sc_ballot(bool p) {
  unsigned t = threadIdx.x, w = t / 32;
  emu_block->slots[t] = p;
  emu_block->warps[w]->wait();
  unsigned bits = 0;
  for (unsigned l = 0; l < 32 && 32 * w + l < blockDim.x; ++l)
    bits |= (unsigned)emu_block->slots[32 * w + l] << l;
  emu_block->warps[w]->wait();
  return bits;
}
inline int __popc(unsigned v) { return std::popcount(v); }

// CUDA's compare-and-swap on a word: returns the old value.
template <class T> inline T atomicCAS(T *p, T compare, T value) {
  std::atomic_ref<T>(*p).compare_exchange_strong(compare, value);
  return compare;
}

// A warp's values of v, lane by lane (every lane must call it).
inline void emu_warp_all(uint64_t v, uint64_t (&out)[32]) {
  unsigned t = threadIdx.x, w = t / 32;
  if (32 * w + 32 > blockDim.x) {
    std::fprintf(stderr, "emulate: a tensor-core op in a partial warp\n");
    std::abort();
  }
  emu_block->slots[t] = v;
  emu_block->warps[w]->wait();
  for (unsigned l = 0; l < 32; ++l)
    out[l] = emu_block->slots[32 * w + l];
  emu_block->warps[w]->wait();
}

// mma.sync m16n8k16 (fp32 accumulators): the warp's a and b fragments are
// gathered and each lane computes its four outputs (rows lane / 4 and
// lane / 4 + 8, columns 2 (lane % 4) and the next), summing k in order.
struct sc_f16;
struct sc_bf16;
template <class Tag> inline float emu_frag(uint32_t r, int half) {
  uint16_t h = (uint16_t)(r >> (16 * half));
  if constexpr (std::is_same_v<Tag, sc_f16>)
    return sc_h2f(h);
  else
    return sc_bf2f(h);
}
template <class Tag>
inline void sc_mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                         uint32_t b1, const Tag *) {
  uint64_t lo[32], hi[32], bb[32];
  emu_warp_all(a[0] | (uint64_t)a[1] << 32, lo);
  emu_warp_all(a[2] | (uint64_t)a[3] << 32, hi);
  emu_warp_all(b0 | (uint64_t)b1 << 32, bb);
  float A[16][16], B[16][8];
  for (int l = 0; l < 32; ++l) {
    int g = l / 4, t = l % 4;
    uint32_t r[4] = {(uint32_t)lo[l], (uint32_t)(lo[l] >> 32), (uint32_t)hi[l],
                     (uint32_t)(hi[l] >> 32)};
    for (int e = 0; e < 2; ++e) {
      A[g][2 * t + e] = emu_frag<Tag>(r[0], e);
      A[g + 8][2 * t + e] = emu_frag<Tag>(r[1], e);
      A[g][2 * t + 8 + e] = emu_frag<Tag>(r[2], e);
      A[g + 8][2 * t + 8 + e] = emu_frag<Tag>(r[3], e);
      B[2 * t + e][g] = emu_frag<Tag>((uint32_t)bb[l], e);
      B[2 * t + 8 + e][g] = emu_frag<Tag>((uint32_t)(bb[l] >> 32), e);
    }
  }
  unsigned lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i) {
    unsigned row = g + 8 * (i / 2), col = 2 * t + i % 2;
    float s = c[i];
    for (int kk = 0; kk < 16; ++kk)
      s += A[row][kk] * B[kk][col];
    c[i] = s;
  }
}

// ldmatrix .x4 .trans: lane l names row l % 8 of matrix l / 8; r[m] gets
// rows 2 (lane % 4) and 2 (lane % 4) + 1 of matrix m at column lane / 4.
inline void sc_ldsm_x4_trans(uint32_t (&r)[4], const uint16_t *row) {
  uint64_t rows[32];
  emu_warp_all((uint64_t)(uintptr_t)row, rows);
  unsigned lane = threadIdx.x % 32;
  for (int m = 0; m < 4; ++m) {
    auto at = [&](unsigned j) {
      return (uint32_t)((const uint16_t *)(uintptr_t)rows[8 * m + j])[lane / 4];
    };
    r[m] = at(2 * (lane % 4)) | at(2 * (lane % 4) + 1) << 16;
  }
}

// cp.async: copied at once (the waits have nothing to wait for).
inline void sc_cp_async16(void *dst, const void *src, bool valid) {
  if (valid)
    std::memcpy(dst, src, 16);
  else
    std::memset(dst, 0, 16);
}
inline void sc_cp_async_commit() {}
template <int N> inline void sc_cp_async_wait() {}

template <class F> void emu_launch(unsigned grid, unsigned block, F f) {
  gridDim = {grid, 1, 1};
  blockDim = {block, 1, 1};
  for (unsigned b = 0; b < grid; ++b) {
    EmuBlock eb;
    eb.block = std::make_unique<EmuBarrier>(block, "__syncthreads");
    for (unsigned w = 0; w * 32 < block; ++w)
      eb.warps.push_back(std::make_unique<EmuBarrier>(
          std::min(32u, block - 32 * w), "a warp shuffle"));
    eb.slots.resize(block);
    emu_block = &eb;
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < block; ++t)
      threads.emplace_back([&, t] {
        threadIdx = {t, 0, 0};
        blockIdx = {b, 0, 0};
        f();
        eb.block->leave();
        eb.warps[t / 32]->leave();
      });
    for (std::thread &t : threads)
      t.join();
  }
}

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
