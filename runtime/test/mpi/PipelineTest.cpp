//===- PipelineTest.cpp - a hand-written pipeline through the C API -------===//
//
// Under mpirun (every rank one pipeline stage): what the compiler emits for
// --pp=N, written by hand. Stage s adds its weights to the hidden state:
// stage 0 reads its micro-batch of x, later stages sc_recv it from the
// previous one, every stage but the last sc_sends it on (then scribbles
// over the arena, as the next micro-batch would), and the last writes y.
// The runtime loops over the micro-batches, flushes the sends and gathers
// the trace. Expected values come from the weights' formula, not from the
// code under test.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/TensorIO.h"
#include "runtime/test/FakeProgram.h"
#include "runtime/test/Json.h"
#include "runtime/test/mpi/MpiTestUtil.h"
#include "shardc/runtime.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <fstream>
#include <iterator>

using namespace shardc::testing;
namespace fmt = shardc::format;
using shardc::test::worldRank;
using shardc::test::worldSize;

namespace {

constexpr uint32_t kMicrobatches = 4;
constexpr int kElems = 6; // one micro-batch: [2,3] float32

float weightOf(int stage, int i) { return 0.25f * float((stage + 1) * (i + 1)); }

std::vector<uint8_t> sectionOf(int stage) {
  std::vector<uint8_t> bytes(kElems * sizeof(float));
  for (int i = 0; i < kElems; ++i) {
    float v = weightOf(stage, i);
    std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
  }
  return bytes;
}

void stageRun(const sc_rank_ctx *ctx, void **, char *arena,
              const char *weights, void *const *inputs,
              void *const *outputs) {
  const int s = ctx->rank, last = ctx->world_size - 1;
  sc_comm *pp = sc_ctx_comm(ctx, 0);
  float *h = reinterpret_cast<float *>(arena);
  if (s == 0)
    std::memcpy(h, inputs[0], kElems * sizeof(float));
  else
    sc_recv(pp, h, kElems, fmt::kF32, -1);
  const float *w = reinterpret_cast<const float *>(weights);
  for (int i = 0; i < kElems; ++i)
    h[i] += w[i];
  if (s < last) {
    sc_send(pp, h, kElems, fmt::kF32, 1);
    for (int i = 0; i < kElems; ++i)
      h[i] = -1e30f; // the arena is reused at once
  } else {
    std::memcpy(outputs[0], h, kElems * sizeof(float));
  }
}

int stageInit(const sc_rank_ctx *ctx, void **) {
  return ctx->num_axes == 1 ? 0 : 1;
}

struct Pipeline {
  fmt::Plan plan;
  std::vector<uint8_t> planBytes;
  std::vector<sc_rank_entry> entries;
  int64_t mesh[1];
  shardc_program program{};

  explicit Pipeline(int stages) {
    plan.modelHash = 0x9199e11e;
    plan.microbatches = kMicrobatches;
    for (int s = 0; s < stages; ++s) {
      std::vector<uint8_t> section = sectionOf(s);
      fmt::RankPlan r;
      r.arenaBytes = 64;
      r.weightsBytes = section.size();
      r.weightsChecksum = fmt::sectionChecksum(section.data(), section.size());
      r.stage = static_cast<uint32_t>(s);
      if (s == 0)
        r.inputs = {{"x", fmt::kF32, {2, 3}, true}};
      if (s == stages - 1)
        r.outputs = {{"y", fmt::kF32, {2, 3}, true}};
      plan.ranks.push_back(r);
    }
    planBytes = fmt::encodePlan(plan);
    entries.assign(stages, sc_rank_entry{stageInit, stageRun});
    mesh[0] = stages;
    shardc::test::mpiProgram(program, planBytes, entries, mesh);
  }
};

} // namespace

