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

// Pooling: sc_pool(x, y, indices or null, kind (0 max, 1 average), kernel,
// strides, dilations, pads, count_include_pad, storage_order, channels_last
// (0: kern-channels-last sets it)). MaxPool's
// indices are a second output only when used.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<1x4x8x8xf32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<1x4x4x4xf32> {{.*}}, %[[I:arg[0-9]+]]: memref<1x4x4x4xi64> {{.*}}, %[[Y1:arg[0-9]+]]: memref<1x4x5x5xf32> {{.*}}, %[[Y2:arg[0-9]+]]: memref<1x4x4x4xf32>
// CHECK-NEXT: kern.call @sc_pool ins(%[[X]] : memref<1x4x8x8xf32>) outs(%[[Y0]], %[[I]] : memref<1x4x4x4xf32>, memref<1x4x4x4xi64>) {args = ["%d0", "%p0", "%d1", "%p1", "%p2", 0 : i32, array<i64: 2, 2>, array<i64: 2, 2>, array<i64: 1, 1>, array<i64: 0, 0, 0, 0>, 0 : i32, 1 : i32, 0 : i32]}
// CHECK-NEXT: kern.call @sc_pool ins(%[[X]] : memref<1x4x8x8xf32>) outs(%[[Y1]] : memref<1x4x5x5xf32>) {args = ["%d0", "%p0", "%d1", "%p1", "%null", 1 : i32, array<i64: 3, 3>, array<i64: 2, 2>, array<i64: 1, 1>, array<i64: 1, 1, 1, 1>, 1 : i32, 0 : i32, 0 : i32]}
// CHECK-NEXT: kern.call @sc_pool ins(%[[X]] : memref<1x4x8x8xf32>) outs(%[[Y2]] : memref<1x4x4x4xf32>) {args = ["%d0", "%p0", "%d1", "%p1", "%null", 0 : i32, array<i64: 2, 2>, array<i64: 2, 2>, array<i64: 1, 1>, array<i64: 0, 0, 0, 0>, 0 : i32, 0 : i32, 0 : i32]}
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

// Resize: sc_resize(x, y, scales, mode, coordinate mode, nearest mode,
// cubic_coeff_a, exclude_outside, extrapolation_value, antialias) with the
// modes as numbers (linear 1, half_pixel 0, round_prefer_floor 0; cubic 2,
// align_corners 3, ceil 3).
// CHECK-LABEL: func.func @main
// CHECK:      kern.call @sc_resize ins(%{{.*}} : memref<1x4x8x8xf32>) outs(%{{.*}} : memref<1x4x16x16xf32>) {args = ["%d0", "%p0", "%d1", "%p1", array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>, 1 : i32, 0 : i32, 0 : i32, -7.500000e-01 : f32, 0 : i32, 0.000000e+00 : f32, 0 : i32]}
// CHECK:      kern.call @sc_resize ins(%{{.*}} : memref<1x4x8x8xf32>) outs(%{{.*}} : memref<1x4x16x16xf32>) {args = ["%d0", "%p0", "%d1", "%p1", array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>, 2 : i32, 3 : i32, 3 : i32, -5.000000e-01 : f32, 1 : i32, 0.000000e+00 : f32, 0 : i32]}
func.func @main(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) {
  %0 = graph.resize %x {sizes = array<i64: 1, 4, 16, 16>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "linear"} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  %1 = graph.resize %x {sizes = array<i64: 1, 4, 16, 16>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "cubic", coordinate_transformation_mode = "align_corners", nearest_mode = "ceil", cubic_coeff_a = -0.5 : f32, exclude_outside = true} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
  return %0, %1 : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
}

// -----

// 8-bit integer pooling also calls the runtime.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: kern.call @sc_pool ins(%{{.*}} : memref<1x2x4x4xui8>) outs(%{{.*}} : memref<1x2x2x2xui8>) {args = ["%d0", "%p0", "%d1", "%p1", "%null", 0 : i32,
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
