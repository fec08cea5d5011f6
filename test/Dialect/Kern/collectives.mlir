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

// -----

// Expert parallelism: 4 slots over a group of 2 (2 per rank); 16 routed
// rows out, room for 32 in.
// CHECK-LABEL: func.func @moe_exchange
// CHECK: kern.moe_dispatch %{{.*}}, %{{.*}} into %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64, group_size = 2 : i64} : memref<16x32xf32>, memref<5xi32> into memref<32x32xf32>, memref<3xi32>, memref<4xi32>
// CHECK: kern.moe_return %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} {axis = 0 : i64, group_size = 2 : i64} : memref<32x32xf32>, memref<4xi32>, memref<5xi32> into memref<16x32xf32>
func.func @moe_exchange(%rows: memref<16x32xf32>, %offsets: memref<5xi32>, %recv: memref<32x32xf32>, %ro: memref<3xi32>, %counts: memref<4xi32>) {
  kern.moe_dispatch %rows, %offsets into %recv, %ro, %counts {axis = 0 : i64, group_size = 2 : i64} : memref<16x32xf32>, memref<5xi32> into memref<32x32xf32>, memref<3xi32>, memref<4xi32>
  kern.moe_return %recv, %counts, %offsets into %rows {axis = 0 : i64, group_size = 2 : i64} : memref<32x32xf32>, memref<4xi32>, memref<5xi32> into memref<16x32xf32>
  return
}
