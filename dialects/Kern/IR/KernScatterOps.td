//===- KernScatterOps.td - element gathers and scatters --------*- tablegen -*-===//
//
// Included by KernOps.td. Indexing by a runtime index tensor, one index per
// element or per slice: sc_gather_elements, sc_scatter_elements,
// sc_scatter_nd (runtime/src/cpu/Scatter.cpp); CUDA: prelude scatter.cuh.
//
// The scatters update `y` in place: the lowering first copies the data into
// it. Indices are i32 or i64; negative ones count from the end of their
// dim. An index still out of range fails the run on the CPU (sc_fail, as
// sc_gather does); on CUDA the gather reads zero and a scatter skips it.
//
//===----------------------------------------------------------------------===//

/// A buffer a runtime kernel reads and then writes (updated in place).
def Kern_InOut : Arg<Kern_Buffer, "read and written", [MemRead, MemWrite]>;

/// How a scatter combines an update with the element it lands on.
def Kern_ScatterReduction
    : DefaultValuedAttr<StrAttr, "\"none\"">;

def Kern_GatherElementsOp : Kern_RuntimeOp<"gather_elements", [Kern_SymbolicShapes]> {
  let summary = "y[i] = data[i with i[axis] = indices[i]] (sc_gather_elements)";
  let description = [{
    ONNX GatherElements: `indices` and `y` have one shape of `data`'s rank,
    at most `data`'s size on every dim but `axis` (in [-rank, rank)); `y`
    has `data`'s element type (any: elements are copied by size).

    ```mlir
    kern.gather_elements %data, %indices into %y {axis = 1 : i64}
      : memref<3x4xf32>, memref<3x2xi64> into memref<3x2xf32>
    ```
  }];
  let arguments = (ins Kern_In:$data, Kern_In:$indices, Kern_Out:$y,
                       Kern_I64Attr:$axis);
  let assemblyFormat = [{
    $data `,` $indices `into` $y attr-dict `:` type($data) `,`
    type($indices) `into` type($y)
  }];
}

def Kern_ScatterElementsOp : Kern_RuntimeOp<"scatter_elements", [Kern_SymbolicShapes]> {
  let summary = "y[i with i[axis] = indices[i]] op= updates[i], in place "
                "(sc_scatter_elements)";
  let description = [{
    ONNX ScatterElements on `y`, which already holds the data: `indices`
    and `updates` (`y`'s element type) have one shape of `y`'s rank, at most
    `y`'s size on every dim but `axis`. `reduction` is `none` (store), `add`,
    `mul`, `max` or `min` (numeric elements; max and min propagate NaN).
    Updates apply in row-major order on the CPU, so with `none` the last of
    duplicate indices wins; on CUDA, duplicates under `none` leave one of
    them (unspecified) and the reductions combine atomically.

    ```mlir
    kern.scatter_elements %indices, %updates into %y {axis = 0 : i64, reduction = "add"}
      : memref<2x3xi64>, memref<2x3xf32> into memref<4x3xf32>
    ```
  }];
  let arguments = (ins Kern_In:$indices, Kern_In:$updates, Kern_InOut:$y,
                       Kern_I64Attr:$axis, Kern_ScatterReduction:$reduction);
  let assemblyFormat = [{
    $indices `,` $updates `into` $y attr-dict `:` type($indices) `,`
    type($updates) `into` type($y)
  }];
  let extraClassDeclaration = [{
    /// The runtime's code of `reduction` (shardc/cpu.h: SC_SCATTER_*).
    int32_t getReductionCode();
  }];
}

def Kern_ScatterNDOp : Kern_RuntimeOp<"scatter_nd", [Kern_SymbolicShapes]> {
  let summary = "y[indices[j]] op= updates[j] for slices, in place "
                "(sc_scatter_nd)";
  let description = [{
    ONNX ScatterND on `y`, which already holds the data: `indices` has
    shape [j..., k] (1 <= k <= rank of y), and `updates` (`y`'s element
    type) has shape [j..., dims k... of y]: each index tuple names the
    slice `y[i_0, ..., i_(k-1), ...]` its update replaces or combines with
    (`reduction` as in `kern.scatter_elements`).

    ```mlir
    kern.scatter_nd %indices, %updates into %y {reduction = "mul"}
      : memref<2x1xi64>, memref<2x4xf32> into memref<5x4xf32>
    ```
  }];
  let arguments = (ins Kern_In:$indices, Kern_In:$updates, Kern_InOut:$y,
                       Kern_ScatterReduction:$reduction);
  let assemblyFormat = [{
    $indices `,` $updates `into` $y attr-dict `:` type($indices) `,`
    type($updates) `into` type($y)
  }];
  let extraClassDeclaration = [{
    /// The runtime's code of `reduction` (shardc/cpu.h: SC_SCATTER_*).
    int32_t getReductionCode();
  }];
}
