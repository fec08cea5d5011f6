//===- LowerFused.cpp - activations and norms the fusion passes create -----===//
//
// gelu, silu and swiglu become generated maps; rms_norm a mean-of-squares
// reduction into an fp32 buffer and a map. Bodies compute in f32 for
// fp16 / bf16 (one rounding at the store, not one per step as the
// decomposed graph had) and in the element type otherwise.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <cmath>

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

using Values = SmallVector<Value>;

Type shardc::kern::computeType(Type elem) {
  if (elem.isF16() || elem.isBF16())
    return Float32Type::get(elem.getContext());
  return elem;
}

// Every body value below is built in its own statement: the order of
// function arguments is unspecified, and the printed bodies should not
// depend on the compiler.

static Value sigmoid(Scalar &s, Type t, Value x) {
  Value e = s.b.create<math::ExpOp>(s.loc, s.b.create<arith::NegFOp>(s.loc, x));
  Value one = s.constant(t, 1.0);
  return s.div(t, one, s.add(t, one, e));
}

Value shardc::kern::swiglu(Scalar &s, Type t, Value gate, Value up) {
  return s.mul(t, s.mul(t, gate, sigmoid(s, t, gate)), up);
}

/// 0.5 * x * (1 + erf(x / sqrt(2))), or with tanh(sqrt(2/pi) * (x +
/// 0.044715 x^3)).
static Value gelu(Scalar &s, Type t, Value x, bool tanh) {
  Value inner;
  if (tanh) {
    Value cube = s.mul(t, x, s.mul(t, x, x));
    Value arg = s.add(t, x, s.mul(t, s.constant(t, 0.044715), cube));
    inner = s.b.create<math::TanhOp>(
        s.loc, s.mul(t, s.constant(t, std::sqrt(2.0 / M_PI)), arg));
  } else {
    inner = s.b.create<math::ErfOp>(s.loc,
                                    s.mul(t, x, s.constant(t, M_SQRT1_2)));
  }
  Value half = s.mul(t, x, s.constant(t, 0.5));
  return s.mul(t, half, s.add(t, s.constant(t, 1.0), inner));
}

/// Registers an elementwise op whose body is `fn(s, t, args)` on arguments
/// converted to the compute type `t`.
template <typename OpTy, typename Fn>
static void computed(LoweringTable &table, Fn fn) {
  addLowering<OpTy>(table, [fn](OpTy op, KernLowering &l) {
    Type elem = elemOf(op->getResult(0));
    if (!Scalar::isFloat(elem))
      return l.fail(op, "needs a floating-point input");
    Type t = computeType(elem);
    return l.elementwise(op, op->getOperands(), [&](Scalar &s, ValueRange a) {
      Values wide;
      for (Value v : a)
        wide.push_back(s.convert(v, elem, t));
      return Values{s.convert(fn(op, s, t, wide), t, elem)};
    });
  });
}

/// ms = mean(x^2) over [axis, rank) into an fp32 buffer with those dims
/// kept as 1, then y = x * (1 / sqrt(ms + eps)) * scale.
static LogicalResult lowerRmsNorm(graph::RmsNormOp op, KernLowering &l) {
  Location loc = op.getLoc();
  Value x = op.getInput();
  SymShape space = graph::dimsOf(x);
  ArrayRef<int64_t> shape = space.bound;
  Type elem = elemOf(x);
  Type t = computeType(elem);
  if (!Scalar::isFloat(elem))
    return l.fail(op, "needs a floating-point input");
  int64_t axis = op.getAxis(), rank = shape.size();
  double eps = op.getEpsilon().convertToDouble();

  SymShape kept = space;
  SmallVector<int64_t> dims;
  for (int64_t d = axis; d < rank; ++d) {
    kept.bound[d] = 1;
    kept.sym[d] = sym::Expr(1);
    dims.push_back(d);
  }
  Value xBuf = l.get(x);
  Value ms = l.alloc(loc, kept, t);
  SmallVector<sym::Expr> msStrides = KernLowering::strides(kept.sym);
  for (int64_t d : dims)
    msStrides[d] = sym::Expr(0);
  Access msOut = l.access(ms, 0, msStrides);
  l.reduce(loc, "mean", space, dims, {KernLowering::dense(xBuf)}, msOut,
           [&](Scalar &s, ValueRange a) {
             Value v = s.convert(a[0], elem, t);
             return Values{s.mul(t, v, v)};
           });

  // A splat scale is a body constant, and no multiply when it is one (the
  // ones the fusion pass creates when the export had no weight).
  std::optional<TypedAttr> splatScale = l.splat(op.getScale());
  SmallVector<Access> ins{KernLowering::dense(xBuf),
                          KernLowering::broadcast(ms, shape)};
  if (!splatScale)
    ins.push_back(KernLowering::broadcast(l.get(op.getScale()), shape));
  Value out = l.result(op.getOutput());
  l.map(loc, space, ins, {KernLowering::dense(out)},
        [&](Scalar &s, ValueRange a) {
          Value one = s.constant(t, 1.0);
          Value sum = s.add(t, a[1], s.constant(t, eps));
          Value inv = s.div(t, one, s.b.create<math::SqrtOp>(s.loc, sum));
          Value y = s.mul(t, s.convert(a[0], elem, t), inv);
          if (!splatScale) {
            y = s.mul(t, y, s.convert(a[2], elem, t));
          } else if (double w =
                         cast<FloatAttr>(*splatScale).getValueAsDouble();
                     w != 1.0) {
            y = s.mul(t, y, s.constant(t, w));
          }
          return Values{s.convert(y, t, elem)};
        });
  return success();
}

void shardc::kern::addFusedLowerings(LoweringTable &t) {
  computed<graph::GeluOp>(t, [](graph::GeluOp op, Scalar &s, Type ct,
                                ValueRange a) {
    return gelu(s, ct, a[0], op.getApproximate() == "tanh");
  });
  computed<graph::SiluOp>(t, [](auto, Scalar &s, Type ct, ValueRange a) {
    return s.mul(ct, a[0], sigmoid(s, ct, a[0]));
  });
  computed<graph::SwigluOp>(t, [](auto, Scalar &s, Type ct, ValueRange a) {
    return swiglu(s, ct, a[0], a[1]);
  });
  addLowering<graph::RmsNormOp>(t, lowerRmsNorm);
}
