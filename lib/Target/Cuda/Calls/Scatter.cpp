//===- Scatter.cpp - kern.gather_elements, scatters on CUDA (scatter.cuh) ==//
//
// A thread per index element, or per element of an update slice; the
// shapes, strides and the axis are baked in. A scatter's y is its one
// output parameter, read and written in place.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;
using target::storageCType;

namespace {

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> s(dims.size(), 1);
  for (int64_t d = (int64_t)dims.size() - 2; d >= 0; --d)
    s[d] = s[d + 1] * dims[d + 1];
  return s;
}

/// `{{idx dims}, {data strides}}` of sc_elements_geom.
std::string elementsGeom(ArrayRef<int64_t> idims, ArrayRef<int64_t> dims) {
  return "  const sc_elements_geom<" + std::to_string(dims.size()) + "> g = {" +
         braced(idims) + ", " + braced(stridesOf(dims)) + "};\n";
}

/// The element kind a scatter's template takes: the storage word for
/// stores (any type), the arithmetic kind for reductions.
std::string scatterKind(Type t, int32_t reduction) {
  return reduction == 0 ? wordType(elemBytes(t)) : elemKind(t);
}

/// `reinterpret_cast<[const] W *>(p)`.
std::string pointerAs(const std::string &word, const std::string &p,
                      bool isConst) {
  return "reinterpret_cast<" + std::string(isConst ? "const " : "") + word +
         " *>(" + p + ")";
}

} // namespace

FailureOr<Kernel> calls::gatherElements(kern::GatherElementsOp op,
                                        StringRef name) {
  CallWriter w(op, name);
  ArrayRef<int64_t> ds = shape(op.getData()), is = shape(op.getIndices());
  int64_t axis = *kern::normalizeAxis(op.getAxis(), ds.size());
  int64_t total = product(is);
  std::string what = "gather elements of " + dimsText(ds) + " along axis " +
                     std::to_string(axis) + " by " + dimsText(is);
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  std::string word = wordType(elemBytes(elem(op.getData())));
  w.launchOver(total);
  w.body = elementsGeom(is, ds) + "  sc_gather_elements<" + word + ", " +
           std::to_string(ds.size()) + ", " + std::to_string(axis) + ">(" +
           pointerAs(word, w.param(op.getDataMutable()), true) + ", " +
           w.param(op.getIndicesMutable()) + ", " +
           pointerAs(word, w.param(op.getYMutable()), false) + ", g, " +
           lit(ds[axis]) + ", (" + indexType(total) + ")" + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize, what);
  return w.kernel;
}

FailureOr<Kernel> calls::scatterElements(kern::ScatterElementsOp op,
                                         StringRef name) {
  Value idx = op.getIndices(), upd = op.getUpdates(), y = op.getY();
  CallWriter w(op, name, {idx, upd}, {y});
  ArrayRef<int64_t> ys = shape(y), is = shape(idx);
  int64_t axis = *kern::normalizeAxis(op.getAxis(), ys.size());
  int32_t red = op.getReductionCode();
  int64_t total = product(is);
  std::string what = "scatter elements (" + op.getReduction().str() + ") of " +
                     dimsText(is) + " into " + dimsText(ys) + " along axis " +
                     std::to_string(axis);
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  std::string kind = scatterKind(elem(y), red);
  std::string word = "typename sc_elem<" + kind + ">::S";
  w.launchOver(total);
  w.body = elementsGeom(is, ys) + "  sc_scatter_elements<" + kind + ", " +
           std::to_string(red) + ", " + std::to_string(ys.size()) + ", " +
           std::to_string(axis) + ">(" + w.inputParam(idx) + ", " +
           pointerAs(word, w.inputParam(upd), true) + ", " +
           pointerAs(word, "out0", false) + ", g, " + lit(ys[axis]) + ", (" +
           indexType(total) + ")" + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize, what);
  return w.kernel;
}

FailureOr<Kernel> calls::scatterND(kern::ScatterNDOp op, StringRef name) {
  Value idx = op.getIndices(), upd = op.getUpdates(), y = op.getY();
  CallWriter w(op, name, {idx, upd}, {y});
  ArrayRef<int64_t> ys = shape(y), is = shape(idx);
  int64_t k = is.back();
  int32_t red = op.getReductionCode();
  int64_t row = product(ys.drop_front(k));
  int64_t total = product(is.drop_back()) * row;
  std::string what = "scatter nd (" + op.getReduction().str() + ") of " +
                     dimsText(is) + " tuples into " + dimsText(ys);
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  SmallVector<int64_t> strides = stridesOf(ys);
  std::string kind = scatterKind(elem(y), red);
  std::string word = "typename sc_elem<" + kind + ">::S";
  std::string I = indexType(std::max(total, product(is)));
  w.launchOver(total);
  w.body = "  const sc_nd_geom<" + std::to_string(k) + "> g = {" +
           braced(ys.take_front(k)) + ", " +
           braced(ArrayRef<int64_t>(strides).take_front(k)) + "};\n" +
           "  sc_scatter_nd<" + kind + ", " + std::to_string(red) + ", " +
           std::to_string(k) + ">(" + w.inputParam(idx) + ", " +
           pointerAs(word, w.inputParam(upd), true) + ", " +
           pointerAs(word, "out0", false) + ", g, (" + I + ")" + lit(row) +
           ", (" + I + ")" + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize, what);
  return w.kernel;
}
