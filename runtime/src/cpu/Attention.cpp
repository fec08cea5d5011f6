//===- Attention.cpp - scaled dot-product attention -----------------------===//
//
// sc_attention: y = softmax(q k^T * scale + mask) v over strided operands,
// without ever storing the S x T scores. The work is split into (batch,
// query block) items spread over the OpenMP threads. An item keeps its query
// rows (converted to the compute type), an accumulator of E values per row
// and the running maximum and sum of each row, and walks the keys a block at
// a time (flash attention's online softmax):
//
//   m' = max(m, max_j s_j),  l' = l e^(m - m') + sum_j e^(s_j - m'),
//   acc' = acc e^(m - m') + sum_j e^(s_j - m') v_j,  y = acc / l.
//
// The key block is stored transposed (D x BK) so that a row's scores are
// axpy loops over the keys, and the value block row-major (BK x E) so that
// the accumulation is an axpy over E: both vectorize without reassociating
// a reduction. With `causal` a query block stops at its last visible key.
// f16 / bf16 compute in fp32, f64 in double.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <limits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace shardc::rt::cpu;

namespace {

struct Operand {
  int64_t off;         // element offset of batch 0, row 0, column 0
  const int64_t *bstr; // nb batch strides
  int64_t rs, cs;      // row and column strides
};

Operand operand(const int64_t *layout, int32_t nb) {
  if (!layout)
    return {0, nullptr, 0, 0};
  return {layout[0], layout + 1, layout[1 + nb], layout[2 + nb]};
}

constexpr int64_t kKeyBlock = 64;

template <class T>
void attentionImpl(int32_t nb, const int64_t *dims, const T *q, Operand ql,
                   const T *k, Operand kl, const T *v, Operand vl,
                   const T *mask, Operand ml, T *y, Operand yl, float scale,
                   bool causal) {
  using Acc = typename Elem<T>::Acc;
  int64_t batch = 1;
  for (int32_t i = 0; i < nb; ++i)
    batch *= dims[i];
  const int64_t S = dims[nb], T_ = dims[nb + 1], D = dims[nb + 2],
                E = dims[nb + 3];
  if (batch == 0 || S == 0 || E == 0)
    return;
  if (T_ == 0) { // no keys: an empty sum (MatMul of [S, 0] by [0, E])
    for (int64_t b = 0; b < batch; ++b) {
      int64_t yo = yl.off, rem = b;
      for (int32_t i = nb - 1; i >= 0; --i) {
        yo += rem % dims[i] * yl.bstr[i];
        rem /= dims[i];
      }
      for (int64_t s = 0; s < S; ++s)
        for (int64_t e = 0; e < E; ++e)
          y[yo + s * yl.rs + e * yl.cs] = store<T>(Acc(0));
    }
    return;
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  // Query blocks of up to 64 rows, smaller while that leaves threads idle.
  int64_t BQ = std::min<int64_t>(64, S);
  while (BQ > 8 && batch * ((S + BQ - 1) / BQ) < 2 * threads)
    BQ = (BQ + 1) / 2;
  const int64_t BK = std::min<int64_t>(kKeyBlock, T_);
  const int64_t qBlocks = (S + BQ - 1) / BQ, items = batch * qBlocks;
  const Acc ninf = -std::numeric_limits<Acc>::infinity();
  const Acc sc = (Acc)scale;
  const double work = (double)batch * S * T_ * (D + E);

#pragma omp parallel if (work > kParallelGrain && items > 1)
  {
    std::vector<Acc> buf(BQ * D + D * BK + BK * E + BQ * BK + BQ * E + 2 * BQ);
    Acc *qb = buf.data();     // BQ x D query rows
    Acc *kt = qb + BQ * D;    // D x BK keys, transposed
    Acc *vb = kt + D * BK;    // BK x E values
    Acc *sb = vb + BK * E;    // BQ x BK scores of the block
    Acc *acc = sb + BQ * BK;  // BQ x E accumulators
    Acc *mx = acc + BQ * E;   // BQ running maxima
    Acc *sum = mx + BQ;       // BQ running sums
#pragma omp for schedule(dynamic)
    for (int64_t it = 0; it < items; ++it) {
      int64_t b = it / qBlocks, s0 = (it % qBlocks) * BQ;
      int64_t rows = std::min(BQ, S - s0);
      // Offsets of this batch in every operand.
      int64_t qo = ql.off, ko = kl.off, vo = vl.off, mo = ml.off, yo = yl.off;
      int64_t rem = b;
      for (int32_t i = nb - 1; i >= 0; --i) {
        int64_t idx = rem % dims[i];
        rem /= dims[i];
        qo += idx * ql.bstr[i];
        ko += idx * kl.bstr[i];
        vo += idx * vl.bstr[i];
        if (mask)
          mo += idx * ml.bstr[i];
        yo += idx * yl.bstr[i];
      }
      for (int64_t r = 0; r < rows; ++r) {
        const T *qr = q + qo + (s0 + r) * ql.rs;
        for (int64_t d = 0; d < D; ++d)
          qb[r * D + d] = load(qr[d * ql.cs]);
        std::fill(acc + r * E, acc + (r + 1) * E, Acc(0));
        mx[r] = ninf;
        sum[r] = 0;
      }
      // Keys visible to some row of the block.
      int64_t tEnd = T_;
      if (causal)
        tEnd = std::clamp<int64_t>(s0 + rows - 1 + T_ - S + 1, 0, T_);
      for (int64_t t0 = 0; t0 < tEnd; t0 += BK) {
        int64_t n = std::min(BK, tEnd - t0);
        for (int64_t j = 0; j < n; ++j) {
          const T *kr = k + ko + (t0 + j) * kl.rs;
          for (int64_t d = 0; d < D; ++d)
            kt[d * BK + j] = load(kr[d * kl.cs]);
          const T *vr = v + vo + (t0 + j) * vl.rs;
          for (int64_t e = 0; e < E; ++e)
            vb[j * E + e] = load(vr[e * vl.cs]);
        }
        for (int64_t r = 0; r < rows; ++r) {
          int64_t s = s0 + r;
          // Keys [0, lim) of the block are visible to this row.
          int64_t lim = n;
          if (causal)
            lim = std::clamp<int64_t>(s + T_ - S - t0 + 1, 0, n);
          if (lim == 0)
            continue;
          Acc *sr = sb + r * BK;
          std::fill(sr, sr + lim, Acc(0));
          const Acc *qr = qb + r * D;
          for (int64_t d = 0; d < D; ++d) {
            const Acc qd = qr[d];
            const Acc *kd = kt + d * BK;
            for (int64_t j = 0; j < lim; ++j)
              sr[j] += qd * kd[j];
          }
          Acc m = ninf;
          if (mask) {
            const T *mr = mask + mo + s * ml.rs + t0 * ml.cs;
            for (int64_t j = 0; j < lim; ++j)
              sr[j] = sr[j] * sc + load(mr[j * ml.cs]);
          } else {
            for (int64_t j = 0; j < lim; ++j)
              sr[j] *= sc;
          }
          for (int64_t j = 0; j < lim; ++j)
            m = sr[j] > m ? sr[j] : m; // NaN never becomes the maximum
          Acc mNew = std::max(mx[r], m);
          if (mNew == ninf)
            continue; // nothing visible yet: every weight is 0
          Acc *ar = acc + r * E;
          if (mx[r] != mNew) {
            Acc corr = std::exp(mx[r] - mNew);
            sum[r] *= corr;
            for (int64_t e = 0; e < E; ++e)
              ar[e] *= corr;
            mx[r] = mNew;
          }
          Acc l = 0;
          for (int64_t j = 0; j < lim; ++j) {
            Acc p = std::exp(sr[j] - mNew);
            l += p;
            const Acc *vj = vb + j * E;
            for (int64_t e = 0; e < E; ++e)
              ar[e] += p * vj[e];
          }
          sum[r] += l;
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        T *yr = y + yo + (s0 + r) * yl.rs;
        const Acc *ar = acc + r * E;
        // No visible key: 0 / 0, NaN as Softmax of a row of -inf.
        const Acc l = sum[r];
        for (int64_t e = 0; e < E; ++e)
          yr[e * yl.cs] = store<T>(ar[e] / l);
      }
    }
  }
}

} // namespace

extern "C" void sc_attention(int32_t dtype, int32_t nb, const int64_t *dims,
                             const void *q, const int64_t *q_layout,
                             const void *k, const int64_t *k_layout,
                             const void *v, const int64_t *v_layout,
                             const void *mask, const int64_t *mask_layout,
                             void *y, const int64_t *y_layout, float scale,
                             int32_t causal) {
  if (nb < 0 || nb > SC_MAX_RANK) {
    sc_fail("sc_attention: %d batch dims", (int)nb);
    return;
  }
  Operand ql = operand(q_layout, nb), kl = operand(k_layout, nb),
          vl = operand(v_layout, nb), yl = operand(y_layout, nb);
  Operand ml = mask ? operand(mask_layout, nb) : Operand{0, nullptr, 0, 0};
  bool ok = dispatchFloat(dtype, [&](auto t) {
    using T = decltype(t);
    attentionImpl<T>(nb, dims, static_cast<const T *>(q), ql,
                     static_cast<const T *>(k), kl, static_cast<const T *>(v),
                     vl, static_cast<const T *>(mask), ml, static_cast<T *>(y),
                     yl, scale, causal != 0);
  });
  if (!ok)
    sc_fail("sc_attention: unsupported dtype %s", dtypeName(dtype));
}
