//===- Moe.cpp - routing, permutation and combine of mixture-of-experts ---===//
//
// The integer and data-movement kernels around the grouped GEMMs
// (sc_grouped_matmul, in Dnnl.cpp). The route is a counting sort of the
// T * K choices by expert, stable in the choices' order, so the permuted
// rows and hence every sum are the same on any thread count.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "runtime/src/RoutingStats.h"

#include <cstring>
#include <vector>

using namespace shardc::rt::cpu;

extern "C" void sc_moe_place(const sc_desc *ids, const void *ip,
                             int64_t experts, int64_t max_copies,
                             const int64_t *copies, const int64_t *table,
                             int32_t *slots) {
  if (ids->dtype != kI32 && ids->dtype != kI64) {
    sc_fail("moe_place: ids must be int32 or int64, not %s",
            dtypeName(ids->dtype));
    return;
  }
  int64_t n = numel(ids), k = ids->rank == 2 ? ids->dims[1] : 1;
  for (int64_t j = 0; j < n; ++j) {
    int64_t e = ids->dtype == kI64 ? static_cast<const int64_t *>(ip)[j]
                                   : static_cast<const int32_t *>(ip)[j];
    if (e < 0 || e >= experts) {
      sc_fail("moe_place: expert id %lld of choice %lld is out of range "
              "[0, %lld)",
              (long long)e, (long long)j, (long long)experts);
      return;
    }
    int64_t token = j / k;
    slots[j] = static_cast<int32_t>(
        table[e * max_copies + token % copies[e]]);
  }
}

extern "C" void sc_moe_route(const sc_desc *ids, const void *ip,
                             int64_t experts, int32_t *offsets,
                             int32_t *slots) {
  if (ids->dtype != kI32 && ids->dtype != kI64) {
    sc_fail("moe_route: ids must be int32 or int64, not %s",
            dtypeName(ids->dtype));
    return;
  }
  int64_t n = numel(ids);
  auto at = [&](int64_t j) -> int64_t {
    return ids->dtype == kI64 ? static_cast<const int64_t *>(ip)[j]
                              : static_cast<const int32_t *>(ip)[j];
  };
  std::vector<int32_t> count(experts + 1, 0);
  for (int64_t j = 0; j < n; ++j) {
    int64_t e = at(j);
    if (e < 0 || e >= experts) {
      sc_fail("moe_route: expert id %lld of choice %lld is out of range "
              "[0, %lld)",
              (long long)e, (long long)j, (long long)experts);
      return;
    }
    ++count[e + 1];
  }
  offsets[0] = 0;
  for (int64_t e = 0; e < experts; ++e)
    offsets[e + 1] = offsets[e] + count[e + 1];
  std::vector<int32_t> next(offsets, offsets + experts);
  for (int64_t j = 0; j < n; ++j)
    slots[j] = next[at(j)]++;
  shardc::rt::routingRecord(offsets, experts);
}

extern "C" void sc_moe_permute(const sc_desc *x, const void *xp,
                               const sc_desc *rows, const int32_t *slots,
                               void *rp) {
  int64_t t = x->dims[0], p = rows->dims[0];
  int64_t k = t ? p / t : 0;
  size_t bytes = (size_t)x->dims[1] * dtypeSize(x->dtype);
  const char *src = static_cast<const char *>(xp);
  char *dst = static_cast<char *>(rp);
#pragma omp parallel for if (p * (int64_t)bytes > kParallelGrain)
  for (int64_t j = 0; j < p; ++j)
    std::memcpy(dst + (size_t)slots[j] * bytes, src + (size_t)(j / k) * bytes,
                bytes);
}

namespace {

template <class T>
void combine(const T *rows, const T *w, const int32_t *slots, T *y, int64_t t,
             int64_t k, int64_t h) {
  using A = typename Elem<T>::Acc;
#pragma omp parallel for if (t * k * h > kParallelGrain)
  for (int64_t i = 0; i < t; ++i) {
    std::vector<A> acc(h, A(0));
    for (int64_t j = 0; j < k; ++j) {
      A wt = load(w[i * k + j]);
      const T *row = rows + (int64_t)slots[i * k + j] * h;
      for (int64_t c = 0; c < h; ++c)
        acc[c] += wt * load(row[c]);
    }
    for (int64_t c = 0; c < h; ++c)
      y[i * h + c] = store<T>(acc[c]);
  }
}

} // namespace

extern "C" void sc_moe_combine(const sc_desc *rows, const void *rp,
                               const sc_desc *w, const void *wp,
                               const int32_t *slots, void *yp) {
  int64_t t = w->dims[0], k = w->dims[1], h = rows->dims[1];
  switch (rows->dtype) {
  case kF32:
    return combine(static_cast<const float *>(rp),
                   static_cast<const float *>(wp), slots,
                   static_cast<float *>(yp), t, k, h);
  case kF64:
    return combine(static_cast<const double *>(rp),
                   static_cast<const double *>(wp), slots,
                   static_cast<double *>(yp), t, k, h);
  case kF16:
    return combine(static_cast<const Half *>(rp), static_cast<const Half *>(wp),
                   slots, static_cast<Half *>(yp), t, k, h);
  case kBF16:
    return combine(static_cast<const BHalf *>(rp),
                   static_cast<const BHalf *>(wp), slots,
                   static_cast<BHalf *>(yp), t, k, h);
  default:
    sc_fail("moe_combine: unsupported dtype %s", dtypeName(rows->dtype));
  }
}

namespace {

template <class T>
void groupedBias(const T *bias, const int32_t *offsets, T *y, int64_t experts,
                 int64_t n) {
  using A = typename Elem<T>::Acc;
  for (int64_t e = 0; e < experts; ++e) {
    const T *b = bias + e * n;
#pragma omp parallel for if ((offsets[e + 1] - offsets[e]) * n > kParallelGrain)
    for (int64_t r = offsets[e]; r < offsets[e + 1]; ++r)
      for (int64_t c = 0; c < n; ++c)
        y[r * n + c] = store<T>(A(load(y[r * n + c])) + A(load(b[c])));
  }
}

} // namespace

extern "C" void sc_grouped_bias(const sc_desc *bias, const void *bp,
                                const int32_t *offsets, const sc_desc *y,
                                void *yp) {
  int64_t experts = bias->dims[0], n = bias->dims[1];
  if (!groupOffsetsOk("grouped bias", offsets, experts, y->dims[0]))
    return;
  if (!dispatchFloat(bias->dtype, [&](auto t) {
        using T = decltype(t);
        groupedBias(static_cast<const T *>(bp), offsets, static_cast<T *>(yp),
                    experts, n);
      }))
    sc_fail("grouped bias: unsupported dtype %s", dtypeName(bias->dtype));
}
