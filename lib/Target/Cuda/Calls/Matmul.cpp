//===- Matmul.cpp - kern.matmul_ref, matmul_integer, qlinear_matmul --------===//
//
// Prelude matmul.cuh: 16x16 output tiles per block over numpy-broadcast
// batches (the shapes from kern::matmulShape); zero points and scales are
// indexed per their sc_per_index mode (kern::perIndexMode).
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;
using kern::MatmulShape;
using target::storageCType;

static MatmulShape shapes(Value a, Value b, Value y) {
  std::string why;
  return *kern::matmulShape(shape(a), shape(b), shape(y), why);
}

static std::string mmGeom(const MatmulShape &s) {
  return "  // per batch dim: size, a's and b's matrix strides\n"
         "  const sc_mm_geom<" +
         std::to_string(s.batchDims.size()) + "> g = {" +
         braced(s.batchDims) + ", " + braced(s.aStrides) + ", " +
         braced(s.bStrides) + "};\n";
}

static std::string mmDims(const MatmulShape &s) {
  return lit(s.batch) + ", " + lit(s.M) + ", " + lit(s.K) + ", " + lit(s.N);
}

static int64_t mmGrid(const MatmulShape &s) {
  return std::min(s.batch * ceilDiv(s.M, 16) * ceilDiv(s.N, 16), kMaxGrid);
}

/// The sc_per_index mode of zero point or scale `v`.
static std::string mode(Value v, int64_t per, int64_t matrices) {
  return std::to_string(*kern::perIndexMode(product(shape(v)), per, matrices));
}

FailureOr<Kernel> calls::matmulRef(kern::MatmulRefOp op, StringRef name) {
  CallWriter w(op, name);
  Value a = op.getA(), b = op.getB();
  MatmulShape s = shapes(a, b, op.getY());
  w.body = mmGeom(s) + "  sc_matmul_ref<" + elemKind(elem(a)) + ", " +
           std::to_string(s.batchDims.size()) + ">(" +
           w.param(op.getAMutable()) + ", " + w.param(op.getBMutable()) +
           ", " + w.param(op.getYMutable()) + ", g, " + mmDims(s) + ");\n";
  w.finish(256, mmGrid(s),
           "matmul " + dimsText(shape(a)) + " x " + dimsText(shape(b)) +
               ", 16x16 tiles");
  return w.kernel;
}

FailureOr<Kernel> calls::matmulInteger(kern::MatmulIntegerOp op,
                                       StringRef name) {
  CallWriter w(op, name);
  Value a = op.getA(), b = op.getB(), az = op.getAZeroPoint(),
        bz = op.getBZeroPoint();
  MatmulShape s = shapes(a, b, op.getY());
  auto ty = [&](Value v) { return storageCType(elem(v)); };
  w.body = mmGeom(s) + "  sc_matmul_integer<" + ty(a) + ", " + ty(az) + ", " +
           mode(az, s.M, s.aBatches) + ", " + ty(b) + ", " + ty(bz) + ", " +
           mode(bz, s.N, s.bBatches) + ", " +
           std::to_string(s.batchDims.size()) + ">(" +
           w.param(op.getAMutable()) + ", " + w.param(op.getBMutable()) +
           ", " + w.param(op.getAZeroPointMutable()) + ", " +
           w.param(op.getBZeroPointMutable()) + ", " +
           w.param(op.getYMutable()) + ", g, " + mmDims(s) + ");\n";
  w.finish(256, mmGrid(s),
           "integer matmul " + dimsText(shape(a)) + " x " +
               dimsText(shape(b)) + ", 16x16 tiles");
  return w.kernel;
}

FailureOr<Kernel> calls::qlinearMatmul(kern::QLinearMatmulOp op,
                                       StringRef name) {
  CallWriter w(op, name);
  Value a = op.getA(), as = op.getAScale(), az = op.getAZeroPoint(),
        b = op.getB(), bs = op.getBScale(), bz = op.getBZeroPoint(),
        ys = op.getYScale(), yz = op.getYZeroPoint(), y = op.getY();
  MatmulShape s = shapes(a, b, y);
  auto ty = [&](Value v) { return storageCType(elem(v)); };
  std::string params;
  for (OpOperand &o : op->getOpOperands())
    params += (params.empty() ? "" : ", ") + w.param(o);
  w.body = mmGeom(s) + "  sc_qlinear_matmul<" + ty(a) + ", " + ty(az) + ", " +
           mode(az, s.M, s.aBatches) + ", " + elemKind(elem(as)) + ", " +
           mode(as, s.M, s.aBatches) + ", " + ty(b) + ", " + ty(bz) + ", " +
           mode(bz, s.N, s.bBatches) + ", " + elemKind(elem(bs)) + ", " +
           mode(bs, s.N, s.bBatches) + ", " + elemKind(elem(ys)) + ", " +
           mode(ys, s.M, s.batch) + ", " + ty(y) + ", " +
           mode(yz, s.M, s.batch) + ", " +
           std::to_string(s.batchDims.size()) + ">(" + params + ", g, " +
           mmDims(s) + ");\n";
  w.finish(256, mmGrid(s),
           "quantized matmul " + dimsText(shape(a)) + " x " +
               dimsText(shape(b)) + ", 16x16 tiles");
  return w.kernel;
}
