//===- MatMulRef.cpp - reference MatMul, MatMulInteger, QLinearMatMul -----===//
//
// numpy matmul semantics: a 1-D first operand is a row ([1, K], the M dim
// dropped from the output), a 1-D second operand a column ([K, 1], N dropped);
// batch dims broadcast. The output is [batch, M, N] in memory whatever dims
// were dropped. Loops run i-k-j so the inner loop streams rows of b.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace shardc::rt::cpu;

namespace {

struct MMShape {
  int64_t M = 1, K = 1, N = 1;
  int64_t batch = 1;
  int64_t aBatches = 1, bBatches = 1; // matrices in a and b
  std::vector<int64_t> aIdx, bIdx;    // per output batch: matrix of a, b
};

bool mmShape(const char *op, const sc_desc *a, const sc_desc *b,
             const sc_desc *y, MMShape &s) {
  if (a->rank < 1 || b->rank < 1) {
    sc_fail("%s: operands of rank %d and %d (need >= 1)", op, a->rank, b->rank);
    return false;
  }
  int64_t ka, kb;
  if (a->rank == 1) {
    s.M = 1;
    ka = a->dims[0];
  } else {
    s.M = a->dims[a->rank - 2];
    ka = a->dims[a->rank - 1];
  }
  if (b->rank == 1) {
    s.N = 1;
    kb = b->dims[0];
  } else {
    kb = b->dims[b->rank - 2];
    s.N = b->dims[b->rank - 1];
  }
  if (ka != kb) {
    sc_fail("%s: inner dimensions %lld and %lld differ", op, (long long)ka,
            (long long)kb);
    return false;
  }
  s.K = ka;
  int ra = std::max(a->rank - 2, 0), rb = std::max(b->rank - 2, 0);
  int rr = std::max(ra, rb);
  std::vector<int64_t> ad(rr, 1), bd(rr, 1), od(rr);
  for (int i = 0; i < ra; ++i)
    ad[rr - ra + i] = a->dims[i];
  for (int i = 0; i < rb; ++i)
    bd[rr - rb + i] = b->dims[i];
  for (int i = 0; i < rr; ++i) {
    if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1) {
      sc_fail("%s: batch dimensions %lld and %lld do not broadcast", op,
              (long long)ad[i], (long long)bd[i]);
      return false;
    }
    od[i] = std::max(ad[i], bd[i]);
    if (ad[i] == 0 || bd[i] == 0)
      od[i] = 0;
    s.batch *= od[i];
    s.aBatches *= ad[i];
    s.bBatches *= bd[i];
  }
  if (numel(y) != s.batch * s.M * s.N) {
    sc_fail("%s: output has %lld elements, expected %lld", op,
            (long long)numel(y), (long long)(s.batch * s.M * s.N));
    return false;
  }
  s.aIdx.resize(s.batch);
  s.bIdx.resize(s.batch);
  for (int64_t t = 0; t < s.batch; ++t) {
    int64_t rem = t, ai = 0, bi = 0, as = 1, bs = 1;
    for (int i = rr - 1; i >= 0; --i) {
      int64_t c = rem % od[i];
      rem /= od[i];
      ai += (ad[i] == 1 ? 0 : c) * as;
      bi += (bd[i] == 1 ? 0 : c) * bs;
      as *= ad[i];
      bs *= bd[i];
    }
    s.aIdx[t] = ai;
    s.bIdx[t] = bi;
  }
  return true;
}

// y[t, i, :] = sum_k f(a[i, k]) * g(b[k, :]) for every (batch t, row i);
// `row` gets the accumulators of one output row and writes them out.
template <class Acc, class LA, class LB, class Out>
void mmLoop(const MMShape &s, LA loadA, LB loadB, Out out) {
  int64_t rows = s.batch * s.M;
#pragma omp parallel if (rows * s.K * s.N > kParallelGrain)
  {
    std::vector<Acc> acc(s.N);
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      int64_t t = r / s.M, i = r % s.M;
      int64_t am = s.aIdx[t], bm = s.bIdx[t];
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t k = 0; k < s.K; ++k) {
        Acc av = loadA(am, i, k);
        for (int64_t j = 0; j < s.N; ++j)
          acc[j] += av * loadB(bm, k, j);
      }
      out(t, am, i, acc.data());
    }
  }
}

