// RUN: %shardc-opt %s --split-input-file --dist-propagate | FileCheck %s
// dist-propagate: shardings flow from the seeds (dist.shard) through every
// op's factor rule, forward and backward.

// The Megatron MLP: a column-parallel first weight and a row-parallel
// second one. The hidden activation is split over tp; the second matmul's
// contraction takes tp from both operands, so its result holds partial sums
// (one all-reduce); the residual add after it is replicated.
// CHECK-LABEL: func.func @mlp
// CHECK:       graph.matmul {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \[\], \["tp"\]\]}}>]
// CHECK:       graph.gelu {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \[\], \["tp"\]\]}}>]
// CHECK:       graph.matmul {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \[\], \[\]\], partial = \["tp"\]}}>]
// CHECK:       graph.add {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \[\], \[\]\]}}>]
dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @mlp(%x: tensor<2x8x64xf32>, %w1: tensor<64x256xf32>, %w2: tensor<256x64xf32>) -> tensor<2x8x64xf32> {
  %a = dist.shard %w1 : tensor<64x256xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %b = dist.shard %w2 : tensor<256x64xf32> to #dist.sharding<@mesh, [["tp"], []]>
  %h = graph.matmul %x, %a : tensor<2x8x64xf32>, tensor<64x256xf32> -> tensor<2x8x256xf32>
  %g = graph.gelu %h : tensor<2x8x256xf32>
  %y = graph.matmul %g, %b : tensor<2x8x256xf32>, tensor<256x64xf32> -> tensor<2x8x64xf32>
  %z = graph.add %y, %x : tensor<2x8x64xf32>, tensor<2x8x64xf32> -> tensor<2x8x64xf32>
  return %z : tensor<2x8x64xf32>
}

// -----

// Heads: attention over [B, H, S, D] split on H keeps the heads split; the
// merge of heads ([B, S, H, D] -> [B, S, H*D]) carries the split onto the
// major factor of the merged dim, and the out-projection's contraction
// makes partial sums.
// CHECK-LABEL: func.func @heads
// CHECK:       graph.attention {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \["tp"\], \[\], \[\]\]}}>]
// CHECK:       graph.transpose {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \[\], \["tp"\], \[\]\]}}>]
// CHECK:       graph.reshape {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \[\], \["tp"\]\]}}>]
// CHECK:       graph.matmul {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \[\], \[\]\], partial = \["tp"\]}}>]
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @heads(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %w: tensor<64x64xf32>) -> tensor<1x8x64xf32> {
  %qs = dist.shard %q : tensor<1x4x8x16xf32> to #dist.sharding<@mesh, [[], ["tp"], [], []]>
  %o = graph.attention %qs, %k, %v {scale = 0.25 : f32} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  %t = graph.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x8x16xf32> -> tensor<1x8x4x16xf32>
  %r = graph.reshape %t {shape = array<i64: 1, 8, 64>} : tensor<1x8x4x16xf32> -> tensor<1x8x64xf32>
  %y = graph.matmul %r, %w : tensor<1x8x64xf32>, tensor<64x64xf32> -> tensor<1x8x64xf32>
  return %y : tensor<1x8x64xf32>
}

// -----

// Backward: a seed on the last value reaches the function's argument
// through an elementwise chain.
// CHECK-LABEL: func.func @backward
// CHECK-SAME:    dist.sharding = #dist.sharding<@mesh, {{\[\["dp"\], \[\]\]}}>
// CHECK:       graph.exp {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\["dp"\], \[\]\]}}>]
// CHECK:       graph.tanh {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\["dp"\], \[\]\]}}>]
dist.mesh @mesh axes = ["dp"] shape = [2]
func.func @backward(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = graph.exp %x : tensor<4x6xf32>
  %1 = graph.tanh %0 : tensor<4x6xf32>
  %2 = dist.shard %1 : tensor<4x6xf32> to #dist.sharding<@mesh, [["dp"], []]>
  return %2 : tensor<4x6xf32>
}

// -----

// A softmax over a sharded axis keeps that axis whole (the other stays
// split); a reduce_mean over one reduces locally and holds partial values
// of kind mean ((sum, count)) over it.
// CHECK-LABEL: func.func @needs_replication
// CHECK:       graph.softmax {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\["x"\], \[\]\]}}>]
// CHECK:       graph.reduce_mean {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \["y"\]\]}}, partial = mean ["x"]>]
dist.mesh @mesh axes = ["x", "y"] shape = [2, 2]
func.func @needs_replication(%a: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<1x8xf32>) {
  %s = dist.shard %a : tensor<4x8xf32> to #dist.sharding<@mesh, [["x"], ["y"]]>
  %0 = graph.softmax %s {axis = 1 : i64} : tensor<4x8xf32>
  %1 = graph.reduce_mean %s {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<1x8xf32>
}

// -----

// Reshape factors: [2, 12] split 3 ways on dim 1 reaches [2, 3, 4]'s dim 1;
// split 4 ways it would cut across both factors, so nothing passes.
// CHECK-LABEL: func.func @reshape_factors
// CHECK:       graph.reshape {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \["three"\], \[\]\]}}>]
// CHECK:       graph.reshape {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\], \[\], \[\]\]}}>]
dist.mesh @mesh axes = ["three", "four"] shape = [3, 4]
func.func @reshape_factors(%a: tensor<2x12xf32>, %b: tensor<2x12xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %sa = dist.shard %a : tensor<2x12xf32> to #dist.sharding<@mesh, [[], ["three"]]>
  %sb = dist.shard %b : tensor<2x12xf32> to #dist.sharding<@mesh, [[], ["four"]]>
  %0 = graph.reshape %sa {shape = array<i64: 2, 3, 4>} : tensor<2x12xf32> -> tensor<2x3x4xf32>
  %1 = graph.reshape %sb {shape = array<i64: 2, 3, 4>} : tensor<2x12xf32> -> tensor<2x3x4xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Conflicts: two seeds disagree on an add's operands. The result follows
// the first (equal priority, operand order); the second keeps its own
// sharding, and partitioning will reshard it.
// CHECK-LABEL: func.func @conflict
// CHECK:       graph.add {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\["x"\], \[\]\]}}>]
dist.mesh @mesh axes = ["x", "y"] shape = [2, 2]
func.func @conflict(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %sa = dist.shard %a : tensor<4x4xf32> to #dist.sharding<@mesh, [["x"], []]>
  %sb = dist.shard %b : tensor<4x4xf32> to #dist.sharding<@mesh, [["y"], []]>
  %0 = graph.add %sa, %sb : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A split that the result's dim cannot express (it would be strided: the
// minor factor of the merged dim is split, the major one is not) does not
// pass, and an op without a rule is marked and replicated.
// CHECK-LABEL: func.func @strided
// CHECK:       graph.reshape {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[\]\]}}>]
// CHECK:       graph.reshape {{.*}}dist.no_rule
dist.mesh @mesh axes = ["three"] shape = [3]
func.func @strided(%x: tensor<2x12xf32>) -> (tensor<24xf32>, tensor<3x8xf32>) {
  %s = dist.shard %x : tensor<2x12xf32> to #dist.sharding<@mesh, [[], ["three"]]>
  %0 = graph.reshape %s {shape = array<i64: 24>} : tensor<2x12xf32> -> tensor<24xf32>
  %1 = graph.reshape %s {shape = array<i64: 3, 8>} : tensor<2x12xf32> -> tensor<3x8xf32>
  return %0, %1 : tensor<24xf32>, tensor<3x8xf32>
}
