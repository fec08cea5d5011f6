//===- CudaTest.cpp - the CUDA device without a GPU -----------------------===//
//
// What runs on any machine: device selection and its fallback when the
// driver cannot be loaded (SHARDC_LIBCUDA points nowhere), the checks of a
// program's target mask and CUDA code, which image a GPU would run, and how
// matmuls and convolutions map onto cuBLASLt and cuDNN.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/TensorIO.h"
#include "runtime/src/cuda/ConvPlan.h"
#include "runtime/src/cuda/Image.h"
#include "runtime/src/cuda/MatmulPlan.h"
#include "runtime/test/FakeProgram.h"
#include "shardc/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace shardc::testing;
using namespace shardc::rt::cuda;
namespace fmt = shardc::format;

namespace {

constexpr uint32_t kCpu = fmt::kTargetCpu, kCuda = fmt::kTargetCuda;
const char *const kNoDriver = "/nonexistent/libcuda.so.1";
// What loading CUDA code fails with here: the driver is not found, or this
// runtime was built without the CUDA device.
const std::string kNoGpu =
    SHARDC_HAVE_CUDA
        ? "no usable GPU: cannot load " + std::string(kNoDriver) + " ("
        : "no usable GPU: this runtime was built without the CUDA headers";

struct CudaDeviceTest : ::testing::Test {
  std::string weightsPath = ::testing::TempDir() + "/cuda_test.weights";
  std::string savedLibcuda;
  bool hadLibcuda = false;

  void SetUp() override {
    std::string error;
    ASSERT_TRUE(shardc::io::writeFile(weightsPath, fakeWeightsFile(), error))
        << error;
    if (const char *v = std::getenv("SHARDC_LIBCUDA")) {
      hadLibcuda = true;
      savedLibcuda = v;
    }
    ::setenv("SHARDC_LIBCUDA", kNoDriver, 1);
  }
  void TearDown() override {
    if (hadLibcuda)
      ::setenv("SHARDC_LIBCUDA", savedLibcuda.c_str(), 1);
    else
      ::unsetenv("SHARDC_LIBCUDA");
  }

  shardc_status load(const FakeProgram &p, shardc_device device,
                     shardc_model **m) {
    return shardc_load_on(&p.program, weightsPath.c_str(), 0, device, m);
  }

