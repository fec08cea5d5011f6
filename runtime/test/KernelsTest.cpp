//===- KernelsTest.cpp - runtime CPU kernels and oneDNN wrappers ----------===//
//
// Each kernel against a naive reference written here or a hand-computed
// result. Small shapes: the whole file runs well under a second.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/KernelError.h"
#include "runtime/test/KernelTestUtil.h"
#include "shardc/cpu.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace shardc::rt::cpu {
// Dnnl.cpp, for these tests: what a sc_dnnl_matmul_dyn_create handle holds.
void dnnlMatmulDynStats(const void *h, int64_t *shapes, int64_t *packedShapes,
                        int64_t *packedCopies, int64_t *packedBytes);
// Dnnl.cpp: whether a matmul handle runs Gemv.h's kernel.
bool dnnlMatmulRunsGemv(const void *h);
} // namespace shardc::rt::cpu

namespace {

using shardc::rt::test::mk;
using shardc::rt::test::randomVec;

int64_t count(const sc_desc &d) {
  int64_t n = 1;
  for (int i = 0; i < d.rank; ++i)
    n *= d.dims[i];
  return n;
}

void expectNear(const std::vector<float> &got, const std::vector<float> &want,
                float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i])))
        << "at " << i;
}

//===----------------------------------------------------------------------===//
// oneDNN matmul
//===----------------------------------------------------------------------===//

/// `bytes` of `data` in a read-only file mapping, like the weights file
/// (tryPack drops a packed B's pages: a file mapping reads them back, an
/// anonymous one would read zeros); null when it could not be made.
struct ReadOnlyCopy {
  void *map = nullptr;
  size_t bytes = 0;
  ReadOnlyCopy(const void *data, size_t size) : bytes(size) {
    char path[] = "/tmp/shardc-dnnl-weights-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
      return;
    unlink(path);
    bool written = write(fd, data, bytes) == (ssize_t)bytes;
    void *m = written ? mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0)
                      : MAP_FAILED;
    close(fd);
    map = m == MAP_FAILED ? nullptr : m;
  }
  ~ReadOnlyCopy() {
    if (map)
      munmap(map, bytes);
  }
  ReadOnlyCopy(const ReadOnlyCopy &) = delete;
  ReadOnlyCopy &operator=(const ReadOnlyCopy &) = delete;
};

struct MatmulCase {
  std::vector<int64_t> aBatch, bBatch; // batch dims (same rank)
  int64_t M, K, N;
  bool ta, tb;
  float alpha, beta;
  std::vector<int64_t> biasDims; // empty: no bias; else full rank
  int32_t epilogue = SC_EPILOGUE_NONE;
  bool residual = false; // add a tensor of y's shape after the epilogue
};

double applyEpilogue(int32_t epilogue, double x) {
  switch (epilogue) {
  case SC_EPILOGUE_RELU:
    return x > 0 ? x : 0;
  case SC_EPILOGUE_GELU:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case SC_EPILOGUE_GELU_TANH:
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  case SC_EPILOGUE_HARDSWISH: // ONNX HardSwish: x * max(0, min(1, x/6 + 1/2))
    return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
  default:
    return x;
  }
}

void runMatmulCase(const MatmulCase &c) {
  size_t nb = c.aBatch.size();
  int rank = (int)nb + 2;
  sc_desc a{}, b{}, y{}, bias{};
  a.dtype = b.dtype = y.dtype = bias.dtype = 1;
  a.rank = b.rank = y.rank = bias.rank = rank;
  std::vector<int64_t> yBatch(nb);
  for (size_t i = 0; i < nb; ++i) {
    a.dims[i] = c.aBatch[i];
    b.dims[i] = c.bBatch[i];
    y.dims[i] = yBatch[i] = std::max(c.aBatch[i], c.bBatch[i]);
  }
  a.dims[nb] = c.ta ? c.K : c.M;
  a.dims[nb + 1] = c.ta ? c.M : c.K;
  b.dims[nb] = c.tb ? c.N : c.K;
  b.dims[nb + 1] = c.tb ? c.K : c.N;
  y.dims[nb] = c.M;
  y.dims[nb + 1] = c.N;
  bool hasBias = !c.biasDims.empty();
  for (size_t i = 0; i < c.biasDims.size(); ++i)
    bias.dims[i] = c.biasDims[i];
  std::vector<float> av = randomVec(count(a), 1), bv = randomVec(count(b), 2);
  std::vector<float> biasv = randomVec(hasBias ? count(bias) : 0, 3);
  std::vector<float> y0 = randomVec(count(y), 4);
  std::vector<float> resv = randomVec(c.residual ? count(y) : 0, 5);

  // Naive reference.
  std::vector<float> want(count(y));
  auto stride = [](const sc_desc &d, int i) {
    int64_t s = 1;
    for (int j = i + 1; j < d.rank; ++j)
      s *= d.dims[j];
    return s;
  };
  for (int64_t t = 0; t < count(y); ++t) {
    std::vector<int64_t> idx(rank);
    int64_t rem = t;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = rem % y.dims[d];
      rem /= y.dims[d];
    }
    int64_t aOff = 0, bOff = 0, biasOff = 0;
    for (size_t d = 0; d < nb; ++d) {
      aOff += (a.dims[d] == 1 ? 0 : idx[d]) * stride(a, (int)d);
      bOff += (b.dims[d] == 1 ? 0 : idx[d]) * stride(b, (int)d);
    }
    if (hasBias)
      for (int d = 0; d < rank; ++d)
        biasOff += (bias.dims[d] == 1 ? 0 : idx[d]) * stride(bias, d);
    int64_t i = idx[nb], j = idx[nb + 1];
    double s = 0;
    for (int64_t k = 0; k < c.K; ++k) {
      float x = c.ta ? av[aOff + k * c.M + i] : av[aOff + i * c.K + k];
      float w = c.tb ? bv[bOff + j * c.K + k] : bv[bOff + k * c.N + j];
      s += (double)x * w;
    }
    double v = applyEpilogue(c.epilogue, c.alpha * s +
                                             (hasBias ? biasv[biasOff] : 0.0));
    want[t] = (float)(v + (c.residual ? resv[t] : 0.0) + c.beta * y0[t]);
  }

  void *h = sc_dnnl_matmul_create(&a, &b, hasBias ? &bias : nullptr,
                                  c.residual ? &y : nullptr, &y, c.ta, c.tb,
                                  c.alpha, c.beta, c.epilogue);
  ASSERT_NE(h, nullptr);
  std::vector<float> got = y0;
  sc_dnnl_matmul_run(h, av.data(), bv.data(), hasBias ? biasv.data() : nullptr,
                     c.residual ? resv.data() : nullptr, got.data());
  sc_handle_free(h);
  expectNear(got, want);
}

TEST(DnnlMatmul, Plain) {
  runMatmulCase({{}, {}, 5, 7, 3, false, false, 1, 0, {}});
}

TEST(DnnlMatmul, Transposes) {
  runMatmulCase({{}, {}, 4, 6, 5, true, false, 1, 0, {}});
  runMatmulCase({{}, {}, 4, 6, 5, false, true, 1, 0, {}});
  runMatmulCase({{}, {}, 4, 6, 5, true, true, 1, 0, {}});
}

TEST(DnnlMatmul, AlphaBetaBias) {
  // Gemm-like: bias broadcast along rows, alpha does not scale the bias.
  runMatmulCase({{}, {}, 4, 6, 5, false, true, 0.5f, 2.0f, {1, 5}});
  runMatmulCase({{}, {}, 4, 6, 5, false, false, 1.0f, 0.0f, {4, 1}});
  runMatmulCase({{}, {}, 3, 2, 4, true, false, -1.5f, 0.25f, {3, 4}});
}

TEST(DnnlMatmul, BatchBroadcast) {
  runMatmulCase({{2, 1}, {1, 3}, 4, 5, 6, false, false, 1, 0, {}});
  runMatmulCase({{2, 3}, {1, 1}, 4, 5, 6, true, true, 2, 0, {1, 3, 1, 6}});
  runMatmulCase({{1, 3}, {2, 3}, 4, 5, 6, false, true, 1, 1, {2, 1, 4, 1}});
}

TEST(DnnlMatmul, Epilogues) {
  // Every epilogue after a row bias, with and without alpha (the bias then
  // becomes a post-op before the activation), batched and not.
  for (int32_t e : {SC_EPILOGUE_NONE, SC_EPILOGUE_RELU, SC_EPILOGUE_GELU,
                    SC_EPILOGUE_GELU_TANH}) {
    SCOPED_TRACE(e);
    MatmulCase c{{}, {}, 5, 7, 9, false, false, 1, 0, {1, 9}};
    c.epilogue = e;
    runMatmulCase(c);
    c.alpha = 0.5f;
    c.tb = true;
    runMatmulCase(c);
    runMatmulCase({{2, 3}, {1, 1}, 4, 8, 6, false, false, 1, 0, {1, 1, 1, 6}, e});
    runMatmulCase({{}, {}, 3, 4, 5, true, false, 1, 0, {}, e});
  }
}

TEST(DnnlMatmul, Residual) {
  runMatmulCase({{}, {}, 5, 7, 9, false, false, 1, 0, {1, 9},
                 SC_EPILOGUE_NONE, true});
  runMatmulCase({{}, {}, 5, 7, 9, false, true, 2, 0, {1, 9},
                 SC_EPILOGUE_NONE, true});
  runMatmulCase({{2, 3}, {1, 1}, 4, 8, 6, false, false, 1, 0, {},
                 SC_EPILOGUE_NONE, true});
  runMatmulCase({{2, 1}, {1, 3}, 4, 8, 6, true, false, 1, 0, {1, 1, 1, 6},
                 SC_EPILOGUE_NONE, true});
}

// Products of 2^24 multiply-adds or more run in row blocks that the OpenMP
// team claims one at a time (Dnnl.cpp's rowBlocks). These shapes make 12
// blocks of 32 rows at 2 and at 3 threads: batch dims folded into the rows,
// a transposed B, a bias post-op (alpha != 1) before an activation, a
// residual, an accumulation (beta) with ReLU after the primitive.
struct Threads {
  int saved = omp_get_max_threads();
  explicit Threads(int n) { omp_set_num_threads(n); }
  ~Threads() { omp_set_num_threads(saved); }
};

TEST(DnnlMatmul, RowBlocks) {
  for (int threads : {2, 3}) {
    SCOPED_TRACE(threads);
    Threads team(threads);
    // [2, 3, 64, 256] x [1, 1, 200, 256]^T: 384 folded rows.
    MatmulCase c{{2, 3}, {1, 1}, 64, 256, 200, false, true, 0.5f, 0, {}};
    c.biasDims = {1, 1, 1, 200};
    c.epilogue = SC_EPILOGUE_GELU;
    runMatmulCase(c);
    c.tb = false;
    c.alpha = 1;
    c.biasDims = {};
    c.epilogue = SC_EPILOGUE_NONE;
    c.residual = true;
    runMatmulCase(c);
    // [384, 256] x [256, 200], B stored transposed, then not.
    MatmulCase flat{{}, {}, 384, 256, 200, false, true, 1, 1.0f, {1, 200}};
    runMatmulCase(flat);
    flat.tb = false;
    flat.beta = 0;
    flat.epilogue = SC_EPILOGUE_RELU;
    runMatmulCase(flat);
    // One bias for every element ([1, 1]): a block's bias is [1, 1] too.
    MatmulCase scalar{{}, {}, 384, 256, 200, false, false, 1, 0, {1, 1}};
    runMatmulCase(scalar);
    scalar.alpha = 0.5f; // the bias as a post-op
    runMatmulCase(scalar);
  }
}

// The int8 product in row blocks: each block's rows read their own row
// scales (s8 x s8 -> f32, column and row scales, bias, residual).
TEST(DnnlMatmul, Int8RowBlocks) {
  const int64_t M = 384, K = 256, N = 200;
  Threads team(2);
  sc_desc a = mk(3, {1, M, K}), b = mk(3, {1, K, N}), y = mk(1, {1, M, N});
  sc_desc rowScale = mk(1, {1, M, 1}), colScale = mk(1, {N});
  sc_desc bias = mk(1, {1, 1, N});
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> q(-127, 127);
  std::vector<int8_t> av(M * K), bv(K * N);
  for (int8_t &x : av)
    x = (int8_t)q(gen);
  for (int8_t &x : bv)
    x = (int8_t)q(gen);
  std::vector<float> rows = randomVec(M, 1), cols = randomVec(N, 2);
  std::vector<float> biasv = randomVec(N, 3), res = randomVec(M * N, 4);
  for (float &x : rows)
    x = 1e-3f * (1.5f + x); // positive, like a quantization scale
  for (float &x : cols)
    x = 1e-3f * (1.5f + x);
  std::vector<float> want(M * N), got(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int64_t acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += int64_t(av[i * K + k]) * bv[k * N + j];
      want[i * N + j] =
          float(double(acc) * cols[j] * rows[i] + biasv[j] + res[i * N + j]);
    }
  void *h = sc_dnnl_matmul_int8_create(&a, &b, &rowScale, &colScale, &bias, &y,
                                       &y, SC_EPILOGUE_NONE);
  ASSERT_NE(h, nullptr);
  sc_dnnl_matmul_int8_run(h, av.data(), bv.data(), rows.data(), cols.data(),
                          biasv.data(), res.data(), got.data());
  sc_handle_free(h);
  expectNear(got, want);
}

