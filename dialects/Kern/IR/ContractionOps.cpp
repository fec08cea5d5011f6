//===- ContractionOps.cpp - kern.matmul_ref, matmul_integer, ... ----------===//
//
// Verifiers and C arguments of the runtime's products
// (runtime/include/shardc/cpu.h: sc_matmul_ref, sc_matmul_integer,
// sc_qlinear_matmul, sc_einsum), and the numpy matmul shapes they share
// with the CUDA target.
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/IR/RuntimeOps.h"

using namespace mlir;
using namespace shardc::kern;
using namespace shardc::kern::runtime;

FailureOr<MatmulShape> shardc::kern::matmulShape(ArrayRef<int64_t> a,
                                                 ArrayRef<int64_t> b,
                                                 ArrayRef<int64_t> y,
                                                 std::string &why) {
  auto fail = [&](const Twine &msg) {
    why = msg.str();
    return failure();
  };
  if (a.empty() || b.empty())
    return fail("operands of rank " + Twine(a.size()) + " and " +
                Twine(b.size()));
  MatmulShape s;
  int64_t ka = a.back(), kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  s.M = a.size() == 1 ? 1 : a[a.size() - 2];
  s.N = b.size() == 1 ? 1 : b.back();
  if (ka != kb)
    return fail("inner dimensions " + Twine(ka) + " and " + Twine(kb) +
                " differ");
  s.K = ka;
  int ra = std::max<int>(a.size() - 2, 0), rb = std::max<int>(b.size() - 2, 0);
  int rr = std::max(ra, rb);
  SmallVector<int64_t> ad(rr, 1), bd(rr, 1);
  for (int i = 0; i < ra; ++i)
    ad[rr - ra + i] = a[i];
  for (int i = 0; i < rb; ++i)
    bd[rr - rb + i] = b[i];
  s.batchDims.assign(rr, 0);
  for (int i = 0; i < rr; ++i) {
    if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1)
      return fail("batch dimensions " + Twine(ad[i]) + " and " +
                  Twine(bd[i]) + " do not broadcast");
    s.batchDims[i] = ad[i] == 0 || bd[i] == 0 ? 0 : std::max(ad[i], bd[i]);
    s.batch *= s.batchDims[i];
    s.aBatches *= ad[i];
    s.bBatches *= bd[i];
  }
  if (product(y) != s.batch * s.M * s.N)
    return fail("the output has " + Twine(product(y)) +
                " elements, expected " + Twine(s.batch * s.M * s.N));
  s.aStrides.assign(rr, 0);
  s.bStrides.assign(rr, 0);
  for (int64_t i = rr - 1, as = 1, bs = 1; i >= 0; --i) {
    s.aStrides[i] = ad[i] == 1 ? 0 : as;
    s.bStrides[i] = bd[i] == 1 ? 0 : bs;
    as *= ad[i];
    bs *= bd[i];
  }
  return s;
}

std::optional<int> shardc::kern::perIndexMode(int64_t numElements, int64_t per,
                                              int64_t matrices) {
  if (numElements == 1)
    return 1;
  if (numElements == per)
    return 2;
  if (numElements == per * matrices)
    return 3;
  return std::nullopt;
}

/// The shapes of a x b into y, or a diagnostic.
static FailureOr<MatmulShape> verifyShapes(Operation *op, Value a, Value b,
                                           Value y) {
  std::string why;
  FailureOr<MatmulShape> s =
      matmulShape(bufferType(a).getShape(), bufferType(b).getShape(),
                  bufferType(y).getShape(), why);
  if (failed(s))
    return op->emitOpError("shapes do not multiply: ") << why;
  return s;
}

/// A zero point or scale `v` of a matmul operand (`per` rows or columns,
/// `matrices` matrices) indexes it one of the three ways.
static LogicalResult verifyPerIndex(Operation *op, Value v, StringRef what,
                                    int64_t per, int64_t matrices) {
  int64_t n = bufferType(v).getNumElements();
  if (!perIndexMode(n, per, matrices))
    return op->emitOpError(what) << " has " << n << " elements, expected 1, "
                                 << per << " or " << per * matrices;
  return success();
}

//===----------------------------------------------------------------------===//
// kern.matmul_ref
//===----------------------------------------------------------------------===//

LogicalResult MatmulRefOp::verify() {
  Type t = elementOf(getA());
  if (t.isInteger(1) || elementOf(getB()) != t || elementOf(getY()) != t)
    return emitOpError("a, b and y need one numeric element type");
  return verifyShapes(*this, getA(), getB(), getY());
}

StringRef MatmulRefOp::getRuntimeCallee() { return "sc_matmul_ref"; }

// sc_matmul_ref(a desc, a, b desc, b, y desc, y)
void MatmulRefOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  for (Value v : {getA(), getB(), getY()})
    args.append({RuntimeArg::desc(v), RuntimeArg::ptr(v)});
}

