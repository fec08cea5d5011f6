// RUN: %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune-lossless))' | FileCheck %s
// graph-prune-lossless: MLP channels read through zero rows go; channels
// whose first-projection column is zero are the constant act(b1[j]), added
// to the second bias; heads with zero output rows or zero values go.

// Channel 1: zero column, relu(1.0) = 1 times row [3, 4] joins the bias;
// channel 2: zero row; channel 3: zero column, relu(-1) = 0. Channel 0
// stays.
// CHECK-LABEL: func.func @mlp(%arg0: tensor<3x2xf32>) -> tensor<3x2xf32> attributes {graph.pruned = {conv_channels = 0 : i64, experts = 0 : i64, heads = 0 : i64, mlp_channels = 3 : i64}}
// CHECK:       %[[W1:.*]] = graph.constant dense<{{\[\[}}1.000000e+00], [3.000000e+00]]> : tensor<2x1xf32>
// CHECK:       %[[B1:.*]] = graph.constant dense<5.000000e-01> : tensor<1xf32>
// CHECK:       %[[H:.*]] = graph.linear %arg0, %[[W1]] bias %[[B1]] : tensor<1xf32> {activation = "relu"} : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
// CHECK:       %[[W2:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
// CHECK:       %[[B2:.*]] = graph.constant dense<[1.300000e+01, 2.400000e+01]> : tensor<2xf32>
// CHECK:       graph.linear %[[H]], %[[W2]] bias %[[B2]] : tensor<2xf32> : tensor<3x1xf32>, tensor<1x2xf32> -> tensor<3x2xf32>
func.func @mlp(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w1 = graph.constant dense<[[1.0, 0.0, 2.0, 0.0], [3.0, 0.0, 4.0, 0.0]]> : tensor<2x4xf32>
  %b1 = graph.constant dense<[0.5, 1.0, 0.25, -1.0]> : tensor<4xf32>
  %w2 = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [5.0, 6.0]]> : tensor<4x2xf32>
  %b2 = graph.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %h = graph.linear %x, %w1 bias %b1 : tensor<4xf32> {activation = "relu"} : tensor<3x2xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
  %y = graph.linear %h, %w2 bias %b2 : tensor<2xf32> : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Nothing is zero: nothing changes; a second projection without a bias
// gets none.
// CHECK-LABEL: func.func @dense
// CHECK:       tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
func.func @dense(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w1 = graph.constant dense<[[1.0, 1.0, 2.0, 0.0], [3.0, 0.0, 4.0, 1.0]]> : tensor<2x4xf32>
  %w2 = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [0.0, 1.0], [5.0, 6.0]]> : tensor<4x2xf32>
  %h = graph.linear %x, %w1 {activation = "gelu"} : tensor<3x2xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
  %y = graph.linear %h, %w2 : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Four heads of two: head 1's output rows are zero, head 2's values and
