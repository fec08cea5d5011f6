//===- KernContractionOps.td - matmul and einsum kernels -------*- tablegen -*-===//
//
// Included by KernOps.td. The products no library takes: numpy matmuls of
// f64 and integers, the quantized matmuls (runtime/src/cpu/MatMulRef.cpp),
// einsum (Einsum.cpp); CUDA: prelude matmul.cuh (no einsum). Float GEMMs
// are kern.matmul (oneDNN, cuBLASLt).
//
// The three matmuls take numpy's shapes: operands of rank >= 1 (a 1-D `a`
// is a row, a 1-D `b` a column), batch dims broadcast, `y` holding the
// batch x M x N product in any shape.
//
//===----------------------------------------------------------------------===//

def Kern_MatmulRefOp : Kern_RuntimeOp<"matmul_ref"> {
  let summary = "y = a x b, numpy broadcasting, in a loop (sc_matmul_ref)";
  let description = [{
    ONNX MatMul for the element types oneDNN does not take (f64, integers):
    `a`, `b` and `y` have one numeric type (not i1), accumulated in it.

    ```mlir
    kern.matmul_ref %a, %b into %y : memref<4x8xi32>, memref<8x16xi32> into memref<4x16xi32>
    ```
  }];
  let arguments = (ins Kern_In:$a, Kern_In:$b, Kern_Out:$y);
  let assemblyFormat = [{
    $a `,` $b `into` $y attr-dict `:` type($a) `,` type($b) `into` type($y)
  }];
}

def Kern_MatmulIntegerOp : Kern_RuntimeOp<"matmul_integer"> {
  let summary = "y = (a - a_zero_point) x (b - b_zero_point) in i32 "
                "(sc_matmul_integer)";
  let description = [{
    `a`, `b` and their zero points are 8-bit integers (signed or unsigned);
    `y` is i32. A zero point holds one value, one per row of `a` (column of
    `b`), or one per row (column) of every matrix.
  }];
  let arguments = (ins Kern_In:$a, Kern_In:$b, Kern_In:$a_zero_point,
                       Kern_In:$b_zero_point, Kern_Out:$y);
  let assemblyFormat = [{
    $a `,` $b `zero_points` $a_zero_point `,` $b_zero_point `into` $y
    attr-dict `:` type($a) `,` type($b) `zero_points` type($a_zero_point)
    `,` type($b_zero_point) `into` type($y)
  }];
}

def Kern_QLinearMatmulOp : Kern_RuntimeOp<"qlinear_matmul"> {
  let summary = "y = requantize(dequantize(a) x dequantize(b)) "
                "(sc_qlinear_matmul)";
  let description = [{
    `a`, `b`, `y` and the zero points are 8-bit integers (`y_zero_point` of
    `y`'s type); the scales are floating-point. Each scale or zero point
    holds one value, one per row (`a`, `y`) or column (`b`), or one per row
    (column) of every matrix. The multiplier is computed in the scales'
    precision, as the ONNX reference does.
  }];
  let arguments = (ins Kern_In:$a, Kern_In:$a_scale, Kern_In:$a_zero_point,
                       Kern_In:$b, Kern_In:$b_scale, Kern_In:$b_zero_point,
                       Kern_In:$y_scale, Kern_In:$y_zero_point, Kern_Out:$y);
  let assemblyFormat = [{
    $a `[` $a_scale `,` $a_zero_point `]` `,` $b `[` $b_scale `,`
    $b_zero_point `]` `into` $y `[` $y_scale `,` $y_zero_point `]` attr-dict
    `:` type($a) `[` type($a_scale) `,` type($a_zero_point) `]` `,` type($b)
    `[` type($b_scale) `,` type($b_zero_point) `]` `into` type($y) `[`
    type($y_scale) `,` type($y_zero_point) `]`
  }];
}

def Kern_EinsumOp : Kern_RuntimeOp<"einsum"> {
  let summary = "y = einsum(`equation`, inputs...) (sc_einsum; CPU only)";
  let description = [{
    One term per input in `equation` (explicit `->` output or implicit,
    `...` allowed); the inputs and `y` have one numeric element type.

    ```mlir
    kern.einsum "bij,jk->bik" ins(%x, %w) into %y
      : memref<2x4x8xf32>, memref<8x16xf32> into memref<2x4x16xf32>
    ```
  }];
  let arguments = (ins Arg<Variadic<Kern_Buffer>, "read", [MemRead]>:$inputs,
                       Kern_Out:$y, StrAttr:$equation);
  let assemblyFormat = [{
    $equation `ins` `(` $inputs `)` `into` $y attr-dict `:` type($inputs)
    `into` type($y)
  }];
}
