// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron=tp=2 | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron=tp=3 | FileCheck %s --check-prefix=THREE
// dist-seed-megatron: the mesh, heads split at every attention, the MLP's
// first projection column-parallel; a fused QKV projection split into q, k
// and v is rewritten into one projection per part first.

// CHECK-LABEL: dist.mesh @mesh axes = ["tp"] shape = [2]
// CHECK-LABEL: func.func @block
// The fused [8, 24] projection becomes three [8, 8] ones with their biases.
// CHECK-NOT:   graph.split
// CHECK-COUNT-3: graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<8xf32> : tensor<1x4x8xf32>, tensor<8x8xf32> -> tensor<1x4x8xf32>
// CHECK-COUNT-3: dist.shard %{{.*}} : tensor<1x2x4x4xf32> to #dist.sharding<@mesh, {{\[\[\], \["tp"\], \[\], \[\]\]}}>
// CHECK:       graph.attention
// CHECK:       dist.shard %{{.*}} : tensor<8x32xf32> to #dist.sharding<@mesh, {{\[\[\], \["tp"\]\]}}>
// CHECK:       graph.linear {{.*}}activation = "gelu"
// THREE-LABEL: func.func @block
// THREE-NOT:   dist.shard
func.func @block(%x: tensor<1x4x8xf32>) -> tensor<1x4x32xf32> {
  %w = graph.constant dense<0.5> : tensor<8x24xf32>
  %b = graph.constant dense<0.25> : tensor<24xf32>
  %qkv = graph.linear %x, %w bias %b : tensor<24xf32> : tensor<1x4x8xf32>, tensor<8x24xf32> -> tensor<1x4x24xf32>
  %q, %k, %v = graph.split %qkv {axis = 2 : i64, sizes = array<i64: 8, 8, 8>} : tensor<1x4x24xf32> -> tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>
  %q4 = graph.reshape %q {shape = array<i64: 1, 4, 2, 4>} : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %k4 = graph.reshape %k {shape = array<i64: 1, 4, 2, 4>} : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %v4 = graph.reshape %v {shape = array<i64: 1, 4, 2, 4>} : tensor<1x4x8xf32> -> tensor<1x4x2x4xf32>
  %qt = graph.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %kt = graph.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %vt = graph.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32> -> tensor<1x2x4x4xf32>
  %a = graph.attention %qt, %kt, %vt {scale = 0.5 : f32, causal = true} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %at = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32> -> tensor<1x4x2x4xf32>
  %ar = graph.reshape %at {shape = array<i64: 1, 4, 8>} : tensor<1x4x2x4xf32> -> tensor<1x4x8xf32>
  %w1 = graph.constant dense<0.125> : tensor<8x32xf32>
  %h = graph.linear %ar, %w1 {activation = "gelu"} : tensor<1x4x8xf32>, tensor<8x32xf32> -> tensor<1x4x32xf32>
  return %h : tensor<1x4x32xf32>
}
