//===- CudaGpuTest.cpp - the CUDA device on a real GPU --------------------===//
//
// Skipped where no GPU is usable (every test says why). On a GPU:
//   - the fake program's CUDA code (PTX kernels, a copy) through the C API,
//     run several times so that the captured graph replays on new inputs,
//     with and without graphs;
//   - sc_cu_matmul_* and sc_cu_conv_* in one-op programs, against the CPU
//     wrappers (sc_dnnl_*, themselves tested against naive loops in
//     KernelsTest), for the layouts, broadcasts, biases, epilogues, dtypes
//     and math modes the planners distinguish.
// Inputs are multiples of 1/4 in [-2, 2]: exact in fp16, bf16 and TF32, so
// fp32 and TF32 results match exactly up to summation order, and 16-bit
// results up to the output's rounding.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/TensorIO.h"
#include "runtime/test/FakeProgram.h"
#include "shardc/runtime.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

using namespace shardc::testing;
namespace fmt = shardc::format;

namespace {

constexpr uint32_t kCpu = fmt::kTargetCpu, kCuda = fmt::kTargetCuda;

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/" + name;
}

void writeOrFail(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::string error;
  ASSERT_TRUE(shardc::io::writeFile(path, bytes, error)) << error;
}

/// Whether the fake program's CUDA code loads here; `why` if not.
bool gpuUsable(std::string &why) {
  static int usable = -1;
  static std::string reason;
  if (usable < 0) {
    std::string path = tempPath("gpu_probe.weights");
    std::string error;
    shardc::io::writeFile(path, fakeWeightsFile(), error);
    FakeProgram p(false, fakePlan(kCuda));
    shardc_model *m = nullptr;
    usable = shardc_load_on(&p.program, path.c_str(), 0, SHARDC_DEVICE_CUDA,
                            &m) == SHARDC_OK;
    reason = usable ? "" : shardc_last_error();
    shardc_free(m);
  }
  why = reason;
  return usable == 1;
}

#define SKIP_WITHOUT_GPU()                                                     \
  do {                                                                         \
    std::string why;                                                           \
    if (!gpuUsable(why))                                                       \
      GTEST_SKIP() << why;                                                     \
  } while (0)

//===----------------------------------------------------------------------===//
// The fake program
//===----------------------------------------------------------------------===//

void runFakeProgram(bool graphs) {
  if (!graphs)
    ::setenv("SHARDC_CUDA_GRAPHS", "0", 1);
  std::string path = tempPath("gpu_fake.weights");
  writeOrFail(path, fakeWeightsFile());
  FakeProgram p(false, fakePlan(kCpu | kCuda));
  int before = liveHandles();
  shardc_model *m = nullptr;
  ASSERT_EQ(shardc_load(&p.program, path.c_str(), 0, &m), SHARDC_OK)
      << shardc_last_error();
  ::unsetenv("SHARDC_CUDA_GRAPHS");
  EXPECT_EQ(std::string(shardc_device_description(m)).rfind("cuda: ", 0), 0u)
      << shardc_device_description(m);
  EXPECT_STREQ(shardc_fallback_reason(m), "");
  EXPECT_EQ(liveHandles(), before + 1);
  // Each run on new inputs (the first runs directly, the second is
  // captured, the others replay the graph, which must read them).
  for (int run = 0; run < 4; ++run) {
    float x[6];
    int64_t ids[4], xd[2] = {2, 3}, idd[1] = {4};
    for (int i = 0; i < 6; ++i)
      x[i] = float(run * 10 + i);
    for (int i = 0; i < 4; ++i)
      ids[i] = run * 100 + i - 2;
    ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, xd, x, sizeof x),
              SHARDC_OK);
    ASSERT_EQ(
        shardc_bind_input(m, "ids", SHARDC_INT64, 1, idd, ids, sizeof ids),
        SHARDC_OK);
    ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
    const void *y, *z;
    size_t bytes;
    ASSERT_EQ(shardc_output(m, 0, &y, &bytes), SHARDC_OK);
    ASSERT_EQ(bytes, sizeof x);
    ASSERT_EQ(shardc_output(m, 1, &z, &bytes), SHARDC_OK);
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(static_cast<const float *>(y)[i], x[i] + 0.5f * float(i + 1))
          << "run " << run << ", y[" << i << "]";
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(static_cast<const int64_t *>(z)[i], 2 * ids[i])
          << "run " << run << ", z[" << i << "]";
  }
  shardc_free(m);
  EXPECT_EQ(liveHandles(), before);
}

