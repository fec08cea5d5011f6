// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern -verify-diagnostics
// Ops the kern lowering cannot take fail with a message naming the op and
// the reason; the pass fails (nothing half-lowered is left behind).

func.func @main(%a: tensor<4x8xf64>, %b: tensor<8x16xf64>) -> tensor<4x16xf64> {
  // expected-error @+1 {{cannot lower 'graph.gemm': Gemm runs in float32, float16 or bfloat16 only (got tensor<4x16xf64>)}}
  %0 = graph.gemm %a, %b : tensor<4x8xf64>, tensor<8x16xf64> -> tensor<4x16xf64>
  return %0 : tensor<4x16xf64>
}

// -----

func.func @main(%x: tensor<1x4x8x8xf64>, %w: tensor<6x4x3x3xf64>) -> tensor<1x6x6x6xf64> {
  // expected-error @+1 {{cannot lower 'graph.conv': convolution runs in float32, float16 or bfloat16 only (got tensor<1x4x8x8xf64>)}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : tensor<1x4x8x8xf64>, tensor<6x4x3x3xf64> -> tensor<1x6x6x6xf64>
  return %0 : tensor<1x6x6x6xf64>
}

// -----

func.func @main(%x: tensor<1x1x3x3x3x3xf32>, %w: tensor<1x1x1x1x1x1xf32>) -> tensor<1x1x3x3x3x3xf32> {
  // expected-error @+1 {{cannot lower 'graph.conv': oneDNN takes 1 to 3 spatial dims, not 4}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, group = 1 : i64} : tensor<1x1x3x3x3x3xf32>, tensor<1x1x1x1x1x1xf32> -> tensor<1x1x3x3x3x3xf32>
  return %0 : tensor<1x1x3x3x3x3xf32>
}

// -----

func.func @main(%x: tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32> {
  // expected-error @+1 {{cannot lower 'graph.average_pool': pooling takes floating-point or 8-bit integer inputs}}
  %0 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x1x4x4xi32> -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}

// -----

func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{cannot lower 'graph.resize': coordinate_transformation_mode 'tf_crop_and_resize' is not supported}}
  %0 = graph.resize %x {sizes = array<i64: 1, 1, 8, 8>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize"} : tensor<1x1x4x4xf32> -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

func.func @main(%x: tensor<4x8xf32>, %s: tensor<f32>, %z: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{cannot lower 'graph.quantize_linear': quantizes to integer types only}}
  %0 = graph.quantize_linear %x, %s, %z : tensor<4x8xf32>, tensor<f32>, tensor<f32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : tensor<4xf32>
  // expected-error @+1 {{no kern lowering for 'arith.addf'}}
  %1 = arith.addf %0, %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// expected-error @below {{no func.func to lower}}
module {
}