// The ReLU epilogue is IEEE: NaN stays NaN, -Inf becomes 0 (oneDNN's own
// post-op gives 0 and NaN), for a GEMM and a convolution.
TEST(DnnlMatmul, ReluNaNInf) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t n : {8, 64}) {
    sc_desc a = mk(1, {4, n}), b = mk(1, {n, n}), y = mk(1, {4, n});
    std::vector<float> av(4 * n, 1.0f), bv(n * n, 0.5f), yv(4 * n);
    av[0] = nan;       // row 0: NaN
    av[n] = -inf;      // row 1: -Inf
    av[2 * n] = inf;   // row 2: +Inf
    av[3 * n] = -1e3f; // row 3: negative
    void *h = sc_dnnl_matmul_create(&a, &b, nullptr, nullptr, &y, 0, 0, 1, 0,
                                    SC_EPILOGUE_RELU);
    ASSERT_NE(h, nullptr);
    sc_dnnl_matmul_run(h, av.data(), bv.data(), nullptr, nullptr, yv.data());
    sc_handle_free(h);
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_TRUE(std::isnan(yv[j])) << n << " " << j;
      EXPECT_EQ(yv[n + j], 0.0f) << n << " " << j;
      EXPECT_EQ(yv[2 * n + j], inf) << n << " " << j;
      EXPECT_EQ(yv[3 * n + j], 0.0f) << n << " " << j;
    }
  }
}

/// The kernel error of a create() that must fail (returning null).
std::string fails(void *h) {
  std::string message;
  EXPECT_EQ(h, nullptr);
  EXPECT_TRUE(shardc::rt::takeKernelError(message));
  return message;
}

TEST(DnnlMatmul, EpilogueErrors) {
  sc_desc a = mk(1, {2, 3}), b = mk(1, {3, 4}), y = mk(1, {2, 4});
  sc_desc other = mk(1, {1, 4});
  shardc::rt::clearKernelError();
  EXPECT_EQ(fails(sc_dnnl_matmul_create(&a, &b, nullptr, nullptr, &y, 0, 0, 1,
                                        0, 7)),
            "oneDNN matmul: unknown epilogue 7");
  EXPECT_EQ(fails(sc_dnnl_matmul_create(&a, &b, nullptr, &y, &y, 0, 0, 1, 0,
                                        SC_EPILOGUE_RELU)),
            "oneDNN matmul: a residual comes only without an epilogue");
  EXPECT_EQ(fails(sc_dnnl_matmul_create(&a, &b, nullptr, &other, &y, 0, 0, 1,
                                        0, SC_EPILOGUE_NONE)),
            "oneDNN matmul: residual float32 [1x4] is not y's float32 [2x4]");
  EXPECT_EQ(fails(sc_dnnl_matmul_create(&a, &b, nullptr, nullptr, &y, 0, 0, 1,
                                        1, SC_EPILOGUE_GELU)),
            "oneDNN matmul: cannot accumulate (beta 1) with an epilogue or a "
            "residual");
}

//===----------------------------------------------------------------------===//
// oneDNN matmul with shapes bounded at creation (sc_dnnl_matmul_dyn_*)
//===----------------------------------------------------------------------===//

// Every operand of one product at one shape.
struct DynShape {
  sc_desc a, b, y, bias, residual;
};

struct DynCase {
  const char *name;
  bool hasBias, hasResidual;
  int32_t ta, tb;
  float alpha, beta;
  int32_t epilogue;
  std::function<DynShape(int64_t batch, int64_t rows)> at;
  std::pair<int64_t, int64_t> bound;
  std::vector<std::pair<int64_t, int64_t>> runs;
};

constexpr float kUnwritten = 12345.0f; // past the run's elements

// A buffer of `bound` elements (the arena's slot at the bounds) whose first
// `used` are random and the rest kUnwritten.
std::vector<float> boundBuffer(const sc_desc &bound, const sc_desc &used,
                               unsigned seed) {
  std::vector<float> v(count(bound), kUnwritten);
  std::vector<float> r = randomVec(count(used), seed);
  std::copy(r.begin(), r.end(), v.begin());
  return v;
}

void *createDyn(const DynCase &c) {
  DynShape s = c.at(c.bound.first, c.bound.second);
  return sc_dnnl_matmul_dyn_create(&s.a, &s.b, c.hasBias ? &s.bias : nullptr,
                                   c.hasResidual ? &s.residual : nullptr, &s.y,
                                   c.ta, c.tb, c.alpha, c.beta, c.epilogue);
}

// Runs `dyn` at (batch, rows) and a static handle made at exactly that shape
// on the same inputs (b from `bFixed` when given), and expects the same
// bits: both are the same oneDNN primitive (same descriptors, row blocks,
// thread count and packing), so not even rounding may differ. Inputs lie in
// buffers sized for the bounds with kUnwritten past the run's elements; y's
// tail must stay kUnwritten.
void expectDynMatchesStatic(void *dyn, const DynCase &c, int64_t batch,
                            int64_t rows, unsigned seed,
                            const float *bFixed = nullptr) {
  SCOPED_TRACE(std::string(c.name) + " at " + std::to_string(batch) + " x " +
               std::to_string(rows));
  DynShape s = c.at(batch, rows), bound = c.at(c.bound.first, c.bound.second);
  std::vector<float> av = boundBuffer(bound.a, s.a, seed);
  std::vector<float> bv = boundBuffer(bound.b, s.b, seed + 1);
  std::vector<float> biasv = boundBuffer(bound.bias, s.bias, seed + 2);
  std::vector<float> resv = boundBuffer(bound.residual, s.residual, seed + 3);
  std::vector<float> y0 = boundBuffer(bound.y, s.y, seed + 4);
  const float *bp = bFixed ? bFixed : bv.data();
  const sc_desc *biasD = c.hasBias ? &s.bias : nullptr;
  const sc_desc *resD = c.hasResidual ? &s.residual : nullptr;
  const float *biasP = c.hasBias ? biasv.data() : nullptr;
  const float *resP = c.hasResidual ? resv.data() : nullptr;

  shardc::rt::clearKernelError();
  void *h = sc_dnnl_matmul_create(&s.a, &s.b, biasD, resD, &s.y, c.ta, c.tb,
                                  c.alpha, c.beta, c.epilogue);
  ASSERT_NE(h, nullptr);
  std::vector<float> want = y0, got = y0;
  sc_dnnl_matmul_run(h, av.data(), bp, biasP, resP, want.data());
  sc_handle_free(h);
  sc_dnnl_matmul_dyn_run(dyn, &s.a, &s.b, biasD, resD, &s.y, av.data(), bp,
                         biasP, resP, got.data());
  std::string error;
  ASSERT_FALSE(shardc::rt::takeKernelError(error)) << error;
  int64_t n = count(s.y);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(float)), 0);
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      ADD_FAILURE() << "first difference at " << i << ": " << got[i]
                    << " != " << want[i];
      break;
    }
  for (size_t i = n; i < got.size(); ++i)
    ASSERT_EQ(got[i], kUnwritten) << "written past y's elements at " << i;
}

// 3-D: [batch, rows, K] x [1, K, N] (or per-batch B), bias over the columns.
DynShape linear3(int64_t batch, int64_t rows, int64_t k, int64_t n, bool ta,
                 bool tb, bool batchedB) {
  DynShape s;
  s.a = ta ? mk(1, {batch, k, rows}) : mk(1, {batch, rows, k});
  int64_t bb = batchedB ? batch : 1;
  s.b = tb ? mk(1, {bb, n, k}) : mk(1, {bb, k, n});
  s.y = mk(1, {batch, rows, n});
  s.bias = mk(1, {1, 1, n});
  s.residual = s.y;
  return s;
}

const std::vector<std::pair<int64_t, int64_t>> kDynRuns = {
    {1, 5}, {2, 31}, {4, 64}, {1, 5}, {2, 31}};

std::vector<DynCase> dynCases() {
  auto l3 = [](int64_t k, int64_t n, bool ta, bool tb, bool batchedB) {
    return [=](int64_t batch, int64_t rows) {
      return linear3(batch, rows, k, n, ta, tb, batchedB);
    };
  };
  // 2-D: [rows, 32] x [48, 32]^T + bias [1, 48].
  auto flat = [](int64_t, int64_t rows) {
    DynShape s;
    s.a = mk(1, {rows, 32});
    s.b = mk(1, {48, 32});
    s.y = mk(1, {rows, 48});
    s.bias = mk(1, {1, 48});
    s.residual = s.y;
    return s;
  };
  return {
      // alpha != 1: the bias is a post-op.
      {"bias",
       true,
       false,
       0,
       1,
       0.5f,
       0,
       SC_EPILOGUE_NONE,
       l3(32, 48, false, true, false),
       {4, 64},
       kDynRuns},
      // B per batch, so b's shape varies with the run too.
      {"residual",
       false,
       true,
       0,
       0,
       1,
       0,
       SC_EPILOGUE_NONE,
       l3(32, 48, false, false, true),
       {4, 64},
       kDynRuns},
      {"gelu",
       true,
       false,
       0,
       0,
       1,
       0,
       SC_EPILOGUE_GELU,
       l3(32, 48, false, false, false),
       {4, 64},
       kDynRuns},
      {"transposed a, accumulate",
       false,
       false,
       1,
       0,
       1,
       1.0f,
       SC_EPILOGUE_NONE,
       l3(32, 48, true, false, false),
       {4, 64},
       kDynRuns},
      // Row blocks (Dnnl.cpp's rowBlocks: 2^24 multiply-adds, rows that
      // divide into 4 to 16 blocks of 32 or more on 2 threads): 3 x 96
      // (288 rows, 9 blocks) and 4 x 128 (512 rows, 16 blocks) do, 1 x 5
      // and 2 x 31 do not; with a bias and an accumulation.
      {"row blocks",
       true,
       false,
       0,
       0,
       1,
       1.0f,
       SC_EPILOGUE_NONE,
       l3(256, 512, false, false, false),
       {4, 128},
       {{1, 5}, {3, 96}, {2, 31}, {4, 128}, {3, 96}}},
      {"2-D",
       true,
       false,
       0,
       1,
       1,
       0,
       SC_EPILOGUE_RELU,
       flat,
       {1, 64},
       {{1, 5}, {1, 31}, {1, 64}, {1, 5}}},
  };
}

TEST(DnnlMatmulDyn, MatchesStaticPerShape) {
  Threads team(2); // the row blocks need 2 threads
  unsigned seed = 100;
  for (const DynCase &c : dynCases()) {
    SCOPED_TRACE(c.name);
    shardc::rt::clearKernelError();
    void *dyn = createDyn(c);
    ASSERT_NE(dyn, nullptr);
    for (auto [batch, rows] : c.runs)
      expectDynMatchesStatic(dyn, c, batch, rows, seed += 10);
    sc_handle_free(dyn);
  }
}

// SHARDC_DNNL_SHAPES, read when a handle is created; restored after.
struct ShapesEnv {
  std::string saved;
  bool had = false;
  explicit ShapesEnv(const char *value) {
    if (const char *v = std::getenv("SHARDC_DNNL_SHAPES")) {
      had = true;
      saved = v;
    }
    if (value)
      setenv("SHARDC_DNNL_SHAPES", value, 1);
    else
      unsetenv("SHARDC_DNNL_SHAPES");
  }
  ~ShapesEnv() {
    if (had)
      setenv("SHARDC_DNNL_SHAPES", saved.c_str(), 1);
    else
      unsetenv("SHARDC_DNNL_SHAPES");
  }
};

struct DynStats {
  int64_t shapes = 0, packedShapes = 0, packedCopies = 0, packedBytes = 0;
};
DynStats dynStats(void *h) {
  DynStats s;
  shardc::rt::cpu::dnnlMatmulDynStats(h, &s.shapes, &s.packedShapes,
                                      &s.packedCopies, &s.packedBytes);
  return s;
}

