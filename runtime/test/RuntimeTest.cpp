//===- RuntimeTest.cpp - the C API over a hand-written program ------------===//
//
// Loads the fake program of FakeProgram.h through shardc_load: plan decode,
// weights mapping and validation, binding, running, kernel failures, handles.
//
//===----------------------------------------------------------------------===//
#include "shardc/runtime.h"
#include "runtime/src/TensorIO.h"
#include "runtime/test/FakeProgram.h"
#include "runtime/test/Json.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
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

// shardc_broadcast on one rank leaves the bytes as they are; a root other
// than 0, or bytes without data, are refused.
TEST_F(RuntimeTest, BroadcastOnOneRank) {
  FakeProgram p;
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  int64_t ids[2] = {5, -7};
  ASSERT_EQ(shardc_broadcast(m, 0, ids, sizeof ids), SHARDC_OK)
      << shardc_last_error();
  EXPECT_EQ(ids[0], 5);
  EXPECT_EQ(ids[1], -7);
  expectError(shardc_broadcast(m, 1, ids, sizeof ids),
              SHARDC_ERROR_INVALID_ARGUMENT, "broadcast from rank 1 of 1");
  expectError(shardc_broadcast(m, 0, nullptr, 8), SHARDC_ERROR_INVALID_ARGUMENT,
              "no model or data given");
  EXPECT_EQ(shardc_broadcast(m, 0, nullptr, 0), SHARDC_OK);
  shardc_free(m);
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

/// The fake program pipelined over 3 micro-batches: x [2,3] per
/// micro-batch (the user binds [6,3]), y and z batched, ids shared by every
/// micro-batch.
shardc::format::Plan microbatchPlan(bool zBatched = true) {
  shardc::format::Plan plan = fakePlan();
  plan.microbatches = 3;
  plan.ranks[0].inputs[0].batched = true;
  plan.ranks[0].outputs[0].batched = true;
  plan.ranks[0].outputs[1].batched = zBatched;
  return plan;
}

TEST_F(RuntimeTest, MicrobatchLoop) {
  FakeProgram p(false, microbatchPlan());
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  // The user's signatures hold the three micro-batches.
  shardc_tensor_info info;
  ASSERT_EQ(shardc_input_info(m, 0, &info), SHARDC_OK);
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.dims[0], 6);
  EXPECT_EQ(info.dims[1], 3);
  EXPECT_EQ(info.bytes, 72u);
  ASSERT_EQ(shardc_input_info(m, 1, &info), SHARDC_OK);
  EXPECT_EQ(info.dims[0], 4); // not batched
  ASSERT_EQ(shardc_output_info(m, 1, &info), SHARDC_OK);
  EXPECT_EQ(info.dims[0], 12);
  EXPECT_EQ(info.bytes, 96u);

  float x[18];
  for (int i = 0; i < 18; ++i)
    x[i] = static_cast<float>(i * i);
  int64_t one[2] = {2, 3}, all[2] = {6, 3}, idd[1] = {4};
  expectError(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, one, x, 24),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'x': expected float32 [6,3], got float32 [2,3]");
  ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, all, x, sizeof x),
            SHARDC_OK)
      << shardc_last_error();
  int64_t ids[4] = {5, 0, 7, 1};
  ASSERT_EQ(shardc_bind_input(m, "ids", SHARDC_INT64, 1, idd, ids, sizeof ids),
            SHARDC_OK);
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
    const void *data;
    size_t bytes;
    // y: micro-batch k's rows are x's rows 2k, 2k+1 plus the six weights.
    ASSERT_EQ(shardc_output(m, 0, &data, &bytes), SHARDC_OK);
    ASSERT_EQ(bytes, 72u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
    const float *y = static_cast<const float *>(data);
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 6; ++i)
        EXPECT_EQ(y[6 * k + i], x[6 * k + i] + 0.5f * float(i + 1))
            << "micro-batch " << k << " element " << i;
    // z: the shared ids doubled, once per micro-batch.
    ASSERT_EQ(shardc_output(m, 1, &data, &bytes), SHARDC_OK);
    ASSERT_EQ(bytes, 96u);
    const int64_t *z = static_cast<const int64_t *>(data);
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 4; ++i)
        EXPECT_EQ(z[4 * k + i], 2 * ids[i]);
    // A new batch of inputs between runs.
    for (float &v : x)
      v = -v;
    ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, all, x, sizeof x),
              SHARDC_OK);
  }
  shardc_free(m);
}

