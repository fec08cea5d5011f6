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
