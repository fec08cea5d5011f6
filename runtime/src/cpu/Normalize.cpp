//===- Normalize.cpp - Softmax, LogSoftmax, LayerNormalization ------------===//
//
// Softmax subtracts the maximum along the axis before exponentiating
// (numerically stable; fp32 along the last axis through VecMath.h's row
// kernels, the sum in float); LayerNormalization accumulates mean and
// variance in double (two passes: the mean, then the squared deviations
// from it). For fp32 the rows are summed in eight double lanes, vectorized
// and cloned for AVX-512 and AVX2 (the runtime is built for the baseline
// ISA), which only reorders the double sums.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "VecMath.h"

#include <algorithm>
#include <type_traits>
#include <limits>
#include <vector>

using namespace shardc::rt::cpu;

namespace {

// One (outer, inner block) tile: rows of `n` elements along the axis, at
// stride `inner`, for the inner positions [i0, i1).
template <class T>
void softmaxTile(const T *x, T *y, int64_t n, int64_t inner, int64_t i0,
                 int64_t i1, bool isLog) {
  using Acc = typename Elem<T>::Acc;
  int64_t w = i1 - i0;
  Acc mx[64];
  double sum[64];
  for (int64_t i = 0; i < w; ++i) {
    mx[i] = -std::numeric_limits<Acc>::infinity();
    sum[i] = 0;
  }
  for (int64_t a = 0; a < n; ++a) {
    const T *row = x + a * inner + i0;
    for (int64_t i = 0; i < w; ++i)
      mx[i] = std::max(mx[i], load(row[i]));
  }
  for (int64_t a = 0; a < n; ++a) {
    const T *row = x + a * inner + i0;
    for (int64_t i = 0; i < w; ++i)
      sum[i] += std::exp(load(row[i]) - mx[i]);
  }
  for (int64_t a = 0; a < n; ++a) {
    const T *row = x + a * inner + i0;
    T *out = y + a * inner + i0;
    for (int64_t i = 0; i < w; ++i) {
      Acc d = load(row[i]) - mx[i];
      out[i] = isLog ? store<T>(d - (Acc)std::log(sum[i]))
                     : store<T>((Acc)(std::exp(d) / sum[i]));
    }
  }
}

// fp32 softmax along the last axis: each row's maximum, e^(x - max) in
// place with its sum and a division (VecMath.h; the sum in float lanes).
void softmaxRowsF32(const float *x, float *y, int64_t rows, int64_t n) {
#pragma omp parallel for if (rows * n > kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * n;
    float *out = y + r * n;
    float m = rowMaxF32(in, n);
    if (out != in)
      std::copy(in, in + n, out);
    float sum = expSumF32(out, n, m);
    for (int64_t j = 0; j < n; ++j)
      out[j] = out[j] / sum;
  }
}

template <class T>
void softmaxImpl(const sc_desc *xd, const T *x, T *y, int64_t axis,
                 bool isLog) {
  int64_t outer = prodDims(xd, 0, axis), n = xd->dims[axis];
  int64_t inner = prodDims(xd, axis + 1, xd->rank);
  const int64_t block = 64;
  int64_t blocks = (inner + block - 1) / block;
  int64_t tiles = outer * blocks;
  if (n == 0 || tiles == 0)
    return;
  if constexpr (std::is_same_v<T, float>)
    if (inner == 1 && !isLog)
      return softmaxRowsF32(x, y, outer, n);
#pragma omp parallel for if (outer * n * inner > kParallelGrain)
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t o = t / blocks, b = t % blocks;
    int64_t i0 = b * block, i1 = std::min(inner, i0 + block);
    softmaxTile(x + o * n * inner, y + o * n * inner, n, inner, i0, i1, isLog);
  }
}

template <class T>
void layerNormImpl(const T *x, const T *scale, const T *bias, T *y, float *mean,
                   float *invStd, int64_t outer, int64_t n, float eps) {
#pragma omp parallel for if (outer * n > kParallelGrain)
  for (int64_t o = 0; o < outer; ++o) {
    const T *row = x + o * n;
    T *out = y + o * n;
    double s = 0;
    for (int64_t i = 0; i < n; ++i)
      s += (double)load(row[i]);
    double m = n ? s / (double)n : 0.0;
    double v = 0;
    for (int64_t i = 0; i < n; ++i) {
      double d = (double)load(row[i]) - m;
      v += d * d;
    }
    v = n ? v / (double)n : 0.0;
    double inv = 1.0 / std::sqrt(v + (double)eps);
    for (int64_t i = 0; i < n; ++i) {
      double r = ((double)load(row[i]) - m) * inv;
      if (scale)
        r *= (double)load(scale[i]);
      if (bias)
        r += (double)load(bias[i]);
      out[i] = store<T>((typename Elem<T>::Acc)r);
    }
    if (mean)
      mean[o] = (float)m;
    if (invStd)
      invStd[o] = (float)inv;
  }
}

typedef float V8f __attribute__((vector_size(32), aligned(4)));
typedef double V8d __attribute__((vector_size(64), aligned(8)));

