// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// Convolutions are kern.conv (oneDNN); pooling and resize call the runtime;
// global average pooling is a generated mean.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<1x4x8x8xf32> {{.*}}, %[[W:arg[0-9]+]]: memref<6x2x3x3xf32> {{.*}}, %[[B:arg[0-9]+]]: memref<6xf32> {{.*}}, %[[WT:arg[0-9]+]]: memref<4x3x2x2xf32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<1x6x4x4xf32> {{.*}}, %[[Y1:arg[0-9]+]]: memref<1x6x16x16xf32>
// CHECK-NEXT: kern.conv %[[X]], %[[W]] bias %[[B]] into %[[Y0]] {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> into memref<1x6x4x4xf32>
// CHECK-NEXT: kern.conv %[[X]], %[[WT]] into %[[Y1]] {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, transposed} : memref<1x4x8x8xf32>, memref<4x3x2x2xf32> into memref<1x6x16x16xf32>
// CHECK-NEXT: return
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>, %wt: tensor<4x3x2x2xf32>) -> (tensor<1x6x4x4xf32>, tensor<1x6x16x16xf32>) {
  %0 = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64} : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<1x6x4x4xf32>
  %1 = graph.conv_transpose %x, %wt {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 2 : i64} : tensor<1x4x8x8xf32>, tensor<4x3x2x2xf32> -> tensor<1x6x16x16xf32>
  return %0, %1 : tensor<1x6x4x4xf32>, tensor<1x6x16x16xf32>
}

// -----

// A 1-D convolution with a constant weight (a kern.weight) and dilation.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[W:.*]] = kern.weight {value = dense<{{.*}}> : tensor<2x3x3xf32>} : memref<2x3x3xf32>
// CHECK-NEXT: kern.conv %{{.*}}, %[[W]] into %{{.*}} {dilations = array<i64: 2>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x3x10xf32>, memref<2x3x3xf32> into memref<1x2x6xf32>
func.func @main(%x: tensor<1x3x10xf32>) -> tensor<1x2x6xf32> {
  %w = graph.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]> : tensor<2x3x3xf32>
  %0 = graph.conv %x, %w {strides = array<i64: 1>, dilations = array<i64: 2>, pads = array<i64: 0, 0>, group = 1 : i64} : tensor<1x3x10xf32>, tensor<2x3x3xf32> -> tensor<1x2x6xf32>
  return %0 : tensor<1x2x6xf32>
}

// -----

// Pooling: kern.pool with the window attributes as given; MaxPool's
// indices are a second output only when used (channels_last is for
// kern-channels-last to set).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<1x4x8x8xf32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<1x4x4x4xf32> {{.*}}, %[[I:arg[0-9]+]]: memref<1x4x4x4xi64> {{.*}}, %[[Y1:arg[0-9]+]]: memref<1x4x5x5xf32> {{.*}}, %[[Y2:arg[0-9]+]]: memref<1x4x4x4xf32>
// CHECK-NEXT: kern.pool %[[X]] into %[[Y0]] indices %[[I]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, kind = "max", pads = array<i64: 0, 0, 0, 0>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32> indices memref<1x4x4x4xi64>
// CHECK-NEXT: kern.pool %[[X]] into %[[Y1]] {count_include_pad, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kind = "average", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32> into memref<1x4x5x5xf32>
// CHECK-NEXT: kern.pool %[[X]] into %[[Y2]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, kind = "max", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32>
// CHECK-NEXT: return
func.func @main(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>, tensor<1x4x5x5xf32>, tensor<1x4x4x4xf32>) {
  %0:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, storage_order = 1 : i64} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
  %1 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = true, count_include_pad = true} : tensor<1x4x8x8xf32> -> tensor<1x4x5x5xf32>
  %2:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
  return %0#0, %0#1, %1, %2#0 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>, tensor<1x4x5x5xf32>, tensor<1x4x4x4xf32>
}

// -----

// GlobalAveragePool: a mean over the spatial dims.
// CHECK-LABEL: func.func @main
// CHECK:      kern.reduce "mean" ins(%{{.*}} : memref<1x4x8x8xf32>) outs(%{{.*}} : memref<1x4x1x1xf32>) attributes {layouts = [array<i64: 0, 256, 64, 8, 1>, array<i64: 0, 4, 1, 0, 0>], reduce_dims = array<i64: 2, 3>, shape = array<i64: 1, 4, 8, 8>}
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32> {
  %0 = graph.global_average_pool %x : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

// Resize: kern.resize with ONNX's attributes, the graph's defaults made
// explicit.
// CHECK-LABEL: func.func @main
// CHECK:      kern.resize %{{.*}} into %{{.*}} {coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, extrapolation_value = 0.000000e+00 : f32, mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : memref<1x4x8x8xf32> into memref<1x4x16x16xf32>
// CHECK:      kern.resize %{{.*}} into %{{.*}} {coordinate_transformation_mode = "align_corners", cubic_coeff_a = -5.000000e-01 : f32, exclude_outside, extrapolation_value = 0.000000e+00 : f32, mode = "cubic", nearest_mode = "ceil", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : memref<1x4x8x8xf32> into memref<1x4x16x16xf32>
func.func @main(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) {
  %0 = graph.resize %x {sizes = array<i64: 1, 4, 16, 16>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "linear"} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  %1 = graph.resize %x {sizes = array<i64: 1, 4, 16, 16>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "cubic", coordinate_transformation_mode = "align_corners", nearest_mode = "ceil", cubic_coeff_a = -0.5 : f32, exclude_outside = true} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  return %0, %1 : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
}

// -----

// 8-bit integer pooling also calls the runtime.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: kern.pool %{{.*}} into %{{.*}} {{{.*}}kind = "max"{{.*}}} : memref<1x2x4x4xui8> into memref<1x2x2x2xui8>
func.func @main(%x: tensor<1x2x4x4xui8>) -> tensor<1x2x2x2xui8> {
  %0:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x4x4xui8> -> tensor<1x2x2x2xui8>, tensor<1x2x2x2xi64>
  return %0#0 : tensor<1x2x2x2xui8>
}

// -----

// graph.fused_conv: the residual and the activation ride on kern.conv
// (oneDNN post-ops: sum, then eltwise).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<1x4x8x8xf32> {{.*}}, %[[W:arg[0-9]+]]: memref<4x4x3x3xf32> {{.*}}, %[[B:arg[0-9]+]]: memref<4xf32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<1x4x8x8xf32> {{.*}}, %[[Y1:arg[0-9]+]]: memref<1x4x8x8xf32>
// CHECK-NEXT: kern.conv %[[X]], %[[W]] bias %[[B]] residual %[[X]] into %[[Y0]] {dilations = array<i64: 1, 1>, epilogue = "relu", group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<1x4x8x8xf32>, memref<4x4x3x3xf32>, memref<4xf32> residual memref<1x4x8x8xf32> into memref<1x4x8x8xf32>
// CHECK-NEXT: kern.conv %[[X]], %[[W]] into %[[Y1]] {dilations = array<i64: 1, 1>, epilogue = "relu", group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<1x4x8x8xf32>, memref<4x4x3x3xf32> into memref<1x4x8x8xf32>
// CHECK-NEXT: return
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %0 = graph.fused_conv %x, %w bias %b : tensor<4xf32> residual %x : tensor<1x4x8x8xf32> {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, activation = "relu"} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x8x8xf32>
  %1 = graph.fused_conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, activation = "relu"} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x8x8xf32>
  return %0, %1 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}
