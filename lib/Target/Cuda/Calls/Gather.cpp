//===- Gather.cpp - kern.gather on CUDA (prelude gather.cuh) ---------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;
using target::storageCType;

// Rows of `inner` elements move as the widest words that divide them.
FailureOr<Kernel> calls::gather(kern::GatherOp op, StringRef name) {
  CallWriter w(op, name);
  Value data = op.getData(), idx = op.getIndices();
  ArrayRef<int64_t> ds = shape(data);
  int64_t axis = *kern::normalizeAxis(op.getAxis(), ds.size());
  Type it = elem(idx);
  int64_t outer = product(ds.take_front(axis)), n = ds[axis];
  int64_t inner = product(ds.drop_front(axis + 1));
  int64_t nidx = product(shape(idx));
  int64_t rowBytes = inner * elemBytes(elem(data));
  int64_t wb = widestWord(rowBytes), row = rowBytes / wb;
  int64_t total = outer * nidx * row;
  std::string word = wordType(wb),
              I = indexType(std::max(total, outer * n * row));
  int64_t rows = n, offset = 0;
  if (std::optional<ArrayRef<int64_t>> part = op.getPart()) {
    rows = (*part)[0];
    offset = (*part)[1];
  }
  w.launchOver(total);
  w.body = "  // rows of " + std::to_string(rowBytes) + " bytes as " +
           std::to_string(row) + " words of " + std::to_string(wb) + "\n" +
           "  sc_gather<" + word + ", " + storageCType(it) + ", " + I +
           ">(reinterpret_cast<const " + word + " *>(" +
           w.param(op.getDataMutable()) + "), " +
           w.param(op.getIndicesMutable()) + ", reinterpret_cast<" + word +
           " *>(" + w.param(op.getYMutable()) + "), " + lit(outer) + ", " +
           lit(n) + ", " + lit(nidx) + ", " + lit(row) + ", " +
           std::to_string(rows) + "LL, " + std::to_string(offset) + "LL);\n";
  w.finish(w.blockSize, w.gridSize,
           "gather " + dimsText(ds) + " along axis " + std::to_string(axis) +
               " by " + dimsText(shape(idx)));
  return w.kernel;
}