inline __attribute__((always_inline)) double hsum(const V8d &v) {
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

// Rows [o0, o1) of fp32 layer normalization.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) void
layerNormRowsF32(const float *x, const float *scale, const float *bias,
                 float *y, float *mean, float *invStd, int64_t o0, int64_t o1,
                 int64_t n, float eps) {
  for (int64_t o = o0; o < o1; ++o) {
    const float *row = x + o * n;
    float *out = y + o * n;
    V8d acc = {};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
      acc += __builtin_convertvector(*(const V8f *)(row + j), V8d);
    double s = hsum(acc);
    for (; j < n; ++j)
      s += (double)row[j];
    double m = n ? s / (double)n : 0.0;
    acc = V8d{};
    for (j = 0; j + 8 <= n; j += 8) {
      V8d d = __builtin_convertvector(*(const V8f *)(row + j), V8d) - m;
      acc += d * d;
    }
    double v = hsum(acc);
    for (; j < n; ++j) {
      double d = (double)row[j] - m;
      v += d * d;
    }
    v = n ? v / (double)n : 0.0;
    double inv = 1.0 / std::sqrt(v + (double)eps);
    for (j = 0; j + 8 <= n; j += 8) {
      V8d r = (__builtin_convertvector(*(const V8f *)(row + j), V8d) - m) * inv;
      if (scale)
        r *= __builtin_convertvector(*(const V8f *)(scale + j), V8d);
      if (bias)
        r += __builtin_convertvector(*(const V8f *)(bias + j), V8d);
      *(V8f *)(out + j) = __builtin_convertvector(r, V8f);
    }
    for (; j < n; ++j) {
      double r = ((double)row[j] - m) * inv;
      if (scale)
        r *= (double)scale[j];
      if (bias)
        r += (double)bias[j];
      out[j] = (float)r;
    }
    if (mean)
      mean[o] = (float)m;
    if (invStd)
      invStd[o] = (float)inv;
  }
}

void layerNormF32(const float *x, const float *scale, const float *bias,
                  float *y, float *mean, float *invStd, int64_t outer,
                  int64_t n, float eps) {
  // Blocks of rows, one OpenMP loop over them.
  const int64_t rows = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, n));
  const int64_t blocks = (outer + rows - 1) / rows;
#pragma omp parallel for if (outer * n > kParallelGrain)
  for (int64_t b = 0; b < blocks; ++b)
    layerNormRowsF32(x, scale, bias, y, mean, invStd, b * rows,
                     std::min(outer, (b + 1) * rows), n, eps);
}

// bf16 rows: widened to fp32 a block of rows at a time, normalized by the
// fp32 rows' kernel, narrowed back. The same arithmetic as the generic form
// (double statistics, the result rounded to float then to bf16), on vectors.
void layerNormBF16(const BHalf *x, const BHalf *scale, const BHalf *bias,
                   BHalf *y, float *mean, float *invStd, int64_t outer,
                   int64_t n, float eps) {
  std::vector<float> sc(scale ? n : 0), bi(bias ? n : 0);
  if (scale)
    widenBF16(scale, sc.data(), n);
  if (bias)
    widenBF16(bias, bi.data(), n);
  const int64_t rows = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, n));
  const int64_t blocks = (outer + rows - 1) / rows;
#pragma omp parallel if (outer * n > kParallelGrain)
  {
    std::vector<float> in(rows * n), out(rows * n);
#pragma omp for
    for (int64_t b = 0; b < blocks; ++b) {
      int64_t o0 = b * rows, cnt = std::min(outer, o0 + rows) - o0;
      widenBF16(x + o0 * n, in.data(), cnt * n);
      layerNormRowsF32(in.data(), scale ? sc.data() : nullptr,
                       bias ? bi.data() : nullptr, out.data(),
                       mean ? mean + o0 : nullptr,
                       invStd ? invStd + o0 : nullptr, 0, cnt, n, eps);
      narrowBF16(out.data(), y + o0 * n, cnt * n);
    }
  }
}

} // namespace

extern "C" void sc_softmax(const sc_desc *x, const void *xp, void *y,
                           int64_t axis, int32_t is_log) {
  axis = normAxis(axis, x->rank);
  if (x->rank == 0) {
    // A scalar is its own single-element axis.
    sc_desc one = *x;
    one.rank = 1;
    one.dims[0] = 1;
    sc_softmax(&one, xp, y, 0, is_log);
    return;
  }
  if (axis < 0 || axis >= x->rank) {
    sc_fail("Softmax: axis %lld out of range for rank %d", (long long)axis,
            x->rank);
    return;
  }
  if (!dispatchFloat(x->dtype, [&](auto t) {
        using T = decltype(t);
        softmaxImpl(x, static_cast<const T *>(xp), static_cast<T *>(y), axis,
                    is_log != 0);
      }))
    sc_fail("Softmax: unsupported dtype %s", dtypeName(x->dtype));
}

extern "C" void sc_layer_norm(const sc_desc *x, const void *xp,
                              const void *scale, const void *bias, void *y,
                              float *mean, float *inv_std, int64_t axis,
                              float epsilon) {
  axis = normAxis(axis, x->rank);
  if (axis < 0 || axis > x->rank) {
    sc_fail("LayerNormalization: axis %lld out of range for rank %d",
            (long long)axis, x->rank);
    return;
  }
  int64_t outer = prodDims(x, 0, axis), n = prodDims(x, axis, x->rank);
  if (x->dtype == kF32) {
    layerNormF32(static_cast<const float *>(xp),
                 static_cast<const float *>(scale),
                 static_cast<const float *>(bias), static_cast<float *>(y),
                 mean, inv_std, outer, n, epsilon);
    return;
  }
  if (x->dtype == kBF16) {
    layerNormBF16(static_cast<const BHalf *>(xp),
                  static_cast<const BHalf *>(scale),
                  static_cast<const BHalf *>(bias), static_cast<BHalf *>(y),
                  mean, inv_std, outer, n, epsilon);
    return;
  }
  if (!dispatchFloat(x->dtype, [&](auto t) {
        using T = decltype(t);
        layerNormImpl(static_cast<const T *>(xp), static_cast<const T *>(scale),
                      static_cast<const T *>(bias), static_cast<T *>(y), mean,
                      inv_std, outer, n, epsilon);
      }))
    sc_fail("LayerNormalization: unsupported dtype %s", dtypeName(x->dtype));
}
