// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern --kern-fuse-elementwise | FileCheck %s --check-prefix=FUSED
// Element gathers and scatters become runtime kernel ops. A scatter's
// result first gets a copy of the data (a map), then the kernel updates it
// in place.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<3x4xf32> {{.*}}, %[[I:arg[0-9]+]]: memref<3x2xi64> {{.*}}, %[[U:arg[0-9]+]]: memref<3x2xf32> {{.*}}, %[[G:arg[0-9]+]]: memref<3x2xf32> {{.*}}, %[[S:arg[0-9]+]]: memref<3x4xf32>
// CHECK-NEXT: kern.gather_elements %[[X]], %[[I]] into %[[G]] {axis = 1 : i64} : memref<3x4xf32>, memref<3x2xi64> into memref<3x2xf32>
// CHECK-NEXT: kern.map ins(%[[X]] : memref<3x4xf32>) outs(%[[S]] : memref<3x4xf32>)
// CHECK:      kern.scatter_elements %[[I]], %[[U]] into %[[S]] {axis = 1 : i64, reduction = "mul"} : memref<3x2xi64>, memref<3x2xf32> into memref<3x4xf32>
func.func @main(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x4xf32>) {
  %0 = graph.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  %1 = graph.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "mul"} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32> -> tensor<3x4xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<3x4xf32>
}

// -----

// Splat data is a fill (no weight). The scatter writes the fill's buffer,
// so the fill is not fused into the reduction that reads it.
// CHECK-LABEL: func.func @main
// CHECK:      %[[B:.+]] = kern.alloc : memref<3x4xf32>
// CHECK-NEXT: kern.map outs(%[[B]] : memref<3x4xf32>)
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK:      kern.scatter_nd %{{.*}}, %{{.*}} into %[[B]] {reduction = "add"} : memref<2x1xi64>, memref<2x4xf32> into memref<3x4xf32>
// CHECK-NEXT: kern.reduce "sum" ins(%[[B]] : memref<3x4xf32>)
// FUSED-LABEL: func.func @main
// FUSED:       kern.map outs(%[[B:.+]] : memref<3x4xf32>)
// FUSED:       kern.scatter_nd %{{.*}}, %{{.*}} into %[[B]]
// FUSED-NEXT:  kern.reduce "sum" ins(%[[B]] : memref<3x4xf32>)
func.func @main(%i: tensor<2x1xi64>, %u: tensor<2x4xf32>) -> tensor<4xf32> {
  %z = graph.constant dense<0.0> : tensor<3x4xf32>
  %0 = graph.scatter_nd %z, %i, %u {reduction = "add"} : tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32> -> tensor<3x4xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 0>, keepdims = false} : tensor<3x4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
