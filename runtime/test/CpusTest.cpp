//===- CpusTest.cpp - the CPUs a rank may use (Cpus.h) --------------------===//
//
// The cgroup CPU quota read from a cgroup tree laid out in a temporary
// directory (v2: cpu.max up the hierarchy, the tightest wins; v1: the cpu
// controller's CFS quota), and the local ranks' shares of an affinity mask.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/Cpus.h"
#include "shardc/runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sched.h>

namespace {

namespace fs = std::filesystem;
using shardc::rt::cgroupCpuQuota;
using shardc::rt::rankShare;

class CgroupTree : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/shardc-cpus-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root = tmpl;
  }
  void TearDown() override { fs::remove_all(root); }
  void write(const std::string &path, const std::string &text) {
    fs::create_directories(fs::path(root + path).parent_path());
    std::ofstream(root + path) << text;
  }
  std::string root;
};

TEST_F(CgroupTree, V2QuotaIsTheTightestUpTheHierarchy) {
  write("/cpu.max", "max 100000\n");
  write("/kubepods/cpu.max", "400000 100000\n");
  write("/kubepods/pod1/cpu.max", "150000 100000\n");
  write("/kubepods/pod1/app/cpu.max", "max 100000\n");
  EXPECT_DOUBLE_EQ(cgroupCpuQuota(root, "0::/kubepods/pod1/app\n"), 1.5);
  EXPECT_DOUBLE_EQ(cgroupCpuQuota(root, "0::/kubepods\n"), 4.0);
  // No quota anywhere, or no files: none.
  EXPECT_DOUBLE_EQ(cgroupCpuQuota(root, "0::/\n"), 0.0);
  EXPECT_DOUBLE_EQ(cgroupCpuQuota(root, "0::/elsewhere\n"), 0.0);
  EXPECT_DOUBLE_EQ(cgroupCpuQuota(root, ""), 0.0);
}

TEST_F(CgroupTree, V1CfsQuota) {
  write("/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "200000\n");
  write("/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  write("/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  write("/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  EXPECT_DOUBLE_EQ(
      cgroupCpuQuota(root, "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n"),
      2.0);
  // -1: no quota.
  EXPECT_DOUBLE_EQ(cgroupCpuQuota(root, "4:cpu,cpuacct:/\n"), 0.0);
}

TEST(Cpus, RankSharesAreDisjointBlocks) {
  std::vector<int> cpus = {0, 1, 2, 3, 4, 5, 6};
  EXPECT_EQ(rankShare(cpus, 0, 2), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(rankShare(cpus, 1, 2), (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(rankShare(cpus, 2, 3), (std::vector<int>{5, 6}));
  // More ranks than CPUs: one CPU each, in turn.
  EXPECT_EQ(rankShare({8, 9}, 0, 4), (std::vector<int>{8}));
  EXPECT_EQ(rankShare({8, 9}, 3, 4), (std::vector<int>{9}));
  // One rank: everything.
  EXPECT_EQ(rankShare(cpus, 0, 1), cpus);
}

// The C API's default (what Python's shardc.load runs with): the process's
// affinity mask, so a process bound to one CPU runs one thread.
TEST(Cpus, DefaultThreadsFollowTheAffinityMask) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  int all = shardc_default_threads();
  EXPECT_GE(all, 1);
  EXPECT_LE(all, CPU_COUNT(&saved));
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) {
      CPU_SET(c, &one);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  EXPECT_EQ(shardc_default_threads(), 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(shardc_default_threads(), all);
}

} // namespace
