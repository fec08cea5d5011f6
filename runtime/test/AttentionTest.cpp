//===- AttentionTest.cpp - sc_attention against a naive reference ---------===//
//
// The reference materializes the scores in double and runs Softmax as ONNX
// defines it; the kernel tiles keys with an online softmax. Cases: plain,
// causal (square, S < T, S > T with rows that see nothing), additive masks
// broadcast through zero strides, q/k/v as views of a packed QKV buffer with
// y written in [B, S, H, E] order, several key and query blocks, 0 to 3
// batch dims, fp16 and bf16 (bf16 at sizes that take oneDNN's bf16 matmuls),
// and fewer query rows than a tile (a decode step's row path).
//
//===----------------------------------------------------------------------===//
#include "shardc/cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

constexpr int32_t kF32 = 1, kF16 = 10, kBF16 = 16;

/// A strided operand over a float vector: [offset, batch strides..., row,
/// column].
struct View {
  std::vector<int64_t> layout;
};

/// Row-major layout of [batch..., rows, cols] starting at `offset`.
std::vector<int64_t> dense(const std::vector<int64_t> &batch, int64_t rows,
                           int64_t cols, int64_t offset = 0) {
  std::vector<int64_t> l(batch.size() + 3);
  l[0] = offset;
  int64_t s = 1;
  l[batch.size() + 2] = 1;
  s = cols;
  l[batch.size() + 1] = s;
  s *= rows;
  for (int i = (int)batch.size() - 1; i >= 0; --i) {
    l[1 + i] = s;
    s *= batch[i];
  }
  return l;
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t n = 1;
  for (int64_t x : v)
    n *= x;
  return n;
}

/// Offset of batch index `b` (flat, row-major over `batch`) in `layout`.
int64_t batchOffset(const std::vector<int64_t> &batch,
                    const std::vector<int64_t> &layout, int64_t b) {
  int64_t off = layout[0];
  for (int i = (int)batch.size() - 1; i >= 0; --i) {
    off += (b % batch[i]) * layout[1 + i];
    b /= batch[i];
  }
  return off;
}

struct Problem {
  std::vector<int64_t> batch;
  int64_t S, T, D, E;
  float scale = 0.25f;
  bool causal = false;
  std::vector<float> q, k, v, mask, y; // storage the layouts index
  std::vector<int64_t> ql, kl, vl, ml, yl;
  bool hasMask = false;

  std::vector<int64_t> dims() const {
    std::vector<int64_t> d = batch;
    d.insert(d.end(), {S, T, D, E});
    return d;
  }
  int64_t nb() const { return (int64_t)batch.size(); }
  float at(const std::vector<float> &x, const std::vector<int64_t> &l,
           int64_t b, int64_t r, int64_t c) const {
    return x[batchOffset(batch, l, b) + r * l[nb() + 1] + c * l[nb() + 2]];
  }

  /// y as [batch, S, E] dense, read through its layout.
  std::vector<double> output() const {
    std::vector<double> out;
    for (int64_t b = 0; b < product(batch); ++b)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t e = 0; e < E; ++e)
          out.push_back(at(y, yl, b, s, e));
    return out;
  }

  /// The reference output, [batch, S, E] dense.
  std::vector<double> reference() const {
    int64_t B = product(batch);
    std::vector<double> out(B * S * E);
    std::vector<double> sc(T);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s) {
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t t = 0; t < T; ++t) {
          double d = 0;
          for (int64_t i = 0; i < D; ++i)
            d += (double)at(q, ql, b, s, i) * at(k, kl, b, t, i);
          d *= scale;
          if (hasMask)
            d += at(mask, ml, b, s, t);
          if (causal && t > s + T - S)
            d = -std::numeric_limits<double>::infinity();
          sc[t] = d;
          mx = std::max(mx, d);
        }
        double sum = 0;
        for (int64_t t = 0; t < T; ++t)
          sum += sc[t] = std::exp(sc[t] - mx); // NaN when mx is -inf
        for (int64_t e = 0; e < E; ++e) {
          double a = 0;
          for (int64_t t = 0; t < T; ++t)
            a += sc[t] / sum * at(v, vl, b, t, e);
          out[(b * S + s) * E + e] = T ? a : 0.0;
        }
      }
    return out;
  }
};

