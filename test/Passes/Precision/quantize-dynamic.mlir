// RUN: %shardc-opt %s --split-input-file --graph-quantize-dynamic | FileCheck %s
// graph-quantize-dynamic: a linear with a constant [K, N] f32 weight
// multiplies int8 in int32. The weight is quantized here, per output
// column over its largest magnitude (column 0: 2/127, column 1: 4/127,
// column 2: 0.5/127); the activation per token at run time (reduce_max of
// |x| over the last axis, / 127, quantize_linear of x over it); the
// product (graph.linear_int8, one oneDNN int8 matmul) is scaled back by
// both and the bias, GELU and residual follow in its store.

// CHECK-LABEL: func.func @linear
// CHECK:       %[[ABS:.*]] = graph.abs %arg0 : tensor<4x2xf32>
// CHECK:       %[[PEAK:.*]] = graph.reduce_max %[[ABS]] {axes = array<i64: 1>} : tensor<4x2xf32> -> tensor<4x1xf32>
// CHECK:       %[[S:.*]] = graph.mul {{.*}} : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
// CHECK:       %[[SCALED:.*]] = graph.div %arg0, %[[S]]
// CHECK:       %[[ZERO:.*]] = graph.constant dense<0> : tensor<i8>
// CHECK:       %[[XQ:.*]] = graph.quantize_linear %[[SCALED]], %{{.*}}, %[[ZERO]] : tensor<4x2xf32>, tensor<f32>, tensor<i8> -> tensor<4x2xi8>
// CHECK-DAG:   %[[WQ:.*]] = graph.constant dense<{{\[\[}}127, -32, 127], [-64, 127, 0]]> : tensor<2x3xi8>
// CHECK-DAG:   %[[WS:.*]] = graph.constant dense<[0.0157480314, 0.0314960629, 0.00393700786]> : tensor<3xf32>
// CHECK:       %[[Y:.*]] = graph.linear_int8 %[[XQ]], %[[WQ]] scales %[[WS]] rows %[[S]] : tensor<4x1xf32> bias %arg1 : tensor<3xf32> {activation = "gelu", graph.quant = {scheme = "dynamic"}} : tensor<4x2xi8>, tensor<2x3xi8>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK:       return %[[Y]]
// CHECK-NOT:   graph.linear
func.func @linear(%x: tensor<4x2xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %w = graph.constant dense<[[2.0, -1.0, 0.5], [-1.0, 4.0, 0.0]]> : tensor<2x3xf32>
  %y = graph.linear %x, %w bias %b : tensor<3xf32> {activation = "gelu"} : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// The residual goes with the int8 product, added after it as graph.linear
// adds it.
// CHECK-LABEL: func.func @residual
// CHECK:       %[[Y:.*]] = graph.linear_int8 {{.*}} rows {{.*}} : tensor<2x3x1xf32> residual %arg1 : tensor<2x3x2xf32> {graph.quant = {scheme = "dynamic"}} : tensor<2x3x2xi8>, tensor<2x2xi8>, tensor<2xf32> -> tensor<2x3x2xf32>
// CHECK:       return %[[Y]]
func.func @residual(%x: tensor<2x3x2xf32>, %r: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %w = graph.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %y = graph.linear %x, %w residual %r : tensor<2x3x2xf32> : tensor<2x3x2xf32>, tensor<2x2xf32> -> tensor<2x3x2xf32>
  return %y : tensor<2x3x2xf32>
}

// -----

// Layers that read one activation (attention's q, k and v) share its
// quantization: one scale and one quantize_linear for both.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-1: graph.quantize_linear
// CHECK-NOT:   graph.quantize_linear
// CHECK-COUNT-2: graph.linear_int8
func.func @shared(%x: tensor<4x2xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %w = graph.constant dense<[[2.0, -1.0, 0.5], [-1.0, 4.0, 0.0]]> : tensor<2x3xf32>
  %v = graph.constant dense<[[1.0, -1.0, 0.5], [-1.0, 3.0, 1.0]]> : tensor<2x3xf32>
  %y = graph.linear %x, %w : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %z = graph.linear %x, %v : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %y, %z : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// What stays in floating point: a product of two activations (attention's
// QK^T), a weight that is not f32, and one of rank 3.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:   graph.matmul_integer
// CHECK-COUNT-3: graph.linear
func.func @kept(%x: tensor<4x2xf32>, %w: tensor<2x3xf32>, %h: tensor<4x2xf16>, %x3: tensor<2x4x2xf32>) -> (tensor<4x3xf32>, tensor<4x3xf16>, tensor<2x4x3xf32>) {
  %y = graph.linear %x, %w : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %w16 = graph.constant dense<1.0> : tensor<2x3xf16>
  %z = graph.linear %h, %w16 : tensor<4x2xf16>, tensor<2x3xf16> -> tensor<4x3xf16>
  %w3 = graph.constant dense<1.0> : tensor<2x2x3xf32>
  %u = graph.linear %x3, %w3 : tensor<2x4x2xf32>, tensor<2x2x3xf32> -> tensor<2x4x3xf32>
  return %y, %z, %u : tensor<4x3xf32>, tensor<4x3xf16>, tensor<2x4x3xf32>
}

// -----

// A convolution with a constant weight: the input is quantized per tensor
// at run time as ONNX's DynamicQuantizeLinear does (uint8 over
// [min(x, 0), max(x, 0)] / 255, zero point uint8(-min / s)), the scale and
// zero point passed to graph.conv_int8 as run-time operands; the weight is
// symmetric int8 per output channel (channel 0 over 2/127: -1 -> -63.5,
// rounded half to even to -64; channel 1 over 0.5/127: 0.25 -> 64), the
// scales are the weight's, and the bias and ReLU stay in the epilogue.
// CHECK-LABEL: func.func @conv
// CHECK:       %[[HI:.*]] = graph.reduce_max %arg0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false} : tensor<1x1x2x3xf32> -> tensor<f32>
// CHECK:       %[[HI0:.*]] = graph.max %[[HI]], %[[ZERO:[0-9]+]] :
// CHECK:       %[[LO:.*]] = graph.reduce_min %arg0 {axes = array<i64: 0, 1, 2, 3>, keepdims = false}
// CHECK:       %[[LO0:.*]] = graph.min %[[LO]], %[[ZERO]] :
// CHECK:       %[[RANGE:.*]] = graph.sub %[[HI0]], %[[LO0]]
// CHECK:       %[[S:.*]] = graph.mul {{.*}} : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK:       %[[NEG:.*]] = graph.neg %[[LO0]]
// CHECK:       %[[Z:.*]] = graph.quantize_linear %[[NEG]], %[[S]], %{{.*}} : tensor<f32>, tensor<f32>, tensor<ui8> -> tensor<ui8>
// CHECK:       %[[XQ:.*]] = graph.quantize_linear %arg0, %[[S]], %[[Z]] : tensor<1x1x2x3xf32>, tensor<f32>, tensor<ui8> -> tensor<1x1x2x3xui8>
// CHECK:       %[[WQ:.*]] = graph.constant dense<{{\[\[\[\[}}127, -64]]], {{\[\[\[}}127, 64]]]]> : tensor<2x1x1x2xi8>
// CHECK:       %[[Y:.*]] = graph.conv_int8 %[[XQ]], %[[WQ]] bias %arg1 : tensor<2xf32> dynamic %[[S]], %[[Z]] : tensor<f32>, tensor<ui8> {activation = "relu", dilations = array<i64: 1, 1>, graph.quant = {scheme = "dynamic"}, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 0.0157480314, 0.00393700786>, strides = array<i64: 1, 1>} : tensor<1x1x2x3xui8>, tensor<2x1x1x2xi8> -> tensor<1x2x2x2xf32>
// CHECK:       return %[[Y]]
// CHECK-NOT:   graph.fused_conv
func.func @conv(%x: tensor<1x1x2x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = graph.constant dense<[[[[2.0, -1.0]]], [[[0.5, 0.25]]]]> : tensor<2x1x1x2xf32>
  %y = graph.fused_conv %x, %w bias %b : tensor<2xf32> {activation = "relu", dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x3xf32>, tensor<2x1x1x2xf32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A bare product by a constant weight (a language model's head: no bias,
// so fusion leaves it a graph.matmul) quantizes as the linear layer it is;
// a product of two activations stays. Attention is marked to multiply in
// bf16 where the CPU can.
// CHECK-LABEL: func.func @head
// CHECK:       %[[Y:.*]] = graph.linear_int8 {{.*}} rows {{.*}} : tensor<2x3x1xf32> {graph.quant = {scheme = "dynamic"}} : tensor<2x3x2xi8>, tensor<2x4xi8>, tensor<4xf32> -> tensor<2x3x4xf32>
// CHECK:       graph.matmul %arg1, %arg2
// CHECK:       graph.attention {{.*}} {bf16_products, scale = 5.000000e-01 : f32}
// CHECK-NOT:   graph.linear
func.func @head(%x: tensor<2x3x2xf32>, %a: tensor<2x3x2xf32>, %b: tensor<2x2x3xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x3xf32>, tensor<2x3x2xf32>) {
  %w = graph.constant dense<[[1.0, 0.0, 2.0, -1.0], [0.0, 1.0, 0.5, 3.0]]> : tensor<2x4xf32>
  %y = graph.matmul %x, %w : tensor<2x3x2xf32>, tensor<2x4xf32> -> tensor<2x3x4xf32>
  %s = graph.matmul %a, %b : tensor<2x3x2xf32>, tensor<2x2x3xf32> -> tensor<2x3x3xf32>
  %t = graph.attention %a, %a, %a {scale = 0.5 : f32} : tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32> -> tensor<2x3x2xf32>
  return %y, %s, %t : tensor<2x3x4xf32>, tensor<2x3x3xf32>, tensor<2x3x2xf32>
}
