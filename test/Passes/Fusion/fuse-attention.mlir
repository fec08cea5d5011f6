// RUN: %shardc-opt %s --split-input-file --graph-fuse-attention | FileCheck %s

// GPT-2 (PyTorch, opsets 14 and 17): q, k, v from one split, k^T as
// transpose(0, 2, 3, 1), Div by sqrt(16), masked_fill with the constant
// ~tril mask (Where(upper, -inf, s)): causal, no mask operand; k^T's
// transpose becomes (0, 2, 1, 3) like q's and v's, the old one and the
// mask's constants are gone.
// CHECK-LABEL: func.func @gpt2
// CHECK-NOT:   graph.softmax
// CHECK:       %[[S:.*]]:3 = graph.split
// CHECK-DAG:   %[[Q:.*]] = graph.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG:   %[[V:.*]] = graph.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG:   %[[K:.*]] = graph.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>}
// CHECK:       %[[A:.*]] = graph.attention %[[Q]], %[[K]], %[[V]] {causal = true, scale = 2.500000e-01 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-NEXT:  graph.transpose %[[A]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NOT:   graph.where
// CHECK-NOT:   perm = array<i64: 0, 2, 3, 1>
// CHECK-NOT:   graph.softmax
// CHECK-NOT:   graph.matmul
func.func @gpt2(%x: tensor<2x8x192xf32>) -> tensor<2x8x64xf32> {
  %ninf = graph.constant dense<0xFF800000> : tensor<f32>
  %upper = graph.constant dense<[[[[false, true, true, true, true, true, true, true], [false, false, true, true, true, true, true, true], [false, false, false, true, true, true, true, true], [false, false, false, false, true, true, true, true], [false, false, false, false, false, true, true, true], [false, false, false, false, false, false, true, true], [false, false, false, false, false, false, false, true], [false, false, false, false, false, false, false, false]]]]> : tensor<1x1x8x8xi1>
  %four = graph.constant dense<4.0> : tensor<f32>
  %s:3 = graph.split %x {axis = 2 : i64, sizes = array<i64: 64, 64, 64>} : tensor<2x8x192xf32> -> tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
  %q0 = graph.reshape %s#0 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %q = graph.transpose %q0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %k0 = graph.reshape %s#1 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %v0 = graph.reshape %s#2 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %v = graph.transpose %v0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %kt = graph.transpose %k0 {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x4x16xf32> -> tensor<2x4x16x8xf32>
  %mm = graph.matmul %q, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
  %sc = graph.div %mm, %four : tensor<2x4x8x8xf32>, tensor<f32> -> tensor<2x4x8x8xf32>
  %mk = graph.where %upper, %ninf, %sc : tensor<1x1x8x8xi1>, tensor<f32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  %p = graph.softmax %mk {axis = 3 : i64} : tensor<2x4x8x8xf32>
  %o = graph.matmul %p, %v : tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %t = graph.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xf32> -> tensor<2x8x4x16xf32>
  %y = graph.reshape %t {shape = array<i64: 2, 8, 64>} : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// Mul by a constant on the left, an additive run-time mask (either side of
// the Add) kept as the mask operand (causal = false is the default, not
// printed); k^T that is not a transpose gets one
// (its last two dims swapped).
// CHECK-LABEL: func.func @mul_scale_add_mask
// CHECK:       %[[K:.*]] = graph.transpose %arg1 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x16x5xf32> -> tensor<2x3x5x16xf32>
// CHECK:       %[[A:.*]] = graph.attention %arg0, %[[K]], %arg2 mask %arg3 {scale = 1.250000e-01 : f32} : tensor<2x3x4x16xf32>, tensor<2x3x5x16xf32>, tensor<2x3x5x8xf32>, tensor<2x1x1x5xf32> -> tensor<2x3x4x8xf32>
// CHECK-NEXT:  return %[[A]]
func.func @mul_scale_add_mask(%q: tensor<2x3x4x16xf32>, %kt: tensor<2x3x16x5xf32>, %v: tensor<2x3x5x8xf32>, %m: tensor<2x1x1x5xf32>) -> tensor<2x3x4x8xf32> {
  %c = graph.constant dense<0.125> : tensor<1xf32>
  %mm = graph.matmul %q, %kt : tensor<2x3x4x16xf32>, tensor<2x3x16x5xf32> -> tensor<2x3x4x5xf32>
  %sc = graph.mul %c, %mm : tensor<1xf32>, tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  %mk = graph.add %m, %sc : tensor<2x1x1x5xf32>, tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  %p = graph.softmax %mk {axis = 3 : i64} : tensor<2x3x4x5xf32>
  %o = graph.matmul %p, %v : tensor<2x3x4x5xf32>, tensor<2x3x5x8xf32> -> tensor<2x3x4x8xf32>
  return %o : tensor<2x3x4x8xf32>
}

// -----

// A causal mask from Trilu of ones: Where(Equal(tril(ones), 0), -1e9, s)
// (no heads: rank 3); the transpose(0, 2, 1) of k^T folds away entirely.
// CHECK-LABEL: func.func @trilu_causal
// CHECK-NOT:   graph.trilu
// CHECK:       %[[A:.*]] = graph.attention %arg0, %arg1, %arg2 {causal = true, scale = 1.000000e+00 : f32} : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:  return %[[A]]
func.func @trilu_causal(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %ones = graph.constant dense<1.0> : tensor<4x4xf32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %big = graph.constant dense<-1.0e9> : tensor<f32>
  %tril = graph.trilu %ones {upper = false} : tensor<4x4xf32>
  %cond = graph.equal %tril, %zero : tensor<4x4xf32>, tensor<f32> -> tensor<4x4xi1>
  %kt = graph.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %mk = graph.where %cond, %big, %mm : tensor<4x4xi1>, tensor<f32>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
  %p = graph.softmax %mk {axis = 2 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Causal with fewer queries than keys (S = 2, T = 5: query s sees t <= s + 3)
// from a constant additive 0 / -inf mask.
// CHECK-LABEL: func.func @causal_s_lt_t
// CHECK:       graph.attention %arg0, %{{.*}}, %arg2 {causal = true, scale = 5.000000e-01 : f32} : tensor<1x2x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32> -> tensor<1x2x4xf32>
func.func @causal_s_lt_t(%q: tensor<1x2x4xf32>, %kt: tensor<1x4x5xf32>, %v: tensor<1x5x4xf32>) -> tensor<1x2x4xf32> {
  %m = graph.constant dense<[[0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x5xf32>
  %two = graph.constant dense<2.0> : tensor<f32>
  %mm = graph.matmul %q, %kt : tensor<1x2x4xf32>, tensor<1x4x5xf32> -> tensor<1x2x5xf32>
  %sc = graph.div %mm, %two : tensor<1x2x5xf32>, tensor<f32> -> tensor<1x2x5xf32>
  %mk = graph.add %sc, %m : tensor<1x2x5xf32>, tensor<2x5xf32> -> tensor<1x2x5xf32>
  %p = graph.softmax %mk {axis = 2 : i64} : tensor<1x2x5xf32>
  %o = graph.matmul %p, %v : tensor<1x2x5xf32>, tensor<1x5x4xf32> -> tensor<1x2x4xf32>
  return %o : tensor<1x2x4xf32>
}

// -----

// A constant boolean mask that is not causal (keep where true:
// Where(c, s, fill)) becomes a constant additive mask: 0 where kept, the
// fill elsewhere.
// CHECK-LABEL: func.func @constant_padding_mask
// CHECK:       %[[M:.*]] = graph.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00, -1.000000e+09], [0.000000e+00, -1.000000e+09, 0.000000e+00]]> : tensor<2x3xf32>
// CHECK:       graph.attention %arg0, %{{.*}}, %arg2 mask %[[M]] {scale = 1.000000e+00 : f32}
func.func @constant_padding_mask(%q: tensor<2x2x4xf32>, %kt: tensor<2x4x3xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x2x4xf32> {
  %keep = graph.constant dense<[[true, true, false], [true, false, true]]> : tensor<2x3xi1>
  %big = graph.constant dense<-1.0e9> : tensor<f32>
  %mm = graph.matmul %q, %kt : tensor<2x2x4xf32>, tensor<2x4x3xf32> -> tensor<2x2x3xf32>
  %mk = graph.where %keep, %mm, %big : tensor<2x3xi1>, tensor<2x2x3xf32>, tensor<f32> -> tensor<2x2x3xf32>
  %p = graph.softmax %mk {axis = 2 : i64} : tensor<2x2x3xf32>
  %o = graph.matmul %p, %v : tensor<2x2x3xf32>, tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  return %o : tensor<2x2x4xf32>
}

// -----

// A boolean mask computed at run time: Where(m, -inf, 0) of q's type (fp16
// here), plus a Trilu-built causal mask on the same chain.
// CHECK-LABEL: func.func @runtime_bool_mask
// CHECK-DAG:   %[[NINF:.*]] = graph.constant dense<0xFC00> : tensor<f16>
// CHECK-DAG:   %[[ZERO:.*]] = graph.constant dense<0.000000e+00> : tensor<f16>
// CHECK:       %[[M:.*]] = graph.where %arg3, %[[NINF]], %[[ZERO]] : tensor<2x1x1x6xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x1x6xf16>
// CHECK:       graph.attention %arg0, %{{.*}}, %arg2 mask %[[M]] {causal = true, scale = 2.500000e-01 : f32} : tensor<2x2x6x8xf16>, tensor<2x2x6x8xf16>, tensor<2x2x6x8xf16>, tensor<2x1x1x6xf16> -> tensor<2x2x6x8xf16>
func.func @runtime_bool_mask(%q: tensor<2x2x6x8xf16>, %kt: tensor<2x2x8x6xf16>, %v: tensor<2x2x6x8xf16>, %pad: tensor<2x1x1x6xi1>) -> tensor<2x2x6x8xf16> {
  %ones = graph.constant dense<true> : tensor<6x6xi1>
  %ninf = graph.constant dense<0xFC00> : tensor<f16>
  %c = graph.constant dense<4.0> : tensor<f16>
  %tril = graph.trilu %ones {upper = false} : tensor<6x6xi1>
  %upper = graph.not %tril : tensor<6x6xi1>
  %mm = graph.matmul %q, %kt : tensor<2x2x6x8xf16>, tensor<2x2x8x6xf16> -> tensor<2x2x6x6xf16>
  %sc = graph.div %mm, %c : tensor<2x2x6x6xf16>, tensor<f16> -> tensor<2x2x6x6xf16>
  %m1 = graph.where %upper, %ninf, %sc : tensor<6x6xi1>, tensor<f16>, tensor<2x2x6x6xf16> -> tensor<2x2x6x6xf16>
  %m2 = graph.where %pad, %ninf, %m1 : tensor<2x1x1x6xi1>, tensor<f16>, tensor<2x2x6x6xf16> -> tensor<2x2x6x6xf16>
  %p = graph.softmax %m2 {axis = 3 : i64} : tensor<2x2x6x6xf16>
  %o = graph.matmul %p, %v : tensor<2x2x6x6xf16>, tensor<2x2x6x8xf16> -> tensor<2x2x6x8xf16>
  return %o : tensor<2x2x6x8xf16>
}

// -----

// The scale applied to q and k^T before the product (0.5 each).
// CHECK-LABEL: func.func @scale_before_product
// CHECK-NOT:   graph.mul
// CHECK:       graph.attention %arg0, %{{.*}}, %arg2 {scale = 2.500000e-01 : f32}
func.func @scale_before_product(%q: tensor<3x4x8xf32>, %kt: tensor<3x8x4xf32>, %v: tensor<3x4x8xf32>) -> tensor<3x4x8xf32> {
  %c = graph.constant dense<0.5> : tensor<f32>
  %qs = graph.mul %q, %c : tensor<3x4x8xf32>, tensor<f32> -> tensor<3x4x8xf32>
  %ks = graph.mul %kt, %c : tensor<3x8x4xf32>, tensor<f32> -> tensor<3x8x4xf32>
  %mm = graph.matmul %qs, %ks : tensor<3x4x8xf32>, tensor<3x8x4xf32> -> tensor<3x4x4xf32>
  %p = graph.softmax %mm {axis = 2 : i64} : tensor<3x4x4xf32>
  %o = graph.matmul %p, %v : tensor<3x4x4xf32>, tensor<3x4x8xf32> -> tensor<3x4x8xf32>
  return %o : tensor<3x4x8xf32>
}

// -----

// Look-alikes that stay as they are.

// Softmax over the queries, not the keys.
// CHECK-LABEL: func.func @softmax_other_axis
// CHECK-NOT:   graph.attention
// CHECK:       graph.softmax %{{.*}} {axis = 1 : i64}
func.func @softmax_other_axis(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %p = graph.softmax %mm {axis = 1 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A scale that is a run-time value, and one that is a constant but not a
// scalar (per-key).
// CHECK-LABEL: func.func @scale_not_constant
// CHECK-NOT:   graph.attention
// CHECK-LABEL: func.func @scale_not_scalar
// CHECK-NOT:   graph.attention
func.func @scale_not_constant(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>, %c: tensor<f32>) -> tensor<2x4x8xf32> {
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %sc = graph.div %mm, %c : tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %p = graph.softmax %sc {axis = 2 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
func.func @scale_not_scalar(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %c = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %sc = graph.mul %mm, %c : tensor<2x4x4xf32>, tensor<4xf32> -> tensor<2x4x4xf32>
  %p = graph.softmax %sc {axis = 2 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// The scores (or the weights) have another user.
// CHECK-LABEL: func.func @scores_used_twice
// CHECK-NOT:   graph.attention
// CHECK-LABEL: func.func @weights_used_twice
// CHECK-NOT:   graph.attention
func.func @scores_used_twice(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x4xf32>) {
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %p = graph.softmax %mm {axis = 2 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o, %mm : tensor<2x4x8xf32>, tensor<2x4x4xf32>
}
func.func @weights_used_twice(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x4xf32>) {
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %p = graph.softmax %mm {axis = 2 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o, %p : tensor<2x4x8xf32>, tensor<2x4x4xf32>
}

// -----

// A Where whose fill is not very negative (-1), and a mask added before
// the scale (the mask would be scaled too).
// CHECK-LABEL: func.func @fill_not_negative_enough
// CHECK-NOT:   graph.attention
// CHECK-LABEL: func.func @mask_before_scale
// CHECK-NOT:   graph.attention
func.func @fill_not_negative_enough(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>, %c: tensor<2x4x4xi1>) -> tensor<2x4x8xf32> {
  %fill = graph.constant dense<-1.0> : tensor<f32>
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %mk = graph.where %c, %fill, %mm : tensor<2x4x4xi1>, tensor<f32>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
  %p = graph.softmax %mk {axis = 2 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}
func.func @mask_before_scale(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>, %m: tensor<2x4x4xf32>) -> tensor<2x4x8xf32> {
  %c = graph.constant dense<2.0> : tensor<f32>
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %mk = graph.add %mm, %m : tensor<2x4x4xf32>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
  %sc = graph.div %mk, %c : tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %p = graph.softmax %sc {axis = 2 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A constant mask with a fully masked row and a finite fill (Where gives
// that row uniform weights, an additive mask would not), and k / v shared
// by all heads (leading dims differ: broadcast).
// CHECK-LABEL: func.func @finite_fill_full_row
// CHECK-NOT:   graph.attention
// CHECK-LABEL: func.func @broadcast_kv
// CHECK-NOT:   graph.attention
func.func @finite_fill_full_row(%q: tensor<2x2x4xf32>, %kt: tensor<2x4x3xf32>, %v: tensor<2x3x4xf32>) -> tensor<2x2x4xf32> {
  %masked = graph.constant dense<[[false, true, false], [true, true, true]]> : tensor<2x3xi1>
  %big = graph.constant dense<-1.0e9> : tensor<f32>
  %mm = graph.matmul %q, %kt : tensor<2x2x4xf32>, tensor<2x4x3xf32> -> tensor<2x2x3xf32>
  %mk = graph.where %masked, %big, %mm : tensor<2x3xi1>, tensor<f32>, tensor<2x2x3xf32> -> tensor<2x2x3xf32>
  %p = graph.softmax %mk {axis = 2 : i64} : tensor<2x2x3xf32>
  %o = graph.matmul %p, %v : tensor<2x2x3xf32>, tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  return %o : tensor<2x2x4xf32>
}
func.func @broadcast_kv(%q: tensor<2x4x3x8xf32>, %kt: tensor<2x1x8x3xf32>, %v: tensor<2x1x3x8xf32>) -> tensor<2x4x3x8xf32> {
  %mm = graph.matmul %q, %kt : tensor<2x4x3x8xf32>, tensor<2x1x8x3xf32> -> tensor<2x4x3x3xf32>
  %p = graph.softmax %mm {axis = 3 : i64} : tensor<2x4x3x3xf32>
  %o = graph.matmul %p, %v : tensor<2x4x3x3xf32>, tensor<2x1x3x8xf32> -> tensor<2x4x3x8xf32>
  return %o : tensor<2x4x3x8xf32>
}

// -----

// An initializer scalar (a dense_resource blob, as ONNX initializers are
// imported) is a constant scale too: Div by 4.
// CHECK-LABEL: func.func @initializer_scale
// CHECK:       graph.attention %arg0, %{{.*}}, %arg2 {scale = 2.500000e-01 : f32}
func.func @initializer_scale(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %c = graph.constant dense_resource<four> : tensor<f32>
  %mm = graph.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %sc = graph.div %mm, %c : tensor<2x4x4xf32>, tensor<f32> -> tensor<2x4x4xf32>
  %p = graph.softmax %sc {axis = 2 : i64} : tensor<2x4x4xf32>
  %o = graph.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

{-#
  dialect_resources: {
    builtin: {
      four: "0x0400000000008040"
    }
  }
#-}