TEST_F(RuntimeTest, MicrobatchOutputsMustBeBatched) {
  FakeProgram p(false, microbatchPlan(/*zBatched=*/false));
  shardc_model *m = nullptr;
  expectError(shardc_load(&p.program, weightsPath.c_str(), 0, &m),
              SHARDC_ERROR_FORMAT,
              "output 'z' is not batched but the plan has 3 micro-batches");
  EXPECT_EQ(m, nullptr);
}

/// Reads the trace file back as JSON: its X events and the track names.
struct TraceFile {
  std::vector<Json> events;
  std::map<int, std::string> tracks;
  double displayed = 0;

  static TraceFile read(const std::string &path) {
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    Json doc;
    std::string error;
    TraceFile t;
    EXPECT_TRUE(JsonReader(text).read(doc, error)) << error << "\n" << text;
    EXPECT_EQ(doc["displayTimeUnit"].text, "ms");
    for (const Json &e : doc["traceEvents"].items) {
      if (e["ph"].text == "M" && e["name"].text == "process_name")
        t.tracks[static_cast<int>(e["pid"].number)] = e["args"]["name"].text;
      if (e["ph"].text == "X")
        t.events.push_back(e);
    }
    return t;
  }
};

TEST_F(RuntimeTest, TraceIsChromeJson) {
  FakeProgram p(false, microbatchPlan());
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  std::string path = dir + "/trace.json";
  // Nothing recorded yet: a valid file with the rank's track only.
  ASSERT_EQ(shardc_write_trace(m, path.c_str()), SHARDC_OK)
      << shardc_last_error();
  TraceFile t = TraceFile::read(path);
  EXPECT_TRUE(t.events.empty());
  EXPECT_EQ(t.tracks[0], "rank 0 (stage 0)");

  ASSERT_EQ(shardc_set_trace(m, 1), SHARDC_OK);
  float x[18] = {};
  int64_t all[2] = {6, 3}, idd[1] = {4}, ids[4] = {1, 2, 3, 4};
  ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, all, x, sizeof x),
            SHARDC_OK);
  ASSERT_EQ(shardc_bind_input(m, "ids", SHARDC_INT64, 1, idd, ids, sizeof ids),
            SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK);
  ASSERT_EQ(shardc_write_trace(m, path.c_str()), SHARDC_OK)
      << shardc_last_error();
  t = TraceFile::read(path);
  ASSERT_EQ(t.events.size(), 6u); // 3 micro-batches x 2 runs
  double end = 0;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Json &e = t.events[i];
    EXPECT_EQ(e["name"].text, "microbatch " + std::to_string(i % 3));
    EXPECT_EQ(e["cat"].text, "compute");
    EXPECT_EQ(e["pid"].number, 0);
    EXPECT_EQ(e["tid"].number, 0);
    EXPECT_EQ(e["ts"].kind, Json::Number);
    EXPECT_GE(e["dur"].number, 0);
    // In order, one after the other; the first at 0 (microseconds).
    if (i == 0) {
      EXPECT_EQ(e["ts"].number, 0);
    }
    EXPECT_GE(e["ts"].number + 0.0005, end) << i;
    end = e["ts"].number + e["dur"].number;
  }
  // Stopped: later runs are not recorded, the events stay; enabled again:
  // a fresh recording.
  ASSERT_EQ(shardc_set_trace(m, 0), SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK);
  ASSERT_EQ(shardc_write_trace(m, path.c_str()), SHARDC_OK);
  EXPECT_EQ(TraceFile::read(path).events.size(), 6u);
  ASSERT_EQ(shardc_set_trace(m, 1), SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK);
  ASSERT_EQ(shardc_write_trace(m, path.c_str()), SHARDC_OK);
  EXPECT_EQ(TraceFile::read(path).events.size(), 3u);

  expectError(shardc_write_trace(m, (dir + "/no/such/dir/t.json").c_str()),
              SHARDC_ERROR_IO, "cannot write trace file '");
  expectError(shardc_write_trace(m, nullptr), SHARDC_ERROR_INVALID_ARGUMENT,
              "no model or path");
  expectError(shardc_set_trace(nullptr, 1), SHARDC_ERROR_INVALID_ARGUMENT,
              "no model");
  shardc_free(m);
}