TEST(CudaGpu, FakeProgramWithGraphs) {
  SKIP_WITHOUT_GPU();
  runFakeProgram(true);
}

TEST(CudaGpu, FakeProgramWithoutGraphs) {
  SKIP_WITHOUT_GPU();
  runFakeProgram(false);
}

//===----------------------------------------------------------------------===//
// One-op programs
//===----------------------------------------------------------------------===//

sc_desc desc(int32_t dtype, std::vector<int64_t> dims) {
  sc_desc d = {};
  d.dtype = dtype;
  d.rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    d.dims[i] = dims[i];
  return d;
}

int64_t numel(const sc_desc &d) {
  int64_t n = 1;
  for (int i = 0; i < d.rank; ++i)
    n *= d.dims[i];
  return n;
}

std::vector<float> quarters(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float &f : v) {
    seed = seed * 1664525u + 1013904223u;
    f = float(int((seed >> 16) % 17) - 8) * 0.25f;
  }
  return v;
}

std::vector<uint8_t> encode(const std::vector<float> &v, int32_t dtype) {
  std::vector<uint8_t> out(v.size() * fmt::dtypeSize(dtype));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == fmt::kF32) {
      std::memcpy(out.data() + 4 * i, &v[i], 4);
    } else {
      uint16_t h = dtype == fmt::kF16 ? sc_f2h(v[i]) : sc_f2bf(v[i]);
      std::memcpy(out.data() + 2 * i, &h, 2);
    }
  }
  return out;
}

std::vector<float> decode(const void *p, size_t n, int32_t dtype) {
  std::vector<float> out(n);
  const uint8_t *b = static_cast<const uint8_t *>(p);
  for (size_t i = 0; i < n; ++i) {
    if (dtype == fmt::kF32) {
      std::memcpy(&out[i], b + 4 * i, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, b + 2 * i, 2);
      out[i] = dtype == fmt::kF16 ? sc_h2f(h) : sc_bf2f(h);
    }
  }
  return out;
}

/// A CUDA-only program of one library op on its inputs, read by the entry
/// points through `current`.
struct OneOp {
  std::vector<sc_desc> inputs;
  sc_desc output;
  std::function<void *(sc_cuda *)> create;
  std::function<void(sc_cuda *, void *, void *const *, void *)> run;

  static inline OneOp *current = nullptr;
  static int init(const sc_rank_ctx *, sc_cuda *cu, void **h) {
    h[0] = current->create(cu);
    return h[0] ? 0 : 1;
  }
  static void runEntry(const sc_rank_ctx *, sc_cuda *cu, void **h, char *,
                       const char *,
                       void *const *in, void *const *out) {
    current->run(cu, h[0], in, out[0]);
  }

  /// Loads the program on the GPU (`program` and `weightsPath` must outlive
  /// the model).
  shardc_status load(std::unique_ptr<FakeProgram> &program, shardc_model **m) {
    current = this;
    fmt::Plan plan;
    plan.modelHash = 0x0e0e;
    plan.target = kCuda;
    fmt::RankPlan r;
    r.arenaBytes = 256;
    r.weightsChecksum = fmt::sectionChecksum(nullptr, 0);
    r.numHandles = 1;
    auto sig = [](const std::string &name, const sc_desc &d) {
      return fmt::TensorSig{name, d.dtype,
                            std::vector<int64_t>(d.dims, d.dims + d.rank)};
    };
    for (size_t i = 0; i < inputs.size(); ++i)
      r.inputs.push_back(sig("in" + std::to_string(i), inputs[i]));
    r.outputs.push_back(sig("y", output));
    plan.ranks.push_back(r);
    program = std::make_unique<FakeProgram>(false, plan);
    program->cudaEntry.init = init;
    program->cudaEntry.run = runEntry;
    std::string path = tempPath("gpu_one_op.weights"), error;
    if (!shardc::io::writeFile(path, buildWeightsFile(plan.modelHash, {{}}),
                               error)) {
      ADD_FAILURE() << error;
      return SHARDC_ERROR_IO;
    }
    return shardc_load_on(&program->program, path.c_str(), 0,
                          SHARDC_DEVICE_CUDA, m);
  }