TEST(Pipeline, MicrobatchesFlowThroughTheStages) {
  // sc_mpi_world initializes MPI, as in an executable.
  sc_comm_free(sc_mpi_world());
  const int rank = worldRank(), n = worldSize();
  Pipeline p(n);
  std::vector<std::vector<uint8_t>> sections;
  for (int s = 0; s < n; ++s)
    sections.push_back(sectionOf(s));
  std::string dir = ::testing::TempDir();
  std::string weights = dir + "/pipeline_" + std::to_string(rank) + ".weights";
  std::string error;
  ASSERT_TRUE(shardc::io::writeFile(
      weights, buildWeightsFile(p.plan.modelHash, sections), error))
      << error;

  shardc_model *m = nullptr;
  ASSERT_EQ(shardc_load(&p.program, weights.c_str(), SHARDC_RANK_FROM_LAUNCHER,
                        &m),
            SHARDC_OK)
      << shardc_last_error();
  ASSERT_EQ(shardc_rank(m), rank);
  ASSERT_EQ(shardc_set_trace(m, 1), SHARDC_OK);
  std::vector<float> x(kMicrobatches * kElems);
  if (rank == 0) {
    shardc_tensor_info info;
    ASSERT_EQ(shardc_input_info(m, 0, &info), SHARDC_OK);
    ASSERT_EQ(info.dims[0], 2 * int64_t(kMicrobatches));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i) * 3 - 7;
    ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, info.rank, info.dims,
                                x.data(), x.size() * sizeof(float)),
              SHARDC_OK)
        << shardc_last_error();
  }
  const int runs = 3;
  for (int run = 0; run < runs; ++run) {
    ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
    if (rank != n - 1)
      continue;
    // y = x + the weights of every stage, micro-batch by micro-batch.
    const void *data;
    size_t bytes;
    ASSERT_EQ(shardc_output(m, 0, &data, &bytes), SHARDC_OK);
    ASSERT_EQ(bytes, x.size() * sizeof(float));
    const float *y = static_cast<const float *>(data);
    for (size_t i = 0; i < x.size(); ++i) {
      float want = float(i) * 3 - 7;
      for (int s = 0; s < n; ++s)
        want += weightOf(s, static_cast<int>(i % kElems));
      EXPECT_EQ(y[i], want) << "element " << i << ", run " << run;
    }
  }

  // The trace: every rank takes part, rank 0 writes.
  std::string path = dir + "/pipeline_trace.json";
  ASSERT_EQ(shardc_write_trace(m, path.c_str()), SHARDC_OK)
      << shardc_last_error();
  shardc_free(m);
  if (rank != 0)
    return;
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  Json doc;
  ASSERT_TRUE(JsonReader(text).read(doc, error)) << error;
  std::map<int, std::string> tracks;
  std::map<int, int> computes, sends, recvs;
  double first = 1e300;
  for (const Json &e : doc["traceEvents"].items) {
    int pid = static_cast<int>(e["pid"].number);
    if (e["ph"].text == "M" && e["name"].text == "process_name")
      tracks[pid] = e["args"]["name"].text;
    if (e["ph"].text != "X")
      continue;
    first = std::min(first, e["ts"].number);
    const std::string &name = e["name"].text;
    if (e["cat"].text == "compute") {
      EXPECT_EQ(name, "microbatch " + std::to_string(computes[pid] %
                                                     kMicrobatches));
      ++computes[pid];
    } else if (name == "send") {
      EXPECT_EQ(e["args"]["peer"].number, pid + 1);
      EXPECT_EQ(e["args"]["bytes"].number, kElems * 4);
      ++sends[pid];
    } else if (name == "recv") {
      EXPECT_EQ(e["args"]["peer"].number, pid - 1);
      EXPECT_EQ(e["args"]["bytes"].number, kElems * 4);
      ++recvs[pid];
    }
  }
  EXPECT_EQ(first, 0); // shifted to the earliest event of any rank
  ASSERT_EQ(tracks.size(), size_t(n));
  for (int s = 0; s < n; ++s) {
    EXPECT_EQ(tracks[s],
              "rank " + std::to_string(s) + " (stage " + std::to_string(s) +
                  ")");
    EXPECT_EQ(computes[s], runs * int(kMicrobatches)) << s;
    EXPECT_EQ(sends[s], s < n - 1 ? runs * int(kMicrobatches) : 0) << s;
    EXPECT_EQ(recvs[s], s > 0 ? runs * int(kMicrobatches) : 0) << s;
  }
}
