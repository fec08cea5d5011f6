//===- Passes.td - Fusion: recognize decomposed patterns as fused graph ops -*- tablegen -*-===//

#ifndef SHARDC_PASSES_FUSION
#define SHARDC_PASSES_FUSION

include "mlir/Pass/PassBase.td"

def GraphFuseNorms : Pass<"graph-fuse-norms", "mlir::func::FuncOp"> {
  let summary = "Recognize decomposed LayerNorm and RMSNorm";
  let description = [{
    Rewrites the decompositions exporters emit into `graph.layer_norm` and
    `graph.rms_norm`. A match is rooted at `n = num / sqrt(ms + eps)` (a
    Div by a Sqrt, or a Mul by `Reciprocal(Sqrt)` or `Div(1, Sqrt)`), with
    `eps` a constant and `ms = ReduceMean(Pow(num, 2) | Mul(num, num))`
    keeping dims over contiguous axes that end at the last one. PyTorch's
    opset-14 LayerNorm

      %m = graph.reduce_mean %x {axes = array<i64: 2>}
      %d = graph.sub %x, %m
      %p = graph.pow %d, %two
      %v = graph.reduce_mean %p {axes = array<i64: 2>}
      %a = graph.add %v, %eps
      %s = graph.sqrt %a
      %n = graph.div %d, %s
      %y = graph.mul %n, %gamma
      %z = graph.add %y, %beta

    becomes `graph.layer_norm %x, %gamma, %beta {axis = 2, epsilon = eps}`.
    `num = Sub(x, ReduceMean(x))` over the same axes makes a LayerNorm
    (gamma and beta optional, in either operand order); any other `num` an
    RMSNorm of it (or of `x` when `num = Cast(x)` widens, HF's fp32
    upcast, with the cast back absorbed) times an optional weight. Every
    intermediate must have no other user; gamma, beta and the weight must
    vary along the normalized axes only. Look-alikes (another epsilon
    position, a mean over other axes, a different exponent) are left alone.
    The accepted forms are listed in passes/Fusion/FuseNorms.cpp.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphFuseActivations : Pass<"graph-fuse-activations", "mlir::func::FuncOp"> {
  let summary = "Recognize GELU (erf and tanh forms), SiLU and SwiGLU";
  let description = [{
    Rewrites decomposed activations into `graph.gelu`, `graph.silu` and
    `graph.swiglu`. PyTorch's exact GELU (opsets 14 and 17)

      %0 = graph.div %x, %sqrt2
      %1 = graph.erf %0
      %2 = graph.add %1, %one
      %3 = graph.mul %x, %2
      %4 = graph.mul %3, %half

    becomes `graph.gelu %x`; the three factors may come in any order and
    association, `x / sqrt(2)` may be `x * (1 / sqrt(2))`. The tanh form
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` (cube as `Pow(x, 3)`
    or `x * x * x`) becomes `approximate = "tanh"`; `x * sigmoid(x)` a
    `graph.silu`; `silu(a) * b` with `a`, `b` and the result of one type a
    `graph.swiglu`. Constants match within 1e-4 relative (one ulp of fp16 /
    bf16 graphs); look-alikes with other constants, another tensor or an
    intermediate used elsewhere are left alone (see
    passes/Fusion/FuseActivations.cpp).
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphFuseAttention : Pass<"graph-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "Recognize scaled dot-product attention";
  let description = [{
    MatMul(q, k^T), a scale (Div or Mul of the scores by a constant scalar,
    or of q / k^T before the product), optional masks (Add of a tensor, or
    Where with a -inf or <= -1e4 fill), Softmax over the last axis and
    MatMul with v become one `graph.attention`. A constant mask that is
    exactly causal (constant triangles, Trilu of ones) sets `causal`; other
    boolean masks become additive ones. k^T's transpose is folded into k's
    (GPT-2's perm 0,2,3,1 becomes 0,2,1,3). See passes/Fusion/FuseAttention.cpp
    for the forms and the look-alikes that are not fused.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphFuseMoe : Pass<"graph-fuse-moe", "mlir::func::FuncOp"> {
  let summary = "Recognize a dropless mixture-of-experts block";
  let description = [{
    Rewrites the expert loop of Hugging Face's MoE blocks (Mixtral,
    Qwen2-MoE, OLMoE), as the importer carries it with padded rows, into one
    `graph.moe`: an Add tree holding, for every expert e of one top-k over
    E experts,

      reduce_sum(where(M_e, Y_e * W, 0), axis 0)

    where the mask `M_e[k, t]` is `ids[t, k] == e` (torch's one_hot,
    permuted, at column e), `W[k, t]` is the routing weight `weights[t, k]`
    (a gather by the constant table t * K + k) and `Y_e` is the expert's
    SwiGLU MLP on the tokens, `down(silu(x gate) * (x up))` with constant
    weights. The experts' weights are stacked into `gate_up` [E, H, 2F] and
    `down` [E, F, H]; the router (logits, softmax, top-k, normalization)
    stays as it is and feeds `weights` and `ids`. Look-alikes (an expert
    missing or repeated, ids not from a top-k over E, another routing
    table or activation, an intermediate used elsewhere) are left alone;
    the accepted forms are listed in passes/Fusion/FuseMoe.cpp.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphFoldConvAffine : Pass<"graph-fold-conv-affine", "mlir::func::FuncOp"> {
  let summary = "Fold a per-channel scale, shift or batch norm after a "
                "convolution into its weights";
  let description = [{
    ONNX Runtime's Conv+BatchNormalization, Conv+Mul and Conv+Add fusions:

      %y = graph.conv %x, %w, %b
      %n = graph.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = e}

    becomes `graph.conv %x, %w', %b'` with `w' = w s`, `b' = (b - mean) s +
    beta` and `s = gamma / sqrt(var + e)` per output channel, computed at
    compile time; a Mul by a constant that broadcasts along the output
    channels only (a scalar, `[1]`, `[C, 1, 1]`, `[1, C, 1, 1]`) scales `w`
    and `b`, an Add of one shifts `b`. Only when the convolution has no
    other user and its weights (and bias) are f32 constants; chains fold
    one op at a time (Paddle's batch norm, then a learnable scale and
    shift), so that graph-fuse-epilogues then finds the activation right
    after the convolution. The result differs by rounding only.
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphFuseEpilogues : Pass<"graph-fuse-epilogues", "mlir::func::FuncOp"> {
  let summary = "Fold bias, activation and residual adds into GEMMs and "
                "convolutions";
  let description = [{
    A MatMul (or a Gemm with alpha 1, no transpose of A, and B either not
    transposed or a constant, which is transposed at compile time: torch's
    nn.Linear on 2-D rows) followed by a bias Add (a constant row), an
    activation (`graph.relu`, `graph.gelu`) and a residual Add (a tensor of
    the result's type, also after a reshape of the product that keeps its
    last dim: the reshape then applies to A) becomes one `graph.linear`,
    which the GEMM libraries run as one call with an epilogue. An op is
    folded only when the value it consumes has no other user; a residual
    only without an activation (see passes/Fusion/FuseEpilogues.cpp).

    `erf-gelu=false` leaves the exact (erf) GELU out of the GEMMs: cuBLASLt's
    GELU epilogue is the tanh approximation, so the driver sets it for
    programs with CUDA code (the tanh form is still folded).

    A `graph.conv` followed by a residual Add (a tensor of the result's
    type) and a `graph.relu` or `graph.hard_swish`, either or both, becomes
    one `graph.fused_conv`
    (oneDNN post-ops: sum, then eltwise). `conv-epilogues=false` keeps them
    apart: the driver sets it for programs with CUDA code, whose cuDNN call
    takes none yet.
  }];
  let options = [
    Option<"erfGelu", "erf-gelu", "bool", /*default=*/"true",
           "Fold the exact (erf) GELU into GEMMs (false for CUDA programs, "
           "whose GEMM library has only the tanh form)">,
    Option<"convEpilogues", "conv-epilogues", "bool", /*default=*/"true",
           "Fold residual adds, ReLU and HardSwish into convolutions (false "
           "for CUDA programs)">,
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

#endif // SHARDC_PASSES_FUSION
