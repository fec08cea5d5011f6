//===- FormatTest.cpp - plan and weights formats --------------------------===//
//
// Round trips, and damaged files: every truncation and header byte flip of a
// plan, sampled truncations and flips of a weights file, garbage, files of
// another model, version and world-size mismatches. Each must be rejected
// with a one-line message, and never crash (run once under ASan by hand).
//
//===----------------------------------------------------------------------===//
#include "shardc/format.h"
#include "runtime/test/FakeProgram.h"

#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <iterator>
#include <random>

using namespace shardc::format;
using shardc::testing::buildWeightsFile;

namespace {

Plan twoRankPlan(const std::vector<std::vector<uint8_t>> &sections) {
  Plan plan;
  plan.modelHash = 0xabcdef0123456789ull;
  plan.microbatches = 3;
  for (size_t i = 0; i < sections.size(); ++i) {
    RankPlan r;
    r.arenaBytes = 1000 + i;
    r.weightsBytes = sections[i].size();
    r.weightsChecksum = sectionChecksum(sections[i].data(), sections[i].size());
    r.numHandles = 3;
    r.numKernels = 17;
    r.stage = static_cast<uint32_t>(i / 2);
    r.inputs = {{"input_ids", 7, {1, 128}, true},
                {"attention_mask", 9, {1, 128}}};
    r.outputs = {{"logits", 1, {1, 128, 50257}, true},
                 {"scalar", 11, {}},
                 {"empty", 10, {0, 4}, true}};
    plan.ranks.push_back(r);
  }
  return plan;
}

std::vector<std::vector<uint8_t>> randomSections(std::mt19937_64 &rng) {
  std::vector<std::vector<uint8_t>> sections = {
      std::vector<uint8_t>(1000), std::vector<uint8_t>(64),
      std::vector<uint8_t>(0), std::vector<uint8_t>(77)};
  for (auto &s : sections)
    for (uint8_t &b : s)
      b = static_cast<uint8_t>(rng());
  return sections;
}

/// `p` encodes (checksum valid) but decoding refuses it with `want`.
void refuse(const Plan &p, const std::string &want) {
  std::vector<uint8_t> b = encodePlan(p);
  Plan out;
  std::string error;
  EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error)) << want;
  EXPECT_EQ(error, want);
}

void expectOneLine(const std::string &error) {
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

bool samePlan(const Plan &a, const Plan &b) {
  if (a.version != b.version || a.worldSize != b.worldSize ||
      a.modelHash != b.modelHash || a.target != b.target ||
      a.microbatches != b.microbatches || a.batchItems != b.batchItems ||
      a.ranks.size() != b.ranks.size() || a.dims.size() != b.dims.size())
    return false;
  for (size_t k = 0; k < a.dims.size(); ++k)
    if (a.dims[k].name != b.dims[k].name || a.dims[k].max != b.dims[k].max ||
        a.dims[k].min != b.dims[k].min || a.dims[k].parts != b.dims[k].parts)
      return false;
  auto sameSigs = [](const std::vector<TensorSig> &x,
                     const std::vector<TensorSig> &y) {
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].name != y[i].name || x[i].dtype != y[i].dtype ||
          x[i].dims != y[i].dims || x[i].batched != y[i].batched ||
          x[i].syms != y[i].syms || x[i].cacheOf != y[i].cacheOf ||
          x[i].cacheAxis != y[i].cacheAxis)
        return false;
    return true;
  };
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    const RankPlan &p = a.ranks[i], &q = b.ranks[i];
    if (p.arenaBytes != q.arenaBytes || p.weightsBytes != q.weightsBytes ||
        p.weightsChecksum != q.weightsChecksum ||
        p.numHandles != q.numHandles || p.numKernels != q.numKernels ||
        p.stage != q.stage || !sameSigs(p.inputs, q.inputs) || !sameSigs(p.outputs, q.outputs))
      return false;
  }
  return true;
}

TEST(Format, PlanRoundTrip) {
  std::mt19937_64 rng(1);
  Plan plan = twoRankPlan(randomSections(rng));
  plan.worldSize = static_cast<uint32_t>(plan.ranks.size());
  std::vector<uint8_t> bytes = encodePlan(plan);
  Plan back;
  std::string error;
  ASSERT_TRUE(decodePlan(bytes.data(), bytes.size(), back, error)) << error;
  EXPECT_TRUE(samePlan(plan, back));
  EXPECT_EQ(back.ranks[0].outputs[0].bytes(), 128ull * 50257 * 4);
  EXPECT_EQ(back.ranks[0].outputs[0].str(), "float32 [1,128,50257]");
  EXPECT_EQ(back.ranks[0].outputs[1].str(), "float64 []");
  // v2: micro-batches, stages, batched signatures and what the user sees.
  EXPECT_EQ(back.version, 5u);
  EXPECT_TRUE(back.dims.empty());
  EXPECT_EQ(back.batchItems, 0u);
  EXPECT_EQ(back.microbatches, 3u);
  EXPECT_EQ(back.ranks[3].stage, 1u);
  EXPECT_TRUE(back.ranks[0].inputs[0].batched);
  EXPECT_FALSE(back.ranks[0].inputs[1].batched);
  EXPECT_EQ(back.ranks[0].inputs[0].userSig(3).str(), "int64 [3,128]");
  EXPECT_EQ(back.ranks[0].inputs[1].userSig(3).str(), "bool [1,128]");
  EXPECT_EQ(back.ranks[0].outputs[0].userSig(3).bytes(),
            3ull * 128 * 50257 * 4);
  // The world size written is the number of ranks.
  plan.worldSize = 99;
  bytes = encodePlan(plan);
  ASSERT_TRUE(decodePlan(bytes.data(), bytes.size(), back, error)) << error;
  EXPECT_EQ(back.worldSize, 4u);
}

TEST(Format, PlanEveryTruncationAndFlip) {
  std::mt19937_64 rng(2);
  Plan plan = twoRankPlan(randomSections(rng));
  const std::vector<uint8_t> good = encodePlan(plan);
  for (size_t len = 0; len < good.size(); ++len) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + len);
    Plan out;
    std::string error;
    EXPECT_FALSE(decodePlan(cut.data(), cut.size(), out, error)) << len;
    expectOneLine(error);
  }
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::vector<uint8_t> bad = good;
      bad[i] ^= mask;
      Plan out;
      std::string error;
      EXPECT_FALSE(decodePlan(bad.data(), bad.size(), out, error))
          << "byte " << i;
      expectOneLine(error);
    }
  }
  Plan out;
  std::string error;
  EXPECT_FALSE(decodePlan(nullptr, 0, out, error));
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_FALSE(decodePlan(longer.data(), longer.size(), out, error));
}