std::vector<float> random(size_t n, unsigned seed, float lo = -1, float hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

/// Dense q, k, v (and y) for `p`'s dims.
void denseOperands(Problem &p, unsigned seed) {
  int64_t B = product(p.batch);
  p.q = random(B * p.S * p.D, seed);
  p.k = random(B * p.T * p.D, seed + 1);
  p.v = random(B * p.T * p.E, seed + 2);
  p.ql = dense(p.batch, p.S, p.D);
  p.kl = dense(p.batch, p.T, p.D);
  p.vl = dense(p.batch, p.T, p.E);
  p.y.assign(B * p.S * p.E, NAN);
  p.yl = dense(p.batch, p.S, p.E);
}

/// Runs the kernel in f32 and returns y as [batch, S, E] dense.
std::vector<double> runF32(Problem &p) {
  std::vector<int64_t> dims = p.dims();
  sc_attention(kF32, (int32_t)p.nb(), dims.data(), p.q.data(), p.ql.data(),
               p.k.data(), p.kl.data(), p.v.data(), p.vl.data(),
               p.hasMask ? p.mask.data() : nullptr,
               p.hasMask ? p.ml.data() : nullptr, p.y.data(), p.yl.data(),
               p.scale, p.causal);
  return p.output();
}

void expectClose(const std::vector<double> &got,
                 const std::vector<double> &want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << "at " << i << ": " << got[i];
      continue;
    }
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
  }
}

TEST(Attention, Plain) {
  Problem p{{2, 3}, 5, 7, 8, 6};
  denseOperands(p, 1);
  expectClose(runF32(p), p.reference(), 1e-5);
}

TEST(Attention, ManyBlocksAndBatchRanks) {
  // 150 queries and 200 keys cross several query and key blocks.
  for (std::vector<int64_t> batch :
       {std::vector<int64_t>{}, {3}, {2, 1, 2}}) {
    Problem p{batch, 150, 200, 16, 24};
    p.scale = 0.125f;
    denseOperands(p, 2);
    expectClose(runF32(p), p.reference(), 1e-5);
  }
}

TEST(Attention, Causal) {
  // Square, S < T (the queries are the last S positions) and S > T (the
  // first S - T queries see no key: NaN, as Softmax of a row of -inf).
  for (auto [S, T] : {std::pair<int64_t, int64_t>{70, 70}, {5, 130}, {9, 4}}) {
    Problem p{{2, 2}, S, T, 8, 8};
    p.causal = true;
    denseOperands(p, 3);
    std::vector<double> want = p.reference();
    expectClose(runF32(p), want, 1e-5);
    if (S > T) {
      EXPECT_TRUE(std::isnan(want[0]));
    }
  }
}

TEST(Attention, BroadcastMask) {
  // A [B, 1, S, T] additive mask (zero head stride) with -inf entries and
  // one fully masked row (NaN), on top of causal.
  Problem p{{2, 3}, 6, 70, 4, 5};
  denseOperands(p, 4);
  p.hasMask = true;
  p.mask = random(2 * 6 * 70, 5, -2, 2);
  for (size_t i = 0; i < p.mask.size(); i += 7)
    p.mask[i] = -INFINITY;
  for (int64_t t = 0; t < 70; ++t)
    p.mask[(1 * 6 + 2) * 70 + t] = -INFINITY; // batch 1, row 2
  p.ml = {0, 6 * 70, 0, 70, 1};
  std::vector<double> want = p.reference();
  expectClose(runF32(p), want, 1e-5);
  p.causal = true;
  std::fill(p.y.begin(), p.y.end(), NAN);
  expectClose(runF32(p), p.reference(), 1e-5);
  // A [T] mask row broadcast over everything else.
  p.causal = false;
  p.ml = {0, 0, 0, 0, 1};
  expectClose(runF32(p), p.reference(), 1e-5);
}

