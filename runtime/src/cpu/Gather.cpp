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

/// The whole gather: `rows` is the data's size along the axis and `offset`
/// 0; a part (sc_gather_part) checks and wraps by the whole table's rows
/// and writes zeros for rows outside [offset, offset + n).
static void gather(const sc_desc *data, const void *dp, const sc_desc *idx,
                   const void *ip, void *y, int64_t axis, int64_t tableRows,
                   int64_t offset) {
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
  int64_t rows = tableRows < 0 ? n : tableRows;

  // Normalize and check the indices once; -1: outside this part (zeros).
  std::vector<int64_t> ix(nidx);
  for (int64_t j = 0; j < nidx; ++j) {
    int64_t v = idx->dtype == kI64 ? static_cast<const int64_t *>(ip)[j]
                                   : static_cast<const int32_t *>(ip)[j];
    int64_t w = v < 0 ? v + rows : v;
    if (w < 0 || w >= rows) {
      sc_fail("Gather: index %lld out of range [%lld, %lld)", (long long)v,
              (long long)-rows, (long long)rows);
      return;
    }
    w -= offset;
    ix[j] = w >= 0 && w < n ? w : -1;
  }

  size_t rowBytes = (size_t)inner * esize;
  const char *src = static_cast<const char *>(dp);
  char *dst = static_cast<char *>(y);
  int64_t copies = outer * nidx;
#pragma omp parallel for if (copies * inner > kParallelGrain)
  for (int64_t r = 0; r < copies; ++r) {
    int64_t o = r / nidx, j = r % nidx;
    if (ix[j] < 0)
      std::memset(dst + (size_t)r * rowBytes, 0, rowBytes);
    else
      std::memcpy(dst + (size_t)r * rowBytes,
                  src + (size_t)(o * n + ix[j]) * rowBytes, rowBytes);
  }
}

extern "C" void sc_gather(const sc_desc *data, const void *dp,
                          const sc_desc *idx, const void *ip, void *y,
                          int64_t axis) {
  gather(data, dp, idx, ip, y, axis, -1, 0);
}

extern "C" void sc_gather_part(const sc_desc *data, const void *dp,
                               const sc_desc *idx, const void *ip, void *y,
                               int64_t axis, int64_t rows, int64_t offset) {
  if (rows < 1 || offset < 0 || offset > rows) {
    sc_fail("Gather: part at %lld of a table of %lld rows", (long long)offset,
            (long long)rows);
    return;
  }
  gather(data, dp, idx, ip, y, axis, rows, offset);
}
