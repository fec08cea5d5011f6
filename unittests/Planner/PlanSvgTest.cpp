//===- PlanSvgTest.cpp - the planner's pictures, positions worked by hand -===//

#include "shardc/Planner/PlanSvg.h"

#include <gtest/gtest.h>

using namespace shardc::planner;

namespace {

bool has(const std::string &svg, const std::string &part) {
  return svg.find(part) != std::string::npos;
}

/// Two stages of 3 ms of kernels and 1 ms of collectives per micro-batch,
/// 2 micro-batches, sends of 0.5 ms: stage 0 starts them at 0 and 4 ms,
/// stage 1 at 4.5 and 8.5 ms; the run ends at 12.5 ms.
Candidate pipeline() {
  Candidate c;
  c.pp = 2;
  c.tp = 2;
  c.microbatches = 2;
  c.stageCompute = 3e-3;
  c.stageComm = 1e-3;
  c.sendTime = 0.5e-3;
  c.latency = 12.5e-3;
  return c;
}

TEST(PlanSvg, TimelinePositionsWorkedByHand) {
  Cluster cpu = *presetCluster("cpu");
  Candidate c = pipeline();
  std::string svg = timelineSvg(cpu, {&c});
  ASSERT_TRUE(has(svg, "<svg ")) << svg;
  ASSERT_TRUE(has(svg, "</svg>"));
  // The plot is 720 px wide from x = 200: 57600 px/s for 12.5 ms.
  // Stage 1's second micro-batch starts at 8.5 ms: x = 200 + 489.6.
  EXPECT_TRUE(has(svg, "<rect x=\"689.6\" y=\"98.0\" width=\"172.8\" "
                       "height=\"18.0\" fill=\"#76a1cf\"><title>stage 1, "
                       "micro-batch 1: kernels 3.000 ms</title>"))
      << svg;
  // Its collectives follow the kernels: 3 ms later, 57.6 px wide.
  EXPECT_TRUE(has(svg, "<rect x=\"862.4\" y=\"98.0\" width=\"57.6\""));
  // Stage 0 sends micro-batch 0 at 4 ms (x = 430.4) for 0.5 ms (28.8 px).
  EXPECT_TRUE(has(svg, "<rect x=\"430.4\" y=\"83.0\" width=\"28.8\" "
                       "height=\"4.0\" fill=\"#9c9c9c\"><title>send of "
                       "micro-batch 0 to stage 1: 500.0 us</title>"));
  EXPECT_TRUE(has(svg, ">chosen dp1 pp2 ep1 tp2 mb2: 12.500 ms<"));
  EXPECT_TRUE(has(timelineSvg(cpu, {&c}, "plan"),
                  ">plan dp1 pp2 ep1 tp2 mb2: 12.500 ms<"));
  EXPECT_TRUE(has(svg, "stage 1 (2 ranks)"));
}

TEST(PlanSvg, TimelineComparesRunnersUpOnOneAxis) {
  Cluster cpu = *presetCluster("cpu");
  Candidate a = pipeline(), b;
  b.dp = 4;
  b.stageCompute = 20e-3;
  b.gatherTime = 5e-3;
  b.latency = 25e-3;
  std::string svg = timelineSvg(cpu, {&a, &b});
  EXPECT_TRUE(has(svg, "dp4 pp1 ep1 tp1 mb1: 25.000 ms (+100.0%)")) << svg;
  // 25 ms is the widest run: 28800 px/s; the gather runs 20 to 25 ms.
  EXPECT_TRUE(has(svg, "x=\"776.0\" y=\"156.0\" width=\"144.0\" "
                       "height=\"18.0\" fill=\"#b07aa1\""));
}

TEST(PlanSvg, MemoryAgainstTheDevice) {
  Cluster h100 = *presetCluster("h100-sxm-8");
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  Candidate fits;
  fits.tp = 8;
  fits.memory.weights = 40 * kGiB;
  fits.memory.activations = 2 * kGiB;
  Candidate over;
  over.tp = 4;
  over.memory.weights = 2 * h100.memoryBytes;
  over.rejected = "does not fit: needs ...";
  Candidate heads;
  heads.tp = 3;
  heads.rejected = "8 heads do not divide by tp=3";
  std::string svg = memorySvg(h100, {&fits}, {over, heads});
  // The widest bar is 2 x the device memory, scaled to 2.1 x: the device
  // line stands at 200 + 720 / 2.1.
  EXPECT_TRUE(has(svg, "<line x1=\"542.9\"")) << svg;
  EXPECT_TRUE(has(svg, "dp1 pp1 ep1 tp4 mb1 (does not fit)"));
  EXPECT_FALSE(has(svg, "tp3"));
  EXPECT_TRUE(has(svg, "<title>weights: 40.00 GiB</title>"));
  EXPECT_TRUE(has(svg, "42.00 GiB"));
}

TEST(PlanSvg, FamilyBestsKeepsTheBestVariant) {
  SearchResult r;
  Candidate a, b, c;
  a.pp = 2;
  a.microbatches = 4;
  b.pp = 2;
  b.microbatches = 2;
  c.dp = 2;
  r.ranked = {a, c, b};
  std::vector<const Candidate *> bests = familyBests(r);
  ASSERT_EQ(bests.size(), 2u);
  EXPECT_EQ(bests[0]->microbatches, 4);
  EXPECT_EQ(bests[1]->dp, 2);
}

} // namespace