TEST(Attention, PackedQkvAndTransposedOutput) {
  // GPT-2's layout: one [B, S, 3 * H * Dh] buffer (q, k, v side by side,
  // each [B, S, H, Dh]), read as [B, H, S, Dh] views; y written as
  // [B, S, H, Dh] (the transpose back and the reshape to [B, S, H * Dh]).
  const int64_t B = 2, H = 4, S = 33, Dh = 16, W = 3 * H * Dh;
  Problem p{{B, H}, S, S, Dh, Dh};
  p.causal = true;
  p.q = random(B * S * W, 6);
  p.k = p.q;
  p.v = p.q;
  p.ql = {0, S * W, Dh, W, 1};
  p.kl = {H * Dh, S * W, Dh, W, 1};
  p.vl = {2 * H * Dh, S * W, Dh, W, 1};
  p.y.assign(B * S * H * Dh, NAN);
  p.yl = {0, S * H * Dh, Dh, H * Dh, 1};
  std::vector<double> want = p.reference();
  // One buffer for all three, as the compiled program passes it.
  std::vector<int64_t> dims = p.dims();
  sc_attention(kF32, 2, dims.data(), p.q.data(), p.ql.data(), p.q.data(),
               p.kl.data(), p.q.data(), p.vl.data(), nullptr, nullptr,
               p.y.data(), p.yl.data(), p.scale, 1);
  expectClose(p.output(), want, 1e-5);
  // Column strides other than 1 (k read through a transpose of [.., D, T]).
  Problem r{{3}, 10, 12, 6, 5};
  denseOperands(r, 7);
  r.kl = {0, 12 * 6, 1, 12}; // k stored as [3, D, T]
  expectClose(runF32(r), r.reference(), 1e-5);
}

uint16_t toHalf(float f, int32_t dtype) {
  return dtype == kF16 ? sc_f2h(f) : sc_f2bf(f);
}
float fromHalf(uint16_t h, int32_t dtype) {
  return dtype == kF16 ? sc_h2f(h) : sc_bf2f(h);
}

/// Runs `p` (fp32 operands, mask optional) in `dtype` after rounding its
/// operands to that type (the reference then sees what the kernel sees);
/// returns y widened, [batch, S, E] in y's layout order.
std::vector<double> runHalf(Problem &p, int32_t dtype) {
  auto narrow = [&](std::vector<float> &x) {
    std::vector<uint16_t> h(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      h[i] = toHalf(x[i], dtype);
      x[i] = fromHalf(h[i], dtype);
    }
    return h;
  };
  std::vector<uint16_t> q = narrow(p.q), k = narrow(p.k), v = narrow(p.v),
                        m = narrow(p.mask);
  std::vector<uint16_t> y(p.y.size(), toHalf(NAN, dtype));
  std::vector<int64_t> dims = p.dims();
  sc_attention(dtype, (int32_t)p.nb(), dims.data(), q.data(), p.ql.data(),
               k.data(), p.kl.data(), v.data(), p.vl.data(),
               p.hasMask ? m.data() : nullptr,
               p.hasMask ? p.ml.data() : nullptr, y.data(), p.yl.data(),
               p.scale, p.causal);
  for (size_t i = 0; i < y.size(); ++i)
    p.y[i] = fromHalf(y[i], dtype);
  return p.output();
}

TEST(Attention, HalfTypes) {
  for (int32_t dtype : {kF16, kBF16}) {
    Problem p{{2, 2}, 20, 90, 8, 12};
    p.causal = true;
    denseOperands(p, 8);
    p.hasMask = true;
    p.mask = random(20 * 90, 9, -1, 1);
    p.ml = {0, 0, 0, 90, 1};
    std::vector<double> got = runHalf(p, dtype);
    expectClose(got, p.reference(), dtype == kF16 ? 2e-3 : 1e-2);
  }
}

/// The large strided problem of the oneDNN paths (AttentionDnnl.cpp where
/// the CPU has bf16 matmuls; the fp32 tiles elsewhere): 600 keys cross its
/// 512-key blocks (the online rescaling), 150 queries leave a partial query
/// block; S < T, an additive [B, 1, S, T] mask with -inf every
/// `infEvery`-th score, and q, k and v as views of a packed [B, T, 3 H D]
/// buffer (the queries are the last S positions) with y written
/// [B, S, H, E].
Problem packedProblem(bool causal, unsigned seed, size_t infEvery) {
  const int64_t B = 2, H = 3, S = 150, T = 600, D = 32, E = 32;
  const int64_t W = 3 * H * D; // one row of the packed buffer
  Problem p{{B, H}, S, T, D, E};
  p.scale = 0.18f;
  p.causal = causal;
  std::vector<float> packed = random(B * T * W, seed, -2, 2);
  p.q = p.k = p.v = packed;
  p.ql = {(T - S) * W, T * W, D, W, 1};
  p.kl = {H * D, T * W, D, W, 1};
  p.vl = {2 * H * D, T * W, D, W, 1};
  p.hasMask = true;
  p.mask = random(B * S * T, seed + 1, -3, 0);
  for (size_t i = 0; i < p.mask.size(); i += infEvery)
    p.mask[i] = -INFINITY;
  p.ml = {0, S * T, 0, T, 1};
  p.y.assign(B * S * H * E, NAN);
  p.yl = {0, S * H * E, E, H * E, 1};
  return p;
}