// value bias are zero, head 3 has zero keys (attention stays, uniform),
// head 0 is whole. Heads 0 and 3 stay; a zero query or key keeps a head.
// CHECK-LABEL: func.func @heads
// CHECK-COUNT-3: graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<4xf32> : tensor<1x3x8xf32>, tensor<8x4xf32> -> tensor<1x3x4xf32>
// CHECK:       graph.reshape %{{.*}} {shape = array<i64: 1, 3, 2, 2>}
// CHECK:       graph.attention {{.*}} : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x1x1x3xf32> -> tensor<1x2x3x2xf32>
// CHECK:       graph.reshape %{{.*}} {shape = array<i64: 1, 3, 4>} : tensor<1x3x2x2xf32> -> tensor<1x3x4xf32>
// CHECK:       graph.linear %{{.*}}, %{{.*}} residual %arg0 : tensor<1x3x8xf32> : tensor<1x3x4xf32>, tensor<4x8xf32> -> tensor<1x3x8xf32>
func.func @heads(%x: tensor<1x3x8xf32>, %mask: tensor<1x1x1x3xf32>) -> tensor<1x3x8xf32> {
  %wq = graph.constant dense<0.5> : tensor<8x8xf32>
  %wk = graph.constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %wv = graph.constant dense<[[1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 7.0, 8.0]]> : tensor<8x8xf32>
  %bq = graph.constant dense<0.25> : tensor<8xf32>
  %bv = graph.constant dense<[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]> : tensor<8xf32>
  %wo = graph.constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<8x8xf32>
  %q = graph.linear %x, %wq bias %bq : tensor<8xf32> : tensor<1x3x8xf32>, tensor<8x8xf32> -> tensor<1x3x8xf32>
  %k = graph.linear %x, %wk bias %bq : tensor<8xf32> : tensor<1x3x8xf32>, tensor<8x8xf32> -> tensor<1x3x8xf32>
  %v = graph.linear %x, %wv bias %bv : tensor<8xf32> : tensor<1x3x8xf32>, tensor<8x8xf32> -> tensor<1x3x8xf32>
  %q4 = graph.reshape %q {shape = array<i64: 1, 3, 4, 2>} : tensor<1x3x8xf32> -> tensor<1x3x4x2xf32>
  %k4 = graph.reshape %k {shape = array<i64: 1, 3, 4, 2>} : tensor<1x3x8xf32> -> tensor<1x3x4x2xf32>
  %v4 = graph.reshape %v {shape = array<i64: 1, 3, 4, 2>} : tensor<1x3x8xf32> -> tensor<1x3x4x2xf32>
  %qt = graph.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %kt = graph.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %vt = graph.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %a = graph.attention %qt, %kt, %vt mask %mask {scale = 0.707 : f32} : tensor<1x4x3x2xf32>, tensor<1x4x3x2xf32>, tensor<1x4x3x2xf32>, tensor<1x1x1x3xf32> -> tensor<1x4x3x2xf32>
  %at = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x2xf32> -> tensor<1x3x4x2xf32>
  %ar = graph.reshape %at {shape = array<i64: 1, 3, 8>} : tensor<1x3x4x2xf32> -> tensor<1x3x8xf32>
  %o = graph.linear %ar, %wo residual %x : tensor<1x3x8xf32> : tensor<1x3x8xf32>, tensor<8x8xf32> -> tensor<1x3x8xf32>
  return %o : tensor<1x3x8xf32>
}

// -----

// A gated (SwiGLU) MLP: channel 0 has a zero gate column (silu(0) = 0),
// channel 1 a zero up column, channel 2 a zero down row; channel 3 stays,
// and gate, up, the swiglu and down shrink together.
// CHECK-LABEL: func.func @gated
// CHECK:       %[[G:.*]] = graph.linear %arg0, %{{.*}} : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
// CHECK:       %[[U:.*]] = graph.linear %arg0, %{{.*}} : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
// CHECK:       %[[S:.*]] = graph.swiglu %[[G]], %[[U]] : tensor<3x1xf32>
// CHECK:       graph.linear %[[S]], %{{.*}} : tensor<3x1xf32>, tensor<1x2xf32> -> tensor<3x2xf32>
func.func @gated(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wg = graph.constant dense<[[0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0]]> : tensor<2x4xf32>
  %wu = graph.constant dense<[[1.0, 0.0, 2.0, 3.0], [1.0, 0.0, 2.0, 3.0]]> : tensor<2x4xf32>
  %wd = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [5.0, 6.0]]> : tensor<4x2xf32>
  %g = graph.linear %x, %wg : tensor<3x2xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
  %u = graph.linear %x, %wu : tensor<3x2xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
  %s = graph.swiglu %g, %u : tensor<3x4xf32>
  %y = graph.linear %s, %wd : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// A fused QKV projection split into q, k and v (GPT-2's): head 1's value
