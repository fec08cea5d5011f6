//===- Select.cpp - TopK, ArgMax, CumSum, Trilu ---------------------------===//
//
// The axis kernels view x as [outer, n, inner] and work on one (outer, inner)
// slice of n elements at a time.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace shardc::rt::cpu;

namespace {

template <class V> inline bool isNaN(V v) { return v != v; }

template <class T>
void topkImpl(const T *x, T *values, int64_t *indices, int64_t outer, int64_t n,
              int64_t inner, int64_t k, bool largest) {
  using Acc = typename Elem<T>::Acc;
  struct Item {
    Acc v;
    int64_t i;
  };
  // Strict weak order: NaN above every number, as ArgMax and ReduceMax see
  // it (first with `largest`, last without: PyTorch's topk), then by value,
  // ties by the lower index. ONNX Runtime 1.31 orders NaN inconsistently.
  auto before = [largest](const Item &a, const Item &b) {
    bool an = isNaN(a.v), bn = isNaN(b.v);
    if (an || bn)
      return an && bn ? a.i < b.i : (largest ? an : bn);
    if (a.v != b.v)
      return largest ? a.v > b.v : a.v < b.v;
    return a.i < b.i;
  };
  int64_t slices = outer * inner;
#pragma omp parallel for if (slices * n > kParallelGrain)
  for (int64_t s = 0; s < slices; ++s) {
    int64_t o = s / inner, in = s % inner;
    const T *base = x + o * n * inner + in;
    std::vector<Item> items(n);
    for (int64_t a = 0; a < n; ++a)
      items[a] = Item{load(base[a * inner]), a};
    std::partial_sort(items.begin(), items.begin() + k, items.end(), before);
    T *vo = values + o * k * inner + in;
    int64_t *io = indices + o * k * inner + in;
    for (int64_t a = 0; a < k; ++a) {
      vo[a * inner] = base[items[a].i * inner];
      io[a * inner] = items[a].i;
    }
  }
}

template <class T>
void argMaxImpl(const T *x, int64_t *y, int64_t outer, int64_t n, int64_t inner,
                bool last) {
  using Acc = typename Elem<T>::Acc;
  int64_t slices = outer * inner;
#pragma omp parallel for if (slices * n > kParallelGrain)
  for (int64_t s = 0; s < slices; ++s) {
    int64_t o = s / inner, in = s % inner;
    const T *base = x + o * n * inner + in;
    int64_t best = 0;
    Acc bv = load(base[0]);
    for (int64_t a = 1; a < n; ++a) {
      if (isNaN(bv) && !last)
        break; // numpy: the first NaN is the maximum
      Acc v = load(base[a * inner]);
      if (v > bv || (last && v == bv) || (isNaN(v) && (last || !isNaN(bv)))) {
        bv = v;
        best = a;
      }
    }
    y[s] = best;
  }
}

template <class T>
void cumsumImpl(const T *x, T *y, int64_t outer, int64_t n, int64_t inner,
                bool exclusive, bool reverse) {
  using Acc = typename Elem<T>::Acc;
  // Integers wrap (two's complement) like numpy instead of overflowing.
  using Sum = Wrap<Acc>;
  int64_t slices = outer * inner;
#pragma omp parallel for if (slices * n > kParallelGrain)
  for (int64_t s = 0; s < slices; ++s) {
    int64_t o = s / inner, in = s % inner;
    const T *xb = x + o * n * inner + in;
    T *yb = y + o * n * inner + in;
    Sum acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      int64_t a = reverse ? n - 1 - j : j;
      Sum v = (Sum)load(xb[a * inner]);
      if (exclusive) {
        yb[a * inner] = store<T>((Acc)acc);
        acc += v;
      } else {
        acc += v;
        yb[a * inner] = store<T>((Acc)acc);
      }
    }
  }
}

bool axisOk(const char *op, const sc_desc *x, int64_t &axis) {
  axis = normAxis(axis, x->rank);
  if (axis < 0 || axis >= x->rank) {
    sc_fail("%s: axis %lld out of range for rank %d", op, (long long)axis,
            x->rank);
    return false;
  }
  return true;
}

} // namespace

