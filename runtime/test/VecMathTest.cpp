//===- VecMathTest.cpp - the fp32 row kernels of attention and softmax ----===//
//
// rowMaxF32 and expSumF32 (runtime/src/cpu/VecMath.h) against scalar
// references at every length around the vector width, with NaN and
// infinities where they matter: NaN is ignored by the maximum (-inf when
// there is nothing else), e^(x - m) keeps NaN and the sum counts it.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/cpu/VecMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using shardc::rt::cpu::expSumF32;
using shardc::rt::cpu::rowMaxF32;

constexpr float kInf = std::numeric_limits<float>::infinity();

float referenceMax(const std::vector<float> &v) {
  float m = -kInf;
  for (float x : v)
    if (x > m)
      m = x;
  return m;
}

TEST(VecMath, RowMaxAtEveryLength) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-50.0f, 50.0f);
  for (int n = 0; n <= 41; ++n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = dist(gen);
    EXPECT_EQ(rowMaxF32(v.data(), n), referenceMax(v)) << "n = " << n;
    // The maximum in each position in turn, including the tail.
    for (int at = 0; at < n; ++at) {
      std::vector<float> w = v;
      w[at] = 1000.0f;
      EXPECT_EQ(rowMaxF32(w.data(), n), 1000.0f) << n << " " << at;
    }
  }
}

TEST(VecMath, RowMaxIgnoresNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int n : {1, 7, 8, 9, 16, 23}) {
    std::vector<float> v(n, nan);
    EXPECT_EQ(rowMaxF32(v.data(), n), -kInf) << "all NaN, n = " << n;
    v[n / 2] = -3.0f;
    EXPECT_EQ(rowMaxF32(v.data(), n), -3.0f) << "one number, n = " << n;
    v[n - 1] = kInf;
    EXPECT_EQ(rowMaxF32(v.data(), n), kInf) << "an infinity, n = " << n;
  }
  std::vector<float> none;
  EXPECT_EQ(rowMaxF32(none.data(), 0), -kInf);
}

TEST(VecMath, ExpSumAgainstLibm) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> dist(-30.0f, 0.0f);
  for (int n : {1, 5, 8, 13, 64, 130}) {
    std::vector<float> v(n), e(n);
    for (float &x : v)
      x = dist(gen);
    float m = rowMaxF32(v.data(), n);
    double sum = 0;
    for (int j = 0; j < n; ++j)
      sum += std::exp(double(v[j]) - m);
    e = v;
    float got = expSumF32(e.data(), n, m);
    EXPECT_NEAR(got, sum, 1e-6 * sum) << "n = " << n;
    for (int j = 0; j < n; ++j)
      EXPECT_NEAR(e[j], std::exp(double(v[j]) - m),
                  2e-7 * std::exp(double(v[j]) - m) + 1e-38);
  }
}

} // namespace
