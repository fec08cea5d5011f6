//===- KernAttentionOps.td - fused attention kernel ------------*- tablegen -*-===//
//
// Included by KernOps.td. sc_attention (runtime/src/cpu/Attention.cpp;
// CUDA: prelude attention.cuh, a flash-attention kernel).
//
//===----------------------------------------------------------------------===//

def Kern_AttentionOp : Kern_RuntimeOp<"attention", [Kern_SymbolicShapes]> {
  let summary = "y = softmax(q k^T * scale + mask) v over strided operands "
                "(sc_attention)";
  let description = [{
    `dims` are the batch dims, then S (queries), T (keys), D (the q and k
    head dim) and E (the v head dim): q is [batch..., S, D], k
    [batch..., T, D], v [batch..., T, E], mask [batch..., S, T] and y
    [batch..., S, E]. Each operand is a base buffer and a layout
    `[offset, one stride per batch dim, row stride, column stride]` in
    elements, so q, k and v can be views of one packed buffer (the same
    operand) and y can be written in another order; zero strides broadcast
    (the mask). Every access stays inside its buffer. `mask` (optional) is
    added to the scaled scores; with `causal`, query s sees keys
    t <= s + T - S only. q, k, v, mask and y have one element type (f32,
    f64, f16, bf16); the kernel computes in fp32 with an online softmax, at
    most 8 batch dims. With `bf16_products` f32 operands may be rounded to
    bf16 for the two products (fp32 accumulation; the CPU does where it has
    bf16 matmul kernels, the CUDA kernel ignores it).

    ```mlir
    kern.attention %qkv, %qkv, %qkv into %y {causal, dims = array<i64: 2, 4, 8, 8, 16, 16>,
        q_layout = array<i64: 0, 1536, 16, 192, 1>, k_layout = array<i64: 64, 1536, 16, 192, 1>,
        v_layout = array<i64: 128, 1536, 16, 192, 1>, y_layout = array<i64: 0, 512, 16, 64, 1>,
        scale = 2.500000e-01 : f32}
      : memref<2x8x192xf32>, memref<2x8x192xf32>, memref<2x8x192xf32> into memref<2x8x64xf32>
    ```
  }];
  let arguments = (ins Kern_In:$q, Kern_In:$k, Kern_In:$v, Kern_OptIn:$mask,
                       Kern_Out:$y, DenseI64ArrayAttr:$dims,
                       DenseI64ArrayAttr:$q_layout, DenseI64ArrayAttr:$k_layout,
                       DenseI64ArrayAttr:$v_layout,
                       OptionalAttr<DenseI64ArrayAttr>:$mask_layout,
                       DenseI64ArrayAttr:$y_layout, F32Attr:$scale,
                       UnitAttr:$causal, UnitAttr:$bf16_products);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`mask` $mask^)? `into` $y attr-dict `:` type($q) `,`
    type($k) `,` type($v) (`mask` type($mask)^)? `into` type($y)
  }];
  let extraClassDeclaration = [{
    /// The number of batch dims (dims' size less S, T, D, E).
    int64_t getNumBatchDims() { return getDims().size() - 4; }
  }];
}
