// RUN: %shardc-opt %s --split-input-file --graph-fuse-moe | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --graph-fuse-moe | %shardc-opt --split-input-file > /dev/null

// The importer's form of Hugging Face's expert loop (T = 4 tokens, K = 2
// choices, E = 2 experts, H = 4, F = 2; see passes/Fusion/FuseMoe.cpp):
// each expert's SwiGLU MLP on every token, weighted by the routing table
// t * K + k, masked by torch's one_hot of the top-k ids (with OneHot's
// negative wrap) and summed over k, the experts added onto index_add's
// zeros. The experts' weights are stacked: gate_up[e] = [G_e | U_e],
// down[e] = D_e.

// CHECK-LABEL: func.func @mixtral
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[L:.*]]: tensor<4x2xf32>)
// CHECK: %[[V:.*]], %[[I:.*]] = graph.topk %[[L]]
// CHECK: %[[GU:.*]] = graph.constant dense<{{\[\[\[}}1.000000e+01, 1.100000e+01, 5.000000e+01, 5.100000e+01], [1.200000e+01, 1.300000e+01, 5.200000e+01, 5.300000e+01], [1.400000e+01, 1.500000e+01, 5.400000e+01, 5.500000e+01], [1.600000e+01, 1.700000e+01, 5.600000e+01, 5.700000e+01{{\]\]}}, {{\[\[}}1.100000e+02, 1.110000e+02, 1.500000e+02, 1.510000e+02]
// CHECK-SAME: tensor<2x4x4xf32>
// CHECK: %[[DN:.*]] = graph.constant dense<{{\[\[\[}}8.000000e+01, 8.100000e+01, 8.200000e+01, 8.300000e+01], [8.400000e+01, 8.500000e+01, 8.600000e+01, 8.700000e+01{{\]\]}}, {{\[\[}}1.800000e+02
// CHECK-SAME: tensor<2x2x4xf32>
// CHECK: %[[Y:.*]] = graph.moe %[[X]], %[[V]], %[[I]], %[[GU]], %[[DN]] : tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x4x4xf32>, tensor<2x2x4xf32> -> tensor<4x4xf32>
// CHECK-NOT: graph.reduce_sum
// CHECK-NOT: graph.swiglu
// CHECK: return %[[Y]]
func.func @mixtral(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<1> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[110.0, 111.0], [112.0, 113.0], [114.0, 115.0], [116.0, 117.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1 : tensor<4x4xf32>
}

// -----

// Experts in another order: stacked by expert id, not by position.
// CHECK-LABEL: func.func @reversed
// CHECK: graph.constant dense<{{\[\[\[}}1.000000e+01, 1.100000e+01, 5.000000e+01
// CHECK: graph.moe
func.func @reversed(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<1> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[110.0, 111.0], [112.0, 113.0], [114.0, 115.0], [116.0, 117.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<0> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1 : tensor<4x4xf32>
}

// -----

// Qwen2-MoE adds its shared expert to the same sum: it is added to the
// result.
// CHECK-LABEL: func.func @shared_leaf
// CHECK: %[[Y:.*]] = graph.moe
// CHECK: %[[S:.*]] = graph.add %[[Y]], %arg2
// CHECK: return %[[S]]
func.func @shared_leaf(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>, %shared: tensor<4x4xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<1> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[110.0, 111.0], [112.0, 113.0], [114.0, 115.0], [116.0, 117.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc2 = graph.add %acc1, %shared : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc2 : tensor<4x4xf32>
}

// -----

// Only expert 0 of the top-k's two: the sum is not the whole MoE.
// CHECK-LABEL: func.func @missing_expert
// CHECK-NOT: graph.moe
// CHECK: return
func.func @missing_expert(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc0 : tensor<4x4xf32>
}

// -----

// Expert 0's mask twice (and expert 1's never).
// CHECK-LABEL: func.func @repeated_expert
// CHECK-NOT: graph.moe
// CHECK: return
func.func @repeated_expert(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<0> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1 : tensor<4x4xf32>
}

// -----

// Routing weights gathered by k * T + t, not t * K + k: not weights[t, k].
// CHECK-LABEL: func.func @other_table
// CHECK-NOT: graph.moe
// CHECK: return
func.func @other_table(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<1> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[110.0, 111.0], [112.0, 113.0], [114.0, 115.0], [116.0, 117.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1 : tensor<4x4xf32>
}

// -----

// Ids from an argument, not a top-k over E: they may fall outside [0, E), where the masks select nothing but graph.moe fails.
// CHECK-LABEL: func.func @ids_not_topk
// CHECK-NOT: graph.moe
// CHECK: return
func.func @ids_not_topk(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>, %ids_in: tensor<4x2xi64>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %ids_in, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %ids_in, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %ids_in : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<1> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[110.0, 111.0], [112.0, 113.0], [114.0, 115.0], [116.0, 117.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1 : tensor<4x4xf32>
}

// -----

// where(ids < 1, ids + 2, ids) changes id 0: not OneHot's negative wrap.
// CHECK-LABEL: func.func @wrap_not_noop
// CHECK-NOT: graph.moe
// CHECK: return
func.func @wrap_not_noop(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<1> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<1> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[110.0, 111.0], [112.0, 113.0], [114.0, 115.0], [116.0, 117.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1 : tensor<4x4xf32>
}

// -----

// GELU-gated experts: graph.moe's experts are SwiGLU.
// CHECK-LABEL: func.func @gelu_experts
// CHECK-NOT: graph.moe
// CHECK: return
func.func @gelu_experts(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %h0 = graph.gelu %a0 : tensor<1x4x2xf32>
  %s0 = graph.mul %h0, %b0 : tensor<1x4x2xf32>, tensor<1x4x2xf32> -> tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<1> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[110.0, 111.0], [112.0, 113.0], [114.0, 115.0], [116.0, 117.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %h1 = graph.gelu %a1 : tensor<1x4x2xf32>
  %s1 = graph.mul %h1, %b1 : tensor<1x4x2xf32>, tensor<1x4x2xf32> -> tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1 : tensor<4x4xf32>
}

// -----

// Expert 0's output is also returned.
// CHECK-LABEL: func.func @expert_output_used
// CHECK-NOT: graph.moe
// CHECK: return
func.func @expert_output_used(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>) -> (tensor<4x4xf32>, tensor<1x4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<1> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G1 = graph.constant dense<[[110.0, 111.0], [112.0, 113.0], [114.0, 115.0], [116.0, 117.0]]> : tensor<4x2xf32>
  %U1 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %G1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1, %y0 : tensor<4x4xf32>, tensor<1x4x4xf32>
}

// -----

// Expert 1's gate projection is an argument: weights are stacked at compile time.
// CHECK-LABEL: func.func @weight_not_constant
// CHECK-NOT: graph.moe
// CHECK: return
func.func @weight_not_constant(%x: tensor<4x4xf32>, %logits: tensor<4x2xf32>, %gate1: tensor<4x2xf32>) -> (tensor<4x4xf32>) {
  %values, %indices = graph.topk %logits {axis = 1 : i64, k = 2 : i64} : tensor<4x2xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %zero_i = graph.constant dense<0> : tensor<i64>
  %c = graph.constant dense<0> : tensor<i64>
  %n = graph.constant dense<2> : tensor<i64>
  %lt = graph.less %indices, %c : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi1>
  %wrapped = graph.add %indices, %n : tensor<4x2xi64>, tensor<i64> -> tensor<4x2xi64>
  %ids = graph.where %lt, %wrapped, %indices : tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  %r = graph.reshape %ids {shape = array<i64: 4, 2, 1>} : tensor<4x2xi64> -> tensor<4x2x1xi64>
  %iota = graph.constant dense<[[[0, 1]]]> : tensor<1x1x2xi64>
  %eq = graph.equal %r, %iota : tensor<4x2x1xi64>, tensor<1x1x2xi64> -> tensor<4x2x2xi1>
  %one = graph.constant dense<1> : tensor<i64>
  %oh = graph.where %eq, %one, %zero_i : tensor<4x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<4x2x2xi64>
  %tr = graph.transpose %oh {perm = array<i64: 2, 1, 0>} : tensor<4x2x2xi64> -> tensor<2x2x4xi64>
  %flatw = graph.reshape %values {shape = array<i64: 8, 1>} : tensor<4x2xf32> -> tensor<8x1xf32>
  %table = graph.constant dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>
  %w = graph.gather %flatw, %table {axis = 0 : i64} : tensor<8x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32>
  %x3 = graph.reshape %x {shape = array<i64: 1, 4, 4>} : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %fz = graph.constant dense<0.0> : tensor<f32>
  %init = graph.constant dense<0.0> : tensor<4x4xf32>
  %e0 = graph.constant dense<0> : tensor<i64>
  %g0 = graph.gather %tr, %e0 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k0 = graph.cast %g0 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m0 = graph.reshape %k0 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %G0 = graph.constant dense<[[10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %U0 = graph.constant dense<[[50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0]]> : tensor<4x2xf32>
  %D0 = graph.constant dense<[[80.0, 81.0, 82.0, 83.0], [84.0, 85.0, 86.0, 87.0]]> : tensor<2x4xf32>
  %a0 = graph.matmul %x3, %G0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b0 = graph.matmul %x3, %U0 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s0 = graph.swiglu %a0, %b0 : tensor<1x4x2xf32>
  %y0 = graph.matmul %s0, %D0 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p0 = graph.mul %y0, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q0 = graph.where %m0, %p0, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S0 = graph.reduce_sum %q0 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %e1 = graph.constant dense<1> : tensor<i64>
  %g1 = graph.gather %tr, %e1 {axis = 0 : i64} : tensor<2x2x4xi64>, tensor<i64> -> tensor<2x4xi64>
  %k1 = graph.cast %g1 {to = i1} : tensor<2x4xi64> -> tensor<2x4xi1>
  %m1 = graph.reshape %k1 {shape = array<i64: 2, 4, 1>} : tensor<2x4xi1> -> tensor<2x4x1xi1>
  %U1 = graph.constant dense<[[150.0, 151.0], [152.0, 153.0], [154.0, 155.0], [156.0, 157.0]]> : tensor<4x2xf32>
  %D1 = graph.constant dense<[[180.0, 181.0, 182.0, 183.0], [184.0, 185.0, 186.0, 187.0]]> : tensor<2x4xf32>
  %a1 = graph.matmul %x3, %gate1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %b1 = graph.matmul %x3, %U1 : tensor<1x4x4xf32>, tensor<4x2xf32> -> tensor<1x4x2xf32>
  %s1 = graph.swiglu %a1, %b1 : tensor<1x4x2xf32>
  %y1 = graph.matmul %s1, %D1 : tensor<1x4x2xf32>, tensor<2x4xf32> -> tensor<1x4x4xf32>
  %p1 = graph.mul %y1, %w : tensor<1x4x4xf32>, tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %q1 = graph.where %m1, %p1, %fz : tensor<2x4x1xi1>, tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %S1 = graph.reduce_sum %q1 {axes = array<i64: 0>, keepdims = false} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %acc0 = graph.add %init, %S0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %acc1 = graph.add %acc0, %S1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %acc1 : tensor<4x4xf32>
}
