// select.cuh - ArgMax, TopK, CumSum and Trilu (runtime/src/cpu/Select.cpp
// on CUDA).
//
// The axis kernels view x as [outer, n, inner]: a slice is the n elements
// base + a * inner, base = o * n * inner + i, for one (o, i).
#pragma once

// ---- arg max ---------------------------------------------------------------

// Whether (v, i) wins over (bv, bi). This total order gives the CPU kernel's
// sequential answer whatever the order of comparisons: without LAST the
// first NaN if any, else the first maximum; with LAST the last NaN if any,
// else the last maximum (numpy's NaN rule).
template <bool LAST, class A>
static __device__ __forceinline__ bool sc_argmax_wins(A v, int64_t i, A bv,
                                                      int64_t bi) {
  const bool vn = sc_isnan(v), bn = sc_isnan(bv);
  if (vn || bn) {
    if (vn && bn)
      return LAST ? i > bi : i < bi;
    return vn;
  }
  if (v != bv)
    return v > bv;
  return LAST ? i > bi : i < bi;
}

// One thread per slice (short axes).
template <class E, bool LAST, class I>
static __device__ __forceinline__ void
sc_arg_max_thread(const typename sc_elem<E>::S *__restrict__ x,
                  int64_t *__restrict__ y, I outer, I n, I inner) {
  typedef typename sc_elem<E>::A A;
  const I slices = outer * inner;
  for (I s = (I)blockIdx.x * blockDim.x + threadIdx.x; s < slices;
       s += (I)gridDim.x * blockDim.x) {
    const typename sc_elem<E>::S *base = x + (s / inner) * n * inner + s % inner;
    int64_t best = 0;
    A bv = sc_elem<E>::load(base[0]);
    for (I a = 1; a < n; ++a) {
      const A v = sc_elem<E>::load(base[a * inner]);
      if (sc_argmax_wins<LAST>(v, (int64_t)a, bv, best)) {
        bv = v;
        best = a;
      }
    }
    y[s] = best;
  }
}

// One block of B threads per slice (long axes): each thread takes every
// B-th element, then the block combines the B candidates.
template <class E, bool LAST, int B, class I>
static __device__ __forceinline__ void
sc_arg_max_block(const typename sc_elem<E>::S *__restrict__ x,
                 int64_t *__restrict__ y, I outer, I n, I inner) {
  typedef typename sc_elem<E>::A A;
  __shared__ A pv[B / 32];
  __shared__ int64_t pi[B / 32];
  const I slices = outer * inner;
  for (I s = blockIdx.x; s < slices; s += gridDim.x) {
    const typename sc_elem<E>::S *base = x + (s / inner) * n * inner + s % inner;
    // Thread t starts from element t (n >= B): every thread has a candidate.
    A bv = sc_elem<E>::load(base[(I)threadIdx.x * inner]);
    int64_t best = threadIdx.x;
    for (I a = threadIdx.x + B; a < n; a += B) {
      const A v = sc_elem<E>::load(base[a * inner]);
      if (sc_argmax_wins<LAST>(v, (int64_t)a, bv, best)) {
        bv = v;
        best = a;
      }
    }
#pragma unroll
    for (int m = 16; m > 0; m /= 2) {
      const A ov = sc_shfl_xor(bv, m);
      const int64_t oi = sc_shfl_xor(best, m);
      if (sc_argmax_wins<LAST>(ov, oi, bv, best)) {
        bv = ov;
        best = oi;
      }
    }
    if ((threadIdx.x & 31) == 0) {
      pv[threadIdx.x >> 5] = bv;
      pi[threadIdx.x >> 5] = best;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      bv = pv[0];
      best = pi[0];
      for (int w = 1; w < B / 32; ++w)
        if (sc_argmax_wins<LAST>(pv[w], pi[w], bv, best)) {
          bv = pv[w];
          best = pi[w];
        }
      y[s] = best;
    }
    __syncthreads();
  }
}

// ---- top k -----------------------------------------------------------------

// The CPU kernel's order: NaN above every number (first with LARGEST,
// last without, as ArgMax sees it), then by value, ties by the lower index.
template <bool LARGEST, class A>
static __device__ __forceinline__ bool sc_topk_before(A av, int64_t ai, A bv,
                                                      int64_t bi) {
  const bool an = sc_isnan(av), bn = sc_isnan(bv);
  if (an || bn)
    return an && bn ? ai < bi : (LARGEST ? an : bn);
  if (av != bv)
    return LARGEST ? av > bv : av < bv;
  return ai < bi;
}

