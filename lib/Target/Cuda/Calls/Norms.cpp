//===- Norms.cpp - kern.softmax, kern.layer_norm on CUDA -------------------===//
//
// Prelude normalize.cuh: a row of n elements per warp (or fewer lanes, or a
// block), vectorized where the row allows; softmax along an inner axis
// takes a thread per column.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;
using target::floatLiteral;

namespace {
/// Threads per row (W), elements per vector (V) and the block of a row
/// kernel over rows of n elements of `bytes` each.
struct RowPlan {
  int64_t W, V, block;
};
RowPlan rowPlan(int64_t n, int64_t bytes) {
  RowPlan p;
  if (n <= 1024) {
    // A warp, or for short rows the smallest group of lanes that covers
    // the row; 128 threads per block.
    p.W = 32;
    while (p.W > 1 && p.W / 2 >= n)
      p.W /= 2;
    p.block = 128;
  } else {
    p.W = n <= 4096 ? 256 : n <= 16384 ? 512 : 1024;
    p.block = p.W;
  }
  // The widest vector of at most 16 bytes that divides the row and still
  // gives every thread one.
  p.V = 1;
  for (int64_t v = 16 / bytes; v > 1; v /= 2)
    if (n % v == 0 && n >= v * p.W) {
      p.V = v;
      break;
    }
  return p;
}
std::string rowText(const RowPlan &p) {
  if (p.W > 32)
    return ", a block per row";
  return p.W == 32 ? ", a warp per row"
                   : ", " + std::to_string(p.W) + " lanes per row";
}
} // namespace

FailureOr<Kernel> calls::softmax(kern::SoftmaxOp op, StringRef name) {
  CallWriter w(op, name);
  Type t = elem(op.getX());
  ArrayRef<int64_t> xs = shape(op.getX());
  SmallVector<int64_t> dims(xs);
  if (dims.empty()) // a scalar is its own single-element axis
    dims.push_back(1);
  int64_t axis = *kern::normalizeAxis(op.getAxis(), dims.size());
  int64_t outer = product(ArrayRef(dims).take_front(axis)), n = dims[axis];
  int64_t inner = product(ArrayRef(dims).drop_front(axis + 1));
  std::string log = op.getLog() ? "true" : "false", kind = elemKind(t);
  std::string x = w.param(op.getXMutable()), y = w.param(op.getYMutable());
  std::string what = std::string(op.getLog() ? "log-softmax" : "softmax") +
                     " of " + dimsText(xs) + " along axis " +
                     std::to_string(axis);
  if (outer * n * inner == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  if (inner == 1 && n < (int64_t(1) << 31)) {
    RowPlan p = rowPlan(n, elemBytes(t));
    int64_t rowsPerBlock = p.block / p.W;
    w.body = "  sc_softmax_rows<" + kind + ", " + lit(n) + ", " +
             std::to_string(p.W) + ", " + std::to_string(p.V) + ", " + log +
             ">(" + x + ", " + y + ", " + lit(outer) + ");\n";
    w.finish(p.block, std::min(ceilDiv(outer, rowsPerBlock), kMaxGrid),
             what + ": " + std::to_string(outer) + " rows of " +
                 std::to_string(n) + rowText(p));
    return w.kernel;
  }
  std::string I = indexType(outer * n * inner);
  w.launchOver(outer * inner);
  w.body = "  sc_softmax_cols<" + kind + ", " + log + ", " + I + ">(" + x +
           ", " + y + ", " + lit(outer) + ", " + lit(n) + ", " + lit(inner) +
           ");\n";
  w.finish(w.blockSize, w.gridSize, what + ": a thread per column");
  return w.kernel;
}

FailureOr<Kernel> calls::layerNorm(kern::LayerNormOp op, StringRef name) {
  CallWriter w(op, name);
  Type t = elem(op.getX());
  ArrayRef<int64_t> xs = shape(op.getX());
  int64_t axis = *kern::normalizeAxis(op.getAxis(), xs.size(), true);
  int64_t outer = product(xs.take_front(axis)),
          n = product(xs.drop_front(axis));
  bool bias = static_cast<bool>(op.getBias());
  bool stats = op.getMean() || op.getInvStd();
  std::string what =
      "layer norm of " + dimsText(xs) + " from axis " + std::to_string(axis);
  if (outer == 0 || (n == 0 && !stats)) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  if (n == 0)
    return w.unsupported("statistics of an empty normalized shape");
  if (n >= (int64_t(1) << 31))
    return w.unsupported("rows of 2^31 elements or more");
  RowPlan p = rowPlan(n, elemBytes(t));
  int64_t rowsPerBlock = p.block / p.W;
  w.body = "  sc_layer_norm_rows<" + elemKind(t) + ", " + lit(n) + ", " +
           std::to_string(p.W) + ", " + std::to_string(p.V) + ", " +
           (bias ? "true" : "false") + ">(" + w.param(op.getXMutable()) +
           ", " + w.param(op.getScaleMutable()) + ", " +
           w.param(op.getBiasMutable()) + ", " + w.param(op.getYMutable()) +
           ", " + w.param(op.getMeanMutable()) + ", " +
           w.param(op.getInvStdMutable()) + ", " + lit(outer) + ", " +
           floatLiteral(op.getEpsilon().convertToFloat(),
                        Float32Type::get(op.getContext())) +
           ");\n";
  w.finish(p.block, std::min(ceilDiv(outer, rowsPerBlock), kMaxGrid),
           what + ": " + std::to_string(outer) + " rows of " +
               std::to_string(n) + rowText(p));
  return w.kernel;
}
