// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// Data-dependent indexing and scans call runtime kernels with the arguments
// of their C signatures (runtime/include/shardc/cpu.h).

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<3x10xf32> {{.*}}, %[[I:arg[0-9]+]]: memref<5xi64> {{.*}}, %[[V:arg[0-9]+]]: memref<3x4xf32> {{.*}}, %[[VI:arg[0-9]+]]: memref<3x4xi64> {{.*}}, %[[AM:arg[0-9]+]]: memref<3xi64> {{.*}}, %[[CS:arg[0-9]+]]: memref<3x10xf32> {{.*}}, %[[TR:arg[0-9]+]]: memref<3x10xf32> {{.*}}, %[[G:arg[0-9]+]]: memref<5x10xf32>
// sc_topk(x, values, indices, axis, k, largest, sorted)
// CHECK-NEXT: kern.call @sc_topk ins(%[[X]] : memref<3x10xf32>) outs(%[[V]], %[[VI]] : memref<3x4xf32>, memref<3x4xi64>) {args = ["%d0", "%p0", "%p1", "%p2", 1, 4, 1 : i32, 1 : i32]}
// sc_arg_max(x, y, axis, select_last_index)
// CHECK-NEXT: kern.call @sc_arg_max ins(%[[X]] : memref<3x10xf32>) outs(%[[AM]] : memref<3xi64>) {args = ["%d0", "%p0", "%p1", 1, 1 : i32]}
// sc_cumsum(x, y, axis, exclusive, reverse)
// CHECK-NEXT: kern.call @sc_cumsum ins(%[[X]] : memref<3x10xf32>) outs(%[[CS]] : memref<3x10xf32>) {args = ["%d0", "%p0", "%p1", 1, 0 : i32, 1 : i32]}
// sc_trilu(x, y, upper, k)
// CHECK-NEXT: kern.call @sc_trilu ins(%[[X]] : memref<3x10xf32>) outs(%[[TR]] : memref<3x10xf32>) {args = ["%d0", "%p0", "%p1", 0 : i32, -1]}
// sc_gather(data, indices, y, axis)
// CHECK-NEXT: kern.call @sc_gather ins(%[[X]], %[[I]] : memref<3x10xf32>, memref<5xi64>) outs(%[[G]] : memref<5x10xf32>) {args = ["%d0", "%p0", "%d1", "%p1", "%p2", 0]}
// Both results of a top-k are produced even when unused.
// CHECK-NEXT: %[[SV:.*]] = kern.alloc : memref<2x10xf32>
// CHECK-NEXT: %[[SI:.*]] = kern.alloc : memref<2x10xi64>
// CHECK-NEXT: kern.call @sc_topk ins(%[[X]] : memref<3x10xf32>) outs(%[[SV]], %[[SI]] : memref<2x10xf32>, memref<2x10xi64>) {args = ["%d0", "%p0", "%p1", "%p2", 0, 2, 0 : i32, 1 : i32]}
func.func @main(%x: tensor<3x10xf32>, %i: tensor<5xi64>) -> (tensor<3x4xf32>, tensor<3x4xi64>, tensor<3xi64>, tensor<3x10xf32>, tensor<3x10xf32>, tensor<5x10xf32>) {
  %0:2 = graph.topk %x {k = 4 : i64, axis = 1 : i64} : tensor<3x10xf32> -> tensor<3x4xf32>, tensor<3x4xi64>
  %1 = graph.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = true} : tensor<3x10xf32> -> tensor<3xi64>
  %2 = graph.cumsum %x {axis = 1 : i64, reverse = true} : tensor<3x10xf32>
  %3 = graph.trilu %x {upper = false, k = -1 : i64} : tensor<3x10xf32>
  %4 = graph.gather %x, %i {axis = 0 : i64} : tensor<3x10xf32>, tensor<5xi64> -> tensor<5x10xf32>
  %5:2 = graph.topk %x {k = 2 : i64, axis = 0 : i64, largest = false} : tensor<3x10xf32> -> tensor<2x10xf32>, tensor<2x10xi64>
  return %0#0, %0#1, %1, %2, %3, %4 : tensor<3x4xf32>, tensor<3x4xi64>, tensor<3xi64>, tensor<3x10xf32>, tensor<3x10xf32>, tensor<5x10xf32>
}

// -----

// A constant index tensor is a kern.weight; gather along axis 1.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[IDX:.*]] = kern.weight {value = dense<[2, 0]> : tensor<2xi32>} : memref<2xi32>
// CHECK-NEXT: kern.call @sc_gather ins(%{{.*}}, %[[IDX]] : memref<3x10xf32>, memref<2xi32>) outs(%{{.*}} : memref<3x2xf32>) {args = ["%d0", "%p0", "%d1", "%p1", "%p2", 1]}
func.func @main(%x: tensor<3x10xf32>) -> tensor<3x2xf32> {
  %i = graph.constant dense<[2, 0]> : tensor<2xi32>
  %0 = graph.gather %x, %i {axis = 1 : i64} : tensor<3x10xf32>, tensor<2xi32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
