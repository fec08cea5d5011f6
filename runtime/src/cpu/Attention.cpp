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
// Both products of a key block (scores = Q K^T with K staged transposed;
// acc = diag(e^(m - m')) acc + P V) run as register-tiled GEMMs (4 x 16
// tiles kept in registers over the inner dimension, vectorized along the 16
// columns without reassociating any sum); the exponentials use a vectorized
// polynomial (1e-7 relative; VecMath.h). An fp32 item (its staging,
// masking, products and rescaling) is cloned for AVX-512 and AVX2 + FMA
// (the runtime is built for the baseline ISA). A thread converts the keys
// and values of its current batch entry once, as far as its items need
// them. With `causal` a query block stops at its last visible key. Fewer
// query rows than a tile (a decode step over a KV cache) skip the tiles
// and the staging: each row's scores come straight from the keys and its
// output from the values, each read once (attentionRows).
// f16 computes in fp32, f64 in double (std::exp). bf16 runs its products
// on oneDNN's bf16 matmuls where the CPU has them (AMX, AVX-512 BF16:
// AttentionDnnl.cpp), and as f16 elsewhere.
//
//===----------------------------------------------------------------------===//
#include "Attention.h"
#include "Common.h"
#include "VecMath.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace shardc::rt::cpu;

namespace {

using Operand = AttentionOperand;

Operand operand(const int64_t *layout, int32_t nb) {
  if (!layout)
    return {0, nullptr, 0, 0};
  return {layout[0], layout + 1, layout[1 + nb], layout[2 + nb]};
}

constexpr int64_t kKeyBlock = 64;
// Register tile of the two products: MR rows x NR columns.
constexpr int64_t MR = 4, NR = 16;

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// C = diag(scale) C + A B (scale null: C = A B) for C [m x n] (pitch ldc),
// A [m x K] (pitch lda), B [K x n] (pitch ldb); m and n are multiples of MR
// and NR. Each MR x NR tile of C stays in registers (one vector of NR per
// row) over the K loop.
template <class Acc>
inline __attribute__((always_inline)) void
gemmTiles(int64_t m, int64_t n, int64_t K, const Acc *a, int64_t lda,
          const Acc *b, int64_t ldb, Acc *c, int64_t ldc, const Acc *scale) {
  typedef Acc Vec __attribute__((vector_size(NR * sizeof(Acc)),
                                 aligned(sizeof(Acc))));
  for (int64_t i0 = 0; i0 < m; i0 += MR)
    for (int64_t j0 = 0; j0 < n; j0 += NR) {
      Vec t[MR];
      for (int64_t i = 0; i < MR; ++i)
        t[i] = scale ? *(const Vec *)(c + (i0 + i) * ldc + j0) * scale[i0 + i]
                     : Vec{};
      const Acc *ar = a + i0 * lda;
      for (int64_t kk = 0; kk < K; ++kk) {
        const Vec bv = *(const Vec *)(b + kk * ldb + j0);
        for (int64_t i = 0; i < MR; ++i)
          t[i] += ar[i * lda + kk] * bv;
      }
      for (int64_t i = 0; i < MR; ++i)
        *(Vec *)(c + (i0 + i) * ldc + j0) = t[i];
    }
}

// The fp32 products, cloned for AVX-512 and AVX2 + FMA. They stay out of
// line (a multiversioned function is called through its resolver): inlined
// into the item, their register tiles spilled.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
gemmF32(int64_t m, int64_t n, int64_t K, const float *a, int64_t lda,
        const float *b, int64_t ldb, float *c, int64_t ldc,
        const float *scale) {
  gemmTiles(m, n, K, a, lda, b, ldb, c, ldc, scale);
}
void gemm(int64_t m, int64_t n, int64_t K, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c, int64_t ldc,
          const float *scale) {
  gemmF32(m, n, K, a, lda, b, ldb, c, ldc, scale);
}
void gemm(int64_t m, int64_t n, int64_t K, const double *a, int64_t lda,
          const double *b, int64_t ldb, double *c, int64_t ldc,
          const double *scale) {
  gemmTiles(m, n, K, a, lda, b, ldb, c, ldc, scale);
}

float expSum(float *p, int64_t n, float m) { return expSumF32(p, n, m); }
double expSum(double *p, int64_t n, double m) {
  double s = 0;
  for (int64_t j = 0; j < n; ++j)
    s += p[j] = std::exp(p[j] - m);
  return s;
}
float rowMax(const float *p, int64_t n) { return rowMaxF32(p, n); }
double rowMax(const double *p, int64_t n) { return rowMaxImpl(p, n); }

// What every work item of one attention call reads.
template <class T> struct Problem {
  using Acc = typename Elem<T>::Acc;
  int32_t nb;
  const int64_t *dims;
  const T *q, *k, *v, *mask;
  Operand ql, kl, vl, ml, yl;
  T *y;
  Acc sc;
  bool causal;
  int64_t S, T_, D, E, BQ, BK, EP, TP, qBlocks;
};

// A thread's scratch: its query block, the staged keys (transposed) and
// values of one batch entry, the scores and the online-softmax state.
template <class Acc> struct Scratch {
  std::vector<Acc> buf;
  Acc *qb, *kt, *vb, *pb, *acc, *mx, *sum, *corr;
  int64_t stagedB = -1, staged = 0; // keys [0, staged) of stagedB
  template <class P> explicit Scratch(const P &p) {
    if (p.S < MR) { // attentionRows: a query row, its scores, its output
      buf.resize(p.D + p.TP + p.EP);
      qb = buf.data();
      kt = qb + p.D;
      acc = kt + p.TP;
      vb = pb = mx = sum = corr = nullptr;
      return;
    }
    buf.resize(p.BQ * p.D + p.D * p.TP + p.TP * p.EP + p.BQ * p.BK +
               p.BQ * p.EP + 3 * p.BQ);
    qb = buf.data();        // BQ x D query rows
    kt = qb + p.BQ * p.D;   // D x TP keys, transposed
    vb = kt + p.D * p.TP;   // TP x EP values
    pb = vb + p.TP * p.EP;  // BQ x BK scores, then weights
    acc = pb + p.BQ * p.BK; // BQ x EP accumulators
    mx = acc + p.BQ * p.EP; // BQ running maxima
    sum = mx + p.BQ;        // BQ running sums
    corr = sum + p.BQ;      // BQ rescalings of the accumulators
  }
};

// NR fp32 or bf16 elements of a contiguous row as NR fp32 lanes (bf16
// widened exactly: its bits are the top half of the fp32's).
typedef float RowVec __attribute__((vector_size(NR * 4), aligned(4)));
inline __attribute__((always_inline)) RowVec rowVec(const float *p) {
  return *(const RowVec *)p;
}
inline __attribute__((always_inline)) RowVec rowVec(const BHalf *p) {
  typedef uint16_t Halves __attribute__((vector_size(NR * 2), aligned(2)));
  typedef uint32_t Words __attribute__((vector_size(NR * 4)));
  Words w = __builtin_convertvector(*(const Halves *)p, Words) << 16;
  return (RowVec)w;
}

// q . k over D elements (strides 1 and `kcs`): NR lanes of partial sums
// when k is a contiguous fp32 or bf16 row (a decode step's keys), else one
// sum.
template <class T, class Acc>
inline __attribute__((always_inline)) Acc dotRow(const Acc *q, const T *k,
                                                 int64_t kcs, int64_t D) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, BHalf>) {
    if (kcs == 1 && D % NR == 0) {
      RowVec s{};
      for (int64_t d = 0; d < D; d += NR)
        s += rowVec(q + d) * rowVec(k + d);
      float t = 0;
      for (int64_t i = 0; i < NR; ++i)
        t += s[i];
      return t;
    }
  }
  Acc t = 0;
  for (int64_t d = 0; d < D; ++d)
    t += q[d] * load(k[d * kcs]);
  return t;
}

