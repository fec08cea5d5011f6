// pool.cuh - N-D MaxPool and AveragePool (runtime/src/cpu/Pool.cpp on CUDA).
//
// One thread per output element. The window is walked in the CPU kernel's
// order (row-major over the kernel positions, last dim fastest), skipping
// the positions outside the input, so max pooling keeps the same element on
// ties (the first) and on NaN (NaN propagates: the first NaN of the
// window wins, as numpy's argmax); the average sums in double in the same order. A position
// counts for count_include_pad when it lies inside the padded input (so
// ceil_mode windows that run past the end padding do not count the excess).
#pragma once

template <int SD> struct sc_pool_geom {
  int64_t in[SD], out[SD];       // spatial dims of x and y
  int64_t k[SD], s[SD], d[SD];   // kernel, strides, dilations
  int64_t pb[SD], pe[SD];        // pads at the beginning and end
  int64_t istride[SD];           // strides of the index layout
};

// x: [planes, in...], y: [planes, out...]. indices (IDX): flat index into
// x of the maximum, the spatial part row-major or column-major (istride).
template <class E, int SD, bool MAX, bool IDX, bool INCLUDE_PAD, class I>
static __device__ __forceinline__ void
sc_pool(const typename sc_elem<E>::S *__restrict__ x,
        typename sc_elem<E>::S *__restrict__ y, int64_t *__restrict__ indices,
        const sc_pool_geom<SD> &g, I planes) {
  typedef typename sc_elem<E>::A A;
  I inPlane = 1, outPlane = 1, kw = 1;
  I rstride[SD];
#pragma unroll
  for (int d = SD - 1; d >= 0; --d) {
    rstride[d] = inPlane;
    inPlane *= (I)g.in[d];
    outPlane *= (I)g.out[d];
    kw *= (I)g.k[d];
  }
  const I total = planes * outPlane;
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    const I p = t / outPlane;
    I rem = t % outPlane;
    I start[SD];
    int64_t windowSize = 1, paddedSize = 1;
#pragma unroll
    for (int d = SD - 1; d >= 0; --d) {
      const I o = rem % (I)g.out[d];
      rem /= (I)g.out[d];
      start[d] = o * (I)g.s[d] - (I)g.pb[d];
      if (!MAX) {
        int64_t valid = 0, inPad = 0;
        for (int64_t kk = 0; kk < g.k[d]; ++kk) {
          const int64_t i = (int64_t)start[d] + kk * g.d[d];
          inPad += i >= -g.pb[d] && i < g.in[d] + g.pe[d];
          valid += i >= 0 && i < g.in[d];
        }
        windowSize *= valid;
        paddedSize *= inPad;
      }
    }
    const typename sc_elem<E>::S *plane = x + p * inPlane;
    A best = sc_limits<A>::lowest();
    int64_t bestIdx = 0;
    bool found = false;
    double sum = 0;
    for (I w = 0; w < kw; ++w) {
      I wr = w, off = 0;
      int64_t io = 0;
      bool inside = true;
#pragma unroll
      for (int d = SD - 1; d >= 0; --d) {
        const I kk = wr % (I)g.k[d];
        wr /= (I)g.k[d];
        const I i = start[d] + kk * (I)g.d[d];
        inside = inside && i >= 0 && i < (I)g.in[d];
        off += i * rstride[d];
        io += (int64_t)i * g.istride[d];
      }
      if (!inside)
        continue;
      const A v = sc_elem<E>::load(plane[off]);
      if (MAX) {
        // NaN propagates (the first NaN's index), as the CPU kernel.
        if (!found || v > best || (sc_isnan(v) && !sc_isnan(best))) {
          best = v;
          found = true;
          bestIdx = io;
        }
      } else {
        sum = __dadd_rn(sum, (double)v);
      }
    }
    if (MAX) {
      y[t] = sc_elem<E>::store(best);
      if (IDX)
        indices[t] = (int64_t)p * (int64_t)inPlane + bestIdx;
    } else {
      const int64_t cnt = INCLUDE_PAD ? paddedSize : windowSize;
      const double r = cnt ? sum / (double)cnt : (double)NAN;
      y[t] = sc_elem<E>::store((A)r);
    }
  }
}
