// RUN: %shardc-opt %s --split-input-file --dist-seed-batch="axis=dp parts=2" | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-seed-batch="axis=dp parts=2" --dist-propagate --dist-partition | FileCheck %s --check-prefix=PART
// dist-seed-batch: the inputs' leading dim (and what a stage receives)
// split over one axis; the axis joins the mesh in the order dp, pp, ep, tp.

// A pipeline stage of a pp x dp job: the dp axis goes before pp, the
// input whose leading dim 2 divides and the received hidden state are
// seeded; the [1, 8] input is not.
// CHECK:       dist.mesh @mesh axes = ["dp", "pp"] shape = [2, 2]
// CHECK-LABEL: func.func @main_stage1
// CHECK:         dist.shard %arg0 : tensor<4x8xf32> to #dist.sharding<@mesh, {{\[\["dp"\], \[\]\]}}>
// CHECK-NOT:     dist.shard %arg1
// CHECK:         %[[R:.*]] = dist.recv
// CHECK-NEXT:    dist.shard %[[R]] : tensor<4x8xf32> to #dist.sharding<@mesh, {{\[\["dp"\], \[\]\]}}>
// Partitioned: stage 1 serves the ranks whose pp coordinate is 1 (ranks 1
// and 3 of dp x pp = 2 x 2); each receives its replica's two rows and reads
// its rows of the input; the output is gathered over dp.
// PART-LABEL: func.func @main_stage1_rank1
// PART-SAME:    kern.ranks = array<i64: 1>
// PART:         graph.slice %arg0 {ends = array<i64: 2, 8>
// PART:         dist.recv on @mesh axes = ["pp"] offset = -1 : tensor<2x8xf32>
// PART:         dist.all_gather %{{.*}} on @mesh axes = ["dp"] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// PART-LABEL: func.func @main_stage1_rank3
// PART:         graph.slice %arg0 {ends = array<i64: 4, 8>
// PART-NOT:   func.func @main_stage1_rank0
dist.mesh @mesh axes = ["pp"] shape = [2]
func.func @main_stage1(%x: tensor<4x8xf32>, %bias: tensor<1x8xf32>) -> tensor<4x8xf32> attributes {dist.stage = 1 : i64} {
  %h = dist.recv on @mesh axes = ["pp"] offset = -1 : tensor<4x8xf32>
  %a = graph.add %h, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %b = graph.add %a, %bias : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
