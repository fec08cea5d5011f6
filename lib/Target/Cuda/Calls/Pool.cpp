//===- Pool.cpp - kern.pool on CUDA (prelude pool.cuh) ---------------------===//
//
// A thread per output element; the geometry (dims, window, strides, pads,
// the strides of the flat max indices) is a constant struct.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;

FailureOr<Kernel> calls::pool(kern::PoolOp op, StringRef name) {
  CallWriter w(op, name);
  if (op.getChannelsLast())
    return w.unsupported("channels-last pooling runs on the CPU target only");
  ArrayRef<int64_t> xs = shape(op.getX()), ys = shape(op.getY());
  int64_t sd = (int64_t)xs.size() - 2;
  Type t = elem(op.getX());
  bool isMax = op.isMax(), indices = static_cast<bool>(op.getIndices());
  ArrayRef<int64_t> pads = op.getPads();
  SmallVector<int64_t> in(xs.drop_front(2)), out(ys.drop_front(2));
  SmallVector<int64_t> istride(sd), rstride(sd);
  for (int64_t d = sd - 1, r = 1; d >= 0; --d) {
    rstride[d] = r;
    r *= in[d];
  }
  if (op.getStorageOrder() == 1) {
    for (int64_t d = 0, c = 1; d < sd; ++d) {
      istride[d] = c;
      c *= in[d];
    }
  } else {
    istride = rstride;
  }
  int64_t planes = xs[0] * xs[1];
  int64_t total = product(ys);
  std::string I = indexType(std::max(product(xs), total));
  w.launchOver(total);
  std::string g = "  const sc_pool_geom<" + std::to_string(sd) + "> g = {" +
                  braced(in) + ", " + braced(out) + ", " +
                  braced(op.getKernelShape()) + ", " + braced(op.getStrides()) +
                  ", " + braced(op.getDilations()) + ", " +
                  braced(pads.take_front(sd)) + ", " +
                  braced(pads.drop_front(sd)) + ", " + braced(istride) + "};\n";
  w.body = "  // in, out, kernel, strides, dilations, pads (begin, end), index "
           "strides\n" +
           g + "  sc_pool<" + elemKind(t) + ", " + std::to_string(sd) + ", " +
           (isMax ? "true" : "false") + ", " + (indices ? "true" : "false") +
           ", " + (op.getCountIncludePad() ? "true" : "false") + ", " + I +
           ">(" + w.param(op.getXMutable()) + ", " +
           w.param(op.getYMutable()) + ", " + w.param(op.getIndicesMutable()) +
           ", g, " + lit(planes) + ");\n";
  w.finish(w.blockSize, w.gridSize,
           std::string(isMax ? "max" : "average") + " pool " + dimsText(xs) +
               " -> " + dimsText(ys) + ", a thread per output");
  return w.kernel;
}