TEST(DnnlMatmulDyn, EvictsLeastRecentlyUsed) {
  Threads team(2);
  ShapesEnv env("2");
  for (const DynCase &c : dynCases()) {
    if (std::string(c.name) != "gelu" && std::string(c.name) != "row blocks")
      continue;
    SCOPED_TRACE(c.name);
    shardc::rt::clearKernelError();
    void *dyn = createDyn(c);
    ASSERT_NE(dyn, nullptr);
    EXPECT_EQ(dynStats(dyn).shapes, 1); // the bounds'
    // Three shapes cycling through two slots: every run a miss that evicts.
    std::vector<std::pair<int64_t, int64_t>> cycle = {
        {1, 5}, {2, 31}, {3, 17}, {1, 5}, {2, 31}, {3, 17}, {3, 17}};
    if (std::string(c.name) == "row blocks")
      cycle = {{1, 5}, {3, 96}, {4, 128}, {1, 5}, {3, 96}, {4, 128}};
    unsigned seed = 500;
    for (auto [batch, rows] : cycle) {
      expectDynMatchesStatic(dyn, c, batch, rows, seed += 10);
      EXPECT_LE(dynStats(dyn).shapes, 2);
    }
    EXPECT_EQ(dynStats(dyn).shapes, 2);
    sc_handle_free(dyn);
  }
}

TEST(DnnlMatmulDyn, ShapesFromTheEnvironment) {
  const DynCase c = dynCases()[2]; // gelu, bound 4 x 64
  for (const char *value : {(const char *)nullptr, "", "0", "-3", "x", "4x",
                            "99999999999999999999", "3"}) {
    SCOPED_TRACE(value ? value : "(unset)");
    ShapesEnv env(value);
    shardc::rt::clearKernelError();
    void *dyn = createDyn(c);
    ASSERT_NE(dyn, nullptr);
    unsigned seed = 900;
    for (int64_t rows = 1; rows <= 10; ++rows)
      expectDynMatchesStatic(dyn, c, 1, rows, seed += 10);
    EXPECT_EQ(dynStats(dyn).shapes, value && std::string(value) == "3" ? 3 : 8);
    sc_handle_free(dyn);
  }
}

// A B that lies in read-only memory is packed once per packed layout (and
// pointer), however many shapes of A the cache holds; the results are the
// static handles', which pack the same B each for itself.
TEST(DnnlMatmulDyn, SharesPackedWeights) {
  ShapesEnv env(nullptr);
  const int64_t K = 256, N = 512;
  // B in a read-only file mapping, like the weights file.
  std::vector<float> bv = randomVec(K * N, 77);
  ReadOnlyCopy copy(bv.data(), bv.size() * sizeof(float));
  ASSERT_NE(copy.map, nullptr);
  const size_t bytes = copy.bytes;
  const float *b = static_cast<const float *>(copy.map);

  // [batch, rows, K] x [1, K, N] (row blocks on 2 threads from 2 x 64 up),
  // and [rows, K] x [K, N].
  DynCase batched{"packed, 3-D",
                  true,
                  false,
                  0,
                  0,
                  1,
                  0,
                  SC_EPILOGUE_GELU,
                  [=](int64_t batch, int64_t rows) {
                    return linear3(batch, rows, K, N, false, false, false);
                  },
                  {4, 128},
                  {{1, 5}, {1, 9}, {2, 31}, {2, 64}, {3, 96}, {4, 128}}};
  DynCase flat{"packed, 2-D",
               true,
               false,
               0,
               0,
               1,
               0,
               SC_EPILOGUE_NONE,
               [=](int64_t, int64_t rows) {
                 DynShape s;
                 s.a = mk(1, {rows, K});
                 s.b = mk(1, {K, N});
                 s.y = s.residual = mk(1, {rows, N});
                 s.bias = mk(1, {1, N});
                 return s;
               },
               {1, 512},
               {{1, 5}, {1, 31}, {1, 64}, {1, 200}, {1, 384}, {1, 512}}};
  for (int threads : {1, 2})
    for (DynCase *c : {&batched, &flat}) {
      SCOPED_TRACE(threads);
      Threads team(threads);
      shardc::rt::clearKernelError();
      void *dyn = createDyn(*c);
      ASSERT_NE(dyn, nullptr);
      unsigned seed = 1300;
      for (auto [batch, rows] : c->runs)
        expectDynMatchesStatic(dyn, *c, batch, rows, seed += 10, b);
      // Again, now that every shape is cached (and B maybe packed).
      for (auto [batch, rows] : c->runs)
        expectDynMatchesStatic(dyn, *c, batch, rows, seed += 10, b);
      DynStats st = dynStats(dyn);
      std::printf("[ %s, %d threads: %lld shapes, %lld on a packed B, %lld "
                  "packed copies (%lld bytes; B is %lld) ]\n",
                  c->name, threads, (long long)st.shapes,
                  (long long)st.packedShapes, (long long)st.packedCopies,
                  (long long)st.packedBytes, (long long)bytes);
      EXPECT_EQ(st.shapes, 6);
      EXPECT_LE(st.packedCopies, st.packedShapes);
      sc_handle_free(dyn);
    }
}

// Whether oneDNN packs B in the 64-column panels Gemv.h reads: its kernels
// for `isa` (AVX-512, AVX-512 BF16) do; other hosts keep oneDNN's kernel,
// which the tests' values check all the same. SHARDC_GEMV=0 turns it off.
bool panelsExpected(const char *isa) {
  const char *off = std::getenv("SHARDC_GEMV");
  bool supported = std::string(isa) == "avx512bf16"
                       ? __builtin_cpu_supports("avx512bf16")
                       : __builtin_cpu_supports("avx512f");
  return supported && !(off && std::string(off) == "0");
}

/// y = act(x W + bias) + residual in double for x [rows, K], W [K, N]
/// row-major, bias [N], residual [rows, N] (empty: none): the few-rows
/// tests' reference.
std::vector<float> linearReference(int64_t rows, int64_t K, int64_t N,
                                   const std::vector<float> &x, const float *w,
                                   const std::vector<float> &bias,
                                   int32_t epilogue,
                                   const std::vector<float> &residual) {
  std::vector<float> want(rows * N);
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = bias[n];
      for (int64_t k = 0; k < K; ++k)
        sum += (double)x[m * K + k] * w[k * N + n];
      want[m * N + n] = (float)(applyEpilogue(epilogue, sum) +
                                (residual.empty() ? 0 : residual[m * N + n]));
    }
  return want;
}

/// `f` rounded to bf16 in place, and its bf16 bits.
std::vector<uint16_t> roundToBF16(std::vector<float> &f) {
  std::vector<uint16_t> h(f.size());
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = sc_bf2f(h[i] = sc_f2bf(f[i]));
  return h;
}

// A decode step's products (1 to 4 rows) on weights in read-only memory,
// packed by oneDNN and read by Gemv.h's kernel: against a double
// reference, with a bias, each activation, a residual, columns past a
// whole panel and rows of K not a multiple of oneDNN's row blocks, in the
// 2-D form and the folded [1, rows, K] one; 5 and 8 rows stay on oneDNN.
TEST(DnnlMatmul, FewRowsOnPackedWeights) {
  const int64_t K = 100, N = 200;
  std::vector<float> bv = randomVec(K * N, 91);
  ReadOnlyCopy copy(bv.data(), bv.size() * sizeof(float));
  ASSERT_NE(copy.map, nullptr);
  const float *b = static_cast<const float *>(copy.map);
  for (int threads : {1, 2})
    for (int64_t rows : {1, 2, 3, 4, 5, 8})
      for (bool folded : {false, true})
        for (int32_t epilogue :
             {SC_EPILOGUE_NONE, SC_EPILOGUE_GELU_TANH, SC_EPILOGUE_GELU,
              SC_EPILOGUE_HARDSWISH, SC_EPILOGUE_RELU})
          for (bool residual : {false, true}) {
            if (residual && epilogue != SC_EPILOGUE_NONE)
              continue; // a residual comes only without an epilogue
            SCOPED_TRACE(testing::Message()
                         << threads << " threads, " << rows << " rows, "
                         << (folded ? "folded" : "2-D") << ", epilogue "
                         << epilogue << (residual ? ", residual" : ""));
            Threads team(threads);
            sc_desc a = folded ? mk(1, {1, rows, K}) : mk(1, {rows, K});
            sc_desc w = folded ? mk(1, {1, K, N}) : mk(1, {K, N});
            sc_desc y = folded ? mk(1, {1, rows, N}) : mk(1, {rows, N});
            sc_desc bias = folded ? mk(1, {1, 1, N}) : mk(1, {1, N});
            unsigned seed = 100 * threads + 10 * rows + epilogue;
            std::vector<float> av = randomVec(rows * K, seed),
                               biasv = randomVec(N, seed + 1),
                               resv =
                                   randomVec(residual ? rows * N : 0, seed + 2);
            std::vector<float> want =
                linearReference(rows, K, N, av, b, biasv, epilogue, resv);
            void *h =
                sc_dnnl_matmul_create(&a, &w, &bias, residual ? &y : nullptr,
                                      &y, 0, 0, 1.0f, 0.0f, epilogue);
            ASSERT_NE(h, nullptr);
            for (int run = 0; run < 2; ++run) {
              std::vector<float> got(rows * N, NAN);
              sc_dnnl_matmul_run(h, av.data(), b, biasv.data(),
                                 residual ? resv.data() : nullptr, got.data());
              expectNear(got, want);
            }
            if (panelsExpected("avx512f")) {
              EXPECT_EQ(shardc::rt::cpu::dnnlMatmulRunsGemv(h), rows <= 4);
            }
            sc_handle_free(h);
          }
}

// The same in bf16 (a --precision=bf16 decode step): weights, bias,
// residual and y in bf16, summed in fp32 and rounded once, against a double
// reference over the bf16 values (an activation rounds twice: bf16's
// tolerance).
TEST(DnnlMatmul, FewRowsOnPackedBF16Weights) {
  // K odd: the last pair of rows is half padding.
  const int64_t K = 101, N = 200;
  std::vector<float> bf = randomVec(K * N, 92);
  std::vector<uint16_t> bh = roundToBF16(bf);
  ReadOnlyCopy copy(bh.data(), bh.size() * sizeof(uint16_t));
  ASSERT_NE(copy.map, nullptr);
  const void *map = copy.map;
  for (int threads : {1, 2})
    for (int64_t rows : {1, 3, 4, 5})
      for (int32_t epilogue : {SC_EPILOGUE_NONE, SC_EPILOGUE_GELU_TANH})
        for (bool residual : {false, true}) {
          if (residual && epilogue != SC_EPILOGUE_NONE)
            continue;
          SCOPED_TRACE(testing::Message()
                       << threads << " threads, " << rows << " rows, epilogue "
                       << epilogue << (residual ? ", residual" : ""));
          Threads team(threads);
          sc_desc a = mk(16, {1, rows, K}), w = mk(16, {1, K, N}),
                  y = mk(16, {1, rows, N}), bias = mk(16, {1, 1, N});
          unsigned seed = 200 * threads + 10 * rows + epilogue;
          std::vector<float> af = randomVec(rows * K, seed),
                             biasf = randomVec(N, seed + 1),
                             resf =
                                 randomVec(residual ? rows * N : 0, seed + 2);
          std::vector<uint16_t> ah = roundToBF16(af),
                                biash = roundToBF16(biasf),
                                resh = roundToBF16(resf);
          std::vector<float> want =
              linearReference(rows, K, N, af, bf.data(), biasf, epilogue, resf);
          void *h =
              sc_dnnl_matmul_create(&a, &w, &bias, residual ? &y : nullptr, &y,
                                    0, 0, 1.0f, 0.0f, epilogue);
          ASSERT_NE(h, nullptr);
          for (int run = 0; run < 2; ++run) {
            std::vector<uint16_t> gh(rows * N, 0x7fc0); // NaN
            sc_dnnl_matmul_run(h, ah.data(), map, biash.data(),
                               residual ? resh.data() : nullptr, gh.data());
            std::vector<float> got(rows * N);
            for (size_t i = 0; i < got.size(); ++i)
              got[i] = sc_bf2f(gh[i]);
            expectNear(got, want, 2e-2f);
          }
          if (panelsExpected("avx512bf16")) {
            EXPECT_EQ(shardc::rt::cpu::dnnlMatmulRunsGemv(h), rows <= 4);
          }
          sc_handle_free(h);
        }
}

