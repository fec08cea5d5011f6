// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern --kern-channels-last | FileCheck %s

// A small CNN: conv+relu, max pool, conv with the pool's output as residual,
// sigmoid, conv, global average pool. Every activation between the
// convolutions becomes channels-last [N, H, W, C] (here H 6 / 3, W 8 / 4,
// C 4); the model's input and output stay NCHW. The convolutions and the
// pool carry the flags, the map reads and writes through permuted strides
// (c 1, h 16, w 4) and the mean reads its input that way.
// CHECK-LABEL: func.func @main
// CHECK-NEXT:  %[[A:.*]] = kern.alloc : memref<1x6x8x4xf32>
// CHECK-NEXT:  kern.conv %arg0, %arg1 into %[[A]] {{.*}}epilogue = "relu"{{.*}}y_channels_last} : memref<1x3x6x8xf32>, memref<4x3x3x3xf32> into memref<1x6x8x4xf32>
// CHECK-NEXT:  %[[P:.*]] = kern.alloc : memref<1x3x4x4xf32>
// CHECK-NEXT:  kern.pool %[[A]] into %[[P]] {channels_last, {{.*}}} : memref<1x6x8x4xf32> into memref<1x3x4x4xf32>
// CHECK-NEXT:  %[[B:.*]] = kern.alloc : memref<1x3x4x4xf32>
// CHECK-NEXT:  kern.conv %[[P]], %arg2 residual %[[P]] into %[[B]] {{.*}}x_channels_last, y_channels_last}
// CHECK-NEXT:  %[[S:.*]] = kern.alloc : memref<1x3x4x4xf32>
// CHECK-NEXT:  kern.map ins(%[[B]] : memref<1x3x4x4xf32>) outs(%[[S]] : memref<1x3x4x4xf32>) attributes {layouts = [array<i64: 0, 0, 1, 16, 4>, array<i64: 0, 0, 1, 16, 4>], shape = array<i64: 1, 4, 3, 4>}
// CHECK:       %[[C:.*]] = kern.alloc : memref<1x3x4x4xf32>
// CHECK-NEXT:  kern.conv %[[S]], %arg2 into %[[C]] {{.*}}x_channels_last, y_channels_last}
// CHECK-NEXT:  kern.reduce "mean" ins(%[[C]] : memref<1x3x4x4xf32>) outs(%arg3 : memref<1x4x1x1xf32>) attributes {layouts = [array<i64: 0, 0, 1, 16, 4>, array<i64: 0, 4, 1, 0, 0>], reduce_dims = array<i64: 2, 3>, shape = array<i64: 1, 4, 3, 4>}
func.func @main(%x: tensor<1x3x6x8xf32>, %w1: tensor<4x3x3x3xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x1x1xf32> {
  %0 = graph.fused_conv %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, activation = "relu"} : tensor<1x3x6x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x8xf32>
  %1:2 = graph.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x6x8xf32> -> tensor<1x4x3x4xf32>, tensor<1x4x3x4xi64>
  %2 = graph.fused_conv %1#0, %w residual %1#0 : tensor<1x4x3x4xf32> {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, activation = "relu"} : tensor<1x4x3x4xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x3x4xf32>
  %3 = graph.sigmoid %2 : tensor<1x4x3x4xf32>
  %4 = graph.conv %3, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x3x4xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x3x4xf32>
  %5 = graph.global_average_pool %4 : tensor<1x4x3x4xf32> -> tensor<1x4x1x1xf32>
  return %5 : tensor<1x4x1x1xf32>
}

// -----

// What keeps NCHW: a model output (a function argument), a buffer that is
// reshaped (a kern.view), a pool's input when the pool also writes indices,
// a transposed convolution's input, and buffers that only maps use.
// CHECK-LABEL: func.func @main
// CHECK-NOT:   channels_last
// CHECK-NOT:   memref<1x6x8x4xf32>
// CHECK:       return
func.func @main(%x: tensor<1x4x6x8xf32>, %w: tensor<4x4x3x3xf32>, %wt: tensor<4x4x2x2xf32>) -> (tensor<1x4x6x8xf32>, tensor<1x192xf32>, tensor<1x4x3x4xi64>, tensor<1x4x12x16xf32>, tensor<1x4x6x8xf32>) {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %1 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %2 = graph.reshape %1 {shape = array<i64: 1, 192>} : tensor<1x4x6x8xf32> -> tensor<1x192xf32>
  %3 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %4:2 = graph.max_pool %3 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x6x8xf32> -> tensor<1x4x3x4xf32>, tensor<1x4x3x4xi64>
  %5 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %6 = graph.conv_transpose %5, %wt {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64} : tensor<1x4x6x8xf32>, tensor<4x4x2x2xf32> -> tensor<1x4x12x16xf32>
  %7 = graph.sigmoid %x : tensor<1x4x6x8xf32>
  %8 = graph.sigmoid %7 : tensor<1x4x6x8xf32>
  return %0, %2, %4#1, %6, %8 : tensor<1x4x6x8xf32>, tensor<1x192xf32>, tensor<1x4x3x4xi64>, tensor<1x4x12x16xf32>, tensor<1x4x6x8xf32>
}

// -----

