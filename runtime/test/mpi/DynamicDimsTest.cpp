//===- DynamicDimsTest.cpp - dynamic dims over several ranks --------------===//
//
// Under mpirun (every rank one tensor-parallel rank): what the compiler
// emits for --tp=N with bounded dynamic dims, written by hand. Each rank
// reads x and z of [seq <= 4] (one dynamic dim, plan v4) and all-reduces
// x + z over the world with the run's count (ctx->dims[0]), as generated
// code does. Every rank must run at the same dims: the runtime checks it
// across the ranks before the program runs, and a disagreement (or one
// rank's inputs refused) fails the run on every rank, with no rank left
// waiting in a collective; so does an input one rank left unbound.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/TensorIO.h"
#include "runtime/test/FakeProgram.h"
#include "runtime/test/mpi/MpiTestUtil.h"
#include "shardc/runtime.h"

#include <gtest/gtest.h>
#include <mpi.h>

using namespace shardc::testing;
namespace fmt = shardc::format;
using shardc::test::worldRank;
using shardc::test::worldSize;

namespace {

constexpr int64_t kMaxSeq = 4;

void sumRun(const sc_rank_ctx *ctx, void **, char *arena, const char *,
            void *const *inputs, void *const *outputs) {
  const int64_t s = ctx->dims[0];
  const float *x = static_cast<const float *>(inputs[0]);
  const float *z = static_cast<const float *>(inputs[1]);
  float *partial = reinterpret_cast<float *>(arena);
  for (int64_t i = 0; i < s; ++i)
    partial[i] = x[i] + z[i];
  sc_all_reduce(sc_ctx_comm(ctx, 0), partial, outputs[0],
                static_cast<uint64_t>(s), fmt::kF32, SC_REDUCE_SUM);
}

int sumInit(const sc_rank_ctx *ctx, void **) {
  return ctx->num_axes == 1 && ctx->num_dims == 1 ? 0 : 1;
}

/// Every rank's weights: 8 bytes the program does not read.
const std::vector<uint8_t> &section() {
  static const std::vector<uint8_t> bytes(8, 0);
  return bytes;
}

struct TensorParallel {
  fmt::Plan plan;
  std::vector<uint8_t> planBytes;
  std::vector<sc_rank_entry> entries;
  int64_t mesh[1];
  shardc_program program{};

  explicit TensorParallel(int ranks) {
    plan.modelHash = 0xd1a5d1a5;
    plan.dims = {{"seq", kMaxSeq}};
    for (int r = 0; r < ranks; ++r) {
      fmt::RankPlan rp;
      rp.arenaBytes = 64;
      rp.weightsBytes = section().size();
      rp.weightsChecksum =
          fmt::sectionChecksum(section().data(), section().size());
      rp.inputs = {{"x", fmt::kF32, {kMaxSeq}, false, {0}},
                   {"z", fmt::kF32, {kMaxSeq}, false, {0}}};
      rp.outputs = {{"y", fmt::kF32, {kMaxSeq}, false, {0}}};
      plan.ranks.push_back(rp);
    }
    planBytes = fmt::encodePlan(plan);
    entries.assign(ranks, sc_rank_entry{sumInit, sumRun});
    mesh[0] = ranks;
    shardc::test::mpiProgram(program, planBytes, entries, mesh);
  }
};

/// Binds x = rank + i and z = 10 i at `seq` (z at `zSeq`).
shardc_status bindInputs(shardc_model *m, int rank, int64_t seq, int64_t zSeq,
                   std::vector<float> &x, std::vector<float> &z) {
  x.assign(static_cast<size_t>(seq), 0.0f);
  z.assign(static_cast<size_t>(zSeq), 0.0f);
  for (int64_t i = 0; i < seq; ++i)
    x[i] = static_cast<float>(rank) + static_cast<float>(i);
  for (int64_t i = 0; i < zSeq; ++i)
    z[i] = 10.0f * static_cast<float>(i);
  if (shardc_status s = shardc_bind_input(m, "x", SHARDC_FLOAT32, 1, &seq,
                                          x.data(), x.size() * sizeof(float)))
    return s;
  return shardc_bind_input(m, "z", SHARDC_FLOAT32, 1, &zSeq, z.data(),
                           z.size() * sizeof(float));
}

/// y = the sum over the ranks of x + z, at `seq`.
void expectSum(shardc_model *m, int n, int64_t seq) {
  SCOPED_TRACE("seq " + std::to_string(seq));
  const void *data;
  size_t bytes;
  ASSERT_EQ(shardc_output(m, 0, &data, &bytes), SHARDC_OK)
      << shardc_last_error();
  ASSERT_EQ(bytes, static_cast<size_t>(seq) * sizeof(float));
  const float *y = static_cast<const float *>(data);
  for (int64_t i = 0; i < seq; ++i)
    EXPECT_EQ(y[i], static_cast<float>(n * (n - 1) / 2) +
                        static_cast<float>(n) * 11.0f * static_cast<float>(i))
        << "element " << i;
}

/// This rank's weights file for `p` (every rank's section the one above),
/// named after `stem` in the test's temporary folder; empty on failure,
/// with the reason in `error`.
std::string writeWeights(const TensorParallel &p, const std::string &stem,
                         std::string &error) {
  std::string path = ::testing::TempDir() + "/" + stem + "_" +
                     std::to_string(worldRank()) + ".weights";
  std::vector<std::vector<uint8_t>> sections(worldSize(), section());
  if (!shardc::io::writeFile(path, buildWeightsFile(p.plan.modelHash, sections),
                             error))
    return "";
  return path;
}

} // namespace