// columns (16 + 2..4) are zero; its q, k and v columns go from the fused
// weight, and the split's parts shrink.
// CHECK-LABEL: func.func @fused
// CHECK:       graph.linear %arg0, %{{.*}} : tensor<1x3x8xf32>, tensor<8x18xf32> -> tensor<1x3x18xf32>
// CHECK:       graph.split %{{.*}} {axis = 2 : i64, sizes = array<i64: 6, 6, 6>} : tensor<1x3x18xf32> -> tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>
// CHECK:       graph.attention {{.*}} -> tensor<1x3x3x2xf32>
// CHECK:       graph.linear %{{.*}}, %{{.*}} : tensor<1x3x6xf32>, tensor<6x8xf32> -> tensor<1x3x8xf32>
func.func @fused(%x: tensor<1x3x8xf32>) -> tensor<1x3x8xf32> {
  %w = graph.constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<8x24xf32>
  %wo = graph.constant dense<0.5> : tensor<8x8xf32>
  %qkv = graph.linear %x, %w : tensor<1x3x8xf32>, tensor<8x24xf32> -> tensor<1x3x24xf32>
  %q, %k, %v = graph.split %qkv {axis = 2 : i64, sizes = array<i64: 8, 8, 8>} : tensor<1x3x24xf32> -> tensor<1x3x8xf32>, tensor<1x3x8xf32>, tensor<1x3x8xf32>
  %q4 = graph.reshape %q {shape = array<i64: 1, 3, 4, 2>} : tensor<1x3x8xf32> -> tensor<1x3x4x2xf32>
  %k4 = graph.reshape %k {shape = array<i64: 1, 3, 4, 2>} : tensor<1x3x8xf32> -> tensor<1x3x4x2xf32>
  %v4 = graph.reshape %v {shape = array<i64: 1, 3, 4, 2>} : tensor<1x3x8xf32> -> tensor<1x3x4x2xf32>
  %qt = graph.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %kt = graph.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %vt = graph.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x2xf32> -> tensor<1x4x3x2xf32>
  %a = graph.attention %qt, %kt, %vt {scale = 0.707 : f32, causal = true} : tensor<1x4x3x2xf32>, tensor<1x4x3x2xf32>, tensor<1x4x3x2xf32> -> tensor<1x4x3x2xf32>
  %at = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x2xf32> -> tensor<1x3x4x2xf32>
  %ar = graph.reshape %at {shape = array<i64: 1, 3, 8>} : tensor<1x3x4x2xf32> -> tensor<1x3x8xf32>
  %o = graph.linear %ar, %wo : tensor<1x3x8xf32>, tensor<8x8xf32> -> tensor<1x3x8xf32>
  return %o : tensor<1x3x8xf32>
}

// -----

// Two convolutions: channel 2 is read through zero filters of the second;
// channel 1 has zero filters, so it is its bias 2.0 everywhere, and the
// unpadded 1x1 second convolution adds 2.0 times its filters [3, 4] to its
// bias. Channel 0 stays.
// CHECK-LABEL: func.func @convs
// CHECK:       %[[C1:.*]] = graph.conv %arg0, %{{.*}}, %{{.*}} {{.*}} : tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>, tensor<1xf32> -> tensor<1x1x4x4xf32>
// CHECK:       %[[B2:.*]] = graph.constant dense<[6.500000e+00, 8.500000e+00]> : tensor<2xf32>
// CHECK:       graph.conv %[[C1]], %{{.*}}, %[[B2]] {{.*}} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
func.func @convs(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w1 = graph.constant dense<[[[[1.0]], [[2.0]]], [[[0.0]], [[0.0]]], [[[3.0]], [[4.0]]]]> : tensor<3x2x1x1xf32>
  %b1 = graph.constant dense<[0.0, 2.0, 1.0]> : tensor<3xf32>
  %w2 = graph.constant dense<[[[[1.0]], [[3.0]], [[0.0]]], [[[2.0]], [[4.0]], [[0.0]]]]> : tensor<2x3x1x1xf32>
  %b2 = graph.constant dense<0.5> : tensor<2xf32>
  %h = graph.conv %x, %w1, %b1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf32> -> tensor<1x3x4x4xf32>
  %y = graph.conv %h, %w2, %b2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