/// Binds the dynamic program's inputs at batch `b`, seq `s`: ids[i] = i,
/// mask 1.5, bias[j, c] = 10 j + c.
shardc_status bindDynamic(shardc_model *m, int64_t b, int64_t s) {
  std::vector<int64_t> ids(static_cast<size_t>(b * s));
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = static_cast<int64_t>(i);
  std::vector<float> mask(ids.size(), 1.5f), bias(static_cast<size_t>(s * 3));
  for (int64_t j = 0; j < s; ++j)
    for (int64_t c = 0; c < 3; ++c)
      bias[j * 3 + c] = static_cast<float>(10 * j + c);
  int64_t bs[2] = {b, s}, s3[2] = {s, 3};
  if (shardc_status st = shardc_bind_input(m, "ids", SHARDC_INT64, 2, bs,
                                           ids.data(), ids.size() * 8))
    return st;
  if (shardc_status st = shardc_bind_input(m, "mask", SHARDC_FLOAT32, 2, bs,
                                           mask.data(), mask.size() * 4))
    return st;
  return shardc_bind_input(m, "bias", SHARDC_FLOAT32, 2, s3, bias.data(),
                           bias.size() * 4);
}

/// The outputs of a run of the dynamic program bound by bindDynamic(b, s).
void expectDynamicOutputs(shardc_model *m, int64_t b, int64_t s) {
  SCOPED_TRACE("batch " + std::to_string(b) + ", seq " + std::to_string(s));
  shardc_tensor_info info;
  const void *data;
  size_t bytes;
  ASSERT_EQ(shardc_output_info(m, 0, &info), SHARDC_OK);
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.dims[0], b);
  EXPECT_EQ(info.dims[1], s);
  EXPECT_EQ(info.bytes, static_cast<size_t>(b * s * 4));
  ASSERT_EQ(shardc_output(m, 0, &data, &bytes), SHARDC_OK);
  ASSERT_EQ(bytes, static_cast<size_t>(b * s * 4));
  const float *y = static_cast<const float *>(data);
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < s; ++j)
      EXPECT_EQ(y[i * s + j], static_cast<float>(i * s + j) * 1.5f +
                                  0.5f * static_cast<float>(j + 1) +
                                  static_cast<float>(10 * j));
  // The code saw the run's dims.
  ASSERT_EQ(shardc_output_info(m, 1, &info), SHARDC_OK);
  EXPECT_EQ(info.dims[0], 2);
  ASSERT_EQ(shardc_output(m, 1, &data, &bytes), SHARDC_OK);
  ASSERT_EQ(bytes, 16u);
  EXPECT_EQ(static_cast<const int64_t *>(data)[0], b);
  EXPECT_EQ(static_cast<const int64_t *>(data)[1], s);
  ASSERT_EQ(shardc_output_info(m, 2, &info), SHARDC_OK);
  ASSERT_EQ(info.rank, 1);
  EXPECT_EQ(info.dims[0], s);
  ASSERT_EQ(shardc_output(m, 2, &data, &bytes), SHARDC_OK);
  ASSERT_EQ(bytes, static_cast<size_t>(s * 4));
  for (int64_t j = 0; j < s; ++j)
    EXPECT_EQ(static_cast<const float *>(data)[j],
              static_cast<float>(30 * j + 3));
}

