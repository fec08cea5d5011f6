// moe.cuh - the mixture-of-experts kernels around graph.moe's GEMMs
// (runtime/src/cpu/Moe.cpp and sc_grouped_matmul of Dnnl.cpp on CUDA):
// kern.moe_place, kern.moe_route, kern.moe_permute, kern.grouped_matmul,
// kern.grouped_bias, kern.moe_combine.
//
// Difference from the CPU kernels, which fail the run on an expert id
// outside [0, E): the device cannot, so such a choice gets no row. Its slot
// is -1, offsets[E] counts only the other choices, permute skips it and
// combine adds nothing for it (the token's sum leaves that choice out).
// Place writes -1 for such an id, which the route after it takes as out of
// range in turn.
#pragma once

// ---- place ------------------------------------------------------------------

// slots[j] = table[e * most + t mod copies[e]] for e = ids[j], the choice j
// = t * K + k (expert load balancing: a hot expert's tokens take its copies
// in turn), a thread per choice (total = T * K). copies and table are the
// op's attributes, baked into the kernel as static arrays; an id outside
// [0, experts) gets -1.
template <class Ix, class I>
static __device__ __forceinline__ void
sc_moe_place(const Ix *__restrict__ ids, const int32_t *__restrict__ copies,
             const int32_t *__restrict__ table, int32_t *__restrict__ slots,
             int experts, int most, I K, I total) {
  for (I j = (I)blockIdx.x * blockDim.x + threadIdx.x; j < total;
       j += (I)gridDim.x * blockDim.x) {
    const int64_t e = (int64_t)ids[j];
    slots[j] = e >= 0 && e < experts
                   ? table[e * most + (int64_t)(j / K) % copies[e]]
                   : -1;
  }
}

// ---- route ------------------------------------------------------------------

// offsets[e]: the first row of expert e (offsets[0] = 0, offsets[NE] = the
// rows taken); slots[j]: the row of choice j = t * K + k. Within an expert
// the rows follow j, as the CPU's stable counting sort: the result is the
// CPU's exactly.
//
// One block (launched as one; blockDim.x a multiple of 32). Pass 1: warp w
// takes experts w, w + warps, ... and walks the P choices 32 at a time; a
// ballot of "is mine" gives each choice its rank among the expert's
// earlier choices (written to slots) and the expert's count. Thread 0
// scans the counts into offsets; pass 2 adds the expert's first row to
// each rank. Scaling: each warp reads the ids once per expert it takes,
// ceil(NE / warps) * ceil(P / 32) steps on one SM, which is small for
// decoding and for prefills of a few thousand tokens; longer ones would
// want per-block counts and a device-wide scan.
template <class Ix, int NE>
static __device__ __forceinline__ void
sc_moe_route(const Ix *__restrict__ ids, int32_t *__restrict__ offsets,
             int32_t *__restrict__ slots, int P) {
  __shared__ int32_t first[NE + 1];
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  const unsigned below = (1u << lane) - 1u;
  for (int e = threadIdx.x >> 5; e < NE; e += warps) {
    int n = 0;
    for (int j0 = 0; j0 < P; j0 += 32) {
      const int j = j0 + lane;
      const bool mine = j < P && (int64_t)ids[j] == e;
      const unsigned m = sc_ballot(mine);
      if (mine)
        slots[j] = n + __popc(m & below);
      n += __popc(m);
    }
    if (lane == 0)
      first[e + 1] = n;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    first[0] = 0;
    for (int e = 0; e < NE; ++e)
      first[e + 1] += first[e];
  }
  __syncthreads();
  for (int e = threadIdx.x; e <= NE; e += blockDim.x)
    offsets[e] = first[e];
  for (int j = threadIdx.x; j < P; j += blockDim.x) {
    const int64_t e = (int64_t)ids[j];
    slots[j] = e >= 0 && e < NE ? first[e] + slots[j] : -1;
  }
}

// ---- permute ----------------------------------------------------------------

// rows[slots[j]] = x[j / K] for the choices j: rows of `row` words W, a
// thread per word (total = P * row). Choices without a row are skipped.
template <class W, class I>
static __device__ __forceinline__ void
sc_moe_permute(const W *__restrict__ x, const int32_t *__restrict__ slots,
               W *__restrict__ rows, I K, I row, I total) {
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    const I j = t / row, w = t % row;
    const int32_t s = slots[j];
    if (s >= 0)
      rows[(I)s * row + w] = x[(j / K) * row + w];
  }
}

// ---- grouped matmul ---------------------------------------------------------

