//===- CudaTest.cpp - the CUDA device without a GPU -----------------------===//
//
// What runs on any machine: device selection and its fallback when the
// driver cannot be loaded (SHARDC_LIBCUDA points nowhere), the checks of a
// program's target mask and CUDA code, which image a GPU would run, and how
// matmuls and convolutions map onto cuBLASLt and cuDNN.
//
//===----------------------------------------------------------------------===//
#include "shardc/runtime.h"
#include "runtime/src/TensorIO.h"
#include "runtime/src/cuda/ConvPlan.h"
#include "runtime/src/cuda/Image.h"
#include "runtime/src/cuda/MatmulPlan.h"
#include "runtime/test/FakeProgram.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace shardc::testing;
using namespace shardc::rt::cuda;
namespace fmt = shardc::format;

namespace {

constexpr uint32_t kCpu = fmt::kTargetCpu, kCuda = fmt::kTargetCuda;
const char *const kNoDriver = "/nonexistent/libcuda.so.1";

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
  EXPECT_EQ(reason.rfind("no usable GPU: cannot load " + std::string(kNoDriver) +
                             " (",
                         0),
            0u)
      << reason;
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
  for (auto [program, device] :
       {std::pair{&cpuOnly, SHARDC_DEVICE_AUTO},
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
  const std::string want =
      "no usable GPU: cannot load " + std::string(kNoDriver) + " (";
  for (auto [program, device] :
       {std::pair{&cudaOnly, SHARDC_DEVICE_AUTO},
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
  expectError(load(cpuOnly, static_cast<shardc_device>(7), &m),
              SHARDC_ERROR_INVALID_ARGUMENT, "unknown device 7");
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
  for (const char *bad : {"sm_90a", "sm_", "sm_9", "sm_0800", "gfx90a",
                          "compute_", "SM_80", ""})
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
  EXPECT_TRUE(planMatmul(da, db, bias ? &dbias : nullptr, dy, ta, tb, p, error))
      << error;
  return p;
}

std::string planError(std::vector<int64_t> a, std::vector<int64_t> b,
                      std::vector<int64_t> y,
                      std::vector<int64_t> bias = {}) {
  sc_desc da = desc(a), db = desc(b), dy = desc(y), dbias = desc(bias);
  MatmulPlan p;
  std::string error;
  EXPECT_FALSE(planMatmul(da, db, bias.empty() ? nullptr : &dbias, dy, false,
                          false, p, error));
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
  EXPECT_EQ(planError({2, 1, 3, 4}, {1, 3, 4, 5}, {2, 3, 3, 5}),
            "a [2,1,3,4] x b [1,3,4,5] -> y [2,3,3,5]: the batch dims "
            "broadcast differently from one dim to the next, which one "
            "strided batch cannot express");
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

template <size_t N> std::vector<int> ints(const int (&a)[N], int n) {
  return std::vector<int>(a, a + n);
}

TEST(CudaConvPlan, Forward) {
  ConvPlan p = Conv{{1, 3, 8, 8}, {4, 3, 3, 3}, {1, 4, 8, 8}, {}, {},
                    {1, 1, 1, 1}}
                   .ok();
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
  Conv{{1, 1, 5, 5}, {1, 1, 3, 3}, {1, 1, 3, 3}, {2, 2}, {}, {1, 1, 2, 2}}
      .ok();
  // SAME_UPPER on an even input: the end pad makes an output row.
  Conv sameUpper{{1, 1, 224, 224}, {1, 1, 3, 3}, {1, 1, 112, 112}, {2, 2},
                 {}, {0, 0, 1, 1}};
  EXPECT_EQ(sameUpper.fails(),
            "x [1,1,224,224] * w [1,1,3,3] -> y [1,1,112,112]: cuDNN pads "
            "both ends of a dim by the same amount; pads 0 and 1 of spatial "
            "dim 0 do not fit that");
}

TEST(CudaConvPlan, Transposed) {
  // ConvTranspose stride 2, pads 1, output_padding 1: 5 -> 10.
  ConvPlan p = Conv{{1, 4, 5, 5}, {4, 2, 3, 3}, {1, 2, 10, 10}, {2, 2}, {},
                    {1, 1, 0, 0}, 1, true}
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

} // namespace
