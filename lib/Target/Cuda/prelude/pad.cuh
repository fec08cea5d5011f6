// pad.cuh - ONNX Pad: constant, reflect, edge, wrap (runtime/src/cpu/Pad.cpp
// on CUDA).
//
// One thread per output element. Per dim, output coordinate o maps to an
// input coordinate or to "the constant": negative pads crop first (cropB,
// len: the kept range of x), reflect / edge / wrap then pad the cropped
// input, as onnxruntime does. Elements move as words W of their size.
#pragma once

template <int R> struct sc_pad_geom {
  int64_t ydim[R > 0 ? R : 1];    // output dims
  int64_t xstride[R > 0 ? R : 1]; // row-major strides of x
  int64_t padB[R > 0 ? R : 1];    // max(pads[d], 0)
  int64_t cropB[R > 0 ? R : 1];   // max(-pads[d], 0)
  int64_t len[R > 0 ? R : 1];     // dims[d] - crops (> 0 unless MODE 0)
};

// Input coordinate of output coordinate o along one dim, or -1.
template <int MODE>
static __device__ __forceinline__ int64_t sc_pad_map(int64_t o, int64_t padB,
                                                     int64_t cropB,
                                                     int64_t len) {
  int64_t j = o - padB;
  if (j >= 0 && j < len)
    return cropB + j;
  if (MODE == 2) { // edge
    j = j < 0 ? 0 : len - 1;
  } else if (MODE == 3) { // wrap
    j = ((j % len) + len) % len;
  } else if (MODE == 1) { // reflect
    if (len == 1) {
      j = 0;
    } else {
      const int64_t period = 2 * (len - 1);
      j = ((j % period) + period) % period;
      if (j >= len)
        j = period - j;
    }
  } else {
    return -1;
  }
  return cropB + j;
}

// `value` (nullable: zero) is the constant of MODE 0, one element of x's
// type.
template <class W, int R, int MODE, class I>
static __device__ __forceinline__ void
sc_pad(const W *__restrict__ x, W *__restrict__ y, const W *__restrict__ value,
       const sc_pad_geom<R> &g, I total) {
  const W fill = MODE == 0 && value ? *value : W();
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    I rem = t, off = 0;
    bool constant = false;
#pragma unroll
    for (int d = R - 1; d >= 0; --d) {
      const I o = rem % (I)g.ydim[d];
      rem /= (I)g.ydim[d];
      const int64_t i = sc_pad_map<MODE>(o, g.padB[d], g.cropB[d], g.len[d]);
      if (i < 0)
        constant = true;
      else
        off += (I)i * (I)g.xstride[d];
    }
    y[t] = constant ? fill : x[off];
  }
}
