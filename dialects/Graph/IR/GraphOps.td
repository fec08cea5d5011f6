//===- GraphOps.td - graph dialect operations ------------------*- tablegen -*-===//

#ifndef SHARDC_GRAPH_OPS
#define SHARDC_GRAPH_OPS

include "dialects/Graph/IR/GraphDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

def Graph_Tensor : StaticShapeTensorOf<[AnyType]>;
def Graph_BoolTensor : StaticShapeTensorOf<[I1]>;
def Graph_IndexTensor : StaticShapeTensorOf<[I32, I64]>;

// Every op is pure and infers its result types; `verify` re-runs the inference
// and reports the mismatch it found. Symbolic (bounded dynamic) dims pass
// only through ops marked SymbolicShapes (SymbolicShapes.h); the gate makes
// every other op refuse them.
def SymbolicShapes : NativeOpTrait<"SymbolicShapes">;
class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic,
         !listconcat([Pure, InferTypeOpAdaptor, NativeOpTrait<"SymbolicGate">],
                     traits)>;

// Same-type unary elementwise op.
class Graph_UnaryOp<string mnemonic, string onnxName, string kind = "Numeric",
                    list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([SymbolicShapes], traits)> {
  let summary = "elementwise " # onnxName;
  let description = "ONNX `" # onnxName # "`: applied to every element; the result has the operand's type.";
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::shardc::graph::inferUnary(location, adaptor.getInput(),
          ::shardc::graph::ElementKind::}] # kind # [{, types);
    }
  }];
}

// Multidirectional (numpy) broadcasting binary op.
class Graph_BinaryOp<string mnemonic, string onnxName, string kind = "Arith",
                     list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([SymbolicShapes], traits)> {
  let summary = "elementwise " # onnxName # " with numpy broadcasting";
  let description = "ONNX `" # onnxName # "`: operands broadcast to a common shape.";
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::shardc::graph::inferBinary(location, adaptor.getLhs(),
          adaptor.getRhs(), ::shardc::graph::BinaryKind::}] # kind # [{, types);
    }
  }];
}

