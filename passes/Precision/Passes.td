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

#endif // SHARDC_PASSES_PRECISION
