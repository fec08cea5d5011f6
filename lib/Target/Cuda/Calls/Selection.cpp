//===- Selection.cpp - kern.arg_max, topk, cumsum, trilu on CUDA -----------===//
//
// Prelude select.cuh: the axis kernels view x as [outer, n, inner] and take
// a thread or a block per (outer, inner) slice.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;
using target::storageCType;

namespace {
/// [outer, n, inner] around `axis`.
struct AxisView {
  int64_t outer, n, inner;
};
AxisView axisView(ArrayRef<int64_t> dims, int64_t axis) {
  return {product(dims.take_front(axis)), dims[axis],
          product(dims.drop_front(axis + 1))};
}
} // namespace

FailureOr<Kernel> calls::argMax(kern::ArgMaxOp op, StringRef name) {
  CallWriter w(op, name);
  std::string x = w.param(op.getXMutable()), y = w.param(op.getYMutable());
  ArrayRef<int64_t> xs = shape(op.getX());
  int64_t rank = xs.size();
  if (rank == 0) {
    w.body = "  if (blockIdx.x == 0 && threadIdx.x == 0)\n    " + y +
             "[0] = 0;\n";
    w.finish(32, 1, "arg max of a scalar");
    return w.kernel;
  }
  int64_t axis = *kern::normalizeAxis(op.getAxis(), rank);
  AxisView v = axisView(xs, axis);
  int64_t slices = v.outer * v.inner;
  std::string last = op.getSelectLastIndex() ? "true" : "false",
              kind = elemKind(elem(op.getX()));
  std::string what =
      "arg max of " + dimsText(xs) + " along axis " + std::to_string(axis);
  if (slices == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  if (v.n == 0)
    return w.unsupported("reducing an empty axis");
  std::string I = indexType(product(xs));
  std::string dims = lit(v.outer) + ", " + lit(v.n) + ", " + lit(v.inner);
  // A block per slice when the axis is long, or fairly long and the
  // slices few; else a thread per slice.
  int64_t b = 0;
  if (v.n >= 256)
    b = 256;
  else if (v.n >= 32 && slices < 1024)
    for (b = 32; b * 2 <= v.n && b < 256; b *= 2)
      ;
  if (b) {
    w.body = "  sc_arg_max_block<" + kind + ", " + last + ", " +
             std::to_string(b) + ", " + I + ">(" + x + ", " + y + ", " + dims +
             ");\n";
    w.finish(b, std::min(slices, kMaxGrid), what + ", a block per slice");
    return w.kernel;
  }
  w.launchOver(slices);
  w.body = "  sc_arg_max_thread<" + kind + ", " + last + ", " + I + ">(" + x +
           ", " + y + ", " + dims + ");\n";
  w.finish(w.blockSize, w.gridSize, what + ", a thread per slice");
  return w.kernel;
}

FailureOr<Kernel> calls::topk(kern::TopKOp op, StringRef name) {
  CallWriter w(op, name);
  ArrayRef<int64_t> xs = shape(op.getX());
  int64_t axis = *kern::normalizeAxis(op.getAxis(), xs.size()), k = op.getK();
  AxisView v = axisView(xs, axis);
  int64_t slices = v.outer * v.inner;
  std::string what = std::string(op.getLargest() ? "largest" : "smallest") +
                     " " + std::to_string(k) + " of " + dimsText(xs) +
                     " along axis " + std::to_string(axis);
  if (slices == 0 || k == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  int64_t b = 32;
  while (b < v.n && b < 256)
    b *= 2;
  std::string I = indexType(std::max(product(xs), slices * k));
  w.body = "  sc_topk<" + elemKind(elem(op.getX())) + ", " +
           (op.getLargest() ? "true" : "false") + ", " + std::to_string(b) +
           ", " + I + ">(" + w.param(op.getXMutable()) + ", " +
           w.param(op.getValuesMutable()) + ", " +
           w.param(op.getIndicesMutable()) + ", " + lit(v.outer) + ", " +
           lit(v.n) + ", " + lit(v.inner) + ", " + lit(k) + ");\n";
  w.finish(b, std::min(slices, kMaxGrid), what + ", a block per slice");
  return w.kernel;
}

FailureOr<Kernel> calls::cumsum(kern::CumSumOp op, StringRef name) {
  CallWriter w(op, name);
  std::string x = w.param(op.getXMutable()), y = w.param(op.getYMutable());
  Type t = elem(op.getX());
  ArrayRef<int64_t> xs = shape(op.getX());
  int64_t rank = xs.size();
  bool exclusive = op.getExclusive(), reverse = op.getReverse();
  if (rank == 0) {
    w.body = "  if (blockIdx.x == 0 && threadIdx.x == 0)\n    " + y +
             "[0] = " + (exclusive ? storageCType(t) + "()" : x + "[0]") +
             ";\n";
    w.finish(32, 1, "cumulative sum of a scalar");
    return w.kernel;
  }
  int64_t axis = *kern::normalizeAxis(op.getAxis(), rank);
  AxisView v = axisView(xs, axis);
  int64_t slices = v.outer * v.inner;
  std::string I = indexType(product(xs));
  std::string what = "cumulative sum of " + dimsText(xs) + " along axis " +
                     std::to_string(axis);
  std::string flags = std::string(exclusive ? "true" : "false") + ", " +
                      (reverse ? "true" : "false");
  std::string dims = lit(v.outer) + ", " + lit(v.n) + ", " + lit(v.inner);
  if (!isFloat(t) && v.n >= 256 && slices > 0) {
    // Integer sums are exact in any order: a block scans each slice.
    w.body = "  sc_cumsum_block<" + elemKind(t) + ", " + flags + ", 256, " +
             I + ">(" + x + ", " + y + ", " + dims + ");\n";
    w.finish(256, std::min(slices, kMaxGrid), what + ", a block per slice");
    return w.kernel;
  }
  w.launchOver(v.n ? slices : 0);
  w.body = "  sc_cumsum<" + elemKind(t) + ", " + flags + ", " + I + ">(" + x +
           ", " + y + ", " + dims + ");\n";
  w.finish(w.blockSize, w.gridSize, what + ", a thread per slice");
  return w.kernel;
}

FailureOr<Kernel> calls::trilu(kern::TriluOp op, StringRef name) {
  CallWriter w(op, name);
  ArrayRef<int64_t> xs = shape(op.getX());
  int64_t rows = xs[xs.size() - 2], cols = xs.back(), total = product(xs);
  bool upper = op.getUpper();
  std::string word = wordType(elemBytes(elem(op.getX())));
  w.launchOver(total);
  w.body = "  sc_trilu<" + word + ", " + (upper ? "true" : "false") + ", " +
           indexType(total) + ">(reinterpret_cast<const " + word + " *>(" +
           w.param(op.getXMutable()) + "), reinterpret_cast<" + word +
           " *>(" + w.param(op.getYMutable()) + "), " + lit(total) + ", " +
           lit(rows) + ", " + lit(cols) + ", " + std::to_string(op.getK()) +
           "LL);\n";
  w.finish(w.blockSize, w.gridSize,
           std::string(upper ? "upper" : "lower") + " triangle of " +
               dimsText(xs) + " from diagonal " + std::to_string(op.getK()));
  return w.kernel;
}
