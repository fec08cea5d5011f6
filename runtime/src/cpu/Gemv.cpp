//===- Gemv.cpp - products of a few rows over packed weights --------------===//
//
// A panel of the packed weights is [kpad, nb] row-major (bf16: [kpad / 2,
// nb, 2], pairs of rows), contiguous, and the panels follow each other: a
// thread streams its panels in address order, keeping the rows x nb sums of one
// panel in vector registers (NR = 16 lanes) over the whole of k. Cloned for
// AVX-512 and AVX2 (the runtime is built for the baseline ISA).
//
//===----------------------------------------------------------------------===//
#include "Gemv.h"
#include "VecMath.h"

#include <algorithm>
#include <cstring>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace shardc::rt::cpu {
namespace {

constexpr int64_t NR = 16;
typedef float Vec __attribute__((vector_size(NR * 4), aligned(4)));

// Panels [p0, p1) of R rows and panels C vectors wide.
template <int64_t R, int64_t C>
inline __attribute__((always_inline)) void
panels(int64_t p0, int64_t p1, int64_t K, int64_t kpad, int64_t N,
       const float *x, const float *w, const float *bias, float *y) {
  constexpr int64_t NB = C * NR;
  for (int64_t p = p0; p < p1; ++p) {
    const float *panel = w + p * kpad * NB;
    Vec acc[R][C] = {};
    for (int64_t k = 0; k < K; ++k) {
      const Vec *row = reinterpret_cast<const Vec *>(panel + k * NB);
      Vec wv[C];
      for (int64_t c = 0; c < C; ++c)
        wv[c] = row[c];
      for (int64_t m = 0; m < R; ++m) {
        const float xv = x[m * K + k];
        for (int64_t c = 0; c < C; ++c)
          acc[m][c] += xv * wv[c];
      }
    }
    const int64_t n0 = p * NB, cols = std::min(NB, N - n0);
    for (int64_t m = 0; m < R; ++m)
      for (int64_t j = 0; j < cols; ++j)
        y[m * N + n0 + j] =
            acc[m][j / NR][j % NR] + (bias ? bias[n0 + j] : 0.0f);
  }
}

template <int64_t C>
inline __attribute__((always_inline)) void
byRows(int64_t rows, int64_t p0, int64_t p1, int64_t K, int64_t kpad, int64_t N,
       const float *x, const float *w, const float *bias, float *y) {
  switch (rows) {
  case 1:
    return panels<1, C>(p0, p1, K, kpad, N, x, w, bias, y);
  case 2:
    return panels<2, C>(p0, p1, K, kpad, N, x, w, bias, y);
  case 3:
    return panels<3, C>(p0, p1, K, kpad, N, x, w, bias, y);
  default:
    return panels<4, C>(p0, p1, K, kpad, N, x, w, bias, y);
  }
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
panelRange(int64_t rows, int64_t p0, int64_t p1, int64_t K, int64_t kpad,
           int64_t N, int64_t nb, const float *x, const float *w,
           const float *bias, float *y) {
  switch (nb / NR) {
  case 1:
    return byRows<1>(rows, p0, p1, K, kpad, N, x, w, bias, y);
  case 2:
    return byRows<2>(rows, p0, p1, K, kpad, N, x, w, bias, y);
  case 3:
    return byRows<3>(rows, p0, p1, K, kpad, N, x, w, bias, y);
  default:
    return byRows<4>(rows, p0, p1, K, kpad, N, x, w, bias, y);
  }
}

// bf16 panels hold pairs of rows: [kpad / 2][nb][2], so 16 columns of a
// pair are 16 32-bit lanes, row 2i in the low half of each and row 2i + 1
// in the high half; shifted or masked, each half is that row's fp32 value.
typedef uint32_t Pairs __attribute__((vector_size(NR * 4), aligned(4)));

inline float widen(const BHalf &v) {
  uint32_t u = uint32_t(v.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Panels [p0, p1) of R rows of bf16 and panels C vectors wide: sums in
// fp32 over the whole of k, plus the bias and the residual, rounded to bf16
// once.
template <int64_t R, int64_t C>
inline __attribute__((always_inline)) void
panelsBF16(int64_t p0, int64_t p1, int64_t K, int64_t kpad, int64_t N,
           const BHalf *x, const BHalf *w, const BHalf *bias,
           const BHalf *residual, BHalf *y) {
  constexpr int64_t NB = C * NR;
  float out[NB];
  for (int64_t p = p0; p < p1; ++p) {
    const BHalf *panel = w + p * kpad * NB;
    Vec acc[R][C] = {};
    for (int64_t k = 0; k < K; k += 2) {
      const Pairs *row = reinterpret_cast<const Pairs *>(panel + k * NB);
      Vec even[C], odd[C];
      for (int64_t c = 0; c < C; ++c) {
        even[c] = reinterpret_cast<Vec>(row[c] << 16);
        odd[c] = reinterpret_cast<Vec>(row[c] & 0xffff0000u);
      }
      for (int64_t m = 0; m < R; ++m) {
        const float x0 = widen(x[m * K + k]);
        const float x1 = k + 1 < K ? widen(x[m * K + k + 1]) : 0.0f;
        for (int64_t c = 0; c < C; ++c)
          acc[m][c] += x0 * even[c] + x1 * odd[c];
      }
    }
    const int64_t n0 = p * NB, cols = std::min(NB, N - n0);
    for (int64_t m = 0; m < R; ++m) {
      for (int64_t j = 0; j < cols; ++j)
        out[j] = acc[m][j / NR][j % NR] + (bias ? widen(bias[n0 + j]) : 0.0f) +
                 (residual ? widen(residual[m * N + n0 + j]) : 0.0f);
      for (int64_t j = 0; j < cols; ++j)
        y[m * N + n0 + j].bits = sc_f2bf(out[j]);
    }
  }
}

template <int64_t C>
inline __attribute__((always_inline)) void
byRowsBF16(int64_t rows, int64_t p0, int64_t p1, int64_t K, int64_t kpad,
           int64_t N, const BHalf *x, const BHalf *w, const BHalf *bias,
           const BHalf *residual, BHalf *y) {
  switch (rows) {
  case 1:
    return panelsBF16<1, C>(p0, p1, K, kpad, N, x, w, bias, residual, y);
  case 2:
    return panelsBF16<2, C>(p0, p1, K, kpad, N, x, w, bias, residual, y);
  case 3:
    return panelsBF16<3, C>(p0, p1, K, kpad, N, x, w, bias, residual, y);
  default:
    return panelsBF16<4, C>(p0, p1, K, kpad, N, x, w, bias, residual, y);
  }
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
panelRangeBF16(int64_t rows, int64_t p0, int64_t p1, int64_t K, int64_t kpad,
               int64_t N, int64_t nb, const BHalf *x, const BHalf *w,
               const BHalf *bias, const BHalf *residual, BHalf *y) {
  switch (nb / NR) {
  case 1:
    return byRowsBF16<1>(rows, p0, p1, K, kpad, N, x, w, bias, residual, y);
  case 2:
    return byRowsBF16<2>(rows, p0, p1, K, kpad, N, x, w, bias, residual, y);
  case 3:
    return byRowsBF16<3>(rows, p0, p1, K, kpad, N, x, w, bias, residual, y);
  default:
    return byRowsBF16<4>(rows, p0, p1, K, kpad, N, x, w, bias, residual, y);
  }
}

// Runs `range(p0, p1)` over the panels of N columns, claimed by the team
// about eight times per thread, each claim a run of consecutive panels
// (Dnnl.cpp's row blocks: a thread sharing its core takes fewer).
template <class F> void claimPanels(int64_t N, int64_t nb, const F &range) {
  const int64_t count = (N + nb - 1) / nb;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  const int64_t chunk = std::max<int64_t>(1, count / (8 * int64_t(threads)));
  const int64_t chunks = (count + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1) if (threads > 1 && chunks > 1)
  for (int64_t i = 0; i < chunks; ++i)
    range(i * chunk, std::min(count, (i + 1) * chunk));
}

} // namespace

bool gemvPanelWidth(int64_t nb) { return nb > 0 && nb % NR == 0 && nb <= 64; }

void gemvPanelsF32(int64_t rows, int64_t K, int64_t kpad, int64_t N, int64_t nb,
                   const float *x, const float *w, const float *bias,
                   float *y) {
  claimPanels(N, nb, [&](int64_t p0, int64_t p1) {
    panelRange(rows, p0, p1, K, kpad, N, nb, x, w, bias, y);
  });
}

void gemvPanelsBF16(int64_t rows, int64_t K, int64_t kpad, int64_t N,
                    int64_t nb, const BHalf *x, const BHalf *w,
                    const BHalf *bias, const BHalf *residual, BHalf *y) {
  claimPanels(N, nb, [&](int64_t p0, int64_t p1) {
    panelRangeBF16(rows, p0, p1, K, kpad, N, nb, x, w, bias, residual, y);
  });
}

} // namespace shardc::rt::cpu