  void expectError(shardc_status got, shardc_status want,
                   const std::string &text) {
    EXPECT_EQ(got, want) << shardc_last_error();
    std::string msg = shardc_last_error();
    EXPECT_NE(msg.find(text), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
};

TEST_F(CudaDeviceTest, AutoFallsBackToTheCpuCode) {
  FakeProgram p(false, fakePlan(kCpu | kCuda));
  int before = liveHandles();
  shardc_model *m = nullptr;
  ASSERT_EQ(shardc_load(&p.program, weightsPath.c_str(), 0, &m), SHARDC_OK)
      << shardc_last_error();
  EXPECT_STREQ(shardc_device_description(m), "cpu");
  std::string reason = shardc_fallback_reason(m);
  EXPECT_EQ(reason.rfind(kNoGpu, 0), 0u) << reason;
  EXPECT_EQ(reason.find('\n'), std::string::npos);
  EXPECT_EQ(liveHandles(), before + 1); // only the CPU init ran

  float x[6] = {1, 2, 3, 4, 5, 6};
  int64_t ids[4] = {1, 2, 3, 4}, xd[2] = {2, 3}, idd[1] = {4};
  ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, xd, x, sizeof x),
            SHARDC_OK);
  ASSERT_EQ(shardc_bind_input(m, "ids", SHARDC_INT64, 1, idd, ids, sizeof ids),
            SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  const void *data;
  size_t bytes;
  ASSERT_EQ(shardc_output(m, 0, &data, &bytes), SHARDC_OK);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(static_cast<const float *>(data)[i], 1.5f * float(i + 1));
  ASSERT_EQ(shardc_output(m, 1, &data, &bytes), SHARDC_OK);
  EXPECT_EQ(static_cast<const int64_t *>(data)[3], 8);
  shardc_free(m);
  EXPECT_EQ(liveHandles(), before);
}

TEST_F(CudaDeviceTest, NoFallbackWithoutCudaCodeOrWhenCpuIsAsked) {
  FakeProgram cpuOnly;
  FakeProgram both(false, fakePlan(kCpu | kCuda));
  for (auto [program, device] : {std::pair{&cpuOnly, SHARDC_DEVICE_AUTO},
                                 std::pair{&cpuOnly, SHARDC_DEVICE_CPU},
                                 std::pair{&both, SHARDC_DEVICE_CPU}}) {
    shardc_model *m = nullptr;
    ASSERT_EQ(load(*program, device, &m), SHARDC_OK) << shardc_last_error();
    EXPECT_STREQ(shardc_device_description(m), "cpu");
    EXPECT_STREQ(shardc_fallback_reason(m), "");
    shardc_free(m);
  }
}

TEST_F(CudaDeviceTest, CudaCodeWithoutAGpuIsUnsupported) {
  FakeProgram cudaOnly(false, fakePlan(kCuda));
  FakeProgram both(false, fakePlan(kCpu | kCuda));
  int before = liveHandles();
  const std::string &want = kNoGpu;
  for (auto [program, device] : {std::pair{&cudaOnly, SHARDC_DEVICE_AUTO},
                                 std::pair{&cudaOnly, SHARDC_DEVICE_CUDA},
                                 std::pair{&both, SHARDC_DEVICE_CUDA}}) {
    shardc_model *m = nullptr;
    expectError(load(*program, device, &m), SHARDC_ERROR_UNSUPPORTED, want);
    EXPECT_EQ(std::string(shardc_last_error()).rfind(want, 0), 0u);
    EXPECT_EQ(m, nullptr);
  }
  EXPECT_EQ(liveHandles(), before);
}

TEST_F(CudaDeviceTest, AskingForCodeTheProgramLacks) {
  FakeProgram cpuOnly;
  FakeProgram cudaOnly(false, fakePlan(kCuda));
  shardc_model *m = nullptr;
  expectError(load(cpuOnly, SHARDC_DEVICE_CUDA, &m), SHARDC_ERROR_UNSUPPORTED,
              "this executable has no CUDA code");
  expectError(load(cudaOnly, SHARDC_DEVICE_CPU, &m), SHARDC_ERROR_UNSUPPORTED,
              "this executable has no CPU code");
  // 3 is the one value past the enumerators that C++ lets the enum hold
  // (a cast of 7 is undefined behaviour, which UBSan reports).
  expectError(load(cpuOnly, static_cast<shardc_device>(3), &m),
              SHARDC_ERROR_INVALID_ARGUMENT, "unknown device 3");
  EXPECT_EQ(m, nullptr);
  EXPECT_STREQ(shardc_device_description(nullptr), "");
  EXPECT_STREQ(shardc_fallback_reason(nullptr), "");
}

TEST_F(CudaDeviceTest, TargetMaskMustMatchTheProgram) {
  shardc_model *m = nullptr;
  auto expectFormat = [&](const FakeProgram &p, const std::string &text) {
    expectError(load(p, SHARDC_DEVICE_AUTO, &m), SHARDC_ERROR_FORMAT, text);
    EXPECT_EQ(m, nullptr);
    EXPECT_EQ(shardc_world_size(&p.program), -1);
  };
  expectFormat(FakeProgram(false, fakePlan(0)), "target mask is 0");
  expectFormat(FakeProgram(false, fakePlan(kCpu | 4)), "target mask is 5");

  FakeProgram noCuda(false, fakePlan(kCpu | kCuda));
  noCuda.program.cuda_ranks = nullptr;
  expectFormat(noCuda, "the plan lists CUDA code the program does not have");
  FakeProgram noCpu(false, fakePlan(kCpu | kCuda));
  noCpu.program.ranks = nullptr;
  expectFormat(noCpu, "the plan lists CPU code the program does not have");
  FakeProgram extraCuda;
  extraCuda.program.cuda_ranks = &extraCuda.cudaEntry;
  expectFormat(extraCuda, "the program has CUDA code its plan does not list");
  FakeProgram extraCpu(false, fakePlan(kCuda));
  extraCpu.program.ranks = &extraCpu.entry;
  expectFormat(extraCpu, "the program has CPU code its plan does not list");
  FakeProgram noEntry(false, fakePlan(kCuda));
  noEntry.cudaEntry.run = nullptr;
  expectFormat(noEntry, "program has no CUDA entry points for rank 0");
}

TEST_F(CudaDeviceTest, CudaCodeIsChecked) {
  shardc_model *m = nullptr;
  auto expectFormat = [&](const FakeProgram &p, const std::string &text) {
    expectError(load(p, SHARDC_DEVICE_AUTO, &m), SHARDC_ERROR_FORMAT, text);
  };
  FakeProgram noImages(false, fakePlan(kCpu | kCuda));
  noImages.program.num_cuda_images = 0;
  expectFormat(noImages, "program has CUDA entry points but no CUDA images");
  FakeProgram badArch(false, fakePlan(kCuda));
  badArch.image.arch = "sm_90a";
  expectFormat(badArch, "CUDA image for unknown arch 'sm_90a'");
  FakeProgram unterminated(false, fakePlan(kCuda));
  unterminated.image.size -= 1;
  expectFormat(unterminated, "PTX for compute_80 is not NUL-terminated");
  FakeProgram noNames(false, fakePlan(kCuda));
  noNames.program.cuda_kernels = nullptr;
  expectFormat(noNames, "2 CUDA kernels but no kernel names");
}

//===----------------------------------------------------------------------===//
// Images
//===----------------------------------------------------------------------===//

TEST(CudaImage, ParseArch) {
  bool ptx = true;
  int v = 0;
  EXPECT_TRUE(parseArch("sm_80", ptx, v));
  EXPECT_FALSE(ptx);
  EXPECT_EQ(v, 80);
  EXPECT_TRUE(parseArch("compute_90", ptx, v));
  EXPECT_TRUE(ptx);
  EXPECT_EQ(v, 90);
  EXPECT_TRUE(parseArch("sm_120", ptx, v));
  EXPECT_EQ(v, 120);
  for (const char *bad :
       {"sm_90a", "sm_", "sm_9", "sm_0800", "gfx90a", "compute_", "SM_80", ""})
    EXPECT_FALSE(parseArch(bad, ptx, v)) << bad;
  EXPECT_FALSE(parseArch(nullptr, ptx, v));
}

struct Images {
  std::vector<sc_cuda_image> images;
  shardc_program program = {};
  explicit Images(std::vector<const char *> archs) {
    static const unsigned char data[] = {0};
    for (const char *a : archs)
      images.push_back({a, data, 1});
    program.num_cuda_images = static_cast<uint32_t>(images.size());
    program.cuda_images = images.data();
  }
  std::string choose(int major, int minor) const {
    std::string error;
    const sc_cuda_image *img =
        chooseImage(program, major, minor, "Tesla T4", error);
    return img ? img->arch : "error: " + error;
  }
};

TEST(CudaImage, CubinOfTheMajorVersionElsePtx) {
  Images shipped({"sm_80", "sm_90", "compute_90"});
  EXPECT_EQ(shipped.choose(8, 0), "sm_80");
  EXPECT_EQ(shipped.choose(8, 6), "sm_80");
  EXPECT_EQ(shipped.choose(8, 9), "sm_80");
  EXPECT_EQ(shipped.choose(9, 0), "sm_90");
  EXPECT_EQ(shipped.choose(10, 0), "compute_90");
  EXPECT_EQ(shipped.choose(12, 0), "compute_90");
  EXPECT_EQ(shipped.choose(7, 5),
            "error: GPU 'Tesla T4' is sm_75; this executable has code for "
            "sm_80, sm_90 and compute_90");

  Images minors({"sm_86", "sm_80"});
  EXPECT_EQ(minors.choose(8, 0), "sm_80");
  EXPECT_EQ(minors.choose(8, 6), "sm_86");
  EXPECT_EQ(minors.choose(8, 9), "sm_86");
  EXPECT_EQ(minors.choose(9, 0), "error: GPU 'Tesla T4' is sm_90; this "
                                 "executable has code for sm_86 and sm_80");

  // PTX for compute_90 cannot run on an Ampere GPU.
  Images ptxOnly({"compute_90"});
  EXPECT_EQ(ptxOnly.choose(8, 6), "error: GPU 'Tesla T4' is sm_86; this "
                                  "executable has code for compute_90");
  EXPECT_EQ(ptxOnly.choose(9, 0), "compute_90");
}

//===----------------------------------------------------------------------===//
// Matmul plans
//===----------------------------------------------------------------------===//

sc_desc desc(std::vector<int64_t> dims) {
  sc_desc d = {};
  d.dtype = fmt::kF32;
  d.rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    d.dims[i] = dims[i];
  return d;
}

void expectMatrix(const LtMatrix &m, uint64_t rows, uint64_t cols, int64_t ld,
                  int64_t stride) {
  EXPECT_EQ(m.rows, rows);
  EXPECT_EQ(m.cols, cols);
  EXPECT_EQ(m.ld, ld);
  EXPECT_EQ(m.batchStride, stride);
}

MatmulPlan plan(std::vector<int64_t> a, std::vector<int64_t> b,
                std::vector<int64_t> y, bool ta = false, bool tb = false,
                const std::vector<int64_t> *bias = nullptr) {
  sc_desc da = desc(a), db = desc(b), dy = desc(y), dbias;
  if (bias)
    dbias = desc(*bias);
  MatmulPlan p;
  std::string error;
  EXPECT_TRUE(planMatmul(da, db, bias ? &dbias : nullptr, nullptr, dy, ta, tb,
                         p, error))
      << error;
  return p;
}

std::string planError(std::vector<int64_t> a, std::vector<int64_t> b,
                      std::vector<int64_t> y, std::vector<int64_t> bias = {},
                      std::vector<int64_t> residual = {}) {
  sc_desc da = desc(a), db = desc(b), dy = desc(y), dbias = desc(bias),
          dres = desc(residual);
  MatmulPlan p;
  std::string error;
  EXPECT_FALSE(planMatmul(da, db, bias.empty() ? nullptr : &dbias,
                          residual.empty() ? nullptr : &dres, dy, false, false,
                          p, error));
  return error;
}

TEST(CudaMatmulPlan, RowMajorAsColumnMajor) {
  // y[3,5] = a[3,4] b[4,5]: cuBLASLt computes y^T[5,3] = b^T a^T.
  MatmulPlan p = plan({3, 4}, {4, 5}, {3, 5});
  expectMatrix(p.a, 5, 4, 5, 0);
  expectMatrix(p.b, 4, 3, 4, 0);
  expectMatrix(p.d, 5, 3, 5, 0);
  EXPECT_FALSE(p.transA);
  EXPECT_FALSE(p.transB);
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.bias, MatmulPlan::Bias::None);

