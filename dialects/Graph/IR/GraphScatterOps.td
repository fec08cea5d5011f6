//===- GraphScatterOps.td - element gathers and scatters -------*- tablegen -*-===//
//
// Included by GraphOps.td. Indexing by a runtime index tensor, one index per
// element (gather_elements, scatter_elements) or per slice (scatter_nd).
// Inference and verifiers: ScatterOps.cpp; sharding rules:
// ScatterSharding.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_GRAPH_SCATTER_OPS
#define SHARDC_GRAPH_SCATTER_OPS

def Graph_GatherElementsOp : Graph_Op<"gather_elements"> {
  let summary = "y[i] = data[i with i[axis] replaced by indices[i]]";
  let description = [{
    ONNX `GatherElements`: `indices` (i32 or i64) has `data`'s rank and, on
    every dim but `axis` (normalized, in [0, rank)), at most `data`'s size;
    the result has `indices`' shape and `data`'s element type. Negative
    indices count from the end of the axis; an index outside [-n, n) fails
    the run (CPU) or reads zero (CUDA), as `graph.gather` does.
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $indices attr-dict `:` type($data) `,` type($indices) `->`
    type($output)
  }];
}

def Graph_ScatterElementsOp : Graph_Op<"scatter_elements"> {
  let summary = "y = data, then y[i with i[axis] = indices[i]] op= updates[i]";
  let description = [{
    ONNX `ScatterElements` (and the older `Scatter`): `indices` (i32 or i64)
    and `updates` (`data`'s element type) share one shape of `data`'s rank,
    at most `data`'s size on every dim but `axis` (normalized). The result
    is a copy of `data` where each update is written to, or combined with
    (`reduction`: `none`, `add`, `mul`, `max`, `min`), the element its index
    names along `axis`. Negative indices count from the end; an index
    outside [-n, n) fails the run (CPU) or is skipped (CUDA). Duplicate
    indices with `none`: the last update in row-major order wins on the
    CPU; on CUDA one of them, unspecified (ONNX leaves it undefined).
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       Graph_Tensor:$updates, I64Attr:$axis,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` type($data) `,`
    type($indices) `,` type($updates) `->` type($output)
  }];
}

def Graph_ScatterNDOp : Graph_Op<"scatter_nd", [SymbolicShapes]> {
  let summary = "y = data, then y[indices[j]] op= updates[j] (slices)";
  let description = [{
    ONNX `ScatterND`: `indices` (i32 or i64) has shape [j..., k] with k at
    most `data`'s rank; each index tuple names a slice `data[i_0, ...,
    i_(k-1), :, ...]`, and `updates` has shape [j..., data dims k...]. The
    result is a copy of `data` with each slice replaced by, or combined
    with (`reduction`: `none`, `add`, `mul`, `max`, `min`), its update.
    Negative indices count from the end of their dim; an out-of-range tuple
    fails the run (CPU) or is skipped (CUDA). Duplicate tuples with `none`
    behave as in `graph.scatter_elements`.

    Folds to `updates` when `indices` is a constant that names every
    position of `data` in order (updates then replace all of it): what
    Hugging Face's `mask[:, :, :, :n] = ...` exports when n is the whole
    sequence, which would otherwise keep the batch rows of a mask together.
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       Graph_Tensor:$updates,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` type($data) `,`
    type($indices) `,` type($updates) `->` type($output)
  }];
  let hasFolder = 1;
}

#endif // SHARDC_GRAPH_SCATTER_OPS
