//===- ClusterTest.cpp - cluster presets and JSON specs -------------------===//

#include "shardc/Planner/Cluster.h"

#include <gtest/gtest.h>

using namespace shardc::planner;

namespace {

TEST(Cluster, Presets) {
  for (llvm::StringRef name : presetNames())
    EXPECT_TRUE(presetCluster(name).has_value()) << name.str();
  std::optional<Cluster> a100 = presetCluster("a100-80g-8x4");
  ASSERT_TRUE(a100.has_value());
  EXPECT_EQ(a100->name, "a100-80g-8x4");
  EXPECT_EQ(a100->nodes, 4);
  EXPECT_EQ(a100->devices(), 32);
  EXPECT_EQ(a100->peakFlops("bf16"), 312e12);
  EXPECT_FALSE(presetCluster("a100-80g-8x0").has_value());
  EXPECT_FALSE(presetCluster("tpu-v5").has_value());
  EXPECT_FALSE(presetCluster("cpux").has_value());
}

TEST(Cluster, JsonRoundTrip) {
  Cluster h200 = *presetCluster("h200-8x2");
  llvm::Expected<Cluster> back = parseCluster(toJson(h200));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->name, "h200-8x2");
  EXPECT_EQ(back->devicesPerNode, 8);
  EXPECT_EQ(back->nodes, 2);
  EXPECT_EQ(back->flops, h200.flops);
  EXPECT_EQ(back->memoryBytes, 141e9);
  EXPECT_EQ(back->memoryBandwidth, 4.8e12);
  EXPECT_EQ(back->intraNode.bandwidth, 450e9);
  EXPECT_EQ(back->interNode.latency, 6e-6);
  EXPECT_EQ(back->launchFloor, 4e-6);
  // The calibrated runtime of one rank (no MPI) travels too.
  Cluster cpu = *presetCluster("cpu");
  cpu.runtimeBytesOneRank = 15e6;
  llvm::Expected<Cluster> cpuBack = parseCluster(toJson(cpu));
  ASSERT_TRUE(static_cast<bool>(cpuBack));
  EXPECT_EQ(cpuBack->runtimeBytesOneRank, 15e6);
  EXPECT_EQ(cpuBack->runtimeBytes, cpu.runtimeBytes);
}

TEST(Cluster, JsonErrorsNameTheField) {
  auto error = [](const char *json) {
    llvm::Expected<Cluster> c = parseCluster(json);
    EXPECT_FALSE(static_cast<bool>(c));
    return c ? std::string() : llvm::toString(c.takeError());
  };
  EXPECT_EQ(error("[1]"), "cluster spec: expected a JSON object");
  EXPECT_EQ(error(R"({"devices_per_node": 8})"),
            "cluster spec: 'nodes' must be a positive integer");
  EXPECT_EQ(error(R"({"devices_per_node": 2.5, "nodes": 1})"),
            "cluster spec: 'devices_per_node' must be a positive integer");
  EXPECT_EQ(error(R"({"devices_per_node": 2, "nodes": 1, "memory_bytes": 1e9,
                      "memory_bandwidth": 1e10, "flops": {"fp16": 1e12}})"),
            "cluster spec: 'flops' must give at least \"fp32\" (FLOP/s)");
  EXPECT_EQ(error(R"({"devices_per_node": 2, "nodes": 1, "memory_bytes": 1e9,
                      "memory_bandwidth": 1e10, "flops": {"fp32": 1e12},
                      "intra_node": {"bandwidth": 1e9, "latency": 1e-6}})"),
            "cluster spec: 'inter_node' must give a positive \"bandwidth\" "
            "(bytes/s) and a \"latency\" (s)");
  llvm::Expected<Cluster> missing = loadCluster("/nonexistent/spec.json");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "--cluster=/nonexistent/spec.json: neither a preset (cpu, "
            "a100-80g-8, h100-sxm-8, h200-8, or <preset>x<nodes>) nor a "
            "readable JSON file");
}

} // namespace