TEST_F(RuntimeTest, DynamicDimsWithinTheBounds) {
  FakeDynamicProgram p;
  fakeInitDims().clear();
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  // init sees the bounds; infos report them until a run.
  EXPECT_EQ(fakeInitDims(), (std::vector<int64_t>{2, 4}));
  shardc_tensor_info info;
  ASSERT_EQ(shardc_input_info(m, 0, &info), SHARDC_OK);
  EXPECT_EQ(info.dims[0], 2);
  EXPECT_EQ(info.dims[1], 4);
  EXPECT_EQ(info.bytes, 64u);
  ASSERT_EQ(shardc_output_info(m, 0, &info), SHARDC_OK);
  EXPECT_EQ(info.bytes, 32u);
  const int64_t *yDims = info.dims;

  // At the bounds, below them, and rebound at other shapes run after run.
  const std::pair<int64_t, int64_t> shapes[] = {
      {2, 4}, {1, 3}, {2, 1}, {1, 4}, {2, 4}};
  for (auto [b, s] : shapes) {
    ASSERT_EQ(bindDynamic(m, b, s), SHARDC_OK) << shardc_last_error();
    ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
    expectDynamicOutputs(m, b, s);
  }
  // The info's dims stay where they were, with the run's values.
  ASSERT_EQ(shardc_output_info(m, 0, &info), SHARDC_OK);
  EXPECT_EQ(info.dims, yDims);
  // Inputs still report their bounds.
  ASSERT_EQ(shardc_input_info(m, 2, &info), SHARDC_OK);
  EXPECT_EQ(info.dims[0], 4);
  EXPECT_EQ(info.dims[1], 3);
  shardc_free(m);
}

