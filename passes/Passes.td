//===- Passes.td - shardc transformation passes -----------------*- tablegen -*-===//

#ifndef SHARDC_PASSES
#define SHARDC_PASSES

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

def KernPlanMemory : Pass<"kern-plan-memory", "mlir::func::FuncOp"> {
  let summary = "Place every kern.alloc in the arena by liveness";
  let description = [{
    Static memory planning. Each `kern.alloc` is live from the op that
    defines it to the last op that reads it (directly or through
    `kern.view`s). Buffers are placed largest first at the lowest 64-byte
    aligned offset that overlaps no placed buffer whose live range
    intersects (greedy by size, as in TFLite's arena planner). Sets `offset`
    on every alloc, and `kern.arena_bytes` (the peak) and
    `kern.unplanned_bytes` (the sum of all buffers) on the function.
  }];
}

def KernPlanWeights : Pass<"kern-plan-weights", "mlir::func::FuncOp"> {
  let summary = "Lay out the kern.weight tensors of the rank's weights section";
  let description = [{
    Gives every `kern.weight` a 64-byte aligned `offset` in program order
    and sets `kern.weights_bytes` on the function.
  }];
}

#endif // SHARDC_PASSES