// acc[0, E) += w v[0, E) (stride `vcs`): NR lanes at a time when v is a
// contiguous fp32 or bf16 row.
template <class T, class Acc>
inline __attribute__((always_inline)) void
axpyRow(Acc w, const T *v, int64_t vcs, int64_t E, Acc *acc) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, BHalf>) {
    if (vcs == 1 && E % NR == 0) {
      for (int64_t e = 0; e < E; e += NR)
        *(RowVec *)(acc + e) += w * rowVec(v + e);
      return;
    }
  }
  for (int64_t e = 0; e < E; ++e)
    acc[e] += w * load(v[e * vcs]);
}

// An item of fewer query rows than a register tile holds (a decode step:
// S = 1): each row's scores straight from the keys, its weights, and its
// output summed over the values, reading each key and value once. The
// tiled path would compute MR rows for one and first copy the whole cache
// into its staging (docs/performance.md, "Decoding with a KV cache").
template <class T>
inline __attribute__((always_inline)) void
attentionRows(const Problem<T> &p, Scratch<typename Elem<T>::Acc> &w, int64_t b,
              int64_t s0, int64_t rows) {
  using Acc = typename Elem<T>::Acc;
  const Acc ninf = -std::numeric_limits<Acc>::infinity();
  const int64_t S = p.S, T_ = p.T_, D = p.D, E = p.E;
  const BatchOffsets o =
      batchOffsets(p.nb, p.dims, b, p.ql, p.kl, p.vl, p.mask, p.ml, p.yl);
  // The scores of a row (TP >= T entries).
  Acc *qb = w.qb, *pr = w.kt, *acc = w.acc;
  w.stagedB = -1;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t s = s0 + r;
    const T *qr = p.q + o.q + s * p.ql.rs;
    for (int64_t d = 0; d < D; ++d)
      qb[d] = load(qr[d * p.ql.cs]);
    int64_t lim = T_;
    if (p.causal)
      lim = std::clamp<int64_t>(s + T_ - S + 1, 0, T_);
    for (int64_t j = 0; j < lim; ++j)
      pr[j] = dotRow(qb, p.k + o.k + j * p.kl.rs, p.kl.cs, D);
    if (p.mask) {
      const T *mr = p.mask + o.mask + s * p.ml.rs;
      for (int64_t j = 0; j < lim; ++j)
        pr[j] = pr[j] * p.sc + load(mr[j * p.ml.cs]);
    } else {
      for (int64_t j = 0; j < lim; ++j)
        pr[j] *= p.sc;
    }
    std::fill(acc, acc + E, Acc(0));
    // No visible key: 0 / 0, NaN as Softmax of a row of -inf.
    Acc m = lim ? rowMax(pr, lim) : ninf, l = 0;
    if (m != ninf) {
      l = expSum(pr, lim, m);
      for (int64_t j = 0; j < lim; ++j)
        axpyRow(pr[j], p.v + o.v + j * p.vl.rs, p.vl.cs, E, acc);
    }
    T *yr = p.y + o.y + s * p.yl.rs;
    for (int64_t e = 0; e < E; ++e)
      yr[e * p.yl.cs] = store<T>(acc[e] / l);
  }
}