  /// Runs the op `runs` times on `values` (one vector per input); the output
  /// of the last run.
  std::vector<float> execute(const std::vector<std::vector<float>> &values,
                             int runs) {
    std::unique_ptr<FakeProgram> program;
    shardc_model *m = nullptr;
    EXPECT_EQ(load(program, &m), SHARDC_OK) << shardc_last_error();
    if (!m)
      return {};
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<uint8_t> bytes = encode(values[i], inputs[i].dtype);
      EXPECT_EQ(shardc_bind_input(m, ("in" + std::to_string(i)).c_str(),
                                  inputs[i].dtype, inputs[i].rank,
                                  inputs[i].dims, bytes.data(), bytes.size()),
                SHARDC_OK)
          << shardc_last_error();
    }
    std::vector<float> y;
    for (int i = 0; i < runs; ++i) {
      EXPECT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
      const void *data = nullptr;
      size_t bytes = 0;
      if (shardc_output(m, 0, &data, &bytes) == SHARDC_OK)
        y = decode(data, static_cast<size_t>(numel(output)), output.dtype);
    }
    shardc_free(m);
    return y;
  }
};

void expectClose(const std::vector<float> &got, const std::vector<float> &want,
                 float relTol) {
  ASSERT_EQ(got.size(), want.size());
  float scale = 1e-6f;
  for (float w : want)
    scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], relTol * scale) << "element " << i;
}

float tolerance(int32_t dtype) {
  return dtype == fmt::kF16 ? 2e-3f : dtype == fmt::kBF16 ? 1e-2f : 1e-5f;
}

sc_desc asF32(const sc_desc &d) {
  sc_desc f = d;
  f.dtype = fmt::kF32;
  return f;
}

struct MatmulCase {
  std::string name;
  int32_t dtype;
  std::vector<int64_t> a, b, y, bias;
  bool transA = false, transB = false;
  float alpha = 1, beta = 0;
  int32_t epilogue = SC_EPILOGUE_NONE;
  int32_t math = SC_MATH_FP32;
  bool residual = false; // a tensor of y's shape, the last input
};

/// The CPU wrapper's result (epilogue and residual included) in fp32; with
/// beta, each of `runs` runs accumulates onto the last (the first onto
/// zeros).
std::vector<float> matmulReference(const MatmulCase &c,
                                   const std::vector<std::vector<float>> &in,
                                   int runs) {
  sc_desc a = desc(fmt::kF32, c.a), b = desc(fmt::kF32, c.b),
          y = desc(fmt::kF32, c.y), bias = desc(fmt::kF32, c.bias);
  const sc_desc *pb = c.bias.empty() ? nullptr : &bias;
  void *h = sc_dnnl_matmul_create(&a, &b, pb, c.residual ? &y : nullptr, &y,
                                  c.transA, c.transB, c.alpha, c.beta,
                                  c.epilogue);
  EXPECT_TRUE(h);
  std::vector<float> out(static_cast<size_t>(numel(y)), 0.0f);
  for (int r = 0; r < runs; ++r)
    sc_dnnl_matmul_run(h, in[0].data(), in[1].data(),
                       pb ? in[2].data() : nullptr,
                       c.residual ? in.back().data() : nullptr, out.data());
  sc_handle_free(h);
  return out;
}

