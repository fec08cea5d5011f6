// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron=tp=2 | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron=tp=3 | FileCheck %s --check-prefix=THREE
// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron="tp=2 sp=true" | FileCheck %s --check-prefix=SP
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

// -----

// Sequence parallelism: a norm's input is split along its token dim, the
// largest leading one (the sequence of [batch, seq, hidden]; the first dim
// of a [seq, batch, hidden] stream); one tp does not divide is an error
// (seed-megatron-sp-invalid.mlir). Without sp, norms get no seed.
// SP-LABEL:  func.func @norms
// SP:        %[[A:.+]] = dist.shard %arg0 : tensor<1x4x8xf32> to #dist.sharding<@mesh, {{\[\[\], \["tp"\], \[\]\]}}>
// SP:        graph.layer_norm %[[A]]
// SP:        %[[B:.+]] = dist.shard %arg1 : tensor<6x2x8xf32> to #dist.sharding<@mesh, {{\[\["tp"\], \[\], \[\]\]}}>
// SP:        graph.rms_norm %[[B]]
// CHECK-LABEL: func.func @norms
// CHECK-NOT:   dist.shard
func.func @norms(%x: tensor<1x4x8xf32>, %y: tensor<6x2x8xf32>) -> (tensor<1x4x8xf32>, tensor<6x2x8xf32>) {
  %s = graph.constant dense<1.0> : tensor<8xf32>
  %n, %m, %i = graph.layer_norm %x, %s {axis = 2 : i64} : tensor<1x4x8xf32>, tensor<8xf32> -> tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>
  %r = graph.rms_norm %y, %s {axis = 2 : i64} : tensor<6x2x8xf32>, tensor<8xf32>
  return %n, %r : tensor<1x4x8xf32>, tensor<6x2x8xf32>
}

// -----

// The LM head: a projection by a constant returned directly, or through a
// widening cast (fp16 exports return f32 logits), is column-parallel; the
// cast's input is seeded whole, so the logits are gathered in f16 before
// it. A projection whose result goes anywhere else is not a head.
// CHECK-LABEL: func.func @heads
// CHECK:       %[[W:.+]] = dist.shard %{{.*}} : tensor<8x16xf16> to #dist.sharding<@mesh, {{\[\[\], \["tp"\]\]}}>
// CHECK:       %[[L:.+]] = graph.matmul %arg0, %[[W]]
// CHECK:       %[[R:.+]] = dist.shard %[[L]] : tensor<1x4x16xf16> to #dist.sharding<@mesh, {{\[\[\], \[\], \[\]\]}}>
// CHECK:       graph.cast %[[R]] {to = f32}
// CHECK:       %[[W2:.+]] = dist.shard %{{.*}} : tensor<8x16xf32> to #dist.sharding<@mesh, {{\[\[\], \["tp"\]\]}}>
// CHECK:       graph.matmul %arg1, %[[W2]]
// CHECK-NOT:   dist.shard
// CHECK:       return
// THREE-LABEL: func.func @heads
// THREE-NOT:   dist.shard
func.func @heads(%x: tensor<1x4x8xf16>, %y: tensor<1x4x8xf32>) -> (tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x16xf16>
  %l = graph.matmul %x, %w : tensor<1x4x8xf16>, tensor<8x16xf16> -> tensor<1x4x16xf16>
  %c = graph.cast %l {to = f32} : tensor<1x4x16xf16> -> tensor<1x4x16xf32>
  %w2 = graph.constant dense<0.25> : tensor<8x16xf32>
  %l2 = graph.matmul %y, %w2 : tensor<1x4x8xf32>, tensor<8x16xf32> -> tensor<1x4x16xf32>
  %w3 = graph.constant dense<0.125> : tensor<8x16xf32>
  %l3 = graph.matmul %y, %w3 : tensor<1x4x8xf32>, tensor<8x16xf32> -> tensor<1x4x16xf32>
  %e = graph.exp %l3 : tensor<1x4x16xf32>
  return %c, %l2, %e : tensor<1x4x16xf32>, tensor<1x4x16xf32>, tensor<1x4x16xf32>
}

// -----

// A vocabulary that tp does not divide (5 rows; 5 columns of the head) is
// padded with zeros to the next multiple, 6 at tp=2 and at tp=3. The
// padded constants are windows of the original data (graph.source: the
// partitioner cuts each rank's block from it; its lookup checks and wraps
// ids by the 5 real rows, dist.padded_from); the head's padded logits are sliced
// back to 5 (where partitioning gathers them).
// CHECK-LABEL: func.func @padded
// CHECK:       %[[T:.+]] = graph.constant {dist.padded_from = array<i64: 5, 4>, graph.source = dense<{{.*}}> : tensor<5x4xf32>} dense_resource<padded> : tensor<6x4xf32>
// CHECK:       %[[S:.+]] = dist.shard %[[T]] : tensor<6x4xf32> to #dist.sharding<@mesh, {{\[\["tp"\], \[\]\]}}>
// CHECK:       %[[ROWS:.+]] = graph.gather %[[S]], %arg0
// CHECK:       %[[H:.+]] = graph.constant {dist.padded_from = array<i64: 4, 5>, graph.source = dense<{{.*}}> : tensor<4x5xf32>} dense_resource<padded{{.*}}> : tensor<4x6xf32>
// CHECK:       %[[HS:.+]] = dist.shard %[[H]] : tensor<4x6xf32> to #dist.sharding<@mesh, {{\[\[\], \["tp"\]\]}}>
// CHECK:       %[[L:.+]] = graph.matmul %[[ROWS]], %[[HS]] : tensor<1x3x4xf32>, tensor<4x6xf32> -> tensor<1x3x6xf32>
// CHECK:       %[[OUT:.+]] = graph.slice %[[L]] {ends = array<i64: 1, 3, 5>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x3x6xf32> -> tensor<1x3x5xf32>
// CHECK:       return %[[OUT]]
// THREE-LABEL: func.func @padded
// THREE:       dist.padded_from = array<i64: 5, 4>, graph.source = {{.*}} dense_resource<padded> : tensor<6x4xf32>
// THREE:       dist.shard %{{.*}} : tensor<6x4xf32> to #dist.sharding<@mesh, {{\[\["tp"\], \[\]\]}}>
// THREE:       dist.padded_from = array<i64: 4, 5>, graph.source = {{.*}} dense_resource<padded{{.*}}> : tensor<4x6xf32>
// THREE:       graph.slice {{.*}} : tensor<1x3x6xf32> -> tensor<1x3x5xf32>
func.func @padded(%ids: tensor<1x3xi64>) -> tensor<1x3x5xf32> {
  %t = graph.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0]]> : tensor<5x4xf32>
  %rows = graph.gather %t, %ids {axis = 0 : i64} : tensor<5x4xf32>, tensor<1x3xi64> -> tensor<1x3x4xf32>
  %h = graph.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 6.0]]> : tensor<4x5xf32>
  %l = graph.matmul %rows, %h : tensor<1x3x4xf32>, tensor<4x5xf32> -> tensor<1x3x5xf32>
  return %l : tensor<1x3x5xf32>
}
