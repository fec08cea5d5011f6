//===- Passes.td - Sharding: propagation and partitioning -*- tablegen -*-===//

#ifndef SHARDC_PASSES_SHARDING
#define SHARDC_PASSES_SHARDING

include "mlir/Pass/PassBase.td"

def DistPlan : Pass<"dist-plan", "mlir::ModuleOp"> {
  let summary = "Choose the mesh with the planner and write its seeds";
  let description = [{
    `--devices=N`: the planner's hook into the dist phase, as Shardy's
    auto-partitioner writes only the mesh and the seeds for propagation to
    finish. The pass reads the model's figures off the graph
    (PlanSummary.h: FLOPs, weights, heads, experts, pipeline cuts, and what
    a trial Megatron split leaves whole at each tp it prices), ranks every
    dp x pp x ep x tp family on `devices` ranks of `cluster` with
    lib/Planner's cost model (`objective`: latency or throughput), and lets
    the partitioner judge: the best plan whose trial partition succeeds (a
    clone through `shardc-dist-pipeline` with its degrees) is chosen; one
    the partitioner refuses moves to the rejected with its reason. With
    `plan-file`, the file's plan is priced and chosen as written.

    The chosen plan's seeding part of `shardc-dist-pipeline`
    (micro-batches, dist-pad-batch, dist-pipeline, the seed passes: option
    `seeds-only`) then runs on the module; `dist-propagate` and
    `dist-partition` after this pass do the rest. The trial and seeding
    pipelines are looked up by name in the pass registry (the pipelines
    library builds on this one), so `shardc::registerPipelines` must have
    run.

    Error, when no family runs: `--devices=N on CLUSTER: no plan runs`
    with the first three reasons.
  }];
  let options = [
    Option<"devices", "devices", "int64_t", /*default=*/"0",
           "Ranks to plan for (0 with plan-file: the file's)">,
    Option<"cluster", "cluster", "std::string", /*default=*/"",
           "A cluster preset or JSON spec (lib/Planner: Cluster.h; default: "
           "the plan file's, else cpu)">,
    Option<"objective", "objective", "std::string",
           /*default=*/"\"latency\"", "latency or throughput">,
    Option<"precision", "precision", "std::string", /*default=*/"\"fp32\"",
           "The compiled precision the cost model prices (fp32, tf32, fp16 "
           "or bf16)">,
    Option<"planFile", "plan-file", "std::string", /*default=*/"",
           "Price and seed exactly this plan file's plan (--plan=FILE)">,
    ListOption<"expertLoads", "expert-loads", "int64_t",
               "Tokens per expert per layer, for dist-seed-experts">,
    Option<"expertRedundant", "ep-redundant", "int64_t", /*default=*/"0",
           "Extra copies of the hottest experts per layer">
  ];
  let dependentDialects = ["shardc::dist::DistDialect",
                           "shardc::graph::GraphDialect",
                           "mlir::func::FuncDialect"];
}

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
    `--tp=N`: adds axis "tp" of size N to the module's `dist.mesh @mesh` (making
    `dist.mesh @mesh axes = ["tp"] shape = [N]` when there is none) and seeds,
    found from the graph's structure (the fused ops), never from names:

    - every `graph.attention` is split by heads: its q, k and v get
      `dist.shard` with the heads dim (the one before the last two) over
      "tp";
    - every `graph.linear` with an activation (the MLP's first projection)
      is column-parallel: its weight's columns over "tp"; so are both
      inputs of a `graph.swiglu` (a gated MLP's gate and up projections);
    - the LM head (a projection by a constant whose result the program
      returns, possibly through graph-pad-columns' slice) is
      column-parallel, and the logits are all-gathered.
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

    A vocabulary that `tp` does not divide (GPT-2's 50257 rows) is padded
    with zeros to the next multiple, as Megatron-LM and vLLM pad theirs:
    the embedding's table gets zero rows (negative ids are wrapped by the
    real row count first), the LM head zero columns, and a `graph.slice`
    after the head drops their logits once partitioning has gathered them.
    The padded constant is never made whole: it is a window of the original
    (`graph.source`, see graph::Window), and dist-partition cuts each rank's
    block from it with zeros past its end (`dist.padded_from` keeps the
    original shape for the plan report).

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

    Per-layer strategies (the planner's, `--plan=FILE`): `whole-embedding`
    and `whole-head` leave those whole on every rank, and
    `replicated-layers` lists layers that get no seeds. Layer i is the i-th
    `graph.attention` in program order; an MLP belongs to the layer of the
    last attention before it, a norm to the layer of the next attention or
    MLP after it. Propagation and partitioning reshard at the borders (a
    replicated layer after a sequence-parallel one all-gathers its input).
  }];
  let options = [
    Option<"tp", "tp", "int64_t", /*default=*/"1",
           "The tensor-parallel degree (the size of mesh axis tp)">,
    Option<"sp", "sp", "bool", /*default=*/"false",
           "Sequence parallelism: norms and the residual stream split "
           "along the tokens over tp">,
    Option<"wholeEmbedding", "whole-embedding", "bool", /*default=*/"false",
           "Leave the embedding whole on every rank (no vocab-parallel "
           "split, no all-reduce)">,
    Option<"wholeHead", "whole-head", "bool", /*default=*/"false",
           "Leave the LM head whole on every rank (no column-parallel "
           "split, no all-gather of the logits)">,
    ListOption<"replicatedLayers", "replicated-layers", "int64_t",
               "Layers (by attention, from 0) left replicated: no seeds on "
               "their attention, MLP or norms">,
  ];
  let dependentDialects = ["shardc::dist::DistDialect",
                           "shardc::graph::GraphDialect"];
}

def DistSeedBatch : Pass<"dist-seed-batch", "mlir::ModuleOp"> {
  let summary = "Seed a split of the batch (the inputs' leading dim) over "
                "one mesh axis";
  let description = [{
    Adds axis `axis` of size `parts` to the module's `dist.mesh @mesh` (or
    makes it) and seeds every program input, and every value a pipeline
    stage receives (`dist.recv`), whose leading dim `parts` divides:

      %x = dist.shard %arg0 to <@mesh, [["dp"], [], []]>

    Data parallelism (`--dp=N`: axis "dp") is this seed followed by
    `dist-propagate` and `dist-partition`: each replica computes its rows,
    and only the outputs are gathered. Micro-batching uses it with axis
    "mb" (see `dist-microbatch`). A program with no such input is an error
    that lists the inputs' shapes.
  }];
  let options = [
    Option<"axis", "axis", "std::string", /*default=*/"\"dp\"",
           "The mesh axis the batch is split over">,
    Option<"parts", "parts", "int64_t", /*default=*/"1",
           "The number of parts (the axis' size)">,
  ];
  let dependentDialects = ["shardc::dist::DistDialect"];
}

