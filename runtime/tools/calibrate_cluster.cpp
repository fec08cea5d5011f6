//===- calibrate_cluster.cpp - measure this machine into a cluster spec ---===//
//
//   mpirun -np N shardc-calibrate-cluster FILE   (what shardc
//                                                 --calibrate-cluster runs,
//                                                 N = --devices, default 2)
//
// Writes a `cpu` cluster spec (lib/Planner's JSON, shardc/Planner/Cluster.h)
// for the planner from measurements on this machine, a device being one of
// the N ranks the plans will run (one thread each):
//   - fp32 GEMM rate: oneDNN's sgemm, 1024 x 1024 x 1024, one thread, the
//     best of several runs (what the CPU code's matmuls call), every rank
//     at once: the slowest rank's rate, so that N ranks on fewer cores
//     measure the share each gets;
//   - memory bandwidth: a triad a = b + s * c over 3 x 64 MiB, one
//     thread, bytes read and written per second, best run, every rank at
//     once (the slowest);
//   - the intra-node link: MPI ping-pong between ranks 0 and 1 (8 B for
//     the latency, 16 MiB for the bandwidth, half the round trip);
//   - devices per node: N; memory per device: the physical memory over N;
//   - runtime bytes: the largest resident set of a rank once MPI and
//     oneDNN are loaded and the buffers freed (what every rank of an
//     executable holds besides its weights and arena);
//   - runtime bytes of one rank: the runtime bytes less what MPI_Init
//     added to the resident set (a one-rank executable does not start MPI;
//     the MPI library's pages the loader touched stay counted).
// The inter-node link cannot be measured on one host; it keeps the `cpu`
// preset's figures and the spec says which fields were measured.
//
//===----------------------------------------------------------------------===//

#include <mpi.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <unistd.h>

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double gemmRate() {
  const int n = 1024;
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.0f);
  double best = 1e30;
  for (int i = 0; i < 6; ++i) {
    double t = now();
    if (dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                   c.data(), n) != dnnl_success)
      return 0;
    best = std::min(best, now() - t);
  }
  if (c[0] != 0.125f * n) // 0.5 * 0.25 summed n times, exact in fp32
    return 0;
  return 2.0 * n * n * n / best;
}

double memoryBandwidth() {
  const size_t n = (64u << 20) / sizeof(double);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    double t = now();
    double *pa = a.data();
    const double *pb = b.data(), *pc = c.data();
    for (size_t j = 0; j < n; ++j)
      pa[j] = pb[j] + 3.0 * pc[j];
    best = std::min(best, now() - t);
  }
  if (a[n / 2] != 7.0)
    return 0;
  return 3.0 * n * sizeof(double) / best;
}

/// This process's resident set (VmRSS of /proc/self/status), bytes.
double residentBytes() {
  std::FILE *f = std::fopen("/proc/self/status", "r");
  if (!f)
    return 0;
  char line[256];
  double kib = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmRSS: %lf kB", &kib) == 1)
      break;
  std::fclose(f);
  return kib * 1024;
}

/// Half the best round trip of `bytes` between ranks 0 and 1.
double pingPong(int rank, size_t bytes, int rounds) {
  std::vector<char> buf(bytes ? bytes : 1);
  double best = 1e30;
  for (int i = 0; i < rounds; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf.data(), (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf.data(), (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    best = std::min(best, (MPI_Wtime() - t) / 2);
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  double beforeMpi = residentBytes();
  MPI_Init(&argc, &argv);
  double mpiBytes = std::max(0.0, residentBytes() - beforeMpi);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 2) {
    if (rank == 0)
      std::fprintf(stderr, "usage: mpirun -np N %s FILE\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  if (size < 2) {
    if (rank == 0)
      std::fprintf(stderr,
                   "shardc-calibrate-cluster: the link between ranks needs "
                   "two of them (run it as mpirun -np 2 %s FILE)\n",
                   argv[0]);
    MPI_Finalize();
    return 2;
  }
  // Compute and memory on every rank at once, one thread each (as the
  // plan's ranks run); the slowest rank's rates. Then the link.
  omp_set_num_threads(1);
  MPI_Barrier(MPI_COMM_WORLD);
  double mine[2] = {gemmRate(), 0};
  MPI_Barrier(MPI_COMM_WORLD);
  mine[1] = memoryBandwidth();
  double slowest[2];
  MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  double flops = slowest[0], bandwidth = slowest[1];
  double rss = residentBytes(), runtimeBytes = 0;
  MPI_Reduce(&rss, &runtimeBytes, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double leastMpi = 0;
  MPI_Reduce(&mpiBytes, &leastMpi, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  double oneRankBytes = runtimeBytes - leastMpi;
  MPI_Barrier(MPI_COMM_WORLD);
  double latency = pingPong(rank, 8, 200);
  double big = pingPong(rank, 16u << 20, 8);
  int status = 0;
  if (rank == 0) {
    long ranks = size;
    double memory = (double)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    double link = (16u << 20) / std::max(big - latency, 1e-9);
    if (flops <= 0 || bandwidth <= 0 || ranks < 1) {
      std::fprintf(stderr, "shardc-calibrate-cluster: a measurement failed "
                           "(GEMM %g FLOP/s, memory %g B/s)\n",
                   flops, bandwidth);
      status = 1;
    } else if (std::FILE *f = std::fopen(argv[1], "w")) {
      std::fprintf(
          f,
          "{\n"
          "  \"name\": \"cpu\",\n"
          "  \"devices_per_node\": %ld,\n"
          "  \"nodes\": 1,\n"
          "  \"flops\": {\"fp32\": %.6g},\n"
          "  \"memory_bytes\": %.6g,\n"
          "  \"memory_bandwidth\": %.6g,\n"
          "  \"intra_node\": {\"bandwidth\": %.6g, \"latency\": %.6g},\n"
          "  \"inter_node\": {\"bandwidth\": 1.25e9, \"latency\": 3e-05},\n"
          "  \"launch_floor\": 1e-06,\n"
          "  \"runtime_bytes\": %.6g,\n"
          "  \"runtime_bytes_one_rank\": %.6g,\n"
          "  \"measured\": [\"flops.fp32\", \"memory_bandwidth\", "
          "\"intra_node\", \"memory_bytes\", \"runtime_bytes\", "
          "\"runtime_bytes_one_rank\"]\n"
          "}\n",
          ranks, flops, memory / (double)ranks, bandwidth, link, latency,
          runtimeBytes, std::min(oneRankBytes, runtimeBytes));
      if (std::fclose(f) != 0)
        status = 1;
      std::printf("per rank of %ld: fp32 GEMM %.1f GFLOP/s, memory %.1f "
                  "GB/s, runtime %.1f MiB; MPI %.2f GB/s and %.2f us between "
                  "ranks -> %s\n",
                  ranks, flops / 1e9, bandwidth / 1e9,
                  runtimeBytes / (1 << 20), link / 1e9, latency * 1e6,
                  argv[1]);
    } else {
      std::fprintf(stderr, "shardc-calibrate-cluster: cannot write '%s'\n",
                   argv[1]);
      status = 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
