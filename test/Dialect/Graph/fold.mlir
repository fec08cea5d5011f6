// RUN: %shardc-opt %s --split-input-file --canonicalize --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s

// Constant folding through the evaluator of ConstantEval.h: every folded
// value is what the generated code computes; what it leaves undefined, and
// results above kFoldCap (2^16 elements), stay.

// Integer arithmetic wraps at the element type's width.
// CHECK-LABEL: func @add_sub_mul_wrap
// CHECK-DAG: %[[ADD:.+]] = graph.constant dense<[-9223372036854775808, 5]> : tensor<2xi64>
// CHECK-DAG: %[[SUB:.+]] = graph.constant dense<[127, 126]> : tensor<2xi8>
// CHECK-DAG: %[[MUL:.+]] = graph.constant dense<[0, -6]> : tensor<2xi32>
// CHECK-NOT: graph.add
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]]
func.func @add_sub_mul_wrap() -> (tensor<2xi64>, tensor<2xi8>, tensor<2xi32>) {
  %a = graph.constant dense<[9223372036854775807, 7]> : tensor<2xi64>
  %b = graph.constant dense<[1, -2]> : tensor<2xi64>
  %0 = graph.add %a, %b : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  %c = graph.constant dense<[-128, 127]> : tensor<2xi8>
  %d = graph.constant dense<1> : tensor<i8>
  %1 = graph.sub %c, %d : tensor<2xi8>, tensor<i8> -> tensor<2xi8>
  %e = graph.constant dense<[65536, 3]> : tensor<2xi32>
  %f = graph.constant dense<[65536, -2]> : tensor<2xi32>
  %2 = graph.mul %e, %f : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  return %0, %1, %2 : tensor<2xi64>, tensor<2xi8>, tensor<2xi32>
}

// -----

// Division truncates; INT_MIN / -1 wraps; unsigned divides unsigned.
// CHECK-LABEL: func @div_int
// CHECK-DAG: %[[S:.+]] = graph.constant dense<[-2147483648, -3]> : tensor<2xi32>
// CHECK-DAG: %[[U:.+]] = graph.constant dense<[66, 1]> : tensor<2xui8>
// CHECK-NOT: graph.div
// CHECK: return %[[S]], %[[U]]
func.func @div_int() -> (tensor<2xi32>, tensor<2xui8>) {
  %a = graph.constant dense<[-2147483648, -7]> : tensor<2xi32>
  %b = graph.constant dense<[-1, 2]> : tensor<2xi32>
  %0 = graph.div %a, %b : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  %c = graph.constant dense<[200, 255]> : tensor<2xui8>
  %d = graph.constant dense<[3, 128]> : tensor<2xui8>
  %1 = graph.div %c, %d : tensor<2xui8>, tensor<2xui8> -> tensor<2xui8>
  return %0, %1 : tensor<2xi32>, tensor<2xui8>
}

// -----