  // a stored [4,3], b stored [5,4].
  p = plan({4, 3}, {5, 4}, {3, 5}, true, true);
  expectMatrix(p.a, 4, 5, 4, 0);
  expectMatrix(p.b, 3, 4, 3, 0);
  EXPECT_TRUE(p.transA);
  EXPECT_TRUE(p.transB);
}

TEST(CudaMatmulPlan, Batches) {
  MatmulPlan p = plan({2, 3, 4}, {2, 4, 5}, {2, 3, 5});
  EXPECT_EQ(p.batch, 2);
  EXPECT_EQ(p.a.batchStride, 20);
  EXPECT_EQ(p.b.batchStride, 12);
  EXPECT_EQ(p.d.batchStride, 15);

  // A shared b: the batches of a are more rows of one GEMM.
  p = plan({2, 3, 4}, {1, 4, 5}, {2, 3, 5});
  EXPECT_EQ(p.batch, 1);
  expectMatrix(p.b, 4, 6, 4, 0);
  expectMatrix(p.d, 5, 6, 5, 0);
  // ... but not when a is transposed: its batches are not rows then.
  p = plan({2, 4, 3}, {1, 4, 5}, {2, 3, 5}, true);
  EXPECT_EQ(p.batch, 2);
  EXPECT_EQ(p.a.batchStride, 0);
  EXPECT_EQ(p.b.batchStride, 12);

  // A shared a broadcasts with a zero stride.
  p = plan({1, 3, 4}, {2, 4, 5}, {2, 3, 5});
  EXPECT_EQ(p.batch, 2);
  EXPECT_EQ(p.a.batchStride, 20);
  EXPECT_EQ(p.b.batchStride, 0);

  // Several batch dims that broadcast alike are one; unit dims do not count.
  p = plan({2, 1, 3, 3, 4}, {2, 1, 3, 4, 5}, {2, 1, 3, 3, 5});
  EXPECT_EQ(p.batch, 6);
  EXPECT_TRUE(p.calls.empty());

  // Batch dims that broadcast differently: the inner ones are one strided
  // batch, the outer one call per index. y[i,j] = a[i,0] b[0,j]: b dense
  // inside, a outside.
  p = plan({2, 1, 3, 4}, {1, 3, 4, 5}, {2, 3, 3, 5});
  EXPECT_EQ(p.batch, 3);
  EXPECT_EQ(p.a.batchStride, 20); // cuBLASLt's A is our b
  EXPECT_EQ(p.b.batchStride, 0);
  ASSERT_EQ(p.calls.size(), 2u);
  EXPECT_EQ(p.calls[1].a, 12);
  EXPECT_EQ(p.calls[1].b, 0);
  EXPECT_EQ(p.calls[1].y, 45);
  // Three levels: a dense in dim 0, b in dim 1, both in dim 2.
  p = plan({2, 1, 2, 3, 4}, {1, 2, 2, 4, 5}, {2, 2, 2, 3, 5});
  EXPECT_EQ(p.batch, 2);
  ASSERT_EQ(p.calls.size(), 4u);
  EXPECT_EQ(p.calls[3].a, 24);
  EXPECT_EQ(p.calls[3].b, 40);
  EXPECT_EQ(p.calls[3].y, 90);
  EXPECT_EQ(planError({2, 3, 4}, {3, 4, 5}, {3, 3, 5}),
            "a [2,3,4] x b [3,4,5] -> y [3,3,5]: batch dim 0 does not "
            "broadcast");
}

TEST(CudaMatmulPlan, Bias) {
  std::vector<int64_t> row = {1, 1, 5}, rows = {2, 1, 5}, full = {2, 3, 5};
  MatmulPlan p = plan({2, 3, 4}, {2, 4, 5}, {2, 3, 5}, false, false, &row);
  EXPECT_EQ(p.bias, MatmulPlan::Bias::Row);
  EXPECT_EQ(p.biasBatchStride, 0);
  p = plan({2, 3, 4}, {2, 4, 5}, {2, 3, 5}, false, false, &rows);
  EXPECT_EQ(p.bias, MatmulPlan::Bias::Row);
  EXPECT_EQ(p.biasBatchStride, 5);
  p = plan({2, 3, 4}, {2, 4, 5}, {2, 3, 5}, false, false, &full);
  EXPECT_EQ(p.bias, MatmulPlan::Bias::Full);
  // A shared b with a bias per batch cannot become one GEMM.
  p = plan({2, 3, 4}, {1, 4, 5}, {2, 3, 5}, false, false, &rows);
  EXPECT_EQ(p.batch, 2);
  // ... with a shared row bias or one of y's shape it can.
  p = plan({2, 3, 4}, {1, 4, 5}, {2, 3, 5}, false, false, &full);
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.bias, MatmulPlan::Bias::Full);

