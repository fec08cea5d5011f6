//===- LowerLinalg.cpp - products, normalization, reductions ---------------===//
//
// MatMul, Gemm and the fused Linear (bias, activation and residual as the
// GEMM's epilogue) become kern.matmul for fp32; fp16/bf16 too when the
// target multiplies them natively (CUDA: `half-gemm`), else they go through
// fp32 copies (oneDNN on the CPU); other dtypes use the runtime's reference
// kernel. Softmax and LayerNorm call the runtime; BatchNorm is a generated
// map; reductions are generated kern.reduce kernels.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

using Values = SmallVector<Value>;

static void matmul(KernLowering &l, Location loc, Value a, Value b, Value bias,
                   Value y, bool transA = false, bool transB = false,
                   float alpha = 1, float beta = 0, Value residual = {},
                   StringRef epilogue = "none") {
  l.b.create<MatmulOp>(loc, a, b, bias, residual, y, l.b.getBoolAttr(transA),
                       l.b.getBoolAttr(transB), l.b.getF32FloatAttr(alpha),
                       l.b.getF32FloatAttr(beta),
                       l.b.getStringAttr(epilogue));
}

static bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

/// Whether a GEMM of `elem` multiplies fp32 copies: fp16 without native half
/// GEMMs (oneDNN 2.6 has no fp16 matmul on the CPU). bf16 stays narrow on
/// both targets: cuBLASLt, and oneDNN's bf16 matmul (AMX or AVX-512 BF16
/// where the CPU has them), accumulating in fp32 and rounding once, as the
/// widened product did.
static bool widensGemm(Type elem, bool halfGemm) {
  return elem.isF16() && !halfGemm;
}

/// numpy MatMul shapes at equal ranks (>= 2): ONNX's 1-D rules (a 1-D lhs
/// is a [1,K] row, a 1-D rhs a [K,1] column), then leading 1s; `y` gets the
/// product's shape at that rank. Batch dims broadcast where one is a static
/// 1 (the graph's inference made dynamic ones equal).
static void equalRankShapes(const SymShape &lhs, const SymShape &rhs,
                            SymShape &a, SymShape &b, SymShape &y) {
  a = lhs;
  b = rhs;
  auto one = [](SymShape &s, size_t at) {
    s.bound.insert(s.bound.begin() + at, 1);
    s.sym.insert(s.sym.begin() + at, sym::Expr(1));
  };
  if (a.size() == 1)
    one(a, 0);
  if (b.size() == 1)
    one(b, 1);
  size_t r = std::max(a.size(), b.size());
  while (a.size() < r)
    one(a, 0);
  while (b.size() < r)
    one(b, 0);
  y = SymShape();
  for (size_t d = 0; d + 2 < r; ++d)
    y.push_back(a.sym[d] == sym::Expr(1) ? b : a, d);
  y.push_back(a, r - 2);
  y.push_back(b, r - 1);
}

/// A numpy matmul of graph values `lhs` x `rhs` into `out` (the result's
/// buffer), with an optional row `bias` and `residual` (graph values) and an
/// epilogue: one kern.matmul on views of equal rank. fp16/bf16 without
/// native half GEMMs multiply fp32 copies (bias and residual widened too)
/// and narrow the product into `out`.
static void lowerProduct(KernLowering &l, Location loc, Value lhs, Value rhs,
                         Value bias, Value residual, StringRef epilogue,
                         Value out) {
  Type elem = elemOf(lhs);
  SymShape a, b, y;
  equalRankShapes(graph::dimsOf(lhs), graph::dimsOf(rhs), a, b, y);
  Value av = l.view(loc, l.get(lhs), a);
  Value bv = l.view(loc, l.get(rhs), b);
  Value yv = l.view(loc, out, y);
  Value biasv, resv;
  if (bias) {
    SmallVector<int64_t> row(y.size(), 1);
    row.back() = y.bound.back();
    biasv = l.view(loc, l.get(bias), row);
  }
  if (residual)
    resv = l.view(loc, l.get(residual), y);
  if (widensGemm(elem, l.halfGemm)) {
    Type f32 = l.b.getF32Type();
    auto widened = [&](Value v) {
      return v ? l.converted(loc, v, f32) : Value();
    };
    Value y32 = l.alloc(loc, y, f32);
    Value a32 = widened(av), b32 = widened(bv);
    Value bias32 = widened(biasv), res32 = widened(resv);
    matmul(l, loc, a32, b32, bias32, y32, false, false, 1, 0, res32, epilogue);
    l.map(loc, y, {KernLowering::dense(y32)}, {KernLowering::dense(yv)},
          [&](Scalar &s, ValueRange v) {
            return Values{s.convert(v[0], f32, elem)};
          });
    return;
  }
  matmul(l, loc, av, bv, biasv, yv, false, false, 1, 0, resv, epilogue);
}

