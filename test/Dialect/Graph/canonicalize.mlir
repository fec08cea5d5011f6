// RUN: %shardc-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func @identity_folds
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @identity_folds(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.identity %x : tensor<4xf32>
  %1 = graph.cast %0 {to = f32} : tensor<4xf32> -> tensor<4xf32>
  %2 = graph.reshape %1 {shape = array<i64: 4>} : tensor<4xf32> -> tensor<4xf32>
  %3 = graph.transpose %2 {perm = array<i64: 0>} : tensor<4xf32> -> tensor<4xf32>
  %4 = graph.expand %3 {shape = array<i64: 1>} : tensor<4xf32> -> tensor<4xf32>
  %5 = graph.concat %4 {axis = 0 : i64} : tensor<4xf32> -> tensor<4xf32>
  return %5 : tensor<4xf32>
}

// -----

// A real cast stays.
// CHECK-LABEL: func @cast_kept
// CHECK: graph.cast
func.func @cast_kept(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = graph.cast %x {to = f16} : tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func @reshape_chain
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.+]] = graph.reshape %[[X]] {shape = array<i64: 24>} : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = graph.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = graph.reshape %0 {shape = array<i64: 24>} : tensor<6x4xf32> -> tensor<24xf32>
  return %1 : tensor<24xf32>
}

// -----

// Squeeze, Unsqueeze and Flatten are reshapes; the chain collapses into one.
// CHECK-LABEL: func @squeeze_unsqueeze_flatten
// CHECK-SAME: (%[[X:.+]]: tensor<2x1x4xf32>)
// CHECK-NEXT: %[[R:.+]] = graph.reshape %[[X]] {shape = array<i64: 2, 4>} : tensor<2x1x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @squeeze_unsqueeze_flatten(%x: tensor<2x1x4xf32>) -> tensor<2x4xf32> {
  %0 = graph.squeeze %x {axes = array<i64: 1>} : tensor<2x1x4xf32> -> tensor<2x4xf32>
  %1 = graph.unsqueeze %0 {axes = array<i64: 0>} : tensor<2x4xf32> -> tensor<1x2x4xf32>
  %2 = graph.flatten %1 {axis = 2 : i64} : tensor<1x2x4xf32> -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// -----

// transpose(transpose(x, [1, 2, 0]), [1, 2, 0]) == transpose(x, [2, 0, 1])
// CHECK-LABEL: func @transpose_chain
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = graph.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_chain(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 2, 0>} : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// Inverse transposes cancel.
// CHECK-LABEL: func @transpose_inverse
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @constant_folds
// CHECK-DAG: graph.constant dense<7> : tensor<2x2xi64>
// CHECK-DAG: graph.constant dense<{{\[}}[1, 2, 3]]> : tensor<1x3xi32>
// CHECK-NOT: graph.reshape
// CHECK-NOT: graph.constant_of_shape
func.func @constant_folds() -> (tensor<2x2xi64>, tensor<1x3xi32>) {
  %0 = graph.constant_of_shape {shape = array<i64: 2, 2>, value = dense<7> : tensor<1xi64>} : tensor<2x2xi64>
  %1 = graph.constant dense<[1, 2, 3]> : tensor<3xi32>
  %2 = graph.reshape %1 {shape = array<i64: 1, 3>} : tensor<3xi32> -> tensor<1x3xi32>
  return %0, %2 : tensor<2x2xi64>, tensor<1x3xi32>
}

// -----