TEST(DynamicDims, RanksMustAgree) {
  sc_comm_free(sc_mpi_world());
  const int rank = worldRank(), n = worldSize();
  TensorParallel p(n);
  std::string error, weights = writeWeights(p, "dynamic_dims", error);
  ASSERT_FALSE(weights.empty()) << error;
  shardc_model *m = nullptr;
  ASSERT_EQ(shardc_load(&p.program, weights.c_str(), SHARDC_RANK_FROM_LAUNCHER,
                        &m),
            SHARDC_OK)
      << shardc_last_error();
  std::vector<float> x, z;

  // The same dims on every rank, run after run.
  for (int64_t seq : {3, 1, 4}) {
    ASSERT_EQ(bindInputs(m, rank, seq, seq, x, z), SHARDC_OK) << shardc_last_error();
    ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
    expectSum(m, n, seq);
  }

  // The last rank binds another sequence length: every rank fails.
  int64_t seq = rank == n - 1 ? 2 : 3;
  ASSERT_EQ(bindInputs(m, rank, seq, seq, x, z), SHARDC_OK) << shardc_last_error();
  EXPECT_EQ(shardc_run(m), SHARDC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(shardc_last_error()),
            "dim 'seq' is " + std::to_string(seq) + " on rank " +
                std::to_string(rank) +
                " but the ranks bound from 2 to 3: every rank must bind "
                "inputs of the same shape");

  // Rank 0's inputs disagree with each other: it says so, the others
  // fail too.
  ASSERT_EQ(bindInputs(m, rank, 3, rank == 0 ? 2 : 3, x, z), SHARDC_OK)
      << shardc_last_error();
  EXPECT_EQ(shardc_run(m), SHARDC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(shardc_last_error()),
            rank == 0 ? "input 'z': dim 0 ('seq') is 2 but input 'x' gives 3"
                      : "another rank's inputs were refused (its message "
                        "says why)");

  // The ranks are still in step.
  ASSERT_EQ(bindInputs(m, rank, 2, 2, x, z), SHARDC_OK) << shardc_last_error();
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  expectSum(m, n, 2);
  shardc_free(m);

  // A fresh model where rank 0 leaves z unbound: it says so, and the
  // others fail rather than wait for it in the agreement.
  ASSERT_EQ(shardc_load(&p.program, weights.c_str(), SHARDC_RANK_FROM_LAUNCHER,
                        &m),
            SHARDC_OK)
      << shardc_last_error();
  int64_t three = 3;
  x.assign(3, 1.0f);
  if (rank == 0)
    ASSERT_EQ(shardc_bind_input(m, "x", SHARDC_FLOAT32, 1, &three, x.data(),
                                x.size() * sizeof(float)),
              SHARDC_OK)
        << shardc_last_error();
  else
    ASSERT_EQ(bindInputs(m, rank, 3, 3, x, z), SHARDC_OK)
        << shardc_last_error();
  EXPECT_EQ(shardc_run(m), SHARDC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(shardc_last_error()),
            rank == 0 ? "input 'z' is not bound"
                      : "another rank's inputs were refused (its message "
                        "says why)");
  ASSERT_EQ(bindInputs(m, rank, 4, 4, x, z), SHARDC_OK) << shardc_last_error();
  ASSERT_EQ(shardc_run(m), SHARDC_OK) << shardc_last_error();
  expectSum(m, n, 4);
  shardc_free(m);
}

// shardc_broadcast (--generate's tokens): every rank gets the root's
// bytes, whatever it held; a root outside the job is refused on every rank.
TEST(DynamicDims, BroadcastFromEachRoot) {
  sc_comm_free(sc_mpi_world());
  const int rank = worldRank(), n = worldSize();
  TensorParallel p(n);
  std::string error, weights = writeWeights(p, "broadcast", error);
  ASSERT_FALSE(weights.empty()) << error;
  shardc_model *m = nullptr;
  ASSERT_EQ(
      shardc_load(&p.program, weights.c_str(), SHARDC_RANK_FROM_LAUNCHER, &m),
      SHARDC_OK)
      << shardc_last_error();
  for (int root = 0; root < n; ++root) {
    // Each rank's own values (negative ones too: bytes, not numbers).
    std::vector<int64_t> ids = {-1 - rank, 1000 * rank + root,
                                INT64_MAX - rank};
    ASSERT_EQ(shardc_broadcast(m, root, ids.data(), ids.size() * 8), SHARDC_OK)
        << shardc_last_error();
    EXPECT_EQ(ids, (std::vector<int64_t>{-1 - root, 1000 * root + root,
                                         INT64_MAX - root}))
        << "from root " << root;
  }
  int64_t word = 7;
  EXPECT_EQ(shardc_broadcast(m, n, &word, 8), SHARDC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(shardc_last_error()), "broadcast from rank " +
                                                  std::to_string(n) + " of " +
                                                  std::to_string(n));
  EXPECT_EQ(word, 7);
  shardc_free(m);
}
