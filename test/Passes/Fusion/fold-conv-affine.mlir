// RUN: %shardc-opt %s --split-input-file --graph-fold-conv-affine | FileCheck %s
// graph-fold-conv-affine: a per-output-channel batch norm, scale or shift
// after a convolution goes into its weights and bias.

// Batch norm, then a scalar scale and a per-channel shift (Paddle's
// learnable affine block): one convolution. Channel 0: s = 2 / sqrt(3 + 1)
// = 1, w' = 1 * 1 * 4 = 4, b' = ((1 - 1) * 1 + 0.5) * 4 + 10 = 12;
// channel 1: s = 6 / sqrt(8 + 1) = 2, w' = 3 * 2 * 4 = 24,
// b' = ((2 - 0) * 2 - 1) * 4 + 20 = 32.
// CHECK-LABEL: func.func @chain
// CHECK-DAG:   %[[W:.*]] = graph.constant dense<{{\[\[\[\[}}4.000000e+00]]], {{\[\[\[}}2.400000e+01]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG:   %[[B:.*]] = graph.constant dense<[1.200000e+01, 3.200000e+01]> : tensor<2xf32>
// CHECK:       %[[Y:.*]] = graph.conv %arg0, %[[W]], %[[B]] {{.*}} -> tensor<1x2x3x3xf32>
// CHECK-NEXT:  return %[[Y]]
func.func @chain(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = graph.constant dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %b = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %gamma = graph.constant dense<[2.0, 6.0]> : tensor<2xf32>
  %beta = graph.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %s = graph.constant dense<4.0> : tensor<1xf32>
  %t = graph.constant dense<[[[10.0]], [[20.0]]]> : tensor<2x1x1xf32>
  %0 = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x3x3xf32>
  %1 = graph.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  %2 = graph.mul %1, %s : tensor<1x2x3x3xf32>, tensor<1xf32> -> tensor<1x2x3x3xf32>
  %3 = graph.add %t, %2 : tensor<2x1x1xf32>, tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  return %3 : tensor<1x2x3x3xf32>
}

// -----

// Not folded: a conv with another user, a scale that varies along the
// spatial dims, and a shift by a tensor that is not a constant.
// CHECK-LABEL: func.func @kept
// CHECK:       graph.conv
// CHECK-NEXT:  graph.mul
// CHECK:       graph.conv
// CHECK-NEXT:  graph.mul
// CHECK:       graph.conv
// CHECK-NEXT:  graph.add
func.func @kept(%x: tensor<1x1x3x3xf32>, %z: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = graph.constant dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %s = graph.constant dense<4.0> : tensor<1xf32>
  %sp = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x3x3xf32>
  %1 = graph.mul %0, %s : tensor<1x2x3x3xf32>, tensor<1xf32> -> tensor<1x2x3x3xf32>
  %2 = graph.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x3x3xf32>
  %3 = graph.mul %2, %sp : tensor<1x2x3x3xf32>, tensor<3xf32> -> tensor<1x2x3x3xf32>
  %4 = graph.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x3x3xf32>
  %5 = graph.add %4, %z : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  return %0, %1, %3, %5 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// -----

// A QDQ model's convolution: the int8 weight (per tensor, scale 0.5) stays,
// the scale 3 then 2 per channel goes into its dequantization scales (per
// output channel now: 1.5 and 1), and the int32 bias dequantized at
// scales 0.25 and 1 becomes f32: (4 * 0.25) * 3 + 1 = 4 and (-2 * 1) * 2 +
// 1 = -3, for graph-fold-qdq to take as one int8 convolution.
// CHECK-LABEL: func.func @dequantized
// CHECK-DAG:   %[[S:.*]] = graph.constant dense<[1.500000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG:   %[[Z:.*]] = graph.constant dense<0> : tensor<2xi8>
// CHECK-DAG:   %[[B:.*]] = graph.constant dense<[4.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK:       %[[W:.*]] = graph.dequantize_linear %{{.*}}, %[[S]], %[[Z]] {axis = 0 : i64} : tensor<2x1x1x1xi8>
// CHECK:       %[[Y:.*]] = graph.conv %arg0, %[[W]], %[[B]] {{.*}} -> tensor<1x2x3x3xf32>
// CHECK-NEXT:  return %[[Y]]
func.func @dequantized(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %wq = graph.constant dense<[[[[2]]], [[[-3]]]]> : tensor<2x1x1x1xi8>
  %sw = graph.constant dense<0.5> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize_linear %wq, %sw, %zw : tensor<2x1x1x1xi8>, tensor<f32>, tensor<i8> -> tensor<2x1x1x1xf32>
  %bq = graph.constant dense<[4, -2]> : tensor<2xi32>
  %bs = graph.constant dense<[0.25, 1.0]> : tensor<2xf32>
  %bz = graph.constant dense<0> : tensor<2xi32>
  %b = graph.dequantize_linear %bq, %bs, %bz {axis = 0 : i64} : tensor<2xi32>, tensor<2xf32>, tensor<2xi32> -> tensor<2xf32>
  %s = graph.constant dense<[[[3.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %t = graph.constant dense<1.0> : tensor<1xf32>
  %0 = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x3x3xf32>
  %1 = graph.mul %0, %s : tensor<1x2x3x3xf32>, tensor<2x1x1xf32> -> tensor<1x2x3x3xf32>
  %2 = graph.add %1, %t : tensor<1x2x3x3xf32>, tensor<1xf32> -> tensor<1x2x3x3xf32>
  return %2 : tensor<1x2x3x3xf32>
}
