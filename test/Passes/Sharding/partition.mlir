// RUN: %shardc-opt %s --split-input-file --dist-propagate --dist-partition | FileCheck %s
// dist-partition: one program per rank with local shapes, weights sliced at
// compile time and the collectives the layouts need.

// The Megatron MLP over 2 ranks: rank r holds columns [128r, 128r + 128) of
// w1 and the same rows of w2; the second linear's partial sums are
// all-reduced, then its bias and residual are added once.
// CHECK-LABEL: func.func @mlp_rank0
// CHECK-SAME:    attributes {kern.ranks = array<i64: 0>}
// CHECK:         %[[W1:.+]] = graph.constant dense<1.000000e+00> : tensor<4x2xf32>
// CHECK:         %[[W2:.+]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT:     dist.shardings
// CHECK:         %[[H:.+]] = graph.linear %{{.*}}, %[[W1]] {activation = "gelu"} : tensor<2x4xf32>, tensor<4x2xf32> -> tensor<2x2xf32>
// CHECK:         %[[P:.+]] = graph.linear %[[H]], %[[W2]] : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
// CHECK:         %[[S:.+]] = dist.all_reduce %[[P]] on @mesh axes = ["tp"] kind = "sum" : tensor<2x2xf32>
// CHECK:         %[[B:.+]] = graph.add %[[S]], %{{.*}}
// CHECK:         graph.add %[[B]], %{{.*}}
// CHECK-LABEL: func.func @mlp_rank1
// CHECK-SAME:    attributes {kern.ranks = array<i64: 1>}
// CHECK:         graph.constant dense<{{\[\[}}5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK:         dist.all_reduce
// CHECK-NOT:   func.func @mlp(
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @mlp(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %w1 = graph.constant dense<1.0> : tensor<4x4xf32>
  %w2 = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %b = graph.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %r = graph.constant dense<1.0> : tensor<2x2xf32>
  %ws = dist.shard %w1 : tensor<4x4xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %h = graph.linear %x, %ws {activation = "gelu"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %y = graph.linear %h, %w2 bias %b : tensor<2xf32> residual %r : tensor<2x2xf32> : tensor<2x4xf32>, tensor<4x2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The int8 Megatron MLP (graph-quantize-dynamic's form): the first layer is
// column-parallel with its weight's and column scales' columns and the
// bias; the second is row-parallel, and its int32 partial sums are exact,
// so they are all-reduced as int32 (a graph.matmul_integer without zero
// points) and scaled once after, in linear_int8's order: the column
// scales, the row scales, the bias, the residual. The ranks then compute
// the one-rank values bit for bit (f32 partials in another order would
// move the next quantization's steps).
// CHECK-LABEL: func.func @mlp_int8_rank1
// CHECK:         %[[H:.+]] = graph.linear_int8 %arg0, %{{.*}} scales %{{.*}} rows %arg1 : tensor<2x1xf32> bias %{{.*}} : tensor<2xf32> {activation = "gelu"} : tensor<2x4xi8>, tensor<4x2xi8>, tensor<2xf32> -> tensor<2x2xf32>
// CHECK:         %[[Q:.+]] = graph.quantize_linear %[[H]]
// CHECK:         %[[P:.+]] = graph.matmul_integer %[[Q]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x2xi8>, tensor<2x2xi8>, tensor<i8>, tensor<i8> -> tensor<2x2xi32>
// CHECK:         %[[S:.+]] = dist.all_reduce %[[P]] on @mesh axes = ["tp"] kind = "sum" : tensor<2x2xi32>
// CHECK:         %[[F:.+]] = graph.cast %[[S]] {to = f32} : tensor<2x2xi32> -> tensor<2x2xf32>
// CHECK:         %[[C:.+]] = graph.mul %[[F]], %{{.*}} : tensor<2x2xf32>, tensor<2xf32> -> tensor<2x2xf32>
// CHECK:         %[[R:.+]] = graph.mul %[[C]], %arg2 : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x2xf32>
// CHECK:         %[[B:.+]] = graph.add %[[R]], %{{.*}} : tensor<2x2xf32>, tensor<2xf32> -> tensor<2x2xf32>
// CHECK:         graph.add %[[B]], %arg3
// CHECK-NOT:     graph.linear_int8
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @mlp_int8(%x: tensor<2x4xi8>, %s: tensor<2x1xf32>, %s2: tensor<2x1xf32>, %r: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w1 = graph.constant dense<1> : tensor<4x4xi8>
  %c1 = graph.constant dense<0.5> : tensor<4xf32>
  %b1 = graph.constant dense<0.25> : tensor<4xf32>
  %w2 = graph.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>
  %c2 = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %b2 = graph.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %ws = dist.shard %w1 : tensor<4x4xi8> to #dist.sharding<@mesh, [[], ["tp"]]>
  %h = graph.linear_int8 %x, %ws scales %c1 rows %s : tensor<2x1xf32> bias %b1 : tensor<4xf32> {activation = "gelu"} : tensor<2x4xi8>, tensor<4x4xi8>, tensor<4xf32> -> tensor<2x4xf32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %z = graph.constant dense<0> : tensor<i8>
  %hq = graph.quantize_linear %h, %one, %z : tensor<2x4xf32>, tensor<f32>, tensor<i8> -> tensor<2x4xi8>
  %y = graph.linear_int8 %hq, %w2 scales %c2 rows %s2 : tensor<2x1xf32> bias %b2 : tensor<2xf32> residual %r : tensor<2x2xf32> : tensor<2x4xi8>, tensor<4x2xi8>, tensor<2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A result that leaves sharded is all-gathered; an argument that an op
// needs split is sliced by rank.
// CHECK-LABEL: func.func @gather_result_rank1
// CHECK:         %[[X:.+]] = graph.slice %arg0 {ends = array<i64: 4, 8>, starts = array<i64: 2, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK:         %[[E:.+]] = graph.exp %[[X]] : tensor<2x8xf32>
// CHECK:         %[[G:.+]] = dist.all_gather %[[E]] on @mesh axes = ["dp"] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK:         return %[[G]]
dist.mesh @mesh axes = ["dp"] shape = [2]
func.func @gather_result(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = dist.shard %x : tensor<4x8xf32> to #dist.sharding<@mesh, [["dp"], []]>
  %e = graph.exp %s : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// -----

// Sequence parallelism (the seeds of dist-seed-megatron sp=true): the norm
// runs on this rank's tokens; its output is all-gathered once for the
// column-parallel projection; the row-parallel projection's partial sums
// are reduce-scattered along the tokens (no all-reduce), then its bias and
// this rank's rows of the residual are added; the next norm runs on the
// shard; the result is all-gathered on the way out.
// CHECK-LABEL: func.func @sp_mlp_rank1
// CHECK:         %[[X:.+]] = graph.slice %arg0 {ends = array<i64: 4, 4>, starts = array<i64: 2, 0>, steps = array<i64: 1, 1>} : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK:         %[[N:.+]], %{{.*}}, %{{.*}} = graph.layer_norm %[[X]], %{{.*}} : tensor<2x4xf32>
// CHECK:         %[[G:.+]] = dist.all_gather %[[N]] on @mesh axes = ["tp"] dim = 0 : tensor<2x4xf32> -> tensor<4x4xf32>
// CHECK:         %[[H:.+]] = graph.linear %[[G]], %{{.*}} {activation = "gelu"} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK:         %[[P:.+]] = graph.linear %[[H]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NOT:     dist.all_reduce
// CHECK:         %[[S:.+]] = dist.reduce_scatter %[[P]] on @mesh axes = ["tp"] dim = 0 kind = "sum" : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK:         %[[B:.+]] = graph.add %[[S]], %{{.*}} : tensor<2x4xf32>, tensor<4xf32>
// CHECK:         %[[R:.+]] = graph.add %[[B]], %[[X]] : tensor<2x4xf32>, tensor<2x4xf32>
// CHECK:         %[[Z:.+]], %{{.*}}, %{{.*}} = graph.layer_norm %[[R]], %{{.*}} : tensor<2x4xf32>
// CHECK:         %[[O:.+]] = dist.all_gather %[[Z]] on @mesh axes = ["tp"] dim = 0 : tensor<2x4xf32> -> tensor<4x4xf32>
// CHECK:         return %[[O]]
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @sp_mlp(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %scale = graph.constant dense<1.0> : tensor<4xf32>
  %xs = dist.shard %x : tensor<4x4xf32> to #dist.sharding<@mesh, [["tp"], []]>
  %n, %m, %i = graph.layer_norm %xs, %scale {axis = 1 : i64} : tensor<4x4xf32>, tensor<4xf32> -> tensor<4x4xf32>, tensor<4x1xf32>, tensor<4x1xf32>
  %w1 = graph.constant dense<1.0> : tensor<4x8xf32>
  %ws = dist.shard %w1 : tensor<4x8xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %h = graph.linear %n, %ws {activation = "gelu"} : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %w2 = graph.constant dense<0.5> : tensor<8x4xf32>
  %b = graph.constant dense<0.25> : tensor<4xf32>
  %y = graph.linear %h, %w2 bias %b : tensor<4xf32> residual %x : tensor<4x4xf32> : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %ys = dist.shard %y : tensor<4x4xf32> to #dist.sharding<@mesh, [["tp"], []]>
  %z, %m2, %i2 = graph.layer_norm %ys, %scale {axis = 1 : i64} : tensor<4x4xf32>, tensor<4xf32> -> tensor<4x4xf32>, tensor<4x1xf32>, tensor<4x1xf32>
  return %z : tensor<4x4xf32>
}

// -----

// A reshape that merges [B, S] into B*S cannot carry a split of S (the
// minor factor under an unsplit major one) on the merged dim: the split is
// dropped for the whole op, which runs on whole data, and its result is
// sliced to its recorded layout after (sequence parallelism around a MoE,
// whose tokens are [B*S, H]). Before, the local reshape was given the
// split result shape and the whole operand.
// CHECK-LABEL: func.func @merge_tokens_rank1
// CHECK:         %[[E:.+]] = graph.exp %arg0 : tensor<16x4xf32>
// CHECK-NEXT:    %[[R:.+]] = graph.reshape %[[E]] {shape = array<i64: 2, 8, 4>} : tensor<16x4xf32> -> tensor<2x8x4xf32>
// CHECK-NEXT:    %[[S:.+]] = graph.slice %[[R]] {ends = array<i64: 2, 8, 4>, starts = array<i64: 0, 4, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x8x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT:    graph.neg %[[S]] : tensor<2x4x4xf32>
// The other way, [B, S] with S split merged into B*S: S is gathered first.
// CHECK-LABEL: func.func @split_tokens_rank1
// CHECK:         %[[N:.+]] = graph.neg %{{.*}} : tensor<2x4x4xf32>
// CHECK-NEXT:    %[[G:.+]] = dist.all_gather %[[N]] on @mesh axes = ["tp"] dim = 1 : tensor<2x4x4xf32> -> tensor<2x8x4xf32>
// CHECK-NEXT:    graph.reshape %[[G]] {shape = array<i64: 16, 4>} : tensor<2x8x4xf32> -> tensor<16x4xf32>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @merge_tokens(%x: tensor<16x4xf32>) -> tensor<2x8x4xf32> {
  %e = graph.exp %x : tensor<16x4xf32>
  %r = graph.reshape %e {shape = array<i64: 2, 8, 4>} : tensor<16x4xf32> -> tensor<2x8x4xf32>
  %s = dist.shard %r : tensor<2x8x4xf32> to #dist.sharding<@mesh, [[], ["tp"], []]>
  %n = graph.neg %s : tensor<2x8x4xf32>
  return %n : tensor<2x8x4xf32>
}
func.func @split_tokens(%x: tensor<2x8x4xf32>) -> tensor<16x4xf32> {
  %s = dist.shard %x : tensor<2x8x4xf32> to #dist.sharding<@mesh, [[], ["tp"], []]>
  %n = graph.neg %s : tensor<2x8x4xf32>
  %r = graph.reshape %n {shape = array<i64: 16, 4>} : tensor<2x8x4xf32> -> tensor<16x4xf32>
  %e = graph.exp %r : tensor<16x4xf32>
  return %e : tensor<16x4xf32>
}

// -----

// A padded vocabulary (dist-seed-megatron): each rank's block is cut from
// the window's source, zeros where it passes the source's end (small
// blocks are copied; from 1 MiB a block is a window too). Rank 1
// holds the table's row 2 and a zero row, and the head's column 2 and a
// zero column; the padded logits are gathered, then sliced back to 3.
// CHECK-LABEL: func.func @padded_rank0
// CHECK:         graph.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00]]> : tensor<2x2xf32>
// CHECK:         graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [4.000000e+00, 5.000000e+00]]> : tensor<2x2xf32>
// CHECK-LABEL: func.func @padded_rank1
// CHECK:         graph.constant dense<{{\[\[}}4.000000e+00, 5.000000e+00], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
// CHECK:         graph.constant dense<{{\[\[}}3.000000e+00, 0.000000e+00], [6.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
// CHECK:         %[[G:.+]] = dist.all_gather %{{.*}} on @mesh axes = ["tp"] dim = 1 : tensor<1x2xf32> -> tensor<1x4xf32>
// CHECK:         graph.slice %[[G]] {ends = array<i64: 1, 3>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<1x4xf32> -> tensor<1x3xf32>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @padded(%ids: tensor<1xi64>) -> tensor<1x3xf32> {
  %t = graph.constant {graph.source = dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf32>, dist.padded_from = array<i64: 3, 2>} dense_resource<padded> : tensor<4x2xf32>
  %ts = dist.shard %t : tensor<4x2xf32> to #dist.sharding<@mesh, [["tp"], []]>
  %rows = graph.gather %ts, %ids {axis = 0 : i64} : tensor<4x2xf32>, tensor<1xi64> -> tensor<1x2xf32>
  %h = graph.constant {graph.source = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>, dist.padded_from = array<i64: 2, 3>} dense_resource<padded_1> : tensor<2x4xf32>
  %hs = dist.shard %h : tensor<2x4xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %l = graph.matmul %rows, %hs : tensor<1x2xf32>, tensor<2x4xf32> -> tensor<1x4xf32>
  %o = graph.slice %l {ends = array<i64: 1, 3>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<1x4xf32> -> tensor<1x3xf32>
  return %o : tensor<1x3xf32>
}

// -----

// A mean over a split dim (ReduceMeanOp's own rewrite, beside its rule):
// each rank sums its half, the sums are all-reduced, and the total is
// divided by the whole count (8), not the rank's (4).
// CHECK-LABEL: func.func @mean_rank0
// CHECK:         %[[S:.+]] = graph.reduce_sum %{{.*}} {axes = array<i64: 1>} : tensor<2x4xf32> -> tensor<2x1xf32>
// CHECK:         %[[R:.+]] = dist.all_reduce %[[S]] on @mesh axes = ["tp"] kind = "sum" : tensor<2x1xf32>
// CHECK:         %[[N:.+]] = graph.constant dense<8.000000e+00> : tensor<f32>
// CHECK:         graph.div %[[R]], %[[N]]
// CHECK-LABEL: func.func @mean_rank1
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @mean(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %s = dist.shard %x : tensor<2x8xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %m = graph.reduce_mean %s {axes = array<i64: 1>} : tensor<2x8xf32> -> tensor<2x1xf32>
  return %m : tensor<2x1xf32>
}

// -----

// A depthwise convolution with its channels split (ConvOp's own rewrite):
// each rank convolves its 2 of the 4 channels, so its local op has 2
// groups and needs no reduction (the all-gather is the function's result
// leaving whole).
// CHECK-LABEL: func.func @depthwise_rank0
// CHECK:         graph.conv {{.*}}group = 2 : i64{{.*}} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x4xf32>
// CHECK-NOT:     dist.all_reduce
// CHECK-LABEL: func.func @depthwise_rank1
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @depthwise(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = graph.constant dense<1.0> : tensor<4x1x3x3xf32>
  %ws = dist.shard %w : tensor<4x1x3x3xf32> to #dist.sharding<@mesh, [["tp"], [], [], []]>
  %y = graph.conv %x, %ws {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 4 : i64} : tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// An int8 convolution split on its output channels (ConvInt8Op's own
// rewrite): each rank convolves the whole input with its 2 of the 4
// filters and keeps its 2 of the per-channel scales (rank 0 the first two,
// rank 1 the last two); the run-time scale and zero point stay whole.
// CHECK-LABEL: func.func @conv_int8_rank0
// CHECK:         graph.conv_int8 {{.*}} dynamic {{.*}}scales = array<f32: 1.000000e+00, 2.000000e+00>{{.*}} : tensor<1x2x4x4xui8>, tensor<2x2x3x3xi8> -> tensor<1x2x4x4xf32>
// CHECK-NOT:     dist.all_reduce
// CHECK-LABEL: func.func @conv_int8_rank1
// CHECK:         graph.conv_int8 {{.*}}scales = array<f32: 3.000000e+00, 4.000000e+00>{{.*}} -> tensor<1x2x4x4xf32>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @conv_int8(%x: tensor<1x2x4x4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x4x4x4xf32> {
  %w = graph.constant dense<1> : tensor<4x2x3x3xi8>
  %ws = dist.shard %w : tensor<4x2x3x3xi8> to #dist.sharding<@mesh, [["tp"], [], [], []]>
  %b = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = graph.conv_int8 %x, %ws bias %b : tensor<4xf32> dynamic %s, %z : tensor<f32>, tensor<ui8> {activation = "relu", dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, scales = array<f32: 1.0, 2.0, 3.0, 4.0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xui8>, tensor<4x2x3x3xi8> -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
