//===- Gemv.cpp - products of a few rows over packed weights --------------===//
//
// A panel of the packed weights is [kpad, nb] row-major, contiguous, and
// the panels follow each other: a thread streams its panels in address
// order, keeping the rows x nb sums of one panel in vector registers (NR =
// 16 lanes) over the whole of k. Cloned for AVX-512 and AVX2 (the runtime
// is built for the baseline ISA).
//
//===----------------------------------------------------------------------===//
#include "Gemv.h"

#include <algorithm>

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

} // namespace

bool gemvPanelWidth(int64_t nb) { return nb > 0 && nb % NR == 0 && nb <= 64; }

void gemvPanelsF32(int64_t rows, int64_t K, int64_t kpad, int64_t N, int64_t nb,
                   const float *x, const float *w, const float *bias,
                   float *y) {
  const int64_t count = (N + nb - 1) / nb;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  // About eight claims per thread, each a run of consecutive panels
  // (Dnnl.cpp's row blocks: a thread sharing its core takes fewer).
  const int64_t chunk = std::max<int64_t>(1, count / (8 * int64_t(threads)));
  const int64_t chunks = (count + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1) if (threads > 1 && chunks > 1)
  for (int64_t i = 0; i < chunks; ++i)
    panelRange(rows, i * chunk, std::min(count, (i + 1) * chunk), K, kpad, N,
               nb, x, w, bias, y);
}

} // namespace shardc::rt::cpu
