// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// Data movement: reshapes are views (no kernel), transpose / slice / expand /
// concat / split are generated copies whose layouts do the index
// arithmetic, pad calls the runtime.

// Reshape, squeeze, unsqueeze and flatten chain views of the same buffer;
// the only kernel is the final copy into the output.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x3x4xf32> {kern.input = "x"}, %[[Y:arg[0-9]+]]: memref<24xf32> {kern.output = "y"})
// CHECK-NEXT: %[[V0:.*]] = kern.view %[[X]] : memref<2x3x4xf32> to memref<6x4xf32>
// CHECK-NEXT: %[[V1:.*]] = kern.view %[[V0]] : memref<6x4xf32> to memref<6x1x4xf32>
// CHECK-NEXT: %[[V2:.*]] = kern.view %[[V1]] : memref<6x1x4xf32> to memref<6x4xf32>
// CHECK-NEXT: %[[V3:.*]] = kern.view %[[V2]] : memref<6x4xf32> to memref<1x24xf32>
// CHECK-NEXT: %[[V4:.*]] = kern.view %[[V3]] : memref<1x24xf32> to memref<24xf32>
// CHECK-NEXT: kern.map ins(%[[V4]] : memref<24xf32>) outs(%[[Y]] : memref<24xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 24>}
// CHECK-NOT:  kern.map
func.func @main(%x: tensor<2x3x4xf32> {graph.name = "x"}) -> (tensor<24xf32> {graph.name = "y"}) {
  %0 = graph.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = graph.unsqueeze %0 {axes = array<i64: 1>} : tensor<6x4xf32> -> tensor<6x1x4xf32>
  %2 = graph.squeeze %1 {axes = array<i64: 1>} : tensor<6x1x4xf32> -> tensor<6x4xf32>
  %3 = graph.flatten %2 {axis = 0 : i64} : tensor<6x4xf32> -> tensor<1x24xf32>
  %4 = graph.reshape %3 {shape = array<i64: 24>} : tensor<1x24xf32> -> tensor<24xf32>
  return %4 : tensor<24xf32>
}

// -----

