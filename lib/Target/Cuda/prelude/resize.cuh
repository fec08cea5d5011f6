// resize.cuh - ONNX Resize: nearest, linear, cubic (runtime/src/cpu/Resize.cpp
// on CUDA).
//
// The compiler computes each dim's taps at compile time with the CPU
// kernel's own code (coordinate transform, nearest rounding, linear / cubic
// coefficients, antialias, exclude_outside; lib/Target/Cuda/Calls) and
// bakes them into the kernel as tables: for output coordinate o of dim d,
// taps first[base[d] + o] .. first[base[d] + o + 1] - 1, each an input
// offset (coordinate * x's stride of dim d) and a weight. One thread per
// output element sums the product of its per-dim taps in the CPU's order,
// in double, without fused multiply-adds, so it rounds as the CPU does.
#pragma once

template <int R> struct sc_resize_geom {
  int64_t ydim[R]; // output dims
  int base[R];     // where dim d's entries start in `first`
};

// Integers round to nearest even and saturate (NaN: 0); floats round to
// A, then to storage.
template <class E> struct sc_resize_out {
  static __device__ __forceinline__ typename sc_elem<E>::S cvt(double v) {
    typedef typename sc_elem<E>::A A;
    return sc_elem<E>::store((A)v);
  }
};
#define SC_RESIZE_INT_OUT(T)                                                   \
  template <> struct sc_resize_out<T> {                                        \
    static __device__ __forceinline__ T cvt(double v) {                        \
      v = rint(v);                                                             \
      if (v != v)                                                              \
        return T(0);                                                           \
      v = fmin(fmax(v, (double)sc_limits<T>::lowest()),                        \
               (double)sc_limits<T>::highest());                               \
      return (T)v;                                                             \
    }                                                                          \
  };
SC_RESIZE_INT_OUT(int8_t)
SC_RESIZE_INT_OUT(uint8_t)
SC_RESIZE_INT_OUT(int16_t)
SC_RESIZE_INT_OUT(uint16_t)
SC_RESIZE_INT_OUT(int32_t)
SC_RESIZE_INT_OUT(uint32_t)
SC_RESIZE_INT_OUT(int64_t)
SC_RESIZE_INT_OUT(uint64_t)
#undef SC_RESIZE_INT_OUT

// COPY (nearest): every dim has one tap of weight 1; y copies the element.
template <class E, int R, bool COPY, class I>
static __device__ __forceinline__ void
sc_resize(const typename sc_elem<E>::S *__restrict__ x,
          typename sc_elem<E>::S *__restrict__ y, const sc_resize_geom<R> &g,
          const int *__restrict__ first, const int64_t *__restrict__ off,
          const double *__restrict__ wt, I total) {
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    int k0[R], len[R];
    I rem = t;
    int64_t n = 1;
#pragma unroll
    for (int d = R - 1; d >= 0; --d) {
      const I o = rem % (I)g.ydim[d];
      rem /= (I)g.ydim[d];
      k0[d] = first[g.base[d] + o];
      len[d] = first[g.base[d] + o + 1] - k0[d];
      n *= len[d];
    }
    if (COPY) {
      int64_t src = 0;
#pragma unroll
      for (int d = 0; d < R; ++d)
        src += off[k0[d]];
      y[t] = x[src];
      continue;
    }
    // Taps in row-major order over the dims (the last fastest); the weight
    // of one is ((w[R-2] * w[R-3]) * ... * w[0]) * w[R-1], as on the CPU.
    double acc = 0;
    for (int64_t f = 0; f < n; ++f) {
      int64_t fr = f, src = 0;
      int pos[R];
#pragma unroll
      for (int d = R - 1; d >= 0; --d) {
        pos[d] = k0[d] + (int)(fr % len[d]);
        fr /= len[d];
        src += off[pos[d]];
      }
      double w = 1.0;
#pragma unroll
      for (int d = R - 2; d >= 0; --d)
        w = __dmul_rn(w, wt[pos[d]]);
      w = __dmul_rn(w, wt[pos[R - 1]]);
      acc = __dadd_rn(acc, __dmul_rn(w, (double)sc_elem<E>::load(x[src])));
    }
    y[t] = sc_resize_out<E>::cvt(acc);
  }
}