TEST(DnnlMatmulDyn, Errors) {
  const DynCase c = dynCases()[0]; // bias, bound a [4, 64, 32]
  shardc::rt::clearKernelError();
  void *dyn = createDyn(c);
  ASSERT_NE(dyn, nullptr);
  DynShape s = c.at(2, 31);
  std::vector<float> av(4 * 64 * 32, 1.0f), bv(48 * 32, 1.0f), biasv(48, 1.0f);
  std::vector<float> yv(4 * 64 * 48, kUnwritten);
  auto run = [&](const DynShape &d, bool bias = true) {
    shardc::rt::clearKernelError();
    sc_dnnl_matmul_dyn_run(dyn, &d.a, &d.b, bias ? &d.bias : nullptr, nullptr,
                           &d.y, av.data(), bv.data(),
                           bias ? biasv.data() : nullptr, nullptr, yv.data());
    std::string message;
    EXPECT_TRUE(shardc::rt::takeKernelError(message));
    for (float v : yv)
      EXPECT_EQ(v, kUnwritten);
    return message;
  };
  DynShape beyond = s;
  beyond.a.dims[1] = beyond.y.dims[1] = 65;
  EXPECT_EQ(run(beyond), "oneDNN matmul: run's a [2x65x32]: dim 1 is 65, "
                         "outside [1, 64] (its bound [4x64x32])");
  DynShape zero = s;
  zero.a.dims[0] = zero.y.dims[0] = 0;
  EXPECT_EQ(run(zero), "oneDNN matmul: run's a [0x31x32]: dim 0 is 0, outside "
                       "[1, 4] (its bound [4x64x32])");
  DynShape wide = s;
  wide.y.dims[2] = 49;
  EXPECT_EQ(run(wide), "oneDNN matmul: run's y [2x31x49]: dim 2 is 49, "
                       "outside [1, 48] (its bound [4x64x48])");
  DynShape flat = s;
  flat.a = mk(1, {62, 32});
  EXPECT_EQ(run(flat), "oneDNN matmul: run's a is float32 of rank 2, created "
                       "as float32 of rank 3");
  DynShape half = s;
  half.b.dtype = 10;
  EXPECT_EQ(run(half), "oneDNN matmul: run's b is float16 of rank 3, created "
                       "as float32 of rank 3");
  EXPECT_EQ(run(s, false), "oneDNN matmul: run without a bias and without a "
                           "residual, created with a bias and without a "
                           "residual");
  // Within the bounds but not a product oneDNN takes (K 16 against B's
  // 32): the miss's creation fails like sc_dnnl_matmul_create, nothing runs.
  DynShape k16 = s;
  k16.a.dims[2] = 16;
  EXPECT_NE(run(k16).find("oneDNN: matmul [2x31x16] x [1x48x32]"),
            std::string::npos);
  EXPECT_EQ(dynStats(dyn).shapes, 1);
  // The handle still runs.
  expectDynMatchesStatic(dyn, c, 2, 31, 1700);
  sc_handle_free(dyn);
  // create() fails as sc_dnnl_matmul_create does.
  DynShape bound = c.at(4, 64);
  shardc::rt::clearKernelError();
  EXPECT_EQ(
      fails(sc_dnnl_matmul_dyn_create(&bound.a, &bound.b, nullptr, &bound.y,
                                      &bound.y, 0, 1, 1, 0, SC_EPILOGUE_GELU)),
      "oneDNN matmul: a residual comes only without an epilogue");
  shardc::rt::clearKernelError();
  sc_dnnl_matmul_dyn_run(nullptr, &s.a, &s.b, &s.bias, nullptr, &s.y, av.data(),
                         bv.data(), biasv.data(), nullptr, yv.data());
  std::string message;
  EXPECT_TRUE(shardc::rt::takeKernelError(message));
  EXPECT_EQ(message, "oneDNN matmul: run without a primitive");
}

//===----------------------------------------------------------------------===//
// oneDNN convolution and deconvolution
//===----------------------------------------------------------------------===//

struct ConvCase {
  std::vector<int64_t> in; // spatial dims
  int64_t n, ic, oc, group;
  std::vector<int64_t> k, stride, dil, pads; // pads: begins then ends
  bool bias;
  std::vector<int64_t> outPad; // ConvTranspose only
};

// A case's NCHW descriptors, random operands and the naive ONNX Conv /
// ConvTranspose result without bias (acc), over flattened N-D spatial
// indices.
struct ConvSetup {
  sc_desc x, w, b, y;
  std::vector<float> xv, wv, bv;
  std::vector<double> acc;
  int64_t outSp;
};

ConvSetup setUpConv(const ConvCase &c, bool transposed) {
  int sd = (int)c.in.size();
  std::vector<int64_t> out(sd);
  for (int i = 0; i < sd; ++i) {
    int64_t span = (c.k[i] - 1) * c.dil[i] + 1;
    out[i] =
        transposed
            ? (c.in[i] - 1) * c.stride[i] + span - c.pads[i] - c.pads[sd + i] +
                  c.outPad[i]
            : (c.in[i] + c.pads[i] + c.pads[sd + i] - span) / c.stride[i] + 1;
  }
  sc_desc x{}, w{}, b = mk(1, {c.oc}), y{};
  x.dtype = w.dtype = y.dtype = 1;
  x.rank = w.rank = y.rank = sd + 2;
  x.dims[0] = y.dims[0] = c.n;
  x.dims[1] = c.ic;
  y.dims[1] = c.oc;
  w.dims[0] = transposed ? c.ic : c.oc;
  w.dims[1] = transposed ? c.oc / c.group : c.ic / c.group;
  for (int i = 0; i < sd; ++i) {
    x.dims[2 + i] = c.in[i];
    y.dims[2 + i] = out[i];
    w.dims[2 + i] = c.k[i];
  }
  std::vector<float> xv = randomVec(count(x), 5), wv = randomVec(count(w), 6);
  std::vector<float> bv = randomVec(c.oc, 7);
  int64_t inSp = count(x) / (c.n * c.ic), outSp = count(y) / (c.n * c.oc);
  int64_t kSp = count(w) / (w.dims[0] * w.dims[1]);
  int64_t icg = c.ic / c.group, ocg = c.oc / c.group;
  std::vector<double> acc(count(y), 0.0);
  // Visit every (input position, kernel position) pair; the output position
  // is o = i * stride - pad + k * dil for ConvTranspose, and i = o * stride
  // - pad + k * dil for Conv (iterating over o instead).
  auto unflat = [](int64_t f, const std::vector<int64_t> &dims) {
    std::vector<int64_t> v(dims.size());
    for (int d = (int)dims.size() - 1; d >= 0; --d) {
      v[d] = f % dims[d];
      f /= dims[d];
    }
    return v;
  };
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t g = 0; g < c.group; ++g)
      for (int64_t oi = 0; oi < ocg; ++oi)
        for (int64_t ii = 0; ii < icg; ++ii) {
          int64_t ich = g * icg + ii, och = g * ocg + oi;
          for (int64_t kf = 0; kf < kSp; ++kf) {
            std::vector<int64_t> kk = unflat(kf, c.k);
            float wt = transposed ? wv[(ich * ocg + oi) * kSp + kf]
                                  : wv[(och * icg + ii) * kSp + kf];
            int64_t outerSp = transposed ? inSp : outSp;
            for (int64_t pf = 0; pf < outerSp; ++pf) {
              std::vector<int64_t> p = unflat(pf, transposed ? c.in : out);
              int64_t q = 0;
              bool ok = true;
              for (int d = 0; d < sd; ++d) {
                int64_t v = p[d] * c.stride[d] - c.pads[d] + kk[d] * c.dil[d];
                int64_t lim = transposed ? out[d] : c.in[d];
                if (v < 0 || v >= lim)
                  ok = false;
                q = q * lim + v;
              }
              if (!ok)
                continue;
              int64_t xi = transposed ? pf : q, yi = transposed ? q : pf;
              acc[(n * c.oc + och) * outSp + yi] +=
                  (double)xv[(n * c.ic + ich) * inSp + xi] * wt;
            }
          }
        }
  return {x, w, b, y, xv, wv, bv, acc, outSp};
}

// The case through sc_dnnl_conv against the reference, with an epilogue and
// a residual (inPlace: passed as y itself).
void runConvCase(const ConvCase &c, bool transposed,
                 int32_t epilogue = SC_EPILOGUE_NONE, bool residual = false,
                 bool inPlace = false) {
  ConvSetup t = setUpConv(c, transposed);
  std::vector<float> res = randomVec(residual ? t.acc.size() : 0, 8);
  std::vector<float> want(t.acc.size());
  for (size_t i = 0; i < t.acc.size(); ++i)
    want[i] = (float)applyEpilogue(
        epilogue, t.acc[i] + (c.bias ? t.bv[(i / t.outSp) % c.oc] : 0.0) +
                      (residual ? res[i] : 0.0));

  void *h = sc_dnnl_conv_create(&t.x, &t.w, c.bias ? &t.b : nullptr,
                                residual ? &t.y : nullptr, &t.y,
                                c.stride.data(), c.dil.data(), c.pads.data(),
                                c.group, transposed, epilogue, 0);
  ASSERT_NE(h, nullptr);
  std::vector<float> got(count(t.y), 123.0f);
  if (inPlace)
    got = res;
  for (int rep = 0; rep < 2; ++rep) { // the second run reuses the handle
    std::vector<float> y = got;
    sc_dnnl_conv_run(h, t.xv.data(), t.wv.data(),
                     c.bias ? t.bv.data() : nullptr,
                     !residual ? nullptr
                     : inPlace ? y.data()
                               : res.data(),
                     y.data());
    expectNear(y, want);
  }
  sc_handle_free(h);
}

TEST(DnnlConv, Conv2D) {
  runConvCase(
      {{7, 6}, 2, 4, 6, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, {}},
      false);
  // Groups, stride, dilation, asymmetric pads.
  runConvCase(
      {{9, 8}, 1, 4, 6, 2, {3, 2}, {2, 1}, {2, 3}, {1, 0, 2, 1}, true, {}},
      false);
  // Depthwise, no bias, floor drops a row.
  runConvCase(
      {{8, 8}, 1, 3, 3, 3, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false, {}},
      false);
}

TEST(DnnlConv, Conv1D3D) {
  runConvCase({{10}, 2, 2, 4, 2, {3}, {2}, {2}, {1, 2}, true, {}}, false);
  runConvCase({{4, 5, 3},
               1,
               2,
               2,
               1,
               {2, 3, 2},
               {1, 2, 1},
               {1, 1, 2},
               {0, 1, 1, 1, 0, 0},
               true,
               {}},
              false);
}

TEST(DnnlConv, EpiloguesAndResidual) {
  // 3x3 (dst reordered from oneDNN's layout), pointwise (plain dst),
  // depthwise, 1-D and a deconvolution.
  std::vector<std::pair<ConvCase, bool>> cases = {
      {{{7, 6}, 2, 4, 6, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, {}},
       false},
      {{{5, 4}, 2, 8, 6, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, {}},
       false},
      {{{8, 8}, 1, 4, 4, 4, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, {}},
       false},
      {{{10}, 2, 2, 4, 2, {3}, {2}, {2}, {1, 2}, true, {}}, false},
      {{{4, 3}, 2, 4, 6, 2, {3, 2}, {2, 3}, {1, 2}, {1, 0, 0, 1}, true, {1, 2}},
       true},
  };
  for (size_t i = 0; i < cases.size(); ++i)
    for (int32_t e : {SC_EPILOGUE_NONE, SC_EPILOGUE_RELU, SC_EPILOGUE_GELU,
                      SC_EPILOGUE_GELU_TANH, SC_EPILOGUE_HARDSWISH})
      for (int r = 0; r < 3; ++r) { // no residual, residual, in place
        SCOPED_TRACE("case " + std::to_string(i) + " epilogue " +
                     std::to_string(e) + " residual " + std::to_string(r));
        runConvCase(cases[i].first, cases[i].second, e, r > 0, r == 2);
      }
}

// [N, C, S] <-> [N, S, C].
std::vector<float> toChannelsLast(const std::vector<float> &v, int64_t n,
                                  int64_t c, int64_t s) {
  std::vector<float> r(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t k = 0; k < s; ++k)
        r[(i * s + k) * c + j] = v[(i * c + j) * s + k];
  return r;
}

std::vector<float> toChannelsFirst(const std::vector<float> &v, int64_t n,
                                   int64_t c, int64_t s) {
  std::vector<float> r(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t k = 0; k < s; ++k)
        r[(i * c + j) * s + k] = v[(i * s + k) * c + j];
  return r;
}

// The descriptor of [N, C, spatial...] stored channels-last.
sc_desc channelsLastDesc(const sc_desc &d) {
  sc_desc r = d;
  for (int i = 1; i + 1 < d.rank; ++i)
    r.dims[i] = d.dims[i + 1];
  r.dims[d.rank - 1] = d.dims[1];
  return r;
}