// Reduction over a set of axes.
class Graph_ReduceOp<string mnemonic, string onnxName>
    : Graph_Op<mnemonic, [SymbolicShapes]> {
  let summary = onnxName # " over the given axes";
  let description = [{
    Reduces over `axes` (sorted, non-negative, unique; empty means every axis).
    With `keepdims` the reduced axes stay with size 1.
  }];
  let arguments = (ins Graph_Tensor:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::shardc::graph::inferReduce(location, adaptor.getInput(),
          adaptor.getAxes(), adaptor.getKeepdims(), types);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant", [ConstantLike]> {
  let summary = "a constant tensor (initializer, folded value or literal)";
  let description = [{
    Weights are `dense_resource` blobs so that large models are neither printed
    inline nor copied; small folded values are plain dense attributes. One
    initializer is one constant, shared by all of its users.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Graph_ConstantOfShapeOp : Graph_Op<"constant_of_shape", [SymbolicShapes]> {
  let summary = "a tensor of the given shape filled with one value";
  let arguments = (ins DenseI64ArrayAttr:$shape, ElementsAttr:$value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasFolder = 1;
}

def Graph_RangeOp : Graph_Op<"range"> {
  let summary = "the sequence start, start+delta, ... below limit";
  let arguments = (ins F64Attr:$start, F64Attr:$limit, F64Attr:$delta,
                       TypeAttr:$element_type);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

//===----------------------------------------------------------------------===//
// Elementwise and activations
//===----------------------------------------------------------------------===//

// An op with `hasFolder` folds on constant operands through the evaluator of
// ConstantEval.h (Canonicalize.cpp): exactly what the generated code computes,
// and only results of at most kFoldCap (2^16) elements.

def Graph_AddOp : Graph_BinaryOp<"add", "Add", "Arith", [Commutative]> { let hasFolder = 1; }
def Graph_SubOp : Graph_BinaryOp<"sub", "Sub"> { let hasFolder = 1; }
def Graph_MulOp : Graph_BinaryOp<"mul", "Mul", "Arith", [Commutative]> { let hasFolder = 1; }
def Graph_DivOp : Graph_BinaryOp<"div", "Div"> { let hasFolder = 1; }
def Graph_PowOp : Graph_BinaryOp<"pow", "Pow", "Pow"> { let hasFolder = 1; }
// ONNX's variadic Max/Min import as a chain of these. A NaN operand gives
// NaN (IEEE maximum/minimum, as ONNX Runtime and PyTorch).
def Graph_MaxOp : Graph_BinaryOp<"max", "Max", "Arith", [Commutative]> { let hasFolder = 1; }
def Graph_MinOp : Graph_BinaryOp<"min", "Min", "Arith", [Commutative]> { let hasFolder = 1; }

def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "Sqrt", "Float"> { let hasFolder = 1; }
def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", "Reciprocal", "Float">;
def Graph_ExpOp : Graph_UnaryOp<"exp", "Exp", "Float">;
def Graph_LogOp : Graph_UnaryOp<"log", "Log", "Float">;
def Graph_ErfOp : Graph_UnaryOp<"erf", "Erf", "Float">;
def Graph_CosOp : Graph_UnaryOp<"cos", "Cos", "Float"> { let hasFolder = 1; }
def Graph_SinOp : Graph_UnaryOp<"sin", "Sin", "Float"> { let hasFolder = 1; }
def Graph_TanhOp : Graph_UnaryOp<"tanh", "Tanh", "Float">;
// Rounding to an integral value: down, up, and to nearest with ties to even
// (ONNX's Round, numpy's rint).
def Graph_FloorOp : Graph_UnaryOp<"floor", "Floor", "Float"> { let hasFolder = 1; }
def Graph_CeilOp : Graph_UnaryOp<"ceil", "Ceil", "Float"> { let hasFolder = 1; }
def Graph_RoundOp : Graph_UnaryOp<"round", "Round", "Float"> { let hasFolder = 1; }
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "Sigmoid", "Float">;
def Graph_ReluOp : Graph_UnaryOp<"relu", "Relu">;
def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", "HardSwish", "Float">;
def Graph_NegOp : Graph_UnaryOp<"neg", "Neg"> { let hasFolder = 1; }
def Graph_AbsOp : Graph_UnaryOp<"abs", "Abs"> { let hasFolder = 1; }

def Graph_IdentityOp : Graph_UnaryOp<"identity", "Identity", "Any"> {
  let hasFolder = 1;
}

def Graph_LeakyReluOp : Graph_UnaryOp<"leaky_relu", "LeakyRelu", "Float"> {
  let arguments = (ins Graph_Tensor:$input,
                       DefaultValuedAttr<F32Attr, "0.01">:$alpha);
}

def Graph_HardSigmoidOp : Graph_UnaryOp<"hard_sigmoid", "HardSigmoid", "Float"> {
  let arguments = (ins Graph_Tensor:$input,
                       DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5">:$beta);
}

def Graph_ClipOp : Graph_UnaryOp<"clip", "Clip"> {
  let description = [{
    ONNX `Clip`. The bounds are compile-time constants (the importer requires
    it); an absent bound means unbounded on that side.
  }];
  let arguments = (ins Graph_Tensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
}

//===----------------------------------------------------------------------===//
// Comparison and logic
//===----------------------------------------------------------------------===//

def Graph_EqualOp : Graph_BinaryOp<"equal", "Equal", "Compare", [Commutative]> { let hasFolder = 1; }
def Graph_LessOp : Graph_BinaryOp<"less", "Less", "Compare"> { let hasFolder = 1; }
def Graph_GreaterOp : Graph_BinaryOp<"greater", "Greater", "Compare"> { let hasFolder = 1; }
def Graph_AndOp : Graph_BinaryOp<"and", "And", "Logic", [Commutative]> { let hasFolder = 1; }
def Graph_OrOp : Graph_BinaryOp<"or", "Or", "Logic", [Commutative]> { let hasFolder = 1; }
def Graph_NotOp : Graph_UnaryOp<"not", "Not", "Bool"> { let hasFolder = 1; }

def Graph_WhereOp : Graph_Op<"where", [SymbolicShapes]> {
  let summary = "select by a boolean condition, with broadcasting";
  let arguments = (ins Graph_BoolTensor:$condition, Graph_Tensor:$x,
                       Graph_Tensor:$y);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $condition `,` $x `,` $y attr-dict `:` type($condition) `,` type($x) `,`
    type($y) `->` type($output)
  }];
  let hasFolder = 1;
}

def Graph_CastOp : Graph_Op<"cast", [SymbolicShapes]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Canonicalization: ConvInteger's QOperator form as ONNX Runtime's
    quantize_dynamic writes it, `cast<f32>(cast<i32>(conv(dequantize_linear(
    x, 1, zx), dequantize_linear(w, 1, zw)))) * (sa * sb)` (the importer's
    ConvInteger inside), becomes its QDQ form `conv(dequantize_linear(x, sa,
    zx), dequantize_linear(w, sb, zw))` with both scales per tensor.
  }];
  let arguments = (ins Graph_Tensor:$input, TypeAttr:$to);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Matrix products and normalization
//===----------------------------------------------------------------------===//

def Graph_MatMulOp : Graph_Op<"matmul", [SymbolicShapes]> {
  let summary = "numpy matmul: batched, with broadcasting batch dims";
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
}

def Graph_GemmOp : Graph_Op<"gemm", [SymbolicShapes]> {
  let summary = "alpha * op(A) * op(B) + beta * C, C broadcast to (M, N)";
  let arguments = (ins Graph_Tensor:$a, Graph_Tensor:$b,
                       Optional<Graph_Tensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` type($a) `,` type($b) (`,` type($c)^)?
    `->` type($output)
  }];
}

def Graph_SoftmaxOp : Graph_Op<"softmax", [SymbolicShapes]> {
  let summary = "softmax along one axis (opset-13 semantics)";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Graph_LogSoftmaxOp : Graph_Op<"log_softmax", [SymbolicShapes]> {
  let summary = "log of softmax along one axis (opset-13 semantics)";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Graph_LayerNormOp : Graph_Op<"layer_norm", [SymbolicShapes]> {
  let summary = "layer normalization over the axes from `axis` to the last";
  let description = [{
    ONNX `LayerNormalization`. Results: the normalized tensor, the mean and the
    inverse standard deviation (both with the normalized axes kept as size 1,
    in the statistics type). Later passes drop unused results.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$scale,
                       Optional<Graph_Tensor>:$bias, I64Attr:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Graph_Tensor:$output, Graph_Tensor:$mean,
                      Graph_Tensor:$inv_std_dev);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` type($input) `,` type($scale)
    (`,` type($bias)^)? `->` type(results)
  }];
}

def Graph_BatchNormOp : Graph_Op<"batch_norm"> {
  let summary = "inference-mode batch normalization over channel axis 1";
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$scale,
                       Graph_Tensor:$bias, Graph_Tensor:$mean,
                       Graph_Tensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    type($input) `,` type($scale) `,` type($bias) `,` type($mean) `,`
    type($variance)
  }];
}

def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "ReduceMean">;
def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "ReduceSum">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "ReduceMax">;
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "ReduceMin">;
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod", "ReduceProd">;

def Graph_EinsumOp : Graph_Op<"einsum"> {
  let summary = "Einstein summation with an explicit or implicit output";
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, StrAttr:$equation);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_Op<"reshape", [SymbolicShapes]> {
  let summary = "reinterpret the elements with a new static shape";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", [SymbolicShapes]> {
  let summary = "permute the dimensions";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_ConcatOp : Graph_Op<"concat", [SymbolicShapes]> {
  let summary = "join tensors along one axis";
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($output)";
  let hasFolder = 1;
}

def Graph_SplitOp : Graph_Op<"split", [SymbolicShapes]> {
  let summary = "split one tensor into pieces of the given sizes along an axis";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Graph_Tensor>:$outputs);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($outputs)";
}

def Graph_SliceOp : Graph_Op<"slice", [SymbolicShapes]> {
  let summary = "strided slice, one (start, end, step) per dimension";
  let description = [{
    Canonical, full-rank form of ONNX `Slice`: bounds are clamped, starts are in
    range, and a negative step may have end -1 (meaning: through index 0).
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Graph_GatherOp : Graph_Op<"gather", [SymbolicShapes]> {
  let summary = "take slices along `axis` at the given indices (negative wraps)";
  let description = [{
    An index outside [-n, n) (n: `data`'s size along `axis`) fails the run.

    With `part = array<i64: rows, offset>` (dist-partition's vocab-parallel
    lookup), `data` holds rows [offset, offset + n) of a table of `rows`
    rows along `axis`: indices are checked against [-rows, rows) and wrap by
    `rows`, as the whole table's gather would, and an index outside this
    part gives zeros (the parts are summed after).
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IndexTensor:$indices,
                       I64Attr:$axis, OptionalAttr<DenseI64ArrayAttr>:$part);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices) `->` type($output)";
  let hasFolder = 1;
}

def Graph_ExpandOp : Graph_Op<"expand", [SymbolicShapes]> {
  let summary = "broadcast to a shape (numpy rules, rank may grow)";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Graph_SqueezeOp : Graph_Op<"squeeze", [SymbolicShapes]> {
  let summary = "remove size-1 axes";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasCanonicalizer = 1;
}

def Graph_UnsqueezeOp : Graph_Op<"unsqueeze", [SymbolicShapes]> {
  let summary = "insert size-1 axes (axes index the result)";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasCanonicalizer = 1;
}

def Graph_FlattenOp : Graph_Op<"flatten"> {
  let summary = "collapse to 2-D: dims before `axis`, dims from `axis`";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasCanonicalizer = 1;
}

def Graph_TriluOp : Graph_Op<"trilu", [SymbolicShapes]> {
  let summary = "keep the upper or lower triangle of the last two dims";
  let arguments = (ins Graph_Tensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$upper,
                       DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Convolution, pooling and resizing
//===----------------------------------------------------------------------===//

def Graph_ConvOp : Graph_Op<"conv"> {
  let summary = "N-D grouped convolution, NC[spatial] layout";
  let description = [{
    `pads` holds the begin pads of every spatial dim, then the end pads;
    `auto_pad` is resolved by the importer.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weight,
                       Optional<Graph_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,`
    type($weight) (`,` type($bias)^)? `->` type($output)
  }];
}

def Graph_ConvTransposeOp : Graph_Op<"conv_transpose"> {
  let summary = "N-D grouped transposed convolution, NC[spatial] layout";
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weight,
                       Optional<Graph_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,`
    type($weight) (`,` type($bias)^)? `->` type($output)
  }];
}

def Graph_MaxPoolOp : Graph_Op<"max_pool"> {
  let summary = "N-D max pooling, with the flat indices of the maxima";
  let description = [{
    Results: the pooled values and, as ONNX's optional `Indices` output, the
    int64 flat index of each maximum (row-major unless `storage_order` is 1).
    Lowerings compute the indices only when they are used.
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<I64Attr, "0">:$storage_order);
  let results = (outs Graph_Tensor:$output, Graph_Tensor:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type(results)";
}

def Graph_AveragePoolOp : Graph_Op<"average_pool"> {
  let summary = "N-D average pooling";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_GlobalAveragePoolOp : Graph_Op<"global_average_pool"> {
  let summary = "mean over all spatial dims, kept as size 1";
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_ResizeOp : Graph_Op<"resize"> {
  let summary = "resize by interpolation to static `sizes` (scales kept for coordinates)";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$sizes,
                       DenseF32ArrayAttr:$scales,
                       DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                       DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
                       DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode,
                       DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                       DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value,
                       DefaultValuedAttr<BoolAttr, "false">:$antialias);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_PadOp : Graph_Op<"pad"> {
  let summary = "pad (or crop, for negative pads) every dim";
  let arguments = (ins Graph_Tensor:$input, Optional<Graph_Tensor>:$value,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<StrAttr, "\"constant\"">:$mode);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input (`,` $value^)? attr-dict `:` type($input) (`,` type($value)^)? `->`
    type($output)
  }];
}

//===----------------------------------------------------------------------===//
// Selection and scans
//===----------------------------------------------------------------------===//

def Graph_TopKOp : Graph_Op<"topk"> {
  let summary = "the k largest (or smallest) values along an axis, with indices";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$k, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Graph_Tensor:$values, Graph_Tensor:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type(results)";
}

def Graph_ArgMaxOp : Graph_Op<"arg_max"> {
  let summary = "index of the maximum along an axis (int64)";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_CumSumOp : Graph_Op<"cumsum"> {
  let summary = "cumulative sum along an axis";
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def Graph_QuantizeLinearOp : Graph_Op<"quantize_linear"> {
  let summary = "saturate(round(x / scale) + zero_point), per tensor or per axis";
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$scale,
                       Graph_Tensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:` type($input) `,`
    type($scale) `,` type($zero_point) `->` type($output)
  }];
}

def Graph_DequantizeLinearOp : Graph_Op<"dequantize_linear"> {
  let summary = "(x - zero_point) * scale, per tensor or per axis";
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$scale,
                       Graph_Tensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:` type($input) `,`
    type($scale) `,` type($zero_point) `->` type($output)
  }];
}

def Graph_MatMulIntegerOp : Graph_Op<"matmul_integer"> {
  let summary = "integer matmul with zero points, int32 result";
  let description = [{
    Canonicalization: ONNX Runtime's QOperator form of a quantized product,
    `cast<f32>(matmul_integer(a, b, za, zb)) * (sa * sb)` with `sa` per
    tensor and `sb` per tensor or per column of a 2-D `b`, becomes its QDQ
    form `matmul(dequantize_linear(a, sa, za), dequantize_linear(b, sb,
    zb))`: the same numbers (the int32 sums are exact), in the form that
    fusion extends with a bias and an activation and graph-fold-qdq runs
    on the int8 kernels.
  }];
  let hasCanonicalizer = 1;
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs,
                       Graph_Tensor:$lhs_zero_point,
                       Graph_Tensor:$rhs_zero_point);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $lhs_zero_point `,` $rhs_zero_point attr-dict `:`
    type($lhs) `,` type($rhs) `,` type($lhs_zero_point) `,`
    type($rhs_zero_point) `->` type($output)
  }];
}

def Graph_QLinearMatMulOp : Graph_Op<"qlinear_matmul"> {
  let summary = "quantized matmul: dequantize, multiply, requantize";
  let description = [{
    Canonicalization: with a constant 2-D `rhs` (a weight) and constant
    scales and zero points of both operands (`lhs`'s per tensor, `rhs`'s
    per tensor or per column), as ONNX Runtime's quantize_static writes
    its QOperator form, the op becomes its QDQ form
    `quantize_linear(matmul(dequantize_linear(lhs), dequantize_linear(rhs)),
    output_scale, output_zero_point)`, which graph-fold-qdq runs on the
    int8 kernels. By a run-time `rhs` it stays: `graph-fold-qdq` runs the
    integers' product of an f32 CPU program on the f32 GEMM.
  }];
  let hasCanonicalizer = 1;
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$lhs_scale,
                       Graph_Tensor:$lhs_zero_point, Graph_Tensor:$rhs,
                       Graph_Tensor:$rhs_scale, Graph_Tensor:$rhs_zero_point,
                       Graph_Tensor:$output_scale,
                       Graph_Tensor:$output_zero_point);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Fused ops: created by the recognition and fusion passes (passes/Fusion/Fuse*.cpp),
// never by the importer. Each stands for a pattern exporters emit.
//===----------------------------------------------------------------------===//

def Graph_GeluOp : Graph_Op<"gelu", [SymbolicShapes]> {
  let summary = "GELU: x * Phi(x), exact (erf) or the tanh approximation";
  let description = [{
    `approximate = "none"`: `0.5 * x * (1 + erf(x / sqrt(2)))`;
    `"tanh"`: `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.
  }];
  let arguments = (ins Graph_Tensor:$input,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Graph_SiluOp : Graph_UnaryOp<"silu", "SiLU (x * sigmoid(x), also Swish)", "Float">;

def Graph_SwigluOp : Graph_Op<"swiglu", [SymbolicShapes, AllTypesMatch<["gate", "up"]>]> {
  let summary = "SwiGLU gate: silu(gate) * up, operands of one type";
  let arguments = (ins Graph_Tensor:$gate, Graph_Tensor:$up);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($gate)";
}

def Graph_RmsNormOp : Graph_Op<"rms_norm", [SymbolicShapes]> {
  let summary = "RMS normalization over the axes from `axis` to the last";
  let description = [{
    `x / sqrt(mean(x^2 over axes [axis, rank)) + epsilon) * scale`, the
    statistics in fp32; `scale` has the normalized shape (or broadcasts to
    it).
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$scale, I64Attr:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-6">:$epsilon);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input `,` $scale attr-dict `:` type($input) `,` type($scale)";
}

def Graph_AttentionOp : Graph_Op<"attention", [SymbolicShapes]> {
  let summary = "scaled dot-product attention, softmax(q k^T * scale + mask) v";
  let description = [{
    `q`: [..., S, D], `k`: [..., T, D], `v`: [..., T, E] with equal leading
    (batch, head) dims; the result is [..., S, E]. `mask` (optional, q's
    element type) is added to the scores and broadcasts to [..., S, T] (a
    boolean mask of the export becomes 0 / -inf). With `causal`, position s
    attends to t <= s + (T - S) only. The softmax runs in fp32; the S x T
    score matrix is never materialized by the kernels. `bf16_products`
    (set by the int8 passes) lets f32 operands be rounded to bf16 for the
    two products, with fp32 accumulation, where the CPU has bf16 matmul
    kernels.
  }];
  let arguments = (ins Graph_Tensor:$query, Graph_Tensor:$key,
                       Graph_Tensor:$value, Optional<Graph_Tensor>:$mask,
                       F32Attr:$scale,
                       DefaultValuedAttr<BoolAttr, "false">:$causal,
                       UnitAttr:$bf16_products);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? attr-dict `:` type($query) `,`
    type($key) `,` type($value) (`,` type($mask)^)? `->` type($output)
  }];
}

def Graph_LinearOp : Graph_Op<"linear", [SymbolicShapes, AttrSizedOperandSegments]> {
  let summary = "matmul with a fused epilogue: act(a x b + bias) + residual";
  let description = [{
    numpy MatMul of `a` and `b` (batch dims broadcast) followed by the
    epilogue a GEMM library applies in its store: add `bias` (broadcast
    along rows: shape [N] or [1, N]), apply `activation` (`none`, `relu`,
    `gelu`, `gelu_tanh`), then add `residual` (the result's shape). A
    residual comes only with activation `none`.
  }];
  let arguments = (ins Graph_Tensor:$a, Graph_Tensor:$b,
                       Optional<Graph_Tensor>:$bias,
                       Optional<Graph_Tensor>:$residual,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`bias` $bias^ `:` type($bias))?
    (`residual` $residual^ `:` type($residual))? attr-dict `:` type($a) `,`
    type($b) `->` type($output)
  }];
  let hasVerifier = 1;
}

def Graph_LinearInt8Op : Graph_Op<"linear_int8", [AttrSizedOperandSegments]> {
  let summary = "int8 linear: act((a x b) * a_scale * b_scale + bias) + residual";
  let description = [{
    Made by `graph-quantize-dynamic` and `graph-quantize-static`, never by
    the importer. `a` holds int8 activations [..., M, K], `b` an int8 weight
    [K, N] quantized per column with `b_scale` ([N], f32). Dynamic
    quantization gives `a_scale`, one scale per row of `a` ([..., M, 1],
    f32); static quantization scales `a` per tensor, a constant folded into
    `b_scale`, and gives none. The product accumulates exactly in int32, is
    scaled back, and the f32 epilogue of `graph.linear` follows: `bias`
    ([N]), `activation` (`none`, `relu`, `gelu`, `gelu_tanh`), then
    `residual` (the result's shape, with activation `none`). The result is
    f32.
  }];
  let arguments = (ins Graph_Tensor:$a, Graph_Tensor:$b,
                       Optional<Graph_Tensor>:$a_scale,
                       Graph_Tensor:$b_scale, Optional<Graph_Tensor>:$bias,
                       Optional<Graph_Tensor>:$residual,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $a `,` $b `scales` $b_scale (`rows` $a_scale^ `:` type($a_scale))?
    (`bias` $bias^ `:` type($bias))? (`residual` $residual^ `:`
    type($residual))? attr-dict `:` type($a) `,` type($b) `,` type($b_scale)
    `->` type($output)
  }];
  let hasVerifier = 1;
}

def Graph_FusedConvOp : Graph_Op<"fused_conv", [AttrSizedOperandSegments]> {
  let summary = "convolution with a fused epilogue: act(conv(x, w) + bias + residual)";
  let description = [{
    `graph.conv` followed by what oneDNN applies in the convolution's store
    (post-ops): add `residual` (the result's type), then apply `activation`
    (`none`, `relu` or `hard_swish`). The residual comes before the
    activation, as in a ResNet block (conv, add, relu).
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weight,
                       Optional<Graph_Tensor>:$bias,
                       Optional<Graph_Tensor>:$residual,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^ `:` type($bias))?
    (`residual` $residual^ `:` type($residual))? attr-dict `:` type($input)
    `,` type($weight) `->` type($output)
  }];
  let hasVerifier = 1;
}

def Graph_ConvInt8Op : Graph_Op<"conv_int8", [AttrSizedOperandSegments]> {
  let summary = "int8 convolution: act(conv(input - zp, weight) * scales + "
                "bias + residual)";
  let description = [{
    Made by `graph-fold-qdq` from a convolution between DequantizeLinear
    ops, never by the importer. `input` holds int8 or uint8 activations
    (NC[spatial]) with zero point `input_zero_point` (per tensor: the
    padding reads as real zero), `weight` int8 [C_out, C_in / group, k...]
    quantized symmetrically. The sums accumulate exactly in int32 and are
    scaled by `scales` (one per output channel, or one for all: the
    activation's scale times the weight's), then the f32 epilogue of
    `graph.fused_conv` follows: `bias` ([C_out]), `residual` (the result's
    shape), `activation` (`none`, `relu` or `hard_swish`). The result is
    f32. The scales are constants: oneDNN's int8 convolutions take them
    when the primitive is created.

    With `dynamic_scale` and `dynamic_zero_point` (scalars: f32, and the
    input's type) the activation was quantized at run time
    (DynamicQuantizeLinear): `scales` are the weight's alone, the sums are
    also multiplied by `dynamic_scale`, the zero point subtracted is
    `dynamic_zero_point`, and `input_zero_point` is 0.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weight,
                       Optional<Graph_Tensor>:$bias,
                       Optional<Graph_Tensor>:$residual,
                       Optional<Graph_Tensor>:$dynamic_scale,
                       Optional<Graph_Tensor>:$dynamic_zero_point,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$activation,
                       DenseF32ArrayAttr:$scales,
                       DefaultValuedAttr<I64Attr, "0">:$input_zero_point);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^ `:` type($bias))?
    (`residual` $residual^ `:` type($residual))?
    (`dynamic` $dynamic_scale^ `,` $dynamic_zero_point `:`
     type($dynamic_scale) `,` type($dynamic_zero_point))?
    attr-dict `:` type($input) `,` type($weight) `->` type($output)
  }];
  let hasVerifier = 1;
}

include "dialects/Graph/IR/GraphScatterOps.td"
include "dialects/Graph/IR/GraphMoeOps.td"

#endif // SHARDC_GRAPH_OPS
