//===- RuntimeTest.cpp - the C API over a hand-written program ------------===//
//
// Loads the fake program of FakeProgram.h through shardc_load: plan decode,
// weights mapping and validation, binding, running, kernel failures, handles.
//
//===----------------------------------------------------------------------===//
#include "shardc/runtime.h"
#include "runtime/src/TensorIO.h"
#include "runtime/test/FakeProgram.h"

#include <gtest/gtest.h>

#include <thread>

using namespace shardc::testing;

namespace {

struct RuntimeTest : ::testing::Test {
  std::string dir = ::testing::TempDir();
  std::string weightsPath = dir + "/runtime_test.weights";

  void SetUp() override { write(weightsPath, fakeWeightsFile()); }

  void write(const std::string &path, const std::vector<uint8_t> &bytes) {
    std::string error;
    ASSERT_TRUE(shardc::io::writeFile(path, bytes, error)) << error;
  }

  shardc_model *load(const FakeProgram &p) {
    shardc_model *m = nullptr;
    EXPECT_EQ(shardc_load(&p.program, weightsPath.c_str(), 0, &m), SHARDC_OK)
        << shardc_last_error();
    return m;
  }

  shardc_status bindAll(shardc_model *m, std::vector<int64_t> ids) {
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t xd[2] = {2, 3}, idd[1] = {4};
    if (shardc_status s =
            shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, xd, x, sizeof x))
      return s;
    return shardc_bind_input(m, "ids", SHARDC_INT64, 1, idd, ids.data(),
                             ids.size() * 8);
  }