template <class T>
void matmulRefImpl(const MMShape &s, const T *a, const T *b, T *y) {
  using E = typename Elem<T>::Acc;
  // Integers wrap in uint64_t (like numpy's fixed-width ints, without UB);
  // floats accumulate in double.
  using Acc = std::conditional_t<std::is_integral_v<E>, uint64_t, double>;
  int64_t M = s.M, K = s.K, N = s.N;
  mmLoop<Acc>(
      s,
      [&](int64_t m, int64_t i, int64_t k) {
        return (Acc)load(a[(m * M + i) * K + k]);
      },
      [&](int64_t m, int64_t k, int64_t j) {
        return (Acc)load(b[(m * K + k) * N + j]);
      },
      [&](int64_t t, int64_t, int64_t i, const Acc *acc) {
        T *row = y + (t * M + i) * N;
        for (int64_t j = 0; j < N; ++j)
          row[j] = store<T>((E)acc[j]);
      });
}

// Zero point (or scale) indexing: one value, one per row/column, or one per
// row/column of every matrix of the operand.
struct PerIndex {
  const void *p = nullptr;
  int32_t dtype = 0;
  int64_t n = 0, per = 1;

  bool init(const char *op, const char *what, const sc_desc *d, const void *ptr,
            int64_t per_, int64_t matrices) {
    p = ptr;
    if (!d || !ptr)
      return true;
    dtype = d->dtype;
    n = numel(d);
    per = per_;
    if (n == 1 || n == per || n == per * matrices)
      return true;
    sc_fail("%s: %s has %lld elements, expected 1, %lld or %lld", op, what,
            (long long)n, (long long)per, (long long)(per * matrices));
    return false;
  }
  int64_t index(int64_t matrix, int64_t i) const {
    return n == 1 ? 0 : n == per ? i : matrix * per + i;
  }
  int32_t intAt(int64_t matrix, int64_t i) const {
    if (!p)
      return 0;
    int64_t k = index(matrix, i);
    return dtype == kI8 ? static_cast<const int8_t *>(p)[k]
                        : static_cast<const uint8_t *>(p)[k];
  }
  float floatAt(int64_t matrix, int64_t i) const {
    int64_t k = index(matrix, i);
    switch (dtype) {
    case kF16:
      return sc_h2f(static_cast<const uint16_t *>(p)[k]);
    case kBF16:
      return sc_bf2f(static_cast<const uint16_t *>(p)[k]);
    case kF64:
      return (float)static_cast<const double *>(p)[k];
    default:
      return static_cast<const float *>(p)[k];
    }
  }
};

inline int32_t int8At(const void *p, int32_t dtype, int64_t k) {
  return dtype == kI8 ? static_cast<const int8_t *>(p)[k]
                      : static_cast<const uint8_t *>(p)[k];
}

bool isInt8(int32_t dtype) { return dtype == kI8 || dtype == kU8; }

// Rounds a float to the precision of a scale's dtype (numpy computes fp16
// scale arithmetic in fp16).
float roundTo(int32_t dtype, float v) {
  if (dtype == kF16)
    return sc_h2f(sc_f2h(v));
  if (dtype == kBF16)
    return sc_bf2f(sc_f2bf(v));
  return v;
}

} // namespace

extern "C" void sc_matmul_ref(const sc_desc *a, const void *ap,
                              const sc_desc *b, const void *bp,
                              const sc_desc *y, void *yp) {
  if (a->dtype != b->dtype || a->dtype != y->dtype) {
    sc_fail("MatMul: operand dtypes %s, %s and output %s differ",
            dtypeName(a->dtype), dtypeName(b->dtype), dtypeName(y->dtype));
    return;
  }
  MMShape s;
  if (!mmShape("MatMul", a, b, y, s))
    return;
  if (a->dtype == kBool || !dispatchNumeric(a->dtype, [&](auto t) {
        using T = decltype(t);
        matmulRefImpl(s, static_cast<const T *>(ap), static_cast<const T *>(bp),
                      static_cast<T *>(yp));
      }))
    sc_fail("MatMul: unsupported dtype %s", dtypeName(a->dtype));
}

