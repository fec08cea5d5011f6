//===- LowerElementwise.cpp - elementwise graph ops to kern.map ------------===//
//
// Arithmetic, activations, comparisons, logic, where, cast, clip and the
// generators (range, constant_of_shape): one generated map each, with
// numpy broadcasting through zero strides.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

using Values = SmallVector<Value>;

/// Registers a unary op whose body is `fn(s, elem, x)`.
template <typename OpTy, typename Fn>
static void unary(LoweringTable &t, Fn fn) {
  addLowering<OpTy>(t, [fn](OpTy op, KernLowering &l) {
    Type elem = elemOf(op.getInput());
    return l.elementwise(op, {op.getInput()}, [&](Scalar &s, ValueRange a) {
      return Values{fn(op, s, elem, a[0])};
    });
  });
}

/// Registers a binary op whose body is `fn(s, elem, x, y)`; `elem` is the
/// operands' element type.
template <typename OpTy, typename Fn>
static void binary(LoweringTable &t, Fn fn) {
  addLowering<OpTy>(t, [fn](OpTy op, KernLowering &l) {
    Type elem = elemOf(op.getLhs());
    return l.elementwise(op, {op.getLhs(), op.getRhs()},
                         [&](Scalar &s, ValueRange a) {
                           return Values{fn(s, elem, a[0], a[1])};
                         });
  });
}

static Value sigmoid(Scalar &s, Type elem, Value x) {
  Value one = s.constant(elem, 1.0);
  Value e = s.b.create<math::ExpOp>(s.loc, s.b.create<arith::NegFOp>(s.loc, x));
  return s.b.create<arith::DivFOp>(s.loc, one, s.b.create<arith::AddFOp>(s.loc, one, e));
}

static Value hardSigmoid(Scalar &s, Type elem, Value x, double alpha,
                         double beta) {
  Value v = s.add(elem, s.mul(elem, x, s.constant(elem, alpha)),
                  s.constant(elem, beta));
  return s.max(elem, s.constant(elem, 0), s.min(elem, v, s.constant(elem, 1)));
}

static Value pow(Scalar &s, Type xElem, Type yElem, Value x, Value y) {
  if (Scalar::isFloat(xElem))
    return s.b.create<math::PowFOp>(s.loc, x, s.convert(y, yElem, xElem));
  // Integer base: compute in f64 and convert back (exact for the ranges
  // integer powers can hold).
  Type f64 = s.b.getF64Type();
  Value r = s.b.create<math::PowFOp>(s.loc, s.convert(x, xElem, f64),
                                     s.convert(y, yElem, f64));
  return s.convert(r, f64, xElem);
}

void shardc::kern::addElementwiseLowerings(LoweringTable &t) {
  binary<graph::AddOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.add(e, x, y); });
  binary<graph::SubOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.sub(e, x, y); });
  binary<graph::MulOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.mul(e, x, y); });
  binary<graph::DivOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.div(e, x, y); });
  binary<graph::MaxOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.max(e, x, y); });
  binary<graph::MinOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.min(e, x, y); });
  binary<graph::EqualOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.cmp(e, Scalar::Cmp::EQ, x, y); });
  binary<graph::LessOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.cmp(e, Scalar::Cmp::LT, x, y); });
  binary<graph::GreaterOp>(t, [](Scalar &s, Type e, Value x, Value y) { return s.cmp(e, Scalar::Cmp::GT, x, y); });
  binary<graph::AndOp>(t, [](Scalar &s, Type, Value x, Value y) -> Value { return s.b.create<arith::AndIOp>(s.loc, x, y); });
  binary<graph::OrOp>(t, [](Scalar &s, Type, Value x, Value y) -> Value { return s.b.create<arith::OrIOp>(s.loc, x, y); });
  addLowering<graph::PowOp>(t, [](graph::PowOp op, KernLowering &l) {
    Type xe = elemOf(op.getLhs()), ye = elemOf(op.getRhs());
    return l.elementwise(op, {op.getLhs(), op.getRhs()},
                         [&](Scalar &s, ValueRange a) {
                           return Values{pow(s, xe, ye, a[0], a[1])};
                         });
  });

#define FLOAT_UNARY(OP, MATH)                                                  \
  unary<graph::OP>(t, [](auto, Scalar &s, Type, Value x) -> Value {           \
    return s.b.create<math::MATH>(s.loc, x);                                   \
  })
  FLOAT_UNARY(SqrtOp, SqrtOp);
  FLOAT_UNARY(ExpOp, ExpOp);
  FLOAT_UNARY(LogOp, LogOp);
  FLOAT_UNARY(ErfOp, ErfOp);
  FLOAT_UNARY(CosOp, CosOp);
  FLOAT_UNARY(SinOp, SinOp);
  FLOAT_UNARY(TanhOp, TanhOp);
  FLOAT_UNARY(FloorOp, FloorOp);
  FLOAT_UNARY(CeilOp, CeilOp);
  FLOAT_UNARY(RoundOp, RoundEvenOp);
