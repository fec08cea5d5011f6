//===- SearchTest.cpp - the mesh search on hand-built model summaries -----===//

#include "shardc/Planner/Search.h"

#include <gtest/gtest.h>

using namespace shardc::planner;

namespace {

#define EXPECT_PREFIX(text, prefix)                                            \
  EXPECT_EQ((text).rfind(prefix, 0), 0u) << (text)

/// 4 x 128 tokens of width 64, 2 layers of 4 heads: 8 GFLOP and 100 MB of
/// weights per run, 1 MB of outputs.
ModelSummary small() {
  ModelSummary m;
  m.batch = 4;
  m.tokens = 512;
  m.hidden = 64;
  m.layers = 2;
  m.heads = 4;
  m.denseFlops = 8e9;
  m.denseWeights = 1e8;
  m.outputBytes = 1e6;
  m.peakActivation = 1e6;
  m.kernels = 10;
  return m;
}

const Candidate *find(const std::vector<Candidate> &v, int64_t dp, int64_t pp,
                      int64_t ep, int64_t tp, bool sp = false,
                      int64_t mb = 1) {
  for (const Candidate &c : v)
    if (c.dp == dp && c.pp == pp && c.ep == ep && c.tp == tp && c.sp == sp &&
        c.microbatches == mb)
      return &c;
  return nullptr;
}

TEST(Search, EstimatesWorkedByHand) {
  Cluster cpu = *presetCluster("cpu");
  SearchResult r = searchPlans(small(), cpu, 2, Objective::Latency);
  // dp=2: 4 GFLOP per rank at 80 GFLOP/s (0.05 s) over 100 MB at 10 GB/s
  // (0.01 s), 10 launches of 1 us; the outputs gathered over 2 ranks:
  // 1 us + 1/2 * 1 MB / 5 GB/s.
  const Candidate *dp = find(r.ranked, 2, 1, 1, 1);
  ASSERT_NE(dp, nullptr);
  EXPECT_NEAR(dp->latency, 0.05 + 1e-5 + 1e-6 + 1e-4, 1e-12);
  // tp=2: the same compute over half the weights, and 2 layers x 2 ring
  // all-reduces of 512 x 64 x 4 B: 2 us + 131072 / 5 GB/s each.
  const Candidate *tp = find(r.ranked, 1, 1, 1, 2);
  ASSERT_NE(tp, nullptr);
  EXPECT_NEAR(tp->latency, 0.05 + 1e-5 + 4 * (2e-6 + 131072 / 5e9), 1e-12);
  EXPECT_DOUBLE_EQ(tp->memory.weights, 5e7);
  // The cheaper gather wins.
  EXPECT_EQ(r.ranked.front().name(), "dp2 pp1 ep1 tp1 mb1");
}

TEST(Search, TrialAtTheDegreePriced) {
  // A trial at tp=8 (12 heads: the partitioner leaves attention whole):
  // the figures of that degree price tp=8, which is no longer refused;
  // its whole FLOPs (the attention) run on every rank.
  ModelSummary m = small();
  m.heads = 12;
  m.hidden = 768;
  ModelSummary at8 = m;
  at8.trialTp = 8;
  at8.tpWholeFlops = 2e9;
  at8.tpReplicatedWeights = 2e7;
  m.atDegrees.push_back(at8);
  Candidate c;
  c.tp = 8;
  Candidate tp8 = evaluatePlan(m, *presetCluster("cpu"), c);
  EXPECT_EQ(tp8.rejected, "");
  // (6e9 / 8 + 2e9) FLOP at 80 GFLOP/s; (8e7 / 8 + 2e7) B of weights.
  EXPECT_DOUBLE_EQ(tp8.memory.weights, 3e7);
  EXPECT_NEAR(tp8.stageCompute, (6e9 / 8 + 2e9) / 80e9 + 10e-6, 1e-12);
  ASSERT_EQ(tp8.strategyNotes.size(), 1u);
  EXPECT_EQ(tp8.strategyNotes[0],
            "attention whole on every rank: 12 heads do not divide by tp=8");
  // The trial at the degree refused: its error is the reason.
  m.atDegrees[0].trialError = "--sp: the 7 tokens do not divide";
  EXPECT_EQ(evaluatePlan(m, *presetCluster("cpu"), c).rejected,
            "tp=8: --sp: the 7 tokens do not divide");
}

TEST(Search, Int8GathersUnderSp) {
  // tp=2 with sp: 2 layers x 2 all-gathers of the hidden state, 512 x 64.
  // An int8 model's layers gather int8 rows: a quarter of the f32 bytes,
  // each ring gather 1 us + 1/2 * bytes / 5 GB/s; the reduce-scatters
  // (int32 or f32 partial sums) are unchanged.
  ModelSummary m = small();
  Candidate c;
  c.tp = 2;
  c.sp = true;
  Candidate f32 = evaluatePlan(m, *presetCluster("cpu"), c);
  m.gatherElementBytes = 1;
  Candidate i8 = evaluatePlan(m, *presetCluster("cpu"), c);
  EXPECT_NEAR(f32.stageComm - i8.stageComm,
              4 * 0.5 * (512 * 64 * 4 - 512 * 64) / 5e9, 1e-12);
  auto gathered = [](const Candidate &x) {
    for (const auto &[kind, bytes] : x.traffic)
      if (kind == "all_gather")
        return bytes;
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(gathered(f32), 4.0 * 512 * 64 * 4);
  EXPECT_DOUBLE_EQ(gathered(i8), 4.0 * 512 * 64);
}

TEST(Search, RejectionsSayWhy) {
  ModelSummary m = small();
  m.heads = 12;
  m.hidden = 768;
  SearchResult r = searchPlans(m, *presetCluster("cpu"), 8,
                               Objective::Latency);
  const Candidate *tp8 = find(r.rejected, 1, 1, 1, 8);
  ASSERT_NE(tp8, nullptr);
  EXPECT_EQ(tp8->rejected, "12 heads do not divide by tp=8");
  // dp=8 on a batch of 4 runs (dist-pad-batch: four replicas compute a
  // copy of a row), each replica costing what one of dp=4's does.
  const Candidate *dp8 = find(r.ranked, 8, 1, 1, 1);
  ASSERT_NE(dp8, nullptr);
  Candidate dp4;
  dp4.dp = 4;
  EXPECT_DOUBLE_EQ(dp8->stageCompute,
                   evaluatePlan(m, *presetCluster("cpu"), dp4).stageCompute);
  EXPECT_EQ(find(r.rejected, 1, 8, 1, 1)->rejected,
            "2 layers give at most 2 stages, not pp=8");
  EXPECT_EQ(find(r.rejected, 1, 1, 8, 1)->rejected,
            "ep=8: the model has no mixture-of-experts layer");
  // 4 x 2: tp=2 and pp=2 with 1, 2 micro-batches (of the batch of 4), with
  // and without sp, and dp=4 x tp=2, dp=2 x pp=2 x tp=2, ... all run.
  EXPECT_NE(find(r.ranked, 1, 2, 1, 4, true, 2), nullptr);
  EXPECT_NE(find(r.ranked, 4, 1, 1, 2), nullptr);
}

TEST(Search, StagesBalancedOverTheCutPoints) {
  // Five segments between cut points: an embedding of 1 GFLOP, two layers
  // of 3.5, a head of 0 (8 GFLOP in all). pp=2 cuts {1 3.5} {3.5 0}: the
  // slowest stage is 4.5/8 of the program, not 1/2; pp=8 > 4 segments is
  // refused as dist-pipeline would.
  ModelSummary m = small();
  m.segments = {1e9, 3.5e9, 3.5e9, 0};
  Cluster cpu = *presetCluster("cpu");
  Candidate plan;
  plan.pp = 2;
  Candidate c = evaluatePlan(m, cpu, plan);
  ASSERT_TRUE(c.rejected.empty()) << c.rejected;
  ModelSummary even = small();
  Candidate e = evaluatePlan(even, cpu, plan);
  // Kernels: 8e9 * share / peak; weights 1e8 * share / bandwidth; launch
  // floors kernels * share.
  double peak = cpu.peakFlops("fp32");
  auto stage = [&](double share) {
    return std::max(8e9 * share / peak, 1e8 * share / cpu.memoryBandwidth) +
           cpu.launchFloor * 10 * share;
  };
  EXPECT_NEAR(c.stageCompute, stage(4.5 / 8), 1e-12);
  EXPECT_NEAR(e.stageCompute, stage(0.5), 1e-12);
  EXPECT_NEAR(c.memory.weights, 1e8 * 4.5 / 8, 1e-3);
  plan.pp = 8;
  EXPECT_EQ(evaluatePlan(m, cpu, plan).rejected,
            "the graph has 3 points where only one tensor crosses, so at "
            "most 4 stages, not pp=8");
}

TEST(Search, MemoryThatDoesNotFit) {
  ModelSummary m = small();
  m.denseWeights = 20 * 1024.0 * 1024.0 * 1024.0; // 20 GiB: one rank holds 12
  SearchResult r = searchPlans(m, *presetCluster("cpu"), 2,
                               Objective::Latency);
  const Candidate *dp = find(r.rejected, 2, 1, 1, 1);
  ASSERT_NE(dp, nullptr);
  // 20 GiB of weights + 1 MB of activations + the cpu preset's 64 MiB of
  // runtime = 20.06 GiB against 12.
  EXPECT_EQ(dp->rejected.rfind("does not fit: needs 20.06 GiB per rank, "
                               "8.06 GiB over",
                               0),
            0u)
      << dp->rejected;
  ASSERT_FALSE(r.ranked.empty()); // tp=2 or pp=2 halve the weights
  EXPECT_LE(r.ranked.front().memory.weights, 10 * 1024.0 * 1024.0 * 1024.0);
}

TEST(Search, ExpertsAndTheSameOrderEveryTime) {
  ModelSummary m = small();
  m.experts = 8;
  m.topK = 2;
  m.moeLayers = 2;
  m.expertFlops = 16e9;
  m.expertWeights = 4e8;
  Cluster h100 = *presetCluster("h100-sxm-8");
  SearchResult a = searchPlans(m, h100, 8, Objective::Throughput);
  SearchResult b = searchPlans(m, h100, 8, Objective::Throughput);
  ASSERT_EQ(a.ranked.size(), b.ranked.size());
  for (size_t i = 0; i < a.ranked.size(); ++i)
    EXPECT_EQ(a.ranked[i].name(), b.ranked[i].name());
  EXPECT_NE(find(a.ranked, 1, 1, 8, 1), nullptr);
  EXPECT_EQ(find(a.rejected, 1, 1, 1, 8)->rejected,
            "4 heads do not divide by tp=8");
  // ep=8 on one node: each rank sends 512 / 8 tokens x 2 choices x 64 x 4 B
  // per MoE layer and all-to-all.
  const Candidate *ep = find(a.ranked, 1, 1, 8, 1);
  bool sawAllToAll = false;
  for (auto &[kind, bytes] : ep->traffic)
    if (kind == "all_to_all") {
      sawAllToAll = true;
      EXPECT_DOUBLE_EQ(bytes, 2 * 2 * 64 * 2 * 64 * 4.0);
    }
  EXPECT_TRUE(sawAllToAll);
  // Without ep the MoE is replicated over tp (the Megatron seeds leave it
  // whole): tp2 runs all 16 GFLOP of experts on each rank, ep2 x tp2 a
  // quarter of them (tokens split over ep and tp); the dense 8 GFLOP halve.
  Cluster cpu = *presetCluster("cpu");
  double peak = cpu.peakFlops("fp32");
  Candidate tp2, ep2tp2;
  tp2.tp = 2;
  ep2tp2.ep = 2;
  ep2tp2.tp = 2;
  Candidate x = evaluatePlan(m, cpu, tp2), y = evaluatePlan(m, cpu, ep2tp2);
  ASSERT_TRUE(x.rejected.empty() && y.rejected.empty());
  EXPECT_NEAR(x.stageCompute, (4e9 + 16e9) / peak + 10 * cpu.launchFloor,
              1e-12);
  EXPECT_NEAR(y.stageCompute, (4e9 + 4e9) / peak + 10 * cpu.launchFloor,
              1e-12);
}


/// small() with an embedding table and an LM head tp splits (50000 rows and
/// columns, 40 MB each) and 2 layers of 3 GFLOP and 10 MB each.
ModelSummary withParts() {
  ModelSummary m = small();
  m.embeddingWeights = 4e7;
  m.embeddingRows = 50000;
  m.headWeights = 4e7;
  m.headColumns = 50000;
  m.headFlops = 2e9;
  m.logitsBytes = 1.5e8;
  m.layerFlops = 3e9;
  m.layerWeights = 1e7;
  return m;
}

TEST(Search, PerLayerStrategiesByTime) {
  Cluster cpu = *presetCluster("cpu");
  Candidate tp2;
  tp2.tp = 2;
  // The head: split, it saves 2 GFLOP / 2 at 80 GFLOP/s (12.5 ms) and
  // all-gathers 150 MB of logits at 5 GB/s, (2-1)/2 of it: 15 ms + 1 us.
  // Whole is faster. The embedding: whole saves one all-reduce of 512 x 64
  // x 4 B (ring: 2 us + 131072 / 5 GB/s = 28.2 us) and costs 20 MB per
  // rank. A layer replicated costs 3 GFLOP / 2 at 80 GFLOP/s (18.75 ms)
  // and saves two all-reduces: the layers stay split.
  Candidate c = chooseLayerStrategies(withParts(), cpu, tp2);
  ASSERT_TRUE(c.rejected.empty()) << c.rejected;
  EXPECT_TRUE(c.embeddingWhole);
  EXPECT_TRUE(c.headWhole);
  EXPECT_TRUE(c.replicatedLayers.empty());
  EXPECT_EQ(c.name(), "dp1 pp1 ep1 tp2 mb1 embedding-whole head-whole");
  Candidate megatron = evaluatePlan(withParts(), cpu, tp2);
  double ar = 2e-6 + 131072 / 5e9;
  double gather = 1e-6 + 0.5 * 1.5e8 / 5e9;
  EXPECT_NEAR(megatron.latency - c.latency, ar + gather - 2e9 / 2 / 80e9,
              1e-9);
  EXPECT_NEAR(c.memory.weights - megatron.memory.weights, 4e7, 1e-3);
  ASSERT_EQ(c.strategyNotes.size(), 3u);
  EXPECT_PREFIX(c.strategyNotes[0], "embedding whole; vocab-parallel would "
                                     "take 28.2 us more per run and 19.1 "
                                     "MiB less per rank");
  EXPECT_PREFIX(c.strategyNotes[1], "every layer split by heads and "
                                     "columns; replicating every layer would "
                                     "take");
  EXPECT_PREFIX(c.strategyNotes[2], "head whole; column-parallel would take "
                                     "2.501 ms more");

  // Smaller logits (50 MB, 5 ms to gather): the split head is faster.
  ModelSummary m = withParts();
  m.logitsBytes = 5e7;
  EXPECT_FALSE(chooseLayerStrategies(m, cpu, tp2).headWhole);
  // Rows tp does not divide are padded to a multiple (dist-seed-megatron
  // pads with zeros): the options stay, and a vocab-parallel rank holds
  // ceil(50001 / 2) = 25001 rows of 4e7 / 50001 bytes, half a row more than
  // an even split.
  m.embeddingRows = 50001;
  Candidate odd = chooseLayerStrategies(m, cpu, tp2);
  EXPECT_TRUE(odd.embeddingWhole);
  EXPECT_EQ(odd.strategyNotes.size(), 3u);
  Candidate even = evaluatePlan(withParts(), cpu, tp2);
  Candidate padded = evaluatePlan(m, cpu, tp2);
  EXPECT_NEAR(padded.memory.weights - even.memory.weights,
              4e7 / 50001 * (25001 - 50001 / 2.0), 1e-3);
  // Fewer rows than ranks: nothing to split, no choice.
  m.embeddingRows = 1;
  EXPECT_EQ(chooseLayerStrategies(m, cpu, tp2).strategyNotes.size(), 2u);
}

TEST(Search, PerLayerStrategiesByMemory) {
  // A 16 GB vocabulary: whole it does not fit the cpu preset's 12 GiB, so
  // it stays vocab-parallel although whole would be faster.
  ModelSummary m = withParts();
  m.embeddingWeights = 1.6e10;
  m.denseWeights += 1.6e10;
  Candidate tp2;
  tp2.tp = 2;
  Candidate c = chooseLayerStrategies(m, *presetCluster("cpu"), tp2);
  ASSERT_TRUE(c.rejected.empty()) << c.rejected;
  EXPECT_FALSE(c.embeddingWhole);
  EXPECT_EQ(c.strategyNotes[0],
            "embedding vocab-parallel; whole does not fit");

  // Layers not worth their collectives (a link of 1 ms latency, 1.5
  // MFLOP layers): every layer replicated, as memory allows.
  Cluster slow = *presetCluster("cpu");
  slow.intraNode.latency = 1e-3;
  ModelSummary tiny = withParts();
  tiny.denseFlops = 8e6;
  tiny.layerFlops = 3e6;
  tiny.headFlops = 2e6;
  tiny.logitsBytes = 1e3;
  Candidate all = chooseLayerStrategies(tiny, slow, tp2);
  EXPECT_EQ(all.replicatedLayers, (std::vector<int64_t>{0, 1}));
  // Room for one layer's extra 5 MB (10 MB whole instead of 5 MB split)
  // above Megatron's plan, not for a whole embedding or head (20 MB more
  // each): the last layer replicated, the rest as Megatron splits them.
  Candidate split = evaluatePlan(tiny, slow, tp2);
  slow.memoryBytes = split.memory.total() + 7e6;
  Candidate one = chooseLayerStrategies(tiny, slow, tp2);
  EXPECT_EQ(one.replicatedLayers, (std::vector<int64_t>{1}));
  EXPECT_FALSE(one.embeddingWhole);
  EXPECT_FALSE(one.headWhole);
  // Splitting it again costs two all-reduces (ring: 2 x 1 ms + 131072 /
  // 5 GB/s each) and saves reading 5 MB of weights at 10 GB/s (0.5 ms).
  EXPECT_PREFIX(one.strategyNotes[1], "layer 1 replicated, the others "
                                       "split; splitting every layer would "
                                       "take 3.552 ms more");
  EXPECT_LE(one.memory.total(), slow.memoryBytes);
  // The plan file's layer numbers are checked against the model.
  Candidate bad = tp2;
  bad.replicatedLayers = {2};
  EXPECT_EQ(evaluatePlan(tiny, slow, bad).rejected,
            "replicated layer 2 is not one of the model's 2 layers");
}

} // namespace

namespace {

/// The arena from the live bytes after each op, and a pipeline rank's
/// weights from the stage that holds the most.
TEST(Search, MemoryFromLiveBytesAndStageWeights) {
  ModelSummary m = small();
  // After op 0: 1 MB whole + 4 MB split; op 1: 2 MB whole + 2 MB split;
  // op 2: a split output of 3 MB gathered through 3 MB of staging.
  m.liveWhole = {1e6, 2e6, 0};
  m.liveSplit = {4e6, 2e6, 3e6};
  m.liveGathered = {0, 0, 3e6};
  Cluster cpu = *presetCluster("cpu");
  auto activations = [&](int64_t dp, int64_t tp) {
    Candidate c;
    c.dp = dp;
    c.tp = tp;
    return evaluatePlan(m, cpu, c).memory.activations;
  };
  EXPECT_DOUBLE_EQ(activations(1, 1), 5e6);             // op 0, no staging
  EXPECT_DOUBLE_EQ(activations(1, 2), 1.5e6 + 3e6);     // op 2: 1.5 + 3
  EXPECT_DOUBLE_EQ(activations(1, 4), 0.75e6 + 3e6);    // op 2
  EXPECT_DOUBLE_EQ(activations(2, 2), (1.5e6 + 6e6) / 2); // staging twice
  EXPECT_DOUBLE_EQ(activations(2, 1), 5e6 / 2);
  // Beside the arena, the runtime holds the inputs every rank reads and
  // the outputs, whole after their gather.
  m.inputBytes = 4096;
  Candidate tp2;
  tp2.tp = 2;
  Candidate io = evaluatePlan(m, cpu, tp2);
  EXPECT_DOUBLE_EQ(io.memory.io, 4096 + 1e6);
  EXPECT_DOUBLE_EQ(io.memory.total(), io.memory.weights +
                                          io.memory.activations +
                                          cpu.runtimeBytes + 4096 + 1e6);
  // A one-rank program loads no MPI: its runtime is the spec's one-rank
  // figure when the calibration measured one.
  cpu.runtimeBytesOneRank = 15e6;
  EXPECT_DOUBLE_EQ(evaluatePlan(m, cpu, Candidate()).memory.runtime, 15e6);
  EXPECT_DOUBLE_EQ(evaluatePlan(m, cpu, tp2).memory.runtime,
                   cpu.runtimeBytes);

  // Segments of 1, 3, 3, 1 GFLOP holding 30, 10, 10, 50 MB (a head
  // heavier than its FLOPs): pp2 cuts {1 3} {3 1}, and the second stage
  // holds 60 MB of the 100, not the FLOPs share 4/8 of them.
  m.segments = {1e9, 3e9, 3e9, 1e9};
  m.segmentWeights = {3e7, 1e7, 1e7, 5e7};
  Candidate pp;
  pp.pp = 2;
  EXPECT_DOUBLE_EQ(evaluatePlan(m, cpu, pp).memory.weights, 6e7);
  // pp3 (limit 4): {1 3} {3} {1}; with an embedding of 60 MB the first
  // stage holds 70 of the 100 MB.
  pp.pp = 3;
  m.segmentWeights = {6e7, 1e7, 1e7, 2e7};
  EXPECT_DOUBLE_EQ(evaluatePlan(m, cpu, pp).memory.weights, 7e7);
}

} // namespace
