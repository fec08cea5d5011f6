// gather.cuh - ONNX Gather (runtime/src/cpu/Gather.cpp on CUDA).
//
// y[o, j, :] = data[o, idx[j], :]: o over the data dims before the axis, j
// over the index tensor, a row over the dims after it. Rows are copied as
// words W (the widest of 16, 8, 4, 2, 1 bytes that divides the row's byte
// length), one word per thread, so a warp reads consecutive words of a row
// (an embedding lookup reads whole rows, coalesced).
//
// Indices are int32 or int64; negative ones wrap once (v + rows). Difference
// from the CPU kernel: an index still outside [0, rows) cannot fail the run
// from the device, so its row of y is written as zero bytes. A part of a
// table (a vocab-parallel lookup) holds rows [offset, offset + n) of `rows`;
// the whole table is rows = n, offset = 0.
#pragma once

template <class W, class Ix, class I>
static __device__ __forceinline__ void sc_gather(const W *__restrict__ data,
                                                 const Ix *__restrict__ idx,
                                                 W *__restrict__ y, I outer,
                                                 I n, I nidx, I row,
                                                 int64_t rows,
                                                 int64_t offset) {
  const I total = outer * nidx * row;
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    const I w = t % row, r = t / row;
    const I j = r % nidx, o = r / nidx;
    int64_t v = (int64_t)idx[j];
    if (v < 0)
      v += rows;
    v = v >= 0 && v < rows ? v - offset : -1;
    W out = W();
    if (v >= 0 && v < (int64_t)n)
      out = data[(o * n + (I)v) * row + w];
    y[t] = out;
  }
}
