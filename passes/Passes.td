//===- Passes.td - shardc transformation passes -----------------*- tablegen -*-===//

#ifndef SHARDC_PASSES
#define SHARDC_PASSES

include "mlir/Pass/PassBase.td"

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
