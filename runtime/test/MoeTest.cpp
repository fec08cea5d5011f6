//===- MoeTest.cpp - the mixture-of-experts kernels against a direct loop -===//
//
// sc_moe_route / sc_moe_permute / sc_grouped_matmul / sc_moe_combine, run
// as LowerMoe.cpp chains them, against y[t] = sum_k w[t, k] * expert of
// ids[t, k] computed token by token. The routing is skewed on purpose:
// one expert gets every token, one gets none.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/KernelError.h"
#include "runtime/test/KernelTestUtil.h"
#include "shardc/cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

constexpr int32_t kF32 = 1, kI32 = 6, kI64 = 7;

using shardc::rt::test::mk;
using shardc::rt::test::randomVec;

float silu(float v) { return v / (1.0f + std::exp(-v)); }

TEST(Moe, PlaceSpreadsAnExpertsTokensOverItsCopies) {
  // 3 experts in 4 slots: expert 0 in slots 0 and 3, expert 1 in slot 1,
  // expert 2 in slot 2. Tokens t = 0..2 (K = 2): a choice of expert 0 goes
  // to copy t mod 2.
  sc_desc ids = mk(kI64, {3, 2});
  int64_t iv[6] = {0, 1, 0, 2, 0, 0};
  int64_t copies[3] = {2, 1, 1}, table[6] = {0, 3, 1, -1, 2, -1};
  int32_t slots[6];
  shardc::rt::clearKernelError();
  sc_moe_place(&ids, iv, 3, 2, copies, table, slots);
  std::string message;
  ASSERT_FALSE(shardc::rt::takeKernelError(message)) << message;
  EXPECT_EQ(std::vector<int32_t>(slots, slots + 6),
            (std::vector<int32_t>{0, 1, 3, 2, 0, 0}));
  iv[5] = 3;
  sc_moe_place(&ids, iv, 3, 2, copies, table, slots);
  ASSERT_TRUE(shardc::rt::takeKernelError(message));
  EXPECT_EQ(message, "moe_place: expert id 3 of choice 5 is out of range "
                     "[0, 3)");
}

TEST(Moe, RouteIsAStableSortByExpert) {
  // ids [3, 2]: choices j = 0..5 pick experts 2, 0, 2, 3, 0, 2.
  sc_desc ids = mk(kI32, {3, 2});
  int32_t iv[6] = {2, 0, 2, 3, 0, 2};
  int32_t offsets[5], slots[6];
  sc_moe_route(&ids, iv, 4, offsets, slots);
  EXPECT_EQ(std::vector<int32_t>(offsets, offsets + 5),
            (std::vector<int32_t>{0, 2, 2, 5, 6}));
  // Expert 0: choices 1, 4; expert 2: choices 0, 2, 5; expert 3: choice 3.
  EXPECT_EQ(std::vector<int32_t>(slots, slots + 6),
            (std::vector<int32_t>{2, 0, 3, 5, 1, 4}));
}

