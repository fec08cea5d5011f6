//===- Einsum.cpp - ONNX Einsum -------------------------------------------===//
//
// A generic, loop-based einsum: explicit or implicit output, repeated labels
// in one operand (diagonals), "..." broadcasting (right-aligned, dims of 1
// broadcast). Every output element sums the product of the operands over the
// labels not in the output. Floats accumulate in double, integers wrap.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace shardc::rt::cpu;

namespace {

// Labels are letters; the dims of "..." get the pseudo-labels kEll + j
// (j-th of the broadcast ellipsis dims, counted from the left).
constexpr int kEll = 256;

struct Term {
  std::vector<int> labels; // one per operand dim
};

bool isLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

struct Plan {
  std::vector<int> outLabels, sumLabels;
  std::vector<int64_t> size; // by label id (kEll + E entries)
  // strides[i][label]: element stride of operand i along label (0 when the
  // operand lacks the label or broadcasts it).
  std::vector<std::vector<int64_t>> strides;
};

// Parses one side into letter/ellipsis tokens: -1 marks "...".
bool tokenize(const std::string &s, std::vector<int> &toks) {
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, "...") == 0) {
      if (std::count(toks.begin(), toks.end(), -1))
        return false;
      toks.push_back(-1);
      i += 3;
    } else if (isLetter(s[i])) {
      toks.push_back((unsigned char)s[i]);
      ++i;
    } else {
      return false;
    }
  }
  return true;
}

bool makePlan(const char *equation, int32_t n, const sc_desc *const *xs,
              const sc_desc *y, Plan &plan) {
  std::string eq;
  for (const char *c = equation; *c; ++c)
    if (*c != ' ' && *c != '\t')
      eq += *c;
  std::string lhs = eq, rhs;
  size_t arrow = eq.find("->");
  bool explicitOut = arrow != std::string::npos;
  if (explicitOut) {
    lhs = eq.substr(0, arrow);
    rhs = eq.substr(arrow + 2);
  }
  std::vector<std::string> terms;
  for (size_t b = 0;;) {
    size_t c = lhs.find(',', b);
    terms.push_back(lhs.substr(b, c == std::string::npos ? c : c - b));
    if (c == std::string::npos)
      break;
    b = c + 1;
  }
  if ((int32_t)terms.size() != n) {
    sc_fail("Einsum: equation '%s' has %d operands, given %d", equation,
            (int)terms.size(), n);
    return false;
  }
  // Operand labels, with the ellipsis expanded right-aligned.
  std::vector<std::vector<int>> toks(n);
  int ell = 0;
  for (int i = 0; i < n; ++i) {
    if (!tokenize(terms[i], toks[i])) {
      sc_fail("Einsum: bad term '%s' in '%s'", terms[i].c_str(), equation);
      return false;
    }
    int letters = (int)std::count_if(toks[i].begin(), toks[i].end(),
                                     [](int t) { return t >= 0; });
    bool hasEll = letters != (int)toks[i].size();
    int e = xs[i]->rank - letters;
    if (e < 0 || (!hasEll && e != 0)) {
      sc_fail("Einsum: term '%s' does not match operand %d of rank %d",
              terms[i].c_str(), i, xs[i]->rank);
      return false;
    }
    ell = std::max(ell, e);
  }
  std::vector<std::vector<int>> labels(n);
  for (int i = 0; i < n; ++i) {
    int e = xs[i]->rank - (int)(toks[i].size()) + 1; // valid if "..." present
    for (int t : toks[i]) {
      if (t >= 0) {
        labels[i].push_back(t);
        continue;
      }
      for (int j = 0; j < e; ++j)
        labels[i].push_back(kEll + (ell - e) + j);
    }
  }
  // Sizes, with dims of 1 broadcasting.
  plan.size.assign(kEll + ell, -1);
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < xs[i]->rank; ++d) {
      int64_t &s = plan.size[labels[i][d]];
      int64_t v = xs[i]->dims[d];
      if (s == -1 || s == 1)
        s = v;
      else if (v != 1 && v != s) {
        sc_fail("Einsum: dim %d of operand %d is %lld, expected %lld", d, i,
                (long long)v, (long long)s);
        return false;
      }
    }
  // Output labels.
  std::vector<int> outToks;
  if (explicitOut) {
    if (!tokenize(rhs, outToks)) {
      sc_fail("Einsum: bad output term '%s' in '%s'", rhs.c_str(), equation);
      return false;
    }
  } else {
    outToks.push_back(-1);
    std::vector<int> count(kEll, 0);
    for (int i = 0; i < n; ++i)
      for (int t : toks[i])
        if (t >= 0)
          ++count[t];
    for (int c = 0; c < kEll; ++c)
      if (count[c] == 1)
        outToks.push_back(c);
  }
  for (int t : outToks) {
    if (t >= 0) {
      if (plan.size[t] == -1) {
        sc_fail("Einsum: output label '%c' is not in any operand", (char)t);
        return false;
      }
      plan.outLabels.push_back(t);
    } else {
      for (int j = 0; j < ell; ++j)
        plan.outLabels.push_back(kEll + j);
    }
  }
  if ((int)plan.outLabels.size() != y->rank) {
    sc_fail("Einsum: '%s' gives rank %d, output has rank %d", equation,
            (int)plan.outLabels.size(), y->rank);
    return false;
  }
  for (int d = 0; d < y->rank; ++d)
    if (plan.size[plan.outLabels[d]] != y->dims[d]) {
      sc_fail("Einsum: '%s' gives output dim %d = %lld, output has %lld",
              equation, d, (long long)plan.size[plan.outLabels[d]],
              (long long)y->dims[d]);
      return false;
    }
  for (int l = 0; l < kEll + ell; ++l)
    if (plan.size[l] != -1 &&
        std::find(plan.outLabels.begin(), plan.outLabels.end(), l) ==
            plan.outLabels.end())
      plan.sumLabels.push_back(l);
  plan.strides.assign(n, std::vector<int64_t>(kEll + ell, 0));
  for (int i = 0; i < n; ++i) {
    int64_t st = 1;
    for (int d = xs[i]->rank - 1; d >= 0; --d) {
      if (xs[i]->dims[d] != 1)
        plan.strides[i][labels[i][d]] += st;
      st *= xs[i]->dims[d];
    }
  }
  return true;
}

