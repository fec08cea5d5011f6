//===- SymExpr.h - symbolic sizes of bounded dynamic dims -------*- C++ -*-===//
//
// A size that depends on dims the model leaves dynamic ("batch", "seq") is a
// polynomial over symbols s0..sN with int64 coefficients: the element count of
// a [batch, seq, 768] tensor is s0*s1*768, a flattened row count s0*s1. The
// form is canonical (terms sorted, zero terms dropped), so two sizes are equal
// exactly when their expressions are, whatever order the shape arithmetic
// multiplied them in. Division is exact only: a reshape of [s0*s1*768] to
// [s0, -1] gives s1*768, one of [s0+1] to [2, -1] is refused.
//
// Every symbol takes values in [1, max], or [0, max] for one that may be
// empty (a KV cache's past length, whose first step has none). A size is
// monotone when no coefficient of a non-constant term is negative: its
// largest value is then its value at the bounds (what memory is planned for)
// and its smallest the value at the symbols' least values. No MLIR here: the
// graph dialect stores an Expr as an AffineExpr
// (dialects/Graph/IR/SymbolicShapes.h), the runtime never sees one.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SUPPORT_SYMEXPR_H
#define SHARDC_SUPPORT_SYMEXPR_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardc::sym {

class Expr {
public:
  /// A product of symbols, as their sorted indices with repetition
  /// ({0, 0, 1} is s0*s0*s1); the empty monomial is the constant term.
  using Monomial = std::vector<unsigned>;
  /// Monomials by degree, then lexicographically.
  struct MonomialLess {
    bool operator()(const Monomial &a, const Monomial &b) const {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    }
  };
  using Terms = std::map<Monomial, int64_t, MonomialLess>;

  Expr() = default;
  Expr(int64_t constant);
  static Expr symbol(unsigned index);

  const Terms &terms() const { return terms_; }
  bool isConstant() const;
  /// The value when the expression is a constant.
  std::optional<int64_t> getConstant() const;
  /// The index of the symbol when the expression is one symbol alone.
  std::optional<unsigned> asSymbol() const;
  /// 1 + the largest symbol index used (0 for a constant).
  unsigned numSymbols() const;

  /// Exact arithmetic. Coefficients that overflow int64 make the result
  /// invalid (see valid()); sizes of real models are far from it.
  Expr operator+(const Expr &other) const;
  Expr operator-(const Expr &other) const;
  Expr operator*(const Expr &other) const;
  Expr operator-() const;
  /// this / divisor when it is exact for every value of the symbols: the
  /// divisor is one term c*m, and every term of this is a multiple of it.
  std::optional<Expr> divExact(const Expr &divisor) const;

  bool operator==(const Expr &other) const {
    return valid_ == other.valid_ && terms_ == other.terms_;
  }
  bool operator!=(const Expr &other) const { return !(*this == other); }

  /// False after an arithmetic overflow.
  bool valid() const { return valid_; }
  /// No negative coefficient on a non-constant term, and at least 1 when
  /// every symbol is at its least value (`mins`, 1 where absent): a size
  /// that grows with every symbol. A size that uses a symbol whose least
  /// value is 0 may be 0 there.
  bool isMonotoneSize(llvm::ArrayRef<int64_t> mins = {}) const;
  /// The value at `values` (values[i] for s_i); none when a symbol has no
  /// value or the arithmetic overflows.
  std::optional<int64_t> eval(llvm::ArrayRef<int64_t> values) const;

  /// C source for the value, over int64_t variables named by `names` (s0,
  /// s1, .. when empty): "s0*s1*768 + 64". Also the form messages print.
  std::string str(llvm::ArrayRef<std::string> names = {}) const;

private:
  void add(const Monomial &m, int64_t c);
  Terms terms_;
  bool valid_ = true;
};

/// Each dim's value at `values` (see Expr::eval).
std::optional<std::vector<int64_t>> evalShape(llvm::ArrayRef<Expr> shape,
                                              llvm::ArrayRef<int64_t> values);
/// "[s0, s1, 768]".
std::string shapeStr(llvm::ArrayRef<Expr> shape,
                     llvm::ArrayRef<std::string> names = {});
/// The product of the dims.
Expr product(llvm::ArrayRef<Expr> dims);

} // namespace shardc::sym

#endif // SHARDC_SUPPORT_SYMEXPR_H
