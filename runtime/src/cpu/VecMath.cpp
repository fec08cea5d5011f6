//===- VecMath.cpp - vectorized row maxima and exponentials ---------------===//
#include "VecMath.h"

namespace shardc::rt::cpu {

namespace {
// out = e^x for x <= 0 or NaN, within 1e-7 relative (Cephes' polynomial
// on [-ln2/2, ln2/2] times 2^n), elementwise on a GCC vector of floats;
// below -88 it flushes to 0, -inf gives 0, NaN stays NaN. Written on vector
// types because GCC does not if-convert the scalar form's NaN tests.
typedef float V8f __attribute__((vector_size(32), aligned(4)));
typedef int32_t V8i __attribute__((vector_size(32), aligned(4)));
inline __attribute__((always_inline)) void expNonPositive(const V8f &x,
                                                          V8f &out) {
  const V8f zero = {}, one = zero + 1.0f;
  V8f xc = x < -88.0f ? zero - 88.0f : x;
  xc = xc > 0.0f ? zero : xc;
  xc = x != x ? zero - 88.0f : xc;
  // The nearest integer to xc / ln2, in [-127, 0] (conversion truncates).
  V8i ni = __builtin_convertvector(xc * 1.44269504088896341f - 0.5f, V8i);
  V8f n = __builtin_convertvector(ni, V8f);
  V8f r = xc - n * 0.693359375f + n * 2.12194440e-4f;
  V8f z = r * r;
  V8f y = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r +
             8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
           1.6666665459e-1f) * r + 5.0000001201e-1f;
  y = y * z + r + one;
  V8f scale = (V8f)((ni + 127) << 23); // 2^n
  out = x != x ? x : y * scale;
}
} // namespace

// p[j] = e^(p[j] - m) for j < n; returns their sum.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) float
expSumF32(float *p, int64_t n, float m) {
  V8f acc = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    V8f x = *(const V8f *)(p + j) - m, e;
    expNonPositive(x, e);
    *(V8f *)(p + j) = e;
    acc += e;
  }
  float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) +
            ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; j < n; ++j) {
    V8f x = {p[j] - m}, e;
    expNonPositive(x, e);
    p[j] = e[0];
    s += e[0];
  }
  return s;
}
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) float
rowMaxF32(const float *p, int64_t n) {
  return rowMaxImpl(p, n);
}

} // namespace shardc::rt::cpu