  EXPECT_EQ(planError({3, 4}, {4, 5}, {3, 5}, {3, 1}),
            "a [3,4] x b [4,5] -> y [3,5]: bias [3,1] is neither a row of y "
            "nor y's shape");
  EXPECT_EQ(planError({2, 3, 4}, {2, 4, 5}, {2, 3, 5}, {1, 3, 5}),
            "a [2,3,4] x b [2,4,5] -> y [2,3,5]: bias [1,3,5] is neither a "
            "row of y nor y's shape");
}

TEST(CudaMatmulPlan, Residual) {
  // A residual is C (y's layout) with beta = 1, next to a row bias.
  sc_desc a = desc({2, 3, 4}), b = desc({1, 4, 5}), y = desc({2, 3, 5}),
          row = desc({1, 1, 5});
  MatmulPlan p;
  std::string error;
  ASSERT_TRUE(planMatmul(a, b, &row, &y, y, false, false, p, error)) << error;
  EXPECT_TRUE(p.residual);
  EXPECT_EQ(p.bias, MatmulPlan::Bias::Row);
  EXPECT_EQ(p.batch, 1); // still one GEMM over the batches' rows
  expectMatrix(p.d, 5, 6, 5, 0);
  ASSERT_TRUE(planMatmul(a, b, nullptr, nullptr, y, false, false, p, error));
  EXPECT_FALSE(p.residual);

  EXPECT_EQ(planError({2, 3, 4}, {1, 4, 5}, {2, 3, 5}, {}, {1, 3, 5}),
            "a [2,3,4] x b [1,4,5] -> y [2,3,5]: residual [1,3,5] is not y's "
            "shape");
  EXPECT_EQ(planError({3, 4}, {4, 5}, {3, 5}, {3, 5}, {3, 5}),
            "a [3,4] x b [4,5] -> y [3,5]: a residual and a bias of y's shape "
            "would both be cuBLASLt's C");
}

TEST(CudaMatmulPlan, ShapeErrorsAndEmpty) {
  EXPECT_EQ(planError({3, 4}, {5, 5}, {3, 5}),
            "a [3,4] x b [5,5] -> y [3,5]: the matrix dims do not match");
  EXPECT_EQ(planError({4}, {4, 5}, {5}),
            "ranks a 1, b 2, y 1 (need equal, 2 to 8)");
  EXPECT_TRUE(plan({0, 4}, {4, 5}, {0, 5}).empty);
  EXPECT_TRUE(plan({2, 0, 3, 4}, {1, 1, 4, 5}, {2, 0, 3, 5}).empty);
  EXPECT_EQ(planError({3, 0}, {0, 5}, {3, 5}),
            "a [3,0] x b [0,5] -> y [3,5]: the inner dimension is empty");
}

