// Read bandwidth of this machine as a decode step uses it: the threads
// stream one buffer larger than every cache (default 1 GiB) and sum it,
// best of 5 passes (docs/performance.md, "Decoding with a KV cache").
// The figure the decode benchmark's bytes per token are compared with.
//
//   g++ -O3 -march=native -fopenmp bench/membw.cpp -o /tmp/membw
//   OMP_NUM_THREADS=2 /tmp/membw [MiB]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  size_t n = mib * (1 << 20) / sizeof(float);
  std::vector<float> a(n);
#pragma omp parallel for
  for (size_t i = 0; i < n; ++i)
    a[i] = float(i & 7);
  double best = 0, sink = 0;
  for (int pass = 0; pass < 5; ++pass) {
    auto t0 = std::chrono::steady_clock::now();
    // Four vectors of partial sums per thread, so that the adds keep up
    // with memory.
    typedef float V __attribute__((vector_size(64)));
    float s = 0;
#pragma omp parallel reduction(+ : s)
    {
      V p[4] = {};
      const V *v = reinterpret_cast<const V *>(a.data());
      size_t blocks = n / 64;
#pragma omp for schedule(static)
      for (size_t i = 0; i < blocks; ++i)
        for (int j = 0; j < 4; ++j)
          p[j] += v[4 * i + j];
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 16; ++k)
          s += p[j][k];
    }
    double sec =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    sink += s;
    double gbs = n * sizeof(float) / sec / 1e9;
    if (gbs > best)
      best = gbs;
  }
  std::printf("read %zu MiB: best %.1f GB/s (checksum %g)\n", mib, best, sink);
  return 0;
}
