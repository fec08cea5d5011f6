// RUN: %shardc-opt %s --split-input-file | %shardc-opt --split-input-file | FileCheck %s
// Round trip of every graph op through the custom assembly format.

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2x3xi32>) -> tensor<2x3xf32> {
  // CHECK: graph.add %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %0 = graph.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: graph.sub
  %1 = graph.sub %0, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: graph.mul
  %2 = graph.mul %1, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: graph.div
  %3 = graph.div %2, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: graph.pow %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xi32> -> tensor<2x3xf32>
  %4 = graph.pow %3, %i : tensor<2x3xf32>, tensor<2x3xi32> -> tensor<2x3xf32>
  // CHECK: graph.max %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %mx = graph.max %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: graph.min %{{.*}}, %{{.*}} : tensor<2x3xi32>, tensor<2x3xi32> -> tensor<2x3xi32>
  %mn = graph.min %i, %i : tensor<2x3xi32>, tensor<2x3xi32> -> tensor<2x3xi32>
  %5 = graph.sqrt %4 : tensor<2x3xf32>
  %6 = graph.reciprocal %5 : tensor<2x3xf32>
  %7 = graph.exp %6 : tensor<2x3xf32>
  %8 = graph.log %7 : tensor<2x3xf32>
  %9 = graph.erf %8 : tensor<2x3xf32>
  %10 = graph.tanh %9 : tensor<2x3xf32>
  // CHECK: graph.floor %{{.*}} : tensor<2x3xf32>
  // CHECK: graph.ceil %{{.*}} : tensor<2x3xf32>
  // CHECK: graph.round %{{.*}} : tensor<2x3xf32>
  %fl = graph.floor %10 : tensor<2x3xf32>
  %ce = graph.ceil %fl : tensor<2x3xf32>
  %ro = graph.round %ce : tensor<2x3xf32>
  %11 = graph.sigmoid %10 : tensor<2x3xf32>
  %12 = graph.relu %11 : tensor<2x3xf32>
  // CHECK: graph.leaky_relu %{{.*}} {alpha = 2.000000e-01 : f32} : tensor<2x3xf32>
  %13 = graph.leaky_relu %12 {alpha = 0.2 : f32} : tensor<2x3xf32>
  // CHECK: graph.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
  %14 = graph.clip %13 {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x3xf32>
  %15 = graph.hard_sigmoid %14 {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<2x3xf32>
  %16 = graph.hard_swish %15 : tensor<2x3xf32>
  %17 = graph.neg %16 : tensor<2x3xf32>
  // CHECK: graph.abs
  %18 = graph.abs %17 : tensor<2x3xf32>
  return %18 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @logic
func.func @logic(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xi64> {
  // CHECK: graph.equal %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xi1>
  %0 = graph.equal %a, %b : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xi1>
  %1 = graph.less %a, %b : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xi1>
  %2 = graph.greater %a, %b : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xi1>
  %3 = graph.and %0, %1 : tensor<2x3xi1>, tensor<2x3xi1> -> tensor<2x3xi1>
  %4 = graph.or %3, %2 : tensor<2x3xi1>, tensor<2x3xi1> -> tensor<2x3xi1>
  %5 = graph.not %4 : tensor<2x3xi1>
  // CHECK: graph.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xf32>
  %6 = graph.where %5, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xf32>
  // CHECK: graph.cast %{{.*}} {to = i64} : tensor<2x3xf32> -> tensor<2x3xi64>
  %7 = graph.cast %6 {to = i64} : tensor<2x3xf32> -> tensor<2x3xi64>
  return %7 : tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func @linalg
func.func @linalg(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>, %a: tensor<4x8xf32>, %c: tensor<16xf32>, %g: tensor<8xf32>) -> (tensor<2x4x16xf32>, tensor<4x16xf32>) {
  // CHECK: graph.matmul %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %0 = graph.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  // CHECK: graph.gemm %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %1 = graph.gemm %a, %w, %c {trans_b = false} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  // CHECK: graph.softmax %{{.*}} {axis = 2 : i64}
  %2 = graph.softmax %0 {axis = 2 : i64} : tensor<2x4x16xf32>
  %3 = graph.log_softmax %2 {axis = 2 : i64} : tensor<2x4x16xf32>
  // CHECK: graph.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>
  %4:3 = graph.layer_norm %x, %g, %g {axis = 2 : i64, epsilon = 1.0e-5 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>
  // CHECK: graph.reduce_mean %{{.*}} {axes = array<i64: 2>, keepdims = false} : tensor<2x4x16xf32> -> tensor<2x4xf32>
  %5 = graph.reduce_mean %3 {axes = array<i64: 2>, keepdims = false} : tensor<2x4x16xf32> -> tensor<2x4xf32>
  %6 = graph.reduce_sum %3 {axes = array<i64: 0, 2>} : tensor<2x4x16xf32> -> tensor<1x4x1xf32>
  %7 = graph.reduce_max %3 {axes = array<i64: 1>} : tensor<2x4x16xf32> -> tensor<2x1x16xf32>
  // CHECK: graph.einsum %{{.*}}, %{{.*}} {equation = "bij,jk->bik"} : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %8 = graph.einsum %x, %w {equation = "bij,jk->bik"} : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  return %8, %1 : tensor<2x4x16xf32>, tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @batch_norm
func.func @batch_norm(%x: tensor<1x3x4x4xf32>, %p: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  // CHECK: graph.batch_norm
  %0 = graph.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// CHECK-LABEL: func @shape_ops
func.func @shape_ops(%x: tensor<2x3x4xf32>, %i: tensor<5xi64>) -> (tensor<4x3x2xf32>, tensor<2x6x4xf32>, tensor<2x1x4xf32>, tensor<5x3x4xf32>) {
  // CHECK: graph.reshape %{{.*}} {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %0 = graph.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: graph.transpose %{{.*}} {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %1 = graph.transpose %x {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  // CHECK: graph.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x6x4xf32>
  %2 = graph.concat %x, %x {axis = 1 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x6x4xf32>
  // CHECK: graph.split %{{.*}} {axis = 1 : i64, sizes = array<i64: 1, 2>} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>, tensor<2x2x4xf32>
  %3:2 = graph.split %x {axis = 1 : i64, sizes = array<i64: 1, 2>} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>, tensor<2x2x4xf32>
  // CHECK: graph.slice
  %4 = graph.slice %x {starts = array<i64: 0, 2, 0>, ends = array<i64: 2, -1, 4>, steps = array<i64: 1, -2, 1>} : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  // CHECK: graph.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : tensor<2x3x4xf32>, tensor<5xi64> -> tensor<5x3x4xf32>
  %5 = graph.gather %x, %i {axis = 0 : i64} : tensor<2x3x4xf32>, tensor<5xi64> -> tensor<5x3x4xf32>
  %6 = graph.expand %3#0 {shape = array<i64: 3, 1, 1, 1>} : tensor<2x1x4xf32> -> tensor<3x2x1x4xf32>
  %7 = graph.squeeze %3#0 {axes = array<i64: 1>} : tensor<2x1x4xf32> -> tensor<2x4xf32>
  %8 = graph.unsqueeze %7 {axes = array<i64: 1>} : tensor<2x4xf32> -> tensor<2x1x4xf32>
  // CHECK: graph.flatten %{{.*}} {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %9 = graph.flatten %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  // CHECK: graph.trilu %{{.*}} {k = 1 : i64, upper = false} : tensor<2x3x4xf32>
  %10 = graph.trilu %x {upper = false, k = 1 : i64} : tensor<2x3x4xf32>
  %11 = graph.identity %10 : tensor<2x3x4xf32>
  return %1, %2, %8, %5 : tensor<4x3x2xf32>, tensor<2x6x4xf32>, tensor<2x1x4xf32>, tensor<5x3x4xf32>
}

// -----

// CHECK-LABEL: func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2x2xi64>, tensor<3xf32>) {
  // CHECK: graph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: graph.constant_of_shape {shape = array<i64: 2, 2>, value = dense<7> : tensor<1xi64>} : tensor<2x2xi64>
  %1 = graph.constant_of_shape {shape = array<i64: 2, 2>, value = dense<7> : tensor<1xi64>} : tensor<2x2xi64>
  // CHECK: graph.range {delta = 5.000000e-01 : f64, element_type = f32, limit = 1.500000e+00 : f64, start = 0.000000e+00 : f64} : tensor<3xf32>
  %2 = graph.range {start = 0.0 : f64, limit = 1.5 : f64, delta = 0.5 : f64, element_type = f32} : tensor<3xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x2xi64>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func @conv_ops
func.func @conv_ops(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>, %wt: tensor<4x3x2x2xf32>) -> (tensor<1x6x4x4xf32>, tensor<1x6x16x16xf32>, tensor<1x4x4x4xf32>, tensor<1x4x16x16xf32>) {
  // CHECK: graph.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<1x6x4x4xf32>
  %0 = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64} : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<1x6x4x4xf32>
  // CHECK: graph.conv_transpose
  %1 = graph.conv_transpose %x, %wt {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 2 : i64} : tensor<1x4x8x8xf32>, tensor<4x3x2x2xf32> -> tensor<1x6x16x16xf32>
  // CHECK: graph.max_pool {{.*}} -> tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
  %2:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
  // CHECK: graph.average_pool
  %3 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = true} : tensor<1x4x8x8xf32> -> tensor<1x4x5x5xf32>
  // CHECK: graph.global_average_pool %{{.*}} : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  %4 = graph.global_average_pool %x : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  // CHECK: graph.resize
  %5 = graph.resize %x {sizes = array<i64: 1, 4, 16, 16>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "linear"} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  // CHECK: graph.pad %{{.*}} {mode = "reflect", pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x10x10xf32>
  %6 = graph.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : tensor<1x4x8x8xf32> -> tensor<1x4x10x10xf32>
  return %0, %1, %2#0, %5 : tensor<1x6x4x4xf32>, tensor<1x6x16x16xf32>, tensor<1x4x4x4xf32>, tensor<1x4x16x16xf32>
}

// -----

// CHECK-LABEL: func @selection
func.func @selection(%x: tensor<3x10xf32>) -> (tensor<3x4xf32>, tensor<3x4xi64>, tensor<3xi64>, tensor<3x10xf32>) {
  // CHECK: graph.topk %{{.*}} {axis = 1 : i64, k = 4 : i64} : tensor<3x10xf32> -> tensor<3x4xf32>, tensor<3x4xi64>
  %0:2 = graph.topk %x {k = 4 : i64, axis = 1 : i64} : tensor<3x10xf32> -> tensor<3x4xf32>, tensor<3x4xi64>
  // CHECK: graph.arg_max %{{.*}} {axis = 1 : i64, keepdims = false} : tensor<3x10xf32> -> tensor<3xi64>
  %1 = graph.arg_max %x {axis = 1 : i64, keepdims = false} : tensor<3x10xf32> -> tensor<3xi64>
  // CHECK: graph.cumsum %{{.*}} {axis = 1 : i64, reverse = true} : tensor<3x10xf32>
  %2 = graph.cumsum %x {axis = 1 : i64, reverse = true} : tensor<3x10xf32>
  return %0#0, %0#1, %1, %2 : tensor<3x4xf32>, tensor<3x4xi64>, tensor<3xi64>, tensor<3x10xf32>
}

// -----

// CHECK-LABEL: func @quant
func.func @quant(%x: tensor<4x8xf32>, %s: tensor<f32>, %zp: tensor<ui8>, %w: tensor<8x2xi8>, %wzp: tensor<i8>) -> (tensor<4x8xf32>, tensor<4x2xi32>, tensor<4x2xui8>) {
  // CHECK: graph.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<f32>, tensor<ui8> -> tensor<4x8xui8>
  %0 = graph.quantize_linear %x, %s, %zp : tensor<4x8xf32>, tensor<f32>, tensor<ui8> -> tensor<4x8xui8>
  // CHECK: graph.dequantize_linear
  %1 = graph.dequantize_linear %0, %s, %zp : tensor<4x8xui8>, tensor<f32>, tensor<ui8> -> tensor<4x8xf32>
  // CHECK: graph.matmul_integer {{.*}} -> tensor<4x2xi32>
  %2 = graph.matmul_integer %0, %w, %zp, %wzp : tensor<4x8xui8>, tensor<8x2xi8>, tensor<ui8>, tensor<i8> -> tensor<4x2xi32>
  // CHECK: graph.qlinear_matmul
  %3 = graph.qlinear_matmul %0, %s, %zp, %w, %s, %wzp, %s, %zp : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>, tensor<8x2xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<4x2xui8>
  return %1, %2, %3 : tensor<4x8xf32>, tensor<4x2xi32>, tensor<4x2xui8>
}

// -----

// graph-quantize-dynamic's int8 linear: int8 activations with a scale per
// row, int8 weights with a scale per column, the f32 epilogue.
// CHECK-LABEL: func @linear_int8
// CHECK: graph.linear_int8 %{{.*}}, %{{.*}} scales %{{.*}} rows %{{.*}} : tensor<3x4x1xf32> bias %{{.*}} : tensor<2xf32> residual %{{.*}} : tensor<3x4x2xf32> : tensor<3x4x8xi8>, tensor<8x2xi8>, tensor<2xf32> -> tensor<3x4x2xf32>
func.func @linear_int8(%x: tensor<3x4x8xi8>, %w: tensor<8x2xi8>, %s: tensor<3x4x1xf32>, %ws: tensor<2xf32>, %b: tensor<2xf32>, %r: tensor<3x4x2xf32>) -> tensor<3x4x2xf32> {
  %y = graph.linear_int8 %x, %w scales %ws rows %s : tensor<3x4x1xf32> bias %b : tensor<2xf32> residual %r : tensor<3x4x2xf32> : tensor<3x4x8xi8>, tensor<8x2xi8>, tensor<2xf32> -> tensor<3x4x2xf32>
  return %y : tensor<3x4x2xf32>
}

// CHECK-LABEL: func @conv_int8
// CHECK: graph.conv_int8 %{{.*}}, %{{.*}} bias %{{.*}} : tensor<4xf32> residual %{{.*}} : tensor<1x4x8x8xf32> {activation = "relu", dilations = array<i64: 1, 1>, group = 2 : i64, input_zero_point = 128 : i64, pads = array<i64: 1, 1, 1, 1>, scales = array<f32: 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00>, strides = array<i64: 1, 1>} : tensor<1x6x8x8xui8>, tensor<4x3x3x3xi8> -> tensor<1x4x8x8xf32>
func.func @conv_int8(%x: tensor<1x6x8x8xui8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xf32>, %r: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %y = graph.conv_int8 %x, %w bias %b : tensor<4xf32> residual %r : tensor<1x4x8x8xf32> {activation = "relu", dilations = array<i64: 1, 1>, group = 2 : i64, input_zero_point = 128 : i64, pads = array<i64: 1, 1, 1, 1>, scales = array<f32: 1.0, 2.0, 3.0, 4.0>, strides = array<i64: 1, 1>} : tensor<1x6x8x8xui8>, tensor<4x3x3x3xi8> -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// A signed input with a negative zero point.
// CHECK-LABEL: func @conv_int8_signed
// CHECK: graph.conv_int8 %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, input_zero_point = -5 : i64, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 5.000000e-01>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xi8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
func.func @conv_int8_signed(%x: tensor<1x2x4x4xi8>, %w: tensor<2x2x3x3xi8>) -> tensor<1x2x2x2xf32> {
  %y = graph.conv_int8 %x, %w {dilations = array<i64: 1, 1>, input_zero_point = -5 : i64, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 0.5>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xi8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// CHECK-LABEL: func @linear_int8_static
// CHECK: graph.linear_int8 %{{.*}}, %{{.*}} scales %{{.*}} : tensor<4x8xi8>, tensor<8x2xi8>, tensor<2xf32> -> tensor<4x2xf32>
func.func @linear_int8_static(%x: tensor<4x8xi8>, %w: tensor<8x2xi8>, %ws: tensor<2xf32>) -> tensor<4x2xf32> {
  %y = graph.linear_int8 %x, %w scales %ws : tensor<4x8xi8>, tensor<8x2xi8>, tensor<2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// The fused ops of the recognition and fusion passes.
// CHECK-LABEL: func @fused
func.func @fused(%x: tensor<2x8x64xf32>, %s: tensor<64xf32>, %w: tensor<64x64xf32>,
                 %q: tensor<2x4x8x16xf32>, %m: tensor<1x1x8x8xf32>) -> tensor<2x8x64xf32> {
  // CHECK: graph.gelu %{{.*}} : tensor<2x8x64xf32>
  %0 = graph.gelu %x : tensor<2x8x64xf32>
  // CHECK: graph.gelu %{{.*}} {approximate = "tanh"} : tensor<2x8x64xf32>
  %1 = graph.gelu %0 {approximate = "tanh"} : tensor<2x8x64xf32>
  // CHECK: graph.silu %{{.*}} : tensor<2x8x64xf32>
  %2 = graph.silu %1 : tensor<2x8x64xf32>
  // CHECK: graph.swiglu %{{.*}}, %{{.*}} : tensor<2x8x64xf32>
  %3 = graph.swiglu %2, %x : tensor<2x8x64xf32>
  // CHECK: graph.rms_norm %{{.*}}, %{{.*}} {axis = 2 : i64} : tensor<2x8x64xf32>, tensor<64xf32>
  %4 = graph.rms_norm %3, %s {axis = 2 : i64} : tensor<2x8x64xf32>, tensor<64xf32>
  // CHECK: graph.linear %{{.*}}, %{{.*}} bias %{{.*}} : tensor<64xf32> {activation = "gelu"} : tensor<2x8x64xf32>, tensor<64x64xf32> -> tensor<2x8x64xf32>
  %5 = graph.linear %4, %w bias %s : tensor<64xf32> {activation = "gelu"} : tensor<2x8x64xf32>, tensor<64x64xf32> -> tensor<2x8x64xf32>
  // CHECK: graph.linear %{{.*}}, %{{.*}} bias %{{.*}} : tensor<64xf32> residual %{{.*}} : tensor<2x8x64xf32> : tensor<2x8x64xf32>, tensor<64x64xf32> -> tensor<2x8x64xf32>
  %6 = graph.linear %5, %w bias %s : tensor<64xf32> residual %x : tensor<2x8x64xf32> : tensor<2x8x64xf32>, tensor<64x64xf32> -> tensor<2x8x64xf32>
  // CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {causal = true, scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %7 = graph.attention %q, %q, %q {causal = true, scale = 0.25 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  // CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<1x1x8x8xf32> -> tensor<2x4x8x16xf32>
  %8 = graph.attention %q, %q, %q mask %m {scale = 0.25 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<1x1x8x8xf32> -> tensor<2x4x8x16xf32>
  // CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {bf16_products, scale = 2.500000e-01 : f32}
  %9 = graph.attention %q, %q, %q {bf16_products, scale = 0.25 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  return %6 : tensor<2x8x64xf32>
}

// -----

// CHECK-LABEL: func @scatter
func.func @scatter(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>, %n: tensor<2x1xi32>, %v: tensor<2x4xf32>) -> (tensor<3x2xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  // CHECK: graph.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  %0 = graph.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  // CHECK: graph.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, reduction = "add"} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32> -> tensor<3x4xf32>
  %1 = graph.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32> -> tensor<3x4xf32>
  // CHECK: graph.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32> -> tensor<3x4xf32>
  %2 = graph.scatter_nd %1, %n, %v : tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32> -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x2xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @moe
func.func @moe(%x: tensor<16x32xf32>, %w: tensor<16x2xf32>, %ids: tensor<16x2xi64>, %gu: tensor<4x32x96xf32>, %d: tensor<4x48x32xf32>) -> tensor<16x32xf32> {
  // CHECK: graph.moe %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32> -> tensor<16x32xf32>
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32> -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// CHECK-LABEL: func @moe_biases
func.func @moe_biases(%x: tensor<16x32xf32>, %w: tensor<16x2xf32>, %ids: tensor<16x2xi64>, %gu: tensor<4x32x96xf32>, %d: tensor<4x48x32xf32>, %gub: tensor<4x96xf32>, %db: tensor<4x32xf32>) -> tensor<16x32xf32> {
  // CHECK: graph.moe %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} biases %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32>, tensor<4x96xf32>, tensor<4x32xf32> -> tensor<16x32xf32>
  %0 = graph.moe %x, %w, %ids, %gu, %d biases %gub, %db : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32>, tensor<4x96xf32>, tensor<4x32xf32> -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// The activation's scale and zero point at run time (DynamicQuantizeLinear).
// CHECK-LABEL: func @conv_int8_dynamic
// CHECK: graph.conv_int8 %{{.*}}, %{{.*}} bias %{{.*}} : tensor<2xf32> dynamic %{{.*}}, %{{.*}} : tensor<f32>, tensor<ui8> {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 5.000000e-01>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xui8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
func.func @conv_int8_dynamic(%x: tensor<1x2x4x4xui8>, %w: tensor<2x2x3x3xi8>, %b: tensor<2xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x2x2x2xf32> {
  %y = graph.conv_int8 %x, %w bias %b : tensor<2xf32> dynamic %s, %z : tensor<f32>, tensor<ui8> {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 0.5>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xui8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}