extern "C" void sc_topk(const sc_desc *x, const void *xp, void *values,
                        int64_t *indices, int64_t axis, int64_t k,
                        int32_t largest, int32_t sorted) {
  (void)sorted; // always sorted
  if (!axisOk("TopK", x, axis))
    return;
  int64_t outer = prodDims(x, 0, axis), n = x->dims[axis];
  int64_t inner = prodDims(x, axis + 1, x->rank);
  if (k < 0 || k > n) {
    sc_fail("TopK: k = %lld out of range [0, %lld]", (long long)k,
            (long long)n);
    return;
  }
  if (k == 0)
    return;
  if (!dispatchNumeric(x->dtype, [&](auto t) {
        using T = decltype(t);
        topkImpl(static_cast<const T *>(xp), static_cast<T *>(values), indices,
                 outer, n, inner, k, largest != 0);
      }))
    sc_fail("TopK: unsupported dtype %s", dtypeName(x->dtype));
}

extern "C" void sc_arg_max(const sc_desc *x, const void *xp, int64_t *y,
                           int64_t axis, int32_t select_last_index) {
  if (x->rank == 0) {
    y[0] = 0;
    return;
  }
  if (!axisOk("ArgMax", x, axis))
    return;
  int64_t outer = prodDims(x, 0, axis), n = x->dims[axis];
  int64_t inner = prodDims(x, axis + 1, x->rank);
  if (n == 0) {
    if (outer * inner > 0)
      sc_fail("ArgMax: reducing an empty axis");
    return;
  }
  if (!dispatchNumeric(x->dtype, [&](auto t) {
        using T = decltype(t);
        argMaxImpl(static_cast<const T *>(xp), y, outer, n, inner,
                   select_last_index != 0);
      }))
    sc_fail("ArgMax: unsupported dtype %s", dtypeName(x->dtype));
}

extern "C" void sc_cumsum(const sc_desc *x, const void *xp, void *y,
                          int64_t axis, int32_t exclusive, int32_t reverse) {
  if (x->rank == 0) {
    size_t es = dtypeSize(x->dtype);
    if (exclusive)
      std::memset(y, 0, es);
    else
      std::memcpy(y, xp, es);
    return;
  }
  if (!axisOk("CumSum", x, axis))
    return;
  int64_t outer = prodDims(x, 0, axis), n = x->dims[axis];
  int64_t inner = prodDims(x, axis + 1, x->rank);
  if (x->dtype == kBool || !dispatchNumeric(x->dtype, [&](auto t) {
        using T = decltype(t);
        cumsumImpl(static_cast<const T *>(xp), static_cast<T *>(y), outer, n,
                   inner, exclusive != 0, reverse != 0);
      }))
    sc_fail("CumSum: unsupported dtype %s", dtypeName(x->dtype));
}

extern "C" void sc_trilu(const sc_desc *x, const void *xp, void *y,
                         int32_t upper, int64_t k) {
  size_t es = dtypeSize(x->dtype);
  if (!es) {
    sc_fail("Trilu: unsupported dtype %s", dtypeName(x->dtype));
    return;
  }
  if (x->rank < 2) {
    sc_fail("Trilu: input rank %d is below 2", x->rank);
    return;
  }
  int64_t rows = x->dims[x->rank - 2], cols = x->dims[x->rank - 1];
  int64_t total = prodDims(x, 0, x->rank - 2) * rows;
  const char *src = static_cast<const char *>(xp);
  char *dst = static_cast<char *>(y);
#pragma omp parallel for if (total * cols > kParallelGrain)
  for (int64_t r = 0; r < total; ++r) {
    int64_t i = r % rows;
    // Kept columns: [lo, hi).
    int64_t lo = upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
    int64_t hi = upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
    size_t off = (size_t)r * cols * es;
    if (lo > 0)
      std::memset(dst + off, 0, (size_t)lo * es);
    if (hi > lo)
      std::memcpy(dst + off + lo * es, src + off + lo * es,
                  (size_t)(hi - lo) * es);
    if (hi < cols) // lo <= hi always: one side of the band is open
      std::memset(dst + off + hi * es, 0, (size_t)(cols - hi) * es);
  }
}
