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

def DistSeedMegatron : Pass<"dist-seed-megatron", "mlir::ModuleOp"> {
  let summary = "Seed tensor parallelism the way Megatron-LM splits a "
                "transformer";
  let description = [{
    `--tp=N`: adds `dist.mesh @mesh axes = ["tp"] shape = [N]` and seeds,
    found from the graph's structure (the fused ops), never from names:

    - every `graph.attention` is split by heads: its q, k and v get
      `dist.shard` with the heads dim (the one before the last two) over
      "tp";
    - every `graph.linear` with an activation (the MLP's first projection)
      is column-parallel: its weight's columns over "tp"; so are both
      inputs of a `graph.swiglu` (a gated MLP's gate and up projections);
    - the LM head (a projection by a constant whose result the program
      returns) is column-parallel, and the logits are all-gathered.
    - every convolution by constant filters is split on its output
      channels (the filters' first dim over "tp"); the next convolution
      all-gathers its input's channels, a grouped (depthwise) one reads
      only its ranks' channels.

    Propagation does the rest: the projections that make q, k and v become
    column-parallel, the out-projection and the MLP's second projection
    row-parallel with one all-reduce each. A fused QKV projection whose
    output is split into q, k and v is first rewritten into one projection
    per part (its weight and bias columns sliced at compile time), so that
    each can be split by heads. Heads or hidden sizes that `tp` does not
    divide are left unsplit (that op is replicated).

    `sp=true` adds Megatron's sequence parallelism on the same axis: the
    input of every `graph.layer_norm` and `graph.rms_norm` is split along
    a token dim (the largest leading dim that `tp` divides; the sequence
    in a [batch, seq, hidden] stream) over "tp":

      %s = dist.shard %x to <@mesh, [[], ["tp"], []]>
      %n = graph.layer_norm %s, %scale, %bias ...

    Propagation carries the split to the residual stream (residual adds,
    the row-parallel projections' results) and to the norms' outputs;
    partitioning then turns each row-parallel all-reduce into a
    reduce-scatter along the tokens and all-gathers the tokens before the
    next column-parallel projection: per layer 2 reduce-scatters and 2
    all-gathers of the same total volume as TP's 2 all-reduces.
  }];
  let options = [
    Option<"tp", "tp", "int64_t", /*default=*/"1",
           "The tensor-parallel degree (the size of mesh axis tp)">,
    Option<"sp", "sp", "bool", /*default=*/"false",
           "Sequence parallelism: norms and the residual stream split "
           "along the tokens over tp">,
  ];
  let dependentDialects = ["shardc::dist::DistDialect",
                           "shardc::graph::GraphDialect"];
}

def DistPartition : Pass<"dist-partition", "mlir::ModuleOp"> {
  let summary = "Turn the propagated global program into per-rank programs";
  let description = [{
    After `dist-propagate`: one `func.func @<name>_rank<r>` per device of
    the mesh (`kern.ranks = array<i64: r>`; MPMD: ranks of a group run the
    same code on their own slices), with local shapes, constants sliced for
    the rank at compile time, and the collectives that give each op the
    layout its rule needs:

      %h = graph.linear %x, %w1 ...          (w1 column-parallel)
      %y = graph.linear %h, %w2 bias %b residual %r
    becomes on rank r
      %w1r = graph.constant <rank r's columns of w1>
      %h = graph.linear %x, %w1r ...         (local [.., 256 / tp])
      %w2r = graph.constant <rank r's rows of w2>
      %p = graph.linear %h, %w2r             (partial sums)
      %s = dist.all_reduce %p on @mesh axes = ["tp"] kind = "sum"
      %y = graph.add (graph.add %s, %b), %r

    An operand laid out differently from what its op needs is all-gathered
    along its split dims and sliced to the needed layout; results holding
    partial sums are all-reduced at once. Arguments arrive whole on every
    rank and results leave whole (all-gathered). Ops without a rule run
    replicated.
  }];
  let dependentDialects = ["shardc::dist::DistDialect",
                           "shardc::graph::GraphDialect"];
}

#endif // SHARDC_PASSES_SHARDING
