//===- CostModelTest.cpp - the planner's formulas against hand computations ===//
//
// Every expected value below is worked by hand from the preset's numbers
// (Cluster.cpp) and the formulas of CostModel.h, not taken from the code.
//
//===----------------------------------------------------------------------===//

#include "shardc/Planner/CostModel.h"

#include <gtest/gtest.h>

using namespace shardc::planner;

namespace {

Cluster preset(const char *name) {
  std::optional<Cluster> c = presetCluster(name);
  EXPECT_TRUE(c.has_value()) << name;
  return c.value_or(Cluster());
}

constexpr double kGiB = 1073741824.0;

TEST(CostModel, RingAndTreeAllReduceOnNvlink) {
  Cluster h100 = preset("h100-sxm-8");
  Group eight{8, 1};
  // Ring, 1 GiB over 8 GPUs: 2*7*3us + 2*7/8 * 2^30 B / 450 GB/s
  //   = 42e-6 + 1879048192 / 450e9 = 42e-6 + 4.1756626e-3.
  EXPECT_NEAR(collectiveTime(h100, Collective::AllReduce, Algorithm::Ring,
                             eight, kGiB),
              4.2176626e-3, 1e-9);
  // Tree: 2*3*3us + 2 * 2^30 / 450e9 = 18e-6 + 4.7721859e-3.
  EXPECT_NEAR(collectiveTime(h100, Collective::AllReduce, Algorithm::Tree,
                             eight, kGiB),
              4.7901859e-3, 1e-9);
  EXPECT_NEAR(allReduceTime(h100, eight, kGiB), 4.2176626e-3, 1e-9);
  // 1 KiB: latency-bound, the tree wins: 18e-6 + 2048 / 450e9.
  EXPECT_NEAR(allReduceTime(h100, eight, 1024), 1.8004551e-5, 1e-11);
  // A group of one moves nothing.
  EXPECT_EQ(allReduceTime(h100, Group{1, 1}, kGiB), 0);
}

TEST(CostModel, GroupsThatSpanNodesUseTheNetwork) {
  Cluster two = preset("h100-sxm-8x2");
  EXPECT_EQ(two.devices(), 16);
  // tp over 4 ranks with stride 2 (8 devices): one node; dp over 2 with
  // stride 8: two nodes.
  EXPECT_TRUE(withinNode(two, Group{4, 2}));
  EXPECT_FALSE(withinNode(two, Group{2, 8}));
  // All-gather of 1e8 B across the nodes: 6us + 1/2 * 1e8 / 50 GB/s.
  EXPECT_NEAR(collectiveTime(two, Collective::AllGather, Algorithm::Ring,
                             Group{2, 8}, 1e8),
              1.006e-3, 1e-12);
  // The same inside a node over NVLink: 3us + 1/2 * 1e8 / 450e9.
  EXPECT_NEAR(collectiveTime(two, Collective::AllGather, Algorithm::Ring,
                             Group{2, 1}, 1e8),
              3e-6 + 1.1111111e-4, 1e-11);
  // Reduce-scatter and all-to-all follow the all-gather's formula: 4 ranks
  // in a node, 3*3us + 3/4 * 4e6 / 450e9.
  double want = 9e-6 + 3e6 / 450e9;
  EXPECT_NEAR(collectiveTime(two, Collective::ReduceScatter, Algorithm::Ring,
                             Group{4, 1}, 4e6),
              want, 1e-12);
  EXPECT_NEAR(collectiveTime(two, Collective::AllToAll, Algorithm::Ring,
                             Group{4, 1}, 4e6),
              want, 1e-12);
  // Send/recv on the CPU preset's shared memory: 1us + 1e6 / 5e9.
  EXPECT_NEAR(collectiveTime(preset("cpu"), Collective::SendRecv,
                             Algorithm::Ring, Group{2, 1}, 1e6),
              2.01e-4, 1e-12);
}

TEST(CostModel, RooflineWithALaunchFloor) {
  Cluster h100 = preset("h100-sxm-8");
  // An fp16 4096^3 GEMM: 2 * 4096^3 = 137438953472 FLOP at 989.4 TFLOP/s
  // (1.3891e-4 s) against 3 * 4096^2 * 2 B at 3.35 TB/s (3.0e-5 s).
  EXPECT_NEAR(kernelTime(h100, 137438953472.0, 100663296.0, "fp16"),
              137438953472.0 / 989.4e12, 1e-12);
  // An elementwise pass over 8 MB is memory-bound: 8e6 / 3.35e12.
  EXPECT_NEAR(kernelTime(h100, 2e6, 8e7, "fp32"), 8e7 / 3.35e12, 1e-12);
  // A tiny kernel takes the launch floor, 4us.
  EXPECT_EQ(kernelTime(h100, 1e3, 1e3, "fp32"), 4e-6);
  // A type the spec has no rate for runs at fp32's.
  EXPECT_EQ(h100.peakFlops("fp64"), 67e12);
}

TEST(CostModel, FillAndDrainPipeline) {
  // Equal stages: (m + p - 1) stage times, bubble (p-1)/(m+p-1) = 3/7.
  double four[] = {1, 1, 1, 1};
  EXPECT_DOUBLE_EQ(pipelineMakespan(four, 4, 0), 7);
  EXPECT_NEAR(pipelineBubble(four, 4, 0), 3.0 / 7.0, 1e-12);
  // Stages of 1 and 2 with sends of 0.5, 3 micro-batches: stage 1 runs
  // [1.5, 3.5], [3.5, 5.5], [5.5, 7.5]; busy 9 of 2 * 7.5.
  double two[] = {1, 2};
  EXPECT_DOUBLE_EQ(pipelineMakespan(two, 3, 0.5), 7.5);
  EXPECT_NEAR(pipelineBubble(two, 3, 0.5), 0.4, 1e-12);
}

TEST(CostModel, MemoryPerRank) {
  Cluster h100 = preset("h100-sxm-8");
  MemoryEstimate m{70 * kGiB, 8 * kGiB, 4 * kGiB};
  EXPECT_DOUBLE_EQ(m.total(), 82 * kGiB);
  EXPECT_DOUBLE_EQ(memoryExcess(h100, m), 2 * kGiB);
  // H200's 141 GB holds it with 141e9 - 82 GiB to spare.
  EXPECT_DOUBLE_EQ(memoryExcess(preset("h200-8"), m), 82 * kGiB - 141e9);
}

} // namespace

