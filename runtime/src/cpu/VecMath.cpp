//===- VecMath.cpp - vectorized row maxima and exponentials ---------------===//
#include "VecMath.h"

namespace shardc::rt::cpu {

namespace {
// out = e^x for x <= 0 or NaN, within 1e-7 relative (Cephes' polynomial
// on [-ln2/2, ln2/2] times 2^n), elementwise on a GCC vector of floats;
// below -88 it flushes to 0, -inf gives 0, NaN stays NaN. Written on vector
// types because GCC does not if-convert the scalar form's NaN tests.
// Rows are only 4-byte aligned: V8f and V16f read and write them; values
// live in the naturally aligned N8f and N16f (a template deduces those: an
// aligned attribute does not survive deduction, so a reference to a V16f
// local would claim 64-byte alignment it does not have).
typedef float V8f __attribute__((vector_size(32), aligned(4)));
typedef float V16f __attribute__((vector_size(64), aligned(4)));
typedef float N8f __attribute__((vector_size(32)));
typedef float N16f __attribute__((vector_size(64)));
template <class F> struct IntOf;
template <> struct IntOf<N8f> {
  typedef int32_t type __attribute__((vector_size(32)));
};
template <> struct IntOf<N16f> {
  typedef int32_t type __attribute__((vector_size(64)));
};
template <class VF>
inline __attribute__((always_inline)) void expNonPositive(const VF &x,
                                                          VF &out) {
  using VI = typename IntOf<VF>::type;
  const VF zero = {}, one = zero + 1.0f;
  VF xc = x < -88.0f ? zero - 88.0f : x;
  xc = xc > 0.0f ? zero : xc;
  xc = x != x ? zero - 88.0f : xc;
  // The nearest integer to xc / ln2, in [-127, 0] (conversion truncates).
  VI ni = __builtin_convertvector(xc * 1.44269504088896341f - 0.5f, VI);
  VF n = __builtin_convertvector(ni, VF);
  VF r = xc - n * 0.693359375f + n * 2.12194440e-4f;
  VF z = r * r;
  VF y =
      ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r +
        4.1665795894e-2f) *
           r +
       1.6666665459e-1f) *
          r +
      5.0000001201e-1f;
  y = y * z + r + one;
  VF scale = (VF)((ni + 127) << 23); // 2^n
  out = x != x ? x : y * scale;
}
} // namespace

// p[j] = e^(p[j] - m) for j < n; returns their sum. Sixteen lanes (one
// AVX-512 register, two AVX2 ones), the sum in eight partial sums.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) float
expSumF32(float *p, int64_t n, float m) {
  N16f acc = {};
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    N16f x = *(const V16f *)(p + j) - m, e;
    expNonPositive(x, e);
    *(V16f *)(p + j) = e;
    acc += e;
  }
  N8f half = {acc[0] + acc[8],  acc[1] + acc[9],  acc[2] + acc[10],
              acc[3] + acc[11], acc[4] + acc[12], acc[5] + acc[13],
              acc[6] + acc[14], acc[7] + acc[15]};
  for (; j + 8 <= n; j += 8) {
    N8f x = *(const V8f *)(p + j) - m, e;
    expNonPositive(x, e);
    *(V8f *)(p + j) = e;
    half += e;
  }
  float s = ((half[0] + half[1]) + (half[2] + half[3])) +
            ((half[4] + half[5]) + (half[6] + half[7]));
  for (; j < n; ++j) {
    N8f x = {p[j] - m}, e;
    expNonPositive(x, e);
    p[j] = e[0];
    s += e[0];
  }
  return s;
}
// On vector types, like expSumF32: GCC leaves rowMaxImpl's eight scalar
// selects scalar (vmaxss; under trapping math an ordered compare may trap,
// so it does not if-convert them), which made the attention's row maxima
// 7% of an int8 MiniLM run. `x > m ? x : m` keeps m when x is NaN, as
// rowMaxImpl does (and as MAXPS computes it).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) float
rowMaxF32(const float *p, int64_t n) {
  const float lowest = -std::numeric_limits<float>::infinity();
  N8f m = {lowest, lowest, lowest, lowest, lowest, lowest, lowest, lowest};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    N8f x = *(const V8f *)(p + j);
    m = x > m ? x : m;
  }
  float r = lowest;
  for (int i = 0; i < 8; ++i)
    r = m[i] > r ? m[i] : r;
  for (; j < n; ++j)
    r = p[j] > r ? p[j] : r;
  return r;
}

// The bf16 conversions of sc_bf2f and sc_f2bf (cpu.h) on whole rows: the
// scalar forms inline into loops GCC vectorizes for the clone's ISA.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
widenBF16(const BHalf *s, float *d, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    d[j] = sc_bf2f(s[j].bits);
}
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
narrowBF16(const float *s, BHalf *d, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    d[j].bits = sc_f2bf(s[j]);
}

} // namespace shardc::rt::cpu
