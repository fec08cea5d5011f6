// RUN: %shardc-opt %s --dist-seed-megatron=tp=2 | FileCheck %s
// RUN: %shardc-opt %s --dist-seed-megatron="tp=2 sp=true whole-embedding=true replicated-layers=1" | FileCheck %s --check-prefix=LAYERS
// RUN: %shardc-opt %s --dist-seed-megatron="tp=2 whole-head=true replicated-layers=0,1" | FileCheck %s --check-prefix=NONE
// RUN: not %shardc-opt %s --dist-seed-megatron="tp=2 replicated-layers=2" 2>&1 | FileCheck %s --check-prefix=BAD
// dist-seed-megatron's per-layer strategies (the planner's plan.embedding,
// plan.head and plan.replicated_layers; seed-megatron.mlir has the rest).
//
// Layer i is the i-th attention; the MLP after it and
// the norms before each attention or MLP belong to it. Megatron's seeds
// (CHECK) split the embedding by rows, both layers and the head; LAYERS
// leaves the embedding whole and layer 1 (its norms, attention and MLP)
// unseeded; NONE seeds nothing but the embedding.
// CHECK-LABEL: func.func @layers
// CHECK:       dist.shard %{{.*}} : tensor<16x8xf32> to #dist.sharding<@mesh, {{\[\["tp"\], \[\]\]}}>
// CHECK-COUNT-3: dist.shard {{.*}} : tensor<1x2x4x4xf32>
// CHECK:       graph.attention
// CHECK:       dist.shard %{{.*}} : tensor<8x32xf32>
// CHECK-COUNT-3: dist.shard {{.*}} : tensor<1x2x4x4xf32>
// CHECK:       graph.attention
// CHECK:       dist.shard %{{.*}} : tensor<8x32xf32>
// CHECK:       dist.shard %{{.*}} : tensor<8x16xf32>
// CHECK:       graph.matmul
// LAYERS-LABEL: func.func @layers
// LAYERS-NOT:  dist.shard %{{.*}} : tensor<16x8xf32>
// LAYERS:      dist.shard %{{.*}} : tensor<1x4x8xf32> to #dist.sharding<@mesh, {{\[\[\], \["tp"\], \[\]\]}}>
// LAYERS:      graph.layer_norm
// LAYERS-COUNT-3: dist.shard {{.*}} : tensor<1x2x4x4xf32>
// LAYERS:      graph.attention
// LAYERS:      dist.shard %{{.*}} : tensor<1x4x8xf32>
// LAYERS:      graph.layer_norm
// LAYERS:      dist.shard %{{.*}} : tensor<8x32xf32>
// LAYERS-NOT:  = dist.shard
// LAYERS:      graph.attention
// LAYERS-NOT:  = dist.shard
// LAYERS:      graph.linear {{.*}}activation = "gelu"
// LAYERS:      dist.shard %{{.*}} : tensor<8x16xf32>
// LAYERS:      graph.matmul
// NONE-LABEL:  func.func @layers
// NONE:        dist.shard %{{.*}} : tensor<16x8xf32>
// NONE-NOT:    = dist.shard
// NONE:        return
// BAD: error: dist-seed-megatron: replicated layer 2 is not one of the model's 2 attention layers
func.func @layers(%ids: tensor<1x4xi64>) -> tensor<1x4x16xf32> {
  %table = graph.constant dense<0.5> : tensor<16x8xf32>
  %e = graph.gather %table, %ids {axis = 0 : i64} : tensor<16x8xf32>, tensor<1x4xi64> -> tensor<1x4x8xf32>
  %s = graph.constant dense<1.0> : tensor<8xf32>
  %w1 = graph.constant dense<0.125> : tensor<8x32xf32>
  %w2 = graph.constant dense<0.25> : tensor<32x8xf32>
  %n0, %m0, %i0 = graph.layer_norm %e, %s {axis = 2 : i64} : tensor<1x4x8xf32>, tensor<8xf32> -> tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>
  %q0 = graph.reshape %n0 {shape = array<i64: 1, 2, 4, 4>} : tensor<1x4x8xf32> -> tensor<1x2x4x4xf32>
  %a0 = graph.attention %q0, %q0, %q0 {scale = 0.5 : f32, causal = true} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %r0 = graph.reshape %a0 {shape = array<i64: 1, 4, 8>} : tensor<1x2x4x4xf32> -> tensor<1x4x8xf32>
  %p0, %pm0, %pi0 = graph.layer_norm %r0, %s {axis = 2 : i64} : tensor<1x4x8xf32>, tensor<8xf32> -> tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>
  %h0 = graph.linear %p0, %w1 {activation = "gelu"} : tensor<1x4x8xf32>, tensor<8x32xf32> -> tensor<1x4x32xf32>
  %o0 = graph.matmul %h0, %w2 : tensor<1x4x32xf32>, tensor<32x8xf32> -> tensor<1x4x8xf32>
  %n1, %m1, %i1 = graph.layer_norm %o0, %s {axis = 2 : i64} : tensor<1x4x8xf32>, tensor<8xf32> -> tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>
  %q1 = graph.reshape %n1 {shape = array<i64: 1, 2, 4, 4>} : tensor<1x4x8xf32> -> tensor<1x2x4x4xf32>
  %a1 = graph.attention %q1, %q1, %q1 {scale = 0.5 : f32, causal = true} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %r1 = graph.reshape %a1 {shape = array<i64: 1, 4, 8>} : tensor<1x2x4x4xf32> -> tensor<1x4x8xf32>
  %p1, %pm1, %pi1 = graph.layer_norm %r1, %s {axis = 2 : i64} : tensor<1x4x8xf32>, tensor<8xf32> -> tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>
  %h1 = graph.linear %p1, %w1 {activation = "gelu"} : tensor<1x4x8xf32>, tensor<8x32xf32> -> tensor<1x4x32xf32>
  %o1 = graph.matmul %h1, %w2 : tensor<1x4x32xf32>, tensor<32x8xf32> -> tensor<1x4x8xf32>
  %wh = graph.constant dense<0.5> : tensor<8x16xf32>
  %logits = graph.matmul %o1, %wh : tensor<1x4x8xf32>, tensor<8x16xf32> -> tensor<1x4x16xf32>
  return %logits : tensor<1x4x16xf32>
}
