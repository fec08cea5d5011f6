//===- Passes.td - Sharding: propagation and partitioning -*- tablegen -*-===//

#ifndef SHARDC_PASSES_SHARDING
#define SHARDC_PASSES_SHARDING

include "mlir/Pass/PassBase.td"

def DistPropagate : Pass<"dist-propagate", "mlir::ModuleOp"> {
  let summary = "Propagate tensor shardings from seeds through the graph";
  let description = [{
    Seeds are `dist.shard` ops (from `--tp` or the planner, or written by
    hand); the module has one `dist.mesh`. Every graph op's sharding rule
    (ShardingInterface.td) projects the shardings of its operands and
    results onto its factors, and the factors back onto the others, in both
    directions until nothing changes. For the Megatron MLP

      %w1 = dist.shard %c1 to <@mesh, [[], ["tp"]]>    (column-parallel)
      %w2 = dist.shard %c2 to <@mesh, [["tp"], []]>    (row-parallel)
      %h = graph.matmul %x, %w1      -> [[], [], ["tp"]]
      %g = graph.gelu %h             -> [[], [], ["tp"]]
      %y = graph.matmul %g, %w2      -> [[], [], []] partial = ["tp"]

    the second matmul's k factor takes "tp" from both operands, so its
    result holds partial sums over "tp" (one all-reduce, inserted by
    partitioning).

    Priorities, in order: seeds are fixed; ops whose factors are all
    parallel (elementwise, reshapes, transposes) propagate to a fixed point
    before contractions and the rest (Shardy's op priorities); within a
    pass, a factor takes the axes of the highest-priority value that has
    any (seeds first, then by the round the value got its sharding). A
    factor that needs replication takes no axes; axes whose sizes do not
    divide the factor, or that another factor of the op already uses, are
    dropped. A value whose projection disagrees with the sharding it has
    keeps its own: partitioning reshards between them. Nothing is keyed to
    names.

    The result: a `dist.shardings` array (one `#dist.sharding` per result)
    on every graph op and a `dist.sharding` attribute on every function
    argument; values nothing reached are replicated. Ops without a rule are
    replicated and marked `dist.no_rule`.
  }];
  let dependentDialects = ["shardc::dist::DistDialect"];
}

#endif // SHARDC_PASSES_SHARDING