// One (batch entry, query block) item: stage what it needs, walk the key
// blocks, write its rows of y. Inlined into each ISA's clone below, so the
// staging, masking and rescaling loops vectorize for the machine too.
template <class T>
inline __attribute__((always_inline)) void
attentionItem(const Problem<T> &p, Scratch<typename Elem<T>::Acc> &w,
              int64_t it) {
  using Acc = typename Elem<T>::Acc;
  const Acc ninf = -std::numeric_limits<Acc>::infinity();
  const int64_t S = p.S, T_ = p.T_, D = p.D, E = p.E, BQ = p.BQ, BK = p.BK,
                EP = p.EP, TP = p.TP;
  const Acc sc = p.sc;
  Acc *qb = w.qb, *kt = w.kt, *vb = w.vb, *pb = w.pb, *acc = w.acc,
      *mx = w.mx, *sum = w.sum, *corr = w.corr;
  int64_t b = it / p.qBlocks, s0 = (it % p.qBlocks) * BQ;
  if (b != w.stagedB) {
    w.stagedB = b;
    w.staged = 0;
  }
  int64_t rows = std::min(BQ, S - s0), rowsP = roundUp(rows, MR);
  if (S < MR) {
    attentionRows(p, w, b, s0, rows);
    return;
  }
  // Offsets of this batch in every operand.
  const BatchOffsets o =
      batchOffsets(p.nb, p.dims, b, p.ql, p.kl, p.vl, p.mask, p.ml, p.yl);
  const int64_t qo = o.q, ko = o.k, vo = o.v, mo = o.mask, yo = o.y;
  // Rows past `rows` (up to a multiple of MR) stay zero.
  std::fill(qb, qb + rowsP * D, Acc(0));
  std::fill(acc, acc + rowsP * EP, Acc(0));
  for (int64_t r = 0; r < rowsP; ++r) {
    if (r < rows) {
      const T *qr = p.q + qo + (s0 + r) * p.ql.rs;
      for (int64_t d = 0; d < D; ++d)
        qb[r * D + d] = load(qr[d * p.ql.cs]);
    }
    mx[r] = ninf;
    sum[r] = 0;
  }
  // Keys visible to some row of the block.
  int64_t tEnd = T_;
  if (p.causal)
    tEnd = std::clamp<int64_t>(s0 + rows - 1 + T_ - S + 1, 0, T_);
  for (int64_t t0 = 0; t0 < tEnd; t0 += BK) {
    int64_t n = std::min(BK, tEnd - t0), nP = roundUp(n, NR);
    if (t0 + n > w.staged) {
      // Stage the block (blocks come in order, so staged == t0); columns
      // and rows past n are zero. The keys transpose a row of kt at a
      // time: the block's key rows stay in L1 while each row of kt is
      // written contiguously (a key at a time wrote a cache line per
      // element).
      const T *kb = p.k + ko + t0 * p.kl.rs;
      for (int64_t d = 0; d < D; ++d) {
        Acc *kd = kt + d * TP + t0;
        const T *kc = kb + d * p.kl.cs;
        for (int64_t j = 0; j < n; ++j)
          kd[j] = load(kc[j * p.kl.rs]);
        std::fill(kd + n, kd + nP, Acc(0));
      }
      for (int64_t j = 0; j < nP; ++j) {
        Acc *vr = vb + (t0 + j) * EP;
        if (j >= n) {
          std::fill(vr, vr + EP, Acc(0));
          continue;
        }
        const T *vs = p.v + vo + (t0 + j) * p.vl.rs;
        if (p.vl.cs == 1)
          for (int64_t e = 0; e < E; ++e)
            vr[e] = load(vs[e]);
        else
          for (int64_t e = 0; e < E; ++e)
            vr[e] = load(vs[e * p.vl.cs]);
        std::fill(vr + E, vr + EP, Acc(0));
      }
      w.staged = t0 + n;
    }
    gemm(rowsP, nP, D, qb, D, kt + t0, TP, pb, BK, (const Acc *)nullptr);
    for (int64_t r = 0; r < rowsP; ++r) {
      Acc *pr = pb + r * BK;
      int64_t s = s0 + r;
      // Keys [0, lim) of the block are visible to this row.
      int64_t lim = r < rows ? n : 0;
      if (p.causal && r < rows)
        lim = std::clamp<int64_t>(s + T_ - S - t0 + 1, 0, n);
      if (p.mask && lim) {
        const T *mr = p.mask + mo + s * p.ml.rs + t0 * p.ml.cs;
        if (p.ml.cs == 1)
          for (int64_t j = 0; j < lim; ++j)
            pr[j] = pr[j] * sc + load(mr[j]);
        else
          for (int64_t j = 0; j < lim; ++j)
            pr[j] = pr[j] * sc + load(mr[j * p.ml.cs]);
      } else {
        for (int64_t j = 0; j < lim; ++j)
          pr[j] *= sc;
      }
      Acc mNew = std::max(mx[r], rowMax(pr, lim));
      if (mNew == ninf) {
        // Nothing visible yet: every weight is 0.
        std::fill(pr, pr + nP, Acc(0));
        corr[r] = 1;
        continue;
      }
      corr[r] = std::exp(mx[r] - mNew);
      mx[r] = mNew;
      Acc l = expSum(pr, lim, mNew);
      std::fill(pr + lim, pr + nP, Acc(0));
      sum[r] = sum[r] * corr[r] + l;
    }
    gemm(rowsP, EP, n, pb, BK, vb + t0 * EP, EP, acc, EP, (const Acc *)corr);
  }
  for (int64_t r = 0; r < rows; ++r) {
    T *yr = p.y + yo + (s0 + r) * p.yl.rs;
    const Acc *ar = acc + r * EP;
    // No visible key: 0 / 0, NaN as Softmax of a row of -inf.
    const Acc l = sum[r];
    if (p.yl.cs == 1)
      for (int64_t e = 0; e < E; ++e)
        yr[e] = store<T>(ar[e] / l);
    else
      for (int64_t e = 0; e < E; ++e)
        yr[e * p.yl.cs] = store<T>(ar[e] / l);
  }
}