void checkMatmul(const MatmulCase &c) {
  SCOPED_TRACE(c.name);
  OneOp op;
  op.inputs = {desc(c.dtype, c.a), desc(c.dtype, c.b)};
  if (!c.bias.empty())
    op.inputs.push_back(desc(c.dtype, c.bias));
  if (c.residual)
    op.inputs.push_back(desc(c.dtype, c.y));
  op.output = desc(c.dtype, c.y);
  op.create = [&](sc_cuda *cu) {
    return sc_cu_matmul_create(cu, &op.inputs[0], &op.inputs[1],
                               c.bias.empty() ? nullptr : &op.inputs[2],
                               c.residual ? &op.inputs.back() : nullptr,
                               &op.output, c.transA, c.transB, c.alpha, c.beta,
                               c.epilogue, c.math);
  };
  op.run = [&](sc_cuda *cu, void *h, void *const *in, void *y) {
    sc_cu_matmul_run(cu, h, in[0], in[1], c.bias.empty() ? nullptr : in[2],
                     c.residual ? in[op.inputs.size() - 1] : nullptr, y);
  };
  std::vector<std::vector<float>> values;
  for (size_t i = 0; i < op.inputs.size(); ++i)
    values.push_back(quarters(numel(op.inputs[i]), uint32_t(7 + i)));
  // Three runs: a direct one, the capture, a replay (with beta, each
  // accumulates onto the last).
  std::vector<float> got = op.execute(values, 3);
  expectClose(got, matmulReference(c, values, 3),
              c.epilogue == SC_EPILOGUE_GELU_TANH
                  ? std::max(tolerance(c.dtype), 1e-3f)
                  : tolerance(c.dtype));
}

std::vector<MatmulCase> matmulCases() {
  const int32_t f32 = fmt::kF32, f16 = fmt::kF16, bf16 = fmt::kBF16;
  // clang-format off
  return {
      {"plain", f32, {3, 4}, {4, 5}, {3, 5}},
      {"transposed", f32, {4, 3}, {5, 4}, {3, 5}, {}, true, true},
      {"batched", f32, {2, 3, 4}, {2, 4, 5}, {2, 3, 5}},
      {"shared b", f32, {2, 3, 4}, {1, 4, 5}, {2, 3, 5}},
      {"shared b, a transposed", f32, {2, 4, 3}, {1, 4, 5}, {2, 3, 5}, {},
       true},
      {"shared a", f32, {1, 3, 4}, {2, 4, 5}, {2, 3, 5}},
      {"two batch dims", f32, {2, 3, 3, 4}, {2, 3, 4, 5}, {2, 3, 3, 5}},
      {"row bias, relu", f32, {2, 3, 4}, {2, 4, 5}, {2, 3, 5}, {1, 1, 5},
       false, false, 1, 0, SC_EPILOGUE_RELU},
      {"bias per batch, gelu", f32, {2, 3, 4}, {1, 4, 5}, {2, 3, 5},
       {2, 1, 5}, false, false, 1, 0, SC_EPILOGUE_GELU_TANH},
      {"full bias", f32, {2, 3, 4}, {2, 4, 5}, {2, 3, 5}, {2, 3, 5}},
      {"alpha leaves the bias", f32, {3, 4}, {4, 5}, {3, 5}, {1, 5}, false,
       false, 0.5f},
      {"accumulate", f32, {3, 4}, {4, 5}, {3, 5}, {1, 5}, false, false, 1,
       1},
      {"larger", f32, {64, 128}, {128, 96}, {64, 96}, {1, 96}},
      {"tf32", f32, {64, 128}, {128, 96}, {64, 96}, {}, false, false, 1, 0,
       SC_EPILOGUE_NONE, SC_MATH_TF32},
      {"f16", f16, {2, 16, 32}, {2, 32, 24}, {2, 16, 24}, {1, 1, 24}},
      {"bf16", bf16, {2, 16, 32}, {1, 32, 24}, {2, 16, 24}, {1, 1, 24},
       false, false, 1, 0, SC_EPILOGUE_RELU},
      {"row bias, residual", f32, {2, 3, 4}, {1, 4, 5}, {2, 3, 5}, {1, 1, 5},
       false, false, 1, 0, SC_EPILOGUE_NONE, SC_MATH_FP32, true},
      {"residual, no bias, batched", f32, {2, 3, 4}, {2, 5, 4}, {2, 3, 5},
       {}, false, true, 0.5f, 0, SC_EPILOGUE_NONE, SC_MATH_FP32, true},
      {"f16 row bias, residual", f16, {2, 16, 32}, {1, 32, 24}, {2, 16, 24},
       {1, 1, 24}, false, false, 1, 0, SC_EPILOGUE_NONE, SC_MATH_FP32, true},
      {"row bias, gelu tanh", f32, {64, 128}, {128, 96}, {64, 96}, {1, 96},
       false, false, 1, 0, SC_EPILOGUE_GELU_TANH},
      {"outer calls (batch dims broadcast differently)", f32, {3, 1, 3, 4},
       {1, 2, 4, 2}, {3, 2, 3, 2}},
      {"outer calls, f16 row bias", f16, {2, 1, 8, 16}, {1, 3, 16, 8},
       {2, 3, 8, 8}, {2, 1, 1, 8}},
  };
  // clang-format on
}

