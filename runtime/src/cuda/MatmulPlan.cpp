//===- MatmulPlan.cpp - a row-major matmul as one cuBLASLt call -----------===//
#include "MatmulPlan.h"

#include <climits>

namespace shardc::rt::cuda {
namespace {

std::string dimsOf(const sc_desc &d) {
  std::string s = "[";
  for (int i = 0; i < d.rank; ++i)
    s += (i ? "," : "") + std::to_string(d.dims[i]);
  return s + "]";
}

} // namespace

bool planMatmul(const sc_desc &a, const sc_desc &b, const sc_desc *bias,
                const sc_desc *residual, const sc_desc &y, bool transA,
                bool transB, MatmulPlan &plan, std::string &error) {
  plan = MatmulPlan();
  const int r = y.rank;
  if (r < 2 || r > SC_MAX_RANK || a.rank != r || b.rank != r ||
      (bias && bias->rank != r)) {
    error = "ranks a " + std::to_string(a.rank) + ", b " +
            std::to_string(b.rank) + ", y " + std::to_string(r) +
            (bias ? ", bias " + std::to_string(bias->rank) : "") +
            " (need equal, 2 to " + std::to_string(SC_MAX_RANK) + ")";
    return false;
  }
  const int64_t M = y.dims[r - 2], N = y.dims[r - 1];
  const int64_t K = transA ? a.dims[r - 2] : a.dims[r - 1];
  const int64_t aM = transA ? a.dims[r - 1] : a.dims[r - 2];
  const int64_t bK = transB ? b.dims[r - 1] : b.dims[r - 2];
  const int64_t bN = transB ? b.dims[r - 2] : b.dims[r - 1];
  const std::string shapes = "a " + dimsOf(a) + (transA ? "^T" : "") + " x b " +
                             dimsOf(b) + (transB ? "^T" : "") + " -> y " +
                             dimsOf(y);
  if (aM != M || bK != K || bN != N) {
    error = shapes + ": the matrix dims do not match";
    return false;
  }

  // Batch dims: each operand's is y's or 1. One strided batch covers the
  // innermost dims above 1 that broadcast the same operands (`pattern`);
  // the dims above them are outer: one call per index.
  int64_t batch = 1;
  int pattern = -1; // bit 0: a dense, 1: b dense, 2: bias dense
  int outerDims = 0; // batch dims 0 .. outerDims-1 are outer
  for (int i = r - 3; i >= 0; --i) {
    const int64_t n = y.dims[i];
    int bits = 0;
    bool broadcasts = true;
    auto classify = [&](const sc_desc *d, int bit) {
      if (!d || d->dims[i] == 1)
        return;
      if (d->dims[i] == n)
        bits |= bit;
      else
        broadcasts = false;
    };
    classify(&a, 1);
    classify(&b, 2);
    classify(bias, 4);
    if (!broadcasts) {
      error = shapes + (bias ? " + bias " + dimsOf(*bias) : "") +
              ": batch dim " + std::to_string(i) + " does not broadcast";
      return false;
    }
    if (n == 1 || outerDims)
      continue;
    if (pattern >= 0 && bits != pattern) {
      outerDims = i + 1;
      continue;
    }
    pattern = bits;
    batch *= n;
  }
  const bool aDense = pattern > 0 && (pattern & 1),
             bDense = pattern > 0 && (pattern & 2),
             biasDense = pattern > 0 && (pattern & 4);

  if (bias) {
    const int64_t rows = bias->dims[r - 2], cols = bias->dims[r - 1];
    if (cols == N && rows == 1) {
      plan.bias = MatmulPlan::Bias::Row;
      plan.biasBatchStride = biasDense ? N : 0;
    } else if (cols == N && rows == M && (biasDense || batch == 1)) {
      plan.bias = MatmulPlan::Bias::Full;
    } else {
      error = shapes + ": bias " + dimsOf(*bias) +
              " is neither a row of y nor y's shape";
      return false;
    }
  }
  if (residual) {
    bool same = residual->rank == r;
    for (int i = 0; same && i < r; ++i)
      same = residual->dims[i] == y.dims[i];
    if (!same) {
      error = shapes + ": residual " + dimsOf(*residual) + " is not y's shape";
      return false;
    }
    if (plan.bias == MatmulPlan::Bias::Full) {
      error = shapes + ": a residual and a bias of y's shape would both be "
                       "cuBLASLt's C";
      return false;
    }
    plan.residual = true;
  }
  int64_t outerCount = 1;
  for (int i = 0; i < outerDims; ++i)
    outerCount *= y.dims[i];
  if (M == 0 || N == 0 || batch == 0 || outerCount == 0) {
    plan.empty = true;
    return true;
  }
  if (K == 0) {
    error = shapes + ": the inner dimension is empty";
    return false;
  }

  // cuBLASLt's A = b, B = a, D = y (see the file comment).
  plan.transA = transB;
  plan.transB = transA;
  plan.a = transB ? LtMatrix{uint64_t(K), uint64_t(N), K, 0}
                  : LtMatrix{uint64_t(N), uint64_t(K), N, 0};
  plan.b = transA ? LtMatrix{uint64_t(M), uint64_t(K), M, 0}
                  : LtMatrix{uint64_t(K), uint64_t(M), K, 0};
  plan.d = LtMatrix{uint64_t(N), uint64_t(M), N, 0};
  if (batch > 1) {
    const bool rowBiasShared =
        plan.bias != MatmulPlan::Bias::Row || plan.biasBatchStride == 0;
    if (aDense && !bDense && !transA && rowBiasShared) {
      // y[i] = a[i] b for every i: the batches of a and y are consecutive
      // rows, so this is one GEMM with M * batch rows (cuBLASLt's columns).
      plan.b.cols *= uint64_t(batch);
      plan.d.cols *= uint64_t(batch);
      batch = 1;
    } else {
      plan.a.batchStride = bDense ? K * N : 0;
      plan.b.batchStride = aDense ? M * K : 0;
      plan.d.batchStride = M * N;
    }
  }
  for (const LtMatrix *m : {&plan.a, &plan.b, &plan.d})
    if (m->rows > INT32_MAX || m->cols > INT32_MAX) {
      error = shapes + ": dims beyond cuBLASLt's int32 range";
      return false;
    }
  if (batch > INT32_MAX) {
    error = shapes + ": more than 2^31 batches";
    return false;
  }
  plan.batch = static_cast<int32_t>(batch);

  // The outer calls' offsets: an operand's stride in an outer dim is its
  // elements per index there where it is dense, 0 where it broadcasts.
  if (outerDims) {
    auto strides = [&](const sc_desc *d) {
      std::vector<int64_t> st(outerDims, 0);
      if (!d)
        return st;
      int64_t inner = 1;
      for (int i = r - 1; i >= 0; --i) {
        if (i < outerDims && d->dims[i] != 1)
          st[i] = inner;
        inner *= d->dims[i];
      }
      return st;
    };
    const std::vector<int64_t> sa = strides(&a), sb = strides(&b),
                               sbias = strides(bias), sy = strides(&y);
    std::vector<int64_t> index(outerDims, 0);
    for (int64_t call = 0; call < outerCount; ++call) {
      MatmulOffsets o;
      for (int i = 0; i < outerDims; ++i) {
        o.a += index[i] * sa[i];
        o.b += index[i] * sb[i];
        o.bias += index[i] * sbias[i];
        o.y += index[i] * sy[i];
      }
      plan.calls.push_back(o);
      for (int i = outerDims - 1; i >= 0 && ++index[i] == y.dims[i]; --i)
        index[i] = 0;
    }
  }
  return true;
}

} // namespace shardc::rt::cuda