// ONNX Runtime's QOperator product (quantize_dynamic's MatMulInteger, cast
// and the scales' product) becomes its QDQ form: the activation's scale is
// the one its quantize used, whichever side of the product it is on.
// CHECK-LABEL: func @qoperator_to_qdq
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[SA:.*]]: tensor<f32>, %[[ZA:.*]]: tensor<ui8>)
// CHECK-DAG:     %[[W:.*]] = graph.constant dense<{{.*}}> : tensor<3x2xi8>
// CHECK-DAG:     %[[SW:.*]] = graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG:     %[[ZW:.*]] = graph.constant dense<0> : tensor<i8>
// CHECK:         %[[AQ:.*]] = graph.quantize_linear %[[X]], %[[SA]], %[[ZA]]
// CHECK:         %[[A:.*]] = graph.dequantize_linear %[[AQ]], %[[SA]], %[[ZA]] : tensor<4x3xui8>, tensor<f32>, tensor<ui8> -> tensor<4x3xf32>
// CHECK:         %[[B:.*]] = graph.dequantize_linear %[[W]], %[[SW]], %[[ZW]] : tensor<3x2xi8>, tensor<f32>, tensor<i8> -> tensor<3x2xf32>
// CHECK:         %[[Y:.*]] = graph.matmul %[[A]], %[[B]]
// CHECK-NOT:     graph.matmul_integer
// CHECK:         return %[[Y]]
func.func @qoperator_to_qdq(%x: tensor<4x3xf32>, %sa: tensor<f32>, %za: tensor<ui8>) -> tensor<4x2xf32> {
  %aq = graph.quantize_linear %x, %sa, %za : tensor<4x3xf32>, tensor<f32>, tensor<ui8> -> tensor<4x3xui8>
  %w = graph.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %sw = graph.constant dense<0.5> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %p = graph.matmul_integer %aq, %w, %za, %zw : tensor<4x3xui8>, tensor<3x2xi8>, tensor<ui8>, tensor<i8> -> tensor<4x2xi32>
  %f = graph.cast %p {to = f32} : tensor<4x2xi32> -> tensor<4x2xf32>
  %s = graph.mul %sw, %sa : tensor<f32>, tensor<f32> -> tensor<f32>
  %y = graph.mul %f, %s : tensor<4x2xf32>, tensor<f32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Left alone: a product read twice (the int32 sums are returned too), and
// scales that broadcast the result to more dims than the product has.
// CHECK-LABEL: func @qoperator_kept
// CHECK-COUNT-2: graph.matmul_integer
func.func @qoperator_kept(%aq: tensor<4x3xui8>, %sa: tensor<f32>, %za: tensor<ui8>, %big: tensor<2x1x1xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>, tensor<2x4x2xf32>) {
  %w = graph.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %sw = graph.constant dense<0.5> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %p = graph.matmul_integer %aq, %w, %za, %zw : tensor<4x3xui8>, tensor<3x2xi8>, tensor<ui8>, tensor<i8> -> tensor<4x2xi32>
  %f = graph.cast %p {to = f32} : tensor<4x2xi32> -> tensor<4x2xf32>
  %s = graph.mul %sa, %sw : tensor<f32>, tensor<f32> -> tensor<f32>
  %y = graph.mul %f, %s : tensor<4x2xf32>, tensor<f32> -> tensor<4x2xf32>
  %p2 = graph.matmul_integer %aq, %w, %za, %zw : tensor<4x3xui8>, tensor<3x2xi8>, tensor<ui8>, tensor<i8> -> tensor<4x2xi32>
  %f2 = graph.cast %p2 {to = f32} : tensor<4x2xi32> -> tensor<4x2xf32>
  %y2 = graph.mul %f2, %big : tensor<4x2xf32>, tensor<2x1x1xf32> -> tensor<2x4x2xf32>
  return %y, %p, %y2 : tensor<4x2xf32>, tensor<4x2xi32>, tensor<2x4x2xf32>
}

// -----

// ConvInteger as the importer writes it (a convolution of operands
// dequantized with scale 1, cast to i32), cast to f32 and scaled by the two
// per-tensor scales (quantize_dynamic's form), becomes the convolution of
// the operands dequantized with their scales; the quantize's scale is the
// activation's.
// CHECK-LABEL: func @conv_integer_to_qdq
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x4x4xf32>, %[[SA:.*]]: tensor<f32>, %[[ZA:.*]]: tensor<ui8>)
// CHECK:         %[[AQ:.*]] = graph.quantize_linear %[[X]], %[[SA]], %[[ZA]]
// CHECK:         %[[A:.*]] = graph.dequantize_linear %[[AQ]], %[[SA]], %[[ZA]]
// CHECK:         %[[B:.*]] = graph.dequantize_linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x2x1x1xi8>
// CHECK:         %[[Y:.*]] = graph.conv %[[A]], %[[B]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NOT:     graph.cast
// CHECK:         return %[[Y]]
func.func @conv_integer_to_qdq(%x: tensor<1x2x4x4xf32>, %sa: tensor<f32>, %za: tensor<ui8>) -> tensor<1x3x4x4xf32> {
  %aq = graph.quantize_linear %x, %sa, %za : tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8> -> tensor<1x2x4x4xui8>
  %one = graph.constant dense<1.0> : tensor<f32>
  %w = graph.constant dense<[[[[1]], [[2]]], [[[3]], [[4]]], [[[5]], [[-6]]]]> : tensor<3x2x1x1xi8>
  %zw = graph.constant dense<0> : tensor<i8>
  %sw = graph.constant dense<0.5> : tensor<f32>
  %a = graph.dequantize_linear %aq, %one, %za : tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8> -> tensor<1x2x4x4xf32>
  %b = graph.dequantize_linear %w, %one, %zw {axis = 1 : i64} : tensor<3x2x1x1xi8>, tensor<f32>, tensor<i8> -> tensor<3x2x1x1xf32>
  %c = graph.conv %a, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32>
  %i = graph.cast %c {to = i32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xi32>
  %f = graph.cast %i {to = f32} : tensor<1x3x4x4xi32> -> tensor<1x3x4x4xf32>
  %s = graph.mul %sw, %sa : tensor<f32>, tensor<f32> -> tensor<f32>
  %y = graph.mul %f, %s : tensor<1x3x4x4xf32>, tensor<f32> -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// quantize_dynamic's per_channel form: a zero point per output channel
// (the importer's dequantize of ones along axis 0) and the scales' product
// broadcast over the output's channels ([1, C, 1, 1]): the weight is
// dequantized per channel with the scales as [C].
// CHECK-LABEL: func @conv_integer_per_channel
// CHECK-DAG:     %[[SW:.*]] = graph.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01]> : tensor<3xf32>
// CHECK-DAG:     %[[ZW:.*]] = graph.constant dense<0> : tensor<3xi8>
// CHECK:         %[[B:.*]] = graph.dequantize_linear %{{.*}}, %[[SW]], %[[ZW]] {axis = 0 : i64} : tensor<3x2x1x1xi8>, tensor<3xf32>, tensor<3xi8> -> tensor<3x2x1x1xf32>
// CHECK:         %[[Y:.*]] = graph.conv %{{.*}}, %[[B]]
// CHECK-NOT:     graph.cast
// CHECK:         return %[[Y]]
func.func @conv_integer_per_channel(%x: tensor<1x2x4x4xf32>, %sa: tensor<f32>, %za: tensor<ui8>) -> tensor<1x3x4x4xf32> {
  %aq = graph.quantize_linear %x, %sa, %za : tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8> -> tensor<1x2x4x4xui8>
  %one = graph.constant dense<1.0> : tensor<f32>
  %ones = graph.constant dense<1.0> : tensor<3xf32>
  %w = graph.constant dense<[[[[1]], [[2]]], [[[3]], [[4]]], [[[5]], [[-6]]]]> : tensor<3x2x1x1xi8>
  %zw = graph.constant dense<0> : tensor<3xi8>
  %sw = graph.constant dense<[[[[0.5]], [[0.25]], [[0.125]]]]> : tensor<1x3x1x1xf32>
  %a = graph.dequantize_linear %aq, %one, %za : tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8> -> tensor<1x2x4x4xf32>
  %b = graph.dequantize_linear %w, %ones, %zw {axis = 0 : i64} : tensor<3x2x1x1xi8>, tensor<3xf32>, tensor<3xi8> -> tensor<3x2x1x1xf32>
  %c = graph.conv %a, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32>
  %i = graph.cast %c {to = i32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xi32>
  %f = graph.cast %i {to = f32} : tensor<1x3x4x4xi32> -> tensor<1x3x4x4xf32>
  %s = graph.mul %sa, %sw : tensor<f32>, tensor<1x3x1x1xf32> -> tensor<1x3x1x1xf32>
  %y = graph.mul %f, %s : tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32> -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// The same with one zero point for the weight (ONNX Runtime's ConvInteger
// refuses a zero point per channel, so quantize_dynamic writes one): it is
// repeated per channel.
// CHECK-LABEL: func @conv_integer_per_channel_one_zero
// CHECK-DAG:     %[[ZW:.*]] = graph.constant dense<0> : tensor<3xi8>
// CHECK:         graph.dequantize_linear %{{.*}}, %{{.*}}, %[[ZW]] {axis = 0 : i64} : tensor<3x2x1x1xi8>, tensor<3xf32>, tensor<3xi8> -> tensor<3x2x1x1xf32>
// CHECK-NOT:     graph.cast
func.func @conv_integer_per_channel_one_zero(%x: tensor<1x2x4x4xf32>, %sa: tensor<f32>, %za: tensor<ui8>) -> tensor<1x3x4x4xf32> {
  %aq = graph.quantize_linear %x, %sa, %za : tensor<1x2x4x4xf32>, tensor<f32>, tensor<ui8> -> tensor<1x2x4x4xui8>
  %one = graph.constant dense<1.0> : tensor<f32>
  %w = graph.constant dense<[[[[1]], [[2]]], [[[3]], [[4]]], [[[5]], [[-6]]]]> : tensor<3x2x1x1xi8>
  %zw = graph.constant dense<0> : tensor<i8>
  %sw = graph.constant dense<[[[[0.5]], [[0.25]], [[0.125]]]]> : tensor<1x3x1x1xf32>
  %a = graph.dequantize_linear %aq, %one, %za : tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8> -> tensor<1x2x4x4xf32>
  %b = graph.dequantize_linear %w, %one, %zw {axis = 1 : i64} : tensor<3x2x1x1xi8>, tensor<f32>, tensor<i8> -> tensor<3x2x1x1xf32>
  %c = graph.conv %a, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32>
  %i = graph.cast %c {to = i32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xi32>
  %f = graph.cast %i {to = f32} : tensor<1x3x4x4xi32> -> tensor<1x3x4x4xf32>
  %s = graph.mul %sa, %sw : tensor<f32>, tensor<1x3x1x1xf32> -> tensor<1x3x1x1xf32>
  %y = graph.mul %f, %s : tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32> -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// Left alone: the int32 sums read too, and a dequantize whose scale is not
// 1 (not ConvInteger's form: its cast rounds).
// CHECK-LABEL: func @conv_integer_kept
// CHECK-COUNT-2: graph.cast %{{.*}} {to = f32}
func.func @conv_integer_kept(%aq: tensor<1x2x4x4xui8>, %sa: tensor<f32>, %za: tensor<ui8>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>, tensor<1x3x4x4xf32>) {
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %w = graph.constant dense<1> : tensor<3x2x1x1xi8>
  %zw = graph.constant dense<0> : tensor<i8>
  %a = graph.dequantize_linear %aq, %one, %za : tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8> -> tensor<1x2x4x4xf32>
  %b = graph.dequantize_linear %w, %one, %zw : tensor<3x2x1x1xi8>, tensor<f32>, tensor<i8> -> tensor<3x2x1x1xf32>
  %c = graph.conv %a, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32>
  %i = graph.cast %c {to = i32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xi32>
  %f = graph.cast %i {to = f32} : tensor<1x3x4x4xi32> -> tensor<1x3x4x4xf32>
  %s = graph.mul %half, %sa : tensor<f32>, tensor<f32> -> tensor<f32>
  %y = graph.mul %f, %s : tensor<1x3x4x4xf32>, tensor<f32> -> tensor<1x3x4x4xf32>
  %a2 = graph.dequantize_linear %aq, %half, %za : tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8> -> tensor<1x2x4x4xf32>
  %c2 = graph.conv %a2, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x4xf32>
  %i2 = graph.cast %c2 {to = i32} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xi32>
  %f2 = graph.cast %i2 {to = f32} : tensor<1x3x4x4xi32> -> tensor<1x3x4x4xf32>
  %y2 = graph.mul %f2, %s : tensor<1x3x4x4xf32>, tensor<f32> -> tensor<1x3x4x4xf32>
  return %y, %i, %y2 : tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>, tensor<1x3x4x4xf32>
}

// -----

// QLinearMatMul by a constant weight (quantize_static's QOperator form)
// becomes dequantize, matmul, quantize; with a run-time weight it stays
// (graph-fold-qdq runs it on the f32 GEMM, fold-qdq.mlir).
// CHECK-LABEL: func @qlinear_to_qdq
// CHECK-SAME:    (%[[AQ:.*]]: tensor<4x3xui8>, %[[BQ:.*]]: tensor<3x2xi8>)
// CHECK:         %[[A:.*]] = graph.dequantize_linear %[[AQ]], {{.*}} -> tensor<4x3xf32>
// CHECK:         %[[B:.*]] = graph.dequantize_linear %{{.*}}, {{.*}} : tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<3x2xf32>
// CHECK:         %[[P:.*]] = graph.matmul %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
// CHECK:         %[[Y:.*]] = graph.quantize_linear %[[P]], {{.*}} -> tensor<4x2xui8>
// CHECK:         %[[K:.*]] = graph.qlinear_matmul %[[AQ]], {{.*}}, %[[BQ]],
// CHECK:         return %[[Y]], %[[K]]
func.func @qlinear_to_qdq(%aq: tensor<4x3xui8>, %bq: tensor<3x2xi8>) -> (tensor<4x2xui8>, tensor<4x2xui8>) {
  %sa = graph.constant dense<0.5> : tensor<f32>
  %za = graph.constant dense<3> : tensor<ui8>
  %w = graph.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %sw = graph.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %zw = graph.constant dense<0> : tensor<2xi8>
  %sy = graph.constant dense<2.0> : tensor<f32>
  %zy = graph.constant dense<7> : tensor<ui8>
  %y = graph.qlinear_matmul %aq, %sa, %za, %w, %sw, %zw, %sy, %zy : (tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>) -> tensor<4x2xui8>
  %k = graph.qlinear_matmul %aq, %sa, %za, %bq, %sw, %zw, %sy, %zy : (tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8>, tensor<f32>, tensor<ui8>) -> tensor<4x2xui8>
  return %y, %k : tensor<4x2xui8>, tensor<4x2xui8>
}

// -----

// A scalar weight scale with per-column zero points has no dequantize_linear
// of one shape: the op stays (it did not, once: Target/Cuda/calls.test).
// CHECK-LABEL: func @qlinear_mixed_params
// CHECK:         graph.qlinear_matmul
// CHECK-NOT:     graph.dequantize_linear
func.func @qlinear_mixed_params(%aq: tensor<4x3xui8>) -> tensor<4x2xui8> {
  %sa = graph.constant dense<0.5> : tensor<f32>
  %za = graph.constant dense<3> : tensor<ui8>
  %w = graph.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %sw = graph.constant dense<0.25> : tensor<f32>
  %zw = graph.constant dense<[0, 1]> : tensor<2xi8>
  %sy = graph.constant dense<2.0> : tensor<f32>
  %zy = graph.constant dense<7> : tensor<ui8>
  %y = graph.qlinear_matmul %aq, %sa, %za, %w, %sw, %zw, %sy, %zy : (tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x2xi8>, tensor<f32>, tensor<2xi8>, tensor<f32>, tensor<ui8>) -> tensor<4x2xui8>
  return %y : tensor<4x2xui8>
}
