//===- ImportMath.cpp - matmul, gemm, softmax, norms, reductions, quant -----===//

#include "Importer.h"

#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;
using onnx::TensorProto;

namespace shardc::onnximport {

/// A Gemm whose A carries data-dependent rows (ImportRows.cpp pads them into
/// leading dims: A is [rows.., K]) is row-wise: alpha * (A @ B') + beta * C
/// with B' = B or its transpose and C broadcast over [N].
static LogicalResult importRowGemm(NodeContext &c) {
  if (c.getInt("transA", 0))
    return c.fail("a transposed A with data-dependent rows is not supported");
  Value b = c.in(1);
  if (c.getInt("transB", 0)) {
    Operation *t = c.create("transpose", {b}, {c.array("perm", {1, 0})});
    if (!t)
      return failure();
    b = t->getResult(0);
  }
  Operation *y = c.create("matmul", {c.in(0), b});
  if (!y)
    return failure();
  Type elem = c.type(0).getElementType();
  auto scalar = [&](float v) { return c.floatScalar(elem, v); };
  float alpha = c.getFloat("alpha", 1.0f), beta = c.getFloat("beta", 1.0f);
  if (alpha != 1.0f)
    y = c.create("mul", {y->getResult(0), scalar(alpha)});
  if (!y || !c.has(2) || beta == 0.0f)
    return c.status();
  RankedTensorType ct = c.type(2);
  if (ct.getRank() == 2 && ct.getDimSize(0) != 1)
    return c.fail("C of " + std::to_string(ct.getDimSize(0)) +
                  " rows cannot follow A's data-dependent rows");
  Value bias = c.in(2);
  if (beta != 1.0f) {
    Operation *scaled = c.create("mul", {bias, scalar(beta)});
    if (!scaled)
      return failure();
    bias = scaled->getResult(0);
  }
  c.create("add", {y->getResult(0), bias});
  return c.status();
}

static LogicalResult importGemm(NodeContext &c) {
  if (c.rank(0) > 2)
    return importRowGemm(c);
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

// Reductions that are a map, then a sum, then maybe a unary op:
//   ReduceSumSquare  reduce_sum(x * x)
//   ReduceL1         reduce_sum(abs(x))
//   ReduceLogSum     log(reduce_sum(x))
// (each partitions as a sum over a split reduced dim).
static LogicalResult importMappedSum(NodeContext &c, StringRef map,
                                     StringRef after) {
  std::optional<ReduceAxes> r = reduceAxes(c, 18);
  if (!r)
    return failure();
  Value x = c.in(0);
  if (r->noop) {
    // The reference applies the map, not the reduction, with no axes.
    if (map == "square")
      c.create("mul", {x, x});
    else if (map == "abs")
      c.create("abs", {x});
    else if (after == "log")
      c.create("log", {x});
    else
      c.create("identity", {x});
    return c.status();
  }
  Operation *mapped = map == "square" ? c.create("mul", {x, x})
                      : map == "abs"  ? c.create("abs", {x})
                                      : nullptr;
  if (mapped)
    x = mapped->getResult(0);
  else if (c.failed())
    return failure();
  Operation *sum = c.create("reduce_sum", {x},
                            {c.array("axes", r->axes),
                             c.boolean("keepdims", c.getInt("keepdims", 1))});
  if (!sum)
    return failure();
  if (!after.empty())
    c.create(after, {sum->getResult(0)});
  return c.status();
}

// ReduceLogSumExp, computed stably as ONNX's reference does: with m the
// maximum over the axes (0 where it is infinite), log(sum(exp(x - m))) + m.
// Over a split axis its partial state is (max, sum of exponentials): the
// maximum is combined first, then the sum.
static LogicalResult importReduceLogSumExp(NodeContext &c) {
  std::optional<ReduceAxes> r = reduceAxes(c, 18);
  if (!r)
    return failure();
  Value x = c.in(0);
  if (r->noop) {
    c.create("identity", {x});
    return c.status();
  }
  bool keep = c.getInt("keepdims", 1);
  Type elem = c.type(0).getElementType();
  if (!isa<FloatType>(elem))
    return c.fail("ReduceLogSumExp of a non-float tensor is not supported");
  Value zero = c.floatScalar(elem, 0.0);
  // m with and without the reduced dims; a finite m is the one m - m == 0.
  auto finiteMax = [&](bool keepdims) -> Value {
    Operation *m = c.create("reduce_max", {x},
                            {c.array("axes", r->axes),
                             c.boolean("keepdims", keepdims)});
    if (!m)
      return {};
    Value mv = m->getResult(0);
    Operation *diff = c.create("sub", {mv, mv});
    Operation *finite =
        diff ? c.create("equal", {diff->getResult(0), zero}) : nullptr;
    Operation *fixed =
        finite ? c.create("where", {finite->getResult(0), mv, zero})
               : nullptr;
    return fixed ? fixed->getResult(0) : Value();
  };
  Value mKept = finiteMax(true);
  if (!mKept)
    return failure();
  Value mOut = keep ? mKept : finiteMax(false);
  if (!mOut)
    return failure();
  Operation *shifted = c.create("sub", {x, mKept});
  Operation *e = shifted ? c.create("exp", {shifted->getResult(0)}) : nullptr;
  Operation *sum =
      e ? c.create("reduce_sum", {e->getResult(0)},
                   {c.array("axes", r->axes), c.boolean("keepdims", keep)})
        : nullptr;
  Operation *log = sum ? c.create("log", {sum->getResult(0)}) : nullptr;
  if (log)
    c.create("add", {log->getResult(0), mOut});
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

static LogicalResult importMatMulInteger(NodeContext &c) {
  Value a = c.in(0), b = c.in(1);
  Value azp = c.inOrZeroPoint(2, 0);
  Value bzp = c.inOrZeroPoint(3, 1);
  c.create("matmul_integer", {a, b, azp, bzp});
  return c.status();
}

/// DynamicQuantizeLinear (uint8, per tensor): scale = (max(0, max(x)) -
/// min(0, min(x))) / 255, zero point = saturate(round(-min(0, min(x)) /
/// scale)), y = saturate(round(x / scale) + zero point), both roundings
/// QuantizeLinear's (half to even). As graph ops: two full reductions and
/// two graph.quantize_linear.
static LogicalResult importDynamicQuantize(NodeContext &c) {
  RankedTensorType t = c.type(0);
  if (!t.getElementType().isF32())
    return c.fail(
        "DynamicQuantizeLinear of " +
        Twine(t.getElementType().isF16() ? "float16" : "a non-float") +
        " input is not supported (the operator takes float32)");
  if (t.getRank() == 0 || !t.hasStaticShape() || t.getNumElements() == 0)
    return c.fail("DynamicQuantizeLinear of a scalar or empty tensor is not "
                  "supported");
  Type f32 = t.getElementType();
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()));
  Value x = c.in(0), zero = c.floatScalar(f32, 0.0);
  auto overAll = [&](StringRef reduce) {
    return c.createValue(reduce, {x},
                         {c.array("axes", all), c.boolean("keepdims", false)});
  };
  Value hi = c.createValue("max", {overAll("reduce_max"), zero});
  Value lo = c.createValue("min", {overAll("reduce_min"), zero});
  Value scale = c.createValue(
      "div", {c.createValue("sub", {hi, lo}), c.floatScalar(f32, 255.0)});
  Value u8 = c.zero(TensorProto::UINT8);
  Value zp =
      c.createValue("quantize_linear", {c.createValue("neg", {lo}), scale, u8},
                    {c.i64("axis", 1)});
  Value y =
      c.createValue("quantize_linear", {x, scale, zp}, {c.i64("axis", 1)});
  if (c.failed())
    return failure();
  c.bind(0, y);
  c.bind(1, scale);
  c.bind(2, zp);
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
  map["ReduceMin"] = [](NodeContext &c) {
    return importReduce(c, "reduce_min", 18);
  };
  map["ReduceProd"] = [](NodeContext &c) {
    return importReduce(c, "reduce_prod", 18);
  };
  map["ReduceSumSquare"] = [](NodeContext &c) {
    return importMappedSum(c, "square", "");
  };
  map["ReduceL1"] = [](NodeContext &c) {
    return importMappedSum(c, "abs", "");
  };
  map["ReduceLogSum"] = [](NodeContext &c) {
    return importMappedSum(c, "", "log");
  };
  map["ReduceLogSumExp"] = importReduceLogSumExp;
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
  map["DynamicQuantizeLinear"] = importDynamicQuantize;
  map["QLinearMatMul"] = [](NodeContext &c) {
    SmallVector<Value> operands;
    for (int i = 0; i < 8; ++i)
      operands.push_back(c.in(i));
    c.create("qlinear_matmul", operands);
    return c.status();
  };
}

} // namespace shardc::onnximport
