//===- ExportContraction.cpp - matmuls, convolutions, pools, attention ----===//
//
// The fused ops (graph.linear, graph.fused_conv, graph.attention) become the
// nodes they were fused from: the product, then the epilogue in its order.
//
//===----------------------------------------------------------------------===//

#include "Exporter.h"

#include "dialects/Graph/IR/GraphOps.h"

#include <limits>

using namespace mlir;

namespace shardc::onnxexport {

static LogicalResult badActivation(Operation *op, StringRef act) {
  return op->emitError("--emit=onnx: fused activation '") << act << "'";
}

static LogicalResult exportMatMul(Exporter &e, Operation *op) {
  e.node(op, "MatMul", {e.in(op->getOperand(0)), e.in(op->getOperand(1))},
         {e.out(op->getResult(0))});
  return success();
}

static LogicalResult exportGemm(Exporter &e, Operation *op) {
  auto g = cast<graph::GemmOp>(op);
  std::vector<std::string> inputs{e.in(g.getA()), e.in(g.getB())};
  if (Value c = g.getC())
    inputs.push_back(e.in(c));
  onnx::NodeProto &n = e.node(op, "Gemm", inputs, {e.out(g.getOutput())});
  attrFloat(n, "alpha", g.getAlpha().convertToFloat());
  attrFloat(n, "beta", g.getBeta().convertToFloat());
  attr(n, "transA", static_cast<int64_t>(g.getTransA()));
  attr(n, "transB", static_cast<int64_t>(g.getTransB()));
  return success();
}

/// graph.linear's epilogue after the product `y`: bias, activation,
/// residual.
LogicalResult linearEpilogue(Exporter &e, Operation *op, std::string y,
                             Value bias, StringRef act, Value residual) {
  Type elem = graph::tensorOf(op->getResult(0)).getElementType();
  if (bias)
    y = e.value(op, "Add", {y, e.in(bias)});
  if (!activation(e, op, act, y, elem))
    return badActivation(op, act);
  if (residual)
    y = e.value(op, "Add", {y, e.in(residual)});
  e.result(op, y);
  return success();
}

static LogicalResult exportLinear(Exporter &e, Operation *op) {
  auto l = cast<graph::LinearOp>(op);
  std::string y = e.value(op, "MatMul", {e.in(l.getA()), e.in(l.getB())});
  return linearEpilogue(e, op, y, l.getBias(), l.getActivation(),
                        l.getResidual());
}

/// The attributes of a convolution or pool.
static void spatialAttrs(onnx::NodeProto &n, Operation *op) {
  for (const char *name : {"strides", "dilations", "pads", "output_padding"})
    if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
      attr(n, name, a.asArrayRef());
  if (auto g = op->getAttrOfType<IntegerAttr>("group"))
    attr(n, "group", g.getInt());
}

std::string convNode(Exporter &e, Operation *op, StringRef type,
                     const std::string &x, const std::string &w,
                     ArrayRef<int64_t> weightShape, Value bias) {
  std::vector<std::string> inputs{x, w};
  if (bias)
    inputs.push_back(e.in(bias));
  onnx::NodeProto *n;
  std::string y = e.value(op, type, inputs, &n);
  spatialAttrs(*n, op);
  attr(*n, "kernel_shape", weightShape.drop_front(2));
  return y;
}

/// graph.fused_conv's epilogue: residual, then activation.
LogicalResult convEpilogue(Exporter &e, Operation *op, std::string y,
                           Value residual, StringRef act) {
  if (residual)
    y = e.value(op, "Add", {y, e.in(residual)});
  if (act != "none" && act != "relu" && act != "hard_swish")
    return badActivation(op, act);
  activation(e, op, act, y, graph::tensorOf(op->getResult(0)).getElementType());
  e.result(op, y);
  return success();
}

/// A transposed convolution whose pads are negative (the output grows past
/// the full result: what an `output_shape` asks for) is not valid ONNX:
/// the convolution without those pads (and without its bias), zeros padded
/// around, then the bias.
static LogicalResult exportGrownConvTranspose(Exporter &e,
                                              graph::ConvTransposeOp op) {
  ArrayRef<int64_t> pads = op.getPads();
  int64_t spatial = static_cast<int64_t>(pads.size()) / 2;
  SmallVector<int64_t> kept, grow(2 * (spatial + 2), 0);
  for (auto [i, p] : llvm::enumerate(pads)) {
    kept.push_back(std::max<int64_t>(p, 0));
    int64_t side = static_cast<int64_t>(i) / spatial;
    grow[side * (spatial + 2) + 2 + static_cast<int64_t>(i) % spatial] =
        std::max<int64_t>(-p, 0);
  }
  Value w = op.getWeight();
  std::vector<std::string> inputs{e.in(op.getInput()), e.in(w)};
  onnx::NodeProto *n;
  std::string y = e.value(op, "ConvTranspose", inputs, &n);
  attr(*n, "strides", op.getStrides());
  attr(*n, "dilations", op.getDilations());
  attr(*n, "pads", ArrayRef<int64_t>(kept));
  attr(*n, "output_padding", op.getOutputPadding());
  attr(*n, "group", op.getGroup());
  attr(*n, "kernel_shape", graph::tensorOf(w).getShape().drop_front(2));
  y = e.value(op, "Pad", {y, e.ints(grow, op, "pads")});
  if (Value b = op.getBias()) {
    SmallVector<int64_t> shape(spatial + 2, 1);
    shape[1] = graph::tensorOf(b).getNumElements();
    y = e.value(
        op, "Add",
        {y, e.value(op, "Reshape", {e.in(b), e.ints(shape, op, "shape")})});
  }
  e.result(op, y);
  return success();
}

static LogicalResult exportConv(Exporter &e, Operation *op, StringRef type) {
  if (auto t = dyn_cast<graph::ConvTransposeOp>(op);
      t && llvm::any_of(t.getPads(), [](int64_t p) { return p < 0; }))
    return exportGrownConvTranspose(e, t);
  Value w = op->getOperand(1);
  Value bias = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
  if (auto f = dyn_cast<graph::FusedConvOp>(op))
    bias = f.getBias();
  std::string y = convNode(e, op, type, e.in(op->getOperand(0)), e.in(w),
                           graph::tensorOf(w).getShape(), bias);
  if (auto f = dyn_cast<graph::FusedConvOp>(op))
    return convEpilogue(e, op, y, f.getResidual(), f.getActivation());
  e.result(op, y);
  return success();
}

static LogicalResult exportPool(Exporter &e, Operation *op, StringRef type) {
  // MaxPool's indices only when something reads them.
  std::vector<std::string> outputs{e.out(op->getResult(0))};
  if (op->getNumResults() > 1 && !op->getResult(1).use_empty())
    outputs.push_back(e.out(op->getResult(1)));
  onnx::NodeProto &n = e.node(op, type, {e.in(op->getOperand(0))}, outputs);
  attr(n, "kernel_shape",
       op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape").asArrayRef());
  attr(n, "strides",
       op->getAttrOfType<DenseI64ArrayAttr>("strides").asArrayRef());
  attr(n, "pads", op->getAttrOfType<DenseI64ArrayAttr>("pads").asArrayRef());
  auto dilations =
      op->getAttrOfType<DenseI64ArrayAttr>("dilations").asArrayRef();
  if (auto avg = dyn_cast<graph::AveragePoolOp>(op)) {
    // AveragePool's dilations come at opset 19.
    if (llvm::any_of(dilations, [](int64_t d) { return d != 1; }))
      return op->emitError("--emit=onnx: a dilated average pool is past "
                           "opset 17");
    attr(n, "ceil_mode", static_cast<int64_t>(avg.getCeilMode()));
    attr(n, "count_include_pad",
         static_cast<int64_t>(avg.getCountIncludePad()));
    return success();
  }
  auto max = cast<graph::MaxPoolOp>(op);
  attr(n, "dilations", dilations);
  attr(n, "ceil_mode", static_cast<int64_t>(max.getCeilMode()));
  attr(n, "storage_order", max.getStorageOrder());
  return success();
}

/// softmax(q k^T * scale + mask) v, in fp32 as the kernels compute it; the
/// causal mask keeps t <= s + (T - S).
static LogicalResult exportAttention(Exporter &e, Operation *op) {
  auto a = cast<graph::AttentionOp>(op);
  Type elem = graph::tensorOf(a.getQuery()).getElementType();
  Type f32 = Float32Type::get(op->getContext());
  auto wide = [&](Value v) {
    return e.castTo(op, e.in(v), graph::tensorOf(v).getElementType(), f32);
  };
  int64_t rank = graph::tensorOf(a.getKey()).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  onnx::NodeProto *t;
  std::string kt = e.value(op, "Transpose", {wide(a.getKey())}, &t);
  attr(*t, "perm", ArrayRef<int64_t>(perm));
  std::string s =
      e.value(op, "Mul",
              {e.value(op, "MatMul", {wide(a.getQuery()), kt}),
               e.scalar(a.getScale().convertToDouble(), f32, op, "scale")});
  if (Value m = a.getMask())
    s = e.value(op, "Add", {s, wide(m)});
  if (a.getCausal()) {
    int64_t S = graph::tensorOf(a.getQuery()).getShape()[rank - 2];
    int64_t T = graph::tensorOf(a.getKey()).getShape()[rank - 2];
    onnx::NodeProto *fill;
    std::string ones =
        e.value(op, "ConstantOfShape", {e.ints({S, T}, op, "shape")}, &fill);
    attrTensor(*fill, "value", 1.0, f32);
    onnx::NodeProto *tri;
    std::string lower =
        e.value(op, "Trilu", {ones, e.int64Scalar(T - S, op, "k")}, &tri);
    attr(*tri, "upper", int64_t(0));
    onnx::NodeProto *keep;
    std::string cond = e.value(op, "Cast", {lower}, &keep);
    attr(*keep, "to", static_cast<int64_t>(onnx::TensorProto::BOOL));
    s = e.value(op, "Where",
                {cond, s,
                 e.scalar(-std::numeric_limits<double>::infinity(), f32, op,
                          "masked")});
  }
  onnx::NodeProto *sm;
  std::string p = e.value(op, "Softmax", {s}, &sm);
  attr(*sm, "axis", int64_t(-1));
  std::string o = e.value(op, "MatMul", {p, wide(a.getValue())});
  e.result(op, e.castTo(op, o, f32, elem));
  return success();
}

/// graph.moe has no standard ONNX op: every expert runs on every token (a
/// batched MatMul over the experts), and a dense [T, E] routing matrix
/// (ScatterElements of the top-k weights, adding a repeated choice) weighs
/// and sums the experts' outputs. Exact up to the order of the sums; E / K
/// times the FLOPs of the routed kernels.
static LogicalResult exportMoe(Exporter &e, Operation *op) {
  auto m = cast<graph::MoeOp>(op);
  Type elem = graph::tensorOf(m.getInput()).getElementType();
  int64_t T = m.getNumTokens(), E = m.getNumExperts(), F = m.getFfn();
  // [T, H] x [E, H, 2F] -> [E, T, 2F]
  std::string gu =
      e.value(op, "MatMul", {e.in(m.getInput()), e.in(m.getGateUp())});
  if (Value b = m.getGateUpBias())
    gu = e.value(
        op, "Add",
        {gu, e.value(op, "Unsqueeze", {e.in(b), e.ints({1}, op, "axes")})});
  onnx::NodeProto *split;
  std::string g = e.tmp(op, "gate"), u = e.tmp(op, "up");
  split = &e.node(op, "Split", {gu, e.ints({F, F}, op, "split")}, {g, u});
  attr(*split, "axis", int64_t(2));
  std::string h = e.value(
      op, "Mul", {e.value(op, "Mul", {g, e.value(op, "Sigmoid", {g})}), u});
  // [E, T, F] x [E, F, H] -> [E, T, H]
  std::string y = e.value(op, "MatMul", {h, e.in(m.getDown())});
  if (Value b = m.getDownBias())
    y = e.value(
        op, "Add",
        {y, e.value(op, "Unsqueeze", {e.in(b), e.ints({1}, op, "axes")})});
  // The routing matrix R [T, E]: R[t, ids[t, k]] += weights[t, k].
  onnx::NodeProto *fill;
  std::string zeros =
      e.value(op, "ConstantOfShape", {e.ints({T, E}, op, "shape")}, &fill);
  attrTensor(*fill, "value", 0.0, elem);
  Type i64 = IntegerType::get(op->getContext(), 64);
  std::string ids = e.castTo(op, e.in(m.getIds()),
                             graph::tensorOf(m.getIds()).getElementType(), i64);
  onnx::NodeProto *scatter;
  std::string r = e.value(op, "ScatterElements",
                          {zeros, ids, e.in(m.getWeights())}, &scatter);
  attr(*scatter, "axis", int64_t(1));
  attr(*scatter, "reduction", StringRef("add"));
  onnx::NodeProto *t;
  std::string rt = e.value(op, "Transpose", {r}, &t);
  attr(*t, "perm", ArrayRef<int64_t>{1, 0});
  std::string weighted = e.value(
      op, "Mul", {y, e.value(op, "Unsqueeze", {rt, e.ints({2}, op, "axes")})});
  onnx::NodeProto *sum;
  std::string out =
      e.value(op, "ReduceSum", {weighted, e.ints({0}, op, "axes")}, &sum);
  attr(*sum, "keepdims", int64_t(0));
  e.result(op, out);
  return success();
}

void registerContractionExports(ExportMap &map) {
  map["graph.moe"] = exportMoe;
  map["graph.matmul"] = exportMatMul;
  map["graph.gemm"] = exportGemm;
  map["graph.linear"] = exportLinear;
  map["graph.attention"] = exportAttention;
  map["graph.conv"] = [](Exporter &e, Operation *op) {
    return exportConv(e, op, "Conv");
  };
  map["graph.fused_conv"] = [](Exporter &e, Operation *op) {
    return exportConv(e, op, "Conv");
  };
  map["graph.conv_transpose"] = [](Exporter &e, Operation *op) {
    return exportConv(e, op, "ConvTranspose");
  };
  map["graph.max_pool"] = [](Exporter &e, Operation *op) {
    return exportPool(e, op, "MaxPool");
  };
  map["graph.average_pool"] = [](Exporter &e, Operation *op) {
    return exportPool(e, op, "AveragePool");
  };
  map["graph.global_average_pool"] = [](Exporter &e, Operation *op) {
    e.node(op, "GlobalAveragePool", {e.in(op->getOperand(0))},
           {e.out(op->getResult(0))});
    return success();
  };
}

} // namespace shardc::onnxexport
