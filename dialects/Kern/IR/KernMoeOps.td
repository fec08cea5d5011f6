//===- KernMoeOps.td - mixture-of-experts kernels --------------*- tablegen -*-===//
//
// Included by KernOps.td. graph.moe lowers (LowerMoe.cpp) to
//
//   kern.moe_route      ids -> per-expert row offsets and each choice's row
//   kern.moe_permute    tokens -> rows grouped by expert
//   kern.grouped_matmul rows of expert e times its gate_up matrix
//   kern.map            silu(gate) * up
//   kern.grouped_matmul rows of expert e times its down matrix
//   kern.moe_combine    y[t] = sum_k weight[t, k] * row of (t, k)
//
// CPU: runtime/src/cpu/Moe.cpp (the GEMMs by oneDNN, one call per expert
// with its row count known at run time); CUDA: prelude moe.cuh.
//
//===----------------------------------------------------------------------===//

def Kern_MoeRouteOp : Kern_RuntimeOp<"moe_route"> {
  let summary = "row offsets per expert and the row of each choice "
                "(sc_moe_route)";
  let description = [{
    `ids`: [T, K] (i32 or i64), expert ids in [0, `num_experts`).
    `offsets`: i32 [E + 1]: expert e's rows are [offsets[e],
    offsets[e + 1]) of the permuted matrix. `slots`: i32 [T * K]: the row
    of choice (t, k), at t * K + k. Within an expert, rows follow the
    choices' order (t, then k), so the result does not depend on threads.
    An id out of range fails the run on the CPU. On CUDA (prelude
    moe.cuh), which cannot fail the run from the device, such a choice
    gets no row: its slot is -1 and offsets[E] counts only the other
    choices; kern.moe_permute skips it and kern.moe_combine adds nothing
    for it.

    ```mlir
    kern.moe_route %ids into %offsets, %slots {num_experts = 4 : i64}
      : memref<16x2xi64> into memref<5xi32>, memref<32xi32>
    ```
  }];
  let arguments = (ins Kern_In:$ids, Kern_Out:$offsets, Kern_Out:$slots,
                       Kern_I64Attr:$num_experts);
  let assemblyFormat = [{
    $ids `into` $offsets `,` $slots attr-dict `:` type($ids) `into`
    type($offsets) `,` type($slots)
  }];
}

def Kern_MoePlaceOp : Kern_RuntimeOp<"moe_place"> {
  let summary = "each choice's expert slot under a placement with copies "
                "(sc_moe_place)";
  let description = [{
    Expert load balancing (dist.moe's placement): expert e has `copies[e]`
    slots, `table[e * max_copies + c]` for c < copies[e]; the choice (t,
    k) of expert ids[t, k] goes to copy t mod copies[e], so a hot expert's
    tokens spread over its copies. `ids`: [T, K] (i32 or i64) in [0, E),
    E = copies.size(); `slots`: i32 [T, K]. An id out of range fails the
    run on the CPU. A CUDA kernel cannot fail it (moe.cuh): it writes slot
    -1 for such a choice, which the kern.moe_route after takes as out of
    range in turn, so the choice gets no row and adds nothing to its
    token's sum.

    ```mlir
    kern.moe_place %ids into %slots {copies = array<i64: 2, 1, 1>,
        max_copies = 2 : i64, table = array<i64: 0, 3, 1, -1, 2, -1>}
      : memref<16x2xi64> into memref<16x2xi32>
    ```
  }];
  let arguments = (ins Kern_In:$ids, Kern_Out:$slots,
                       DenseI64ArrayAttr:$copies, DenseI64ArrayAttr:$table,
                       Kern_I64Attr:$max_copies);
  let assemblyFormat = [{
    $ids `into` $slots attr-dict `:` type($ids) `into` type($slots)
  }];
}

def Kern_MoePermuteOp : Kern_RuntimeOp<"moe_permute"> {
  let summary = "rows[slots[t * K + k]] = x[t] (sc_moe_permute)";
  let description = [{
    `x`: [T, H]; `slots`: i32 [T * K] from kern.moe_route; `rows`:
    [T * K, H], x's element type (any: rows are copied by size).

    ```mlir
    kern.moe_permute %x, %slots into %rows
      : memref<16x32xf32>, memref<32xi32> into memref<32x32xf32>
    ```
  }];
  let arguments = (ins Kern_In:$x, Kern_In:$slots, Kern_Out:$rows);
  let assemblyFormat = [{
    $x `,` $slots `into` $rows attr-dict `:` type($x) `,` type($slots)
    `into` type($rows)
  }];
}

def Kern_GroupedMatmulOp : Kern_RuntimeOp<"grouped_matmul"> {
  let summary = "y[rows of e] = a[rows of e] x b[e] (sc_grouped_matmul)";
  let description = [{
    `a`: [P, Kd]; `b`: [E, Kd, N]; `offsets`: i32 [E + 1] (non-decreasing
    from 0 to at most P; rows past offsets[E] are left as they are); `y`:
    [P, N]. One GEMM per expert with rows, its count known only at run
    time: oneDNN with a run-time M on the CPU; on CUDA one tiled kernel
    over all P rows whose blocks find their experts in `offsets` (prelude
    moe.cuh). f32, f16, bf16 (a, b and y of one type).

    ```mlir
    kern.grouped_matmul %a, %b, %offsets into %y
      : memref<32x32xf32>, memref<4x32x96xf32>, memref<5xi32>
        into memref<32x96xf32>
    ```
  }];
  let arguments = (ins Kern_In:$a, Kern_In:$b, Kern_In:$offsets,
                       Kern_Out:$y);
  let assemblyFormat = [{
    $a `,` $b `,` $offsets `into` $y attr-dict `:` type($a) `,` type($b)
    `,` type($offsets) `into` type($y)
  }];
}

def Kern_GroupedBiasOp : Kern_RuntimeOp<"grouped_bias"> {
  let summary = "y[rows of e] += bias[e] (sc_grouped_bias)";
  let description = [{
    The biases of nn.Linear experts after their grouped GEMM: `bias`
    [E, N]; `offsets`: i32 [E + 1] as kern.grouped_matmul's (rows past
    offsets[E] are left as they are); `y`: [P, N], read and written.
    f32, f16, bf16 (bias and y of one type).

    ```mlir
    kern.grouped_bias %bias, %offsets into %y
      : memref<4x96xf32>, memref<5xi32> into memref<32x96xf32>
    ```
  }];
  let arguments = (ins Kern_In:$bias, Kern_In:$offsets, Kern_InOut:$y);
  let assemblyFormat = [{
    $bias `,` $offsets `into` $y attr-dict `:` type($bias) `,`
    type($offsets) `into` type($y)
  }];
}