// cuBLASLt's documented semantics on a plan: column-major matrices with
// leading dims, ops, a strided batch; D = epilogue(alpha op(A) op(B) + beta C
// + bias) (bias a vector over D's rows; the epilogue ReLU or cuBLASLt's
// tanh GELU). A is our b, B our a, C a full bias, the residual or y.
std::vector<float> emulateCublasLt(const MatmulPlan &p,
                                   const std::vector<float> &a,
                                   const std::vector<float> &b,
                                   const std::vector<float> &bias,
                                   const std::vector<float> &residual,
                                   float alpha, float beta, int32_t epilogue,
                                   std::vector<float> y) {
  const bool full = p.bias == MatmulPlan::Bias::Full;
  const float betaC = full || p.residual ? 1.0f : beta;
  const std::vector<float> c = full ? bias : p.residual ? residual : y;
  const uint64_t m = p.d.rows, n = p.d.cols;
  const uint64_t k = p.transA ? p.a.rows : p.a.cols;
  std::vector<MatmulOffsets> calls = p.calls;
  if (calls.empty())
    calls.push_back(MatmulOffsets());
  for (const MatmulOffsets &o : calls)
  for (int64_t i = 0; i < p.batch; ++i)
    for (uint64_t col = 0; col < n; ++col)
      for (uint64_t row = 0; row < m; ++row) {
        float acc = 0;
        for (uint64_t kk = 0; kk < k; ++kk) {
          float av = p.transA
                         ? b[o.b + i * p.a.batchStride + kk + row * p.a.ld]
                         : b[o.b + i * p.a.batchStride + row + kk * p.a.ld];
          float bv = p.transB
                         ? a[o.a + i * p.b.batchStride + col + kk * p.b.ld]
                         : a[o.a + i * p.b.batchStride + kk + col * p.b.ld];
          acc += av * bv;
        }
        const uint64_t at = o.y + i * p.d.batchStride + row + col * p.d.ld;
        float v = alpha * acc +
                  betaC * c[full ? o.bias + i * p.d.batchStride + row +
                                       col * p.d.ld
                                 : at];
        if (p.bias == MatmulPlan::Bias::Row)
          v += bias[o.bias + i * p.biasBatchStride + row];
        if (epilogue == SC_EPILOGUE_RELU)
          v = std::max(v, 0.0f);
        else if (epilogue == SC_EPILOGUE_GELU_TANH)
          v = 0.5f * v *
              (1 + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
        y[at] = v;
      }
  return y;
}

std::vector<float> ramp(int64_t n, float step) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(int(i * 7 % 11) - 5) * step;
  return v;
}