// One block of B threads per slice, k rounds: round r finds the first
// element (in that order) after the one round r - 1 found. The order is
// total, so the k outputs are the CPU's (sorted, ties to the lower index).
// Values are copied as stored.
template <class E, bool LARGEST, int B, class I>
static __device__ __forceinline__ void
sc_topk(const typename sc_elem<E>::S *__restrict__ x,
        typename sc_elem<E>::S *__restrict__ values,
        int64_t *__restrict__ indices, I outer, I n, I inner, I k) {
  typedef typename sc_elem<E>::A A;
  __shared__ A pv[B / 32];
  __shared__ int64_t pi[B / 32];
  __shared__ A prevV;
  __shared__ int64_t prevI;
  const I slices = outer * inner;
  for (I s = blockIdx.x; s < slices; s += gridDim.x) {
    const I o = s / inner, in = s % inner;
    const typename sc_elem<E>::S *base = x + o * n * inner + in;
    for (I r = 0; r < k; ++r) {
      A pvv = A();
      int64_t pii = -1;
      if (r > 0) {
        pvv = prevV;
        pii = prevI;
      }
      A bv = A();
      int64_t bi = -1; // none
      for (I a = threadIdx.x; a < n; a += B) {
        const A v = sc_elem<E>::load(base[a * inner]);
        if (r > 0 && !sc_topk_before<LARGEST>(pvv, pii, v, (int64_t)a))
          continue;
        if (bi < 0 || sc_topk_before<LARGEST>(v, (int64_t)a, bv, bi)) {
          bv = v;
          bi = a;
        }
      }
#pragma unroll
      for (int m = 16; m > 0; m /= 2) {
        const A ov = sc_shfl_xor(bv, m);
        const int64_t oi = sc_shfl_xor(bi, m);
        if (oi >= 0 && (bi < 0 || sc_topk_before<LARGEST>(ov, oi, bv, bi))) {
          bv = ov;
          bi = oi;
        }
      }
      if (B > 32) {
        if ((threadIdx.x & 31) == 0) {
          pv[threadIdx.x >> 5] = bv;
          pi[threadIdx.x >> 5] = bi;
        }
        __syncthreads();
        if (threadIdx.x == 0)
          for (int w = 1; w < B / 32; ++w)
            if (pi[w] >= 0 &&
                (bi < 0 || sc_topk_before<LARGEST>(pv[w], pi[w], bv, bi))) {
              bv = pv[w];
              bi = pi[w];
            }
      }
      if (threadIdx.x == 0) {
        values[(o * k + r) * inner + in] = base[(I)bi * inner];
        indices[(o * k + r) * inner + in] = bi;
        prevV = bv;
        prevI = bi;
      }
      __syncthreads();
    }
  }
}

// ---- cumulative sum ----------------------------------------------------------

// The running sum: A for floats, uint64_t for integers (which then wrap like
// the CPU's unsigned sums: the low bits are the same).
template <class A> struct sc_scan_acc { typedef uint64_t T; };
template <> struct sc_scan_acc<float> { typedef float T; };
template <> struct sc_scan_acc<double> { typedef double T; };

// One thread per slice, in order, so floats round exactly as on the CPU.
template <class E, bool EXCLUSIVE, bool REVERSE, class I>
static __device__ __forceinline__ void
sc_cumsum(const typename sc_elem<E>::S *__restrict__ x,
          typename sc_elem<E>::S *__restrict__ y, I outer, I n, I inner) {
  typedef typename sc_elem<E>::A A;
  typedef typename sc_scan_acc<A>::T Sum;
  const I slices = outer * inner;
  for (I s = (I)blockIdx.x * blockDim.x + threadIdx.x; s < slices;
       s += (I)gridDim.x * blockDim.x) {
    const I base = (s / inner) * n * inner + s % inner;
    Sum acc = 0;
    for (I j = 0; j < n; ++j) {
      const I a = base + (REVERSE ? n - 1 - j : j) * inner;
      const Sum v = (Sum)sc_elem<E>::load(x[a]);
      if (EXCLUSIVE) {
        y[a] = sc_elem<E>::store((A)acc);
        acc += v;
      } else {
        acc += v;
        y[a] = sc_elem<E>::store((A)acc);
      }
    }
  }
}

// Integers on long axes: one block of B threads per slice scans B elements
// at a time (a Hillis-Steele scan in shared memory) and carries the total
// into the next B. Integer sums wrap, so any order gives the CPU's result.
template <class E, bool EXCLUSIVE, bool REVERSE, int B, class I>
static __device__ __forceinline__ void
sc_cumsum_block(const typename sc_elem<E>::S *__restrict__ x,
                typename sc_elem<E>::S *__restrict__ y, I outer, I n,
                I inner) {
  typedef typename sc_elem<E>::A A;
  typedef typename sc_scan_acc<A>::T Sum;
  static_assert(sizeof(Sum) == 8, "integers only: floats scan in order");
  __shared__ Sum buf[B];
  const I slices = outer * inner;
  for (I s = blockIdx.x; s < slices; s += gridDim.x) {
    const I base = (s / inner) * n * inner + s % inner;
    Sum carry = 0;
    for (I c0 = 0; c0 < n; c0 += B) {
      const I j = c0 + threadIdx.x;
      const I a = base + (REVERSE ? n - 1 - j : j) * inner;
      const Sum v = j < n ? (Sum)sc_elem<E>::load(x[a]) : 0;
      buf[threadIdx.x] = v;
      __syncthreads();
#pragma unroll
      for (int off = 1; off < B; off *= 2) {
        const Sum o = threadIdx.x >= off ? buf[threadIdx.x - off] : 0;
        __syncthreads();
        buf[threadIdx.x] += o;
        __syncthreads();
      }
      const Sum incl = carry + buf[threadIdx.x];
      if (j < n)
        y[a] = sc_elem<E>::store((A)(EXCLUSIVE ? incl - v : incl));
      carry += buf[B - 1];
      __syncthreads();
    }
  }
}

// ---- trilu -------------------------------------------------------------------

// Keeps column c of row i of every [rows, cols] matrix where c - i >= k
// (upper) or c - i <= k (lower); zero elsewhere. Elements move as words W.
template <class W, bool UPPER, class I>
static __device__ __forceinline__ void sc_trilu(const W *__restrict__ x,
                                                W *__restrict__ y, I total,
                                                I rows, I cols, int64_t k) {
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    const I c = t % cols, i = (t / cols) % rows;
    const int64_t diag = (int64_t)c - (int64_t)i;
    const bool keep = UPPER ? diag >= k : diag <= k;
    y[t] = keep ? x[t] : W();
  }
}