// The case with channels-last x (bit 0) and / or y (bit 1) against the same
// convolution on NCHW tensors, transposed.
void runConvChannelsLast(const ConvCase &c, int32_t cl, int32_t epilogue,
                         bool residual, bool inPlace = false) {
  ConvSetup t = setUpConv(c, false);
  int64_t inSp = count(t.x) / (c.n * c.ic);
  std::vector<float> res = randomVec(residual ? count(t.y) : 0, 9);
  auto conv = [&](int32_t layout, const std::vector<float> &xv,
                  const std::vector<float> &rv, std::vector<float> &y,
                  bool same) {
    sc_desc x = layout & 1 ? channelsLastDesc(t.x) : t.x;
    sc_desc yd = layout & 2 ? channelsLastDesc(t.y) : t.y;
    void *h = sc_dnnl_conv_create(&x, &t.w, c.bias ? &t.b : nullptr,
                                  residual ? &yd : nullptr, &yd,
                                  c.stride.data(), c.dil.data(), c.pads.data(),
                                  c.group, 0, epilogue, layout);
    ASSERT_NE(h, nullptr);
    if (same)
      y = rv;
    sc_dnnl_conv_run(h, xv.data(), t.wv.data(), c.bias ? t.bv.data() : nullptr,
                     residual ? (same ? y.data() : rv.data()) : nullptr,
                     y.data());
    sc_handle_free(h);
  };
  std::vector<float> want(count(t.y), 0.0f), got(count(t.y), 7.0f);
  conv(0, t.xv, res, want, false);
  std::vector<float> xv = cl & 1 ? toChannelsLast(t.xv, c.n, c.ic, inSp) : t.xv;
  std::vector<float> rv =
      cl & 2 && residual ? toChannelsLast(res, c.n, c.oc, t.outSp) : res;
  conv(cl, xv, rv, got, inPlace);
  if (cl & 2)
    got = toChannelsFirst(got, c.n, c.oc, t.outSp);
  expectNear(got, want, 1e-5f);
}

TEST(DnnlConv, ChannelsLast) {
  std::vector<ConvCase> cases = {
      // Strided and padded 3x3 (the CNN's shape), pointwise, depthwise.
      {{8, 8}, 2, 16, 16, 1, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, {}},
      {{8, 8}, 2, 16, 32, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, {}},
      {{9, 7}, 2, 8, 8, 8, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, {}},
      // 1-D and 3-D (nwc, ndhwc).
      {{10}, 2, 4, 6, 2, {3}, {2}, {1}, {1, 1}, true, {}},
      {{4, 5, 3},
       1,
       4,
       8,
       1,
       {2, 3, 2},
       {1, 2, 1},
       {1, 1, 1},
       {0, 1, 1, 1, 0, 0},
       true,
       {}},
  };
  for (size_t i = 0; i < cases.size(); ++i)
    for (int32_t cl : {1, 2, 3}) {
      SCOPED_TRACE("case " + std::to_string(i) + " channels_last " +
                   std::to_string(cl));
      runConvChannelsLast(cases[i], cl, SC_EPILOGUE_NONE, false);
      runConvChannelsLast(cases[i], cl, SC_EPILOGUE_RELU, true);
      runConvChannelsLast(cases[i], cl, SC_EPILOGUE_GELU, true, true);
    }
}

TEST(DnnlConv, Errors) {
  sc_desc x = mk(1, {1, 3, 4, 5}), w = mk(1, {3, 2, 3, 3}),
          y = mk(1, {1, 2, 6, 7}), other = mk(1, {1, 2, 6, 6});
  int64_t ones[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
  shardc::rt::clearKernelError();
  void *h = sc_dnnl_conv_create(&x, &w, nullptr, nullptr, &y, ones, ones, pads,
                                1, 1, SC_EPILOGUE_NONE, 0);
  ASSERT_NE(h, nullptr); // the deconvolution itself is fine
  sc_handle_free(h);
  for (int32_t cl : {1, 2, 3})
    EXPECT_EQ(
        fails(sc_dnnl_conv_create(&x, &w, nullptr, nullptr, &y, ones, ones,
                                  pads, 1, 1, SC_EPILOGUE_NONE, cl)),
        "oneDNN deconvolution: channels_last " + std::to_string(cl) +
            " (bits 0 and 1; 0 when transposed)");
  EXPECT_EQ(fails(sc_dnnl_conv_create(&x, &w, nullptr, nullptr, &y, ones, ones,
                                      pads, 1, 1, 9, 0)),
            "oneDNN deconvolution: unknown epilogue 9");
  EXPECT_EQ(fails(sc_dnnl_conv_create(&x, &w, nullptr, &other, &y, ones, ones,
                                      pads, 1, 1, SC_EPILOGUE_NONE, 0)),
            "oneDNN deconvolution: residual float32 [1x2x6x6] is not y's "
            "float32 [1x2x6x7]");
}

// The int8 convolution against the fp32 one on the dequantized operands
// (checked against the naive reference above): x u8 with a zero point or
// i8 without, w i8 per output channel or per tensor. Padding must read as
// real zero (the zero point), so every case pads.
void runConvInt8Case(const ConvCase &c, bool u8, bool perChannel,
                     int32_t epilogue, bool residual, bool dynamic = false) {
  ConvSetup t = setUpConv(c, false);
  // The activation quantized at (sx, zp): its bytes and its dequantized
  // values.
  std::vector<uint8_t> xq(t.xv.size());
  std::vector<float> xd(t.xv.size());
  auto quantize = [&](float sx, int32_t zp) {
    for (size_t i = 0; i < xq.size(); ++i) {
      float lo = u8 ? 0.0f : -128.0f, hi = u8 ? 255.0f : 127.0f;
      float q = std::min(hi, std::max(lo, std::nearbyint(t.xv[i] / sx) + zp));
      xq[i] = u8 ? (uint8_t)q : (uint8_t)(int8_t)q;
      xd[i] = (q - zp) * sx;
    }
  };
  const int32_t zp = u8 ? 7 : 0;
  const float sx = 0.02f;
  quantize(sx, zp);
  int64_t per = (int64_t)t.wv.size() / c.oc;
  std::vector<float> sw(perChannel ? c.oc : 1), scale(sw.size());
  for (size_t o = 0; o < sw.size(); ++o)
    sw[o] = 0.01f * (1 + o % 3);
  std::vector<int8_t> wq(t.wv.size());
  std::vector<float> wd(t.wv.size());
  for (size_t i = 0; i < wq.size(); ++i) {
    float s = sw[perChannel ? i / per : 0];
    wq[i] = (int8_t)std::min(127.0f,
                             std::max(-127.0f, std::nearbyint(t.wv[i] / s)));
    wd[i] = wq[i] * s;
  }
  for (size_t o = 0; o < sw.size(); ++o)
    scale[o] = sx * sw[o];
  std::vector<float> res = randomVec(residual ? count(t.y) : 0, 9);
  auto fp32 = [&]() {
    void *h = sc_dnnl_conv_create(
        &t.x, &t.w, c.bias ? &t.b : nullptr, residual ? &t.y : nullptr, &t.y,
        c.stride.data(), c.dil.data(), c.pads.data(), c.group, 0, epilogue, 0);
    std::vector<float> y(count(t.y));
    sc_dnnl_conv_run(h, xd.data(), wd.data(), c.bias ? t.bv.data() : nullptr,
                     residual ? res.data() : nullptr, y.data());
    sc_handle_free(h);
    return y;
  };
  std::vector<float> want = fp32();
  SCOPED_TRACE(std::string(u8 ? "u8" : "i8") +
               (perChannel ? " per channel" : " per tensor") + " epilogue " +
               std::to_string(epilogue) + (residual ? " residual" : "") +
               (dynamic ? " dynamic" : ""));
  sc_desc x = t.x, w = t.w;
  x.dtype = u8 ? 2 : 3;
  w.dtype = 3;
  sc_desc scaleDesc = mk(1, {1}), zeroDesc = mk(x.dtype, {1});
  shardc::rt::clearKernelError();
  void *h =
      dynamic ? sc_dnnl_conv_int8_dynamic_create(
                    &x, &w, c.bias ? &t.b : nullptr, residual ? &t.y : nullptr,
                    &t.y, &scaleDesc, &zeroDesc, c.stride.data(), c.dil.data(),
                    c.pads.data(), c.group, epilogue, 0, sw.data(),
                    (int64_t)sw.size())
              : sc_dnnl_conv_int8_create(
                    &x, &w, c.bias ? &t.b : nullptr, residual ? &t.y : nullptr,
                    &t.y, c.stride.data(), c.dil.data(), c.pads.data(), c.group,
                    epilogue, 0, scale.data(), (int64_t)scale.size(), zp);
  std::string error;
  ASSERT_NE(h, nullptr) << (shardc::rt::takeKernelError(error) ? error : "");
  for (int rep = 0; rep < 2; ++rep) { // the second run reuses the handle
    // A dynamic handle's second run: another scale and zero point, as the
    // next input's DynamicQuantizeLinear gives.
    float runScale = rep ? 0.035f : sx;
    int32_t runZero = rep && u8 ? 131 : zp;
    if (dynamic && rep) {
      quantize(runScale, runZero);
      want = fp32();
    }
    std::vector<float> y(count(t.y), 123.0f);
    uint8_t zeroByte = u8 ? (uint8_t)runZero : (uint8_t)(int8_t)runZero;
    if (dynamic)
      sc_dnnl_conv_int8_dynamic_run(
          h, xq.data(), wq.data(), c.bias ? t.bv.data() : nullptr,
          residual ? res.data() : nullptr, y.data(), &runScale, &zeroByte);
    else
      sc_dnnl_conv_int8_run(h, xq.data(), wq.data(),
                            c.bias ? t.bv.data() : nullptr,
                            residual ? res.data() : nullptr, y.data());
    ASSERT_FALSE(shardc::rt::takeKernelError(error)) << error;
    expectNear(y, want);
  }
  sc_handle_free(h);
}

TEST(DnnlConv, Int8) {
  // 3x3 padded, grouped with stride and dilation, depthwise, pointwise.
  std::vector<ConvCase> cases = {
      {{7, 6}, 2, 4, 6, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, {}},
      {{9, 8}, 1, 4, 6, 2, {3, 2}, {2, 1}, {2, 3}, {1, 0, 2, 1}, true, {}},
      {{8, 8}, 1, 8, 8, 8, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, {}},
      {{5, 5}, 2, 16, 8, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, {}}};
  for (const ConvCase &c : cases) {
    SCOPED_TRACE("case " + std::to_string(&c - cases.data()));
    runConvInt8Case(c, /*u8=*/true, /*perChannel=*/true, SC_EPILOGUE_NONE,
                    false);
    runConvInt8Case(c, false, false, SC_EPILOGUE_RELU, false);
    runConvInt8Case(c, true, true, SC_EPILOGUE_HARDSWISH, true);
  }
}

/// A channel of near-zero weights (batch norms fold some to 1e-40) has a
/// scale below 1e-30: its output is its bias (the product is nothing f32
/// can add to it). oneDNN 2 adds a bias before the scales, and bias /
/// scale would overflow to inf: such a convolution adds its bias after the
/// scales instead.
TEST(DnnlConv, Int8TinyScale) {
  sc_desc x = mk(2, {1, 2, 3, 3}), w = mk(3, {2, 2, 1, 1}), b = mk(1, {2}),
          y = mk(1, {1, 2, 3, 3});
  int64_t ones[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
  float scales[2] = {0.5f, 1e-40f};
  void *h = sc_dnnl_conv_int8_create(&x, &w, &b, nullptr, &y, ones, ones, pads,
                                     1, SC_EPILOGUE_RELU, 0, scales, 2, 0);
  ASSERT_NE(h, nullptr);
  std::vector<uint8_t> xv(18);
  for (size_t i = 0; i < xv.size(); ++i)
    xv[i] = static_cast<uint8_t>(10 + i);
  std::vector<int8_t> wv = {1, 2, 100, -100};
  std::vector<float> bv = {1.5f, 0.75f}, yv(18, -1.0f);
  sc_dnnl_conv_int8_run(h, xv.data(), wv.data(), bv.data(), nullptr, yv.data());
  for (int p = 0; p < 9; ++p) {
    EXPECT_FLOAT_EQ(yv[p], 0.5f * (xv[p] + 2 * xv[9 + p]) + 1.5f) << p;
    EXPECT_FLOAT_EQ(yv[9 + p], 0.75f) << p;
  }
  sc_handle_free(h);
}

/// The activation's scale and zero point given at each run (ONNX
/// Runtime's quantize_dynamic convolutions): the same results as the f32
/// convolution of the dequantized operands, for two inputs quantized
/// differently on one handle.
TEST(DnnlConv, Int8Dynamic) {
  std::vector<ConvCase> cases = {
      {{7, 6}, 2, 4, 6, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, {}},
      {{8, 8}, 1, 8, 8, 8, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false, {}},
      {{5, 5}, 2, 16, 8, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, {}}};
  for (const ConvCase &c : cases) {
    SCOPED_TRACE("case " + std::to_string(&c - cases.data()));
    runConvInt8Case(c, /*u8=*/true, /*perChannel=*/true, SC_EPILOGUE_NONE,
                    false, /*dynamic=*/true);
    runConvInt8Case(c, false, false, SC_EPILOGUE_RELU, false, true);
    runConvInt8Case(c, true, false, SC_EPILOGUE_HARDSWISH, true, true);
  }
  // A run without the scale is an error, not a read of null.
  sc_desc x = mk(2, {1, 3, 4, 5}), w = mk(3, {2, 3, 3, 3}),
          y = mk(1, {1, 2, 2, 3});
  int64_t ones[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
  float scales[2] = {1, 1};
  sc_desc s1 = mk(1, {1}), z1 = mk(2, {1}), z8 = mk(3, {1});
  // The zero point has x's type.
  shardc::rt::clearKernelError();
  EXPECT_EQ(fails(sc_dnnl_conv_int8_dynamic_create(
                &x, &w, nullptr, nullptr, &y, &s1, &z8, ones, ones, pads, 1,
                SC_EPILOGUE_NONE, 0, scales, 2)),
            "oneDNN int8 convolution: the run-time scale must be one "
            "float32 and the zero point one of x's type");
  void *h = sc_dnnl_conv_int8_dynamic_create(&x, &w, nullptr, nullptr, &y, &s1,
                                             &z1, ones, ones, pads, 1,
                                             SC_EPILOGUE_NONE, 0, scales, 2);
  ASSERT_NE(h, nullptr);
  std::vector<uint8_t> xv(60, 3);
  std::vector<int8_t> wv(54, 1);
  std::vector<float> yv(12);
  shardc::rt::clearKernelError();
  sc_dnnl_conv_int8_dynamic_run(h, xv.data(), wv.data(), nullptr, nullptr,
                                yv.data(), nullptr, nullptr);
  std::string error;
  EXPECT_TRUE(shardc::rt::takeKernelError(error));
  EXPECT_EQ(error, "oneDNN int8 convolution: run without the activation's "
                   "scale and zero point");
  sc_handle_free(h);
}

TEST(DnnlConv, Int8Errors) {
  sc_desc x = mk(2, {1, 3, 4, 5}), w = mk(3, {2, 3, 3, 3}),
          y = mk(1, {1, 2, 2, 3}), xf = mk(1, {1, 3, 4, 5});
  int64_t ones[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
  float scales[3] = {1, 1, 1};
  shardc::rt::clearKernelError();
  EXPECT_EQ(fails(sc_dnnl_conv_int8_create(&x, &w, nullptr, nullptr, &y, ones,
                                           ones, pads, 1, SC_EPILOGUE_NONE, 0,
                                           scales, 3, 0)),
            "oneDNN int8 convolution: 3 scales for 2 output channels");
  EXPECT_EQ(fails(sc_dnnl_conv_int8_create(&xf, &w, nullptr, nullptr, &y, ones,
                                           ones, pads, 1, SC_EPILOGUE_NONE, 0,
                                           scales, 2, 0)),
            "oneDNN int8 convolution: takes u8 or i8 x, i8 w, f32 scales, "
            "bias and y (got float32, int8 -> float32)");
}

TEST(DnnlConv, Deconv) {
  runConvCase(
      {{4, 5}, 1, 3, 2, 1, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true, {0, 0}},
      true);
  // Groups, stride, dilation, pads and output_padding.
  runConvCase(
      {{4, 3}, 2, 4, 6, 2, {3, 2}, {2, 3}, {1, 2}, {1, 0, 0, 1}, true, {1, 2}},
      true);
  runConvCase({{5}, 1, 2, 2, 2, {4}, {3}, {1}, {2, 1}, false, {0}}, true);
}

//===----------------------------------------------------------------------===//
// Softmax, LayerNormalization
//===----------------------------------------------------------------------===//

TEST(Kernels, SoftmaxMiddleAxis) {
  sc_desc x = mk(1, {2, 3, 4});
  std::vector<float> xv = randomVec(24, 8), y(24), ly(24);
  xv[5] = 1000.0f; // large values stay finite
  sc_softmax(&x, xv.data(), y.data(), 1, 0);
  sc_softmax(&x, xv.data(), ly.data(), -2, 1);
  std::vector<float> want(24), lwant(24);
  for (int o = 0; o < 2; ++o)
    for (int i = 0; i < 4; ++i) {
      double mx = -1e30, s = 0;
      for (int a = 0; a < 3; ++a)
        mx = std::max(mx, (double)xv[(o * 3 + a) * 4 + i]);
      for (int a = 0; a < 3; ++a)
        s += std::exp(xv[(o * 3 + a) * 4 + i] - mx);
      for (int a = 0; a < 3; ++a) {
        int t = (o * 3 + a) * 4 + i;
        want[t] = (float)(std::exp(xv[t] - mx) / s);
        lwant[t] = (float)(xv[t] - mx - std::log(s));
      }
    }
  expectNear(y, want);
  expectNear(ly, lwant);
}

TEST(Kernels, SoftmaxHalf) {
  sc_desc x = mk(10, {1, 2});
  uint16_t xv[2] = {sc_f2h(0.0f), sc_f2h(std::log(3.0f))}, y[2];
  sc_softmax(&x, xv, y, -1, 0);
  EXPECT_NEAR(sc_h2f(y[0]), 0.25f, 1e-3f);
  EXPECT_NEAR(sc_h2f(y[1]), 0.75f, 1e-3f);
}

TEST(Kernels, LayerNorm) {
  sc_desc x = mk(1, {2, 2, 3});
  std::vector<float> xv = randomVec(12, 9), scale = randomVec(6, 10),
                     bias = randomVec(6, 11), y(12), mean(2), inv(2);
  sc_layer_norm(&x, xv.data(), scale.data(), bias.data(), y.data(), mean.data(),
                inv.data(), 1, 1e-5f);
  for (int o = 0; o < 2; ++o) {
    double m = 0, v = 0;
    for (int i = 0; i < 6; ++i)
      m += xv[o * 6 + i] / 6.0;
    for (int i = 0; i < 6; ++i)
      v += (xv[o * 6 + i] - m) * (xv[o * 6 + i] - m) / 6.0;
    double is = 1.0 / std::sqrt(v + 1e-5);
    EXPECT_NEAR(mean[o], m, 1e-5);
    EXPECT_NEAR(inv[o], is, 1e-3 * is);
    for (int i = 0; i < 6; ++i)
      EXPECT_NEAR(y[o * 6 + i], (xv[o * 6 + i] - m) * is * scale[i] + bias[i],
                  1e-4);
  }
}

TEST(Kernels, LayerNormBF16IsTheFp32KernelRounded) {
  // 300 rows of 48 span several of the kernel's row blocks; with and without
  // scale and bias. bf16 rows are the fp32 kernel's results on the widened
  // inputs, rounded once: equal bits, and the same statistics.
  const int64_t rows = 300, n = 48;
  std::vector<float> xv = randomVec(rows * n, 12), sv = randomVec(n, 13),
                     bv = randomVec(n, 14);
  std::vector<uint16_t> xh = roundToBF16(xv), sh = roundToBF16(sv),
                        bh = roundToBF16(bv);
  for (bool affine : {true, false}) {
    sc_desc xf = mk(1, {rows, n}), xb = mk(16, {rows, n});
    std::vector<float> yf(xv.size()), mf(rows), inf(rows), mb(rows), ib(rows);
    std::vector<uint16_t> yb(xv.size());
    sc_layer_norm(&xf, xv.data(), affine ? sv.data() : nullptr,
                  affine ? bv.data() : nullptr, yf.data(), mf.data(),
                  inf.data(), 1, 1e-5f);
    sc_layer_norm(&xb, xh.data(), affine ? sh.data() : nullptr,
                  affine ? bh.data() : nullptr, yb.data(), mb.data(), ib.data(),
                  1, 1e-5f);
    for (int64_t i = 0; i < rows * n; ++i)
      ASSERT_EQ(yb[i], sc_f2bf(yf[i])) << "at " << i;
    for (int64_t o = 0; o < rows; ++o) {
      ASSERT_EQ(mb[o], mf[o]) << "row " << o;
      ASSERT_EQ(ib[o], inf[o]) << "row " << o;
    }
  }
}

//===----------------------------------------------------------------------===//
// Gather, TopK, ArgMax, CumSum, Trilu
//===----------------------------------------------------------------------===//

TEST(Kernels, GatherNegativeIndices) {
  sc_desc data = mk(1, {2, 3, 2}), idx = mk(7, {2, 2});
  std::vector<float> dv(12);
  for (int i = 0; i < 12; ++i)
    dv[i] = (float)i;
  int64_t iv[4] = {-1, 0, 2, -3};
  std::vector<float> y(16);
  sc_gather(&data, dv.data(), &idx, iv, y.data(), 1);
  // y[o, j0, j1, i] = data[o, idx[j0, j1] mod 3, i]
  std::vector<float> want = {4,  5,  0, 1, 4,  5,  0, 1,
                             10, 11, 6, 7, 10, 11, 6, 7};
  EXPECT_EQ(y, want);

  sc_desc idx32 = mk(6, {1});
  int32_t i32 = -2;
  std::vector<float> y2(6);
  sc_gather(&data, dv.data(), &idx32, &i32, y2.data(), -3);
  EXPECT_EQ(y2, std::vector<float>({0, 1, 2, 3, 4, 5}));
}

TEST(Kernels, TopKTies) {
  sc_desc x = mk(1, {2, 5});
  float xv[10] = {1, 3, 3, 2, 3, 5, 4, 4, 5, 1};
  float v[6];
  int64_t ix[6];
  sc_topk(&x, xv, v, ix, 1, 3, 1, 1);
  EXPECT_EQ(std::vector<float>(v, v + 6),
            std::vector<float>({3, 3, 3, 5, 5, 4}));
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 6),
            std::vector<int64_t>({1, 2, 4, 0, 3, 1}));
  sc_topk(&x, xv, v, ix, -1, 2, 0, 1);
  EXPECT_EQ(std::vector<float>(v, v + 4), std::vector<float>({1, 2, 1, 4}));
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 4),
            std::vector<int64_t>({0, 3, 4, 1}));
}

