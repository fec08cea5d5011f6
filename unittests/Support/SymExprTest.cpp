//===- SymExprTest.cpp - symbolic sizes -----------------------------------===//

#include "shardc/Support/SymExpr.h"

#include <gtest/gtest.h>

using shardc::sym::Expr;

namespace {

const Expr s0 = Expr::symbol(0), s1 = Expr::symbol(1), s2 = Expr::symbol(2);

TEST(SymExpr, CanonicalProducts) {
  EXPECT_EQ(s0 * s1, s1 * s0);
  EXPECT_EQ((s0 * 768) * s1, s1 * (s0 * Expr(768)));
  EXPECT_EQ(s0 + s1 + 1, Expr(1) + s1 + s0);
  EXPECT_NE(s0 * s1, s0 * s2);
  EXPECT_NE(s0, s1);
  // Terms that cancel vanish: the result is the constant it is.
  EXPECT_EQ(s0 * s1 - s1 * s0 + 5, Expr(5));
  EXPECT_EQ((s0 + 1) * (s0 - 1), s0 * s0 - 1);
  EXPECT_EQ(*(s0 - s0).getConstant(), 0);
  EXPECT_TRUE(Expr(7).isConstant());
  EXPECT_FALSE((s0 * 0 + s1).isConstant());
  EXPECT_EQ((s2 * s0).numSymbols(), 3u);
  EXPECT_EQ(Expr(4).numSymbols(), 0u);
}

TEST(SymExpr, ExactDivision) {
  // A reshape of [s0*s1*768] to [s0*768, -1].
  std::optional<Expr> q = (s0 * s1 * 768).divExact(s0 * 768);
  ASSERT_TRUE(q);
  EXPECT_EQ(*q, s1);
  // Heads: [s0, s1, 768] -> [s0, s1, 12, -1].
  q = (s0 * s1 * 768).divExact(s0 * s1 * 12);
  ASSERT_TRUE(q);
  EXPECT_EQ(*q, Expr(64));
  q = (s0 * s1 * 6 + s0 * 4).divExact(s0 * 2);
  ASSERT_TRUE(q);
  EXPECT_EQ(*q, s1 * 3 + 2);
  // Not exact for every value of the symbols: refused.
  EXPECT_FALSE((s0 + 1).divExact(Expr(2)));
  EXPECT_FALSE((s0 * 768).divExact(s1));
  EXPECT_FALSE((s0 * 768).divExact(Expr(7)));
  EXPECT_FALSE((s0 * s1).divExact(s0 + 1)); // divisor of two terms
  EXPECT_FALSE(Expr(6).divExact(Expr(0)));
}

TEST(SymExpr, Monotone) {
  EXPECT_TRUE((s0 * s1 * 768).isMonotoneSize());
  EXPECT_TRUE((s0 + 3).isMonotoneSize());
  EXPECT_TRUE((s0 - 0 + s1 * 2 - 2).isMonotoneSize()); // 1 at s0 = s1 = 1
  EXPECT_FALSE((s0 - s1).isMonotoneSize());
  EXPECT_FALSE((s0 - 1).isMonotoneSize()); // 0 at s0 = 1
  EXPECT_FALSE(Expr(0).isMonotoneSize());
  EXPECT_TRUE(Expr(1).isMonotoneSize());
}

TEST(SymExpr, Eval) {
  Expr e = s0 * s1 * 768 + s1 * 2 - 3;
  EXPECT_EQ(*e.eval({8, 2048}), 8 * 2048 * 768 + 2 * 2048 - 3);
  EXPECT_EQ(*e.eval({1, 1}), 768 + 2 - 3);
  EXPECT_FALSE(e.eval({8})); // s1 has no value
  EXPECT_FALSE((s0 * s0 * s0).eval({int64_t(1) << 30}));
  EXPECT_EQ(*Expr(5).eval({}), 5);
  std::optional<std::vector<int64_t>> shape =
      shardc::sym::evalShape({s0, s1 * 12, Expr(64)}, {3, 5});
  ASSERT_TRUE(shape);
  EXPECT_EQ(*shape, (std::vector<int64_t>{3, 60, 64}));
}

TEST(SymExpr, Overflow) {
  Expr big = Expr(int64_t(1) << 62) * s0;
  EXPECT_TRUE(big.valid());
  Expr over = big * 4;
  EXPECT_FALSE(over.valid());
  EXPECT_FALSE(over.eval({1}));
  EXPECT_FALSE(over.isMonotoneSize());
  EXPECT_NE(over, big);
  EXPECT_FALSE((over + 1).valid());
  EXPECT_FALSE(over.divExact(Expr(2)));
}

TEST(SymExpr, Print) {
  EXPECT_EQ((s0 * s1 * 768 + 64).str(), "s0*s1*768 + 64");
  EXPECT_EQ((s1 * s0).str(), "s0*s1");
  EXPECT_EQ((s0 - s1 * 2 - 1).str(), "-s1*2 + s0 - 1");
  EXPECT_EQ((s1 - 1).str(), "s1 - 1");
  EXPECT_EQ((Expr(0) - s1).str(), "-s1");
  EXPECT_EQ(Expr(-3).str(), "-3");
  EXPECT_EQ(Expr(0).str(), "0");
  EXPECT_EQ((s0 * s1 * 2).str({"batch", "seq"}), "batch*seq*2");
  EXPECT_EQ(shardc::sym::shapeStr({s0, s1, Expr(768)}), "[s0, s1, 768]");
  EXPECT_EQ(shardc::sym::product({s0, s1, Expr(768)}), s0 * s1 * 768);
}

} // namespace
