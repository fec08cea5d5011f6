//===- GraphMoeOps.td - mixture of experts ---------------------*- tablegen -*-===//
//
// Included by GraphOps.td. graph-fuse-moe (passes/Fusion/FuseMoe.cpp)
// creates `graph.moe` from the expert loop exporters emit; the router
// (logits, softmax, top-k, normalization) stays ordinary graph ops and
// feeds it `weights` and `ids`.
//
//===----------------------------------------------------------------------===//

def Graph_MoeOp : Graph_Op<"moe", [AttrSizedOperandSegments]> {
  let summary = "dropless mixture of SwiGLU experts: y[t] = sum_k "
                "weights[t, k] * expert_{ids[t, k]}(x[t])";
  let description = [{
    `input` x: [T, H] tokens (a float type). `weights`: [T, K], x's type,
    the routing weight of each token's k-th choice. `ids`: [T, K] (i32 or
    i64), its expert, in [0, E). `gate_up`: [E, H, 2F], expert e's gate
    projection in columns [0, F) and its up projection in [F, 2F).
    `down`: [E, F, H]. With `g = x[t] gate_up[e][:, :F]` and
    `u = x[t] gate_up[e][:, F:]`,

      expert_e(x[t]) = (silu(g) * u) down[e]

    and the result is [T, H]. With `biases` (nn.Linear experts; both or
    neither), `gate_up_bias` [E, 2F] is added to `[g | u]` and `down_bias`
    [E, H] to the expert's output. Dropless: every (t, k) is computed, no token
    is dropped for capacity. The kernels permute the T * K choices by
    expert, run one grouped GEMM per projection and combine the rows back
    (kern.moe_route, kern.moe_permute, kern.grouped_matmul,
    kern.moe_combine). An id outside [0, E) fails the run on the CPU; the
    CUDA kernels drop that choice (it adds nothing), as their gathers read
    zero for a bad index. graph-fuse-moe only creates the op for ids of a
    top-k over E, which are always in range.

    ```mlir
    %y = graph.moe %x, %w, %ids, %gate_up, %down
      : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>,
        tensor<4x32x96xf32>, tensor<4x48x32xf32> -> tensor<16x32xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weights,
                       Graph_IndexTensor:$ids, Graph_Tensor:$gate_up,
                       Graph_Tensor:$down,
                       Optional<Graph_Tensor>:$gate_up_bias,
                       Optional<Graph_Tensor>:$down_bias);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weights `,` $ids `,` $gate_up `,` $down
    (`biases` $gate_up_bias^ `,` $down_bias)? attr-dict `:`
    type($input) `,` type($weights) `,` type($ids) `,` type($gate_up) `,`
    type($down) (`,` type($gate_up_bias)^ `,` type($down_bias))? `->`
    type($output)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$weights,
                   "::mlir::Value":$ids, "::mlir::Value":$gate_up,
                   "::mlir::Value":$down), [{
      build($_builder, $_state, input, weights, ids, gate_up, down,
            ::mlir::Value(), ::mlir::Value());
    }]>
  ];
  let extraClassDeclaration = [{
    int64_t getNumTokens() { return tensorOf(getInput()).getDimSize(0); }
    int64_t getHidden() { return tensorOf(getInput()).getDimSize(1); }
    int64_t getTopK() { return tensorOf(getIds()).getDimSize(1); }
    int64_t getNumExperts() { return tensorOf(getDown()).getDimSize(0); }
    int64_t getFfn() { return tensorOf(getDown()).getDimSize(1); }
  }];
}
