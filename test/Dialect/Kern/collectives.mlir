// RUN: %shardc-opt %s --split-input-file | %shardc-opt --split-input-file | FileCheck %s
// Round trip of the kern collectives.

// CHECK-LABEL: func.func @collectives
// CHECK: kern.all_reduce %{{.*}}, %{{.*}} {axis = 0 : i64, group_size = 4 : i64, kind = "sum"} : memref<8x16xf32>, memref<8x16xf32>
// CHECK: kern.all_gather %{{.*}}, %{{.*}} {axis = 1 : i64, group_size = 4 : i64} : memref<8x16xf32>, memref<4x8x16xf32>
// CHECK: kern.reduce_scatter %{{.*}}, %{{.*}} {axis = 0 : i64, group_size = 4 : i64, kind = "max"} : memref<4x8x16xf32>, memref<8x16xf32>
// CHECK: kern.all_to_all %{{.*}}, %{{.*}} {axis = 0 : i64, group_size = 4 : i64} : memref<8x16xf32>, memref<8x16xf32>
func.func @collectives(%a: memref<8x16xf32>, %b: memref<4x8x16xf32>, %c: memref<8x16xf32>) {
  kern.all_reduce %a, %a {axis = 0 : i64, group_size = 4 : i64, kind = "sum"} : memref<8x16xf32>, memref<8x16xf32>
  kern.all_gather %a, %b {axis = 1 : i64, group_size = 4 : i64} : memref<8x16xf32>, memref<4x8x16xf32>
  kern.reduce_scatter %b, %a {axis = 0 : i64, group_size = 4 : i64, kind = "max"} : memref<4x8x16xf32>, memref<8x16xf32>
  kern.all_to_all %a, %c {axis = 0 : i64, group_size = 4 : i64} : memref<8x16xf32>, memref<8x16xf32>
  return
}

// -----

// Pipeline stages: a send to the next rank along axis 1 and a receive from
// the previous one.
// CHECK-LABEL: func.func @point_to_point
// CHECK: kern.recv %{{.*}} {axis = 1 : i64, group_size = 4 : i64, offset = -1 : i64} : memref<8x16xf32>
// CHECK: kern.send %{{.*}} {axis = 1 : i64, group_size = 4 : i64, offset = 1 : i64} : memref<8x16xf32>
func.func @point_to_point(%a: memref<8x16xf32>) {
  kern.recv %a {axis = 1 : i64, group_size = 4 : i64, offset = -1 : i64} : memref<8x16xf32>
  kern.send %a {axis = 1 : i64, group_size = 4 : i64, offset = 1 : i64} : memref<8x16xf32>
  return
}
