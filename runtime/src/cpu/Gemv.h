//===- Gemv.h - products of a few rows over packed weights ------*- C++ -*-===//
//
// Private to runtime/src/cpu: the matrix-vector products of a decode step
// (one to four rows of A) over the weights oneDNN's matmul packed
// (DnnlHandle::tryPack), read straight from that layout. oneDNN's packed
// kernel streams those weights at about half the machine's read
// bandwidth when A has one row (docs/performance.md, "Decoding with a KV
// cache"); a decode step is nothing but such products.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CPU_GEMV_H
#define SHARDC_RUNTIME_CPU_GEMV_H

#include "Common.h"

#include <cstdint>

namespace shardc::rt::cpu {

/// The most rows of A the kernels take.
constexpr int64_t kGemvRows = 4;

/// Whether gemvPanelsF32 takes panels `nb` columns wide.
bool gemvPanelWidth(int64_t nb);

/// y[m, n] = sum_k x[m, k] w(k, n) + bias[n] (bias may be null) for m <
/// rows <= kGemvRows, n < N, with x [rows, K] and y [rows, N] row-major and
/// w in panels of `nb` columns: w(k, n) at (n / nb) kpad nb + k nb + n % nb
/// (oneDNN's BA16a64b for nb 64; columns past N are the padding). The
/// panels are claimed by the OpenMP team a few at a time. Each output sums
/// its products in the order of k, whatever the team.
void gemvPanelsF32(int64_t rows, int64_t K, int64_t kpad, int64_t N, int64_t nb,
                   const float *x, const float *w, const float *bias, float *y);

/// The same for bf16 x, weights, bias, residual (either may be null) and y,
/// y = x W + bias + residual summed in fp32 and rounded once, over bf16
/// panels of pairs of rows: w(k, n) at (n / nb) kpad nb + (k / 2) 2 nb +
/// (n % nb) 2 + k % 2 (oneDNN's BA16a64b2a for nb 64, kpad even).
void gemvPanelsBF16(int64_t rows, int64_t K, int64_t kpad, int64_t N,
                    int64_t nb, const BHalf *x, const BHalf *w,
                    const BHalf *bias, const BHalf *residual, BHalf *y);

} // namespace shardc::rt::cpu

#endif // SHARDC_RUNTIME_CPU_GEMV_H