/// Damage with a valid checksum: the structural checks must catch it.
TEST(Format, PlanStructuralChecks) {
  auto resum = [](std::vector<uint8_t> b) {
    uint64_t sum = checksum64(b.data(), b.size() - 8);
    detail::storeU64(b.data() + b.size() - 8, sum);
    return b;
  };
  std::mt19937_64 rng(3);
  Plan plan = twoRankPlan(randomSections(rng));
  const std::vector<uint8_t> good = encodePlan(plan);
  // Every byte replaced by a few values, checksum repaired: decode either
  // fails cleanly or yields a plan that re-encodes to the same bytes.
  for (size_t i = 8; i + 8 < good.size(); ++i) {
    for (uint8_t v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::vector<uint8_t> bad = good;
      bad[i] = v;
      bad = resum(bad);
      Plan out;
      std::string error;
      if (decodePlan(bad.data(), bad.size(), out, error)) {
        std::vector<uint8_t> again = encodePlan(out);
        EXPECT_EQ(again, bad) << "byte " << i;
      } else {
        expectOneLine(error);
      }
    }
  }
  // Huge rank, negative dim, unknown dtype, too-large tensor, empty world.
  Plan p = plan;
  p.ranks[0].inputs[0].dims.assign(9, 1);
  Plan out;
  std::string error;
  std::vector<uint8_t> b = encodePlan(p);
  EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
  EXPECT_NE(error.find("rank 9"), std::string::npos) << error;
  p = plan;
  p.ranks[0].inputs[0].dims = {-1, 3};
  b = encodePlan(p);
  EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
  p = plan;
  p.ranks[0].inputs[0].dtype = 8;
  b = encodePlan(p);
  EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
  EXPECT_NE(error.find("unknown dtype"), std::string::npos) << error;
  p = plan;
  p.ranks[0].inputs[0].dims = {int64_t(1) << 40, int64_t(1) << 30};
  b = encodePlan(p);
  EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
  EXPECT_NE(error.find("too large"), std::string::npos) << error;
  p = plan;
  p.ranks.clear();
  b = encodePlan(p);
  EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
  p = plan;
  p.ranks[0].inputs[1].name = p.ranks[0].inputs[0].name;
  b = encodePlan(p);
  EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
  EXPECT_NE(error.find("duplicate input"), std::string::npos) << error;
}

TEST(Format, PlanVersionBump) {
  Plan plan = shardc::testing::fakePlan();
  for (uint32_t version : {0u, 6u}) {
    plan.version = version;
    std::vector<uint8_t> b = encodePlan(plan);
    Plan out;
    std::string error;
    EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
    EXPECT_EQ(error, "plan version " + std::to_string(version) +
                         ", this runtime reads 1 to 5");
  }
}

/// Version 1 plans (no micro-batches, stages or flags) still decode, with
/// the v2 fields at their defaults, and encode back to the same bytes.
TEST(Format, PlanVersion1StillDecodes) {
  std::mt19937_64 rng(6);
  Plan plan = twoRankPlan(randomSections(rng));
  plan.version = 1;
  std::vector<uint8_t> v1 = encodePlan(plan);
  plan.version = 2;
  std::vector<uint8_t> v2 = encodePlan(plan);
  // v2 adds microbatches (4 bytes), a stage per rank and flags per
  // signature (4 ranks x (1 + 5 signatures) x 4 bytes).
  EXPECT_EQ(v2.size() - v1.size(), 4u + 4 * 6 * 4);
  Plan back;
  std::string error;
  ASSERT_TRUE(decodePlan(v1.data(), v1.size(), back, error)) << error;
  EXPECT_EQ(back.version, 1u);
  EXPECT_EQ(back.microbatches, 1u);
  EXPECT_EQ(back.ranks[3].stage, 0u);
  EXPECT_FALSE(back.ranks[0].inputs[0].batched);
  EXPECT_EQ(back.ranks[0].inputs[0].str(), "int64 [1,128]");
  EXPECT_EQ(encodePlan(back), v1);

  // The plans older compilers wrote: the fuzzing corpus (tiny_gpt2 and the
  // fuzzer's finds, version 1 but for a hand-made pipeline seed). Every one
  // that decodes encodes back to its bytes.
  std::string dir = std::string(SHARDC_SOURCE_DIR) + "/fuzz/corpus/plan";
  DIR *d = opendir(dir.c_str());
  ASSERT_TRUE(d) << dir;
  int oldPlans = 0, files = 0;
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] == '.')
      continue;
    std::ifstream in(dir + "/" + e->d_name, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    ++files;
    Plan p;
    if (!decodePlan(bytes.data(), bytes.size(), p, error))
      continue;
    EXPECT_EQ(encodePlan(p), bytes) << e->d_name;
    if (p.version != 1)
      continue;
    ++oldPlans;
    EXPECT_EQ(p.microbatches, 1u);
    for (const RankPlan &r : p.ranks) {
      EXPECT_EQ(r.stage, 0u);
      for (const TensorSig &s : r.inputs)
        EXPECT_FALSE(s.batched);
    }
  }
  closedir(d);
  EXPECT_GT(files, 0);
  EXPECT_GT(oldPlans, 0);
}