TEST(Kernels, ArgMaxCumSumTrilu) {
  sc_desc x = mk(6, {2, 3});
  int32_t xv[6] = {1, 7, 7, 9, 2, 9};
  int64_t am[2];
  sc_arg_max(&x, xv, am, 1, 0);
  EXPECT_EQ(am[0], 1);
  EXPECT_EQ(am[1], 0);
  sc_arg_max(&x, xv, am, 1, 1);
  EXPECT_EQ(am[0], 2);
  EXPECT_EQ(am[1], 2);

  int32_t cs[6];
  sc_cumsum(&x, xv, cs, 1, 0, 0);
  EXPECT_EQ(std::vector<int32_t>(cs, cs + 6),
            std::vector<int32_t>({1, 8, 15, 9, 11, 20}));
  sc_cumsum(&x, xv, cs, 0, 1, 1); // exclusive, reverse along axis 0
  EXPECT_EQ(std::vector<int32_t>(cs, cs + 6),
            std::vector<int32_t>({9, 2, 9, 0, 0, 0}));

  sc_desc m = mk(1, {3, 4});
  std::vector<float> mv(12, 1.0f), t(12);
  sc_trilu(&m, mv.data(), t.data(), 1, 1);
  EXPECT_EQ(t, std::vector<float>({0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1}));
  sc_trilu(&m, mv.data(), t.data(), 0, -1);
  EXPECT_EQ(t, std::vector<float>({0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0}));
}

//===----------------------------------------------------------------------===//
// Pad
//===----------------------------------------------------------------------===//

std::vector<float> pad1d(const std::vector<float> &x, int64_t before,
                         int64_t after, int32_t mode, const float *value) {
  sc_desc xd = mk(1, {1, (int64_t)x.size()});
  int64_t n = (int64_t)x.size() + before + after;
  sc_desc yd = mk(1, {1, n});
  int64_t pads[4] = {0, before, 0, after};
  std::vector<float> y(n, -99.0f);
  sc_pad(&xd, x.data(), &yd, y.data(), pads, mode, value);
  return y;
}

TEST(Kernels, PadModes) {
  std::vector<float> x = {1, 2, 3};
  float v = 9;
  EXPECT_EQ(pad1d(x, 2, 1, 0, &v), std::vector<float>({9, 9, 1, 2, 3, 9}));
  EXPECT_EQ(pad1d(x, 1, 1, 0, nullptr), std::vector<float>({0, 1, 2, 3, 0}));
  EXPECT_EQ(pad1d(x, 2, 3, 1, nullptr),
            std::vector<float>({3, 2, 1, 2, 3, 2, 1, 2}));
  EXPECT_EQ(pad1d(x, 2, 2, 2, nullptr),
            std::vector<float>({1, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(pad1d(x, 4, 2, 3, nullptr),
            std::vector<float>({3, 1, 2, 3, 1, 2, 3, 1, 2}));
  // Negative pads crop.
  EXPECT_EQ(pad1d(x, -1, 2, 0, nullptr), std::vector<float>({2, 3, 0, 0}));
  EXPECT_EQ(pad1d(x, 1, -2, 2, nullptr), std::vector<float>({1, 1}));

  // 2-D reflect.
  sc_desc xd = mk(1, {2, 3}), yd = mk(1, {4, 4});
  float xv[6] = {1, 2, 3, 4, 5, 6}, y[16];
  int64_t pads[4] = {1, 0, 1, 1};
  sc_pad(&xd, xv, &yd, y, pads, 1, nullptr);
  EXPECT_EQ(
      std::vector<float>(y, y + 16),
      std::vector<float>({4, 5, 6, 5, 1, 2, 3, 2, 4, 5, 6, 5, 1, 2, 3, 2}));
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

TEST(Kernels, MaxPoolIndices) {
  // 1x1x3x4, kernel 2x2, stride 1x2, pads 0,0,1,0 (bottom).
  sc_desc x = mk(1, {1, 1, 3, 4}), y = mk(1, {1, 1, 3, 2});
  float xv[12] = {1, 5, 2, 0, 3, 4, 8, 7, 6, 9, 1, 1};
  int64_t k[2] = {2, 2}, s[2] = {1, 2}, d[2] = {1, 1}, p[4] = {0, 0, 1, 0};
  float yv[6];
  int64_t ix[6];
  sc_pool(&x, xv, &y, yv, ix, 0, k, s, d, p, 0, 0, 0);
  EXPECT_EQ(std::vector<float>(yv, yv + 6),
            std::vector<float>({5, 8, 9, 8, 9, 1}));
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 6),
            std::vector<int64_t>({1, 6, 9, 6, 9, 10}));
  sc_pool(&x, xv, &y, yv, ix, 0, k, s, d, p, 0, 1, 0); // column-major
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 6),
            std::vector<int64_t>({3, 7, 5, 7, 5, 8}));
}

