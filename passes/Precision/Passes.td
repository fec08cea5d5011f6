//===- Passes.td - Precision: storage types of activations and weights -*- tablegen -*-===//

#ifndef SHARDC_PASSES_PRECISION
#define SHARDC_PASSES_PRECISION

include "mlir/Pass/PassBase.td"

def GraphConvertPrecision : Pass<"graph-convert-precision", "mlir::func::FuncOp"> {
  let summary = "Store fp32 activations and weights in fp16 or bf16";
  let description = [{
    Mixed precision for inference (`--precision=fp16|bf16`): every fp32
    tensor inside the function becomes `to` (constants are converted, with
    round-to-nearest-even; casts to fp32 now cast to `to`), while the
    function's signature stays fp32, with a `graph.cast` after each fp32
    input and before each fp32 result. Arithmetic is unchanged: generated
    kernels compute in fp32 and accumulate reductions in fp32, GEMMs
    accumulate in fp32, and softmax and normalization statistics are fp32
    (the kernels load the narrow type and compute in float). A decoder's KV
    cache (graph-kv-cache's pattern: a past input appended along a dynamic
    dim and returned as the present) stays fp32, and so does what reads it
    up to the next product by a weight (attention), with casts where values
    enter and leave that region: a narrow cache would be converted whole
    on the way in and out at every decode step, where the fp32 one is
    appended in place.
  }];
  let options = [
    Option<"to", "to", "std::string", /*default=*/"\"f16\"",
           "The storage type: f16 or bf16">,
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphQuantizeDynamic : Pass<"graph-quantize-dynamic", "mlir::func::FuncOp"> {
  let summary = "Dynamic int8 quantization of linear layers and convolutions";
  let description = [{
    `--quantize=int8-dynamic`: every `graph.linear` whose weight is a
    constant [K, N] f32 matrix multiplies int8 in int32: the weight is
    quantized here, per output column and symmetric; the activations at run
    time, per token (row) and symmetric (`quantize_linear` of x over its
    row's largest magnitude / 127); the int32 product is scaled back and
    the bias, activation and residual follow in f32. Convolutions with a
    constant f32 weight become `graph.conv_int8` on uint8 activations
    quantized per tensor at run time (DynamicQuantizeLinear's scale and
    zero point, passed to the kernel) and int8 weights per output channel.
    Products without a constant weight (attention's) stay in floating
    point. See passes/Precision/QuantizeDynamic.cpp.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphFoldQdq : Pass<"graph-fold-qdq", "mlir::func::FuncOp"> {
  let summary = "Run imported Q/DQ linear layers on the int8 kernels";
  let description = [{
    A linear layer between DequantizeLinear ops (a model quantized by
    another tool, QDQ form): an int8 or uint8 activation scaled per tensor
    times a constant int8 [K, N] weight, symmetric, per tensor or per
    column, becomes graph.linear_int8 on the quantized operands, with
    column scales sa * sw and the activation's zero point folded into the
    bias; a graph.matmul of two such operands folds the same way. An
    activation quantized per tensor at run time (ONNX Runtime's
    quantize_dynamic, whose MatMulInteger form canonicalizes to Q/DQ) is
    quantized per token instead, as graph-quantize-dynamic does, and the
    weight used as is. A graph.qlinear_matmul by a run-time operand (a
    QOperator transformer's attention products), its scales f32 and every
    parameter per tensor, runs the integers' product on the f32 GEMM
    (exact while partial sums stay below 2^24), one multiplier and a
    quantize of scale 1. See passes/Precision/FoldQdq.cpp.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphQuantizeObserve : Pass<"graph-quantize-observe", "mlir::func::FuncOp"> {
  let summary = "Return the activations static int8 quantization will scale";
  let description = [{
    The calibration program of `--quantize=int8`: each activation that
    graph-quantize-static would quantize (the input of the linear layers
    graph-quantize-dynamic also takes, one per group of layers that read
    it) becomes an extra result of the function, named
    `shardc_calib_<i>` in the order graph-quantize-static meets them. The
    driver runs the program on the calibration samples and reduces these
    results to the statistics graph-quantize-static reads. Nothing else
    changes.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphQuantizeStatic : Pass<"graph-quantize-static", "mlir::func::FuncOp"> {
  let summary = "Static int8 quantization of the linear layers (W8A8) from "
                "calibration statistics";
  let description = [{
    `--quantize=int8 --calibration=DIR`: the linear layers of
    graph-quantize-dynamic multiply int8 in int32, with each activation
    scaled by one constant found on the calibration samples (no run-time
    reduction). Per activation (q, k and v share theirs), from the
    statistics file (`stats`, written by the driver from the
    graph-quantize-observe program's runs):
    - SmoothQuant: the activation's channels are divided by
      s_j = max|x_j|^alpha / max|W_j|^(1-alpha) and the weights' rows
      multiplied by it, moving outlier channels' range into the weights;
      `smooth=auto` picks alpha per activation from 0 to 0.95 by the
      expected quantization noise of the layers' outputs, a number fixes
      it, `off` keeps s = 1;
    - the activation's clipping range: `minmax` (the largest magnitude
      seen), `percentile` (`percentile` of the magnitudes of a sample of
      rows) or `entropy` (the threshold of least KL divergence between the
      sample's histogram and its 8-bit quantization);
    - then x's int8 is quantize_linear(x * m) with m_j = 1 / (s_j * scale)
      (one map), and each layer's weight, rows scaled by s, is int8 per
      output column with the activation's scale folded into the column
      scales: graph.linear_int8 with no row scales.
    Each int8 layer gets `graph.quant` (scheme, group, alpha, clip, method
    and its SQNR on the sampled rows) for --emit=quant-report; the layers
    of the activations in `keep` stay in floating point, marked `kept`.
    See passes/Precision/QuantizeStatic.cpp.
  }];
  let options = [
    Option<"stats", "stats", "std::string", /*default=*/"\"\"",
           "The calibration statistics (JSON) the driver wrote">,
    Option<"method", "method", "std::string", /*default=*/"\"minmax\"",
           "The clipping range: minmax, percentile or entropy">,
    Option<"percentile", "percentile", "double", /*default=*/"99.99",
           "The percentile of magnitudes kept by method=percentile">,
    Option<"smooth", "smooth", "std::string", /*default=*/"\"auto\"",
           "SmoothQuant's migration strength: auto, off or 0 to 1">,
    ListOption<"keep", "keep", "int64_t",
               "Activations (by index) whose layers stay in floating point "
               "(the accuracy guard's choice)">,
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

#endif // SHARDC_PASSES_PRECISION