// Transpose: the input is read with permuted strides (1, 4, 12) and the
// output written densely.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x3x4xf32> {{.*}}, %[[Y:arg[0-9]+]]: memref<4x3x2xf32>
// CHECK-NEXT: kern.map ins(%[[X]] : memref<2x3x4xf32>) outs(%[[Y]] : memref<4x3x2xf32>) attributes {layouts = [array<i64: 0, 1, 4, 12>, array<i64: 0, 6, 2, 1>], shape = array<i64: 4, 3, 2>} {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:   kern.yield %[[A]] : f32
func.func @main(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// Slice: the start becomes the offset (1*12 + 2*4 + 1), steps scale the
// strides; a negative step walks backwards.
// CHECK-LABEL: func.func @main
// CHECK:      kern.map ins(%{{.*}} : memref<2x3x4xf32>) outs(%{{.*}} : memref<1x1x2xf32>) attributes {layouts = [array<i64: 21, 12, 4, 2>, array<i64: 0, 2, 2, 1>], shape = array<i64: 1, 1, 2>}
// CHECK:      kern.map ins(%{{.*}} : memref<2x3x4xf32>) outs(%{{.*}} : memref<2x2x4xf32>) attributes {layouts = [array<i64: 8, 12, -8, 1>, array<i64: 0, 8, 4, 1>], shape = array<i64: 2, 2, 4>}
func.func @main(%x: tensor<2x3x4xf32>) -> (tensor<1x1x2xf32>, tensor<2x2x4xf32>) {
  %0 = graph.slice %x {starts = array<i64: 1, 2, 1>, ends = array<i64: 2, 3, 4>, steps = array<i64: 1, 1, 2>} : tensor<2x3x4xf32> -> tensor<1x1x2xf32>
  %1 = graph.slice %x {starts = array<i64: 0, 2, 0>, ends = array<i64: 2, -1, 4>, steps = array<i64: 1, -2, 1>} : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  return %0, %1 : tensor<1x1x2xf32>, tensor<2x2x4xf32>
}

// -----

// Expand: zero strides on the new and the broadcast dims.
// CHECK-LABEL: func.func @main
// CHECK:      kern.map ins(%{{.*}} : memref<3x1xf32>) outs(%{{.*}} : memref<2x3x4xf32>) attributes {layouts = [array<i64: 0, 0, 1, 0>, array<i64: 0, 12, 4, 1>], shape = array<i64: 2, 3, 4>}
func.func @main(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.expand %x {shape = array<i64: 2, 1, 4>} : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Concat: one copy per non-empty piece, written at an offset of the output
// (3 rows of 4 in for the second piece); the empty piece has no kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:arg[0-9]+]]: memref<2x3x4xf32> {{.*}}, %[[B:arg[0-9]+]]: memref<2x1x4xf32> {{.*}}, %[[E:arg[0-9]+]]: memref<2x0x4xf32> {{.*}}, %[[Y:arg[0-9]+]]: memref<2x4x4xf32>
// CHECK-NEXT: kern.map ins(%[[A]] : memref<2x3x4xf32>) outs(%[[Y]] : memref<2x4x4xf32>) attributes {layouts = [array<i64: 0, 12, 4, 1>, array<i64: 0, 16, 4, 1>], shape = array<i64: 2, 3, 4>}
// CHECK:      kern.map ins(%[[B]] : memref<2x1x4xf32>) outs(%[[Y]] : memref<2x4x4xf32>) attributes {layouts = [array<i64: 0, 4, 4, 1>, array<i64: 12, 16, 4, 1>], shape = array<i64: 2, 1, 4>}
// CHECK-NOT:  kern.map
// CHECK:      return
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x1x4xf32>, %e: tensor<2x0x4xf32>) -> tensor<2x4x4xf32> {
  %0 = graph.concat %a, %e, %b {axis = 1 : i64} : tensor<2x3x4xf32>, tensor<2x0x4xf32>, tensor<2x1x4xf32> -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// Split: each used piece is read at its offset along the axis (1 and 3
// rows of 4 in); the unused first piece gets no buffer and no kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x6x4xf32> {{.*}}, %[[Y1:arg[0-9]+]]: memref<2x2x4xf32> {{.*}}, %[[Y2:arg[0-9]+]]: memref<2x3x4xf32>
// CHECK-NOT:  kern.alloc
// CHECK-NEXT: kern.map ins(%[[X]] : memref<2x6x4xf32>) outs(%[[Y1]] : memref<2x2x4xf32>) attributes {layouts = [array<i64: 4, 24, 4, 1>, array<i64: 0, 8, 4, 1>], shape = array<i64: 2, 2, 4>}
// CHECK:      kern.map ins(%[[X]] : memref<2x6x4xf32>) outs(%[[Y2]] : memref<2x3x4xf32>) attributes {layouts = [array<i64: 12, 24, 4, 1>, array<i64: 0, 12, 4, 1>], shape = array<i64: 2, 3, 4>}
// CHECK-NOT:  kern.map
func.func @main(%x: tensor<2x6x4xf32>) -> (tensor<2x2x4xf32>, tensor<2x3x4xf32>) {
  %0:3 = graph.split %x {axis = 1 : i64, sizes = array<i64: 1, 2, 3>} : tensor<2x6x4xf32> -> tensor<2x1x4xf32>, tensor<2x2x4xf32>, tensor<2x3x4xf32>
  return %0#1, %0#2 : tensor<2x2x4xf32>, tensor<2x3x4xf32>
}

// -----

// Pad calls the runtime: the output descriptor gives the padded shape, the
// value (when given) is an extra input, mode reflect is 1.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x3x4xf32> {{.*}}, %[[V:arg[0-9]+]]: memref<f32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<2x5x6xf32> {{.*}}, %[[Y1:arg[0-9]+]]: memref<2x5x6xf32>
// CHECK-NEXT: kern.pad %[[X]] value %[[V]] into %[[Y0]] {mode = "constant", pads = array<i64: 0, 1, 1, 0, 1, 1>} : memref<2x3x4xf32>, memref<f32> into memref<2x5x6xf32>
// CHECK-NEXT: kern.pad %[[X]] into %[[Y1]] {mode = "reflect", pads = array<i64: 0, 1, 1, 0, 1, 1>} : memref<2x3x4xf32> into memref<2x5x6xf32>
func.func @main(%x: tensor<2x3x4xf32>, %v: tensor<f32>) -> (tensor<2x5x6xf32>, tensor<2x5x6xf32>) {
  %0 = graph.pad %x, %v {pads = array<i64: 0, 1, 1, 0, 1, 1>, mode = "constant"} : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x5x6xf32>
  %1 = graph.pad %x {pads = array<i64: 0, 1, 1, 0, 1, 1>, mode = "reflect"} : tensor<2x3x4xf32> -> tensor<2x5x6xf32>
  return %0, %1 : tensor<2x5x6xf32>, tensor<2x5x6xf32>
}
