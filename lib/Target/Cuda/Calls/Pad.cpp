//===- Pad.cpp - kern.pad on CUDA (prelude pad.cuh) ------------------------===//
//
// A thread per output element maps it back to the element of x it copies
// (or to the constant): per dim, the pads before, the crops before and the
// lengths kept.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;

FailureOr<Kernel> calls::pad(kern::PadOp op, StringRef name) {
  CallWriter w(op, name);
  Type t = elem(op.getX());
  int64_t mode = op.getModeCode();
  ArrayRef<int64_t> xs = shape(op.getX()), ys = shape(op.getY());
  int64_t rank = xs.size();
  std::string word = wordType(elemBytes(t));
  std::string xp = "reinterpret_cast<const " + word + " *>(" +
                   w.param(op.getXMutable()) + ")";
  std::string yp =
      "reinterpret_cast<" + word + " *>(" + w.param(op.getYMutable()) + ")";
  if (rank == 0) {
    w.body = "  if (blockIdx.x == 0 && threadIdx.x == 0)\n    " + yp +
             "[0] = " + xp + "[0];\n";
    w.finish(32, 1, "pad of a scalar (a copy)");
    return w.kernel;
  }
  ArrayRef<int64_t> pads = op.getPads();
  int64_t total = product(ys);
  SmallVector<int64_t> xstride(rank), padB(rank), cropB(rank), len(rank);
  for (int64_t d = rank - 1, s = 1; d >= 0; --d) {
    xstride[d] = s;
    s *= xs[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    int64_t pb = pads[d], pe = pads[rank + d];
    cropB[d] = pb < 0 ? -pb : 0;
    int64_t cropE = pe < 0 ? -pe : 0;
    len[d] = xs[d] - cropB[d] - cropE;
    padB[d] = pb > 0 ? pb : 0;
  }
  static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
  std::string what =
      std::string(modes[mode]) + " pad " + dimsText(xs) + " -> " + dimsText(ys);
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  w.launchOver(total);
  w.body =
      "  // output dims, x strides, pads before, crops before, kept lengths\n"
      "  const sc_pad_geom<" +
      std::to_string(rank) + "> g = {" + braced(ys) + ", " + braced(xstride) +
      ", " + braced(padB) + ", " + braced(cropB) + ", " + braced(len) + "};\n" +
      "  sc_pad<" + word + ", " + std::to_string(rank) + ", " +
      std::to_string(mode) + ", " + indexType(std::max(total, product(xs))) +
      ">(" + xp + ", " + yp + ", " +
      (op.getValue() && mode == 0
           ? "reinterpret_cast<const " + word + " *>(" +
                 w.param(op.getValueMutable()) + ")"
           : std::string("nullptr")) +
      ", g, " + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize, what);
  return w.kernel;
}