/// The v2 fields' own checks (checksum valid): flags, micro-batch count,
/// stage, batched scalars, and the user's size of a batched tensor.
TEST(Format, PlanVersion2Corruption) {
  std::mt19937_64 rng(7);
  const Plan plan = twoRankPlan(randomSections(rng));
  Plan p = plan;
  p.microbatches = 0;
  refuse(p, "plan is corrupt (0 micro-batches, expected 1 to 65536)");
  p.microbatches = 65537;
  refuse(p, "plan is corrupt (65537 micro-batches, expected 1 to 65536)");
  p.microbatches = 65536;
  std::vector<uint8_t> b = encodePlan(p);
  Plan out;
  std::string error;
  EXPECT_TRUE(decodePlan(b.data(), b.size(), out, error)) << error;

  p = plan;
  p.ranks[1].stage = 4;
  refuse(p, "plan is corrupt (rank 1 is in stage 4 of a 4-rank world)");
  p = plan;
  p.ranks[0].outputs[1].batched = true;
  refuse(p, "plan is corrupt (scalar tensor 'scalar' is batched)");
  // [2^30, 2^27] int64 is 2^60 bytes: fits alone, not times 8.
  p = plan;
  p.ranks[0].inputs[0].dims = {int64_t(1) << 30, int64_t(1) << 27};
  p.microbatches = 4;
  b = encodePlan(p);
  EXPECT_TRUE(decodePlan(b.data(), b.size(), out, error)) << error;
  p.microbatches = 8;
  refuse(p, "plan is corrupt (tensor 'input_ids' is too large for 8 "
            "micro-batches)");
  // An empty tensor with 2^60 + 1 rows: no bytes, but 85 micro-batches of
  // them do not fit a dim (found by the plan fuzzer).
  p = plan;
  p.ranks[0].inputs[0].dims = {(int64_t(1) << 60) + 1, 0};
  p.microbatches = 4;
  b = encodePlan(p);
  EXPECT_TRUE(decodePlan(b.data(), b.size(), out, error)) << error;
  p.microbatches = 85;
  refuse(p, "plan is corrupt (tensor 'input_ids' is too large for 85 "
            "micro-batches)");

  // Flag bits other than bit 0, written into the bytes (the encoder writes
  // only that bit): the first signature's flags are the last 4 bytes
  // before the second's name length.
  b = encodePlan(plan);
  const size_t firstSig = 8 + 4 + 4 + 8 + 4 + 4 + 4 + 4 + 44; // v4: 0 dims
  const size_t flags = firstSig + 4 + 9 + 4 + 4 + 2 * 8; // "input_ids", rank 2
  ASSERT_EQ(detail::loadU32(b.data() + flags), 1u);
  for (uint32_t bad : {2u, 3u, 0x80000000u}) {
    std::vector<uint8_t> c = b;
    detail::storeU32(c.data() + flags, bad);
    detail::storeU64(c.data() + c.size() - 8,
                     checksum64(c.data(), c.size() - 8));
    EXPECT_FALSE(decodePlan(c.data(), c.size(), out, error));
    EXPECT_EQ(error, "plan is corrupt (tensor 'input_ids' has unknown flags " +
                         std::to_string(bad) + ")");
  }
}

/// v3: a batch the micro-batches split unevenly (dist-pad-batch). The
/// user's batched tensors hold batch_items items; each micro-batch's
/// program ceil(items / M); micro-batch k holds its balanced share.
TEST(Format, PlanVersion3BatchItems) {
  std::mt19937_64 rng(8);
  Plan plan = twoRankPlan(randomSections(rng));
  plan.worldSize = static_cast<uint32_t>(plan.ranks.size());
  // 5 items over 2 micro-batches: programs of 3 items (3 and 2 real).
  plan.microbatches = 2;
  plan.batchItems = 5;
  for (RankPlan &r : plan.ranks) {
    r.inputs[0].dims = {3, 128};
    r.outputs[0].dims = {3 * 128, 50257}; // items merged with tokens
  }
  std::vector<uint8_t> b = encodePlan(plan);
  Plan back;
  std::string error;
  ASSERT_TRUE(decodePlan(b.data(), b.size(), back, error)) << error;
  EXPECT_TRUE(samePlan(plan, back));
  EXPECT_EQ(back.ranks[0].inputs[0].userSig(2, 5).str(), "int64 [5,128]");
  EXPECT_EQ(back.ranks[0].outputs[0].userSig(2, 5).str(),
            "float32 [640,50257]");
  EXPECT_EQ(back.ranks[0].inputs[1].userSig(2, 5).str(), "bool [1,128]");
  EXPECT_EQ(itemsPerMicrobatch(5, 2), 3);
  EXPECT_EQ(microbatchShare(5, 2, 0), (std::pair<int64_t, int64_t>{0, 3}));
  EXPECT_EQ(microbatchShare(5, 2, 1), (std::pair<int64_t, int64_t>{3, 2}));
  // 5 over 4: 2, 1, 1, 1.
  EXPECT_EQ(microbatchShare(5, 4, 0), (std::pair<int64_t, int64_t>{0, 2}));
  EXPECT_EQ(microbatchShare(5, 4, 3), (std::pair<int64_t, int64_t>{4, 1}));
  // 2 over 3: the last holds none.
  EXPECT_EQ(microbatchShare(2, 3, 2), (std::pair<int64_t, int64_t>{2, 0}));

  Plan p = plan;
  p.microbatches = 1;
  refuse(p, "plan is corrupt (a batch of 5 items without micro-batches)");
  p = plan;
  p.ranks[2].inputs[0].dims = {4, 128};
  refuse(p, "plan is corrupt (tensor 'input_ids' has 4 rows for 3 items "
            "per micro-batch)");
  // Before v3 the field was reserved: a v2 plan with it set is corrupt.
  b = encodePlan(plan);
  detail::storeU32(b.data() + 8, 2);
  detail::storeU64(b.data() + b.size() - 8, checksum64(b.data(), b.size() - 8));
  EXPECT_FALSE(decodePlan(b.data(), b.size(), back, error));
  EXPECT_EQ(error, "plan is corrupt (reserved header field is not 0)");
}

/// A v4 plan with dynamic dims batch <= 4 and seq <= 64 on two ranks.
Plan dynamicPlan() {
  std::mt19937_64 rng(9);
  std::vector<std::vector<uint8_t>> sections = randomSections(rng);
  sections.resize(2);
  Plan plan = twoRankPlan(sections);
  plan.worldSize = 2;
  plan.microbatches = 1;
  plan.dims = {{"batch", 4}, {"seq", 64}};
  for (RankPlan &r : plan.ranks) {
    r.stage = 0;
    r.inputs = {{"input_ids", kI64, {4, 64}, false, {0, 1}},
                {"attention_mask", kBool, {4, 64}, false, {0, 1}},
                {"table", kF32, {3, 16}}};
    r.outputs = {{"logits", kF32, {4, 64, 16}, false, {0, 1, -1}},
                 {"pooled", kF32, {4, 16}, false, {0, -1}},
                 {"scalar", kF64, {}}};
  }
  return plan;
}

