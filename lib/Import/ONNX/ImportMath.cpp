//===- ImportMath.cpp - matmul, gemm, softmax, norms, reductions, quant -----===//

#include "Importer.h"

using namespace mlir;
using onnx::TensorProto;

namespace shardc::onnximport {

static LogicalResult importGemm(NodeContext &c) {
  SmallVector<Value> operands{c.in(0), c.in(1)};
  if (c.has(2))
    operands.push_back(c.in(2));
  c.create("gemm", operands,
           {c.f32("alpha", c.getFloat("alpha", 1.0f)),
            c.f32("beta", c.getFloat("beta", 1.0f)),
            c.boolean("trans_a", c.getInt("transA", 0)),
            c.boolean("trans_b", c.getInt("transB", 0))});
  return c.status();
}

// Before opset 13, softmax coerces the input to 2-D at `axis` (default 1).
static LogicalResult importSoftmax(NodeContext &c, StringRef name) {
  int64_t rank = c.rank(0);
  int64_t axis = c.axis(c.getInt("axis", c.opset < 13 ? 1 : -1), rank);
  if (c.failed())
    return failure();
  if (c.opset >= 13 || axis == rank - 1) {
    c.create(name, {c.in(0)}, {c.i64("axis", axis)});
    return c.status();
  }
  auto type = c.type(0);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? outer : inner) *= type.getDimSize(d);
  Operation *flat =
      c.create("reshape", {c.in(0)}, {c.array("shape", {outer, inner})});
  if (!flat)
    return failure();
  Operation *sm =
      c.create(name, {flat->getResult(0)}, {c.i64("axis", 1)});
  if (!sm)
    return failure();
  c.create("reshape", {sm->getResult(0)}, {c.array("shape", type.getShape())});
  return c.status();
}

static LogicalResult importLayerNorm(NodeContext &c) {
  SmallVector<Value> operands{c.in(0), c.in(1)};
  if (c.has(2))
    operands.push_back(c.in(2));
  c.create("layer_norm", operands,
           {c.i64("axis", c.axis(c.getInt("axis", -1), c.rank(0))),
            c.f32("epsilon", c.getFloat("epsilon", 1e-5f))});
  return c.status();
}

static LogicalResult importBatchNorm(NodeContext &c) {
  if (c.getInt("training_mode", 0))
    return c.fail("training_mode is not supported");
  for (int i = 1; i < c.node.output_size(); ++i)
    if (failed(c.rejectOutput(i, "training statistics")))
      return failure();
  c.create("batch_norm", {c.in(0), c.in(1), c.in(2), c.in(3), c.in(4)},
           {c.f32("epsilon", c.getFloat("epsilon", 1e-5f))});
  return c.status();
}