extern "C" void sc_matmul_integer(const sc_desc *a, const void *ap,
                                  const sc_desc *b, const void *bp,
                                  const sc_desc *azp, const void *azpp,
                                  const sc_desc *bzp, const void *bzpp,
                                  const sc_desc *y, int32_t *yp) {
  if (!isInt8(a->dtype) || !isInt8(b->dtype)) {
    sc_fail("MatMulInteger: operands are %s and %s (need int8 or uint8)",
            dtypeName(a->dtype), dtypeName(b->dtype));
    return;
  }
  MMShape s;
  if (!mmShape("MatMulInteger", a, b, y, s))
    return;
  PerIndex za, zb;
  if (!za.init("MatMulInteger", "a_zero_point", azp, azpp, s.M, s.aBatches) ||
      !zb.init("MatMulInteger", "b_zero_point", bzp, bzpp, s.N, s.bBatches))
    return;
  int64_t M = s.M, K = s.K, N = s.N;
  int32_t adt = a->dtype, bdt = b->dtype;
  // Accumulate in uint32_t: int32 arithmetic that wraps instead of UB.
  mmLoop<uint32_t>(
      s,
      [&](int64_t m, int64_t i, int64_t k) {
        return (uint32_t)(int8At(ap, adt, (m * M + i) * K + k) -
                          za.intAt(m, i));
      },
      [&](int64_t m, int64_t k, int64_t j) {
        return (uint32_t)(int8At(bp, bdt, (m * K + k) * N + j) -
                          zb.intAt(m, j));
      },
      [&](int64_t t, int64_t, int64_t i, const uint32_t *acc) {
        int32_t *row = yp + (t * M + i) * N;
        for (int64_t j = 0; j < N; ++j)
          row[j] = (int32_t)acc[j];
      });
}

extern "C" void
sc_qlinear_matmul(const sc_desc *a, const void *ap, const sc_desc *as,
                  const void *asp, const sc_desc *azp, const void *azpp,
                  const sc_desc *b, const void *bp, const sc_desc *bs,
                  const void *bsp, const sc_desc *bzp, const void *bzpp,
                  const sc_desc *ys, const void *ysp, const sc_desc *yzp,
                  const void *yzpp, const sc_desc *y, void *yp) {
  const char *op = "QLinearMatMul";
  if (!isInt8(a->dtype) || !isInt8(b->dtype) || !isInt8(y->dtype)) {
    sc_fail("%s: a, b, y are %s, %s, %s (need int8 or uint8)", op,
            dtypeName(a->dtype), dtypeName(b->dtype), dtypeName(y->dtype));
    return;
  }
  if (!asp || !bsp || !ysp) {
    sc_fail("%s: missing scale", op);
    return;
  }
  MMShape s;
  if (!mmShape(op, a, b, y, s))
    return;
  PerIndex za, zb, zy, sa, sb, sy;
  if (!za.init(op, "a_zero_point", azp, azpp, s.M, s.aBatches) ||
      !zb.init(op, "b_zero_point", bzp, bzpp, s.N, s.bBatches) ||
      !sa.init(op, "a_scale", as, asp, s.M, s.aBatches) ||
      !sb.init(op, "b_scale", bs, bsp, s.N, s.bBatches) ||
      !sy.init(op, "y_scale", ys, ysp, s.M, s.batch) ||
      !zy.init(op, "y_zero_point", yzp, yzpp, s.M, s.batch))
    return;
  int64_t M = s.M, K = s.K, N = s.N;
  int32_t adt = a->dtype, bdt = b->dtype;
  bool yU8 = y->dtype == kU8;
  double lo = yU8 ? 0 : -128, hi = yU8 ? 255 : 127;
  mmLoop<uint32_t>(
      s,
      [&](int64_t m, int64_t i, int64_t k) {
        return (uint32_t)(int8At(ap, adt, (m * M + i) * K + k) -
                          za.intAt(m, i));
      },
      [&](int64_t m, int64_t k, int64_t j) {
        return (uint32_t)(int8At(bp, bdt, (m * K + k) * N + j) -
                          zb.intAt(m, j));
      },
      [&](int64_t t, int64_t am, int64_t i, const uint32_t *acc) {
        int64_t bm = s.bIdx[t];
        float ysc = sy.floatAt(t, i);
        double zp = zy.p ? (double)zy.intAt(t, i) : 0.0;
        char *row = static_cast<char *>(yp) + (t * M + i) * N;
        for (int64_t j = 0; j < N; ++j) {
          // The multiplier in the scales' precision, as the reference does.
          float m = roundTo(as->dtype, sa.floatAt(am, i) * sb.floatAt(bm, j));
          m = roundTo(as->dtype, m / ysc);
          double v = std::nearbyint((double)(int32_t)acc[j] * (double)m + zp);
          v = std::clamp(v, lo, hi);
          if (yU8)
            reinterpret_cast<uint8_t *>(row)[j] = (uint8_t)v;
          else
            reinterpret_cast<int8_t *>(row)[j] = (int8_t)v;
        }
      });
}
