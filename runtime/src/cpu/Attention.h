//===- Attention.h - attention's strided operands and bf16 path -*- C++ -*-===//
//
// Private to runtime/src/cpu: sc_attention (Attention.cpp) describes each
// operand by its batch, row and column strides; its bf16 form runs on
// oneDNN's bf16 matmuls where the CPU has them (AttentionDnnl.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CPU_ATTENTION_H
#define SHARDC_RUNTIME_CPU_ATTENTION_H

#include "Common.h"

#include <cstdint>

namespace shardc::rt::cpu {

struct AttentionOperand {
  int64_t off;         // element offset of batch 0, row 0, column 0
  const int64_t *bstr; // nb batch strides
  int64_t rs, cs;      // row and column strides
};

/// The element offsets of batch entry `b` (flat, row-major over the nb
/// batch dims) in q, k, v, the mask (when there is one) and y. Always
/// inlined: Attention.cpp calls it from its ISA clones.
struct BatchOffsets {
  int64_t q, k, v, mask, y;
};
inline __attribute__((always_inline)) BatchOffsets
batchOffsets(int32_t nb, const int64_t *dims, int64_t b,
             const AttentionOperand &q, const AttentionOperand &k,
             const AttentionOperand &v, bool hasMask,
             const AttentionOperand &mask, const AttentionOperand &y) {
  BatchOffsets o{q.off, k.off, v.off, mask.off, y.off};
  for (int32_t i = nb - 1; i >= 0; --i) {
    int64_t idx = b % dims[i];
    b /= dims[i];
    o.q += idx * q.bstr[i];
    o.k += idx * k.bstr[i];
    o.v += idx * v.bstr[i];
    if (hasMask)
      o.mask += idx * mask.bstr[i];
    o.y += idx * y.bstr[i];
  }
  return o;
}

/// sc_attention for bf16 operands with both products on oneDNN's bf16
/// matmuls (AMX or AVX-512 BF16 kernels, fp32 accumulation): the scores of
/// a block of queries against a block of up to 512 keys, the online
/// softmax over the blocks in fp32 (as Attention.cpp), the weights rounded
/// to bf16 for the product with the values. Returns false, having written
/// nothing, where it does not apply: a CPU oneDNN has no bf16 matmul
/// kernels for, or a problem too small to pay a library call per block.
bool attentionBF16Dnnl(int32_t nb, const int64_t *dims, const BHalf *q,
                       AttentionOperand ql, const BHalf *k, AttentionOperand kl,
                       const BHalf *v, AttentionOperand vl, const BHalf *mask,
                       AttentionOperand ml, BHalf *y, AttentionOperand yl,
                       float scale, bool causal);

/// The same for f32 operands whose products may run in bf16 (sc_attention's
/// SC_ATTENTION_BF16_PRODUCTS): q, k, v and the weights rounded to bf16 as
/// they are staged, the mask added and the softmax kept in fp32, y stored
/// as f32. False where attentionBF16Dnnl would be.
bool attentionF32ByBF16Dnnl(int32_t nb, const int64_t *dims, const float *q,
                            AttentionOperand ql, const float *k,
                            AttentionOperand kl, const float *v,
                            AttentionOperand vl, const float *mask,
                            AttentionOperand ml, float *y, AttentionOperand yl,
                            float scale, bool causal);

} // namespace shardc::rt::cpu

#endif // SHARDC_RUNTIME_CPU_ATTENTION_H
