//===- KernNormOps.td - softmax and layer norm kernels ---------*- tablegen -*-===//
//
// Included by KernOps.td. Row normalizations: sc_softmax, sc_layer_norm
// (runtime/src/cpu/Normalize.cpp; CUDA: prelude normalize.cuh).
//
//===----------------------------------------------------------------------===//

def Kern_SoftmaxOp : Kern_RuntimeOp<"softmax", [Kern_SymbolicShapes]> {
  let summary = "y = softmax(x) (or log-softmax) along `axis` (sc_softmax)";
  let description = [{
    `x` and `y` have one floating-point type (f32, f64, f16, bf16); `axis`
    is in [-rank, rank) (a scalar counts as rank 1). `log` computes
    log-softmax. Accumulates in at least fp32.

    ```mlir
    kern.softmax %x into %y {axis = -1 : i64} : memref<2x10xf32> into memref<2x10xf32>
    ```
  }];
  let arguments = (ins Kern_In:$x, Kern_Out:$y, Kern_I64Attr:$axis,
                       UnitAttr:$log);
  let assemblyFormat = [{
    $x `into` $y attr-dict `:` type($x) `into` type($y)
  }];
}

def Kern_LayerNormOp : Kern_RuntimeOp<"layer_norm", [AttrSizedOperandSegments,
                                                   Kern_SymbolicShapes]> {
  let summary = "y = (x - mean) / sqrt(var + epsilon) * scale + bias over "
                "the dims from `axis` (sc_layer_norm)";
  let description = [{
    Normalizes each row of the dims [axis, rank) of `x` (`axis` in
    [-rank, rank]). `scale` and `bias` (optional) hold the row's elements
    (the normalized shape, in any shape) in `x`'s type; `y` has `x`'s type.
    `mean` and `inv_std` (optional) receive each row's mean and 1 / std as
    f32, one value per row. f32, f64, f16, bf16.

    ```mlir
    kern.layer_norm %x, %scale bias %bias into %y {axis = 2 : i64, epsilon = 1.0e-5 : f32}
      : memref<2x4x8xf32>, memref<8xf32>, memref<8xf32> into memref<2x4x8xf32>
    ```
  }];
  let arguments = (ins Kern_In:$x, Kern_In:$scale, Kern_OptIn:$bias,
                       Kern_Out:$y, Kern_OptOut:$mean, Kern_OptOut:$inv_std,
                       Kern_I64Attr:$axis, F32Attr:$epsilon);
  let assemblyFormat = [{
    $x `,` $scale (`bias` $bias^)? `into` $y (`mean` $mean^)?
    (`inv_std` $inv_std^)? attr-dict `:` type($x) `,` type($scale)
    (`,` type($bias)^)? `into` type($y) (`mean` type($mean)^)?
    (`inv_std` type($inv_std)^)?
  }];
}