// NaN propagates through MaxPool wherever it sits in the window, on the
// generic, NCHW fast (vectorized interior) and channels-last paths; the
// index is the first NaN's (numpy's argmax).
TEST(Kernels, MaxPoolNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // 1x1x2x8, kernel 1x2 stride 2: windows (nan, 1) (1, nan) (-inf, -inf)
  // (inf, nan).
  sc_desc x = mk(1, {1, 1, 2, 8}), y = mk(1, {1, 1, 2, 4});
  float xv[16] = {nan, 1, 1, nan, -inf, -inf, inf, nan,
                  2,   3, 5, 4,   nan,  nan,  -1,  -2};
  int64_t k[2] = {1, 2}, s[2] = {1, 2}, d[2] = {1, 1}, p[4] = {0, 0, 0, 0};
  float yv[8];
  int64_t ix[8];
  auto check = [&](const float *got) {
    EXPECT_TRUE(std::isnan(got[0]));
    EXPECT_TRUE(std::isnan(got[1]));
    EXPECT_EQ(got[2], -inf);
    EXPECT_TRUE(std::isnan(got[3]));
    EXPECT_EQ(got[4], 3);
    EXPECT_EQ(got[5], 5);
    EXPECT_TRUE(std::isnan(got[6]));
    EXPECT_EQ(got[7], -1);
  };
  sc_pool(&x, xv, &y, yv, nullptr, 0, k, s, d, p, 0, 0, 0);
  check(yv);
  sc_pool(&x, xv, &y, yv, ix, 0, k, s, d, p, 0, 0, 0);
  check(yv);
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 8),
            std::vector<int64_t>({0, 3, 4, 7, 9, 10, 12, 14}));
  // Channels-last with one channel: the same bytes.
  sc_desc xl = mk(1, {1, 2, 8, 1}), yl = mk(1, {1, 2, 4, 1});
  sc_pool(&xl, xv, &yl, yv, nullptr, 0, k, s, d, p, 0, 0, 1);
  check(yv);
  // Rank 3 (the generic path).
  sc_desc x1 = mk(1, {2, 1, 8}), y1 = mk(1, {2, 1, 4});
  int64_t k1[1] = {2}, s1[1] = {2}, d1[1] = {1}, p1[2] = {0, 0};
  sc_pool(&x1, xv, &y1, yv, nullptr, 0, k1, s1, d1, p1, 0, 0, 0);
  check(yv);
}

TEST(Kernels, TopKNaN) {
  // NaN above every number: first with largest, last without.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  sc_desc x = mk(1, {1, 5});
  float xv[5] = {1, nan, 3, nan, -1};
  float v[5];
  int64_t ix[5];
  sc_topk(&x, xv, v, ix, 1, 3, 1, 1);
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 3), std::vector<int64_t>({1, 3, 2}));
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  EXPECT_EQ(v[2], 3);
  sc_topk(&x, xv, v, ix, 1, 5, 0, 1);
  EXPECT_EQ(std::vector<int64_t>(ix, ix + 5),
            std::vector<int64_t>({4, 0, 2, 1, 3}));
}

TEST(Kernels, AveragePoolPads) {
  sc_desc x = mk(1, {1, 1, 2, 2}), y = mk(1, {1, 1, 2, 2});
  float xv[4] = {1, 2, 3, 4}, yv[4];
  int64_t k[2] = {2, 2}, s[2] = {1, 1}, d[2] = {1, 1}, p[4] = {1, 1, 0, 0};
  sc_pool(&x, xv, &y, yv, nullptr, 1, k, s, d, p, 0, 0, 0);
  EXPECT_EQ(std::vector<float>(yv, yv + 4),
            std::vector<float>({1, 1.5, 2, 2.5}));
  sc_pool(&x, xv, &y, yv, nullptr, 1, k, s, d, p, 1, 0, 0);
  EXPECT_EQ(std::vector<float>(yv, yv + 4),
            std::vector<float>({0.25, 0.75, 1, 2.5}));
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

TEST(Kernels, EinsumMatmulAndDiagonal) {
  sc_desc a = mk(1, {2, 3}), b = mk(1, {3, 2}), y = mk(1, {2, 2});
  float av[6] = {1, 2, 3, 4, 5, 6}, bv[6] = {1, 0, 0, 1, 2, 2}, yv[4];
  const sc_desc *xs[2] = {&a, &b};
  const void *xps[2] = {av, bv};
  sc_einsum("ij,jk->ik", 2, xs, xps, &y, yv);
  EXPECT_EQ(std::vector<float>(yv, yv + 4), std::vector<float>({7, 8, 16, 17}));
  sc_einsum("ij, jk", 2, xs, xps, &y, yv); // implicit output
  EXPECT_EQ(std::vector<float>(yv, yv + 4), std::vector<float>({7, 8, 16, 17}));

  sc_desc sq = mk(1, {3, 3}), dg = mk(1, {3}), sc = mk(1, {});
  float m[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, dv[3], tr;
  const sc_desc *one[1] = {&sq};
  const void *onep[1] = {m};
  sc_einsum("ii->i", 1, one, onep, &dg, dv);
  EXPECT_EQ(std::vector<float>(dv, dv + 3), std::vector<float>({1, 5, 9}));
  sc_einsum("ii", 1, one, onep, &sc, &tr);
  EXPECT_EQ(tr, 15.0f);

  // Ellipsis with broadcasting: [2,1,2,2] x [3,2,2] -> [2,3,2,2].
  sc_desc e1 = mk(1, {2, 1, 2, 2}), e2 = mk(1, {3, 2, 2}),
          ey = mk(1, {2, 3, 2, 2});
  std::vector<float> v1 = randomVec(8, 12), v2 = randomVec(12, 13), ev(24);
  const sc_desc *es[2] = {&e1, &e2};
  const void *eps[2] = {v1.data(), v2.data()};
  sc_einsum("...ij,...jk->...ik", 2, es, eps, &ey, ev.data());
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k) {
          float s = 0;
          for (int j = 0; j < 2; ++j)
            s += v1[(p * 2 + i) * 2 + j] * v2[(q * 2 + j) * 2 + k];
          EXPECT_NEAR(ev[((p * 3 + q) * 2 + i) * 2 + k], s, 1e-5);
        }
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

TEST(Kernels, ResizeNearestAndLinear) {
  sc_desc x = mk(1, {1, 1, 2, 2}), y = mk(1, {1, 1, 4, 4});
  float xv[4] = {1, 2, 3, 4}, yv[16];
  float scales[4] = {1, 1, 2, 2};
  // nearest, asymmetric, floor
  sc_resize(&x, xv, &y, yv, scales, 0, 1, 2, -0.75f, 0, 0.0f, 0);
  EXPECT_EQ(
      std::vector<float>(yv, yv + 16),
      std::vector<float>({1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // linear, half_pixel (the ONNX test_resize_upsample_scales_linear)
  sc_resize(&x, xv, &y, yv, scales, 1, 0, 0, -0.75f, 0, 0.0f, 0);
  std::vector<float> want = {1,   1.25, 1.75, 2,   1.5, 1.75, 2.25, 2.5,
                             2.5, 2.75, 3.25, 3.5, 3,   3.25, 3.75, 4};
  expectNear(std::vector<float>(yv, yv + 16), want, 1e-6f);
  // linear, align_corners
  sc_resize(&x, xv, &y, yv, scales, 1, 3, 0, -0.75f, 0, 0.0f, 0);
  EXPECT_NEAR(yv[1], 1.0f + 1.0f / 3.0f, 1e-6f);
  EXPECT_NEAR(yv[15], 4.0f, 1e-6f);
}

//===----------------------------------------------------------------------===//
// Reference matmuls
//===----------------------------------------------------------------------===//

TEST(Kernels, MatmulRefBroadcast1D) {
  // [2,2,3] x [3] -> [2,2]
  sc_desc a = mk(11, {2, 2, 3}), b = mk(11, {3}), y = mk(11, {2, 2});
  double av[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, bv[3] = {1, 0, -1};
  double yv[4];
  sc_matmul_ref(&a, av, &b, bv, &y, yv);
  EXPECT_EQ(std::vector<double>(yv, yv + 4),
            std::vector<double>({-2, -2, -2, -2}));
  // [3] x [2,3,2] -> [2,2] (int64)
  sc_desc a2 = mk(7, {3}), b2 = mk(7, {2, 3, 2}), y2 = mk(7, {2, 2});
  int64_t a2v[3] = {1, 2, 3}, b2v[12] = {1, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2},
          y2v[4];
  sc_matmul_ref(&a2, a2v, &b2, b2v, &y2, y2v);
  EXPECT_EQ(std::vector<int64_t>(y2v, y2v + 4),
            std::vector<int64_t>({4, 5, 12, 12}));
}

TEST(Kernels, MatmulIntegerAndQLinear) {
  // ONNX test_matmulinteger.
  sc_desc a = mk(2, {4, 3}), b = mk(2, {3, 2}), azp = mk(2, {}),
          bzp = mk(2, {}), y = mk(6, {4, 2});
  uint8_t av[12] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0};
  uint8_t bv[6] = {1, 4, 2, 5, 3, 6}, az = 12, bz = 0;
  int32_t yv[8];
  sc_matmul_integer(&a, av, &b, bv, &azp, &az, &bzp, &bz, &y, yv);
  EXPECT_EQ(std::vector<int32_t>(yv, yv + 8),
            std::vector<int32_t>({-38, -83, -44, -98, -50, -113, -56, -128}));

  // ONNX test_qlinearmatmul_2D (uint8, float32 scales).
  sc_desc qa = mk(2, {2, 4}), qb = mk(2, {4, 3}), s = mk(1, {1}),
          zp = mk(2, {1}), qy = mk(2, {2, 3});
  uint8_t qav[8] = {208, 236, 0, 238, 3, 214, 255, 29};
  uint8_t qbv[12] = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247};
  float as = 0.0066f, bs = 0.00705f, ys = 0.0107f;
  uint8_t azv = 113, bzv = 114, yzv = 118, out[6];
  sc_qlinear_matmul(&qa, qav, &s, &as, &zp, &azv, &qb, qbv, &s, &bs, &zp, &bzv,
                    &s, &ys, &zp, &yzv, &qy, out);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 6),
            std::vector<uint8_t>({168, 115, 255, 1, 66, 151}));
}

//===----------------------------------------------------------------------===//
// Pooling: the 2-D fast path against a naive reference and the generic N-D
// path (reached through rank 5 with a unit depth dim and kernel 1 there).
//===----------------------------------------------------------------------===//

struct Pool2DCase {
  int64_t n, c, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  bool ceil;
};

int64_t poolOutDim(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb,
                   int64_t pe, bool ceil) {
  int64_t span = in + pb + pe - ((k - 1) * d + 1);
  int64_t o = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (o - 1) * s >= in + pb) // last window starts in the end pad
    --o;
  return o;
}

// Naive reference (float values; max picks the first largest, row-major
// window order; indices row- or column-major over H, W plus the plane).
void naivePool2D(const Pool2DCase &c, int64_t oh, int64_t ow,
                 const std::vector<float> &xv, bool isMax, bool cip,
                 bool colMajor, std::vector<float> &y,
                 std::vector<int64_t> &ix) {
  int64_t planes = c.n * c.c;
  y.assign(planes * oh * ow, 0);
  ix.assign(planes * oh * ow, 0);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        float best = -std::numeric_limits<float>::infinity();
        int64_t bestIdx = 0, valid = 0, inPadH = 0, inPadW = 0;
        bool found = false;
        double sum = 0;
        for (int64_t a = 0; a < c.kh; ++a) {
          int64_t ih = i * c.sh - c.pt + a * c.dh;
          inPadH += ih >= -c.pt && ih < c.h + c.pb;
        }
        for (int64_t b = 0; b < c.kw; ++b) {
          int64_t iw = j * c.sw - c.pl + b * c.dw;
          inPadW += iw >= -c.pl && iw < c.w + c.pr;
        }
        for (int64_t a = 0; a < c.kh; ++a)
          for (int64_t b = 0; b < c.kw; ++b) {
            int64_t ih = i * c.sh - c.pt + a * c.dh;
            int64_t iw = j * c.sw - c.pl + b * c.dw;
            if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w)
              continue;
            float v = xv[(p * c.h + ih) * c.w + iw];
            ++valid;
            sum += v;
            if (!found || v > best) {
              found = true;
              best = v;
              bestIdx = colMajor ? iw * c.h + ih : ih * c.w + iw;
            }
          }
        int64_t o = (p * oh + i) * ow + j;
        if (isMax) {
          y[o] = best;
          ix[o] = p * c.h * c.w + bestIdx;
        } else {
          int64_t cnt = cip ? inPadH * inPadW : valid;
          y[o] = (float)(sum / (double)cnt);
        }
      }
}