/// Every byte of an encoded plan replaced by a few values, checksum
/// repaired: decode fails with one line or the plan re-encodes to the same
/// bytes; and every truncation fails with one line.
void expectEveryFlipAndTruncation(const std::vector<uint8_t> &bytes) {
  std::string error;
  for (size_t i = 8; i + 8 < bytes.size(); ++i)
    for (uint8_t v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] = v;
      detail::storeU64(bad.data() + bad.size() - 8,
                       checksum64(bad.data(), bad.size() - 8));
      Plan out;
      if (decodePlan(bad.data(), bad.size(), out, error))
        EXPECT_EQ(encodePlan(out), bad) << "byte " << i;
      else
        expectOneLine(error);
    }
  for (size_t len = 0; len < bytes.size(); ++len) {
    Plan out;
    EXPECT_FALSE(decodePlan(bytes.data(), len, out, error)) << len;
    expectOneLine(error);
  }
}

/// v4: the dynamic dims table and each signature's dims by symbol.
TEST(Format, PlanVersion4DynamicDims) {
  Plan plan = dynamicPlan();
  std::vector<uint8_t> bytes = encodePlan(plan);
  Plan back;
  std::string error;
  ASSERT_TRUE(decodePlan(bytes.data(), bytes.size(), back, error)) << error;
  EXPECT_TRUE(samePlan(plan, back));
  EXPECT_EQ(encodePlan(back), bytes);
  ASSERT_EQ(back.dims.size(), 2u);
  EXPECT_EQ(back.dims[1].name, "seq");
  EXPECT_EQ(back.dims[1].max, 64);
  EXPECT_EQ(back.dimBounds(), (std::vector<int64_t>{4, 64}));
  const TensorSig &logits = back.ranks[1].outputs[0];
  EXPECT_EQ(logits.syms, (std::vector<int32_t>{0, 1, -1}));
  EXPECT_TRUE(logits.dynamic());
  EXPECT_FALSE(back.ranks[0].inputs[2].dynamic());
  EXPECT_EQ(logits.sym(1), 1);
  EXPECT_EQ(logits.sym(2), -1);
  EXPECT_EQ(back.ranks[0].inputs[2].sym(0), -1);
  // Messages and --info show the symbols; str() the bounds.
  EXPECT_EQ(logits.str(back.dims), "float32 [batch<=4,seq<=64,16]");
  EXPECT_EQ(logits.str(), "float32 [4,64,16]");
  EXPECT_EQ(back.ranks[0].inputs[2].str(back.dims), "float32 [3,16]");
  EXPECT_EQ(back.ranks[0].outputs[2].str(back.dims), "float64 []");
  // A run at batch 3, seq 17.
  TensorSig run = logits.withDims({3, 17});
  EXPECT_EQ(run.str(), "float32 [3,17,16]");
  EXPECT_EQ(run.bytes(), 3u * 17 * 16 * 4);
  EXPECT_EQ(back.ranks[0].outputs[1].withDims({3, 17}).str(), "float32 [3,16]");
  EXPECT_EQ(back.ranks[0].inputs[2].withDims({3, 17}).str(), "float32 [3,16]");
  EXPECT_EQ(logits.bytes(), 4u * 64 * 16 * 4); // buffers: the bounds

  expectEveryFlipAndTruncation(bytes);
}

/// v5: a decoder's KV cache. Dims may be 0 (the past), a dim may be the
/// sum of others (past + sequence), and a past input names the output that
/// holds it.
Plan cachePlan() {
  Plan plan = dynamicPlan();
  plan.ranks.resize(1);
  plan.worldSize = 1;
  plan.dims = {{"batch", 2},
               {"seq", 8},
               {"past", 16, 0, {}},
               {"seq + past", 24, 1, {1, 2}}};
  RankPlan &r = plan.ranks[0];
  r.inputs = {{"input_ids", kI64, {2, 8}, false, {0, 1}},
              {"attention_mask", kI64, {2, 24}, false, {0, 3}},
              {"past.key", kF32, {2, 4, 16, 8}, false, {0, -1, 2, -1}, 1, 2}};
  r.outputs = {{"logits", kF32, {2, 8, 96}, false, {0, 1, -1}},
               {"present.key", kF32, {2, 4, 24, 8}, false, {0, -1, 3, -1}}};
  return plan;
}