TEST(CostModel, BalancedStagesAsDistPipelineCuts) {
  // Segments 4 1 1 1 1 into two stages: {4} {1 1 1 1} = 4; into three:
  // {4} {1 1} {1 1} = 4; into five: every segment alone, 4.
  std::vector<double> a = {4, 1, 1, 1, 1};
  EXPECT_DOUBLE_EQ(balancedStageCost(a, 1), 8);
  EXPECT_DOUBLE_EQ(balancedStageCost(a, 2), 4);
  EXPECT_DOUBLE_EQ(balancedStageCost(a, 5), 4);
  EXPECT_DOUBLE_EQ(balancedStageCost(a, 6), 0); // more stages than segments
  // 80 equal layers over 64 stages: some stages hold two, so the slowest
  // is 2, not 80/64 = 1.25.
  std::vector<double> layers(80, 1.0);
  EXPECT_DOUBLE_EQ(balancedStageCost(layers, 64), 2);
  EXPECT_DOUBLE_EQ(balancedStageCost(layers, 8), 10);
  EXPECT_DOUBLE_EQ(balancedStageCost(layers, 3), 27);
  // An embedding of 1, 6 layers of 10 and a head of 30: 3 stages are best
  // cut as {1 10 10 10} {10 10 10} {30}: 31; two as 41 and 50.
  std::vector<double> model = {1, 10, 10, 10, 10, 10, 10, 30};
  EXPECT_DOUBLE_EQ(balancedStageCost(model, 3), 31);
  EXPECT_DOUBLE_EQ(balancedStageCost(model, 2), 50); // {1 10 10 10 10} {10 10 30}
}

TEST(CostModel, BalancedStageStartsGiveEveryStageASegment) {
  // The groupings above, as the first segment of each stage.
  std::vector<double> model = {1, 10, 10, 10, 10, 10, 10, 30};
  EXPECT_EQ(balancedStageStarts(model, 3), (std::vector<int64_t>{0, 4, 7}));
  EXPECT_EQ(balancedStageStarts(model, 2), (std::vector<int64_t>{0, 5}));
  // Greedy up to the limit (4) would make {4} {1 1 1 1} and leave the
  // other stages empty: the last ones take one segment each instead.
  std::vector<double> a = {4, 1, 1, 1, 1};
  EXPECT_EQ(balancedStageStarts(a, 5), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(balancedStageStarts(a, 3), (std::vector<int64_t>{0, 1, 4}));
  EXPECT_TRUE(balancedStageStarts(a, 6).empty());
  std::vector<double> layers(80, 1.0);
  std::vector<int64_t> starts = balancedStageStarts(layers, 64);
  ASSERT_EQ(starts.size(), 64u);
  for (size_t i = 1; i < starts.size(); ++i) {
    EXPECT_GT(starts[i], starts[i - 1]);
    EXPECT_LE(starts[i] - starts[i - 1], 2);
  }
}