  void expectError(shardc_status got, shardc_status want,
                   const std::string &text) {
    EXPECT_EQ(got, want) << shardc_last_error();
    std::string msg = shardc_last_error();
    EXPECT_NE(msg.find(text), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
};

TEST_F(RuntimeTest, LoadBindRunOutputs) {
  FakeProgram p;
  EXPECT_EQ(shardc_world_size(&p.program), 1);
  int before = liveHandles();
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  EXPECT_EQ(liveHandles(), before + 1);
  ASSERT_EQ(shardc_num_inputs(m), 2);
  ASSERT_EQ(shardc_num_outputs(m), 2);
  shardc_tensor_info info;
  ASSERT_EQ(shardc_input_info(m, 1, &info), SHARDC_OK);
  EXPECT_STREQ(info.name, "ids");
  EXPECT_EQ(info.dtype, SHARDC_INT64);
  EXPECT_EQ(info.rank, 1);
  EXPECT_EQ(info.dims[0], 4);
  EXPECT_EQ(info.bytes, 32u);
  ASSERT_EQ(shardc_output_info(m, 0, &info), SHARDC_OK);
  EXPECT_STREQ(info.name, "y");
  EXPECT_EQ(info.bytes, 24u);

  const void *data;
  size_t bytes;
  expectError(shardc_output(m, 0, &data, &bytes), SHARDC_ERROR_INVALID_ARGUMENT,
              "has not run");
  expectError(shardc_run(m), SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'x' is not bound");
  ASSERT_EQ(bindAll(m, {1, 2, 3, 4}), SHARDC_OK) << shardc_last_error();
  shardc_set_threads(2);
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  ASSERT_EQ(shardc_output(m, 0, &data, &bytes), SHARDC_OK);
  ASSERT_EQ(bytes, 24u);
  const float *y = static_cast<const float *>(data);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(y[i], float(i + 1) + 0.5f * float(i + 1));
  ASSERT_EQ(shardc_output(m, 1, &data, &bytes), SHARDC_OK);
  const int64_t *z = static_cast<const int64_t *>(data);
  EXPECT_EQ(z[0], 2);
  EXPECT_EQ(z[3], 8);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  shardc_free(m);
  EXPECT_EQ(liveHandles(), before);
}

TEST_F(RuntimeTest, BindErrorsNameTheExpectedInput) {
  FakeProgram p;
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  float x[4] = {};
  int64_t wrong[4] = {1, 3, 32, 32}, right[2] = {2, 3};
  expectError(shardc_bind_input(m, "x", SHARDC_FLOAT32, 4, wrong, x, 16),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'x': expected float32 [2,3], got float32 [1,3,32,32]");
  expectError(shardc_bind_input(m, "x", SHARDC_FLOAT64, 2, right, x, 48),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'x': expected float32 [2,3], got float64 [2,3]");
  expectError(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, right, x, 16),
              SHARDC_ERROR_INVALID_ARGUMENT, "expected 24 bytes");
  expectError(shardc_bind_input(m, "input", SHARDC_FLOAT32, 2, right, x, 24),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "no input named 'input'; the inputs are 'x', 'ids'");
  expectError(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, right, nullptr, 24),
              SHARDC_ERROR_INVALID_ARGUMENT, "no data");
  expectError(shardc_input_info(m, 2, nullptr), SHARDC_ERROR_INVALID_ARGUMENT,
              "no model or info");
  shardc_tensor_info info;
  expectError(shardc_output_info(m, -1, &info), SHARDC_ERROR_INVALID_ARGUMENT,
              "out of range");
  shardc_free(m);
}

TEST_F(RuntimeTest, KernelFailureFailsTheRun) {
  FakeProgram p;
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  ASSERT_EQ(bindAll(m, {1, -7, -8, 2}), SHARDC_OK);
  shardc_set_threads(4);
  expectError(shardc_run(m), SHARDC_ERROR_RUNTIME, "gather: index -");
  std::string msg = shardc_last_error();
  EXPECT_TRUE(msg == "gather: index -7 is out of range [0, 100)" ||
              msg == "gather: index -8 is out of range [0, 100)")
      << msg;
  const void *data;
  size_t bytes;
  EXPECT_NE(shardc_output(m, 0, &data, &bytes), SHARDC_OK);
  // The next good run succeeds: the failure does not stick.
  ASSERT_EQ(bindAll(m, {0, 1, 2, 3}), SHARDC_OK);
  EXPECT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  shardc_free(m);
}

TEST_F(RuntimeTest, InitFailureIsUnsupported) {
  FakeProgram p(/*failingInit=*/true);
  int before = liveHandles();
  shardc_model *m = nullptr;
  expectError(shardc_load(&p.program, weightsPath.c_str(), 0, &m),
              SHARDC_ERROR_UNSUPPORTED,
              "oneDNN cannot run convolution with 3 groups");
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(liveHandles(), before); // the handle init made is freed
}

TEST_F(RuntimeTest, LoadErrors) {
  FakeProgram p;
  shardc_model *m = nullptr;
  expectError(
      shardc_load(&p.program, (dir + "/missing.weights").c_str(), 0, &m),
      SHARDC_ERROR_IO,
      "cannot open weights file '" + dir +
          "/missing.weights': No such file or directory");
  expectError(shardc_load(&p.program, dir.c_str(), 0, &m), SHARDC_ERROR_IO,
              "is a directory");
  expectError(shardc_load(&p.program, weightsPath.c_str(), 1, &m),
              SHARDC_ERROR_INVALID_ARGUMENT, "rank 1 is out of range");
  expectError(shardc_load(nullptr, weightsPath.c_str(), 0, &m),
              SHARDC_ERROR_INVALID_ARGUMENT, "no program");

  // Another model's weights, an empty file, a corrupt section.
  std::string other = dir + "/other.weights";
  write(other, buildWeightsFile(kFakeModelHash ^ 1, {fakeSection()}));
  expectError(shardc_load(&p.program, other.c_str(), 0, &m),
              SHARDC_ERROR_FORMAT, "belongs to another model");
  write(other, {});
  expectError(shardc_load(&p.program, other.c_str(), 0, &m),
              SHARDC_ERROR_FORMAT, "is truncated (0 bytes");
  std::vector<uint8_t> bad = fakeWeightsFile();
  bad.back() ^= 1;
  write(other, bad);
  expectError(shardc_load(&p.program, other.c_str(), 0, &m),
              SHARDC_ERROR_FORMAT, "section 0 is corrupt");

  // A damaged plan, an ABI bump, a program/plan rank mismatch.
  FakeProgram damaged;
  damaged.planBytes[20] ^= 1;
  expectError(shardc_load(&damaged.program, weightsPath.c_str(), 0, &m),
              SHARDC_ERROR_FORMAT, "checksum mismatch");
  EXPECT_EQ(shardc_world_size(&damaged.program), -1);
  FakeProgram abi;
  abi.program.abi_version = SC_ABI_VERSION - 1;
  expectError(shardc_load(&abi.program, weightsPath.c_str(), 0, &m),
              SHARDC_ERROR_FORMAT,
              "program ABI version " + std::to_string(SC_ABI_VERSION - 1));
  FakeProgram ranks;
  ranks.program.num_ranks = 2;
  expectError(shardc_load(&ranks.program, weightsPath.c_str(), 0, &m),
              SHARDC_ERROR_FORMAT, "2 rank entry points");
  EXPECT_EQ(m, nullptr);
}

TEST_F(RuntimeTest, EveryTruncatedWeightsFileIsAFormatError) {
  FakeProgram p;
  std::vector<uint8_t> good = fakeWeightsFile();
  std::string path = dir + "/cut.weights";
  for (size_t len = 0; len < good.size(); ++len) {
    write(path, std::vector<uint8_t>(good.begin(), good.begin() + len));
    shardc_model *m = nullptr;
    EXPECT_EQ(shardc_load(&p.program, path.c_str(), 0, &m), SHARDC_ERROR_FORMAT)
        << len << ": " << shardc_last_error();
    EXPECT_EQ(m, nullptr);
  }
}

TEST_F(RuntimeTest, LastErrorIsPerThread) {
  FakeProgram p;
  shardc_model *m = nullptr;
  EXPECT_NE(shardc_load(&p.program, "/nonexistent", 0, &m), SHARDC_OK);
  std::string other;
  std::thread([&] { other = shardc_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(shardc_last_error()), "");
}

TEST(RuntimeDtypes, NamesAndSizes) {
  EXPECT_EQ(shardc_dtype_size(SHARDC_FLOAT32), 4u);
  EXPECT_EQ(shardc_dtype_size(SHARDC_BFLOAT16), 2u);
  EXPECT_EQ(shardc_dtype_size(SHARDC_BOOL), 1u);
  EXPECT_EQ(shardc_dtype_size(8), 0u);
  EXPECT_STREQ(shardc_dtype_name(SHARDC_INT64), "int64");
  EXPECT_STREQ(shardc_dtype_name(SHARDC_FLOAT16), "float16");
  EXPECT_STREQ(shardc_dtype_name(1234), "unknown");
}

} // namespace

TEST_F(RuntimeTest, RankFromTheLauncher) {
  // One rank: rank 0 with the self communicator (fakeInit checks it).
  FakeProgram p;
  shardc_model *m = nullptr;
  ASSERT_EQ(shardc_load(&p.program, weightsPath.c_str(),
                        SHARDC_RANK_FROM_LAUNCHER, &m),
            SHARDC_OK)
      << shardc_last_error();
  EXPECT_EQ(shardc_rank(m), 0);
  shardc_free(m);

  // Two ranks and no world communicator in the program: one clear line.
  shardc::format::Plan plan = fakePlan();
  plan.ranks.push_back(plan.ranks[0]);
  FakeProgram two(false, plan);
  std::vector<uint8_t> section = fakeSection();
  write(weightsPath, buildWeightsFile(kFakeModelHash, {section, section}));
  expectError(shardc_load(&two.program, weightsPath.c_str(),
                          SHARDC_RANK_FROM_LAUNCHER, &m),
              SHARDC_ERROR_FORMAT,
              "the program has 2 ranks but no way to reach them");
  EXPECT_EQ(m, nullptr);

  // A mesh that does not match the plan's world.
  int64_t mesh[] = {3};
  p.program.num_mesh_axes = 1;
  p.program.mesh_shape = mesh;
  write(weightsPath, fakeWeightsFile());
  expectError(shardc_load(&p.program, weightsPath.c_str(),
                          SHARDC_RANK_FROM_LAUNCHER, &m),
              SHARDC_ERROR_FORMAT,
              "the program's mesh: the mesh has 3 devices but the job has 1 "
              "ranks");
}