static LogicalResult lowerMatMul(graph::MatMulOp op, KernLowering &l) {
  Location loc = op.getLoc();
  Type elem = elemOf(op.getOutput());
  Value out = l.result(op.getOutput());
  if (!elem.isF32() && !isHalf(elem)) {
    Value a = l.get(op.getLhs()), b = l.get(op.getRhs());
    l.b.create<MatmulRefOp>(loc, a, b, out);
    return success();
  }
  lowerProduct(l, loc, op.getLhs(), op.getRhs(), Value(), Value(), "none",
               out);
  return success();
}

/// graph.linear: one kern.matmul whose epilogue is the op's bias,
/// activation and residual.
static LogicalResult lowerLinear(graph::LinearOp op, KernLowering &l) {
  Type elem = elemOf(op.getOutput());
  if (!elem.isF32() && !isHalf(elem))
    return l.fail(op, "a fused linear runs in float32, float16 or bfloat16 "
                      "only (got " +
                          graph::typeStr(op.getOutput().getType()) + ")");
  if (op.getBias() &&
      (shapeOf(op.getA()).size() < 2 || shapeOf(op.getB()).size() < 2))
    return l.fail(op, "a bias needs operands of rank 2 or more");
  lowerProduct(l, op.getLoc(), op.getA(), op.getB(), op.getBias(),
               op.getResidual(), op.getActivation(),
               l.result(op.getOutput()));
  return success();
}

/// graph.linear_int8: one kern.matmul_int8 on views of a's rank (b, the
/// bias as rows of 1).
static LogicalResult lowerLinearInt8(graph::LinearInt8Op op, KernLowering &l) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> y = shapeOf(op.getOutput());
  size_t r = y.size();
  SmallVector<int64_t> b(r - 2, 1), row(r - 1, 1);
  llvm::append_range(b, shapeOf(op.getB()));
  row.push_back(y.back());
  Value bias = op.getBias() ? l.view(loc, l.get(op.getBias()), row) : Value();
  Value residual = op.getResidual() ? l.get(op.getResidual()) : Value();
  l.b.create<MatmulInt8Op>(loc, l.get(op.getA()),
                           l.view(loc, l.get(op.getB()), b),
                           op.getAScale() ? l.get(op.getAScale()) : Value(),
                           l.get(op.getBScale()), bias,
                           residual, l.result(op.getOutput()),
                           l.b.getStringAttr(op.getActivation()));
  return success();
}

