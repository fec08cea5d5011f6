//===- Scatter.cpp - ONNX GatherElements, ScatterElements, ScatterND ------===//
//
// Each kernel first turns every index into an element offset, checking it
// (negative ones wrap once; one still out of range fails the run before
// anything is written, as sc_gather does), then moves the elements: the
// gather in parallel, the scatters in index order, so that with
// SC_SCATTER_NONE the last of duplicate indices wins, deterministically.
// Stores copy bytes (any dtype); reductions combine in the element's
// arithmetic type (float for fp16 / bf16; integers wrap; max and min
// propagate NaN, as ONNX's Max and Min do).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <cstring>
#include <vector>

using namespace shardc::rt::cpu;

namespace {

bool checkIndices(const char *op, const sc_desc *idx) {
  if (idx->dtype == kI32 || idx->dtype == kI64)
    return true;
  sc_fail("%s: indices must be int32 or int64, not %s", op,
          dtypeName(idx->dtype));
  return false;
}

int64_t indexAt(const sc_desc *idx, const void *ip, int64_t j) {
  return idx->dtype == kI64 ? static_cast<const int64_t *>(ip)[j]
                            : static_cast<const int32_t *>(ip)[j];
}

/// `v` wrapped once into [0, n), or -1 after sc_fail when it is outside
/// [-n, n).
int64_t wrapIndex(const char *op, int64_t v, int64_t n, int64_t dim) {
  int64_t w = v < 0 ? v + n : v;
  if (w < 0 || w >= n) {
    sc_fail("%s: index %lld out of range [%lld, %lld) for dim %lld", op,
            (long long)v, (long long)-n, (long long)n, (long long)dim);
    return -1;
  }
  return w;
}

/// Row-major element strides of `d`.
std::vector<int64_t> stridesOf(const sc_desc *d) {
  std::vector<int64_t> s(d->rank, 1);
  for (int32_t i = d->rank - 2; i >= 0; --i)
    s[i] = s[i + 1] * d->dims[i + 1];
  return s;
}

/// For every element of `idx` (same rank as `data`, at most its dims but on
/// `axis`), the offset in `data` of the element it names: its own position
/// with the coordinate on `axis` replaced by its value. False after sc_fail.
bool elementOffsets(const char *op, const sc_desc *data, const sc_desc *idx,
                    const void *ip, int64_t axis, std::vector<int64_t> &off) {
  if (idx->rank != data->rank) {
    sc_fail("%s: indices have rank %d, data %d", op, idx->rank, data->rank);
    return false;
  }
  for (int32_t d = 0; d < data->rank; ++d)
    if (d != axis && idx->dims[d] > data->dims[d]) {
      sc_fail("%s: indices exceed data on dim %d", op, d);
      return false;
    }
  std::vector<int64_t> stride = stridesOf(data);
  std::vector<int64_t> coord(idx->rank, 0);
  int64_t n = data->dims[axis], nidx = numel(idx);
  off.resize(nidx);
  int64_t base = 0; // offset of coord with 0 on the axis
  for (int64_t j = 0; j < nidx; ++j) {
    int64_t w = wrapIndex(op, indexAt(idx, ip, j), n, axis);
    if (w < 0)
      return false;
    off[j] = base + w * stride[axis];
    // Next position of idx, row-major.
    for (int32_t d = idx->rank - 1; d >= 0; --d) {
      if (++coord[d] < idx->dims[d]) {
        if (d != axis)
          base += stride[d];
        break;
      }
      if (d != axis)
        base -= (coord[d] - 1) * stride[d];
      coord[d] = 0;
    }
  }
  return true;
}

/// Applies update `u` to `*y` with `reduction` (not SC_SCATTER_NONE).
template <class T> void combine(T *y, T u, int32_t reduction) {
  if constexpr (std::is_integral_v<T>) {
    // Integers wrap (two's complement) on add and mul, like numpy.
    uint64_t a = static_cast<uint64_t>(*y), b = static_cast<uint64_t>(u);
    switch (reduction) {
    case SC_SCATTER_ADD:
      *y = static_cast<T>(a + b);
      return;
    case SC_SCATTER_MUL:
      *y = static_cast<T>(a * b);
      return;
    case SC_SCATTER_MAX:
      *y = u > *y ? u : *y;
      return;
    case SC_SCATTER_MIN:
      *y = u < *y ? u : *y;
      return;
    }
  } else {
    auto a = load(*y), b = load(u);
    decltype(a) r = a;
    switch (reduction) {
    case SC_SCATTER_ADD:
      r = a + b;
      break;
    case SC_SCATTER_MUL:
      r = a * b;
      break;
    case SC_SCATTER_MAX:
      r = maxNaN(a, b);
      break;
    case SC_SCATTER_MIN:
      r = minNaN(a, b);
      break;
    }
    *y = store<T>(r);
  }
}

/// Writes `count` runs of `run` elements of `updates` (the k-th at
/// `k * run`) into `y` at `off[k]`, in order.
bool scatterRuns(const char *op, const sc_desc *y, void *yp,
                 const void *updates, const std::vector<int64_t> &off,
                 int64_t run, int32_t reduction) {
  size_t esize = dtypeSize(y->dtype);
  if (!esize) {
    sc_fail("%s: unsupported dtype %s", op, dtypeName(y->dtype));
    return false;
  }
  if (reduction == SC_SCATTER_NONE) {
    char *dst = static_cast<char *>(yp);
    const char *src = static_cast<const char *>(updates);
    size_t bytes = (size_t)run * esize;
    for (size_t k = 0; k < off.size(); ++k)
      std::memcpy(dst + (size_t)off[k] * esize, src + k * bytes, bytes);
    return true;
  }
  if (reduction < SC_SCATTER_ADD || reduction > SC_SCATTER_MIN) {
    sc_fail("%s: unknown reduction %d", op, reduction);
    return false;
  }
  if (y->dtype == kBool) {
    sc_fail("%s: reductions need numeric elements, not bool", op);
    return false;
  }
  bool known = dispatchNumeric(y->dtype, [&](auto tag) {
    using T = decltype(tag);
    T *dst = static_cast<T *>(yp);
    const T *src = static_cast<const T *>(updates);
    for (size_t k = 0; k < off.size(); ++k)
      for (int64_t e = 0; e < run; ++e)
        combine(dst + off[k] + e, src[k * run + e], reduction);
  });
  if (!known)
    sc_fail("%s: unsupported dtype %s", op, dtypeName(y->dtype));
  return known;
}

bool checkAxis(const char *op, int64_t &axis, int32_t rank) {
  axis = normAxis(axis, rank);
  if (axis < 0 || axis >= rank) {
    sc_fail("%s: axis %lld out of range for rank %d", op, (long long)axis,
            rank);
    return false;
  }
  return true;
}

} // namespace

