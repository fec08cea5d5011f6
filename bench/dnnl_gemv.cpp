// M = 1 products on oneDNN alone (docs/performance.md, "Decoding with a KV
// cache"): the matmul primitive on plain and on packed weights (shardc's
// choice for read-only weights), the inner product on plain weights
// (oneDNN's gemm:jit kernel) and dnnl_sgemm, for y[1, N] = x[1, K] W[K, N].
// The weights rotate through 256 MB of copies, so that each call streams
// them from memory as a decode step does. Prints the best of 5 batches.
//
//   g++ -O2 -std=c++17 bench/dnnl_gemv.cpp -o /tmp/dnnl_gemv -ldnnl -fopenmp
//   OMP_NUM_THREADS=2 /tmp/dnnl_gemv K N CALLS [M]
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <unordered_map>
#include <vector>

using namespace dnnl;
using dt = memory::data_type;
using tag = memory::format_tag;

namespace {

double bestOf5(const std::function<void()> &f, int calls) {
  for (int i = 0; i < 5; ++i)
    f();
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      f();
    best = std::min(best, std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - t0)
                                  .count() /
                              calls);
  }
  return best;
}

/// `prim` over `calls` calls, each on the next of the weights `ws`.
double rotating(primitive &prim, stream &s, memory &src,
                const std::vector<memory> &ws, memory &bias, memory &dst,
                size_t &at, int calls) {
  return bestOf5(
      [&] {
        prim.execute(s, {{DNNL_ARG_SRC, src},
                         {DNNL_ARG_WEIGHTS, ws[at++ % ws.size()]},
                         {DNNL_ARG_BIAS, bias},
                         {DNNL_ARG_DST, dst}});
        s.wait();
      },
      calls);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s K N CALLS [M]\n", argv[0]);
    return 2;
  }
  const int64_t K = std::atoll(argv[1]), N = std::atoll(argv[2]);
  const int calls = std::atoi(argv[3]);
  const int64_t M = argc > 4 ? std::atoll(argv[4]) : 1;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const size_t copies =
      std::max<size_t>(1, (size_t(256) << 20) / size_t(K * N * 4));
  std::vector<float> x(size_t(M * K), 0.01f), w(size_t(K * N) * copies, 0.02f),
      y(size_t(M * N)), bias(size_t(N), 0.1f);
  size_t at = 0;
  auto report = [&](const char *what, const char *impl, double ms) {
    std::printf("%-24s %-22s %8.3f ms %6.1f GB/s\n", what, impl, ms,
                double(K * N * 4) / ms / 1e6);
  };

  // The weights' copies, on the plain layout `user` or reordered into the
  // primitive's `chosen` one.
  auto weights = [&](const memory::desc &user, const memory::desc &chosen,
                     bool packed) {
    std::vector<memory> ws;
    for (size_t i = 0; i < copies; ++i) {
      memory plain(user, eng, w.data() + i * size_t(K * N));
      if (!packed) {
        ws.push_back(plain);
        continue;
      }
      memory p(chosen, eng);
      reorder(plain, p).execute(s, plain, p);
      ws.push_back(p);
    }
    return ws;
  };

  for (bool packed : {false, true}) {
    memory::desc a({M, K}, dt::f32, tag::ab), b({K, N}, dt::f32, tag::ab),
        any({K, N}, dt::f32, packed ? tag::any : tag::ab),
        c({M, N}, dt::f32, tag::ab), bd({1, N}, dt::f32, tag::ab);
    matmul::primitive_desc pd(matmul::desc(a, any, bd, c), eng);
    std::vector<memory> ws = weights(b, pd.weights_desc(), packed);
    memory am(a, eng, x.data()), cm(c, eng, y.data()), bm(bd, eng, bias.data());
    matmul prim(pd);
    double ms = rotating(prim, s, am, ws, bm, cm, at, calls);
    report(packed ? "matmul, packed" : "matmul, plain", pd.impl_info_str(), ms);
  }

  for (bool packed : {false, true}) {
    // The inner product's weights are [N, K] (out, in); row-major [K, N]
    // is its "io" layout.
    memory::desc src({M, K}, dt::f32, tag::nc), wd({N, K}, dt::f32, tag::io),
        wany({N, K}, dt::f32, packed ? tag::any : tag::io),
        dst({M, N}, dt::f32, tag::nc), bd({N}, dt::f32, tag::a);
    inner_product_forward::primitive_desc pd(
        inner_product_forward::desc(prop_kind::forward_inference, src, wany, bd,
                                    dst),
        eng);
    std::vector<memory> ws = weights(wd, pd.weights_desc(), packed);
    memory am(src, eng, x.data()), cm(dst, eng, y.data()),
        bm(bd, eng, bias.data());
    inner_product_forward prim(pd);
    double ms = rotating(prim, s, am, ws, bm, cm, at, calls);
    report(packed ? "inner product, packed" : "inner product, plain",
           pd.impl_info_str(), ms);
  }

  double ms = bestOf5(
      [&] {
        dnnl_sgemm('N', 'N', M, N, K, 1.0f, x.data(), K,
                   w.data() + (at++ % copies) * size_t(K * N), N, 0.0f,
                   y.data(), N);
      },
      calls);
  report("dnnl_sgemm", "", ms);
  return 0;
}