static LogicalResult lowerGemm(graph::GemmOp op, KernLowering &l) {
  Location loc = op.getLoc();
  Type elem = elemOf(op.getOutput());
  if (!elem.isF32() && !isHalf(elem))
    return l.fail(op, "Gemm runs in float32, float16 or bfloat16 only (got " +
                          graph::typeStr(op.getOutput().getType()) + ")");
  SymShape ys = graph::dimsOf(op.getOutput());
  ArrayRef<int64_t> y = ys.bound;
  Value out = l.result(op.getOutput());
  // Without native half GEMMs: the product in fp32, converted at the end.
  bool widen = widensGemm(elem, l.halfGemm);
  Type f32 = l.b.getF32Type();
  Type t = widen ? f32 : elem;
  Value y32 = widen ? l.alloc(loc, ys, f32) : out;
  auto operand = [&](Value v) {
    return widen ? l.converted(loc, l.get(v), f32) : l.get(v);
  };
  float alpha = op.getAlpha().convertToFloat();
  float beta = op.getBeta().convertToFloat();
  Value bias;
  float accumulate = 0;
  if (Value c = op.getC(); c && beta != 0) {
    ArrayRef<int64_t> cs = shapeOf(c);
    bool rowBias = (cs.size() == 1 && cs[0] == y[1]) ||
                   (cs.size() == 2 && cs[0] == 1 && cs[1] == y[1]);
    if (beta == 1 && rowBias) {
      bias = l.view(loc, operand(c), {1, y[1]});
    } else {
      // y = beta * C (broadcast), then the product accumulates onto it.
      Access ca = KernLowering::broadcast(l.get(c), y);
      l.map(loc, ys, {ca}, {KernLowering::dense(y32)},
            [&](Scalar &s, ValueRange a) {
              Value v = s.convert(a[0], elem, t);
              return Values{s.mul(t, v, s.constant(t, beta))};
            });
      accumulate = 1;
    }
  }
  matmul(l, loc, operand(op.getA()), operand(op.getB()), bias, y32,
         op.getTransA(), op.getTransB(), alpha, accumulate);
  if (widen)
    l.map(loc, ys, {KernLowering::dense(y32)}, {KernLowering::dense(out)},
          [&](Scalar &s, ValueRange v) {
            return Values{s.convert(v[0], f32, elem)};
          });
  return success();
}

/// A buffer of `shape` holding `v` broadcast (no copy if already so).
static Value expanded(KernLowering &l, Location loc, Value v,
                      ArrayRef<int64_t> shape) {
  Value buffer = l.get(v);
  if (shapeOf(v) == shape)
    return buffer;
  Value out = l.alloc(loc, shape, elemOf(v));
  l.map(loc, shape, {KernLowering::broadcast(buffer, shape)},
        {KernLowering::dense(out)},
        [](Scalar &, ValueRange a) { return Values(a); });
  return out;
}

static LogicalResult lowerLayerNorm(graph::LayerNormOp op, KernLowering &l) {
  Location loc = op.getLoc();
  int64_t axis = op.getAxis();
  ArrayRef<int64_t> normShape = shapeOf(op.getInput()).drop_front(axis);
  Value x = l.get(op.getInput());
  Value scale = expanded(l, loc, op.getScale(), normShape);
  Value bias =
      op.getBias() ? expanded(l, loc, op.getBias(), normShape) : Value();
  Value out = l.result(op.getOutput());
  Value mean = l.result(op.getMean(), /*optional=*/true);
  Value inv = l.result(op.getInvStdDev(), /*optional=*/true);
  l.b.create<LayerNormOp>(loc, x, scale, bias, out, mean, inv, axis,
                          op.getEpsilon());
  return success();
}

static LogicalResult lowerBatchNorm(graph::BatchNormOp op, KernLowering &l) {
  Value x = op.getInput();
  ArrayRef<int64_t> shape = shapeOf(x);
  Type elem = elemOf(x);
  SmallVector<Access> ins{KernLowering::dense(l.get(x))};
  for (Value p : {op.getScale(), op.getBias(), op.getMean(), op.getVariance()}) {
    Access a{l.get(p), SmallVector<int64_t>(shape.size() + 1, 0)};
    if (shape.size() > 1 && shapeOf(p).size() == 1 && shapeOf(p)[0] == shape[1])
      a.layout[2] = 1;
    else if (cast<MemRefType>(a.buffer.getType()).getNumElements() != 1)
      return l.fail(op, "parameters must have one value per channel");
    ins.push_back(a);
  }
  double eps = op.getEpsilon().convertToDouble();
  Value out = l.result(op.getOutput());
  l.map(op.getLoc(), shape, ins, {KernLowering::dense(out)},
        [&](Scalar &s, ValueRange a) {
          Value stdev = s.b.create<math::SqrtOp>(
              s.loc, s.add(elem, a[4], s.constant(elem, eps)));
          Value norm = s.div(elem, s.sub(elem, a[0], a[3]), stdev);
          return Values{s.add(elem, s.mul(elem, norm, a[1]), a[2])};
        });
  return success();
}

