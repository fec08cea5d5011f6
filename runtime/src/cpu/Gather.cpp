//===- Gather.cpp - ONNX Gather -------------------------------------------===//
//
// y[o, j, i] = data[o, idx[j], i] with o over data dims before the axis, j
// over the index tensor and i over data dims after the axis. Rows are copied
// by bytes, so any dtype works.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <cstring>
#include <vector>

using namespace shardc::rt::cpu;

extern "C" void sc_gather(const sc_desc *data, const void *dp,
                          const sc_desc *idx, const void *ip, void *y,
                          int64_t axis) {
  axis = normAxis(axis, data->rank);
  if (axis < 0 || axis >= data->rank) {
    sc_fail("Gather: axis %lld out of range for rank %d", (long long)axis,
            data->rank);
    return;
  }
  size_t esize = dtypeSize(data->dtype);
  if (!esize) {
    sc_fail("Gather: unsupported dtype %s", dtypeName(data->dtype));
    return;
  }
  if (idx->dtype != kI32 && idx->dtype != kI64) {
    sc_fail("Gather: indices must be int32 or int64, not %s",
            dtypeName(idx->dtype));
    return;
  }
  int64_t outer = prodDims(data, 0, axis), n = data->dims[axis];
  int64_t inner = prodDims(data, axis + 1, data->rank);
  int64_t nidx = numel(idx);

  // Normalize and check the indices once.
  std::vector<int64_t> ix(nidx);
  for (int64_t j = 0; j < nidx; ++j) {
    int64_t v = idx->dtype == kI64 ? static_cast<const int64_t *>(ip)[j]
                                   : static_cast<const int32_t *>(ip)[j];
    int64_t w = v < 0 ? v + n : v;
    if (w < 0 || w >= n) {
      sc_fail("Gather: index %lld out of range [%lld, %lld)", (long long)v,
              (long long)-n, (long long)n);
      return;
    }
    ix[j] = w;
  }

  size_t rowBytes = (size_t)inner * esize;
  const char *src = static_cast<const char *>(dp);
  char *dst = static_cast<char *>(y);
  int64_t rows = outer * nidx;
#pragma omp parallel for if (rows * inner > kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t o = r / nidx, j = r % nidx;
    std::memcpy(dst + (size_t)r * rowBytes,
                src + (size_t)(o * n + ix[j]) * rowBytes, rowBytes);
  }
}