// fp32 and bf16 items, cloned for AVX-512 and AVX2 + FMA (the runtime is
// built for the baseline ISA); other types run the baseline build.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
attentionItemF32(const Problem<float> &p, Scratch<float> &w, int64_t it) {
  attentionItem(p, w, it);
}
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
attentionItemBF16(const Problem<BHalf> &p, Scratch<float> &w, int64_t it) {
  attentionItem(p, w, it);
}
template <class T>
void runItem(const Problem<T> &p, Scratch<typename Elem<T>::Acc> &w,
             int64_t it) {
  if constexpr (std::is_same_v<T, float>)
    attentionItemF32(p, w, it);
  else if constexpr (std::is_same_v<T, BHalf>)
    attentionItemBF16(p, w, it);
  else
    attentionItem(p, w, it);
}

template <class T>
void attentionImpl(int32_t nb, const int64_t *dims, const T *q, Operand ql,
                   const T *k, Operand kl, const T *v, Operand vl,
                   const T *mask, Operand ml, T *y, Operand yl, float scale,
                   bool causal, bool bf16Products) {
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
  if constexpr (std::is_same_v<T, BHalf>)
    if (attentionBF16Dnnl(nb, dims, q, ql, k, kl, v, vl, mask, ml, y, yl, scale,
                          causal))
      return;
  if constexpr (std::is_same_v<T, float>)
    if (bf16Products && attentionF32ByBF16Dnnl(nb, dims, q, ql, k, kl, v, vl,
                                               mask, ml, y, yl, scale, causal))
      return;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  // Query blocks of up to 64 rows, smaller while that leaves threads idle.
  int64_t BQ = std::min<int64_t>(64, roundUp(S, MR));
  while (BQ > 8 && batch * ((S + BQ - 1) / BQ) < 2 * threads)
    BQ = roundUp(BQ / 2, MR);
  Problem<T> p{nb, dims, q, k, v, mask, ql, kl, vl, ml, yl, y, (Acc)scale,
               causal, S, T_, D, E, BQ,
               /*BK=*/std::min(kKeyBlock, roundUp(T_, NR)),
               /*EP=*/roundUp(E, NR), /*TP=*/roundUp(T_, NR),
               /*qBlocks=*/(S + BQ - 1) / BQ};
  const int64_t items = batch * p.qBlocks;
  const double work = (double)batch * S * T_ * (D + E);

#pragma omp parallel if (work > kParallelGrain && items > 1)
  {
    // The keys and values of one batch entry are converted once per thread
    // as far as its items need them: O(T) per thread, never S x T. Without
    // `causal` a thread claims all query blocks of an entry at once, so
    // they share one staging; causal blocks grow in cost along the
    // queries, so they are claimed one at a time. Claimed, not dealt
    // (schedule(dynamic)): a thread that shares its core with another
    // process takes fewer (the row blocks of Dnnl.cpp's rowBlocks).
    Scratch<Acc> w(p);
    if (causal) {
#pragma omp for schedule(dynamic, 1)
      for (int64_t it = 0; it < items; ++it)
        runItem(p, w, it);
    } else {
#pragma omp for schedule(dynamic, p.qBlocks)
      for (int64_t it = 0; it < items; ++it)
        runItem(p, w, it);
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
                             int32_t flags) {
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
                     yl, scale, (flags & SC_ATTENTION_CAUSAL) != 0,
                     (flags & SC_ATTENTION_BF16_PRODUCTS) != 0);
  });
  if (!ok)
    sc_fail("sc_attention: unsupported dtype %s", dtypeName(dtype));
}