/// Reduction of `input` over `axes` (empty: all) into `output`.
static void reduceInto(KernLowering &l, Location loc, StringRef kind,
                       Value input, ArrayRef<int64_t> axes, Value output) {
  SymShape shape = graph::dimsOf(input);
  SmallVector<int64_t> dims(axes);
  if (dims.empty())
    for (size_t d = 0; d < shape.size(); ++d)
      dims.push_back(d);
  SymShape kept = shape;
  for (int64_t d : dims) {
    kept.bound[d] = 1;
    kept.sym[d] = sym::Expr(1);
  }
  SmallVector<int64_t> strides = rowMajorStrides(kept.bound);
  SmallVector<sym::Expr> symStrides = KernLowering::strides(kept.sym);
  for (int64_t d : dims) {
    strides[d] = 0;
    symStrides[d] = sym::Expr(0);
  }
  Access out{output, {0}};
  out.layout.append(strides);
  if (kept.isSymbolic()) {
    out.sym.push_back(sym::Expr(0));
    llvm::append_range(out.sym, symStrides);
  }
  l.reduce(loc, kind, shape, dims, {KernLowering::dense(l.get(input))}, out,
           [](Scalar &, ValueRange a) { return Values(a); });
}

template <typename OpTy>
static void reduction(LoweringTable &t, StringRef kind) {
  std::string k = kind.str();
  addLowering<OpTy>(t, [k](OpTy op, KernLowering &l) {
    reduceInto(l, op.getLoc(), k, op.getInput(), op.getAxes(),
               l.result(op.getOutput()));
    return success();
  });
}

template <typename OpTy>
static void softmax(LoweringTable &t, bool isLog) {
  addLowering<OpTy>(t, [isLog](OpTy op, KernLowering &l) {
    if (!Scalar::isFloat(elemOf(op.getInput())))
      return l.fail(op, "needs a floating-point input");
    Value out = l.result(op.getOutput());
    l.b.create<SoftmaxOp>(op.getLoc(), l.get(op.getInput()), out,
                          op.getAxis(), isLog);
    return success();
  });
}

void shardc::kern::reduceAll(KernLowering &l, Location loc, StringRef kind,
                             Value input, ArrayRef<int64_t> axes,
                             Value output) {
  reduceInto(l, loc, kind, input, axes, output);
}

void shardc::kern::addLinalgLowerings(LoweringTable &t) {
  addLowering<graph::MatMulOp>(t, lowerMatMul);
  addLowering<graph::GemmOp>(t, lowerGemm);
  addLowering<graph::LinearOp>(t, lowerLinear);
  addLowering<graph::LinearInt8Op>(t, lowerLinearInt8);
  addLowering<graph::LayerNormOp>(t, lowerLayerNorm);
  addLowering<graph::BatchNormOp>(t, lowerBatchNorm);
  softmax<graph::SoftmaxOp>(t, false);
  softmax<graph::LogSoftmaxOp>(t, true);
  reduction<graph::ReduceSumOp>(t, "sum");
  reduction<graph::ReduceMeanOp>(t, "mean");
  reduction<graph::ReduceMaxOp>(t, "max");
  reduction<graph::ReduceMinOp>(t, "min");
  reduction<graph::ReduceProdOp>(t, "prod");
  addLowering<graph::EinsumOp>(t, [](graph::EinsumOp op, KernLowering &l) {
    SmallVector<Value> ins;
    for (Value v : op.getInputs())
      ins.push_back(l.get(v));
    Value out = l.result(op.getOutput());
    l.b.create<EinsumOp>(op.getLoc(), ins, out, op.getEquation());
    return success();
  });
}
