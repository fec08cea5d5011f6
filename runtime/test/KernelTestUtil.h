//===- KernelTestUtil.h - helpers of the kernel tests ----------*- C++ -*-===//
//
// Shared by KernelsTest.cpp and MoeTest.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_TEST_KERNELTESTUTIL_H
#define SHARDC_RUNTIME_TEST_KERNELTESTUTIL_H

#include "shardc/cpu.h"

#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

namespace shardc::rt::test {

/// A descriptor of ONNX dtype `dtype` and shape `dims`.
inline sc_desc mk(int32_t dtype, std::initializer_list<int64_t> dims) {
  sc_desc d{};
  d.dtype = dtype;
  d.rank = (int32_t)dims.size();
  int i = 0;
  for (int64_t v : dims)
    d.dims[i++] = v;
  return d;
}

/// `n` values uniform in [-1, 1), the same for the same seed.
inline std::vector<float> randomVec(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

} // namespace shardc::rt::test

#endif // SHARDC_RUNTIME_TEST_KERNELTESTUTIL_H
