// RUN: %python %S/Inputs/conv_stats.py %t
// RUN: not %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune{stats=%t/stats.json conv=0.25 conv-multiple=1}))' 2>&1 | FileCheck %s
// RUN: not %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune{stats=%t/stats.json conv=0.25 conv-multiple=1}))' 2>&1 | FileCheck %s --check-prefix=NOCHAIN
// graph-prune conv=R: the channels of a chain from a group-1 convolution,
// through a scalar product and a depthwise convolution, into a 1x1
// convolution. Channel 2 of the last convolution's input never fluctuates
// (conv_stats.py): it goes from the first convolution's filters and bias,
// from the depthwise filters and bias (group 4 -> 3) and from the last
// convolution's input slices, and 1.5 times its slice moves into that
// convolution's bias (10 + 1.5 * 3, 20 + 1.5 * 7).

// CHECK:       remark: graph-prune: removed 0 MLP channels, 0 attention heads and 1 convolution channels
// CHECK-LABEL: func.func @chain
// CHECK:       %[[W1:.*]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}7.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<3x2x1x1xf32>
// CHECK:       %[[B1:.*]] = graph.constant dense<[1.000000e-01, 2.000000e-01, 4.000000e-01]> : tensor<3xf32>
// CHECK:       %[[C1:.*]] = graph.conv %arg0, %[[W1]], %[[B1]] {{.*}} -> tensor<1x3x4x4xf32>
// CHECK:       %[[S:.*]] = graph.mul %[[C1]], %{{.*}} : tensor<1x3x4x4xf32>, tensor<1xf32> -> tensor<1x3x4x4xf32>
// CHECK:       %[[WD:.*]] = graph.constant {{.*}} : tensor<3x1x3x3xf32>
// CHECK:       %[[BD:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 4.000000e+00]> : tensor<3xf32>
// CHECK:       %[[D:.*]] = graph.conv %[[S]], %[[WD]], %[[BD]] {{.*}}group = 3 : i64{{.*}} -> tensor<1x3x4x4xf32>
// CHECK:       %[[W2:.*]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}5.000000e+00]], {{\[\[}}6.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<2x3x1x1xf32>
// CHECK:       %[[B2:.*]] = graph.constant dense<[1.450000e+01, 3.050000e+01]> : tensor<2xf32>
// CHECK:       graph.conv %[[D]], %[[W2]], %[[B2]] {{.*}}graph.prune = {error = {{[0-9.e-]+}} : f64, kept = 3 : i64, kind = "conv", total = 4 : i64}{{.*}} -> tensor<1x2x4x4xf32>
func.func @chain(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w1 = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]], [[[7.0]], [[8.0]]]]> : tensor<4x2x1x1xf32>
  %b1 = graph.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %c1 = graph.conv %x, %w1, %b1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32>, tensor<4xf32> -> tensor<1x4x4x4xf32>
  %two = graph.constant dense<2.0> : tensor<1xf32>
  %s = graph.mul %c1, %two : tensor<1x4x4x4xf32>, tensor<1xf32> -> tensor<1x4x4x4xf32>
  %wd = graph.constant dense<0.5> : tensor<4x1x3x3xf32>
  %bd = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = graph.conv %s, %wd, %bd {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>, tensor<4xf32> -> tensor<1x4x4x4xf32>
  %w2 = graph.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]], [[[5.0]], [[6.0]], [[7.0]], [[8.0]]]]> : tensor<2x4x1x1xf32>
  %b2 = graph.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %y = graph.conv %d, %w2, %b2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>, tensor<2xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A chain through an op that mixes channels (a softmax over them) is no
// chain: nothing to prune, one line.
// NOCHAIN: error: graph-prune: conv=2.500000e-01: the model has no convolution chain whose channels prune removes {{.*}}0 chains found)
func.func @mixed(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w1 = graph.constant dense<1.0> : tensor<4x2x1x1xf32>
  %c1 = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x4x4xf32>
  %s = graph.softmax %c1 {axis = 1 : i64} : tensor<1x4x4x4xf32>
  %w2 = graph.constant dense<1.0> : tensor<2x4x1x1xf32>
  %y = graph.conv %s, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A product by a per-channel constant ([1, C, 1, 1]) treats the channels
// differently: no chain.
// NOCHAIN: error: graph-prune: conv=2.500000e-01: the model has no convolution chain whose channels prune removes {{.*}}0 chains found)
func.func @per_channel(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w1 = graph.constant dense<1.0> : tensor<4x2x1x1xf32>
  %c1 = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x4x4xf32>
  %k = graph.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>
  %s = graph.mul %c1, %k : tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32> -> tensor<1x4x4x4xf32>
  %w2 = graph.constant dense<1.0> : tensor<2x4x1x1xf32>
  %y = graph.conv %s, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// The first convolution's output read twice (by the chain and returned):
// no chain.
// NOCHAIN: error: graph-prune: conv=2.500000e-01: the model has no convolution chain whose channels prune removes {{.*}}0 chains found)
func.func @two_uses(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x4x4x4xf32>) {
  %w1 = graph.constant dense<1.0> : tensor<4x2x1x1xf32>
  %c1 = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x4x4xf32>
  %w2 = graph.constant dense<1.0> : tensor<2x4x1x1xf32>
  %y = graph.conv %c1, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32> -> tensor<1x2x4x4xf32>
  return %y, %c1 : tensor<1x2x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// A chain into a padded 3x3 convolution is found, but its output is no
// per-pixel projection of its input: not judged.
// NOCHAIN: error: graph-prune: conv=2.500000e-01: the model has no convolution chain whose channels prune removes {{.*}}1 chains found)
func.func @wide(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w1 = graph.constant dense<1.0> : tensor<4x2x1x1xf32>
  %c1 = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x4x4xf32>
  %w2 = graph.constant dense<1.0> : tensor<2x4x3x3xf32>
  %y = graph.conv %c1, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
