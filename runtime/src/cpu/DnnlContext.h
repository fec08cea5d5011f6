//===- DnnlContext.h - the runtime's oneDNN engine and streams --*- C++ -*-===//
//
// Private to runtime/src/cpu: the one CPU engine every oneDNN primitive of
// the runtime is created on, a stream per thread to execute them on
// (models may run on several threads at once), both defined in Dnnl.cpp,
// and the OpenMP thread limit a primitive is planned and run under.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CPU_DNNLCONTEXT_H
#define SHARDC_RUNTIME_CPU_DNNLCONTEXT_H

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

namespace shardc::rt::cpu {

dnnl::engine &cpuEngine();
dnnl::stream &cpuStream();

/// One OpenMP thread while it lives, when `serial` (oneDNN's JIT kernels
/// plan for the thread count they see at creation).
struct ThreadLimit {
  int saved = 0;
  explicit ThreadLimit(bool serial) {
    if (serial && omp_get_max_threads() > 1) {
      saved = omp_get_max_threads();
      omp_set_num_threads(1);
    }
  }
  ~ThreadLimit() {
    if (saved)
      omp_set_num_threads(saved);
  }
  ThreadLimit(const ThreadLimit &) = delete;
  ThreadLimit &operator=(const ThreadLimit &) = delete;
};

} // namespace shardc::rt::cpu

#endif // SHARDC_RUNTIME_CPU_DNNLCONTEXT_H