// y[r] = a[r] x b[e] for the rows r of each expert's segment
// [offsets[e], offsets[e + 1]); rows from offsets[E] on are not written.
//
// Not cuBLASLt: the segments' sizes exist only on the device (moe_route
// writes them), the program runs as a captured CUDA graph, and cuBLAS's
// grouped GEMM takes its problem sizes on the host; one cuBLASLt call per
// expert over all P rows would multiply the work by E.
//
// Tiles of 64 rows x 64 columns of y, one per block of 256 threads in turn
// (grid stride); a thread owns rows ty + 16 i and columns tx + 16 j (i, j <
// 4). 16-wide slices of a and b[e] are staged in shared memory as float,
// and every output sums its k in order in float (fp16 / bf16 too). The
// experts whose segment meets the tile's rows are found by a binary search
// of offsets; a tile that straddles experts is computed once per expert it
// meets, with the other experts' rows staged as 0 and not stored. Plain
// CUDA cores, no tensor cores.
template <class E>
static __device__ __forceinline__ void
sc_grouped_matmul(const typename sc_elem<E>::S *__restrict__ a,
                  const typename sc_elem<E>::S *__restrict__ b,
                  const int32_t *__restrict__ offsets,
                  typename sc_elem<E>::S *__restrict__ y, int experts,
                  int64_t P, int64_t K, int64_t N) {
  enum { BM = 64, BN = 64, BK = 16 };
  // +1: the staging stores of a go down a column (no bank conflicts).
  __shared__ float as[BK][BM + 1], bs[BK][BN];
  typedef sc_elem<E> T;
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  const int64_t tn = (N + BN - 1) / BN, tiles = (P + BM - 1) / BM * tn;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t r0 = tile / tn * BM, c0 = tile % tn * BN;
    // The first expert whose segment ends past r0.
    int e = 0;
    for (int hi = experts; e < hi;) {
      const int mid = (e + hi) / 2;
      if (offsets[mid + 1] > r0)
        hi = mid;
      else
        e = mid + 1;
    }
    for (; e < experts && offsets[e] < r0 + BM; ++e) {
      const int64_t lo = offsets[e] > r0 ? offsets[e] : r0;
      int64_t end = offsets[e + 1] < r0 + BM ? offsets[e + 1] : r0 + BM;
      end = end < P ? end : P;
      if (lo >= end) // an expert without rows
        continue;
      const typename T::S *be = b + (int64_t)e * K * N;
      float acc[4][4] = {};
      for (int64_t k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
          const int r = i / BK, kk = i % BK;
          const int64_t row = r0 + r;
          as[kk][r] = row >= lo && row < end && k0 + kk < K
                          ? (float)T::load(a[row * K + k0 + kk])
                          : 0.0f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += blockDim.x) {
          const int kk = i / BN, c = i % BN;
          bs[kk][c] = k0 + kk < K && c0 + c < N
                          ? (float)T::load(be[(k0 + kk) * N + c0 + c])
                          : 0.0f;
        }
        __syncthreads();
        const int kn = K - k0 < BK ? (int)(K - k0) : (int)BK;
        for (int kk = 0; kk < kn; ++kk) {
          float av[4], bv[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            av[i] = as[kk][ty + 16 * i];
            bv[i] = bs[kk][tx + 16 * i];
          }
#pragma unroll
          for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
              acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int64_t row = r0 + ty + 16 * i;
        if (row < lo || row >= end)
          continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int64_t col = c0 + tx + 16 * j;
          if (col < N)
            y[row * N + col] = T::store(acc[i][j]);
        }
      }
    }
  }
}

// ---- grouped bias -----------------------------------------------------------

// y[r, c] += bias[e, c] for the expert e whose rows [offsets[e],
// offsets[e + 1]) hold r (a binary search of offsets), a thread per element
// of the first offsets[NE] rows (total = P * N); rows past offsets[NE] are
// left as they are. Added in float.
template <class E, class I>
static __device__ __forceinline__ void
sc_grouped_bias(const typename sc_elem<E>::S *__restrict__ bias,
                const int32_t *__restrict__ offsets,
                typename sc_elem<E>::S *__restrict__ y, int experts, I N,
                I total) {
  typedef sc_elem<E> T;
  const I taken = (I)offsets[experts] * N;
  for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < total && i < taken;
       i += (I)gridDim.x * blockDim.x) {
    const int32_t r = (int32_t)(i / N);
    int lo = 0, hi = experts - 1; // the last e with offsets[e] <= r
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (offsets[mid] <= r)
        lo = mid;
      else
        hi = mid - 1;
    }
    y[i] = T::store((float)T::load(y[i]) +
                    (float)T::load(bias[(I)lo * N + i % N]));
  }
}

// ---- combine ----------------------------------------------------------------

static __device__ __forceinline__ float sc_moe_madd(float acc, float w,
                                                    float v) {
  return __fadd_rn(acc, __fmul_rn(w, v));
}
static __device__ __forceinline__ double sc_moe_madd(double acc, double w,
                                                     double v) {
  return __dadd_rn(acc, __dmul_rn(w, v));
}

// y[t, c] = sum over k in order of weights[t, k] * rows[slots[t * K + k], c]
// in the arithmetic type (float for fp16 / bf16), without fused
// multiply-adds: the CPU kernel's rounding. A thread per element of y
// (total = T * H); choices without a row add nothing.
template <class E, class I>
static __device__ __forceinline__ void
sc_moe_combine(const typename sc_elem<E>::S *__restrict__ rows,
               const typename sc_elem<E>::S *__restrict__ weights,
               const int32_t *__restrict__ slots,
               typename sc_elem<E>::S *__restrict__ y, I K, I H, I total) {
  typedef sc_elem<E> T;
  for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (I)gridDim.x * blockDim.x) {
    const I t = i / H, c = i % H;
    typename T::A acc = 0;
    for (I k = 0; k < K; ++k) {
      const int32_t s = slots[t * K + k];
      if (s >= 0)
        acc = sc_moe_madd(acc, T::load(weights[t * K + k]),
                          T::load(rows[(I)s * H + c]));
    }
    y[i] = T::store(acc);
  }
}
