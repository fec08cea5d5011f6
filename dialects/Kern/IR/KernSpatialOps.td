//===- KernSpatialOps.td - pooling, padding and resize kernels -*- tablegen -*-===//
//
// Included by KernOps.td. Windows and resampling over the dims of a tensor:
// sc_pool (runtime/src/cpu/Pool.cpp), sc_pad (Pad.cpp), sc_resize
// (Resize.cpp); CUDA: prelude pool.cuh, pad.cuh, resize.cuh.
//
//===----------------------------------------------------------------------===//

def Kern_PoolOp : Kern_RuntimeOp<"pool"> {
  let summary = "N-D max or average pooling over the dims after N and C "
                "(sc_pool)";
  let description = [{
    `kind` is `max` or `average`. `x` and `y` have one numeric element type
    and the same rank (>= 3); `y`'s dims give the output (ceil mode already
    applied). `kernel_shape`, `strides` and `dilations` have one entry per
    spatial dim, `pads` two (begins, then ends). `indices` (optional, max
    only, i64 of `y`'s shape) receive the flat index of each maximum in `x`,
    row-major, or column-major over the spatial dims with `storage_order`
    1. An average leaves the padding out unless `count_include_pad`.

    `channels_last` (set by `kern-channels-last`): `x` and `y` hold their
    tensors channels-last, their types giving the physical dims
    `[N, spatial..., C]`; no indices then.

    ```mlir
    kern.pool %x into %y {kind = "max", kernel_shape = array<i64: 2, 2>,
        strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
        pads = array<i64: 0, 0, 0, 0>}
      : memref<1x4x8x8xf32> into memref<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Kern_In:$x, Kern_Out:$y, Kern_OptOut:$indices,
                       StrAttr:$kind, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$pads,
                       UnitAttr:$count_include_pad,
                       DefaultValuedAttr<Kern_I64Attr, "0">:$storage_order,
                       UnitAttr:$channels_last);
  let assemblyFormat = [{
    $x `into` $y (`indices` $indices^)? attr-dict `:` type($x) `into`
    type($y) (`indices` type($indices)^)?
  }];
  let extraClassDeclaration = [{
    bool isMax() { return getKind() == "max"; }
    /// The logical [N, C, spatial...] dims of x / y.
    llvm::SmallVector<int64_t> logicalX();
    llvm::SmallVector<int64_t> logicalY();
  }];
}

def Kern_PadOp : Kern_RuntimeOp<"pad"> {
  let summary = "y = x padded (or cropped) by `pads` (sc_pad)";
  let description = [{
    `pads` holds the elements added before each dim, then after each
    (negative ones crop); `y`'s dims are `x`'s plus both. `mode` is
    `constant` (with `value`, one element of x's type, or zero), `reflect`,
    `edge` or `wrap`. Any element type.

    ```mlir
    kern.pad %x value %v into %y {mode = "constant", pads = array<i64: 0, 1, 1, 0, 1, 1>}
      : memref<2x3x4xf32>, memref<f32> into memref<2x5x6xf32>
    ```
  }];
  let arguments = (ins Kern_In:$x, Kern_OptIn:$value, Kern_Out:$y,
                       DenseI64ArrayAttr:$pads, StrAttr:$mode);
  let assemblyFormat = [{
    $x (`value` $value^)? `into` $y attr-dict `:` type($x) (`,` type($value)^)?
    `into` type($y)
  }];
  let extraClassDeclaration = [{
    /// sc_pad's code of `mode` (0 constant, 1 reflect, 2 edge, 3 wrap).
    int32_t getModeCode();
  }];
}

def Kern_ResizeOp : Kern_RuntimeOp<"resize"> {
  let summary = "y = x resampled to y's dims (ONNX Resize, sc_resize)";
  let description = [{
    `x` and `y` have one rank (>= 1) and one numeric element type. `scales`
    (one per dim) are the model's output/input ratios, which decide the
    coordinate transform where they differ from the dims' ratio. `mode`:
    `nearest`, `linear`, `cubic`; `coordinate_transformation_mode`:
    `half_pixel`, `asymmetric`, `pytorch_half_pixel`, `align_corners`,
    `tf_half_pixel_for_nearest`, `half_pixel_symmetric`; `nearest_mode`:
    `round_prefer_floor`, `round_prefer_ceil`, `floor`, `ceil`. The other
    attributes are ONNX's.
  }];
  let arguments = (ins Kern_In:$x, Kern_Out:$y, DenseF32ArrayAttr:$scales,
                       StrAttr:$mode,
                       StrAttr:$coordinate_transformation_mode,
                       StrAttr:$nearest_mode, F32Attr:$cubic_coeff_a,
                       UnitAttr:$exclude_outside,
                       F32Attr:$extrapolation_value, UnitAttr:$antialias);
  let assemblyFormat = [{
    $x `into` $y attr-dict `:` type($x) `into` type($y)
  }];
  let extraClassDeclaration = [{
    /// sc_resize's codes of the modes (in the order the description lists
    /// them, from 0).
    int32_t getModeCode();
    int32_t getCoordinateTransformationCode();
    int32_t getNearestModeCode();
  }];
}