template <class T>
void einsumImpl(const Plan &plan, int32_t n, const void *const *xps,
                const sc_desc *y, T *yp) {
  using Acc = typename Elem<T>::Acc;
  // Integers multiply and add in uint64_t: wraps like numpy, no UB.
  using Sum = std::conditional_t<std::is_integral_v<Acc>, uint64_t, double>;
  int nOut = (int)plan.outLabels.size(), nSum = (int)plan.sumLabels.size();
  int64_t outTotal = numel(y), sumTotal = 1;
  for (int l : plan.sumLabels)
    sumTotal *= plan.size[l];
  std::vector<const T *> xs(n);
  for (int i = 0; i < n; ++i)
    xs[i] = static_cast<const T *>(xps[i]);
  // Per-operand strides along the output and the summed labels.
  std::vector<int64_t> outStride(n * nOut), sumStride(n * nSum);
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < nOut; ++d)
      outStride[i * nOut + d] = plan.strides[i][plan.outLabels[d]];
    for (int d = 0; d < nSum; ++d)
      sumStride[i * nSum + d] = plan.strides[i][plan.sumLabels[d]];
  }
#pragma omp parallel if (outTotal * sumTotal > kParallelGrain)
  {
    std::vector<int64_t> base(n), off(n), pos(nSum);
#pragma omp for schedule(static)
    for (int64_t t = 0; t < outTotal; ++t) {
      std::fill(base.begin(), base.end(), 0);
      int64_t rem = t;
      for (int d = nOut - 1; d >= 0; --d) {
        int64_t c = rem % y->dims[d];
        rem /= y->dims[d];
        for (int i = 0; i < n; ++i)
          base[i] += c * outStride[i * nOut + d];
      }
      off = base;
      std::fill(pos.begin(), pos.end(), 0);
      Sum acc = 0;
      for (int64_t s = 0; s < sumTotal; ++s) {
        Sum prod = (Sum)load(xs[0][off[0]]);
        for (int i = 1; i < n; ++i)
          prod *= (Sum)load(xs[i][off[i]]);
        acc += prod;
        for (int d = nSum - 1; d >= 0; --d) { // next summed position
          int64_t sz = plan.size[plan.sumLabels[d]];
          if (++pos[d] < sz) {
            for (int i = 0; i < n; ++i)
              off[i] += sumStride[i * nSum + d];
            break;
          }
          pos[d] = 0;
          for (int i = 0; i < n; ++i)
            off[i] -= (sz - 1) * sumStride[i * nSum + d];
        }
      }
      yp[t] = store<T>((Acc)acc);
    }
  }
}

} // namespace

extern "C" void sc_einsum(const char *equation, int32_t n,
                          const sc_desc *const *xs, const void *const *xps,
                          const sc_desc *y, void *yp) {
  if (n < 1) {
    sc_fail("Einsum: no operands");
    return;
  }
  for (int i = 0; i < n; ++i)
    if (xs[i]->dtype != y->dtype) {
      sc_fail("Einsum: operand %d is %s, output is %s", i,
              dtypeName(xs[i]->dtype), dtypeName(y->dtype));
      return;
    }
  Plan plan;
  if (!makePlan(equation, n, xs, y, plan))
    return;
  if (y->dtype == kBool || !dispatchNumeric(y->dtype, [&](auto t) {
        using T = decltype(t);
        einsumImpl(plan, n, xps, y, static_cast<T *>(yp));
      }))
    sc_fail("Einsum: unsupported dtype %s", dtypeName(y->dtype));
}
