// scatter.cuh - ONNX GatherElements, ScatterElements, ScatterND
// (runtime/src/cpu/Scatter.cpp on CUDA).
//
// A thread per index element (gather_elements, scatter_elements) or per
// element of an update slice (scatter_nd) finds the data element it names.
// Indices are int32 or int64; negative ones wrap once (v + n). Difference
// from the CPU kernels, which fail the run on an index still outside
// [0, n): the device cannot, so the gather reads zero and the scatters skip
// that update. The scatters update y in place (it holds the data already):
// RED 0 stores (duplicate indices: one of the updates lands, unspecified
// which), 1 add, 2 mul, 3 max, 4 min combine with an atomic
// compare-and-swap on the word that holds the element (the aligned 32-bit
// word for elements of 1 or 2 bytes), in the element's arithmetic type.
#pragma once

// An element gather or scatter: the index tensor's dims, and the data's
// row-major strides (elements).
template <int R> struct sc_elements_geom {
  int64_t idim[R];
  int64_t stride[R];
};

// The element offset in the data of index element t (row-major over the
// index tensor), or -1 when its value is outside [-n, n).
template <int R, int AXIS, class Ix, class I>
static __device__ __forceinline__ int64_t
sc_element_offset(const Ix *__restrict__ idx, const sc_elements_geom<R> &g,
                  I t, int64_t n) {
  I rem = t;
  int64_t off = 0;
#pragma unroll
  for (int d = R - 1; d >= 0; --d) {
    const I c = rem % (I)g.idim[d];
    rem /= (I)g.idim[d];
    if (d != AXIS)
      off += (int64_t)c * g.stride[d];
  }
  int64_t v = (int64_t)idx[t];
  if (v < 0)
    v += n;
  if (v < 0 || v >= n)
    return -1;
  return off + v * g.stride[AXIS];
}

template <class W, int R, int AXIS, class Ix, class I>
static __device__ __forceinline__ void
sc_gather_elements(const W *__restrict__ data, const Ix *__restrict__ idx,
                   W *__restrict__ y, const sc_elements_geom<R> &g, int64_t n,
                   I total) {
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    const int64_t o = sc_element_offset<R, AXIS>(idx, g, t, n);
    y[t] = o >= 0 ? data[o] : W();
  }
}

// Arithmetic of the reductions: integers wrap (two's complement, as on the
// CPU), floats are IEEE.
template <class A> struct sc_scatter_arith {
  static __device__ __forceinline__ A add(A a, A b) {
    return (A)((unsigned long long)a + (unsigned long long)b);
  }
  static __device__ __forceinline__ A mul(A a, A b) {
    return (A)((unsigned long long)a * (unsigned long long)b);
  }
};
template <> struct sc_scatter_arith<float> {
  static __device__ __forceinline__ float add(float a, float b) { return a + b; }
  static __device__ __forceinline__ float mul(float a, float b) { return a * b; }
};
template <> struct sc_scatter_arith<double> {
  static __device__ __forceinline__ double add(double a, double b) { return a + b; }
  static __device__ __forceinline__ double mul(double a, double b) { return a * b; }
};

// a combined with update b by RED (1 to 4); max and min propagate NaN.
template <class E, int RED>
static __device__ __forceinline__ typename sc_elem<E>::S
sc_scatter_combine(typename sc_elem<E>::S a, typename sc_elem<E>::S b) {
  typedef sc_elem<E> T;
  typedef typename T::A A;
  const A x = T::load(a), u = T::load(b);
  A r = x;
  if (RED == 1)
    r = sc_scatter_arith<A>::add(x, u);
  else if (RED == 2)
    r = sc_scatter_arith<A>::mul(x, u);
  else if (RED == 3)
    r = (u > x || sc_isnan(u)) ? u : x;
  else if (RED == 4)
    r = (u < x || sc_isnan(u)) ? u : x;
  return T::store(r);
}

// The bits of s in a W (zero-extended), and back.
template <class S, class W>
static __device__ __forceinline__ W sc_to_bits(S s) {
  union {
    S s;
    W w;
  } u;
  u.w = 0;
  u.s = s;
  return u.w;
}
template <class S, class W>
static __device__ __forceinline__ S sc_from_bits(W w) {
  union {
    S s;
    W w;
  } u;
  u.w = w;
  return u.s;
}

// *p = u (RED 0), or *p combined with u atomically.
template <class E, int RED>
static __device__ __forceinline__ void
sc_scatter_apply(typename sc_elem<E>::S *p, typename sc_elem<E>::S u) {
  typedef typename sc_elem<E>::S S;
  if (RED == 0) {
    *p = u;
    return;
  }
  if (sizeof(S) == 8) {
    unsigned long long *w = reinterpret_cast<unsigned long long *>(p);
    unsigned long long old = *w, assumed;
    do {
      assumed = old;
      const S next = sc_scatter_combine<E, RED>(
          sc_from_bits<S, unsigned long long>(assumed), u);
      old = atomicCAS(w, assumed, sc_to_bits<S, unsigned long long>(next));
    } while (old != assumed);
    return;
  }
  // 4, 2 or 1 bytes: the aligned 32-bit word that holds the element.
  const unsigned long long addr = reinterpret_cast<unsigned long long>(p);
  unsigned int *w = reinterpret_cast<unsigned int *>(addr & ~3ull);
  const unsigned int shift = (unsigned int)(addr & 3) * 8;
  const unsigned int mask =
      sizeof(S) >= 4 ? 0xffffffffu
                     : ((1u << (8 * (sizeof(S) & 3))) - 1u) << shift;
  unsigned int old = *w, assumed;
  do {
    assumed = old;
    const S cur = sc_from_bits<S, unsigned int>((assumed & mask) >> shift);
    const S next = sc_scatter_combine<E, RED>(cur, u);
    const unsigned int bits =
        (sc_to_bits<S, unsigned int>(next) << shift) & mask;
    old = atomicCAS(w, assumed, (assumed & ~mask) | bits);
  } while (old != assumed);
}

template <class E, int RED, int R, int AXIS, class Ix, class I>
static __device__ __forceinline__ void
sc_scatter_elements(const Ix *__restrict__ idx,
                    const typename sc_elem<E>::S *__restrict__ updates,
                    typename sc_elem<E>::S *y, const sc_elements_geom<R> &g,
                    int64_t n, I total) {
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    const int64_t o = sc_element_offset<R, AXIS>(idx, g, t, n);
    if (o >= 0)
      sc_scatter_apply<E, RED>(y + o, updates[t]);
  }
}

// ScatterND: the dims of y that index tuples of K entries name, and their
// strides (elements).
template <int K> struct sc_nd_geom {
  int64_t dim[K];
  int64_t stride[K];
};

// Thread t handles element t % row of the slice of tuple t / row.
template <class E, int RED, int K, class Ix, class I>
static __device__ __forceinline__ void
sc_scatter_nd(const Ix *__restrict__ idx,
              const typename sc_elem<E>::S *__restrict__ updates,
              typename sc_elem<E>::S *y, const sc_nd_geom<K> &g, I row,
              I total) {
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    const I j = t / row, e = t % row;
    int64_t off = 0;
    bool in = true;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      int64_t v = (int64_t)idx[(int64_t)j * K + k];
      if (v < 0)
        v += g.dim[k];
      in = in && v >= 0 && v < g.dim[k];
      off += v * g.stride[k];
    }
    if (in)
      sc_scatter_apply<E, RED>(y + off + e, updates[t]);
  }
}