def Kern_MoeCombineOp : Kern_RuntimeOp<"moe_combine"> {
  let summary = "y[t] = sum_k weights[t, k] * rows[slots[t * K + k]] "
                "(sc_moe_combine)";
  let description = [{
    `rows`: [P, H]; `weights`: [T, K] of rows' element type; `slots`: i32
    [T * K] with entries in [0, P); `y`: [T, H]. The sum runs over k in
    order, in f32 for fp16 / bf16.

    ```mlir
    kern.moe_combine %rows, %weights, %slots into %y
      : memref<32x32xf32>, memref<16x2xf32>, memref<32xi32>
        into memref<16x32xf32>
    ```
  }];
  let arguments = (ins Kern_In:$rows, Kern_In:$weights, Kern_In:$slots,
                       Kern_Out:$y);
  let assemblyFormat = [{
    $rows `,` $weights `,` $slots `into` $y attr-dict `:` type($rows) `,`
    type($weights) `,` type($slots) `into` type($y)
  }];
}

//===----------------------------------------------------------------------===//
// Expert parallelism (dist.moe): collectives on the axis' communicator
//===----------------------------------------------------------------------===//

def Kern_MoeDispatchOp : Kern_CollectiveOp<"moe_dispatch"> {
  let summary = "sends each expert's rows to the rank that holds it "
                "(sc_moe_dispatch)";
  let description = [{
    The group (`group_size` = n ranks along mesh axis `axis`) holds S
    expert slots, L = S / n per rank (rank j: slots [j * L, (j + 1) * L)).
    `rows`: [P, H], grouped by slot as kern.moe_route lays them out;
    `offsets`: i32 [S + 1], its row offsets. The rows of rank j's slots
    go to rank j: the counts first (an all-to-all of L counts per peer),
    then the rows (a variable-size all-to-all: MPI_Alltoallv on CPU
    ranks, NCCL grouped send/recv on GPUs).

    What arrives is grouped by local slot, then by sender: `recv`: [C,
    H] (C rows of room; more fails the run), `recv_offsets`: i32 [L + 1],
    `recv_counts`: i32 [n * L], at q * L + e the rows rank q sent for
    local slot e (kern.moe_return sends the results back by them).

    ```mlir
    kern.moe_dispatch %rows, %offsets into %recv, %recv_offsets, %counts
      {axis = 0 : i64, group_size = 2 : i64}
      : memref<16x32xf32>, memref<5xi32>
        into memref<32x32xf32>, memref<3xi32>, memref<4xi32>
    ```
  }];
  let arguments = (ins Kern_In:$rows, Kern_In:$offsets, Kern_Out:$recv,
                       Kern_Out:$recv_offsets, Kern_Out:$recv_counts,
                       I64Attr:$axis, I64Attr:$group_size);
  let assemblyFormat = [{
    $rows `,` $offsets `into` $recv `,` $recv_offsets `,` $recv_counts
    attr-dict `:` type($rows) `,` type($offsets) `into` type($recv) `,`
    type($recv_offsets) `,` type($recv_counts)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getLocalSlots() {
      return getRecvOffsets().getType().getDimSize(0) - 1;
    }
  }];
}

def Kern_MoeReturnOp : Kern_CollectiveOp<"moe_return"> {
  let summary = "sends the experts' results back to where kern.moe_dispatch "
                "took their rows from (sc_moe_return)";
  let description = [{
    The inverse movement of kern.moe_dispatch: `recv` [C, O] (rows in the
    dispatch's arrival layout), `recv_counts` i32 [n * L] and `offsets` i32
    [S + 1] (the dispatch's) give `rows` [P, O], row i back at row i of
    the dispatch's input.

    ```mlir
    kern.moe_return %y, %counts, %offsets into %rows
      {axis = 0 : i64, group_size = 2 : i64}
      : memref<32x32xf32>, memref<4xi32>, memref<5xi32>
        into memref<16x32xf32>
    ```
  }];
  let arguments = (ins Kern_In:$recv, Kern_In:$recv_counts,
                       Kern_In:$offsets, Kern_Out:$rows, I64Attr:$axis,
                       I64Attr:$group_size);
  let assemblyFormat = [{
    $recv `,` $recv_counts `,` $offsets `into` $rows attr-dict `:`
    type($recv) `,` type($recv_counts) `,` type($offsets) `into` type($rows)
  }];
  let hasVerifier = 1;
}