TEST(CudaGpu, MatmulOnCublasLt) {
  SKIP_WITHOUT_GPU();
  for (const MatmulCase &c : matmulCases())
    checkMatmul(c);
}

// Without a GPU: every case of MatmulOnCublasLt is a valid product (its
// oneDNN reference builds), so a GPU session finds no broken case.
TEST(CudaGpuCases, MatmulReferencesBuild) {
  for (const MatmulCase &c : matmulCases()) {
    SCOPED_TRACE(c.name);
    auto values_of = [](const std::vector<int64_t> &dims) {
      return quarters(numel(desc(fmt::kF32, dims)), 1);
    };
    std::vector<std::vector<float>> values = {values_of(c.a), values_of(c.b)};
    if (!c.bias.empty())
      values.push_back(values_of(c.bias));
    if (c.residual)
      values.push_back(values_of(c.y));
    EXPECT_EQ(matmulReference(c, values, 1).size(),
              size_t(numel(desc(fmt::kF32, c.y))));
  }
}

/// Not a test: the throughput of the cuBLASLt plans that generated code
/// makes, for docs/performance.md (docs/gpu-validation.md, step 3). Run with
/// --gtest_also_run_disabled_tests --gtest_filter='*MatmulThroughput'.
/// Each run of the program holds `reps` products on device buffers (the
/// inputs are copied in and the output out once per run); the time of one
/// product is the difference between runs of 1 + kExtra and of 1 product,
/// over kExtra, so the copies cancel out. Runs replay a CUDA graph.
TEST(CudaGpu, DISABLED_MatmulThroughput) {
  SKIP_WITHOUT_GPU();
  struct Shape {
    const char *name;
    int64_t m, n, k;
    int32_t dtype;
  };
  const int32_t f16 = fmt::kF16, bf16 = fmt::kBF16;
  const Shape shapes[] = {
      {"8192x8192x8192 bf16", 8192, 8192, 8192, bf16},
      {"8192x8192x8192 fp16", 8192, 8192, 8192, f16},
      {"GPT-2 QKV 4096x2304x768 fp16", 4096, 2304, 768, f16},
      {"GPT-2 FC1 4096x3072x768 fp16", 4096, 3072, 768, f16},
      {"GPT-2 FC2 4096x768x3072 fp16", 4096, 768, 3072, f16},
      {"GPT-2 LM head 4096x50257x768 fp16", 4096, 50257, 768, f16},
      {"LM head, vocab padded to 50304, fp16", 4096, 50304, 768, f16},
  };
  constexpr int kExtra = 20, kTimed = 10;
  for (const Shape &s : shapes) {
    double seconds[2];
    for (int variant = 0; variant < 2; ++variant) {
      int reps = variant == 0 ? 1 : 1 + kExtra;
      OneOp op;
      op.inputs = {desc(s.dtype, {s.m, s.k}), desc(s.dtype, {s.k, s.n})};
      op.output = desc(s.dtype, {s.m, s.n});
      op.create = [&](sc_cuda *cu) {
        return sc_cu_matmul_create(cu, &op.inputs[0], &op.inputs[1], nullptr,
                                   nullptr, &op.output, 0, 0, 1.0f, 0.0f,
                                   SC_EPILOGUE_NONE, SC_MATH_FP32);
      };
      op.run = [&](sc_cuda *cu, void *h, void *const *in, void *y) {
        for (int r = 0; r < reps; ++r)
          sc_cu_matmul_run(cu, h, in[0], in[1], nullptr, nullptr, y);
      };
      std::unique_ptr<FakeProgram> program;
      shardc_model *m = nullptr;
      ASSERT_EQ(op.load(program, &m), SHARDC_OK) << shardc_last_error();
      for (size_t i = 0; i < 2; ++i) {
        std::vector<uint8_t> bytes = encode(
            quarters(numel(op.inputs[i]), uint32_t(3 + i)), s.dtype);
        ASSERT_EQ(shardc_bind_input(m, ("in" + std::to_string(i)).c_str(),
                                    s.dtype, 2, op.inputs[i].dims,
                                    bytes.data(), bytes.size()),
                  SHARDC_OK);
      }
      for (int w = 0; w < 3; ++w) // direct, capture, replay
        ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
      auto t0 = std::chrono::steady_clock::now();
      for (int t = 0; t < kTimed; ++t)
        ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
      seconds[variant] = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - t0)
                             .count() /
                         kTimed;
      shardc_free(m);
    }
    double perProduct = (seconds[1] - seconds[0]) / kExtra;
    double tflops = 2.0 * double(s.m) * double(s.n) * double(s.k) /
                    perProduct / 1e12;
    std::printf("matmul %-36s %9.3f ms  %7.1f TFLOP/s\n", s.name,
                perProduct * 1e3, tflops);
  }
}

