// RUN: %shardc-opt %s --split-input-file --graph-kv-cache | FileCheck %s
// graph-kv-cache marks the past inputs of a decoder's KV cache: an input
// whose dim along the concat axis is a dynamic dim that may be empty (min 0
// in graph.dims), read only as the first operand of a concat that is
// returned. Symbols: s0 batch, s1 sequence, s2 past.

#past = affine_map<()[s0, s1, s2] -> (s0, 4, s2, 8)>
#new = affine_map<()[s0, s1, s2] -> (s0, 4, s1, 8)>
#all = affine_map<()[s0, s1, s2] -> (s0, 4, s2 + s1, 8)>

// CHECK-LABEL: func.func @layer
// CHECK-SAME: %arg0: tensor<2x4x16x8xf32, #{{.*}}> {graph.cache = {axis = 2 : i64, output = 1 : i64}, graph.name = "past.key"}
// CHECK-SAME: %arg1: tensor<2x4x16x8xf32, #{{.*}}> {graph.cache = {axis = 2 : i64, output = 0 : i64}, graph.name = "past.value"}
// CHECK-SAME: %arg2: tensor<2x4x8x8xf32, #{{.*}}> {graph.name = "new"})
func.func @layer(%pk: tensor<2x4x16x8xf32, #past> {graph.name = "past.key"}, %pv: tensor<2x4x16x8xf32, #past> {graph.name = "past.value"}, %n: tensor<2x4x8x8xf32, #new> {graph.name = "new"}) -> (tensor<2x4x24x8xf32, #all>, tensor<2x4x24x8xf32, #all>) attributes {graph.dims = [{name = "batch", max = 2 : i64}, {name = "sequence", max = 8 : i64}, {name = "past", max = 16 : i64, min = 0 : i64}]} {
  %k = graph.concat %pk, %n {axis = 2 : i64} : tensor<2x4x16x8xf32, #past>, tensor<2x4x8x8xf32, #new> -> tensor<2x4x24x8xf32, #all>
  %v = graph.concat %pv, %n {axis = 2 : i64} : tensor<2x4x16x8xf32, #past>, tensor<2x4x8x8xf32, #new> -> tensor<2x4x24x8xf32, #all>
  return %v, %k : tensor<2x4x24x8xf32, #all>, tensor<2x4x24x8xf32, #all>
}

// -----

// Not a cache: the past is read elsewhere too, its concat is not returned,
// it is the concat's second operand, or its dim may not be empty.
#past = affine_map<()[s0, s1, s2] -> (s0, 4, s2, 8)>
#new = affine_map<()[s0, s1, s2] -> (s0, 4, s1, 8)>
#all = affine_map<()[s0, s1, s2] -> (s0, 4, s2 + s1, 8)>

// CHECK-LABEL: func.func @not_caches
// CHECK-NOT: graph.cache
func.func @not_caches(%a: tensor<2x4x16x8xf32, #past>, %b: tensor<2x4x16x8xf32, #past>, %c: tensor<2x4x16x8xf32, #past>, %n: tensor<2x4x8x8xf32, #new>) -> (tensor<2x4x24x8xf32, #all>, tensor<2x4x16x8xf32, #past>, tensor<2x4x24x8xf32, #all>, tensor<f32>) attributes {graph.dims = [{name = "batch", max = 2 : i64}, {name = "sequence", max = 8 : i64}, {name = "past", max = 16 : i64, min = 0 : i64}]} {
  %k = graph.concat %a, %n {axis = 2 : i64} : tensor<2x4x16x8xf32, #past>, tensor<2x4x8x8xf32, #new> -> tensor<2x4x24x8xf32, #all>
  %v = graph.concat %b, %n {axis = 2 : i64} : tensor<2x4x16x8xf32, #past>, tensor<2x4x8x8xf32, #new> -> tensor<2x4x24x8xf32, #all>
  %s = graph.reduce_sum %v {axes = array<i64>, keepdims = false} : tensor<2x4x24x8xf32, #all> -> tensor<f32>
  %w = graph.concat %n, %c {axis = 2 : i64} : tensor<2x4x8x8xf32, #new>, tensor<2x4x16x8xf32, #past> -> tensor<2x4x24x8xf32, #all>
  return %k, %a, %w, %s : tensor<2x4x24x8xf32, #all>, tensor<2x4x16x8xf32, #past>, tensor<2x4x24x8xf32, #all>, tensor<f32>
}

// -----

#past = affine_map<()[s0, s1, s2] -> (s0, 4, s2, 8)>
#new = affine_map<()[s0, s1, s2] -> (s0, 4, s1, 8)>
#all = affine_map<()[s0, s1, s2] -> (s0, 4, s2 + s1, 8)>

// CHECK-LABEL: func.func @never_empty
// CHECK-NOT: graph.cache
func.func @never_empty(%a: tensor<2x4x16x8xf32, #past>, %n: tensor<2x4x8x8xf32, #new>) -> tensor<2x4x24x8xf32, #all> attributes {graph.dims = [{name = "batch", max = 2 : i64}, {name = "sequence", max = 8 : i64}, {name = "past", max = 16 : i64}]} {
  %k = graph.concat %a, %n {axis = 2 : i64} : tensor<2x4x16x8xf32, #past>, tensor<2x4x8x8xf32, #new> -> tensor<2x4x24x8xf32, #all>
  return %k : tensor<2x4x24x8xf32, #all>
}
