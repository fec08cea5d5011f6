// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron=tp=4 | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron=tp=2 | FileCheck %s --check-prefix=TWO
// Grouped-query attention with fewer KV heads (2) than tp ranks (4): K and
// V repeat 4 heads, copies of KV heads 0, 0, 1, 1, instead of 2; the copy is
// pushed up through the rotary multiply (its table broadcast over heads
// stays), the transpose and the reshape into the projections' weight
// columns and bias, so that each rank holds one KV head's columns. A
// head-mixing op (a softmax over heads) stops the push: the copy stays a
// graph.gather there, exact but whole. At tp=2 the two KV heads split as
// they are.

// CHECK-LABEL: func.func @gqa
// CHECK-DAG:   %[[WK:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00], [3.000000e+00, 3.000000e+00, 4.000000e+00, 4.000000e+00], [5.000000e+00, 5.000000e+00, 6.000000e+00, 6.000000e+00], [7.000000e+00, 7.000000e+00, 8.000000e+00, 8.000000e+00]]> : tensor<4x4xf32>
// CHECK-DAG:   %[[WV:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, -1.000000e+00, -1.000000e+00], {{.*}}]> : tensor<4x4xf32>
// CHECK-DAG:   %[[BV:.*]] = graph.constant dense<[1.000000e+01, 1.000000e+01, 2.000000e+01, 2.000000e+01]> : tensor<4xf32>
// CHECK-DAG:   %[[ROT:.*]] = graph.constant dense<{{.*}}> : tensor<1x1x2x1xf32>
// CHECK:       %[[K:.*]] = graph.matmul %arg0, %[[WK]] : tensor<1x2x4xf32>, tensor<4x4xf32> -> tensor<1x2x4xf32>
// CHECK:       graph.mul %{{.*}}, %[[ROT]] : tensor<1x4x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x4x2x1xf32>
// CHECK:       graph.linear %arg0, %[[WV]] bias %[[BV]] : tensor<4xf32> : tensor<1x2x4xf32>, tensor<4x4xf32> -> tensor<1x2x4xf32>
// CHECK-NOT:   graph.gather
// CHECK-NOT:   tensor<4x2xf32>
// CHECK-COUNT-3: dist.shard %{{.*}} : tensor<1x4x2x1xf32> to #dist.sharding<@mesh, {{\[\[\], \["tp"\], \[\], \[\]\]}}>
// CHECK:       graph.attention

// TWO-LABEL:   func.func @gqa
// TWO-NOT:     graph.gather
// TWO:         graph.expand %{{.*}} : tensor<1x2x1x2x1xf32> -> tensor<1x2x2x2x1xf32>
func.func @gqa(%x: tensor<1x2x4xf32>) -> tensor<1x4x2x1xf32> {
  %wq = graph.constant dense<0.5> : tensor<4x4xf32>
  %wk = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %wv = graph.constant dense<[[1.0, -1.0], [2.0, -2.0], [3.0, -3.0], [4.0, -4.0]]> : tensor<4x2xf32>
  %bv = graph.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %rot = graph.constant dense<[[[[0.5], [0.25]]]]> : tensor<1x1x2x1xf32>
  %q = graph.matmul %x, %wq : tensor<1x2x4xf32>, tensor<4x4xf32> -> tensor<1x2x4xf32>
  %q4 = graph.reshape %q {shape = array<i64: 1, 2, 4, 1>} : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
  %qt = graph.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x1xf32> -> tensor<1x4x2x1xf32>
  %k = graph.matmul %x, %wk : tensor<1x2x4xf32>, tensor<4x2xf32> -> tensor<1x2x2xf32>
  %k4 = graph.reshape %k {shape = array<i64: 1, 2, 2, 1>} : tensor<1x2x2xf32> -> tensor<1x2x2x1xf32>
  %kt = graph.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x1xf32> -> tensor<1x2x2x1xf32>
  %kr = graph.mul %kt, %rot : tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x2x2x1xf32>
  %k5 = graph.reshape %kr {shape = array<i64: 1, 2, 1, 2, 1>} : tensor<1x2x2x1xf32> -> tensor<1x2x1x2x1xf32>
  %ke = graph.expand %k5 {shape = array<i64: 1, 2, 2, 2, 1>} : tensor<1x2x1x2x1xf32> -> tensor<1x2x2x2x1xf32>
  %kk = graph.reshape %ke {shape = array<i64: 1, 4, 2, 1>} : tensor<1x2x2x2x1xf32> -> tensor<1x4x2x1xf32>
  %v = graph.linear %x, %wv bias %bv : tensor<2xf32> : tensor<1x2x4xf32>, tensor<4x2xf32> -> tensor<1x2x2xf32>
  %v4 = graph.reshape %v {shape = array<i64: 1, 2, 2, 1>} : tensor<1x2x2xf32> -> tensor<1x2x2x1xf32>
  %vt = graph.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x1xf32> -> tensor<1x2x2x1xf32>
  %v5 = graph.reshape %vt {shape = array<i64: 1, 2, 1, 2, 1>} : tensor<1x2x2x1xf32> -> tensor<1x2x1x2x1xf32>
  %ve = graph.expand %v5 {shape = array<i64: 1, 2, 2, 2, 1>} : tensor<1x2x1x2x1xf32> -> tensor<1x2x2x2x1xf32>
  %vv = graph.reshape %ve {shape = array<i64: 1, 4, 2, 1>} : tensor<1x2x2x2x1xf32> -> tensor<1x4x2x1xf32>
  %a = graph.attention %qt, %kk, %vv {scale = 1.0 : f32} : tensor<1x4x2x1xf32>, tensor<1x4x2x1xf32>, tensor<1x4x2x1xf32> -> tensor<1x4x2x1xf32>
  return %a : tensor<1x4x2x1xf32>
}