// An integer division by zero is left to the runtime.
// CHECK-LABEL: func @div_by_zero_stays
// CHECK: %[[Q:.+]] = graph.div
// CHECK: return %[[Q]]
func.func @div_by_zero_stays() -> tensor<2xi64> {
  %a = graph.constant dense<[4, 5]> : tensor<2xi64>
  %b = graph.constant dense<[2, 0]> : tensor<2xi64>
  %0 = graph.div %a, %b : tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// fp32 results are rounded to fp32: 1 - 2^-30 is 1, 3e38 + 3e38 is +inf
// (finite in double); inf - inf is NaN.
// CHECK-LABEL: func @f32_rounds
// CHECK: %[[R:.+]] = graph.constant dense<[1.000000e+00, 0x7F800000, {{0x[7F]FC00000}}]> : tensor<3xf32>
// CHECK: return %[[R]]
func.func @f32_rounds() -> tensor<3xf32> {
  %a = graph.constant dense<[1.0, 3.0e+38, 0x7F800000]> : tensor<3xf32>
  %b = graph.constant dense<[9.31322574615478515625e-10, -3.0e+38, 0x7F800000]> : tensor<3xf32>
  %0 = graph.sub %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// fp16 rounds after every op, as the generated code does (0.6406 * -1.114
// + 0.137 is -0.5767 without the intermediate rounding).
// CHECK-LABEL: func @f16_rounds_each_op
// CHECK: %[[R:.+]] = graph.constant dense<[-5.771480e-01, -1.103520e+00, 1.583980e+00]> : tensor<3xf16>
// CHECK: return %[[R]]
func.func @f16_rounds_each_op() -> tensor<3xf16> {
  %a = graph.constant dense<[0.6406, 0.3616, -0.7036]> : tensor<3xf16>
  %b = graph.constant dense<[-1.114, -1.03, -0.9185]> : tensor<3xf16>
  %c = graph.constant dense<[0.137, -0.7305, 0.9385]> : tensor<3xf16>
  %0 = graph.mul %a, %b : tensor<3xf16>, tensor<3xf16> -> tensor<3xf16>
  %1 = graph.add %0, %c : tensor<3xf16>, tensor<3xf16> -> tensor<3xf16>
  return %1 : tensor<3xf16>
}

// -----

// Max and min propagate NaN from either side; of +0 and -0 they give the
// second operand, as the generated code's select does.
// CHECK-LABEL: func @max_min_nan
// CHECK-DAG: %[[MAX:.+]] = graph.constant dense<[0x7FC00000, 0x7FC00000, -0.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[MIN:.+]] = graph.constant dense<[0x7FC00000, 0x7FC00000, -0.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[IMAX:.+]] = graph.constant dense<[250, 3]> : tensor<2xui8>
// CHECK: return %[[MAX]], %[[MIN]], %[[IMAX]]
func.func @max_min_nan() -> (tensor<4xf32>, tensor<4xf32>, tensor<2xui8>) {
  %a = graph.constant dense<[1.0, 0x7FC00000, 0.0, 2.0]> : tensor<4xf32>
  %b = graph.constant dense<[0x7FC00000, 1.0, -0.0, 1.0]> : tensor<4xf32>
  %0 = graph.max %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = graph.min %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %c = graph.constant dense<[250, 2]> : tensor<2xui8>
  %d = graph.constant dense<[3, 3]> : tensor<2xui8>
  %2 = graph.max %c, %d : tensor<2xui8>, tensor<2xui8> -> tensor<2xui8>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<2xui8>
}

// -----

// Comparisons with NaN are false; logic on booleans.
// CHECK-LABEL: func @compare_logic
// CHECK-DAG: %[[EQ:.+]] = graph.constant dense<[false, true, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[LT:.+]] = graph.constant dense<[false, false, true, false]> : tensor<4xi1>
// CHECK-DAG: %[[GT:.+]] = graph.constant dense<[false, false, false, true]> : tensor<4xi1>
// CHECK-DAG: %[[AND:.+]] = graph.constant dense<[true, false, true, false]> : tensor<4xi1>
// CHECK-DAG: %[[OR:.+]] = graph.constant dense<[false, true, false, true]> : tensor<4xi1>
// CHECK: return %[[EQ]], %[[LT]], %[[GT]], %[[AND]], %[[OR]]
func.func @compare_logic() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %a = graph.constant dense<[0x7FC00000, 1.0, 1.0, 3.0]> : tensor<4xf32>
  %b = graph.constant dense<[0x7FC00000, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %eq = graph.equal %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %lt = graph.less %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %gt = graph.greater %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  %ne = graph.not %eq : tensor<4xi1>
  %le = graph.not %gt : tensor<4xi1>
  %0 = graph.and %ne, %le : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  %1 = graph.or %eq, %gt : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  return %eq, %lt, %gt, %0, %1 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Negation wraps; abs of -128 in i8 wraps (the code negates in int), sqrt
// rounds to fp32.
// CHECK-LABEL: func @neg_abs_sqrt
// CHECK-DAG: %[[NEG:.+]] = graph.constant dense<[-9223372036854775808, -3]> : tensor<2xi64>
// CHECK-DAG: %[[ABS:.+]] = graph.constant dense<[-128, 5]> : tensor<2xi8>
// CHECK-DAG: %[[SQRT:.+]] = graph.constant dense<[1.41421354, 0x7FC00000]> : tensor<2xf32>
// CHECK: return %[[NEG]], %[[ABS]], %[[SQRT]]
func.func @neg_abs_sqrt() -> (tensor<2xi64>, tensor<2xi8>, tensor<2xf32>) {
  %a = graph.constant dense<[-9223372036854775808, 3]> : tensor<2xi64>
  %0 = graph.neg %a : tensor<2xi64>
  %b = graph.constant dense<[-128, -5]> : tensor<2xi8>
  %1 = graph.abs %b : tensor<2xi8>
  %c = graph.constant dense<[2.0, 0x7FC00000]> : tensor<2xf32>
  %2 = graph.sqrt %c : tensor<2xf32>
  return %0, %1, %2 : tensor<2xi64>, tensor<2xi8>, tensor<2xf32>
}

// -----

// abs of the most negative i32 has no answer in the generated code.
// CHECK-LABEL: func @abs_i32_min_stays
// CHECK: %[[A:.+]] = graph.abs
// CHECK: return %[[A]]
func.func @abs_i32_min_stays() -> tensor<2xi32> {
  %a = graph.constant dense<[-2147483648, -5]> : tensor<2xi32>
  %0 = graph.abs %a : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func @where_broadcast
// CHECK: %[[W:.+]] = graph.constant dense<{{\[}}[1, 9], [1, 9]]> : tensor<2x2xi64>
// CHECK: return %[[W]]
func.func @where_broadcast() -> tensor<2x2xi64> {
  %c = graph.constant dense<[true, false]> : tensor<2xi1>
  %x = graph.constant dense<1> : tensor<2x1xi64>
  %y = graph.constant dense<9> : tensor<i64>
  %0 = graph.where %c, %x, %y : tensor<2xi1>, tensor<2x1xi64>, tensor<i64> -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

// Casts convert as the generated code does: floats truncate, integers
// wrap, i64 rounds once to fp32, anything non-zero (NaN too) is true.
// CHECK-LABEL: func @casts
// CHECK-DAG: %[[TRUNC:.+]] = graph.constant dense<[2, -2]> : tensor<2xi32>
// CHECK-DAG: %[[WRAP:.+]] = graph.constant dense<[-56, 127]> : tensor<2xi8>
// CHECK-DAG: %[[TOF:.+]] = graph.constant dense<[9.00719925E+15, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[BOOL:.+]] = graph.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: %[[HALF:.+]] = graph.constant dense<[1.000000e+00, 6.550400e+04]> : tensor<2xf16>
// CHECK: return %[[TRUNC]], %[[WRAP]], %[[TOF]], %[[BOOL]], %[[HALF]]
func.func @casts() -> (tensor<2xi32>, tensor<2xi8>, tensor<2xf32>, tensor<2xi1>, tensor<2xf16>) {
  %a = graph.constant dense<[2.7, -2.7]> : tensor<2xf32>
  %0 = graph.cast %a {to = i32} : tensor<2xf32> -> tensor<2xi32>
  %b = graph.constant dense<[200, 127]> : tensor<2xui8>
  %1 = graph.cast %b {to = i8} : tensor<2xui8> -> tensor<2xi8>
  %c = graph.constant dense<[9007199254740993, -1]> : tensor<2xi64>
  %2 = graph.cast %c {to = f32} : tensor<2xi64> -> tensor<2xf32>
  %d = graph.constant dense<[0x7FC00000, 0.0]> : tensor<2xf32>
  %3 = graph.cast %d {to = i1} : tensor<2xf32> -> tensor<2xi1>
  %e = graph.constant dense<[1.0000000001, 65504.0]> : tensor<2xf64>
  %4 = graph.cast %e {to = f16} : tensor<2xf64> -> tensor<2xf16>
  return %0, %1, %2, %3, %4 : tensor<2xi32>, tensor<2xi8>, tensor<2xf32>, tensor<2xi1>, tensor<2xf16>
}

// -----

// A float that an integer type cannot hold (NaN, too large) is undefined
// in C++: the casts stay.
// CHECK-LABEL: func @cast_undefined_stays
// CHECK: %[[A:.+]] = graph.cast
// CHECK: %[[B:.+]] = graph.cast
// CHECK: return %[[A]], %[[B]]
func.func @cast_undefined_stays() -> (tensor<1xi32>, tensor<1xui8>) {
  %a = graph.constant dense<[0x7FC00000]> : tensor<1xf32>
  %0 = graph.cast %a {to = i32} : tensor<1xf32> -> tensor<1xi32>
  %b = graph.constant dense<[-1.0]> : tensor<1xf32>
  %1 = graph.cast %b {to = ui8} : tensor<1xf32> -> tensor<1xui8>
  return %0, %1 : tensor<1xi32>, tensor<1xui8>
}

// -----

// CHECK-LABEL: func @data_movement
// CHECK-DAG: %[[T:.+]] = graph.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: %[[S:.+]] = graph.constant dense<{{\[}}[6, 4]]> : tensor<1x2xi32>
// CHECK-DAG: %[[G:.+]] = graph.constant dense<{{\[}}[3, 1], [6, 4]]> : tensor<2x2xi32>
// CHECK-DAG: %[[C:.+]] = graph.constant dense<[1, 2, 3, 4, 5, 6, 7]> : tensor<7xi32>
// CHECK-DAG: %[[E:.+]] = graph.constant dense<7> : tensor<2x2xi32>
// CHECK-DAG: %[[L:.+]] = graph.constant dense<{{\[}}[1, 0, 0], [4, 5, 0]]> : tensor<2x3xi32>
// CHECK-NOT: graph.transpose
// CHECK-NOT: graph.slice
// CHECK-NOT: graph.gather
// CHECK-NOT: graph.concat
// CHECK-NOT: graph.expand
// CHECK-NOT: graph.trilu
// CHECK: return %[[T]], %[[S]], %[[G]], %[[C]], %[[E]], %[[L]]
func.func @data_movement() -> (tensor<3x2xi32>, tensor<1x2xi32>, tensor<2x2xi32>, tensor<7xi32>, tensor<2x2xi32>, tensor<2x3xi32>) {
  %x = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xi32> -> tensor<3x2xi32>
  %1 = graph.slice %x {starts = array<i64: 1, 2>, ends = array<i64: 2, -1>, steps = array<i64: 1, -2>} : tensor<2x3xi32> -> tensor<1x2xi32>
  %i = graph.constant dense<[-1, 0]> : tensor<2xi64>
  %2 = graph.gather %x, %i {axis = 1 : i64} : tensor<2x3xi32>, tensor<2xi64> -> tensor<2x2xi32>
  %y = graph.constant dense<7> : tensor<1xi32>
  %f = graph.reshape %x {shape = array<i64: 6>} : tensor<2x3xi32> -> tensor<6xi32>
  %3 = graph.concat %f, %y {axis = 0 : i64} : tensor<6xi32>, tensor<1xi32> -> tensor<7xi32>
  %4 = graph.expand %y {shape = array<i64: 2, 2>} : tensor<1xi32> -> tensor<2x2xi32>
  %5 = graph.trilu %x {upper = false} : tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x2xi32>, tensor<1x2xi32>, tensor<2x2xi32>, tensor<7xi32>, tensor<2x2xi32>, tensor<2x3xi32>
}

// -----

// The generated code does not bounds-check constant indices: no fold.
// CHECK-LABEL: func @gather_out_of_range_stays
// CHECK: %[[G:.+]] = graph.gather
// CHECK: return %[[G]]
func.func @gather_out_of_range_stays() -> tensor<1xi32> {
  %x = graph.constant dense<[1, 2, 3]> : tensor<3xi32>
  %i = graph.constant dense<[3]> : tensor<1xi64>
  %0 = graph.gather %x, %i {axis = 0 : i64} : tensor<3xi32>, tensor<1xi64> -> tensor<1xi32>
  return %0 : tensor<1xi32>
}

// -----

// Weights (resource blobs: 4, 1) fold like dense attributes.
// CHECK-LABEL: func @resource_operand
// CHECK: %[[R:.+]] = graph.constant dense<[5.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[R]]
func.func @resource_operand() -> tensor<2xf32> {
  %w = graph.constant dense_resource<w> : tensor<2xf32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %0 = graph.add %w, %one : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000080400000803F"
    }
  }
#-}

// -----

// The cap: a result of exactly 2^16 elements folds, one of 2^16 + 256
// does not, nor does a small result read from an operand above the cap.
// CHECK-LABEL: func @size_cap
// CHECK: %[[BIG:.+]] = graph.constant dense<1.000000e+00> : tensor<257x256xf32>
// CHECK: %[[AT:.+]] = graph.constant dense_resource<__elided__> : tensor<256x256xf32>
// CHECK: %[[ABOVE:.+]] = graph.trilu %[[BIG]]
// CHECK: %[[SMALL:.+]] = graph.slice %[[BIG]]
// CHECK: return %[[AT]], %[[ABOVE]], %[[SMALL]]
func.func @size_cap() -> (tensor<256x256xf32>, tensor<257x256xf32>, tensor<1x2xf32>) {
  %at = graph.constant dense<1.0> : tensor<256x256xf32>
  %0 = graph.trilu %at : tensor<256x256xf32>
  %big = graph.constant dense<1.0> : tensor<257x256xf32>
  %1 = graph.trilu %big : tensor<257x256xf32>
  %2 = graph.slice %big {starts = array<i64: 0, 0>, ends = array<i64: 1, 2>, steps = array<i64: 1, 1>} : tensor<257x256xf32> -> tensor<1x2xf32>
  return %0, %1, %2 : tensor<256x256xf32>, tensor<257x256xf32>, tensor<1x2xf32>
}

// -----

// A splat reshapes at any size (it stays one element).
// CHECK-LABEL: func @splat_reshape_any_size
// CHECK: %[[R:.+]] = graph.constant dense<2> : tensor<512x512xi8>
// CHECK: return %[[R]]
func.func @splat_reshape_any_size() -> tensor<512x512xi8> {
  %a = graph.constant dense<2> : tensor<262144xi8>
  %0 = graph.reshape %a {shape = array<i64: 512, 512>} : tensor<262144xi8> -> tensor<512x512xi8>
  return %0 : tensor<512x512xi8>
}

// -----

// A scatter_nd whose constant indices name every position of data in order
// replaces all of it: the result is the updates.
// CHECK-LABEL: func.func @scatter_nd_whole
// CHECK-NEXT:    return %arg1
func.func @scatter_nd_whole(%d: tensor<2x2xf32>, %u: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %i = graph.constant dense<[[[0, 0], [0, 1]], [[1, 0], [1, 1]]]> : tensor<2x2x2xi64>
  %0 = graph.scatter_nd %d, %i, %u : tensor<2x2xf32>, tensor<2x2x2xi64>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Indices out of order (rows swapped) are a real scatter.
// CHECK-LABEL: func.func @scatter_nd_permuted
// CHECK:         graph.scatter_nd
func.func @scatter_nd_permuted(%d: tensor<2x2xf32>, %u: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %i = graph.constant dense<[[[1, 0], [1, 1]], [[0, 0], [0, 1]]]> : tensor<2x2x2xi64>
  %0 = graph.scatter_nd %d, %i, %u : tensor<2x2xf32>, tensor<2x2x2xi64>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Rounding: down, up, and half to even (ONNX's Round: 0.5 -> 0, 1.5 -> 2,
// 2.5 -> 2, -2.5 -> -2).
// CHECK-LABEL: func @rounding
// CHECK-DAG: graph.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, -3.000000e+00]> : tensor<4xf32>
// CHECK-DAG: graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, -2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: graph.constant dense<[0.000000e+00, 2.000000e+00, 2.000000e+00, -2.000000e+00]> : tensor<4xf32>
// CHECK-NOT: graph.floor
// CHECK-NOT: graph.round
func.func @rounding() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = graph.constant dense<[0.5, 1.5, 2.5, -2.5]> : tensor<4xf32>
  %f = graph.floor %c : tensor<4xf32>
  %u = graph.ceil %c : tensor<4xf32>
  %r = graph.round %c : tensor<4xf32>
  return %f, %u, %r : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