// A slice of a channels-last buffer (every other row and the first 3 of 8
// columns, 4 channels) is read through strides that split per dim: the
// buffer converts and the slice's access is rewritten (offset 0, c 1,
// h 2 * 8 * 4 = 64, w 4).
// CHECK-LABEL: func.func @main
// CHECK:       kern.conv {{.*}}y_channels_last} : memref<1x4x6x8xf32>, memref<4x4x3x3xf32> into memref<1x6x8x4xf32>
// CHECK-NEXT:  kern.map ins(%{{.*}} : memref<1x6x8x4xf32>) outs(%arg2 : memref<1x4x3x3xf32>) attributes {layouts = [array<i64: 0, 0, 1, 64, 4>, array<i64: 0, 36, 9, 3, 1>], shape = array<i64: 1, 4, 3, 3>}
func.func @main(%x: tensor<1x4x6x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %1 = graph.slice %0 {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 4, 6, 3>, steps = array<i64: 1, 1, 2, 1>} : tensor<1x4x6x8xf32> -> tensor<1x4x3x3xf32>
  return %1 : tensor<1x4x3x3xf32>
}

// -----

// An empty activation (a zero dim) is left as it is.
// CHECK-LABEL: func.func @main
// CHECK-NOT:   channels_last
// CHECK:       return
func.func @main(%x: tensor<1x4x0x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x0x8xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x0x8xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x0x8xf32>
  %1 = graph.sigmoid %0 : tensor<1x4x0x8xf32>
  return %1 : tensor<1x4x0x8xf32>
}

// -----

// A convolution whose residual is the model's input (a function argument,
// which stays NCHW) keeps its y NCHW too: y and residual share one flag.
// Its x (the first convolution's output) still converts.
// CHECK-LABEL: func.func @main
// CHECK:       kern.conv %arg0, %arg1 into %[[A:[0-9]+]] {{.*}}y_channels_last} : memref<1x4x6x8xf32>, memref<4x4x3x3xf32> into memref<1x6x8x4xf32>
// CHECK:       kern.conv %[[A]], %arg1 residual %arg0 into %{{[0-9]+}} {{.*}}x_channels_last} : memref<1x6x8x4xf32>, memref<4x4x3x3xf32> residual memref<1x4x6x8xf32> into memref<1x4x6x8xf32>
func.func @main(%x: tensor<1x4x6x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x8xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %1 = graph.fused_conv %0, %w residual %x : tensor<1x4x6x8xf32> {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %2 = graph.sigmoid %1 : tensor<1x4x6x8xf32>
  return %2 : tensor<1x4x6x8xf32>
}

// -----

// Maps between two convolutions: the conv's output is scaled and shifted
// (%1, used twice: by the activation and by the product), then activated
// into the next conv's input. %1 is used only by maps, but those maps
// also read and write channels-last buffers of its dims, so it converts
// too (left NCHW, both maps would transpose in their inner loops).
// CHECK-LABEL: func.func @main
// CHECK:       kern.conv {{.*}}y_channels_last} : memref<1x4x6x8xf32>, memref<4x4x3x3xf32> into memref<1x6x8x4xf32>
// CHECK-NOT:   kern.alloc : memref<1x4x6x8xf32>
// CHECK-COUNT-4: kern.map ins({{.*}}memref<1x6x8x4xf32>{{.*}}) outs(%{{.*}} : memref<1x6x8x4xf32>)
// CHECK-NOT:   kern.alloc : memref<1x4x6x8xf32>
// CHECK:       kern.conv {{.*}}x_channels_last
func.func @main(%x: tensor<1x4x6x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x8xf32> {
  %s = graph.constant dense<2.0> : tensor<1xf32>
  %t = graph.constant dense<3.0> : tensor<1xf32>
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %1 = graph.mul %0, %s : tensor<1x4x6x8xf32>, tensor<1xf32> -> tensor<1x4x6x8xf32>
  %2 = graph.add %1, %t : tensor<1x4x6x8xf32>, tensor<1xf32> -> tensor<1x4x6x8xf32>
  %3 = graph.sigmoid %2 : tensor<1x4x6x8xf32>
  %4 = graph.mul %1, %3 : tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32> -> tensor<1x4x6x8xf32>
  %5 = graph.conv %4, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  return %5 : tensor<1x4x6x8xf32>
}

// -----

// A QOperator CNN's maps change the element type on the way: the conv's
// output is requantized to uint8, dequantized, activated and pooled. The
// uint8 buffer has the dims of the converted ones around it, so it converts
// too (the neighbour rule compares dims, not types); left NCHW, the
// requantizing map would transpose in its inner loop.
// CHECK-LABEL: func.func @main
// CHECK:       kern.conv {{.*}}y_channels_last} : memref<1x4x6x8xf32>, memref<4x4x3x3xf32> into memref<1x6x8x4xf32>
// CHECK-NOT:   memref<1x4x6x8xui8>
// CHECK:       kern.map ins({{.*}}memref<1x6x8x4xf32>{{.*}}) outs(%{{.*}} : memref<1x6x8x4xui8>)
// CHECK:       kern.map ins({{.*}}memref<1x6x8x4xui8>{{.*}}) outs(%{{.*}} : memref<1x6x8x4xf32>)
// CHECK-NOT:   memref<1x4x6x8xui8>
// CHECK:       kern.pool {{.*}}channels_last
func.func @main(%x: tensor<1x4x6x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x3x4xf32> {
  %s = graph.constant dense<0.5> : tensor<f32>
  %z = graph.constant dense<3> : tensor<ui8>
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x8xf32>
  %1 = graph.quantize_linear %0, %s, %z : tensor<1x4x6x8xf32>, tensor<f32>, tensor<ui8> -> tensor<1x4x6x8xui8>
  %2 = graph.dequantize_linear %1, %s, %z : tensor<1x4x6x8xui8>, tensor<f32>, tensor<ui8> -> tensor<1x4x6x8xf32>
  %3 = graph.relu %2 : tensor<1x4x6x8xf32>
  %4, %5 = graph.max_pool %3 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x8xf32> -> tensor<1x4x3x4xf32>, tensor<1x4x3x4xi64>
  %6 = graph.conv %4, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x3x4xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x3x4xf32>
  return %6 : tensor<1x4x3x4xf32>
}
