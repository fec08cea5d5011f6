// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// Data-dependent indexing and scans become runtime kernel ops (kern.topk,
// kern.arg_max, kern.cumsum, kern.trilu, kern.gather); graph booleans become
// unit attributes.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<3x10xf32> {{.*}}, %[[I:arg[0-9]+]]: memref<5xi64> {{.*}}, %[[V:arg[0-9]+]]: memref<3x4xf32> {{.*}}, %[[VI:arg[0-9]+]]: memref<3x4xi64> {{.*}}, %[[AM:arg[0-9]+]]: memref<3xi64> {{.*}}, %[[CS:arg[0-9]+]]: memref<3x10xf32> {{.*}}, %[[TR:arg[0-9]+]]: memref<3x10xf32> {{.*}}, %[[G:arg[0-9]+]]: memref<5x10xf32>
// CHECK-NEXT: kern.topk %[[X]] into %[[V]], %[[VI]] {axis = 1 : i64, k = 4 : i64, largest, sorted} : memref<3x10xf32> into memref<3x4xf32>, memref<3x4xi64>
// CHECK-NEXT: kern.arg_max %[[X]] into %[[AM]] {axis = 1 : i64, select_last_index} : memref<3x10xf32> into memref<3xi64>
// CHECK-NEXT: kern.cumsum %[[X]] into %[[CS]] {axis = 1 : i64, reverse} : memref<3x10xf32> into memref<3x10xf32>
// CHECK-NEXT: kern.trilu %[[X]] into %[[TR]] {k = -1 : i64} : memref<3x10xf32> into memref<3x10xf32>
// CHECK-NEXT: kern.gather %[[X]], %[[I]] into %[[G]] {axis = 0 : i64} : memref<3x10xf32>, memref<5xi64> into memref<5x10xf32>
// Both results of a top-k are produced even when unused.
// CHECK-NEXT: %[[SV:.*]] = kern.alloc : memref<2x10xf32>
// CHECK-NEXT: %[[SI:.*]] = kern.alloc : memref<2x10xi64>
// CHECK-NEXT: kern.topk %[[X]] into %[[SV]], %[[SI]] {axis = 0 : i64, k = 2 : i64, sorted} : memref<3x10xf32> into memref<2x10xf32>, memref<2x10xi64>
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
// CHECK-NEXT: kern.gather %{{.*}}, %[[IDX]] into %{{.*}} {axis = 1 : i64} : memref<3x10xf32>, memref<2xi32> into memref<3x2xf32>
func.func @main(%x: tensor<3x10xf32>) -> tensor<3x2xf32> {
  %i = graph.constant dense<[2, 0]> : tensor<2xi32>
  %0 = graph.gather %x, %i {axis = 1 : i64} : tensor<3x10xf32>, tensor<2xi32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
