//===- Cpus.cpp - the CPUs a rank may use and its default threads ---------===//

#include "runtime/src/Cpus.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sched.h>
#include <unistd.h>

using namespace shardc::rt;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return "";
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// "quota period" (v2 cpu.max; "max" is no quota) in CPUs, or 0.
double parseCpuMax(const std::string &text) {
  std::istringstream in(text);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0)
    return 0;
  char *end = nullptr;
  double q = std::strtod(quota.c_str(), &end);
  if (end == quota.c_str() || q <= 0)
    return 0;
  return q / period;
}

/// The smaller positive of a and b (0: none).
double tighter(double a, double b) {
  if (a <= 0)
    return b;
  if (b <= 0)
    return a;
  return std::min(a, b);
}

int envInt(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return -1;
  char *end = nullptr;
  long n = std::strtol(v, &end, 10);
  return *end || n < 0 || n > 1 << 20 ? -1 : static_cast<int>(n);
}

} // namespace

double shardc::rt::cgroupCpuQuota(const std::string &root,
                                  const std::string &procSelfCgroup) {
  double cpus = 0;
  std::istringstream lines(procSelfCgroup);
  std::string line;
  while (std::getline(lines, line)) {
    // hierarchy-id:controllers:path
    size_t a = line.find(':'), b = a == std::string::npos
                                       ? std::string::npos
                                       : line.find(':', a + 1);
    if (b == std::string::npos)
      continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    if (path.empty() || path[0] != '/')
      continue;
    if (line.compare(0, a, "0") == 0 && controllers.empty()) {
      // cgroup v2: cpu.max of the group and of each ancestor.
      for (std::string p = path;;) {
        std::string dir = root + (p == "/" ? "" : p);
        cpus = tighter(cpus, parseCpuMax(readFile(dir + "/cpu.max")));
        if (p == "/" || p.empty())
          break;
        size_t slash = p.rfind('/');
        p = slash == 0 ? "/" : p.substr(0, slash);
      }
    } else if (("," + controllers + ",").find(",cpu,") != std::string::npos) {
      // cgroup v1: the cpu controller's CFS quota.
      for (const std::string &mount : {root + "/cpu,cpuacct", root + "/cpu"}) {
        std::string dir = mount + (path == "/" ? "" : path);
        std::string q = readFile(dir + "/cpu.cfs_quota_us");
        std::string per = readFile(dir + "/cpu.cfs_period_us");
        if (q.empty() || per.empty())
          continue;
        double quota = std::strtod(q.c_str(), nullptr);
        double period = std::strtod(per.c_str(), nullptr);
        if (quota > 0 && period > 0)
          cpus = tighter(cpus, quota / period);
        break;
      }
    }
  }
  return cpus;
}

std::vector<int> shardc::rt::affinityCpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set))
      out.push_back(c);
  return out;
}

std::vector<int> shardc::rt::rankShare(const std::vector<int> &cpus, int rank,
                                       int ranks) {
  int n = static_cast<int>(cpus.size());
  if (n == 0 || ranks < 1 || rank < 0)
    return cpus;
  if (ranks > n)
    return {cpus[rank % n]};
  int base = n / ranks, extra = n % ranks;
  int begin = rank * base + std::min(rank, extra);
  int size = base + (rank < extra ? 1 : 0);
  return std::vector<int>(cpus.begin() + begin, cpus.begin() + begin + size);
}

int shardc::rt::placeThisRank(std::string &why) {
  std::vector<int> cpus = affinityCpus();
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  double quota = cgroupCpuQuota("/sys/fs/cgroup", readFile("/proc/self/cgroup"));
  int ranks = envInt("OMPI_COMM_WORLD_LOCAL_SIZE");
  int rank = envInt("OMPI_COMM_WORLD_LOCAL_RANK");
  int threads = cpus.empty() ? 1 : static_cast<int>(cpus.size());
  why = std::to_string(threads) + " CPUs in the affinity mask";
  // Ranks of this node that mpirun did not bind (each sees every CPU) take
  // disjoint shares; a rank already bound keeps its binding.
  bool unbound = !cpus.empty() && online > 0 &&
                 static_cast<long>(cpus.size()) >= online;
  if (ranks > 1 && rank >= 0 && rank < ranks && unbound) {
    std::vector<int> mine = rankShare(cpus, rank, ranks);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : mine)
      CPU_SET(c, &set);
    if (sched_setaffinity(0, sizeof(set), &set) == 0) {
      threads = static_cast<int>(mine.size());
      why = "local rank " + std::to_string(rank) + " of " +
            std::to_string(ranks) + " pinned to " +
            std::to_string(mine.size()) + " of " + std::to_string(cpus.size()) +
            " CPUs";
    }
  }
  if (quota > 0) {
    // The quota is shared by the node's ranks in the same cgroup.
    double share = ranks > 1 ? quota / ranks : quota;
    int cap = std::max(1, static_cast<int>(std::ceil(share - 1e-9)));
    if (cap < threads) {
      threads = cap;
      char q[32];
      std::snprintf(q, sizeof(q), "%.3g", quota);
      why += std::string(", capped by the cgroup CPU quota (") + q + " CPUs)";
    }
  }
  return std::max(1, threads);
}
