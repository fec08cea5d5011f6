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
#include "moe.cuh"