struct ConvCase {
  std::string name;
  int32_t dtype;
  std::vector<int64_t> x, w, y;
  bool bias;
  std::vector<int64_t> strides, dilations, pads;
  int64_t group = 1;
  bool transposed = false;
  int32_t math = SC_MATH_FP32;
};

void checkConv(const ConvCase &c) {
  SCOPED_TRACE(c.name);
  const int64_t outChannels = c.y[1];
  OneOp op;
  op.inputs = {desc(c.dtype, c.x), desc(c.dtype, c.w)};
  if (c.bias)
    op.inputs.push_back(desc(c.dtype, {outChannels}));
  op.output = desc(c.dtype, c.y);
  op.create = [&](sc_cuda *cu) {
    return sc_cu_conv_create(cu, &op.inputs[0], &op.inputs[1],
                             c.bias ? &op.inputs[2] : nullptr, &op.output,
                             c.strides.data(), c.dilations.data(),
                             c.pads.data(), c.group, c.transposed, c.math);
  };
  op.run = [&](sc_cuda *cu, void *h, void *const *in, void *y) {
    sc_cu_conv_run(cu, h, in[0], in[1], c.bias ? in[2] : nullptr, y);
  };
  std::vector<std::vector<float>> values;
  for (size_t i = 0; i < op.inputs.size(); ++i)
    values.push_back(quarters(numel(op.inputs[i]), uint32_t(11 + i)));
  std::vector<float> got = op.execute(values, 3);

  std::vector<sc_desc> f32;
  for (const sc_desc &d : op.inputs)
    f32.push_back(asF32(d));
  sc_desc y = asF32(op.output);
  void *h = sc_dnnl_conv_create(&f32[0], &f32[1], c.bias ? &f32[2] : nullptr,
                                /*residual=*/nullptr, &y, c.strides.data(),
                                c.dilations.data(), c.pads.data(), c.group,
                                c.transposed, SC_EPILOGUE_NONE,
                                /*channels_last=*/0);
  ASSERT_TRUE(h);
  std::vector<float> want(static_cast<size_t>(numel(y)));
  sc_dnnl_conv_run(h, values[0].data(), values[1].data(),
                   c.bias ? values[2].data() : nullptr, nullptr, want.data());
  sc_handle_free(h);
  expectClose(got, want, tolerance(c.dtype));
}