def DistPadBatch : Pass<"dist-pad-batch", "mlir::ModuleOp"> {
  let summary = "Pad a batch that the data-parallel parts or micro-batches "
                "do not divide";
  let description = [{
    Before `dist-seed-batch` (and `dist-pipeline`): when `parts` does not
    divide the batch B (the inputs' largest leading dim), the program is
    re-typed to B' = parts * ceil(B / parts) rows. Part r holds its
    balanced share of the real rows (B / parts, plus one for the first
    B % parts parts; none when B < parts), then copies of its last real
    row, which compute exactly what that row computes and are dropped.

    The dims that carry the batch are those linked to the inputs' leading
    dim through sharding-rule factors that are the major factor of their
    dims. Refused, with the node named: an op that reduces over the batch
    or needs it whole, one that folds it under another dim, an op without
    a sharding rule on a batch dim, and a shape attribute that cannot take
    the padded size.

    With axis "dp" the inputs and outputs keep their shapes: a
    `graph.gather` of constant indices lays out the padded rows (marked
    `dist.batch_source = dim`, which `dist-seed-batch` seeds) and another
    drops the padding from each output:

      %p = graph.gather %arg0, %idx {axis = 0} {dist.batch_source = 0}
          : (tensor<3x16xi64>, tensor<4xi64>) -> tensor<4x16xi64>

    With axis "mb" the inputs and outputs take the padded shape and the
    function gets `dist.batch_items = B`: `dist-microbatch` keeps one
    micro-batch's program and the runtime fills each micro-batch's rows.
    A batch that `parts` divides is left as it is.
  }];
  let options = [
    Option<"axis", "axis", "std::string", /*default=*/"\"dp\"",
           "dp (gathers inside the program) or mb (the runtime pads)">,
    Option<"parts", "parts", "int64_t", /*default=*/"1",
           "The number of parts the batch is split into">,
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def DistSeedExperts : Pass<"dist-seed-experts", "mlir::ModuleOp"> {
  let summary = "Seed expert parallelism: every graph.moe's experts split "
                "over mesh axis ep";
  let description = [{
    `--ep=N`: adds axis "ep" of size N to the module's `dist.mesh @mesh`
    and seeds the stacked expert weights of every `graph.moe` split along
    the experts:

      %gu = dist.shard %c0 to <@mesh, [["ep"], [], []]>
      %dn = dist.shard %c1 to <@mesh, [["ep"], [], []]>
      %y = graph.moe %x, %w, %ids, %gu, %dn ...

    so that each rank of an ep group holds E / N consecutive experts.
    `dist-partition` then makes each such op a `dist.moe` on "ep": the
    tokens are split over the group (and over mesh axes nothing else
    splits the op along, such as "tp"), each rank sends its tokens' rows
    to their experts' ranks by all-to-all, and the results come back and
    are all-gathered. Everything else (attention, norms, the router) is
    replicated over "ep", or split by the other axes' seeds. A model
    without `graph.moe`, or an expert count that N does not divide, is an
    error that names the op and the count.

    With `loads` (each layer's tokens per expert, measured by
    `--calibration`), experts are placed by DeepSeek's EPLB greedy
    (ExpertPlacement.h): the `redundant` hottest get extra copies and the
    copies are packed so that the busiest rank carries as little as
    possible. The stacked weights become the slots' ([E + redundant, ..],
    built at compile time) and the op records the placement and the
    expected tokens per rank before and after, which `dist-partition`
    and the plan read:

      %y = graph.moe ... {dist.placement = array<i64: 0, 3, 1, 2, 0, 2>,
                          dist.load_before = array<i64: 60, 20, 20>,
                          dist.load_after = array<i64: 34, 33, 33>}
  }];
  let options = [
    Option<"ep", "ep", "int64_t", /*default=*/"1",
           "The expert-parallel degree (the size of mesh axis ep)">,
    ListOption<"loads", "loads", "int64_t",
               "Tokens routed to each expert in calibration, layer after "
               "layer in program order (--calibration)">,
    Option<"redundant", "redundant", "int64_t", /*default=*/"0",
           "Extra expert copies per layer for the hottest experts "
           "(--ep-redundant; needs loads)">,
  ];
  let dependentDialects = ["shardc::dist::DistDialect"];
}

def DistMicrobatch : Pass<"dist-microbatch", "mlir::ModuleOp"> {
  let summary = "Keep the program of one micro-batch";
  let description = [{
    `--microbatches=M` runs `dist-seed-batch{axis=mb parts=M}`,
    `dist-propagate` and `dist-partition`, then this pass: the M programs
    the partitioner made (one per micro-batch) must be the same code with
    the same constants; the first becomes `@main` again, at one
    micro-batch's shapes, with `dist.batched` on the inputs and outputs
    whose leading dim is the micro-batch's rows and `dist.microbatches = M`
    on the module. The runtime runs it M times, on consecutive blocks of
    rows (the pipeline stages overlap them). A batch `dist-pad-batch`
    padded (`dist.batch_items` on the function) moves that count to the
    module: the runtime then gives micro-batch k its share of the rows.

    The sharding rules decide whether rows are independent. Refused, with
    the op named: an op that needs other micro-batches' rows (any
    collective on "mb": attention over a leading sequence dim, a reduction
    over the batch), an output that is not split along its leading dim, an
    input both split and read whole, and a constant that differs between
    micro-batches.
  }];
}

def DistPipeline : Pass<"dist-pipeline", "mlir::ModuleOp"> {
  let summary = "Cut the program into pipeline stages joined by send/recv";
  let description = [{
    `--pp=N`: adds axis "pp" of size N to the module's `dist.mesh @mesh`
    and replaces `@main` by `@main_stage0` ... `@main_stage<N-1>`
    (`dist.stage = s`, and `dist.stage_flops`, the stage's estimated
    cost). A stage is a run of consecutive ops; a cut goes where exactly
    one tensor is live across it (between layers: the hidden state), and
    the stages exchange it:

      stage 0:  ... %h = graph.add ...  dist.send %h on @mesh axes = ["pp"] offset = 1
      stage 1:  %h = dist.recv on @mesh axes = ["pp"] offset = -1 : tensor<...>  ...

    Inputs and constants never cross: each stage binds the inputs it reads
    and copies the constants it uses. The cuts minimize the most expensive
    stage's estimated FLOPs (2MNK per contraction, 4·rows·keys·dim per
    attention, one per element otherwise) by dynamic programming over the
    candidate points. Fewer candidate points than N - 1 is an error that
    says how many stages the graph allows.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"1",
           "The number of pipeline stages (the size of mesh axis pp)">,
  ];
  let dependentDialects = ["shardc::dist::DistDialect"];
}

def DistKeepNan : Pass<"dist-keep-nan", "mlir::func::FuncOp"> {
  let summary = "Max and min collectives of floats that keep a NaN (NCCL's "
                "drop it)";
  let description = [{
    NCCL reduces floats with `fmaxf`/`fminf` (and halves with
    `__hmax`/`__hmin`), which return the other operand when one is NaN: a
    NaN on one rank would vanish where the reduction on one rank gives
    NaN. Each `dist.all_reduce` and `dist.reduce_scatter` of kind max or
    min on floats gets an OR of a NaN mask over the same axes (a max of
    booleans) and a select of NaN where any rank had one:

      %eq  = graph.equal %x, %x
      %nan = graph.not %eq
      %any = dist.all_reduce %nan on @mesh axes = ["tp"] kind = "max"
      %r   = dist.all_reduce %x on @mesh axes = ["tp"] kind = "max"
      %y   = graph.where %any, %quiet_nan, %r

    `shardc-kern-pipeline` runs it for programs with CUDA code; the CPU
    ranks' MPI reductions keep NaN by themselves.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect",
                           "shardc::dist::DistDialect"];
}

def DistKvCacheAppend : Pass<"dist-kv-cache-append", "mlir::ModuleOp"> {
  let summary = "Gather a partitioned KV cache's new entries before the "
                "append, so the present grows in place";
  let description = [{
    Under tensor parallelism each rank computes the keys and values of its
    heads. A KV cache's present (`graph-kv-cache`) then reaches the output
    as the all-gather of each rank's append to its slice of the past:

      %s = graph.slice %past (this rank's heads, along dim G)
      %c = graph.concat %s, %new {axis = A}          (the cache axis)
      %g = dist.all_gather %c ... dim = G             (returned: the present)

    which reads the past as an input, copies all of it into the gather and
    sends it between the ranks at every step. Since a gather along G
    commutes with a concat along A, this pass gathers the new entries
    only and appends them to the whole past, and the rank's heads are read
    back from the present:

      %n = dist.all_gather %new ... dim = G
      %p = graph.concat %past, %n {axis = A}          (returned)
      %c = graph.slice %p (this rank's heads, along dim G)

    The concat is now the past's one use, so the lowering appends in place
    (`LowerShape.cpp`, `appendToCache`): the cache stays in the present
    output's buffer between steps, whole on every rank, and a step moves
    only its new entries. Runs on the rank functions (`kern.ranks`) before
    the lowering, rewriting a past input on all of them or none, and only
    where exact: the gather rebuilds the past's extent along G, and each
    rank's slice is its part in the gather's order.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect",
                           "shardc::dist::DistDialect"];
}

def GraphPadColumns : Pass<"graph-pad-columns", "mlir::func::FuncOp"> {
  let summary = "Pad the columns of wide products by constants to whole "
                "16-byte rows (a vocabulary padded as Megatron-LM pads it)";
  let description = [{
    A `graph.matmul` by a constant 2-D weight [K, N] whose output rows are
    not a whole number of 16 bytes (N x element bytes), with N at least
    `min-columns`, gets the weight padded with zero columns to a multiple
    of `multiple` (a window of the weight's data, never copied; the
    padding reads as zeros) and a slice that drops the padded columns:

      %y = graph.matmul %x, %w : ..., tensor<768x50257xf16> -> tensor<8x512x50257xf16>
    becomes
      %w2 = graph.constant ... : tensor<768x50304xf16>     (a window of %w)
      %wide = graph.matmul %x, %w2 -> tensor<8x512x50304xf16>
      %y = graph.slice %wide [0, 0, 0] to [8, 512, 50257]

    cuBLASLt runs the odd vocabulary of an LM head (GPT-2's 50257) without
    16-byte vector loads: 126 TFLOP/s on an H200 where the padded product
    reaches 787 (docs/performance.md). `shardc-graph-pipeline` runs it for
    programs with CUDA code; 128 columns keep every rank's block aligned
    under tensor parallelism up to 16, and dist-seed-megatron splits the
    wide product's columns (the slice after the gather).
  }];
  let options = [
    Option<"multiple", "multiple", "int64_t", /*default=*/"128",
           "The padded column count's multiple">,
    Option<"minColumns", "min-columns", "int64_t", /*default=*/"1024",
           "Narrower products are left alone (the slice's copy would "
           "cost more than it saves)">,
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
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

def DistVerify : Pass<"dist-verify", "mlir::ModuleOp"> {
  let summary = "Check what the dist phase hands on: propagated shardings "
                "or complete per-rank programs";
  let description = [{
    The last pass of `--shardc-dist-pipeline`, as Shardy and IREE end a
    phase: a check of the invariants the next phase relies on, so that a
    partitioning bug fails here, naming the op, instead of as a wrong
    answer on some rank.

    A module of per-rank programs (functions with `kern.ranks`, after
    `dist-partition`): one `dist.mesh`; every rank of the mesh in exactly
    one function's `kern.ranks`; nothing of the global program left (no
    `dist.shard`, no `dist.shardings` or `dist.sharding` attributes).

    A propagated module (no rank programs): every `dist.shardings` holds
    one sharding per result, and it and every argument's `dist.sharding`
    fit their tensor on the mesh (axes of the mesh, each once, split dims
    divisible by their axes' sizes: `ShardingAttr::verifyFor`).

    Changes nothing.
  }];
  let dependentDialects = ["shardc::dist::DistDialect"];
}

#endif // SHARDC_PASSES_SHARDING
