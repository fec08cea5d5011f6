// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// dist collectives become one kern collective on the mesh axis's
// communicator (its position in dist.mesh) into or from the result's
// buffer. Along a dim whose blocks are not contiguous (a dim of size > 1
// before it), a kern.map lays the blocks out: after an all-gather into
// [group, shard..], before a reduce-scatter from it.

// CHECK-LABEL: func.func @main
// CHECK-SAME:  (%[[X:.*]]: memref<4x8xf32> {kern.input = "x"}, %[[Y:.*]]: memref<4x8xf32> {kern.output = "y"})
// CHECK-NEXT:  kern.all_reduce %[[X]], %[[Y]] {axis = 1 : i64, group_size = 2 : i64, kind = "sum"}
// CHECK-NEXT:  return
dist.mesh @mesh axes = ["dp", "tp"] shape = [1, 2]
func.func @main(%x: tensor<4x8xf32> {graph.name = "x"}) -> (tensor<4x8xf32> {graph.name = "y"}) {
  %r = dist.all_reduce %x on @mesh axes = ["tp"] kind = "sum" : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tokens of a [1, seq, hidden] activation: blocks along dim 1 are
// contiguous, so both collectives work in place, with no copy kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME:  (%[[X:.*]]: memref<1x16x8xf32> {kern.input = "x"}, %[[Y:.*]]: memref<1x16x8xf32> {kern.output = "y"})
// CHECK:       %[[S:.+]] = kern.alloc
// CHECK-NEXT:  kern.reduce_scatter %[[X]], %[[S]] {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<1x16x8xf32>, memref<1x8x8xf32>
// CHECK-NEXT:  kern.all_gather %[[S]], %[[Y]] {axis = 0 : i64, group_size = 2 : i64} : memref<1x8x8xf32>, memref<1x16x8xf32>
// CHECK-NEXT:  return
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @main(%x: tensor<1x16x8xf32> {graph.name = "x"}) -> (tensor<1x16x8xf32> {graph.name = "y"}) {
  %s = dist.reduce_scatter %x on @mesh axes = ["tp"] dim = 1 kind = "sum" : tensor<1x16x8xf32> -> tensor<1x8x8xf32>
  %g = dist.all_gather %s on @mesh axes = ["tp"] dim = 1 : tensor<1x8x8xf32> -> tensor<1x16x8xf32>
  return %g : tensor<1x16x8xf32>
}

// -----

// [seq, batch, hidden] split along batch: block r of the reduce-scatter is
// the strided [4, 1, 8] at offset 8r (strides 16, 8, 1), copied into
// [2, 4, 1, 8] first; the all-gather's [2, 4, 1, 8] blocks go back to
// offset 8r.
// CHECK-LABEL: func.func @main
// CHECK:       %[[T:.+]] = kern.alloc : memref<2x4x1x8xf32>
// CHECK-NEXT:  kern.map ins(%{{.*}} : memref<4x2x8xf32>) outs(%[[T]] : memref<2x4x1x8xf32>) attributes {layouts = [array<i64: 0, 8, 16, 8, 1>, array<i64: 0, 32, 8, 8, 1>], shape = array<i64: 2, 4, 1, 8>}
// CHECK:       kern.reduce_scatter %[[T]], %{{.*}} {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<2x4x1x8xf32>, memref<4x1x8xf32>
// CHECK:       kern.all_gather %{{.*}}, %{{.*}} {axis = 0 : i64, group_size = 2 : i64} : memref<4x1x8xf32>, memref<2x4x1x8xf32>
// CHECK-NEXT:  kern.map
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @main(%x: tensor<4x2x8xf32> {graph.name = "x"}) -> (tensor<4x2x8xf32> {graph.name = "y"}) {
  %s = dist.reduce_scatter %x on @mesh axes = ["tp"] dim = 1 kind = "sum" : tensor<4x2x8xf32> -> tensor<4x1x8xf32>
  %g = dist.all_gather %s on @mesh axes = ["tp"] dim = 1 : tensor<4x1x8xf32> -> tensor<4x2x8xf32>
  return %g : tensor<4x2x8xf32>
}

// -----

// Pipeline stages: what a stage receives is written into a buffer of its
// own; what it sends is read from the producer's buffer.
// CHECK-LABEL: func.func @main_stage1
// CHECK:       %[[R:.+]] = kern.alloc
// CHECK-NEXT:  kern.recv %[[R]] {axis = 0 : i64, group_size = 3 : i64, offset = -1 : i64} : memref<2x8xf32>
// CHECK:       kern.send %{{.*}} {axis = 0 : i64, group_size = 3 : i64, offset = 1 : i64} : memref<2x8xf32>
dist.mesh @mesh axes = ["pp", "tp"] shape = [3, 1]
func.func @main_stage1() attributes {dist.stage = 1 : i64} {
  %r = dist.recv on @mesh axes = ["pp"] offset = -1 : tensor<2x8xf32>
  %a = graph.relu %r : tensor<2x8xf32>
  dist.send %a on @mesh axes = ["pp"] offset = 1 : tensor<2x8xf32>
  return
}
