//===- MatmulPlan.h - a row-major matmul as one cuBLASLt call ---*- C++ -*-===//
//
// sc_cu_matmul_create takes row-major tensors [..., M, K] x [..., K, N] ->
// [..., M, N] with broadcast batch dims (shardc/cuda.h). cuBLASLt is
// column-major, and a row-major matrix is its transpose in column-major
// order, so y = op(a) op(b) is computed as y^T = op(b)^T op(a)^T: cuBLASLt's
// A is our b, its B our a, and its D (N x M) is y. The inner batch dims that
// broadcast alike become one strided batch, a zero stride broadcasting an
// operand; outer batch dims that broadcast otherwise (a [3,1,M,K] x b
// [1,2,K,N]) become one call per outer index, at offsets. Pure logic: no
// library, tested without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CUDA_MATMULPLAN_H
#define SHARDC_RUNTIME_CUDA_MATMULPLAN_H

#include "shardc/cpu.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc::rt::cuda {

/// One cuBLASLt matrix layout: column-major, as stored (before its op).
struct LtMatrix {
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int64_t batchStride = 0; // elements between batches; 0 broadcasts
};

/// Where one call of an outer batch starts in each operand, in elements.
struct MatmulOffsets {
  int64_t a = 0, b = 0, bias = 0, y = 0; // y's also locates the residual
};

struct MatmulPlan {
  enum class Bias {
    None,
    Row,  // a row of N broadcast over the rows: cuBLASLt's bias epilogue
    Full, // y's shape: passed as C with beta = 1
  };

  LtMatrix a, b, d;                    // cuBLASLt's A (= b), B (= a), C/D (= y)
  bool transA = false, transB = false; // cuBLASLt's ops (= trans_b, trans_a)
  int32_t batch = 1;
  Bias bias = Bias::None;
  int64_t biasBatchStride = 0; // Row: elements between batches
  // A tensor of y's shape added after everything else: cuBLASLt's C with
  // beta = 1 (C distinct from D, D's layout). Excludes a Full bias.
  bool residual = false;
  bool empty = false; // y has no elements: nothing to do
  // One call per entry (outer batch dims that one strided batch cannot
  // express); empty: one call at offset 0.
  std::vector<MatmulOffsets> calls;
};

/// Maps a matmul onto one (batched) cuBLASLt call, or one per index of the
/// outer batch dims whose broadcasting differs from the inner ones'. Batches
/// whose a is dense and whose b is broadcast become rows of one larger GEMM.
/// False with a one-line reason for shapes it cannot express: mismatched
/// dims, batch dims that do not broadcast, a bias that is
/// neither a row nor y's shape, a residual that is not y's shape or comes
/// with a bias of y's shape (both would need C), dims beyond cuBLASLt's
/// int32 range.
bool planMatmul(const sc_desc &a, const sc_desc &b, const sc_desc *bias,
                const sc_desc *residual, const sc_desc &y, bool transA,
                bool transB, MatmulPlan &plan, std::string &error);

} // namespace shardc::rt::cuda

#endif // SHARDC_RUNTIME_CUDA_MATMULPLAN_H
