//===- KernCollectiveOps.td - collectives of a rank program ----*- tablegen -*-===//
//
// Included by KernOps.td. Each op is one runtime call on the rank context's
// communicator for mesh axis `axis` (sc_rank_ctx.comms[axis]): MPI on CPU
// ranks, NCCL on GPUs. They move whole buffers; a collective along another
// dim than the outermost is a kern.map around one of these (the lowering of
// dist.all_gather / dist.reduce_scatter does it). With dynamic dims
// (docs/dynamic-shapes.md) the count is the run's, from the buffers'
// symbolic shapes (KernSymbolicShapes): block r of an all-gather is at r
// times the input's elements of this run.
//
//===----------------------------------------------------------------------===//

class Kern_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Kern_Op<mnemonic, traits>;

def Kern_AllReduceOp : Kern_CollectiveOp<"all_reduce",
                                     [Kern_SymbolicShapes]> {
  let summary = "output = the group's inputs combined elementwise by `kind`";
  let description = [{
    `kind` is `sum`, `max` or `min`. Input and output have one type (they may
    be the same buffer).
  }];
  let arguments = (ins Kern_Buffer:$input, Kern_Buffer:$output, I64Attr:$axis,
                       I64Attr:$group_size, StrAttr:$kind);
  let assemblyFormat = [{
    $input `,` $output attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Kern_AllGatherOp : Kern_CollectiveOp<"all_gather",
                                     [Kern_SymbolicShapes]> {
  let summary = "output = the group's inputs one after another, in rank order";
  let description = [{
    The output holds `group_size` times the input's elements: block r is
    rank r's input.
  }];
  let arguments = (ins Kern_Buffer:$input, Kern_Buffer:$output, I64Attr:$axis,
                       I64Attr:$group_size);
  let assemblyFormat = [{
    $input `,` $output attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Kern_ReduceScatterOp : Kern_CollectiveOp<"reduce_scatter",
                                     [Kern_SymbolicShapes]> {
  let summary = "output = block `rank` of the group's inputs combined by `kind`";
  let description = [{
    The input holds `group_size` blocks of the output's size.
  }];
  let arguments = (ins Kern_Buffer:$input, Kern_Buffer:$output, I64Attr:$axis,
                       I64Attr:$group_size, StrAttr:$kind);
  let assemblyFormat = [{
    $input `,` $output attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Kern_AllToAllOp : Kern_CollectiveOp<"all_to_all",
                                     [Kern_SymbolicShapes]> {
  let summary = "block j of the input goes to rank j; block i of the output "
                "came from rank i";
  let arguments = (ins Kern_Buffer:$input, Kern_Buffer:$output, I64Attr:$axis,
                       I64Attr:$group_size);
  let assemblyFormat = [{
    $input `,` $output attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}


def Kern_SendOp : Kern_CollectiveOp<"send"> {
  let summary = "sends the input to the rank `offset` steps along the axis";
  let description = [{
    Pipeline stages: the peer is this rank's position in the axis' group
    plus `offset` (non-zero). The runtime copies the buffer and sends it
    without waiting, so the stage goes on with the next micro-batch while
    the next stage receives; the run waits for its sends at its end.
  }];
  let arguments = (ins Kern_In:$input, I64Attr:$axis, I64Attr:$group_size,
                       Kern_I64Attr:$offset);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Kern_RecvOp : Kern_CollectiveOp<"recv"> {
  let summary = "receives the output from the rank `offset` steps along the axis";
  let arguments = (ins Kern_Out:$output, I64Attr:$axis, I64Attr:$group_size,
                       Kern_I64Attr:$offset);
  let assemblyFormat = "$output attr-dict `:` type($output)";
  let hasVerifier = 1;
}