std::vector<Pool2DCase> pool2DCases() {
  return {
      // n c  h   w kh kw sh sw dh dw pt pl pb pr ceil
      {2, 16, 16, 16, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, false}, // the CNN's pool
      {1, 3, 7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false},
      {1, 2, 7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true},
      {2, 2, 6, 5, 2, 3, 2, 2, 1, 1, 0, 0, 0, 0, true},     // ceil windows
      {1, 2, 8, 8, 3, 2, 3, 1, 1, 1, 2, 0, 1, 1, false},    // asymmetric pads
      {1, 1, 10, 11, 3, 2, 1, 2, 2, 3, 1, 2, 2, 1, false},  // dilations
      {1, 2, 9, 7, 2, 2, 2, 3, 2, 1, 0, 1, 0, 1, true},     // dilation + ceil
      {1, 4, 5, 5, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, false},    // global
      {1, 1, 1, 6, 1, 4, 1, 1, 1, 1, 0, 3, 0, 3, false},    // rows of one
      {2, 16, 64, 64, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, false}, // threaded
  };
}

// The first n elements of a raw f32 or f16 buffer, as floats.
std::vector<float> floatsOf(const std::vector<uint8_t> &b, int64_t n,
                            bool half) {
  std::vector<float> f(n);
  for (int64_t i = 0; i < n; ++i) {
    if (half) {
      uint16_t h;
      std::memcpy(&h, b.data() + 2 * i, 2);
      f[i] = sc_h2f(h);
    } else {
      std::memcpy(&f[i], b.data() + 4 * i, 4);
    }
  }
  return f;
}

void runPool2DCase(const Pool2DCase &c, bool half) {
  int64_t oh = poolOutDim(c.h, c.kh, c.sh, c.dh, c.pt, c.pb, c.ceil);
  int64_t ow = poolOutDim(c.w, c.kw, c.sw, c.dw, c.pl, c.pr, c.ceil);
  int32_t dt = half ? 10 : 1;
  sc_desc x = mk(dt, {c.n, c.c, c.h, c.w}), y = mk(dt, {c.n, c.c, oh, ow});
  sc_desc x5 = mk(dt, {c.n, c.c, 1, c.h, c.w});
  sc_desc y5 = mk(dt, {c.n, c.c, 1, oh, ow});
  int64_t nx = count(x), ny = count(y);
  std::vector<float> xv = randomVec(nx, 7);
  for (int64_t i = 0; i < nx; i += 5) // ties, to check first-max order
    xv[i] = 0.5f;
  std::vector<uint16_t> xh(nx);
  for (int64_t i = 0; i < nx; ++i) {
    xh[i] = sc_f2h(xv[i]);
    if (half)
      xv[i] = sc_h2f(xh[i]);
  }
  const void *xp = half ? (const void *)xh.data() : (const void *)xv.data();
  size_t es = half ? 2 : 4;
  int64_t k[2] = {c.kh, c.kw}, s[2] = {c.sh, c.sw}, d[2] = {c.dh, c.dw},
          p[4] = {c.pt, c.pl, c.pb, c.pr};
  int64_t k5[3] = {1, c.kh, c.kw}, s5[3] = {1, c.sh, c.sw},
          d5[3] = {1, c.dh, c.dw}, p5[6] = {0, c.pt, c.pl, 0, c.pb, c.pr};
  auto toFloat = [&](const std::vector<uint8_t> &b) {
    return floatsOf(b, ny, half);
  };
  for (int kind = 0; kind < 2; ++kind)
    for (int cip = 0; cip < 2; ++cip)
      for (int order = 0; order < 2; ++order) {
        if ((kind == 0 && cip) || (kind == 1 && order))
          continue;
        SCOPED_TRACE("kind " + std::to_string(kind) + " cip " +
                     std::to_string(cip) + " order " + std::to_string(order));
        std::vector<uint8_t> got(ny * es), gen(ny * es);
        std::vector<int64_t> gotIx(ny, -1), genIx(ny, -2);
        sc_pool(&x, xp, &y, got.data(), kind == 0 ? gotIx.data() : nullptr,
                kind, k, s, d, p, cip, order, 0);
        sc_pool(&x5, xp, &y5, gen.data(), kind == 0 ? genIx.data() : nullptr,
                kind, k5, s5, d5, p5, cip, order, 0);
        // Bit-exact with the generic path.
        ASSERT_EQ(got, gen);
        std::vector<float> want;
        std::vector<int64_t> wantIx;
        naivePool2D(c, oh, ow, xv, kind == 0, cip, order == 1, want, wantIx);
        std::vector<float> gotF = toFloat(got);
        if (half) // the reference sums in double and rounds once
          for (float &w : want)
            w = sc_h2f(sc_f2h(w));
        expectNear(gotF, want, half ? 1e-3f : 1e-6f);
        if (kind == 0) {
          // 3-D indices of the generic path have a unit depth dim in front
          // (row-major) or behind (column-major: depth stride H*W): same.
          EXPECT_EQ(gotIx, genIx);
          EXPECT_EQ(gotIx, wantIx);
        }
      }
}

TEST(Kernels, Pool2DFastPathF32) {
  for (const Pool2DCase &c : pool2DCases()) {
    SCOPED_TRACE("case " + std::to_string(c.h) + "x" + std::to_string(c.w) +
                 " k" + std::to_string(c.kh) + "x" + std::to_string(c.kw));
    runPool2DCase(c, false);
  }
}

TEST(Kernels, Pool2DFastPathF16) {
  for (const Pool2DCase &c : pool2DCases()) {
    SCOPED_TRACE("case " + std::to_string(c.h) + "x" + std::to_string(c.w) +
                 " k" + std::to_string(c.kh) + "x" + std::to_string(c.kw));
    runPool2DCase(c, true);
  }
}

// Channels-last pooling (the 2-D fast path, and the generic path through
// rank 5) against the NCHW 2-D path on the transposed input: bit-exact for
// max, within rounding for average (the same double sums).
void runPool2DChannelsLast(const Pool2DCase &c, bool half) {
  int64_t oh = poolOutDim(c.h, c.kh, c.sh, c.dh, c.pt, c.pb, c.ceil);
  int64_t ow = poolOutDim(c.w, c.kw, c.sw, c.dw, c.pl, c.pr, c.ceil);
  int32_t dt = half ? 10 : 1;
  sc_desc x = mk(dt, {c.n, c.c, c.h, c.w}), y = mk(dt, {c.n, c.c, oh, ow});
  sc_desc xl = mk(dt, {c.n, c.h, c.w, c.c}), yl = mk(dt, {c.n, oh, ow, c.c});
  sc_desc xl5 = mk(dt, {c.n, 1, c.h, c.w, c.c});
  sc_desc yl5 = mk(dt, {c.n, 1, oh, ow, c.c});
  int64_t nx = count(x), ny = count(y);
  std::vector<float> xv = randomVec(nx, 11);
  for (int64_t i = 0; i < nx; i += 5) // ties
    xv[i] = 0.5f;
  xv[nx / 2] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xt = toChannelsLast(xv, c.n, c.c, c.h * c.w);
  // The buffers as raw elements: f32 as is, f16 converted.
  auto raw = [&](const std::vector<float> &v) {
    std::vector<uint8_t> b(v.size() * (half ? 2 : 4));
    for (size_t i = 0; i < v.size(); ++i) {
      if (half) {
        uint16_t h = sc_f2h(v[i]);
        std::memcpy(b.data() + 2 * i, &h, 2);
      } else {
        std::memcpy(b.data() + 4 * i, &v[i], 4);
      }
    }
    return b;
  };
  auto floats = [&](const std::vector<uint8_t> &b) {
    return floatsOf(b, ny, half);
  };
  std::vector<uint8_t> xb = raw(xv), xtb = raw(xt);
  size_t es = half ? 2 : 4;
  int64_t k[2] = {c.kh, c.kw}, s[2] = {c.sh, c.sw}, d[2] = {c.dh, c.dw},
          p[4] = {c.pt, c.pl, c.pb, c.pr};
  int64_t k5[3] = {1, c.kh, c.kw}, s5[3] = {1, c.sh, c.sw},
          d5[3] = {1, c.dh, c.dw}, p5[6] = {0, c.pt, c.pl, 0, c.pb, c.pr};
  for (int kind = 0; kind < 2; ++kind)
    for (int cip = 0; cip < 2; ++cip) {
      if (kind == 0 && cip)
        continue;
      SCOPED_TRACE("kind " + std::to_string(kind) + " cip " +
                   std::to_string(cip));
      std::vector<uint8_t> want(ny * es), got(ny * es, 0xee),
          gen(ny * es, 0xdd);
      sc_pool(&x, xb.data(), &y, want.data(), nullptr, kind, k, s, d, p, cip, 0,
              0);
      sc_pool(&xl, xtb.data(), &yl, got.data(), nullptr, kind, k, s, d, p, cip,
              0, 1);
      sc_pool(&xl5, xtb.data(), &yl5, gen.data(), nullptr, kind, k5, s5, d5, p5,
              cip, 0, 1);
      std::vector<float> wantF = floats(want);
      std::vector<float> gotF = toChannelsFirst(floats(got), c.n, c.c, oh * ow);
      std::vector<float> genF = toChannelsFirst(floats(gen), c.n, c.c, oh * ow);
      for (int64_t i = 0; i < ny; ++i) {
        if (kind == 0) { // bitwise, NaN included
          uint32_t a, b, g;
          std::memcpy(&a, &wantF[i], 4);
          std::memcpy(&b, &gotF[i], 4);
          std::memcpy(&g, &genF[i], 4);
          ASSERT_EQ(b, a) << "fast path at " << i;
          ASSERT_EQ(g, a) << "generic path at " << i;
        } else if (std::isnan(wantF[i])) {
          ASSERT_TRUE(std::isnan(gotF[i]) && std::isnan(genF[i])) << i;
        } else {
          ASSERT_NEAR(gotF[i], wantF[i], 1e-6f * (1 + std::fabs(wantF[i])))
              << "fast path at " << i;
          ASSERT_NEAR(genF[i], wantF[i], 1e-6f * (1 + std::fabs(wantF[i])))
              << "generic path at " << i;
        }
      }
    }
}

TEST(Kernels, PoolChannelsLast) {
  std::vector<Pool2DCase> cases = pool2DCases();
  // Channels that fill vectors and leave a remainder.
  cases.push_back({2, 21, 7, 6, 3, 2, 2, 1, 1, 1, 1, 0, 1, 1, false});
  cases.push_back({1, 37, 5, 9, 2, 3, 1, 2, 2, 1, 0, 1, 0, 1, true});
  for (bool half : {false, true})
    for (const Pool2DCase &c : cases) {
      SCOPED_TRACE(std::string(half ? "f16 " : "f32 ") + "case " +
                   std::to_string(c.h) + "x" + std::to_string(c.w) + " k" +
                   std::to_string(c.kh) + "x" + std::to_string(c.kw));
      runPool2DChannelsLast(c, half);
    }
}

TEST(Kernels, PoolChannelsLastIndicesFail) {
  sc_desc x = mk(1, {1, 4, 4, 2}), y = mk(1, {1, 2, 2, 2});
  std::vector<float> xv(32, 1.0f), yv(8);
  int64_t ix[8], k[2] = {2, 2}, s[2] = {2, 2}, d[2] = {1, 1},
                 p[4] = {0, 0, 0, 0};
  shardc::rt::clearKernelError();
  sc_pool(&x, xv.data(), &y, yv.data(), ix, 0, k, s, d, p, 0, 0, 1);
  std::string message;
  EXPECT_TRUE(shardc::rt::takeKernelError(message));
  EXPECT_EQ(message, "MaxPool: no indices output with channels-last tensors");
}

} // namespace
