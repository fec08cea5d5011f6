//===- KernOps.td - kern dialect operations --------------------*- tablegen -*-===//

#ifndef SHARDC_KERN_OPS
#define SHARDC_KERN_OPS

include "dialects/Kern/IR/KernDialect.td"
include "mlir/IR/OpBase.td"
include "dialects/Kern/IR/KernInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Kern_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kern_Dialect, mnemonic, traits>;

def Kern_Buffer : StaticShapeMemRefOf<[AnyType]>;

/// Takes operands with dynamic dims (dialects/Kern/IR/SymbolicShapes.h):
/// its sizes come from its operands' descriptors at run time, or from the
/// symbolic mirrors of its attributes.
def Kern_SymbolicShapes : NativeOpTrait<"KernSymbolicShapes">;

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def Kern_AllocOp : Kern_Op<"alloc", [Pure, Kern_SymbolicShapes]> {
  let summary = "a buffer in the rank's arena";
  let description = [{
    `offset` (bytes from the arena base) is set by the memory plan
    (`kern-plan-memory`); before it the buffer has no place yet.
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs Kern_Buffer:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
}

def Kern_WeightOp : Kern_Op<"weight", [Pure, Kern_SymbolicShapes]> {
  let summary = "a constant tensor stored in the rank's weights section";
  let description = [{
    `value` holds the data (usually a `dense_resource` blob shared with the
    importer, so no copy is made). `offset` (bytes from the start of the
    section) is set by `kern-plan-weights`.
  }];
  let arguments = (ins ElementsAttr:$value, OptionalAttr<I64Attr>:$offset);
  let results = (outs Kern_Buffer:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Kern_ViewOp : Kern_Op<"view", [Pure, Kern_SymbolicShapes]> {
  let summary = "the same bytes with another shape (a reshape without copy)";
  let arguments = (ins Kern_Buffer:$source);
  let results = (outs Kern_Buffer:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Generated kernels
//===----------------------------------------------------------------------===//

def Kern_MapOp : Kern_Op<"map", [AttrSizedOperandSegments, Kern_SymbolicShapes,
                                 SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a generated elementwise kernel over a strided iteration space";
  let description = [{
    For every index `i` of the iteration space `shape`, loads each input at
    `offset + sum(i[d] * stride[d])` (its `layouts` entry is
    `[offset, stride_0, ..., stride_(n-1) ]`, in elements of its buffer),
    runs the body on the loaded scalars and stores the yielded values into
    the outputs the same way. Zero strides broadcast; negative strides walk
    backwards. One op covers elementwise arithmetic, broadcasting, casts,
    transposes, slices, concatenation (one map per piece, writing at an
    offset) and splits. `kern.index` gives the body the current index.

    The body uses signless integers (as `arith` requires); the buffers keep
    their signedness, which decides how loads extend and which `arith` op the
    lowering picked.
  }];
  let arguments = (ins Variadic<Kern_Buffer>:$inputs,
                       Variadic<Kern_Buffer>:$outputs,
                       DenseI64ArrayAttr:$shape, ArrayAttr:$layouts);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? `outs` `(` $outputs `:`
    type($outputs) `)` attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Kern_ReduceOp : Kern_Op<"reduce", [AttrSizedOperandSegments, Kern_SymbolicShapes,
                                       SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a generated reduction over some dims of an iteration space";
  let description = [{
    Like `kern.map`, but the dims in `reduce_dims` are combined with `kind`
    (`sum`, `max`, `min`, `mean`) into the single output, whose layout has
    zero strides on them. The body computes the value to combine from the
    loaded inputs. Accumulation is in at least fp32; an empty reduction gives
    the identity (0, or -inf / +inf).
  }];
  let arguments = (ins Variadic<Kern_Buffer>:$inputs,
                       Variadic<Kern_Buffer>:$outputs,
                       DenseI64ArrayAttr:$shape, ArrayAttr:$layouts,
                       DenseI64ArrayAttr:$reduce_dims, StrAttr:$kind);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind (`ins` `(` $inputs^ `:` type($inputs) `)`)? `outs` `(` $outputs `:`
    type($outputs) `)` attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Kern_YieldOp : Kern_Op<"yield", [Pure, Terminator,
                                     ParentOneOf<["MapOp", "ReduceOp"]>]> {
  let summary = "the scalar results of a kernel body";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ }]>];
}

def Kern_IndexOp : Kern_Op<"index", [Pure,
                                     ParentOneOf<["MapOp", "ReduceOp"]>]> {
  let summary = "the current index along one dim of the iteration space";
  let arguments = (ins I64Attr:$dim);
  let results = (outs I64:$result);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Library calls
//===----------------------------------------------------------------------===//

def Kern_MatmulOp : Kern_Op<"matmul", [AttrSizedOperandSegments,
                                     Kern_SymbolicShapes]> {
  let summary = "y = epilogue(alpha * op(a) x op(b) + bias) + residual + beta * y "
                "(oneDNN, cuBLASLt)";
  let description = [{
    `a`, `b` and `y` have the same rank (>= 2); batch dims broadcast where
    they are 1; `trans_a` / `trans_b` transpose the last two dims. `bias`
    (optional) has `y`'s rank with dims 1 or equal. `epilogue` (`none`,
    `relu`, `gelu` (erf), `gelu_tanh`) applies to the biased product;
    `residual` (optional, `y`'s type) is added after it and comes only with
    epilogue `none`, and then the bias must be a row (dims 1 but the last).
    A non-zero `beta` accumulates onto what `y` holds; it comes without
    epilogue and residual.
  }];
  let arguments = (ins Kern_Buffer:$a, Kern_Buffer:$b,
                       Optional<Kern_Buffer>:$bias,
                       Optional<Kern_Buffer>:$residual, Kern_Buffer:$y,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.0">:$beta,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$epilogue);
  let assemblyFormat = [{
    $a `,` $b (`bias` $bias^)? (`residual` $residual^)? `into` $y attr-dict
    `:` type($a) `,` type($b) (`,` type($bias)^)?
    (`residual` type($residual)^)? `into` type($y)
  }];
  let hasVerifier = 1;
}

def Kern_MatmulInt8Op : Kern_Op<"matmul_int8", [AttrSizedOperandSegments]> {
  let summary = "y = epilogue((a x b) * a_scale * b_scale + bias) + residual "
                "(oneDNN's int8 matmul)";
  let description = [{
    graph.linear_int8 on buffers of equal rank r >= 2: `a` int8 [.., M, K],
    `b` int8 [1.., K, N], `y` f32 [.., M, N]; `b_scale` f32 [N] (one per
    column); `a_scale` f32 [.., M, 1] (one per row; absent when a's scale
    is folded into `b_scale`), `bias` f32 [1.., 1, N] and `residual` (`y`'s
    type) optional; `epilogue` as kern.matmul's. One oneDNN int8 matmul:
    the column scales are its output scales, the row scales, bias,
    activation and residual its post-ops, the weights packed once.
  }];
  let arguments = (ins Kern_Buffer:$a, Kern_Buffer:$b,
                       Optional<Kern_Buffer>:$a_scale,
                       Kern_Buffer:$b_scale, Optional<Kern_Buffer>:$bias,
                       Optional<Kern_Buffer>:$residual, Kern_Buffer:$y,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$epilogue);
  let assemblyFormat = [{
    $a `,` $b `scales` $b_scale (`rows` $a_scale^)? (`bias` $bias^)?
    (`residual` $residual^)? `into` $y attr-dict `:` type($a) `,` type($b)
    `,` type($b_scale) (`rows` type($a_scale)^)? (`,` type($bias)^)?
    (`residual` type($residual)^)? `into` type($y)
  }];
  let hasVerifier = 1;
}

def Kern_ConvOp : Kern_Op<"conv", [AttrSizedOperandSegments]> {
  let summary = "y = epilogue(conv(x, w) + bias + residual): N-D grouped "
                "(transposed) convolution (oneDNN, cuDNN)";
  let description = [{
    `x`, `w` and `y` have the same rank (>= 3). `bias` (optional) has one
    element per output channel. `residual` (optional, `y`'s type) is added
    before `epilogue` (`none`, `relu`, `gelu`, `gelu_tanh`, `hard_swish`).
    Residual,
    epilogue and channels-last run on the CPU (oneDNN post-ops) only.

    `x_channels_last` / `y_channels_last`: that buffer (for `y`, the
    residual too) holds the tensor channels-last, and its type gives the
    physical dims `[N, spatial..., C]` of the logical `[N, C, spatial...]`
    tensor (set by `kern-channels-last`; transposed convolutions have none).

    With `scales` it is the int8 convolution of graph.conv_int8 (the CPU
    only, not transposed): `x` ui8 or i8 with zero point `x_zero_point`
    (the padding reads as real zero), `w` i8, `y` f32 and the f32 bias; the
    int32 sums are scaled per output channel by `scales` (one per output
    channel, or one for all), which oneDNN's int8 convolutions take fixed
    when the primitive is created. With `x_scale` and `x_zero` (one f32,
    one of `x`'s type: an activation quantized at run time) the sums are
    also multiplied by `x_scale`, `x_zero` is the zero point, and
    `x_zero_point` is 0.
  }];
  let arguments = (ins Kern_Buffer:$x, Kern_Buffer:$w,
                       Optional<Kern_Buffer>:$bias,
                       Optional<Kern_Buffer>:$residual, Kern_Buffer:$y,
                       Optional<Kern_Buffer>:$x_scale,
                       Optional<Kern_Buffer>:$x_zero,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, I64Attr:$group,
                       UnitAttr:$transposed,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$epilogue,
                       UnitAttr:$x_channels_last, UnitAttr:$y_channels_last,
                       OptionalAttr<DenseF32ArrayAttr>:$scales,
                       DefaultValuedAttr<I64Attr, "0">:$x_zero_point);
  let assemblyFormat = [{
    $x `,` $w (`bias` $bias^)? (`residual` $residual^)? `into` $y
    (`dynamic` $x_scale^ `,` $x_zero)? attr-dict
    `:` type($x) `,` type($w) (`,` type($bias)^)?
    (`residual` type($residual)^)? `into` type($y)
    (`dynamic` type($x_scale)^ `,` type($x_zero))?
  }];
  let extraClassDeclaration = [{
    /// The logical [N, C, spatial...] dims of x / y (their types' dims
    /// with C moved back from the end when channels-last).
    llvm::SmallVector<int64_t> logicalX();
    llvm::SmallVector<int64_t> logicalY();
  }];
  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Runtime kernels: one op per kernel of runtime/src/cpu, each a call whose C
// arguments it lists itself (Kern_RuntimeCallOpInterface).
//===----------------------------------------------------------------------===//

/// Buffers a runtime kernel reads and writes.
def Kern_In : Arg<Kern_Buffer, "read", [MemRead]>;
def Kern_OptIn : Arg<Optional<Kern_Buffer>, "read", [MemRead]>;
def Kern_Out : Arg<Kern_Buffer, "written", [MemWrite]>;
def Kern_OptOut : Arg<Optional<Kern_Buffer>, "written", [MemWrite]>;

/// An i64 attribute read back as a signed value (axes and offsets may be
/// negative; I64Attr's accessor is unsigned).
def Kern_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                                "64-bit integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

include "dialects/Kern/IR/KernCollectiveOps.td"

class Kern_RuntimeOp<string mnemonic, list<Trait> traits = []>
    : Kern_Op<mnemonic, traits # [
        DeclareOpInterfaceMethods<Kern_RuntimeCallOpInterface>]> {
  let hasVerifier = 1;
}

include "dialects/Kern/IR/KernNormOps.td"
include "dialects/Kern/IR/KernSelectionOps.td"
include "dialects/Kern/IR/KernScatterOps.td"
include "dialects/Kern/IR/KernMoeOps.td"
include "dialects/Kern/IR/KernSpatialOps.td"
include "dialects/Kern/IR/KernContractionOps.td"
include "dialects/Kern/IR/KernAttentionOps.td"

#endif // SHARDC_KERN_OPS