TEST(CudaMatmulPlan, EmulatedCublasLtMatchesOneDnn) {
  struct Case {
    std::vector<int64_t> a, b, y, bias;
    bool ta = false, tb = false;
    float alpha = 1, beta = 0;
    int32_t epilogue = SC_EPILOGUE_NONE;
    bool residual = false;
  };
  // clang-format off
  const std::vector<Case> cases = {
      {{3, 4}, {4, 5}, {3, 5}},
      {{4, 3}, {5, 4}, {3, 5}, {}, true, true},
      {{4, 3}, {4, 5}, {3, 5}, {}, true, false},
      {{3, 4}, {5, 4}, {3, 5}, {}, false, true},
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}},
      {{2, 3, 4}, {1, 4, 5}, {2, 3, 5}},
      {{2, 4, 3}, {1, 5, 4}, {2, 3, 5}, {}, true, true},
      {{1, 3, 4}, {2, 4, 5}, {2, 3, 5}},
      {{1, 3, 4}, {2, 5, 4}, {2, 3, 5}, {}, false, true},
      {{2, 3, 3, 4}, {2, 3, 4, 5}, {2, 3, 3, 5}},
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}, {1, 1, 5}},
      {{2, 3, 4}, {1, 4, 5}, {2, 3, 5}, {2, 1, 5}},
      {{2, 3, 4}, {1, 4, 5}, {2, 3, 5}, {2, 3, 5}},
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}, {2, 3, 5}, false, false, 0.5f},
      {{3, 4}, {4, 5}, {3, 5}, {1, 5}, false, false, 0.5f, 0.75f},
      {{1, 4}, {4, 1}, {1, 1}, {1, 1}},
      // Epilogues after a row bias (or a full one, which is C), residuals.
      {{3, 4}, {4, 5}, {3, 5}, {1, 5}, false, false, 1, 0, SC_EPILOGUE_RELU},
      {{3, 4}, {5, 4}, {3, 5}, {1, 5}, false, true, 1, 0,
       SC_EPILOGUE_GELU_TANH},
      {{2, 3, 4}, {1, 4, 5}, {2, 3, 5}, {2, 1, 5}, false, false, 1, 0,
       SC_EPILOGUE_GELU_TANH},
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}, {2, 3, 5}, false, false, 1, 0,
       SC_EPILOGUE_RELU},
      {{2, 4, 3}, {1, 4, 5}, {2, 3, 5}, {}, true, false, 1, 0,
       SC_EPILOGUE_RELU},
      {{3, 4}, {4, 5}, {3, 5}, {1, 5}, false, false, 1, 0, SC_EPILOGUE_NONE,
       true},
      {{2, 3, 4}, {1, 4, 5}, {2, 3, 5}, {1, 1, 5}, false, false, 0.5f, 0,
       SC_EPILOGUE_NONE, true},
      {{2, 3, 4}, {2, 5, 4}, {2, 3, 5}, {}, false, true, 1, 0,
       SC_EPILOGUE_NONE, true},
      // Outer calls: batch dims that broadcast differently (the ONNX node
      // test matmul_bcast's shapes first).
      {{3, 1, 3, 4}, {1, 2, 4, 2}, {3, 2, 3, 2}},
      {{2, 1, 3, 4}, {1, 3, 5, 4}, {2, 3, 3, 5}, {2, 1, 1, 5}, false, true,
       1, 0, SC_EPILOGUE_RELU},
      {{2, 1, 2, 3, 4}, {1, 2, 2, 4, 5}, {2, 2, 2, 3, 5}, {}, false, false,
       1, 0, SC_EPILOGUE_NONE, true},
      {{1, 2, 4, 3}, {2, 1, 4, 5}, {2, 2, 3, 5}, {2, 2, 3, 5}, true},
  };
  // clang-format on
  for (const Case &c : cases) {
    sc_desc a = desc(c.a), b = desc(c.b), y = desc(c.y), bias = desc(c.bias);
    const sc_desc *pb = c.bias.empty() ? nullptr : &bias;
    MatmulPlan p;
    std::string error;
    ASSERT_TRUE(planMatmul(a, b, pb, c.residual ? &y : nullptr, y, c.ta,
                           c.tb, p, error))
        << error;
    auto count = [](const sc_desc &d) {
      int64_t n = 1;
      for (int i = 0; i < d.rank; ++i)
        n *= d.dims[i];
      return n;
    };
    std::vector<float> va = ramp(count(a), 0.25f), vb = ramp(count(b), 0.5f),
                       vbias =
                           pb ? ramp(count(bias), 1.0f) : std::vector<float>(),
                       y0 = ramp(count(y), 0.125f),
                       vres = c.residual ? ramp(count(y), 0.375f)
                                         : std::vector<float>();
    std::vector<float> want = y0;
    void *h = sc_dnnl_matmul_create(&a, &b, pb, c.residual ? &y : nullptr, &y,
                                    c.ta, c.tb, c.alpha, c.beta, c.epilogue);
    ASSERT_TRUE(h);
    sc_dnnl_matmul_run(h, va.data(), vb.data(), pb ? vbias.data() : nullptr,
                       c.residual ? vres.data() : nullptr, want.data());
    sc_handle_free(h);
    std::vector<float> got = emulateCublasLt(p, va, vb, vbias, vres, c.alpha,
                                             c.beta, c.epilogue, y0);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-4f * (1 + std::fabs(want[i])))
          << "a " << c.a.size() << "-D, epilogue " << c.epilogue
          << (c.residual ? ", residual" : "") << ", element " << i;
  }
}

//===----------------------------------------------------------------------===//
// Convolution plans
//===----------------------------------------------------------------------===//

struct Conv {
  std::vector<int64_t> x, w, y, strides, dilations, pads;
  int64_t group = 1;
  bool transposed = false;
  std::vector<int64_t> bias;

  bool plan(ConvPlan &p, std::string &error) const {
    sc_desc dx = desc(x), dw = desc(w), dy = desc(y), db = desc(bias);
    return planConv(dx, dw, bias.empty() ? nullptr : &db, dy,
                    strides.empty() ? nullptr : strides.data(),
                    dilations.empty() ? nullptr : dilations.data(),
                    pads.empty() ? nullptr : pads.data(), group, transposed, p,
                    error);
  }
  ConvPlan ok() const {
    ConvPlan p;
    std::string error;
    EXPECT_TRUE(plan(p, error)) << error;
    return p;
  }
  std::string fails() const {
    ConvPlan p;
    std::string error;
    EXPECT_FALSE(plan(p, error));
    return error;
  }
};