TEST(Format, PlanVersion5KvCache) {
  Plan plan = cachePlan();
  std::vector<uint8_t> bytes = encodePlan(plan);
  Plan back;
  std::string error;
  ASSERT_TRUE(decodePlan(bytes.data(), bytes.size(), back, error)) << error;
  EXPECT_TRUE(samePlan(plan, back));
  EXPECT_EQ(encodePlan(back), bytes);
  EXPECT_EQ(back.dims[2].min, 0);
  EXPECT_EQ(back.dims[3].parts, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(back.ranks[0].inputs[2].cacheOf, 1);
  EXPECT_EQ(back.ranks[0].inputs[2].cacheAxis, 2u);
  EXPECT_EQ(back.ranks[0].outputs[1].str(back.dims),
            "float32 [batch<=2,4,seq + past<=24,8]");
  EXPECT_EQ(back.ranks[0].outputs[1].withDims({2, 1, 5, 6}).str(),
            "float32 [2,4,6,8]");

  // What a cache must be: each a one-line refusal.
  auto refused = [&](const char *what, auto edit) {
    SCOPED_TRACE(what);
    Plan p = cachePlan();
    edit(p);
    std::vector<uint8_t> b = encodePlan(p);
    Plan out;
    EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
    expectOneLine(error);
    EXPECT_NE(error.find("corrupt"), std::string::npos) << error;
  };
  refused("a sum bounded otherwise", [](Plan &p) { p.dims[3].max = 23; });
  refused("a sum of one", [](Plan &p) { p.dims[3].parts = {1}; });
  refused("a sum of a later dim", [](Plan &p) { p.dims[1].parts = {0, 2}; });
  refused("a least value of 2", [](Plan &p) { p.dims[2].min = 2; });
  refused("a past that may not be empty", [](Plan &p) {
    p.dims[2].min = 1;
    p.dims[3].min = 1;
  });
  refused("a cache of no output",
          [](Plan &p) { p.ranks[0].inputs[2].cacheOf = 2; });
  refused("a cache along another axis",
          [](Plan &p) { p.ranks[0].inputs[2].cacheAxis = 3; });
  refused("a cache of another type",
          [](Plan &p) { p.ranks[0].outputs[1].dtype = kF64; });
  refused("a cache output that is not the sum", [](Plan &p) {
    p.ranks[0].outputs[1].syms[2] = 1;
    p.ranks[0].outputs[1].dims[2] = 8;
  });
  refused("an output with a cache",
          [](Plan &p) { p.ranks[0].outputs[0].cacheOf = 0; });
  refused("a sum nobody gives the parts of", [](Plan &p) {
    p.ranks[0].inputs[2].syms[2] = -1;
    p.ranks[0].inputs[2].dims[2] = 16;
    p.ranks[0].inputs[2].cacheOf = -1;
    p.ranks[0].inputs[2].cacheAxis = 0;
  });

  expectEveryFlipAndTruncation(bytes);
  // A v4 plan (no least values, sums or caches) still decodes.
  Plan v4 = dynamicPlan();
  v4.version = 4;
  std::vector<uint8_t> b4 = encodePlan(v4);
  ASSERT_TRUE(decodePlan(b4.data(), b4.size(), back, error)) << error;
  EXPECT_TRUE(samePlan(v4, back));
}

/// Plans of version 3 (no dynamic dims) still decode and encode back; a
/// static v4 plan is the v3 one with a dims count and a syms count per
/// signature.
TEST(Format, PlanVersion3StillDecodes) {
  std::mt19937_64 rng(10);
  Plan plan = twoRankPlan(randomSections(rng));
  plan.worldSize = 4;
  plan.version = 3;
  std::vector<uint8_t> v3 = encodePlan(plan);
  Plan back;
  std::string error;
  ASSERT_TRUE(decodePlan(v3.data(), v3.size(), back, error)) << error;
  EXPECT_EQ(back.version, 3u);
  EXPECT_TRUE(back.dims.empty());
  EXPECT_TRUE(back.ranks[0].inputs[0].syms.empty());
  EXPECT_TRUE(samePlan(plan, back));
  EXPECT_EQ(encodePlan(back), v3);
  plan.version = 4;
  std::vector<uint8_t> v4 = encodePlan(plan);
  EXPECT_EQ(v4.size() - v3.size(), 4u + 4 * 5 * 4);
  // A v3 plan is written without dims or syms.
  Plan dynamic = dynamicPlan();
  dynamic.version = 3;
  v3 = encodePlan(dynamic);
  ASSERT_TRUE(decodePlan(v3.data(), v3.size(), back, error)) << error;
  EXPECT_TRUE(back.dims.empty());
  EXPECT_FALSE(back.ranks[0].outputs[0].dynamic());
  EXPECT_EQ(back.ranks[0].outputs[0].str(back.dims), "float32 [4,64,16]");
}

/// Each check of the v4 fields, with a valid checksum.
TEST(Format, PlanVersion4Corruption) {
  const Plan plan = dynamicPlan();
  Plan p = plan;
  p.dims.clear();
  for (int k = 0; k < 65; ++k)
    p.dims.push_back({"d" + std::to_string(k), 1});
  refuse(p, "plan is corrupt (65 dynamic dims, at most 64)");
  p.dims.pop_back();
  p.dims[0] = {"batch", 4};
  p.dims[1] = {"seq", 64};
  std::vector<uint8_t> b = encodePlan(p); // 64 dims, unused ones refused
  Plan out;
  std::string error;
  EXPECT_FALSE(decodePlan(b.data(), b.size(), out, error));
  EXPECT_EQ(error, "plan is corrupt (dynamic dim 'd2' is in no input of "
                   "rank 0)");

  p = plan;
  p.dims[1].name = std::string(kMaxNameBytes + 1, 's');
  refuse(p, "plan is corrupt (bad dynamic dim name length)");
  p.dims[1].name = std::string(kMaxNameBytes, 's');
  b = encodePlan(p);
  EXPECT_TRUE(decodePlan(b.data(), b.size(), out, error)) << error;
  p = plan;
  p.dims[1].name = "se\nq";
  refuse(p, "plan is corrupt (a dynamic dim name has control characters)");
  p.dims[1].name = "seq";
  p.dims[1].name[1] = 0x7f;
  refuse(p, "plan is corrupt (a dynamic dim name has control characters)");
  p = plan;
  p.dims[1].name = "batch";
  refuse(p, "plan is corrupt (duplicate dynamic dim 'batch')");

  p = plan;
  p.dims[0].max = 0;
  refuse(p, "plan is corrupt (dynamic dim 'batch' has bound 0, expected 1 "
            "to 1099511627776)");
  p.dims[0].max = -5;
  refuse(p, "plan is corrupt (dynamic dim 'batch' has bound -5, expected 1 "
            "to 1099511627776)");
  p.dims[0].max = (int64_t(1) << 40) + 1;
  refuse(p, "plan is corrupt (dynamic dim 'batch' has bound 1099511627777, "
            "expected 1 to 1099511627776)");

  p = plan;
  p.ranks[0].inputs[0].syms = {0, 2};
  refuse(p, "plan is corrupt (tensor 'input_ids' dim 1 is dynamic dim 2 of "
            "2)");
  p.ranks[0].inputs[0].syms = {-2, 1};
  refuse(p, "plan is corrupt (tensor 'input_ids' dim 0 is dynamic dim -2 of "
            "2)");
  p = plan;
  p.ranks[1].outputs[1].dims = {4, 32};
  p.ranks[1].outputs[1].syms = {0, 1};
  refuse(p, "plan is corrupt (tensor 'pooled' dim 1 is 32 but its dynamic "
            "dim 'seq' is bounded by 64)");
  p = plan;
  p.ranks[0].outputs[0].syms = {0, 1};
  refuse(p, "plan is corrupt (tensor 'logits' has 2 dynamic dim entries for "
            "rank 3)");
  p.ranks[0].outputs[0].syms = {0, 1, -1, -1};
  refuse(p, "plan is corrupt (tensor 'logits' has 4 dynamic dim entries for "
            "rank 3)");
  p.ranks[0].outputs[0].syms = {-1, -1, -1}; // all static: accepted
  b = encodePlan(p);
  EXPECT_TRUE(decodePlan(b.data(), b.size(), out, error)) << error;
  EXPECT_FALSE(out.ranks[0].outputs[0].dynamic());

  // Every dim must come from an input of every rank.
  p = plan;
  p.ranks[1].inputs[0].syms = {0, -1};
  p.ranks[1].inputs[0].dims = {4, 64};
  p.ranks[1].inputs[1].syms = {0, -1};
  refuse(p, "plan is corrupt (dynamic dim 'seq' is in no input of rank 1)");
  p = plan;
  for (TensorSig &s : p.ranks[0].inputs)
    s.syms.clear();
  refuse(p, "plan is corrupt (dynamic dim 'batch' is in no input of rank 0)");

  // Micro-batches split batched tensors; not together with dynamic dims.
  p = plan;
  p.microbatches = 2;
  p.ranks[0].inputs[0].batched = true;
  refuse(p, "plan is corrupt (batched tensor 'input_ids' has dynamic dims)");
  p.ranks[0].inputs[0].batched = false;
  p.ranks[0].inputs[2].batched = true; // a static one may be
  b = encodePlan(p);
  EXPECT_TRUE(decodePlan(b.data(), b.size(), out, error)) << error;
}

TEST(Format, PlanGarbage) {
  std::mt19937_64 rng(4);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> junk(rng() % 300);
    for (uint8_t &b : junk)
      b = static_cast<uint8_t>(rng());
    if (round % 2 && junk.size() >= 12) { // valid magic and version
      std::memcpy(junk.data(), kPlanMagic, 8);
      detail::storeU32(junk.data() + 8, kPlanVersion);
      if (junk.size() >= 40 && round % 4 == 1)
        detail::storeU64(junk.data() + junk.size() - 8,
                         checksum64(junk.data(), junk.size() - 8));
    }
    Plan out;
    std::string error;
    if (!decodePlan(junk.data(), junk.size(), out, error))
      expectOneLine(error);
  }
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

struct WeightsFixture : ::testing::Test {
  std::mt19937_64 rng{5};
  std::vector<std::vector<uint8_t>> sections = randomSections(rng);
  Plan plan = twoRankPlan(sections);
  std::vector<uint8_t> file = buildWeightsFile(plan.modelHash, sections);

  bool validate(const std::vector<uint8_t> &bytes, std::string &error,
                int rank = -1) {
    return validateWeights(bytes.data(), bytes.size(), plan, error, rank);
  }
};

TEST_F(WeightsFixture, LayoutAndValid) {
  std::vector<uint64_t> sizes = {1000, 64, 0, 77}, sums = {1, 2, 3, 4};
  WeightsLayout layout;
  std::vector<uint8_t> header = encodeWeightsHeader(7, sizes, sums, layout);
  EXPECT_EQ(header.size(), 256u); // 64 + 4 * 48 = 256
  ASSERT_EQ(layout.offsets.size(), 4u);
  EXPECT_EQ(layout.offsets[0], 256u);
  EXPECT_EQ(layout.offsets[1], 1280u);
  EXPECT_EQ(layout.offsets[2], 1344u);
  EXPECT_EQ(layout.offsets[3], 1344u);
  EXPECT_EQ(layout.fileSize, 1421u);
  for (uint64_t off : layout.offsets)
    EXPECT_EQ(off % 64, 0u);

  std::string error;
  EXPECT_TRUE(validate(file, error)) << error;
  for (int r = 0; r < 4; ++r) {
    EXPECT_TRUE(validate(file, error, r)) << error;
    uint64_t off = weightsSectionOffset(file.data(), r);
    EXPECT_EQ(off, layout.offsets[r]);
    if (!sections[r].empty()) {
      EXPECT_EQ(0, std::memcmp(file.data() + off, sections[r].data(),
                               sections[r].size()));
    }
  }
  // No sections at all (world size 0 plans do not decode, but the writer
  // and the checker agree).
  WeightsLayout none;
  std::vector<uint8_t> empty = encodeWeightsHeader(7, {}, {}, none);
  EXPECT_EQ(empty.size(), 64u);
  EXPECT_EQ(none.fileSize, 64u);
}

TEST_F(WeightsFixture, Truncations) {
  const size_t tableEnd = 64 + kSectionEntryBytes * sections.size();
  std::vector<size_t> lengths = {0,
                                 1,
                                 7,
                                 8,
                                 39,
                                 40,
                                 63,
                                 64,
                                 65,
                                 tableEnd - 1,
                                 tableEnd,
                                 tableEnd + 1,
                                 file.size() - 64,
                                 file.size() - 1};
  for (int i = 0; i < 50; ++i)
    lengths.push_back(rng() % file.size());
  for (size_t len : lengths) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + len);
    std::string error;
    EXPECT_FALSE(validate(cut, error)) << len;
    expectOneLine(error);
  }
  std::vector<uint8_t> longer = file;
  longer.resize(file.size() + 64, 0);
  std::string error;
  EXPECT_FALSE(validate(longer, error));
  EXPECT_NE(error.find("header says"), std::string::npos) << error;
  EXPECT_FALSE(validateWeights(nullptr, 0, plan, error));
  expectOneLine(error);
}