TEST(Moe, SkewedRoutingMatchesTokenByToken) {
  const int64_t t = 6, k = 2, e = 4, h = 5, f = 3, p = t * k;
  std::vector<float> x = randomVec(t * h, 1), w = randomVec(t * k, 2);
  std::vector<float> gu = randomVec(e * h * 2 * f, 3),
                     down = randomVec(e * f * h, 4);
  // Every token's first choice is expert 2; the second alternates 0 and
  // 3; expert 1 gets nothing.
  std::vector<int64_t> ids(p);
  for (int64_t i = 0; i < t; ++i) {
    ids[i * k] = 2;
    ids[i * k + 1] = i % 2 ? 3 : 0;
  }
  sc_desc idsD = mk(kI64, {t, k}), xD = mk(kF32, {t, h}),
          rowsD = mk(kF32, {p, h}), guD = mk(kF32, {e, h, 2 * f}),
          hD = mk(kF32, {p, 2 * f}), actD = mk(kF32, {p, f}),
          downD = mk(kF32, {e, f, h}), wD = mk(kF32, {t, k});
  std::vector<int32_t> offsets(e + 1), slots(p);
  std::vector<float> rows(p * h), hid(p * 2 * f), act(p * f), out(p * h),
      y(t * h);
  shardc::rt::clearKernelError();
  sc_moe_route(&idsD, ids.data(), e, offsets.data(), slots.data());
  EXPECT_EQ(offsets, (std::vector<int32_t>{0, 3, 3, 9, 12}));
  sc_moe_permute(&xD, x.data(), &rowsD, slots.data(), rows.data());
  sc_grouped_matmul(&rowsD, rows.data(), &guD, gu.data(), offsets.data(),
                    hid.data());
  for (int64_t r = 0; r < p; ++r)
    for (int64_t c = 0; c < f; ++c)
      act[r * f + c] = silu(hid[r * 2 * f + c]) * hid[r * 2 * f + f + c];
  sc_grouped_matmul(&actD, act.data(), &downD, down.data(), offsets.data(),
                    out.data());
  sc_moe_combine(&rowsD, out.data(), &wD, w.data(), slots.data(), y.data());
  std::string message;
  ASSERT_FALSE(shardc::rt::takeKernelError(message)) << message;

  for (int64_t i = 0; i < t; ++i) {
    std::vector<float> want(h, 0.0f);
    for (int64_t j = 0; j < k; ++j) {
      int64_t ex = ids[i * k + j];
      std::vector<float> a(f);
      for (int64_t c = 0; c < f; ++c) {
        float g = 0, u = 0;
        for (int64_t d = 0; d < h; ++d) {
          g += x[i * h + d] * gu[(ex * h + d) * 2 * f + c];
          u += x[i * h + d] * gu[(ex * h + d) * 2 * f + f + c];
        }
        a[c] = silu(g) * u;
      }
      for (int64_t d = 0; d < h; ++d) {
        float v = 0;
        for (int64_t c = 0; c < f; ++c)
          v += a[c] * down[(ex * f + c) * h + d];
        want[d] += w[i * k + j] * v;
      }
    }
    for (int64_t d = 0; d < h; ++d)
      ASSERT_NEAR(y[i * h + d], want[d], 1e-5f * (1 + std::fabs(want[d])))
          << "token " << i << ", column " << d;
  }
}

TEST(Moe, GroupedBiasAddsEachExpertsRow) {
  // 3 experts over 5 rows: expert 0 rows [0, 2), expert 1 none, expert 2
  // rows [2, 4); row 4 is past offsets[3] and stays as it is.
  sc_desc bias = mk(kF32, {3, 2}), y = mk(kF32, {5, 2});
  std::vector<float> bv = {1, 2, 10, 20, 100, 200};
  std::vector<float> yv = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4};
  int32_t offsets[4] = {0, 2, 2, 4};
  sc_grouped_bias(&bias, bv.data(), offsets, &y, yv.data());
  EXPECT_EQ(yv, (std::vector<float>{1, 2, 2, 3, 102, 202, 103, 203, 4, 4}));

  std::string message;
  shardc::rt::clearKernelError();
  int32_t bad[4] = {0, 3, 2, 4};
  sc_grouped_bias(&bias, bv.data(), bad, &y, yv.data());
  ASSERT_TRUE(shardc::rt::takeKernelError(message));
  EXPECT_EQ(message, "grouped bias: row offsets of expert 1 ([3, 2)) are not "
                     "within [0, 5) in order");
}

TEST(Moe, BadIdsAndOffsetsFailTheRun) {
  sc_desc ids = mk(kI64, {2, 2});
  int64_t iv[4] = {0, 1, 4, 1};
  int32_t offsets[5], slots[4];
  std::string message;
  shardc::rt::clearKernelError();
  sc_moe_route(&ids, iv, 4, offsets, slots);
  ASSERT_TRUE(shardc::rt::takeKernelError(message));
  EXPECT_EQ(message,
            "moe_route: expert id 4 of choice 2 is out of range [0, 4)");

  sc_desc a = mk(kF32, {4, 2}), b = mk(kF32, {2, 2, 3});
  std::vector<float> av(8, 1.0f), bv(12, 1.0f), yv(12);
  int32_t bad[3] = {0, 3, 5};
  sc_grouped_matmul(&a, av.data(), &b, bv.data(), bad, yv.data());
  ASSERT_TRUE(shardc::rt::takeKernelError(message));
  EXPECT_EQ(message, "grouped matmul: row offsets of expert 1 ([3, 5)) are "
                     "not within [0, 4) in order");
}

} // namespace
