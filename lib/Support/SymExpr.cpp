//===- SymExpr.cpp - symbolic sizes of bounded dynamic dims ---------------===//

#include "shardc/Support/SymExpr.h"

#include <algorithm>

namespace shardc::sym {

Expr::Expr(int64_t constant) {
  if (constant != 0)
    terms_[{}] = constant;
}

Expr Expr::symbol(unsigned index) {
  Expr e;
  e.terms_[{index}] = 1;
  return e;
}

bool Expr::isConstant() const {
  return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty());
}

std::optional<int64_t> Expr::getConstant() const {
  if (!valid_ || !isConstant())
    return std::nullopt;
  return terms_.empty() ? 0 : terms_.begin()->second;
}

unsigned Expr::numSymbols() const {
  unsigned n = 0;
  for (const auto &[m, c] : terms_)
    for (unsigned s : m)
      n = std::max(n, s + 1);
  return n;
}

void Expr::add(const Monomial &m, int64_t c) {
  int64_t &slot = terms_[m];
  if (__builtin_add_overflow(slot, c, &slot))
    valid_ = false;
  if (slot == 0)
    terms_.erase(m);
}

Expr Expr::operator+(const Expr &other) const {
  Expr r = *this;
  r.valid_ = valid_ && other.valid_;
  for (const auto &[m, c] : other.terms_)
    r.add(m, c);
  return r;
}

Expr Expr::operator-() const {
  Expr r;
  r.valid_ = valid_;
  for (const auto &[m, c] : terms_) {
    if (c == INT64_MIN)
      r.valid_ = false;
    else
      r.terms_[m] = -c;
  }
  return r;
}

Expr Expr::operator-(const Expr &other) const { return *this + (-other); }

Expr Expr::operator*(const Expr &other) const {
  Expr r;
  r.valid_ = valid_ && other.valid_;
  for (const auto &[ma, ca] : terms_)
    for (const auto &[mb, cb] : other.terms_) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      int64_t c;
      if (__builtin_mul_overflow(ca, cb, &c))
        r.valid_ = false;
      else
        r.add(m, c);
    }
  return r;
}

std::optional<Expr> Expr::divExact(const Expr &divisor) const {
  if (!valid_ || !divisor.valid_ || divisor.terms_.size() != 1)
    return std::nullopt;
  const auto &[dm, dc] = *divisor.terms_.begin();
  Expr r;
  for (const auto &[m, c] : terms_) {
    if (c % dc != 0)
      return std::nullopt;
    // Remove dm from m (both sorted, with repetition).
    Monomial rest;
    if (!std::includes(m.begin(), m.end(), dm.begin(), dm.end()))
      return std::nullopt;
    std::set_difference(m.begin(), m.end(), dm.begin(), dm.end(),
                        std::back_inserter(rest));
    r.add(rest, c / dc);
  }
  return r;
}

std::optional<unsigned> Expr::asSymbol() const {
  if (!valid_ || terms_.size() != 1)
    return std::nullopt;
  const auto &[m, c] = *terms_.begin();
  if (m.size() != 1 || c != 1)
    return std::nullopt;
  return m[0];
}

bool Expr::isMonotoneSize(llvm::ArrayRef<int64_t> mins) const {
  if (!valid_)
    return false;
  std::vector<int64_t> least(numSymbols(), 1);
  bool mayBeEmpty = false;
  for (const auto &[m, c] : terms_) {
    if (!m.empty() && c < 0)
      return false;
    for (unsigned s : m)
      if (s < mins.size() && mins[s] == 0)
        least[s] = 0, mayBeEmpty = true;
  }
  std::optional<int64_t> value = eval(least);
  return value && *value >= (mayBeEmpty ? 0 : 1);
}

std::optional<int64_t> Expr::eval(llvm::ArrayRef<int64_t> values) const {
  if (!valid_)
    return std::nullopt;
  int64_t sum = 0;
  for (const auto &[m, c] : terms_) {
    int64_t term = c;
    for (unsigned s : m) {
      if (s >= values.size() || __builtin_mul_overflow(term, values[s], &term))
        return std::nullopt;
    }
    if (__builtin_add_overflow(sum, term, &sum))
      return std::nullopt;
  }
  return sum;
}

std::string Expr::str(llvm::ArrayRef<std::string> names) const {
  if (!valid_)
    return "<overflow>";
  if (terms_.empty())
    return "0";
  std::string out;
  // Highest degree first, the constant last: "s0*s1*768 + 64".
  for (auto it = terms_.rbegin(); it != terms_.rend(); ++it) {
    const auto &[m, c] = *it;
    bool first = out.empty();
    int64_t mag = c;
    if (!first) {
      out += c < 0 ? " - " : " + ";
      if (c < 0)
        mag = -c; // c == INT64_MIN cannot be a coefficient of a valid Expr
    } else if (c < 0 && !m.empty()) {
      out += "-";
      mag = -c;
    }
    std::string factors;
    for (unsigned s : m) {
      if (!factors.empty())
        factors += "*";
      factors += s < names.size() ? names[s] : "s" + std::to_string(s);
    }
    if (m.empty())
      out += std::to_string(first ? c : mag);
    else if (mag == 1)
      out += factors;
    else
      out += factors + "*" + std::to_string(mag);
  }
  return out;
}

std::optional<std::vector<int64_t>> evalShape(llvm::ArrayRef<Expr> shape,
                                              llvm::ArrayRef<int64_t> values) {
  std::vector<int64_t> out;
  for (const Expr &e : shape) {
    std::optional<int64_t> v = e.eval(values);
    if (!v)
      return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::string shapeStr(llvm::ArrayRef<Expr> shape,
                     llvm::ArrayRef<std::string> names) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + shape[i].str(names);
  return out + "]";
}

Expr product(llvm::ArrayRef<Expr> dims) {
  Expr r(1);
  for (const Expr &d : dims)
    r = r * d;
  return r;
}

} // namespace shardc::sym
