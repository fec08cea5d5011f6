//===- Scalar.cpp - type-aware scalar arithmetic for kernel bodies ---------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc::kern;

bool Scalar::isUnsigned(Type elem) {
  auto it = dyn_cast<IntegerType>(elem);
  return it && (it.isUnsigned() || it.getWidth() == 1);
}

Value Scalar::constant(Type elem, double value) {
  Type t = bodyType(elem);
  if (auto ft = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(ft, value));
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(t, static_cast<int64_t>(value)));
}

Value Scalar::add(Type elem, Value x, Value y) {
  if (isFloat(elem))
    return b.create<arith::AddFOp>(loc, x, y);
  return b.create<arith::AddIOp>(loc, x, y);
}

Value Scalar::sub(Type elem, Value x, Value y) {
  if (isFloat(elem))
    return b.create<arith::SubFOp>(loc, x, y);
  return b.create<arith::SubIOp>(loc, x, y);
}

Value Scalar::mul(Type elem, Value x, Value y) {
  if (isFloat(elem))
    return b.create<arith::MulFOp>(loc, x, y);
  return b.create<arith::MulIOp>(loc, x, y);
}

Value Scalar::div(Type elem, Value x, Value y) {
  if (isFloat(elem))
    return b.create<arith::DivFOp>(loc, x, y);
  if (isUnsigned(elem))
    return b.create<arith::DivUIOp>(loc, x, y);
  return b.create<arith::DivSIOp>(loc, x, y);
}

Value Scalar::max(Type elem, Value x, Value y) {
  if (isFloat(elem))
    return b.create<arith::MaximumFOp>(loc, x, y);
  if (isUnsigned(elem))
    return b.create<arith::MaxUIOp>(loc, x, y);
  return b.create<arith::MaxSIOp>(loc, x, y);
}

Value Scalar::min(Type elem, Value x, Value y) {
  if (isFloat(elem))
    return b.create<arith::MinimumFOp>(loc, x, y);
  if (isUnsigned(elem))
    return b.create<arith::MinUIOp>(loc, x, y);
  return b.create<arith::MinSIOp>(loc, x, y);
}

Value Scalar::cmp(Type elem, Cmp pred, Value x, Value y) {
  if (isFloat(elem)) {
    arith::CmpFPredicate p;
    switch (pred) {
    case Cmp::EQ: p = arith::CmpFPredicate::OEQ; break;
    case Cmp::LT: p = arith::CmpFPredicate::OLT; break;
    case Cmp::GT: p = arith::CmpFPredicate::OGT; break;
    case Cmp::LE: p = arith::CmpFPredicate::OLE; break;
    case Cmp::GE: p = arith::CmpFPredicate::OGE; break;
    }
    return b.create<arith::CmpFOp>(loc, p, x, y);
  }
  bool u = isUnsigned(elem);
  arith::CmpIPredicate p;
  switch (pred) {
  case Cmp::EQ: p = arith::CmpIPredicate::eq; break;
  case Cmp::LT: p = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt; break;
  case Cmp::GT: p = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt; break;
  case Cmp::LE: p = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle; break;
  case Cmp::GE: p = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge; break;
  }
  return b.create<arith::CmpIOp>(loc, p, x, y);
}

Value Scalar::select(Value c, Value x, Value y) {
  return b.create<arith::SelectOp>(loc, c, x, y);
}

Value Scalar::convert(Value x, Type from, Type to) {
  if (from == to)
    return x;
  Type target = bodyType(to);
  unsigned toWidth = target.getIntOrFloatBitWidth();
  unsigned fromWidth = bodyType(from).getIntOrFloatBitWidth();
  if (toWidth == 1 && !isFloat(to)) {
    if (isFloat(from))
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, x,
                                     constant(from, 0));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x,
                                   constant(from, 0));
  }
  if (isFloat(from) && isFloat(to)) {
    if (fromWidth == toWidth) { // f16 <-> bf16 through f32
      Value wide = b.create<arith::ExtFOp>(loc, b.getF32Type(), x);
      return b.create<arith::TruncFOp>(loc, target, wide);
    }
    if (fromWidth < toWidth)
      return b.create<arith::ExtFOp>(loc, target, x);
    return b.create<arith::TruncFOp>(loc, target, x);
  }
  if (!isFloat(from) && isFloat(to)) {
    if (isUnsigned(from))
      return b.create<arith::UIToFPOp>(loc, target, x);
    return b.create<arith::SIToFPOp>(loc, target, x);
  }
  if (isFloat(from)) {
    if (isUnsigned(to))
      return b.create<arith::FPToUIOp>(loc, target, x);
    return b.create<arith::FPToSIOp>(loc, target, x);
  }
  if (fromWidth == toWidth)
    return x;
  if (fromWidth > toWidth)
    return b.create<arith::TruncIOp>(loc, target, x);
  if (isUnsigned(from))
    return b.create<arith::ExtUIOp>(loc, target, x);
  return b.create<arith::ExtSIOp>(loc, target, x);
}