TEST(CudaGpu, ConvolutionOnCudnn) {
  SKIP_WITHOUT_GPU();
  const int32_t f32 = fmt::kF32, f16 = fmt::kF16, bf16 = fmt::kBF16;
  // clang-format off
  std::vector<ConvCase> cases = {
      {"2-D, padded, bias", f32, {1, 3, 8, 8}, {4, 3, 3, 3}, {1, 4, 8, 8},
       true, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {"grouped, strided, dilated", f32, {2, 4, 9, 9}, {6, 2, 3, 3},
       {2, 6, 4, 4}, true, {2, 2}, {2, 2}, {1, 1, 1, 1}, 2},
      {"1-D", f32, {2, 4, 10}, {6, 2, 3}, {2, 6, 2}, false, {3}, {2}, {0, 0},
       2},
      {"3-D", f32, {1, 2, 4, 4, 4}, {3, 2, 3, 3, 3}, {1, 3, 2, 2, 2}, true,
       {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}},
      {"depthwise", f32, {1, 8, 6, 6}, {8, 1, 3, 3}, {1, 8, 6, 6}, true,
       {1, 1}, {1, 1}, {1, 1, 1, 1}, 8},
      {"transposed", f32, {1, 4, 5, 5}, {4, 2, 3, 3}, {1, 2, 10, 10}, true,
       {2, 2}, {1, 1}, {1, 1, 0, 0}, 1, true},
      {"transposed, grouped", f32, {1, 4, 5, 5}, {4, 3, 3, 3}, {1, 6, 7, 7},
       false, {1, 1}, {1, 1}, {0, 0, 0, 0}, 2, true},
      {"transposed, pads differ at the ends (cropped)", f32, {1, 1, 3, 3},
       {1, 2, 3, 3}, {1, 2, 6, 6}, false, {2, 2}, {1, 1}, {0, 0, 1, 1}, 1,
       true},
      {"transposed 3-D, cropped, bias", f16, {1, 2, 3, 3, 3},
       {2, 2, 2, 2, 2}, {1, 2, 5, 5, 5}, true, {2, 2, 2}, {1, 1, 1},
       {0, 1, 0, 1, 0, 1}, 1, true},
      {"tf32", f32, {2, 16, 12, 12}, {32, 16, 3, 3}, {2, 32, 12, 12}, true,
       {1, 1}, {1, 1}, {1, 1, 1, 1}, 1, false, SC_MATH_TF32},
      {"f16", f16, {2, 16, 12, 12}, {32, 16, 3, 3}, {2, 32, 12, 12}, true,
       {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {"bf16", bf16, {2, 16, 12, 12}, {32, 16, 3, 3}, {2, 32, 12, 12}, true,
       {1, 1}, {1, 1}, {1, 1, 1, 1}},
  };
  // clang-format on
  for (const ConvCase &c : cases)
    checkConv(c);
}

TEST(CudaGpu, UnsupportedConfigurationsFailTheLoad) {
  SKIP_WITHOUT_GPU();
  OneOp op;
  // An empty inner dimension (the broadcast case this test used first,
  // a [2,1,3,4] x b [1,3,4,5], runs since outer batches became separate
  // calls: found on the H200, 2026-11-28).
  op.inputs = {desc(fmt::kF32, {3, 0}), desc(fmt::kF32, {0, 5})};
  op.output = desc(fmt::kF32, {3, 5});
  op.create = [&](sc_cuda *cu) {
    return sc_cu_matmul_create(cu, &op.inputs[0], &op.inputs[1], nullptr,
                               nullptr, &op.output, 0, 0, 1, 0,
                               SC_EPILOGUE_NONE, SC_MATH_FP32);
  };
  op.run = [](sc_cuda *, void *, void *const *, void *) {};
  std::unique_ptr<FakeProgram> program;
  shardc_model *m = nullptr;
  EXPECT_EQ(op.load(program, &m), SHARDC_ERROR_UNSUPPORTED);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(std::string(shardc_last_error()),
            "cuBLASLt matmul: a [3,0] x b [0,5] -> y [3,5]: the inner "
            "dimension is empty");
}

} // namespace