TEST_F(WeightsFixture, EveryHeaderFlipAndSomeDataFlips) {
  const size_t firstSection =
      alignUp(64 + kSectionEntryBytes * sections.size());
  std::vector<size_t> positions;
  for (size_t i = 0; i < firstSection; ++i)
    positions.push_back(i);
  for (int i = 0; i < 64; ++i)
    positions.push_back(firstSection + rng() % (file.size() - firstSection));
  positions.push_back(file.size() - 1);
  for (size_t pos : positions) {
    for (uint8_t mask : {0x01, 0x10, 0x80}) {
      std::vector<uint8_t> bad = file;
      bad[pos] ^= mask;
      std::string error;
      EXPECT_FALSE(validate(bad, error)) << "byte " << pos;
      expectOneLine(error);
    }
  }
}

TEST_F(WeightsFixture, DataFlipOnlyCheckedForTheLoadedRank) {
  std::vector<uint8_t> bad = file;
  bad[weightsSectionOffset(file.data(), 3) + 5] ^= 1;
  std::string error;
  EXPECT_TRUE(validate(bad, error, 0)) << error;
  EXPECT_FALSE(validate(bad, error, 3));
  EXPECT_EQ(error, "weights section 3 is corrupt (checksum mismatch)");
}

TEST_F(WeightsFixture, Mismatches) {
  std::string error;
  std::vector<uint8_t> other = buildWeightsFile(plan.modelHash + 1, sections);
  EXPECT_FALSE(validate(other, error));
  EXPECT_NE(error.find("another model"), std::string::npos) << error;

  std::vector<uint8_t> bumped = file;
  detail::storeU32(bumped.data() + 8, kWeightsVersion + 1);
  EXPECT_FALSE(validate(bumped, error));
  EXPECT_EQ(error, "weights version 4, this runtime reads 3");
  // Version 1 (one-pass section checksums) and version 2 (no shared heads,
  // 32-byte entries) are refused, not misread.
  detail::storeU32(bumped.data() + 8, 1);
  EXPECT_FALSE(validate(bumped, error));
  EXPECT_EQ(error, "weights version 1, this runtime reads 3");
  detail::storeU32(bumped.data() + 8, 2);
  EXPECT_FALSE(validate(bumped, error));
  EXPECT_EQ(error, "weights version 2, this runtime reads 3");

  std::vector<std::vector<uint8_t>> fewer(sections.begin(),
                                          sections.begin() + 2);
  std::vector<uint8_t> twoRanks = buildWeightsFile(plan.modelHash, fewer);
  EXPECT_FALSE(validate(twoRanks, error));
  EXPECT_EQ(error, "weights file is for world size 2, the program has 4");

  // Same sizes, different contents: the plan's checksum tells.
  std::vector<std::vector<uint8_t>> changed = sections;
  changed[1][0] ^= 1;
  std::vector<uint8_t> rebuilt = buildWeightsFile(plan.modelHash, changed);
  EXPECT_FALSE(validate(rebuilt, error));
  EXPECT_NE(error.find("another build"), std::string::npos) << error;

  // A different section size.
  changed = sections;
  changed[0].push_back(0);
  rebuilt = buildWeightsFile(plan.modelHash, changed);
  EXPECT_FALSE(validate(rebuilt, error));
  EXPECT_NE(error.find("the program expects 1000"), std::string::npos) << error;

  std::vector<uint8_t> magic = file;
  magic[0] = 'X';
  EXPECT_FALSE(validate(magic, error));
  EXPECT_EQ(error, "not a shardc weights file (bad magic)");
}