#undef FLOAT_UNARY
  unary<graph::ReciprocalOp>(t, [](auto, Scalar &s, Type e, Value x) {
    return s.div(e, s.constant(e, 1.0), x);
  });
  unary<graph::SigmoidOp>(t, [](auto, Scalar &s, Type e, Value x) {
    return sigmoid(s, e, x);
  });
  unary<graph::ReluOp>(t, [](auto, Scalar &s, Type e, Value x) {
    return s.max(e, x, s.constant(e, 0));
  });
  unary<graph::HardSwishOp>(t, [](auto, Scalar &s, Type e, Value x) {
    return s.mul(e, x, hardSigmoid(s, e, x, 1.0 / 6.0, 0.5));
  });
  unary<graph::HardSigmoidOp>(t, [](graph::HardSigmoidOp op, Scalar &s, Type e, Value x) {
    return hardSigmoid(s, e, x, op.getAlpha().convertToDouble(),
                       op.getBeta().convertToDouble());
  });
  unary<graph::LeakyReluOp>(t, [](graph::LeakyReluOp op, Scalar &s, Type e, Value x) {
    Value zero = s.constant(e, 0);
    Value scaled = s.mul(e, x, s.constant(e, op.getAlpha().convertToDouble()));
    return s.select(s.cmp(e, Scalar::Cmp::GE, x, zero), x, scaled);
  });
  unary<graph::NegOp>(t, [](auto, Scalar &s, Type e, Value x) -> Value {
    if (Scalar::isFloat(e))
      return s.b.create<arith::NegFOp>(s.loc, x);
    return s.sub(e, s.constant(e, 0), x);
  });
  unary<graph::AbsOp>(t, [](auto, Scalar &s, Type e, Value x) -> Value {
    if (Scalar::isFloat(e))
      return s.b.create<math::AbsFOp>(s.loc, x);
    if (Scalar::isUnsigned(e))
      return x;
    return s.b.create<math::AbsIOp>(s.loc, x);
  });
  unary<graph::NotOp>(t, [](auto, Scalar &s, Type e, Value x) -> Value {
    return s.b.create<arith::XOrIOp>(s.loc, x, s.constant(e, 1));
  });
  unary<graph::ClipOp>(t, [](graph::ClipOp op, Scalar &s, Type e, Value x) {
    // A missing bound is the type's lowest / largest finite value (ONNX's
    // default, and ONNX Runtime's: Clip(+Inf, min=0) is FLT_MAX). The
    // bounds are NaN-propagating maxima (a NaN x stays NaN).
    std::optional<double> lo, hi;
    if (auto v = op.getMin())
      lo = v->convertToDouble();
    if (auto v = op.getMax())
      hi = v->convertToDouble();
    if (auto ft = dyn_cast<FloatType>(e)) {
      double largest =
          llvm::APFloat::getLargest(ft.getFloatSemantics()).convertToDouble();
      if (!lo)
        lo = -largest;
      if (!hi)
        hi = largest;
    }
    if (lo)
      x = s.max(e, x, s.constant(e, *lo));
    if (hi)
      x = s.min(e, x, s.constant(e, *hi));
    return x;
  });
  addLowering<graph::IdentityOp>(t, [](graph::IdentityOp op, KernLowering &l) {
    l.alias(op.getOutput(), l.get(op.getInput()));
    return success();
  });
  addLowering<graph::WhereOp>(t, [](graph::WhereOp op, KernLowering &l) {
    return l.elementwise(op, {op.getCondition(), op.getX(), op.getY()},
                         [&](Scalar &s, ValueRange a) {
                           return Values{s.select(a[0], a[1], a[2])};
                         });
  });
  addLowering<graph::CastOp>(t, [](graph::CastOp op, KernLowering &l) {
    Type from = elemOf(op.getInput()), to = elemOf(op.getOutput());
    return l.elementwise(op, {op.getInput()}, [&](Scalar &s, ValueRange a) {
      return Values{s.convert(a[0], from, to)};
    });
  });
  addLowering<graph::RangeOp>(t, [](graph::RangeOp op, KernLowering &l) {
    Type elem = elemOf(op.getOutput());
    double start = op.getStart().convertToDouble();
    double delta = op.getDelta().convertToDouble();
    Value out = l.result(op.getOutput());
    l.map(op.getLoc(), shapeOf(op.getOutput()), {}, {KernLowering::dense(out)},
          [&](Scalar &s, ValueRange) {
            Value i = s.b.create<IndexOp>(s.loc, s.b.getI64Type(), s.b.getI64IntegerAttr(0));
            Type f64 = s.b.getF64Type();
            Value fi = s.b.create<arith::SIToFPOp>(s.loc, f64, i);
            Value v = s.add(f64, s.constant(f64, start),
                            s.mul(f64, fi, s.constant(f64, delta)));
            return Values{s.convert(v, f64, elem)};
          });
    return success();
  });
  addLowering<graph::ConstantOfShapeOp>(t, [](graph::ConstantOfShapeOp op, KernLowering &l) {
    auto value = cast<DenseElementsAttr>(op.getValue());
    TypedAttr v = value.getSplatValue<TypedAttr>();
    Value out = l.result(op.getOutput());
    l.map(op.getLoc(), graph::dimsOf(op.getOutput()), {},
          {KernLowering::dense(out)}, [&](Scalar &s, ValueRange) {
            Type t = bodyType(v.getType());
            Attribute attr = v;
            if (auto ia = dyn_cast<IntegerAttr>(attr))
              attr = IntegerAttr::get(t, ia.getValue());
            return Values{s.b.create<arith::ConstantOp>(s.loc, cast<TypedAttr>(attr))};
          });
    return success();
  });
}