std::string dimsText(const std::vector<int64_t> &d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

template <size_t N> std::vector<int> ints(const int (&a)[N], int n) {
  return std::vector<int>(a, a + n);
}

TEST(CudaConvPlan, Forward) {
  ConvPlan p =
      Conv{{1, 3, 8, 8}, {4, 3, 3, 3}, {1, 4, 8, 8}, {}, {}, {1, 1, 1, 1}}.ok();
  EXPECT_EQ(p.nbDims, 4);
  EXPECT_EQ(ints(p.x, 4), (std::vector<int>{1, 3, 8, 8}));
  EXPECT_EQ(ints(p.pads, 2), (std::vector<int>{1, 1}));
  EXPECT_EQ(ints(p.strides, 2), (std::vector<int>{1, 1}));
  EXPECT_EQ(p.outChannels, 4);

  // 1-D, grouped, strided and dilated: a 2-D convolution of height 1.
  p = Conv{{2, 4, 10}, {6, 2, 3}, {2, 6, 2}, {3}, {2}, {0, 0}, 2}.ok();
  EXPECT_EQ(p.nbDims, 4);
  EXPECT_EQ(ints(p.x, 4), (std::vector<int>{2, 4, 1, 10}));
  EXPECT_EQ(ints(p.w, 4), (std::vector<int>{6, 2, 1, 3}));
  EXPECT_EQ(ints(p.y, 4), (std::vector<int>{2, 6, 1, 2}));
  EXPECT_EQ(ints(p.strides, 2), (std::vector<int>{1, 3}));
  EXPECT_EQ(ints(p.dilations, 2), (std::vector<int>{1, 2}));
  EXPECT_EQ(p.groups, 2);

  p = Conv{{1, 2, 4, 4, 4}, {2, 2, 3, 3, 3}, {1, 2, 2, 2, 2}}.ok();
  EXPECT_EQ(p.nbDims, 5);
}

TEST(CudaConvPlan, Pads) {
  // An end pad that only feeds what floor() drops: cuDNN's symmetric pad
  // gives the same output.
  Conv{{1, 1, 5, 5}, {1, 1, 3, 3}, {1, 1, 3, 3}, {2, 2}, {}, {1, 1, 2, 2}}.ok();
  // SAME_UPPER on an even input: the end pad makes an output row.
  Conv sameUpper{{1, 1, 224, 224}, {1, 1, 3, 3}, {1, 1, 112, 112},
                 {2, 2},           {},           {0, 0, 1, 1}};
  EXPECT_EQ(sameUpper.fails(),
            "x [1,1,224,224] * w [1,1,3,3] -> y [1,1,112,112]: cuDNN pads "
            "both ends of a dim by the same amount; pads 0 and 1 of spatial "
            "dim 0 do not fit that");
}

TEST(CudaConvPlan, Transposed) {
  // ConvTranspose stride 2, pads 1, output_padding 1: 5 -> 10.
  ConvPlan p = Conv{{1, 4, 5, 5},
                    {4, 2, 3, 3},
                    {1, 2, 10, 10},
                    {2, 2},
                    {},
                    {1, 1, 0, 0},
                    1,
                    true}
                   .ok();
  EXPECT_TRUE(p.transposed);
  EXPECT_EQ(ints(p.w, 4), (std::vector<int>{4, 2, 3, 3}));
  EXPECT_EQ(ints(p.pads, 2), (std::vector<int>{1, 1}));
  // Grouped: weights C_in x C_out/group.
  Conv{{1, 4, 5, 5}, {4, 3, 3, 3}, {1, 6, 7, 7}, {}, {}, {}, 2, true}.ok();
  Conv wrongChannels{{1, 4, 5, 5}, {4, 3, 3, 3}, {1, 3, 7, 7}, {}, {}, {}, 2,
                     true};
  EXPECT_EQ(wrongChannels.fails(),
            "x [1,4,5,5] * w [4,3,3,3] -> y [1,3,7,7] (group 2): the batch or "
            "channel dims do not match");
}

TEST(CudaConvPlan, Errors) {
  Conv conv{{1, 3, 8, 8}, {4, 3, 3, 3}, {1, 4, 6, 6}};
  conv.bias = {3};
  EXPECT_EQ(conv.fails(), "x [1,3,8,8] * w [4,3,3,3] -> y [1,4,6,6]: bias [3] "
                          "is not one value per output channel");
  conv.bias = {1, 4, 1, 1};
  conv.ok();
  Conv unpadded{{1, 3, 8, 8}, {4, 3, 3, 3}, {1, 4, 8, 8}};
  EXPECT_EQ(unpadded.fails(),
            "x [1,3,8,8] * w [4,3,3,3] -> y [1,4,8,8]: cuDNN pads both ends "
            "of a dim by the same amount; pads 0 and 0 of spatial dim 0 do "
            "not fit that");
  Conv flat{{1, 3}, {4, 3}, {1, 4}};
  EXPECT_EQ(flat.fails(),
            "x [1,3] * w [4,3] -> y [1,4]: need x, w, y of one rank, 3 to 5");
  Conv empty{{0, 3, 8, 8}, {4, 3, 3, 3}, {0, 4, 6, 6}};
  EXPECT_TRUE(empty.ok().empty);
}

// cuDNN's cross-correlation on a plan's descriptors (symmetric pads), or its
// backward-data pass, the adjoint, for a transposed plan; plus the bias.
std::vector<float> emulateCudnn(const ConvPlan &p, const std::vector<float> &in,
                                const std::vector<float> &w,
                                const std::vector<float> &bias) {
  const int sd = p.nbDims - 2;
  // The forward relation maps `large` (its input) to `small` (its output);
  // a cropped transposed convolution computes the full output first.
  const int *large = p.transposed ? (p.cropped ? p.full : p.y) : p.x;
  const int *small = p.transposed ? p.x : p.y;
  auto size = [&](const int *d) {
    size_t n = 1;
    for (int i = 0; i < p.nbDims; ++i)
      n *= size_t(d[i]);
    return n;
  };
  auto spatial = [&](const int *d) { return size(d) / size_t(d[0] * d[1]); };
  const int K = p.w[0], Cg = p.w[1], Kg = K / p.groups;
  const size_t kernel = spatial(p.w), smallSpace = spatial(small),
               largeSpace = spatial(large);
  std::vector<float> out(p.transposed ? size(large) : size(small), 0.0f);
  for (int n = 0; n < small[0]; ++n)
    for (int k = 0; k < K; ++k)
      for (size_t o = 0; o < smallSpace; ++o)
        for (int c = 0; c < Cg; ++c)
          for (size_t kk = 0; kk < kernel; ++kk) {
            // Spatial coordinates, last dim fastest.
            size_t oi = o, ki = kk, li = 0, stride = 1;
            bool inside = true;
            for (int j = sd - 1; j >= 0; --j) {
              int oc = int(oi % size_t(small[2 + j]));
              int kc = int(ki % size_t(p.w[2 + j]));
              oi /= size_t(small[2 + j]);
              ki /= size_t(p.w[2 + j]);
              int at = oc * p.strides[j] - p.pads[j] + kc * p.dilations[j];
              inside = inside && at >= 0 && at < large[2 + j];
              li += size_t(at) * stride;
              stride *= size_t(large[2 + j]);
            }
            if (!inside)
              continue;
            const int channel = (k / Kg) * Cg + c;
            const size_t l = (size_t(n) * large[1] + channel) * largeSpace + li;
            const size_t s = (size_t(n) * K + k) * smallSpace + o;
            const float wv = w[(size_t(k) * Cg + c) * kernel + kk];
            if (p.transposed)
              out[l] += in[s] * wv;
            else
              out[s] += in[l] * wv;
          }
  if (p.cropped) {
    // cudnnTransformTensor of y's window of the full output.
    std::vector<float> window(size(p.y));
    const size_t yspace = spatial(p.y);
    for (size_t i = 0; i < window.size(); ++i) {
      size_t rest = i % yspace, at = 0, stride = 1;
      for (int j = p.nbDims - 1; j >= 2; --j) {
        at += (rest % size_t(p.y[j]) + size_t(p.crop[j])) * stride;
        rest /= size_t(p.y[j]);
        stride *= size_t(p.full[j]);
      }
      window[i] = out[(i / yspace) * largeSpace + at];
    }
    out = window;
  }
  const int *y = p.transposed ? p.y : small;
  if (!bias.empty())
    for (size_t i = 0; i < out.size(); ++i)
      out[i] += bias[i / spatial(y) % size_t(y[1])];
  return out;
}

TEST(CudaConvPlan, EmulatedCudnnMatchesOneDnn) {
  // clang-format off
  const std::vector<Conv> cases = {
      {{1, 3, 8, 8}, {4, 3, 3, 3}, {1, 4, 8, 8}, {}, {}, {1, 1, 1, 1}, 1,
       false, {4}},
      {{2, 4, 9, 9}, {6, 2, 3, 3}, {2, 6, 4, 4}, {2, 2}, {2, 2},
       {1, 1, 1, 1}, 2, false, {6}},
      {{2, 4, 10}, {6, 2, 3}, {2, 6, 2}, {3}, {2}, {0, 0}, 2},
      {{1, 2, 4, 4, 4}, {3, 2, 3, 3, 3}, {1, 3, 2, 2, 2}, {}, {}, {}, 1,
       false, {3}},
      {{1, 8, 6, 6}, {8, 1, 3, 3}, {1, 8, 6, 6}, {}, {}, {1, 1, 1, 1}, 8},
      {{1, 1, 5, 5}, {1, 1, 3, 3}, {1, 1, 3, 3}, {2, 2}, {}, {1, 1, 2, 2}},
      {{1, 4, 5, 5}, {4, 2, 3, 3}, {1, 2, 10, 10}, {2, 2}, {}, {1, 1, 0, 0},
       1, true, {2}},
      {{1, 4, 5, 5}, {4, 3, 3, 3}, {1, 6, 7, 7}, {}, {}, {}, 2, true},
      {{2, 4, 7}, {4, 3, 3}, {2, 6, 14}, {2}, {1}, {1, 0}, 2, true, {6}},
      // Transposed, pads differing at the ends: a window of the full output
      // (the node test convtranspose_autopad_same first).
      {{1, 1, 3, 3}, {1, 2, 3, 3}, {1, 2, 6, 6}, {2, 2}, {}, {0, 0, 1, 1},
       1, true},
      {{1, 2, 4, 4}, {2, 3, 3, 3}, {1, 3, 5, 5}, {}, {}, {1, 1, 0, 0}, 1,
       true, {3}},
      {{1, 2, 3, 3, 3}, {2, 2, 2, 2, 2}, {1, 2, 5, 5, 5}, {2, 2, 2}, {},
       {0, 1, 0, 1, 0, 1}, 1, true, {2}},
      {{2, 4, 5}, {4, 1, 3}, {2, 2, 8}, {2}, {}, {2, 1}, 2, true},
  };
  // clang-format on
  for (const Conv &c : cases) {
    ConvPlan p = c.ok();
    auto count = [](const std::vector<int64_t> &d) {
      int64_t n = 1;
      for (int64_t v : d)
        n *= v;
      return n;
    };
    std::vector<float> x = ramp(count(c.x), 0.25f), w = ramp(count(c.w), 0.5f),
                       bias = c.bias.empty() ? std::vector<float>()
                                             : ramp(count(c.bias), 1.0f);
    sc_desc dx = desc(c.x), dw = desc(c.w), dy = desc(c.y), db = desc(c.bias);
    std::vector<int64_t> ones(c.x.size() - 2, 1), zeros(2 * ones.size(), 0);
    void *h = sc_dnnl_conv_create(
        &dx, &dw, c.bias.empty() ? nullptr : &db, /*residual=*/nullptr, &dy,
        c.strides.empty() ? ones.data() : c.strides.data(),
        c.dilations.empty() ? ones.data() : c.dilations.data(),
        c.pads.empty() ? zeros.data() : c.pads.data(), c.group, c.transposed,
        SC_EPILOGUE_NONE, /*channels_last=*/0);
    ASSERT_TRUE(h);
    std::vector<float> want(static_cast<size_t>(count(c.y)));
    sc_dnnl_conv_run(h, x.data(), w.data(),
                     c.bias.empty() ? nullptr : bias.data(), nullptr,
                     want.data());
    sc_handle_free(h);
    std::vector<float> got = emulateCudnn(p, x, w, bias);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-3f)
          << "x " << dimsText(c.x) << (c.transposed ? " transposed" : "")
          << ", element " << i;
  }
}

} // namespace