/// A section's checksum is checksum64 over its 16 MiB chunks' checksum64s,
/// whatever the thread count; it changes with any byte of any chunk.
TEST(Format, SectionChecksumChunks) {
  const uint64_t n = 2 * kChecksumChunk + kChecksumChunk / 2 + 3;
  std::vector<uint8_t> data(n);
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < n; i += 8)
    data[i] = static_cast<uint8_t>(rng());
  uint8_t sums[24];
  for (int i = 0; i < 3; ++i)
    detail::storeU64(sums + 8 * i,
                     checksum64(data.data() + i * kChecksumChunk,
                                i < 2 ? kChecksumChunk : n - 2 * kChecksumChunk));
  uint64_t expected = checksum64(sums, sizeof(sums));
  for (unsigned threads : {1u, 2u, 3u, 8u, 0u})
    EXPECT_EQ(sectionChecksum(data.data(), n, threads), expected) << threads;
  EXPECT_EQ(sectionChecksum(nullptr, 0), checksum64(nullptr, 0));
  EXPECT_EQ(sectionChecksum(data.data(), 100),
            [&] {
              uint8_t one[8];
              detail::storeU64(one, checksum64(data.data(), 100));
              return checksum64(one, 8);
            }());
  for (uint64_t at : {uint64_t(0), kChecksumChunk - 1, kChecksumChunk,
                      2 * kChecksumChunk + 5, n - 1}) {
    data[at] ^= 0x10;
    EXPECT_NE(sectionChecksum(data.data(), n, 2), expected) << at;
    data[at] ^= 0x10;
  }
}

/// Table entries rewritten with a valid header checksum: bounds, alignment
/// and overlap checks must catch them without reading out of bounds.
TEST_F(WeightsFixture, ForgedTableEntries) {
  auto forge = [&](size_t entry, size_t field, uint64_t value) {
    std::vector<uint8_t> b = file;
    detail::storeU64(b.data() + 64 + kSectionEntryBytes * entry + 8 * field,
                     value);
    std::vector<uint8_t> summed(b.begin(), b.begin() + 40);
    summed.insert(summed.end(), b.begin() + 64,
                  b.begin() + 64 + kSectionEntryBytes * sections.size());
    detail::storeU64(b.data() + 40, checksum64(summed.data(), summed.size()));
    return b;
  };
  const uint64_t huge[] = {
      ~0ull, ~0ull - 63, 1ull << 63, file.size(), file.size() + 64, 0, 64, 128};
  for (size_t e = 0; e < sections.size(); ++e)
    for (size_t f = 0; f < 6; ++f)
      for (uint64_t v : huge) {
        std::vector<uint8_t> b = forge(e, f, v);
        if (b == file)
          continue;
        std::string error;
        bool ok = validate(b, error);
        if (!ok)
          expectOneLine(error);
      }
}

TEST_F(WeightsFixture, Garbage) {
  for (int round = 0; round < 500; ++round) {
    std::vector<uint8_t> junk(rng() % 2000);
    for (uint8_t &b : junk)
      b = static_cast<uint8_t>(rng());
    if (round % 2 && junk.size() >= 64) {
      std::memcpy(junk.data(), kWeightsMagic, 8);
      detail::storeU32(junk.data() + 8, kWeightsVersion);
      detail::storeU32(junk.data() + 12, 4);
      detail::storeU64(junk.data() + 16, plan.modelHash);
      detail::storeU64(junk.data() + 24, junk.size());
      detail::storeU64(junk.data() + 32, 64);
    }
    std::string error;
    EXPECT_FALSE(validate(junk, error));
    expectOneLine(error);
  }
}

