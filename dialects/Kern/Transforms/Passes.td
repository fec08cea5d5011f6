//===- Passes.td - kern dialect transformations -*- tablegen -*-===//

#ifndef SHARDC_KERN_TRANSFORMS
#define SHARDC_KERN_TRANSFORMS

include "mlir/Pass/PassBase.td"

def KernFuseElementwise : Pass<"kern-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse producer maps into the maps and reductions they feed";
  let description = [{
    A `kern.map` whose output buffer is read only by one later `kern.map` or
    `kern.reduce` is inlined into it: the producer's body is cloned into the
    consumer's, its input accesses composed with the consumer's access to
    the intermediate, and the intermediate buffer disappears. The rules for
    when not to fuse are in dialects/Kern/Transforms/FuseElementwise.cpp.
  }];
}

def KernChannelsLast : Pass<"kern-channels-last", "mlir::func::FuncOp"> {
  let summary = "Store the activations around convolutions channels-last";
  let description = [{
    An arena buffer that a `kern.conv` reads as x or residual or writes as
    y, and whose
    other uses can all take it channels-last (convolutions, `kern.pool`
    ops, maps and reductions whose accesses split per dim), gets the type
    `[N, spatial..., C]`; the convolutions and pools that use it are flagged
    and the maps and reductions read it through permuted strides. oneDNN
    then runs the convolutions on its nhwc kernels without reordering their
    activations in and out. For programs without CUDA code (the cuDNN call
    and the CUDA pooling take NCHW); see dialects/Kern/Transforms/ChannelsLast.cpp for the
    rules.
  }];
  let dependentDialects = ["shardc::kern::KernDialect"];
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
    and sets `kern.weights_bytes` on the function. In a program that serves
    several ranks (after kern-merge-ranks), the weights every rank reads
    alike (those without `kern.per_rank`) come first, padded to 64 KiB, and
    `kern.weights_shared_bytes` records their extent: the weights file
    stores that head once for all the program's ranks. Only when they hold
    at least `min-shared-bytes`: below, the padding would cost more than
    the copies save.
  }];
  let options = [
    Option<"minSharedBytes", "min-shared-bytes", "int64_t",
           /*default=*/"int64_t(1) << 20",
           "Share the weights a program's ranks read alike when they hold at "
           "least this many bytes">,
  ];
}

def KernMergeRanks : Pass<"kern-merge-ranks", "mlir::ModuleOp"> {
  let summary = "Merge rank programs that differ only in constants into one SPMD program";
  let description = [{
    Partitioning writes one program per rank; the ranks of a tp, ep or dp
    group then hold the same code on their own slices. Rank programs
    (`func.func`s with `kern.ranks`) whose bodies have the same ops, operand
    order, types, buffers (allocs, views, weight offsets) and function
    attributes are merged into the first: its `kern.ranks` lists them all,
    in order (a rank's slot), and each op whose attributes differ between
    them keeps the first rank's and lists every slot's value in
    `kern.per_rank` (`{name = [slot 0's, slot 1's, ...]}`): a weight's
    data, a gather's vocabulary offset, a map's base offset into the
    batch. Code generation then compiles the program once, writes one
    weights section per rank and emits a statement whose arguments differ
    as a switch on the rank context. Programs that differ in a shape (an
    uneven shard) or a buffer stay separate.
  }];
}

#endif // SHARDC_KERN_TRANSFORMS
