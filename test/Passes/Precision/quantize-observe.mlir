// RUN: %shardc-opt %s --split-input-file --graph-quantize-observe | FileCheck %s
// graph-quantize-observe: the calibration program of --quantize=int8. Each
// activation graph-quantize-static will scale becomes an extra result
// named shardc_calib_<i>, in the order that pass meets them: one per
// activation however many layers read it (%x for two layers), none for a
// layer that stays in floating point (%w is no constant). The model's own
// result keeps its name and place.

// CHECK-LABEL: func.func @main
// CHECK-SAME:  -> (tensor<4x3xf32> {graph.name = "y"}, tensor<4x2xf32> {graph.name = "shardc_calib_0"}, tensor<4x3xf32> {graph.name = "shardc_calib_1"})
// CHECK:       %[[A:.*]] = graph.linear %arg0
// CHECK:       %[[B:.*]] = graph.linear %arg0
// CHECK:       %[[C:.*]] = graph.add %[[A]], %[[B]]
// CHECK:       %[[D:.*]] = graph.linear %[[C]]
// CHECK:       %[[E:.*]] = graph.linear %[[D]], %arg1
// CHECK:       return %[[E]], %arg0, %[[C]] : tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x3xf32>
func.func @main(%x: tensor<4x2xf32> {graph.name = "x"}, %w: tensor<3x3xf32> {graph.name = "w"}) -> (tensor<4x3xf32> {graph.name = "y"}) {
  %w1 = graph.constant dense<[[2.0, -1.0, 0.5], [-1.0, 4.0, 0.0]]> : tensor<2x3xf32>
  %w2 = graph.constant dense<1.0> : tensor<2x3xf32>
  %w3 = graph.constant dense<0.5> : tensor<3x3xf32>
  %a = graph.linear %x, %w1 : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %b = graph.linear %x, %w2 : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %c = graph.add %a, %b : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %d = graph.linear %c, %w3 : tensor<4x3xf32>, tensor<3x3xf32> -> tensor<4x3xf32>
  %e = graph.linear %d, %w : tensor<4x3xf32>, tensor<3x3xf32> -> tensor<4x3xf32>
  return %e : tensor<4x3xf32>
}

// -----

// A convolution's input after the linear layers', observed channels last
// ([N, H, W, C]): the statistics' rows are then pixels of C channels.
// CHECK-LABEL: func.func @conv
// CHECK-SAME:  -> (tensor<1x4x3x3xf32> {graph.name = "y"}, tensor<1x3x3x2xf32> {graph.name = "shardc_calib_0"})
// CHECK:       %[[Y:.*]] = graph.conv %arg0
// CHECK:       %[[T:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x3x3xf32> -> tensor<1x3x3x2xf32>
// CHECK:       return %[[Y]], %[[T]]
func.func @conv(%x: tensor<1x2x3x3xf32> {graph.name = "x"}) -> (tensor<1x4x3x3xf32> {graph.name = "y"}) {
  %w = graph.constant dense<0.5> : tensor<4x2x1x1xf32>
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}