/// Three ranks of one program: a shared head of two kShareAlign blocks
/// stored once, rank 0's own tail, and ranks 1 and 2 (dp replicas) sharing
/// one tail; a fourth rank with a section of its own.
struct SharedFixture : ::testing::Test {
  std::mt19937_64 rng{11};
  std::vector<uint8_t> head = bytes(2 * kShareAlign), tail0 = bytes(1000),
                       tail12 = bytes(kShareAlign + 64), own = bytes(320);
  std::vector<std::vector<uint8_t>> sections = {
      concat(head, tail0), concat(head, tail12), concat(head, tail12), own};
  Plan plan = twoRankPlan(sections);
  std::vector<SectionEntry> entries;
  std::vector<uint8_t> file;

  std::vector<uint8_t> bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (uint8_t &b : v)
      b = static_cast<uint8_t>(rng());
    return v;
  }
  static std::vector<uint8_t> concat(const std::vector<uint8_t> &a,
                                     const std::vector<uint8_t> &b) {
    std::vector<uint8_t> v = a;
    v.insert(v.end(), b.begin(), b.end());
    return v;
  }
  void SetUp() override {
    // head, tail0, tail12 at kShareAlign boundaries, then `own`.
    const uint64_t h = kShareAlign, t0 = 3 * kShareAlign, t12 = 4 * kShareAlign,
                   o = alignUp(t12 + tail12.size());
    entries.assign(4, SectionEntry{});
    file.clear();
    for (int r = 0; r < 4; ++r) {
      entries[r].size = sections[r].size();
      entries[r].checksum = plan.ranks[r].weightsChecksum;
    }
    for (int r = 0; r < 3; ++r) {
      entries[r].sharedOffset = h;
      entries[r].sharedBytes = head.size();
      entries[r].offset = r ? t12 : t0;
    }
    entries[3].offset = o;
    write();
    std::memcpy(file.data() + h, head.data(), head.size());
    std::memcpy(file.data() + t0, tail0.data(), tail0.size());
    std::memcpy(file.data() + t12, tail12.data(), tail12.size());
    std::memcpy(file.data() + o, own.data(), own.size());
  }
  /// Rewrites the header and table from `entries`, keeping the data.
  void write() {
    uint64_t end = entries[3].offset + own.size();
    std::vector<uint8_t> header =
        encodeWeightsHeader(plan.modelHash, entries, end);
    file.resize(end, 0);
    std::memcpy(file.data(), header.data(), header.size());
  }
  bool validate(std::string &error, int rank = -1) {
    return validateWeights(file.data(), file.size(), plan, error, rank);
  }
};

TEST_F(SharedFixture, HeadAndTailsStoredOnce) {
  std::string error;
  ASSERT_TRUE(validate(error)) << error;
  // 4 sections of 131072 + 1000, 2 x (131072 + 65600) and 320 bytes fit in
  // one copy of the head, two tails and the own section.
  EXPECT_EQ(file.size(), 4 * kShareAlign + alignUp(kShareAlign + 64) + 320);
  for (uint32_t r = 0; r < 4; ++r) {
    SectionEntry e = weightsSection(file.data(), r);
    EXPECT_EQ(e.size, sections[r].size());
    EXPECT_EQ(sectionChecksum(file.data(), e, 2),
              sectionChecksum(sections[r].data(), sections[r].size()));
    EXPECT_TRUE(validate(error, r)) << error;
  }
}

TEST_F(SharedFixture, HeadChecksumSpansChunks) {
  // A head and tail whose boundary falls inside a 16 MiB checksum chunk and
  // a section of more than one chunk sum the same as the bytes in one run.
  std::vector<uint8_t> big = bytes(kChecksumChunk + 3 * kShareAlign);
  std::vector<uint8_t> data(kShareAlign + big.size() + kShareAlign);
  SectionEntry e;
  e.sharedOffset = kShareAlign;
  e.sharedBytes = kChecksumChunk + kShareAlign;
  e.offset = kShareAlign + e.sharedBytes + kShareAlign;
  e.size = big.size();
  data.resize(e.offset + e.tailBytes());
  std::memcpy(data.data() + e.sharedOffset, big.data(), e.sharedBytes);
  std::memcpy(data.data() + e.offset, big.data() + e.sharedBytes,
              e.tailBytes());
  EXPECT_EQ(sectionChecksum(data.data(), e, 3),
            sectionChecksum(big.data(), big.size(), 1));
}

TEST_F(SharedFixture, AFlipInTheHeadFailsEveryRankThatReadsIt) {
  file[kShareAlign + 7] ^= 4;
  std::string error;
  for (int r = 0; r < 3; ++r) {
    EXPECT_FALSE(validate(error, r));
    EXPECT_EQ(error, "weights section " + std::to_string(r) +
                         " is corrupt (checksum mismatch)");
  }
  EXPECT_TRUE(validate(error, 3)) << error;
}

TEST_F(SharedFixture, ForgedExtents) {
  auto expect = [&](const std::string &want) {
    write();
    std::string error;
    EXPECT_FALSE(validate(error));
    EXPECT_EQ(error, want);
    SetUp();
  };
  entries[0].sharedOffset += 64; // not page-aligned
  expect("weights section 0 is misaligned (offset 196608, shared head at "
         "65600 of 131072 bytes)");
  entries[1].sharedBytes = entries[1].size + kShareAlign;
  expect("weights section 1 is corrupt (a shared head of 262208 bytes at "
         "65536 in a section of 196672)");
  entries[3].sharedOffset = kShareAlign; // an offset without a head
  expect("weights section 3 is corrupt (a shared head of 0 bytes at 65536 "
         "in a section of 320)");
  entries[0].offset = 2 * kShareAlign; // a tail inside the head
  expect("weights section 0 overlaps another (offset 131072)");
  entries[2].sharedOffset = 0; // a head over the table
  entries[2].offset = 4 * kShareAlign;
  expect("weights section 2 overlaps the section table (offset 0)");
  entries[2].sharedOffset = 4 * kShareAlign; // past the end
  entries[2].sharedBytes = 2 * kShareAlign;
  expect("weights section 2 (offset 262144, 131072 bytes) runs past the end "
         "of the 328064-byte file");
  // Non-zero bytes between the first tail and the second.
  file[4 * kShareAlign - 1] = 1;
  std::string error;
  EXPECT_FALSE(validate(error));
  EXPECT_EQ(error, "weights file is corrupt (non-zero padding before weights "
                   "section 1)");
}

} // namespace
