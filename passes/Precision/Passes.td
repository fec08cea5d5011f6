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
    (the kernels load the narrow type and compute in float).
  }];
  let options = [
    Option<"to", "to", "std::string", /*default=*/"\"f16\"",
           "The storage type: f16 or bf16">,
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphQuantizeDynamic : Pass<"graph-quantize-dynamic", "mlir::func::FuncOp"> {
  let summary = "Dynamic int8 quantization of the linear layers (W8A8)";
  let description = [{
    `--quantize=int8-dynamic`: every `graph.linear` whose weight is a
    constant [K, N] f32 matrix multiplies int8 in int32: the weight is
    quantized here, per output column and symmetric; the activations at run
    time, per token (row) and symmetric (`quantize_linear` of x over its
    row's largest magnitude / 127); the int32 product is scaled back and
    the bias, activation and residual follow in f32. Products without a
    constant weight (attention's) stay in floating point. See
    passes/Precision/QuantizeDynamic.cpp.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

#endif // SHARDC_PASSES_PRECISION
