//===- PlanFileTest.cpp - plans written and read back ---------------------===//

#include "shardc/Planner/PlanFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace shardc::planner;

namespace {

std::string writeTemp(llvm::StringRef text) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("plan", "json", path));
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  os << text;
  return path.str().str();
}

TEST(PlanFile, WrittenChoiceReadsBack) {
  ModelSummary m;
  m.batch = 8;
  m.tokens = 1024;
  m.hidden = 256;
  m.layers = 4;
  m.heads = 8;
  m.denseFlops = 4e10;
  m.denseWeights = 4e8;
  m.outputBytes = 1e6;
  m.peakActivation = 1e6;
  Cluster cl = *presetCluster("h100-sxm-8");
  SearchResult r = searchPlans(m, cl, 8, Objective::Throughput);
  ASSERT_FALSE(r.ranked.empty());
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanFile(os, m, cl, 8, Objective::Throughput, r);
  std::string path = writeTemp(text);
  llvm::Expected<PlanChoice> back = readPlanFile(path);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->plan.name(), r.ranked.front().name());
  EXPECT_EQ(back->cluster, "h100-sxm-8");
  // The candidates' estimates are there too, one per ranked plan.
  EXPECT_NE(text.find("\"latency_s\""), std::string::npos);
  llvm::sys::fs::remove(path);
}

TEST(PlanFile, MissingFieldsDefaultToOne) {
  std::string path = writeTemp(R"({"plan": {"tp": 4, "sp": true}})");
  llvm::Expected<PlanChoice> p = readPlanFile(path);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  EXPECT_EQ(p->plan.name(), "dp1 pp1 ep1 tp4 sp mb1");
  llvm::sys::fs::remove(path);
}

TEST(PlanFile, PerLayerStrategiesReadBack) {
  std::string path = writeTemp(
      R"({"plan": {"tp": 2, "embedding": "whole", "head": "column",
                   "replicated_layers": [3, 1]}})");
  llvm::Expected<PlanChoice> p = readPlanFile(path);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  EXPECT_TRUE(p->plan.embeddingWhole);
  EXPECT_FALSE(p->plan.headWhole);
  EXPECT_EQ(p->plan.replicatedLayers, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(p->plan.name(),
            "dp1 pp1 ep1 tp2 mb1 embedding-whole replicated-layers2");
  llvm::sys::fs::remove(path);
}

TEST(PlanFile, RefusesWhatTheDriverCannotCompile) {
  for (const char *bad :
       {R"({"plan": {"tp": 1, "sp": true}})", R"({"plan": {"dp": 2.5}})",
        R"({"plan": {"dp": 65536, "tp": 4096}})", R"({"plan": []})",
        R"({"plan": {"pp": 2}, "cluster": 3})",
        R"({"plan": {"tp": 2, "embedding": "rows"}})",
        R"({"plan": {"tp": 2, "head": true}})",
        R"({"plan": {"tp": 2, "replicated_layers": [1, 1]}})",
        R"({"plan": {"tp": 2, "replicated_layers": [-1]}})",
        R"({"plan": {"tp": 2, "replicated_layers": 1}})",
        R"({"plan": {"tp": 1, "head": "whole"}})"}) {
    std::string path = writeTemp(bad);
    llvm::Expected<PlanChoice> p = readPlanFile(path);
    EXPECT_FALSE(static_cast<bool>(p)) << bad;
    if (!p)
      EXPECT_NE(llvm::toString(p.takeError()).find(path), std::string::npos);
    llvm::sys::fs::remove(path);
  }
}

} // namespace