extern "C" void sc_gather_elements(const sc_desc *data, const void *dp,
                                   const sc_desc *idx, const void *ip, void *y,
                                   int64_t axis) {
  const char *op = "GatherElements";
  if (!checkAxis(op, axis, data->rank) || !checkIndices(op, idx))
    return;
  size_t esize = dtypeSize(data->dtype);
  if (!esize) {
    sc_fail("%s: unsupported dtype %s", op, dtypeName(data->dtype));
    return;
  }
  std::vector<int64_t> off;
  if (!elementOffsets(op, data, idx, ip, axis, off))
    return;
  const char *src = static_cast<const char *>(dp);
  char *dst = static_cast<char *>(y);
  int64_t n = (int64_t)off.size();
#pragma omp parallel for if (n > kParallelGrain)
  for (int64_t j = 0; j < n; ++j)
    std::memcpy(dst + (size_t)j * esize, src + (size_t)off[j] * esize, esize);
}

extern "C" void sc_scatter_elements(const sc_desc *y, void *yp,
                                    const sc_desc *idx, const void *ip,
                                    const void *updates, int64_t axis,
                                    int32_t reduction) {
  const char *op = "ScatterElements";
  if (!checkAxis(op, axis, y->rank) || !checkIndices(op, idx))
    return;
  std::vector<int64_t> off;
  if (!elementOffsets(op, y, idx, ip, axis, off))
    return;
  scatterRuns(op, y, yp, updates, off, 1, reduction);
}

extern "C" void sc_scatter_nd(const sc_desc *y, void *yp, const sc_desc *idx,
                              const void *ip, const void *updates,
                              int32_t reduction) {
  const char *op = "ScatterND";
  if (!checkIndices(op, idx))
    return;
  int64_t k = idx->rank ? idx->dims[idx->rank - 1] : 0;
  if (idx->rank < 1 || k < 1 || k > y->rank) {
    sc_fail("%s: index tuples of %lld entries for data of rank %d", op,
            (long long)k, y->rank);
    return;
  }
  std::vector<int64_t> stride = stridesOf(y);
  int64_t tuples = numel(idx) / k;
  std::vector<int64_t> off(tuples);
  for (int64_t j = 0; j < tuples; ++j) {
    int64_t o = 0;
    for (int64_t t = 0; t < k; ++t) {
      int64_t w = wrapIndex(op, indexAt(idx, ip, j * k + t), y->dims[t], t);
      if (w < 0)
        return;
      o += w * stride[t];
    }
    off[j] = o;
  }
  scatterRuns(op, y, yp, updates, off, prodDims(y, k, y->rank), reduction);
}