TEST(Attention, HalfTypesLarge) {
  // bf16 and f16 operands: the weights are rounded to bf16 before the
  // product with the values, so the tolerance is bf16's.
  for (int32_t dtype : {kF16, kBF16})
    for (bool causal : {false, true}) {
      Problem p = packedProblem(causal, 11, 5);
      std::vector<double> got = runHalf(p, dtype);
      expectClose(got, p.reference(), dtype == kF16 ? 2e-3 : 1.5e-2);
    }
}

TEST(Attention, F32ByBF16Products) {
  // f32 operands with SC_ATTENTION_BF16_PRODUCTS (an int8 program's
  // attention): where the CPU has bf16 matmuls they take AttentionDnnl's
  // path, rounded to bf16 as they are staged, so the error is bf16's;
  // elsewhere the fp32 tiles run. y is stored in f32.
  for (bool causal : {false, true}) {
    Problem p = packedProblem(causal, 21, 7);
    std::vector<int64_t> dims = p.dims();
    sc_attention(kF32, (int32_t)p.nb(), dims.data(), p.q.data(), p.ql.data(),
                 p.k.data(), p.kl.data(), p.v.data(), p.vl.data(),
                 p.mask.data(), p.ml.data(), p.y.data(), p.yl.data(), p.scale,
                 (causal ? SC_ATTENTION_CAUSAL : 0) |
                     SC_ATTENTION_BF16_PRODUCTS);
    expectClose(p.output(), p.reference(), 1.5e-2);
  }
}

TEST(Attention, FewQueryRows) {
  // Fewer query rows than a register tile (a decode step: S = 1 over a
  // long cache): the row path, with contiguous fp32 rows of 64 (its vector
  // lanes) and of 8 and 6 (scalar), causal or not, a [B, 1, S, T] mask with
  // -inf entries and, at S > 1, one fully masked row (NaN); then keys read
  // through a transposed view (column stride T) and half types.
  for (int64_t S : {1, 2, 3})
    for (auto [D, E] : {std::pair<int64_t, int64_t>{64, 64}, {8, 6}})
      for (bool causal : {false, true}) {
        Problem p{{2, 3}, S, 1000, D, E};
        p.causal = causal;
        denseOperands(p, 30);
        p.hasMask = true;
        p.mask = random(2 * S * 1000, 31, -2, 2);
        for (size_t i = 0; i < p.mask.size(); i += 11)
          p.mask[i] = -INFINITY;
        if (S > 1)
          for (int64_t t = 0; t < 1000; ++t)
            p.mask[(1 * S + 1) * 1000 + t] = -INFINITY; // batch 1, row 1
        p.ml = {0, S * 1000, 0, 1000, 1};
        std::vector<double> want = p.reference();
        expectClose(runF32(p), want, 1e-5);
        if (S > 1) {
          EXPECT_TRUE(std::isnan(want[(1 * 3 * S + 1) * E]));
        }
      }
  // Causal with more queries than keys: the first row sees none (NaN).
  Problem c{{2, 3}, 3, 2, 8, 6};
  c.causal = true;
  denseOperands(c, 34);
  std::vector<double> cw = c.reference();
  EXPECT_TRUE(std::isnan(cw[0]));
  expectClose(runF32(c), cw, 1e-5);
  Problem p{{2, 3}, 1, 300, 16, 16};
  denseOperands(p, 32);
  // k stored [B, H, D, T]: key t's element d at d * T + t.
  p.kl = {0, 3 * 16 * 300, 16 * 300, 1, 300};
  expectClose(runF32(p), p.reference(), 1e-5);
  for (int32_t dtype : {kF16, kBF16}) {
    Problem h{{2, 2}, 1, 90, 64, 64};
    denseOperands(h, 33);
    expectClose(runHalf(h, dtype), h.reference(), dtype == kF16 ? 2e-3 : 1e-2);
  }
}

TEST(Attention, EmptyKeys) {
  // T = 0: the MatMul with v sums nothing.
  Problem p{{2}, 3, 0, 4, 5};
  denseOperands(p, 10);
  expectClose(runF32(p), std::vector<double>(2 * 3 * 5, 0.0), 0);
}

} // namespace