//===----------------------------------------------------------------------===//
// kern.matmul_integer
//===----------------------------------------------------------------------===//

LogicalResult MatmulIntegerOp::verify() {
  for (Value v : {getA(), getB(), getAZeroPoint(), getBZeroPoint()})
    if (!isInt8(elementOf(v)))
      return emitOpError("a, b and their zero points need 8-bit integers, "
                         "not ")
             << v.getType();
  if (!isSignedInt(elementOf(getY()), 32))
    return emitOpError("y must hold i32, not ") << elementOf(getY());
  FailureOr<MatmulShape> s = verifyShapes(*this, getA(), getB(), getY());
  if (failed(s) ||
      failed(verifyPerIndex(*this, getAZeroPoint(), "a_zero_point", s->M,
                            s->aBatches)) ||
      failed(verifyPerIndex(*this, getBZeroPoint(), "b_zero_point", s->N,
                            s->bBatches)))
    return failure();
  return success();
}

StringRef MatmulIntegerOp::getRuntimeCallee() { return "sc_matmul_integer"; }

// sc_matmul_integer(a desc, a, b desc, b, azp desc, azp, bzp desc, bzp,
//                   y desc, y)
void MatmulIntegerOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  for (Value v : {getA(), getB(), getAZeroPoint(), getBZeroPoint(), getY()})
    args.append({RuntimeArg::desc(v), RuntimeArg::ptr(v)});
}

//===----------------------------------------------------------------------===//
// kern.qlinear_matmul
//===----------------------------------------------------------------------===//

LogicalResult QLinearMatmulOp::verify() {
  for (Value v : {getA(), getAZeroPoint(), getB(), getBZeroPoint(), getY()})
    if (!isInt8(elementOf(v)))
      return emitOpError("a, b, y and the zero points need 8-bit integers, "
                         "not ")
             << v.getType();
  if (elementOf(getYZeroPoint()) != elementOf(getY()))
    return emitOpError("y_zero_point needs y's element type");
  for (Value v : {getAScale(), getBScale(), getYScale()})
    if (!isRuntimeFloat(elementOf(v)))
      return emitOpError("scales need f32, f64, f16 or bf16, not ")
             << v.getType();
  FailureOr<MatmulShape> s = verifyShapes(*this, getA(), getB(), getY());
  if (failed(s))
    return failure();
  struct Param {
    Value v;
    StringRef what;
    int64_t per, matrices;
  } params[] = {{getAScale(), "a_scale", s->M, s->aBatches},
                {getAZeroPoint(), "a_zero_point", s->M, s->aBatches},
                {getBScale(), "b_scale", s->N, s->bBatches},
                {getBZeroPoint(), "b_zero_point", s->N, s->bBatches},
                {getYScale(), "y_scale", s->M, s->batch},
                {getYZeroPoint(), "y_zero_point", s->M, s->batch}};
  for (const Param &p : params)
    if (failed(verifyPerIndex(*this, p.v, p.what, p.per, p.matrices)))
      return failure();
  return success();
}

StringRef QLinearMatmulOp::getRuntimeCallee() { return "sc_qlinear_matmul"; }

// sc_qlinear_matmul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp, y),
// each as (desc, pointer)
void QLinearMatmulOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  for (Value v : getOperands())
    args.append({RuntimeArg::desc(v), RuntimeArg::ptr(v)});
}

//===----------------------------------------------------------------------===//
// kern.einsum
//===----------------------------------------------------------------------===//

LogicalResult EinsumOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  Type t = elementOf(getY());
  if (t.isInteger(1))
    return emitOpError("needs numeric elements, not i1");
  for (Value in : getInputs())
    if (elementOf(in) != t)
      return emitOpError("inputs and y need one element type, not ")
             << in.getType() << " and " << getY().getType();
  StringRef lhs = getEquation().split("->").first;
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != getInputs().size())
    return emitOpError("equation '")
           << getEquation() << "' has " << terms.size() << " terms for "
           << getInputs().size() << " inputs";
  for (auto [i, term, in] : llvm::enumerate(terms, getInputs())) {
    // One letter per dim; an ellipsis takes the rest.
    int64_t letters = llvm::count_if(term, llvm::isAlpha);
    int64_t rank = bufferType(in).getRank();
    if (term.contains("...") ? rank < letters : rank != letters)
      return emitOpError("term '") << term.trim() << "' does not fit input #"
                                   << i << " of rank " << rank;
  }
  return success();
}

StringRef EinsumOp::getRuntimeCallee() { return "sc_einsum"; }

// sc_einsum(equation, n, input descs[], input pointers[], y desc, y)
void EinsumOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::string(getEquation()),
               RuntimeArg::i32(getInputs().size()),
               RuntimeArg::descs(getInputs()), RuntimeArg::ptrs(getInputs()),
               RuntimeArg::desc(getY()), RuntimeArg::ptr(getY())});
}
