//===- Cpus.h - the CPUs a rank may use and its default threads -*- C++ -*-===//
//
// The default thread count of the CPU code respects what the process is
// given, not what the host has: its affinity mask (taskset, a container's
// cpuset, a binding by mpirun) and its cgroup's CPU quota (cgroup v2
// cpu.max up the hierarchy, or v1 cpu.cfs_quota_us / cfs_period_us: a
// container with 2 CPUs on a 64-core host runs 2 threads, not 64). Ranks of
// one node that mpirun left unbound (each with every CPU) take disjoint
// shares of the CPUs: rank r of L pins itself to its block of the mask and
// runs that many threads, so two ranks on a 2-core node get one core each
// instead of four threads fighting over two.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_SRC_CPUS_H
#define SHARDC_RUNTIME_SRC_CPUS_H

#include <string>
#include <vector>

namespace shardc::rt {

/// The CPU quota of the cgroup named in `procSelfCgroup` (the text of
/// /proc/self/cgroup) under the cgroup file system at `root`
/// (/sys/fs/cgroup), in CPUs (quota / period, the smallest along the
/// hierarchy); 0 when there is none or it cannot be read.
double cgroupCpuQuota(const std::string &root,
                      const std::string &procSelfCgroup);

/// The CPUs of this process's affinity mask, in order.
std::vector<int> affinityCpus();

/// The share of `cpus` (an affinity mask) of local rank `rank` of `ranks`:
/// contiguous blocks, the first `cpus.size() % ranks` one CPU larger; with
/// more ranks than CPUs, CPU `rank % cpus.size()` alone.
std::vector<int> rankShare(const std::vector<int> &cpus, int rank, int ranks);

/// What the executable runs with when --threads and OMP_NUM_THREADS are not
/// given: pins an unbound rank of several on the node (Open MPI's
/// OMPI_COMM_WORLD_LOCAL_RANK / _LOCAL_SIZE) to its share of the CPUs, and
/// returns the thread count (its CPUs, at most the cgroup quota, its share
/// of it among the local ranks; at least 1). `why` says how it was chosen
/// (one line, for the benchmark report).
int placeThisRank(std::string &why);

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_SRC_CPUS_H
