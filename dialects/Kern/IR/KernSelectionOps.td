//===- KernSelectionOps.td - indexing and scan kernels ---------*- tablegen -*-===//
//
// Included by KernOps.td. Data-dependent indexing and scans along an axis:
// sc_gather (runtime/src/cpu/Gather.cpp), sc_arg_max, sc_topk, sc_cumsum,
// sc_trilu (Select.cpp); CUDA: prelude gather.cuh and select.cuh.
//
//===----------------------------------------------------------------------===//

def Kern_GatherOp : Kern_RuntimeOp<"gather", [Kern_SymbolicShapes]> {
  let summary = "y = data indexed by `indices` along `axis` (sc_gather)";
  let description = [{
    ONNX Gather: `y` has `data`'s dims with dim `axis` (in [-rank, rank))
    replaced by `indices`' dims, and `data`'s element type (any: rows are
    copied by size). `indices` are i32 or i64; negative ones count from the
    end, out-of-range ones fail the run.

    With `part = array<i64: rows, offset>` (graph.gather's), `data` is rows
    [offset, offset + n) of a table of `rows` rows: indices are checked
    against [-rows, rows) and wrap by `rows`, and one outside the part gives
    a row of zeros (sc_gather_part).

    ```mlir
    kern.gather %data, %indices into %y {axis = 0 : i64}
      : memref<512x64xf32>, memref<1x16xi64> into memref<1x16x64xf32>
    ```
  }];
  let arguments = (ins Kern_In:$data, Kern_In:$indices, Kern_Out:$y,
                       Kern_I64Attr:$axis,
                       OptionalAttr<DenseI64ArrayAttr>:$part);
  let assemblyFormat = [{
    $data `,` $indices `into` $y attr-dict `:` type($data) `,` type($indices)
    `into` type($y)
  }];
}

def Kern_ArgMaxOp : Kern_RuntimeOp<"arg_max", [Kern_SymbolicShapes]> {
  let summary = "y = the index of the maximum along `axis` (sc_arg_max)";
  let description = [{
    `y` is i64 with one element per slice along `axis` (in [-rank, rank);
    kept or dropped dims alike). Ties give the first index, or the last with
    `select_last_index`. The arg max of a scalar is 0.
  }];
  let arguments = (ins Kern_In:$x, Kern_Out:$y, Kern_I64Attr:$axis,
                       UnitAttr:$select_last_index);
  let assemblyFormat = [{
    $x `into` $y attr-dict `:` type($x) `into` type($y)
  }];
}

def Kern_TopKOp : Kern_RuntimeOp<"topk", [Kern_SymbolicShapes]> {
  let summary = "the `k` largest (smallest) elements along `axis` and their "
                "indices (sc_topk)";
  let description = [{
    `values` (x's element type) and `indices` (i64) have `x`'s dims with dim
    `axis` replaced by `k` (in [0, dim]). `largest` picks the largest, else
    the smallest; ties take the lower index first. `sorted` is a promise the
    kernel may exceed (it always sorts).
  }];
  let arguments = (ins Kern_In:$x, Kern_Out:$values, Kern_Out:$indices,
                       Kern_I64Attr:$axis, Kern_I64Attr:$k, UnitAttr:$largest,
                       UnitAttr:$sorted);
  let assemblyFormat = [{
    $x `into` $values `,` $indices attr-dict `:` type($x) `into`
    type($values) `,` type($indices)
  }];
}

def Kern_CumSumOp : Kern_RuntimeOp<"cumsum", [Kern_SymbolicShapes]> {
  let summary = "y = the running sum of x along `axis` (sc_cumsum)";
  let description = [{
    `y` has `x`'s type (numeric, not i1). `exclusive` leaves each element
    out of its own sum; `reverse` runs from the end.
  }];
  let arguments = (ins Kern_In:$x, Kern_Out:$y, Kern_I64Attr:$axis,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let assemblyFormat = [{
    $x `into` $y attr-dict `:` type($x) `into` type($y)
  }];
}

def Kern_TriluOp : Kern_RuntimeOp<"trilu", [Kern_SymbolicShapes]> {
  let summary = "y = the upper (lower) triangle of the last two dims, from "
                "diagonal `k` (sc_trilu)";
  let description = [{
    `x` (rank >= 2, any element type) and `y` have one type; elements
    outside the triangle are zero.
  }];
  let arguments = (ins Kern_In:$x, Kern_Out:$y, UnitAttr:$upper,
                       DefaultValuedAttr<Kern_I64Attr, "0">:$k);
  let assemblyFormat = [{
    $x `into` $y attr-dict `:` type($x) `into` type($y)
  }];
}