TEST_F(RuntimeTest, DynamicDimsBindErrors) {
  FakeDynamicProgram p;
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  std::vector<int64_t> ids(64);
  int64_t beyond[2] = {1, 5}, zero[2] = {2, 0}, negative[2] = {-1, 4},
          batch[2] = {3, 1}, ok[2] = {1, 3};
  expectError(
      shardc_bind_input(m, "ids", SHARDC_INT64, 2, beyond, ids.data(), 40),
      SHARDC_ERROR_INVALID_ARGUMENT,
      "input 'ids': dim 1 ('seq') is 5, beyond its bound 4");
  EXPECT_EQ(std::string(shardc_last_error()),
            "input 'ids': dim 1 ('seq') is 5, beyond its bound 4");
  expectError(
      shardc_bind_input(m, "ids", SHARDC_INT64, 2, batch, ids.data(), 24),
      SHARDC_ERROR_INVALID_ARGUMENT,
      "input 'ids': dim 0 ('batch') is 3, beyond its bound 2");
  expectError(shardc_bind_input(m, "ids", SHARDC_INT64, 2, zero, ids.data(), 0),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'ids': dim 1 ('seq') is 0; it takes 1 to 4");
  EXPECT_EQ(std::string(shardc_last_error()),
            "input 'ids': dim 1 ('seq') is 0; it takes 1 to 4");
  expectError(
      shardc_bind_input(m, "ids", SHARDC_INT64, 2, negative, ids.data(), 0),
      SHARDC_ERROR_INVALID_ARGUMENT,
      "input 'ids': dim 0 ('batch') is -1; it takes 1 to 2");
  // Static dims, dtype and rank must match; the message shows the bounds.
  int64_t wide[2] = {3, 4}, three[3] = {1, 3, 1};
  expectError(
      shardc_bind_input(m, "bias", SHARDC_FLOAT32, 2, wide, ids.data(), 48),
      SHARDC_ERROR_INVALID_ARGUMENT,
      "input 'bias': expected float32 [seq<=4,3], got float32 [3,4]");
  EXPECT_EQ(std::string(shardc_last_error()),
            "input 'bias': expected float32 [seq<=4,3], got float32 [3,4]");
  expectError(shardc_bind_input(m, "ids", SHARDC_INT32, 2, ok, ids.data(), 12),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'ids': expected int64 [batch<=2,seq<=4], got int32 [1,3]");
  expectError(
      shardc_bind_input(m, "ids", SHARDC_INT64, 3, three, ids.data(), 24),
      SHARDC_ERROR_INVALID_ARGUMENT,
      "input 'ids': expected int64 [batch<=2,seq<=4], got int64 "
      "[1,3,1]");
  // Bytes are those of the shape given, not of the bounds.
  expectError(shardc_bind_input(m, "ids", SHARDC_INT64, 2, ok, ids.data(), 64),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'ids': expected 24 bytes of data for int64 [1,3], got 64");
  EXPECT_EQ(shardc_bind_input(m, "ids", SHARDC_INT64, 2, ok, ids.data(), 24),
            SHARDC_OK)
      << shardc_last_error();
  shardc_free(m);
}

TEST_F(RuntimeTest, DynamicDimsInputsMustAgree) {
  FakeDynamicProgram p;
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  ASSERT_EQ(bindDynamic(m, 2, 3), SHARDC_OK) << shardc_last_error();
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  expectDynamicOutputs(m, 2, 3);
  // Rebinding one input at another shape binds; the run refuses until the
  // others follow, and the last run's outputs stay readable.
  std::vector<float> mask(4, 1.5f);
  int64_t oneByFour[2] = {1, 4};
  ASSERT_EQ(shardc_bind_input(m, "mask", SHARDC_FLOAT32, 2, oneByFour,
                              mask.data(), 16),
            SHARDC_OK)
      << shardc_last_error();
  expectError(shardc_run(m), SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'mask': dim 0 ('batch') is 1 but input 'ids' gives 2");
  EXPECT_EQ(std::string(shardc_last_error()),
            "input 'mask': dim 0 ('batch') is 1 but input 'ids' gives 2");
  expectDynamicOutputs(m, 2, 3);
  std::vector<int64_t> ids(4);
  ASSERT_EQ(
      shardc_bind_input(m, "ids", SHARDC_INT64, 2, oneByFour, ids.data(), 32),
      SHARDC_OK);
  expectError(shardc_run(m), SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'bias': dim 0 ('seq') is 3 but input 'ids' gives 4");
  ASSERT_EQ(bindDynamic(m, 1, 4), SHARDC_OK) << shardc_last_error();
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  expectDynamicOutputs(m, 1, 4);
  shardc_free(m);
}

TEST_F(RuntimeTest, DynamicDimsOneInputTwice) {
  // A square input [seq, seq]: both dims must be the same value.
  shardc::format::Plan plan = fakeDynamicPlan();
  plan.ranks[0].inputs.push_back(
      {"square", SHARDC_FLOAT32, {4, 4}, false, {1, 1}});
  FakeDynamicProgram p(plan);
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  float data[12] = {};
  int64_t dims[2] = {3, 4};
  expectError(shardc_bind_input(m, "square", SHARDC_FLOAT32, 2, dims, data, 48),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'square': dim 1 ('seq') is 4 but dim 0 gives 3");
  dims[1] = 3;
  EXPECT_EQ(shardc_bind_input(m, "square", SHARDC_FLOAT32, 2, dims, data, 36),
            SHARDC_OK)
      << shardc_last_error();
  shardc_free(m);
}

/// A KV cache (plan v5), written by hand as the compiler emits it: dims
/// batch <= 2, seq <= 3, past <= 5 (may be 0) and their sum seq + past;
/// input x [batch, seq] appended to the cache, past [batch, past] held by
/// output present [batch, seq + past], whose buffer is laid out for the
/// bound (rows of 8). The program never reads `past`.
shardc::format::Plan cachePlan() {
  shardc::format::Plan plan = fakeDynamicPlan();
  plan.dims = {{"batch", 2},
               {"seq", 3},
               {"past", 5, 0, {}},
               {"seq + past", 8, 1, {1, 2}}};
  shardc::format::RankPlan &r = plan.ranks[0];
  r.inputs = {{"x", SHARDC_FLOAT32, {2, 3}, false, {0, 1}},
              {"past", SHARDC_FLOAT32, {2, 5}, false, {0, 2}, 0, 1}};
  r.outputs = {{"present", SHARDC_FLOAT32, {2, 8}, false, {0, 3}}};
  return plan;
}

int cacheInit(const sc_rank_ctx *ctx, void **handles) {
  if (!ctx || ctx->num_dims != 4) {
    sc_fail("bad rank context");
    return 1;
  }
  handles[0] = static_cast<shardc::rt::Handle *>(new CountedHandle);
  return 0;
}

void cacheRun(const sc_rank_ctx *ctx, void **, char *, const char *,
              void *const *inputs, void *const *outputs) {
  const int64_t b = ctx->dims[0], s = ctx->dims[1], past = ctx->dims[2];
  if (ctx->dims[3] != s + past)
    sc_fail("the sum dim is not seq + past");
  const float *x = static_cast<const float *>(inputs[0]);
  float *present = static_cast<float *>(outputs[0]);
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < s; ++j)
      present[i * 8 + past + j] = x[i * s + j];
}

/// present as read back: rows of `len`.
std::vector<float> presentOf(shardc_model *m, int64_t b, int64_t len) {
  shardc_tensor_info info;
  const void *data;
  size_t bytes;
  EXPECT_EQ(shardc_output_info(m, 0, &info), SHARDC_OK);
  EXPECT_EQ(info.dims[0], b);
  EXPECT_EQ(info.dims[1], len);
  EXPECT_EQ(shardc_output(m, 0, &data, &bytes), SHARDC_OK);
  EXPECT_EQ(bytes, static_cast<size_t>(b * len * 4));
  const float *p = static_cast<const float *>(data);
  return std::vector<float>(p, p + bytes / 4);
}

TEST_F(RuntimeTest, KvCacheKeptInPlace) {
  FakeDynamicProgram p(cachePlan());
  p.entry.init = cacheInit;
  p.entry.run = cacheRun;
  shardc_model *m = load(p);
  ASSERT_TRUE(m);
  int64_t output = 0, axis = 0;
  ASSERT_EQ(shardc_input_cache(m, 1, &output, &axis), SHARDC_OK);
  EXPECT_EQ(output, 0);
  EXPECT_EQ(axis, 1);
  ASSERT_EQ(shardc_input_cache(m, 0, &output, &axis), SHARDC_OK);
  EXPECT_EQ(output, -1);
  EXPECT_EQ(axis, -1);
  expectError(shardc_input_cache(m, 2, &output, &axis),
              SHARDC_ERROR_INVALID_ARGUMENT, "input index 2 is out of range");

  // A given past (copied into present's buffer) and 3 new entries.
  float past[4] = {1, 2, 11, 12}, x[6] = {3, 4, 5, 13, 14, 15};
  int64_t pd[2] = {2, 2}, xd[2] = {2, 3};
  ASSERT_EQ(shardc_bind_input(m, "past", SHARDC_FLOAT32, 2, pd, past, 16),
            SHARDC_OK)
      << shardc_last_error();
  ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, xd, x, 24), SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  EXPECT_EQ(presentOf(m, 2, 5),
            (std::vector<float>{1, 2, 3, 4, 5, 11, 12, 13, 14, 15}));

  // Kept: the 5 entries stay where they are; one more each.
  float one[2] = {6, 16};
  int64_t od[2] = {2, 1};
  ASSERT_EQ(shardc_keep_cache(m, 5), SHARDC_OK) << shardc_last_error();
  ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, od, one, 8),
            SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  EXPECT_EQ(presentOf(m, 2, 6),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16}));
  // Kept shorter: the step overwrites from there.
  float two[2] = {7, 17};
  ASSERT_EQ(shardc_keep_cache(m, 2), SHARDC_OK);
  ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, od, two, 8),
            SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  EXPECT_EQ(presentOf(m, 2, 3), (std::vector<float>{1, 2, 7, 11, 12, 17}));

  // More than the cache holds, or past the bound; a kept cache of another
  // batch; a past longer than its bound.
  expectError(shardc_keep_cache(m, 4), SHARDC_ERROR_INVALID_ARGUMENT,
              "shardc_keep_cache: past 4 is not within the 3 entries the cache "
              "of input 'past' holds");
  expectError(shardc_keep_cache(m, -1), SHARDC_ERROR_INVALID_ARGUMENT,
              "past -1 is not within");
  ASSERT_EQ(shardc_keep_cache(m, 3), SHARDC_OK);
  int64_t od1[2] = {1, 1};
  ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 2, od1, one, 4),
            SHARDC_OK);
  expectError(shardc_run(m), SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'past': the kept cache has dim 0 ('batch') 2 but this "
              "run's is 1");
  // A new sequence (past 0) may change the batch.
  ASSERT_EQ(shardc_keep_cache(m, 0), SHARDC_OK);
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  EXPECT_EQ(presentOf(m, 1, 1), (std::vector<float>{6}));
  float six[12] = {};
  int64_t pd6[2] = {2, 6};
  expectError(shardc_bind_input(m, "past", SHARDC_FLOAT32, 2, pd6, six, 48),
              SHARDC_ERROR_INVALID_ARGUMENT,
              "input 'past': dim 1 ('past') is 6, beyond its bound 5");
  shardc_free(m);

  // A model without a cache.
  FakeDynamicProgram plain;
  m = load(plain);
  ASSERT_TRUE(m);
  expectError(shardc_keep_cache(m, 0), SHARDC_ERROR_INVALID_ARGUMENT,
              "shardc_keep_cache: the model has no KV cache inputs");
  shardc_free(m);
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
