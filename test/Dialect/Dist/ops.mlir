// RUN: %shardc-opt %s --split-input-file | %shardc-opt --split-input-file | FileCheck %s
// Round trip of every dist op and of the sharding attribute.

// CHECK-LABEL: dist.mesh @mesh axes = ["pp", "tp"] shape = [2, 4]
// CHECK-LABEL: func.func @shardings
// CHECK:         dist.shard %{{.*}} : tensor<8x16xf32> to #dist.sharding<{{@mesh, \[\["tp"\], \[\]\]}}>
// CHECK:         dist.shard %{{.*}} : tensor<8x16xf32> to #dist.sharding<{{@mesh, \[\[\], \[\]\], partial = \["tp"\]}}>
// CHECK:         dist.shard %{{.*}} : tensor<8x16xf32> to #dist.sharding<{{@mesh, \[\["pp", "tp"\], \[\]\]}}>
// CHECK:         dist.shard %{{.*}} : tensor<8x16xf32> to #dist.sharding<{{@mesh, \[\[\], \[\]\]}}>
dist.mesh @mesh axes = ["pp", "tp"] shape = [2, 4]
func.func @shardings(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = dist.shard %x : tensor<8x16xf32> to #dist.sharding<@mesh, [["tp"], []]>
  %1 = dist.shard %0 : tensor<8x16xf32> to #dist.sharding<@mesh, [[], []], partial = ["tp"]>
  %2 = dist.shard %1 : tensor<8x16xf32> to #dist.sharding<@mesh, [["pp", "tp"], []]>
  %3 = dist.shard %2 : tensor<8x16xf32> to #dist.sharding<@mesh, [[], []]>
  return %3 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func @collectives
// CHECK:         %[[R:.+]] = dist.all_reduce %{{.*}} on @mesh axes = ["tp"] kind = "sum" : tensor<2x16xf32>
// CHECK:         dist.all_gather %[[R]] on @mesh axes = ["tp"] dim = 1 : tensor<2x16xf32> -> tensor<2x64xf32>
// CHECK:         dist.reduce_scatter %[[R]] on @mesh axes = ["tp"] dim = 1 kind = "max" : tensor<2x16xf32> -> tensor<2x4xf32>
// CHECK:         dist.all_to_all %[[R]] on @mesh axes = ["tp"] split = 1 concat = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK:         dist.all_reduce %[[R]] on @mesh axes = ["pp", "tp"] kind = "min" : tensor<2x16xf32>
// CHECK:         dist.send %[[R]] on @mesh axes = ["pp"] offset = 1 : tensor<2x16xf32>
// CHECK:         dist.recv on @mesh axes = ["pp"] offset = -1 : tensor<2x16xf32>
dist.mesh @mesh axes = ["pp", "tp"] shape = [2, 4]
func.func @collectives(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %0 = dist.all_reduce %x on @mesh axes = ["tp"] kind = "sum" : tensor<2x16xf32>
  %1 = dist.all_gather %0 on @mesh axes = ["tp"] dim = 1 : tensor<2x16xf32> -> tensor<2x64xf32>
  %2 = dist.reduce_scatter %0 on @mesh axes = ["tp"] dim = 1 kind = "max" : tensor<2x16xf32> -> tensor<2x4xf32>
  %3 = dist.all_to_all %0 on @mesh axes = ["tp"] split = 1 concat = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
  %4 = dist.all_reduce %0 on @mesh axes = ["pp", "tp"] kind = "min" : tensor<2x16xf32>
  dist.send %0 on @mesh axes = ["pp"] offset = 1 : tensor<2x16xf32>
  %5 = dist.recv on @mesh axes = ["pp"] offset = -1 : tensor<2x16xf32>
  return %5 : tensor<2x16xf32>
}

// -----

// Expert parallelism: 2 experts per rank of ep = 4 (8 in all); with a
// placement, 8 slots hold 6 experts (0 and 1 twice).
// CHECK-LABEL: func.func @moe
// CHECK:         dist.moe %arg0, %arg1, %arg2, %arg3, %arg4 on @mesh axes = ["ep"] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32> -> tensor<4x32xf32>
// CHECK:         dist.moe %arg0, %arg1, %arg2, %arg3, %arg4 on @mesh axes = ["ep"] placement = [0, 1, 2, 3, 0, 4, 5, 1] : tensor<4x32xf32>
dist.mesh @mesh axes = ["ep", "tp"] shape = [4, 2]
func.func @moe(%x: tensor<4x32xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x32x96xf32>, %dn: tensor<2x48x32xf32>) -> tensor<4x32xf32> {
  %0 = dist.moe %x, %w, %ids, %gu, %dn on @mesh axes = ["ep"] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32> -> tensor<4x32xf32>
  %1 = dist.moe %x, %w, %ids, %gu, %dn on @mesh axes = ["ep"] placement = [0, 1, 2, 3, 0, 4, 5, 1] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32> -> tensor<4x32xf32>
  return %1 : tensor<4x32xf32>
}

// -----

// nn.Linear experts: their biases, the local experts' rows.
// CHECK-LABEL: func.func @moe_biases
// CHECK:         dist.moe %arg0, %arg1, %arg2, %arg3, %arg4 biases %arg5, %arg6 on @mesh axes = ["ep"] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32>, tensor<2x96xf32>, tensor<2x32xf32> -> tensor<4x32xf32>
dist.mesh @mesh axes = ["ep"] shape = [4]
func.func @moe_biases(%x: tensor<4x32xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x32x96xf32>, %dn: tensor<2x48x32xf32>, %gub: tensor<2x96xf32>, %db: tensor<2x32xf32>) -> tensor<4x32xf32> {
  %0 = dist.moe %x, %w, %ids, %gu, %dn biases %gub, %db on @mesh axes = ["ep"] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32>, tensor<2x96xf32>, tensor<2x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}
