//===- VecMath.h - vectorized row maxima and exponentials -------*- C++ -*-===//
//
// The fp32 row kernels attention and softmax share: the maximum of a row
// (ignoring NaN) and e^(x - m) in place with the row's sum, on GCC vector
// types, and the bf16 rows' conversions to and from fp32, cloned for AVX-512
// and AVX2 (VecMath.cpp; the runtime is built for the baseline ISA).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CPU_VECMATH_H
#define SHARDC_RUNTIME_CPU_VECMATH_H

#include "Common.h"

#include <cstdint>
#include <limits>

namespace shardc::rt::cpu {

// The maximum of p[0, n), ignoring NaN (-inf when there is none): eight
// partial maxima, so it vectorizes; the order does not matter when NaN is
// always ignored.
template <class Acc>
inline __attribute__((always_inline)) Acc rowMaxImpl(const Acc *p, int64_t n) {
  Acc m[8];
  for (int i = 0; i < 8; ++i)
    m[i] = -std::numeric_limits<Acc>::infinity();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int i = 0; i < 8; ++i)
      m[i] = p[j + i] > m[i] ? p[j + i] : m[i];
  for (; j < n; ++j)
    m[0] = p[j] > m[0] ? p[j] : m[0];
  for (int i = 1; i < 8; ++i)
    m[0] = m[i] > m[0] ? m[i] : m[0];
  return m[0];
}

/// max of p[0, n), NaN ignored (-inf when there is none).
float rowMaxF32(const float *p, int64_t n);
/// p[j] = e^(p[j] - m) for j < n (m >= every p[j]; within 1e-7 relative,
/// NaN stays NaN); returns their sum (eight float lanes).
float expSumF32(float *p, int64_t n, float m);

/// d[0, n) = s[0, n) widened from bf16 (exact).
void widenBF16(const BHalf *s, float *d, int64_t n);
/// d[0, n) = s[0, n) rounded to bf16 (nearest even; NaN stays NaN).
void narrowBF16(const float *s, BHalf *d, int64_t n);

} // namespace shardc::rt::cpu

#endif // SHARDC_RUNTIME_CPU_VECMATH_H