// Axes moved from attribute to input in opset 13 (ReduceSum) and 18 (others).
// The reduced axes, sorted and unique (all when none are given); `noop` for
// noop_with_empty_axes with no axes (the input passes through).
struct ReduceAxes {
  SmallVector<int64_t> axes;
  bool noop = false;
};
static std::optional<ReduceAxes> reduceAxes(NodeContext &c,
                                            int64_t axesInputSince) {
  int64_t rank = c.rank(0);
  ReduceAxes r;
  if (c.opset < axesInputSince) {
    r.axes = c.getInts("axes");
  } else if (c.has(1)) {
    auto v = c.ints(1, "axes");
    if (!v)
      return std::nullopt;
    r.axes = *v;
  }
  if (r.axes.empty() && c.opset >= axesInputSince &&
      c.getInt("noop_with_empty_axes", 0)) {
    r.noop = true;
    return r;
  }
  for (int64_t &a : r.axes)
    a = c.axis(a, rank, "reduction axis");
  llvm::sort(r.axes);
  r.axes.erase(std::unique(r.axes.begin(), r.axes.end()), r.axes.end());
  if (r.axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      r.axes.push_back(d);
  return r;
}

static LogicalResult importReduce(NodeContext &c, StringRef name,
                                  int64_t axesInputSince) {
  std::optional<ReduceAxes> r = reduceAxes(c, axesInputSince);
  if (!r)
    return failure();
  if (r->noop) {
    c.create("identity", {c.in(0)});
    return c.status();
  }
  c.create(name, {c.in(0)},
           {c.array("axes", r->axes),
            c.boolean("keepdims", c.getInt("keepdims", 1))});
  return c.status();
}

// ReduceL2 (F.normalize's norm in PyTorch exports): sqrt(reduce_sum(x * x)),
// ops that both targets already lower. With noop_with_empty_axes and no
// axes the input passes through unchanged (as in ONNX's reference).
static LogicalResult importReduceL2(NodeContext &c) {
  std::optional<ReduceAxes> r = reduceAxes(c, 18);
  if (!r)
    return failure();
  if (r->noop) {
    c.create("identity", {c.in(0)});
    return c.status();
  }
  Operation *square = c.create("mul", {c.in(0), c.in(0)});
  if (!square)
    return failure();
  Operation *sum = c.create("reduce_sum", {square->getResult(0)},
                            {c.array("axes", r->axes),
                             c.boolean("keepdims", c.getInt("keepdims", 1))});
  if (!sum)
    return failure();
  c.create("sqrt", {sum->getResult(0)});
  return c.status();
}

static LogicalResult importQuantize(NodeContext &c, bool quantize) {
  if (c.getInt("block_size", 0))
    return c.fail("blocked quantization (block_size) is not supported");
  Value zp;
  if (c.has(2)) {
    zp = c.in(2);
  } else {
    int32_t dtype = TensorProto::UINT8;
    if (quantize) {
      int64_t out = c.getInt("output_dtype", 0);
      dtype = out ? (int32_t)out : (int32_t)TensorProto::UINT8;
    } else {
      Type elt = c.type(0).getElementType();
      dtype = elt.isUnsignedInteger(8) ? TensorProto::UINT8
              : elt.isInteger(8)       ? TensorProto::INT8
              : elt.isInteger(16)      ? TensorProto::INT16
              : elt.isInteger(32)      ? TensorProto::INT32
                                       : TensorProto::UINT8;
      if (elt.isUnsignedInteger(16))
        dtype = TensorProto::UINT16;
    }
    zp = c.zero(dtype);
    if (!zp)
      return failure();
  }
  // The axis matters only for per-axis (1-D, several elements) scales.
  int64_t axis = c.getInt("axis", 1);
  auto scale = c.type(1);
  if (scale.getRank() == 1 && scale.getNumElements() > 1)
    axis = c.axis(axis, c.rank(0));
  c.create(quantize ? "quantize_linear" : "dequantize_linear",
           {c.in(0), c.in(1), zp}, {c.i64("axis", axis)});
  return c.status();
}

static int32_t onnxTypeOf(Type t) {
  return t.isUnsignedInteger(8) ? TensorProto::UINT8 : TensorProto::INT8;
}

static LogicalResult importMatMulInteger(NodeContext &c) {
  Value a = c.in(0), b = c.in(1);
  Value azp = c.has(2) ? c.in(2) : c.zero(onnxTypeOf(c.type(0).getElementType()));
  Value bzp = c.has(3) ? c.in(3) : c.zero(onnxTypeOf(c.type(1).getElementType()));
  c.create("matmul_integer", {a, b, azp, bzp});
  return c.status();
}

void registerMathOps(HandlerMap &map) {
  map["MatMul"] = [](NodeContext &c) {
    c.create("matmul", {c.in(0), c.in(1)});
    return c.status();
  };
  map["Gemm"] = importGemm;
  map["Softmax"] = [](NodeContext &c) { return importSoftmax(c, "softmax"); };
  map["LogSoftmax"] = [](NodeContext &c) {
    return importSoftmax(c, "log_softmax");
  };
  map["LayerNormalization"] = importLayerNorm;
  map["BatchNormalization"] = importBatchNorm;
  map["ReduceMean"] = [](NodeContext &c) {
    return importReduce(c, "reduce_mean", 18);
  };
  map["ReduceMax"] = [](NodeContext &c) {
    return importReduce(c, "reduce_max", 18);
  };
  map["ReduceSum"] = [](NodeContext &c) {
    return importReduce(c, "reduce_sum", 13);
  };
  map["ReduceL2"] = importReduceL2;
  map["Einsum"] = [](NodeContext &c) {
    SmallVector<Value> inputs;
    for (int i = 0; i < c.numInputs(); ++i)
      inputs.push_back(c.in(i));
    c.create("einsum", inputs,
             {c.str("equation", c.getString("equation", ""))});
    return c.status();
  };
  map["QuantizeLinear"] = [](NodeContext &c) {
    return importQuantize(c, true);
  };
  map["DequantizeLinear"] = [](NodeContext &c) {
    return importQuantize(c, false);
  };
  map["MatMulInteger"] = importMatMulInteger;
  map["QLinearMatMul"] = [](NodeContext &c) {
    SmallVector<Value> operands;
    for (int i = 0; i < 8; ++i)
      operands.push_back(c.in(i));
    c.create("qlinear_matmul", operands);
    return c.status();
  };
}

} // namespace shardc::onnximport
