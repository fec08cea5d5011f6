// RUN: %shardc-opt %s --split-input-file --dist-propagate --dist-partition | FileCheck %s
// dist-partition of arg_max, topk and cumsum whose operand arrives split
// along their axis: each rank selects (or scans) its block and the ranks
// combine the winners' values and global indices (or the blocks' totals);
// the operand is never gathered whole.

// arg_max: the block's winner is the value at its index (NaN and ties
// judged as on one rank), its index offset by the block's start; the
// winner of the all-gathered winners picks the index.
// CHECK-LABEL: func.func @argmax_rank1
// CHECK:         %[[X:.+]] = graph.slice %arg0 {{.*}} -> tensor<3x4xf32>
// CHECK:         %[[I:.+]] = graph.arg_max %[[X]] {axis = 1 : i64, select_last_index = true} : tensor<3x4xf32> -> tensor<3x1xi64>
// CHECK:         %[[V:.+]] = graph.gather_elements %[[X]], %[[I]] {axis = 1 : i64}
// CHECK:         %[[OFF:.+]] = graph.constant dense<4> : tensor<1x1xi64>
// CHECK:         %[[G:.+]] = graph.add %[[I]], %[[OFF]]
// CHECK:         %[[VS:.+]] = dist.all_gather %[[V]] on @mesh axes = ["tp"] dim = 1 : tensor<3x1xf32> -> tensor<3x2xf32>
// CHECK:         %[[IS:.+]] = dist.all_gather %[[G]] on @mesh axes = ["tp"] dim = 1 : tensor<3x1xi64> -> tensor<3x2xi64>
// CHECK:         %[[W:.+]] = graph.arg_max %[[VS]] {axis = 1 : i64, select_last_index = true}
// CHECK:         %[[R:.+]] = graph.gather_elements %[[IS]], %[[W]] {axis = 1 : i64}
// CHECK-NOT:     -> tensor<3x8xf32>
// CHECK:         graph.reshape %[[R]] {shape = array<i64: 3>} : tensor<3x1xi64> -> tensor<3xi64>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @argmax(%x: tensor<3x8xf32>) -> tensor<3xi64> {
  %s = dist.shard %x : tensor<3x8xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %y = graph.arg_max %s {axis = 1 : i64, keepdims = false, select_last_index = true} : tensor<3x8xf32> -> tensor<3xi64>
  return %y : tensor<3xi64>
}

// -----

// topk: each block's top k with global indices, all-gathered, then the
// top k of those.
// CHECK-LABEL: func.func @topk_rank1
// CHECK:         %[[V:.+]], %[[I:.+]] = graph.topk %{{.*}} {axis = 1 : i64, k = 2 : i64} : tensor<3x4xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
// CHECK:         %[[G:.+]] = graph.add %[[I]], %{{.*}} : tensor<3x2xi64>, tensor<1x1xi64>
// CHECK:         %[[VS:.+]] = dist.all_gather %[[V]] on @mesh axes = ["tp"] dim = 1 : tensor<3x2xf32> -> tensor<3x4xf32>
// CHECK:         %[[IS:.+]] = dist.all_gather %[[G]] on @mesh axes = ["tp"] dim = 1 : tensor<3x2xi64> -> tensor<3x4xi64>
// CHECK:         %[[MV:.+]], %[[MI:.+]] = graph.topk %[[VS]] {axis = 1 : i64, k = 2 : i64} : tensor<3x4xf32>
// CHECK:         %[[R:.+]] = graph.gather_elements %[[IS]], %[[MI]] {axis = 1 : i64}
// CHECK:         return %[[MV]], %[[R]]
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @topk(%x: tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %s = dist.shard %x : tensor<3x8xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %v, %i = graph.topk %s {axis = 1 : i64, k = 2 : i64} : tensor<3x8xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// topk whose k exceeds a block: selected whole, after an all-gather.
// CHECK-LABEL: func.func @topk_large_rank0
// CHECK:         %[[W:.+]] = dist.all_gather %{{.*}} on @mesh axes = ["tp"] dim = 1 : tensor<3x4xf32> -> tensor<3x8xf32>
// CHECK:         graph.topk %[[W]] {axis = 1 : i64, k = 5 : i64} : tensor<3x8xf32>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @topk_large(%x: tensor<3x8xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>) {
  %a = graph.neg %x : tensor<3x8xf32>
  %s = dist.shard %a : tensor<3x8xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %b = graph.neg %s : tensor<3x8xf32>
  %v, %i = graph.topk %b {axis = 1 : i64, k = 5 : i64} : tensor<3x8xf32> -> tensor<3x5xf32>, tensor<3x5xi64>
  return %v, %i : tensor<3x5xf32>, tensor<3x5xi64>
}

// -----

// cumsum: each block's scan plus the sum of the earlier blocks' totals
// (rank 0 has none); the result stays split.
// CHECK-LABEL: func.func @cumsum_rank0
// CHECK:         %[[C:.+]] = graph.cumsum %[[X:.+]] {axis = 1 : i64} : tensor<3x4xf32>
// CHECK:         %[[T:.+]] = graph.reduce_sum %[[X]] {axes = array<i64: 1>} : tensor<3x4xf32> -> tensor<3x1xf32>
// CHECK:         dist.all_gather %[[T]] on @mesh axes = ["tp"] dim = 1 : tensor<3x1xf32> -> tensor<3x2xf32>
// CHECK-NOT:     graph.add
// CHECK:         dist.all_gather %[[C]] on @mesh axes = ["tp"] dim = 1 : tensor<3x4xf32> -> tensor<3x8xf32>
// CHECK-LABEL: func.func @cumsum_rank1
// CHECK:         %[[C:.+]] = graph.cumsum %{{.*}} {axis = 1 : i64} : tensor<3x4xf32>
// CHECK:         %[[TS:.+]] = dist.all_gather %{{.*}} on @mesh axes = ["tp"] dim = 1 : tensor<3x1xf32> -> tensor<3x2xf32>
// CHECK:         %[[B:.+]] = graph.slice %[[TS]] {ends = array<i64: 3, 1>, starts = array<i64: 0, 0>, {{.*}}} : tensor<3x2xf32> -> tensor<3x1xf32>
// CHECK:         %[[S:.+]] = graph.reduce_sum %[[B]] {axes = array<i64: 1>}
// CHECK:         %[[Y:.+]] = graph.add %[[C]], %[[S]]
// CHECK:         dist.all_gather %[[Y]] on @mesh axes = ["tp"] dim = 1 : tensor<3x4xf32> -> tensor<3x8xf32>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @cumsum(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %s = dist.shard %x : tensor<3x8xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %y = graph.cumsum %s {axis = 1 : i64} : tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}