// -----

// CHECK-LABEL: func.func @fallback
// CHECK:       %[[S:.*]] = graph.softmax %{{.*}} {axis = 1 : i64} : tensor<1x2x2x1xf32>
// CHECK:       %[[I:.*]] = graph.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
// CHECK:       graph.gather %[[S]], %[[I]] {axis = 1 : i64} : tensor<1x2x2x1xf32>, tensor<4xi64> -> tensor<1x4x2x1xf32>
func.func @fallback(%x: tensor<1x2x4xf32>) -> tensor<1x4x2x1xf32> {
  %wq = graph.constant dense<0.5> : tensor<4x4xf32>
  %wk = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %wv = graph.constant dense<[[1.0, -1.0], [2.0, -2.0], [3.0, -3.0], [4.0, -4.0]]> : tensor<4x2xf32>
  %bv = graph.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %rot = graph.constant dense<[[[[0.5], [0.25]]]]> : tensor<1x1x2x1xf32>
  %q = graph.matmul %x, %wq : tensor<1x2x4xf32>, tensor<4x4xf32> -> tensor<1x2x4xf32>
  %q4 = graph.reshape %q {shape = array<i64: 1, 2, 4, 1>} : tensor<1x2x4xf32> -> tensor<1x2x4x1xf32>
  %qt = graph.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x1xf32> -> tensor<1x4x2x1xf32>
  %k = graph.matmul %x, %wk : tensor<1x2x4xf32>, tensor<4x2xf32> -> tensor<1x2x2xf32>
  %k4 = graph.reshape %k {shape = array<i64: 1, 2, 2, 1>} : tensor<1x2x2xf32> -> tensor<1x2x2x1xf32>
  %kt = graph.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x1xf32> -> tensor<1x2x2x1xf32>
  %kr = graph.mul %kt, %rot : tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x2x2x1xf32>
  %k5 = graph.reshape %kr {shape = array<i64: 1, 2, 1, 2, 1>} : tensor<1x2x2x1xf32> -> tensor<1x2x1x2x1xf32>
  %ke = graph.expand %k5 {shape = array<i64: 1, 2, 2, 2, 1>} : tensor<1x2x1x2x1xf32> -> tensor<1x2x2x2x1xf32>
  %kk = graph.reshape %ke {shape = array<i64: 1, 4, 2, 1>} : tensor<1x2x2x2x1xf32> -> tensor<1x4x2x1xf32>
  %v = graph.linear %x, %wv bias %bv : tensor<2xf32> : tensor<1x2x4xf32>, tensor<4x2xf32> -> tensor<1x2x2xf32>
  %v4 = graph.reshape %v {shape = array<i64: 1, 2, 2, 1>} : tensor<1x2x2xf32> -> tensor<1x2x2x1xf32>
  %vt = graph.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x1xf32> -> tensor<1x2x2x1xf32>
  %vs = graph.softmax %vt {axis = 1 : i64} : tensor<1x2x2x1xf32>
  %v5 = graph.reshape %vs {shape = array<i64: 1, 2, 1, 2, 1>} : tensor<1x2x2x1xf32> -> tensor<1x2x1x2x1xf32>
  %ve = graph.expand %v5 {shape = array<i64: 1, 2, 2, 2, 1>} : tensor<1x2x1x2x1xf32> -> tensor<1x2x2x2x1xf32>
  %vv = graph.reshape %ve {shape = array<i64: 1, 4, 2, 1>} : tensor<1x2x2x2x1xf32> -> tensor<1x4x2x1xf32>
  %a = graph.attention %qt, %kk, %vv {scale = 1.0 : f32} : tensor<1x4x2x1xf32>, tensor<1x4x2x1xf32>, tensor<1x4x2x1xf32> -> tensor<1x4x2x1xf32>
  return %a : tensor<1x4x2x1xf32>
}
