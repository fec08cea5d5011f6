//===- AttentionOps.cpp - kern.attention -----------------------------------===//
//
// The verifier and C arguments of the fused attention kernel
// (runtime/include/shardc/cpu.h: sc_attention).
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/IR/RuntimeOps.h"

using namespace mlir;
using namespace shardc::kern;
using namespace shardc::kern::runtime;

/// The runtime's limit on batch dims (SC_MAX_RANK).
static constexpr int64_t kMaxBatchDims = 8;

/// Checks that `layout` ([offset, batch strides..., row stride, column
/// stride]) walks `batch` x rows x cols inside `buffer`.
static LogicalResult verifyAccess(Operation *op, StringRef name, Value buffer,
                                  ArrayRef<int64_t> layout,
                                  ArrayRef<int64_t> batch, int64_t rows,
                                  int64_t cols) {
  if (layout.size() != batch.size() + 3)
    return op->emitOpError(name) << "_layout needs " << batch.size() + 3
                                 << " entries, not " << layout.size();
  SmallVector<int64_t> dims(batch);
  dims.append({rows, cols});
  if (product(dims) == 0)
    return success();
  int64_t lo = layout[0], hi = layout[0];
  for (auto [d, n] : llvm::enumerate(dims)) {
    int64_t span = layout[d + 1] * (n - 1);
    (span < 0 ? lo : hi) += span;
  }
  int64_t size = bufferType(buffer).getNumElements();
  if (lo < 0 || hi >= size)
    return op->emitOpError(name)
           << " is accessed at [" << lo << ", " << hi << "], outside its "
           << size << " elements";
  return success();
}

LogicalResult AttentionOp::verify() {
  Type t = elementOf(getQ());
  if (!isRuntimeFloat(t))
    return emitOpError("needs f32, f64, f16 or bf16 elements, not ") << t;
  for (Value v : {getK(), getV(), getMask(), getY()})
    if (v && elementOf(v) != t)
      return emitOpError("q, k, v, mask and y need one element type, not ")
             << t << " and " << elementOf(v);
  ArrayRef<int64_t> dims = getDims();
  int64_t nb = static_cast<int64_t>(dims.size()) - 4;
  if (nb < 0 || nb > kMaxBatchDims)
    return emitOpError("dims must be 0 to ")
           << kMaxBatchDims << " batch dims then S, T, D, E; got "
           << dims.size() << " entries";
  if (llvm::any_of(dims, [](int64_t d) { return d < 0; }))
    return emitOpError("dims must be >= 0");
  if (static_cast<bool>(getMask()) != getMaskLayout().has_value())
    return emitOpError("a mask comes with a mask_layout and only then");
  ArrayRef<int64_t> batch = dims.take_front(nb);
  int64_t S = dims[nb], T = dims[nb + 1], D = dims[nb + 2], E = dims[nb + 3];
  if (failed(verifyAccess(*this, "q", getQ(), getQLayout(), batch, S, D)) ||
      failed(verifyAccess(*this, "k", getK(), getKLayout(), batch, T, D)) ||
      failed(verifyAccess(*this, "v", getV(), getVLayout(), batch, T, E)) ||
      failed(verifyAccess(*this, "y", getY(), getYLayout(), batch, S, E)))
    return failure();
  if (Value mask = getMask())
    return verifyAccess(*this, "mask", mask, *getMaskLayout(), batch, S, T);
  return success();
}

StringRef AttentionOp::getRuntimeCallee() { return "sc_attention"; }

// sc_attention(dtype, nb, dims, q, q layout, k, k layout, v, v layout,
//              mask|0, mask layout|0, y, y layout, scale, flags: causal 1,
//              bf16 products 2)
void AttentionOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append(
      {RuntimeArg::dtype(getQ()), RuntimeArg::i32(getNumBatchDims()),
       RuntimeArg::i64s(getDims(), "dims"), RuntimeArg::ptr(getQ()),
       RuntimeArg::i64s(getQLayout(), "q_layout"), RuntimeArg::ptr(getK()),
       RuntimeArg::i64s(getKLayout(), "k_layout"), RuntimeArg::ptr(getV()),
       RuntimeArg::i64s(getVLayout(), "v_layout")});
  if (Value mask = getMask())
    args.append({RuntimeArg::ptr(mask),
                 RuntimeArg::i64s(*getMaskLayout(), "mask_layout")});
  else
    args.append({RuntimeArg::null(), RuntimeArg::null()});
  args.append(
      {RuntimeArg::ptr(getY()), RuntimeArg::i64s(getYLayout(), "y_layout"),
       RuntimeArg::f32(getScale().convertToFloat()),
       RuntimeArg::i32((getCausal() ? 1 : 0) | (getBf16Products() ? 2 : 0))});
}
