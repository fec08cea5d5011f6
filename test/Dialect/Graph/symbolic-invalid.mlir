// RUN: %shardc-opt %s --split-input-file --verify-diagnostics
// One case per error of bounded dynamic dims (SymbolicShapes.cpp).

// Two symbols with equal bounds are not known to be equal.
func.func @broadcast_symbols(%a: tensor<8xf32, affine_map<()[s0, s1] -> (s0)>>, %b: tensor<8xf32, affine_map<()[s0, s1] -> (s1)>>) attributes {graph.dims = [{name = "a", max = 8 : i64}, {name = "b", max = 8 : i64}]} {
  // expected-error @+2 {{shapes [s0] and [s1] do not broadcast: dim 0 is s0 vs s1 (dynamic dims broadcast only when equal)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.add %a, %b : tensor<8xf32, affine_map<()[s0, s1] -> (s0)>>, tensor<8xf32, affine_map<()[s0, s1] -> (s1)>> -> tensor<8xf32, affine_map<()[s0, s1] -> (s0)>>
  return
}

// -----

// A symbol that may be 1 does not broadcast against 7.
func.func @broadcast_constant(%a: tensor<7xf32, affine_map<()[s0] -> (s0)>>, %b: tensor<7xf32>) attributes {graph.dims = [{name = "n", max = 7 : i64}]} {
  // expected-error @+2 {{dim 0 is s0 vs 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.add %a, %b : tensor<7xf32, affine_map<()[s0] -> (s0)>>, tensor<7xf32> -> tensor<7xf32>
  return
}

// -----

// The mirror must give the static shape at the bounds.
// expected-error @+1 {{argument 0 tensor<8x64xf32, affine_map<()[s0, s1] -> (s0, s1)>>: dim 1 is seq, which is 128 at the bounds, but the static shape says 64}}
func.func @mirror_bound(%a: tensor<8x64xf32, affine_map<()[s0, s1] -> (s0, s1)>>) attributes {graph.dims = [{name = "batch", max = 8 : i64}, {name = "seq", max = 128 : i64}]} {
  return
}

// -----

// expected-error @+1 {{dim 0 (n - 1) is not a size that grows with its symbols}}
func.func @not_a_size(%a: tensor<7xf32, affine_map<()[s0] -> (s0 - 1)>>) attributes {graph.dims = [{name = "n", max = 8 : i64}]} {
  return
}

// -----

// expected-error @+1 {{uses symbol s1 but the function names 1 (graph.dims)}}
func.func @unknown_symbol(%a: tensor<8xf32, affine_map<()[s0, s1] -> (s1)>>) attributes {graph.dims = [{name = "n", max = 8 : i64}]} {
  return
}

// -----

// expected-error @+1 {{the encoding is not a symbolic shape}}
func.func @division(%a: tensor<4xf32, affine_map<()[s0] -> (s0 floordiv 2)>>) attributes {graph.dims = [{name = "n", max = 8 : i64}]} {
  return
}

// -----

// expected-error @+1 {{'graph.dims' entry 0 needs a name and a max of at least 1}}
func.func @bad_table(%a: tensor<4xf32>) attributes {graph.dims = [{name = "n", max = 0 : i64}]} {
  return
}

// -----

func.func @no_table(%a: tensor<8xf32, affine_map<()[s0] -> (s0)>>) {
  // expected-error @+1 {{has a symbolic type outside a function with 'graph.dims' naming its symbols}}
  %0 = graph.relu %a : tensor<8xf32, affine_map<()[s0] -> (s0)>>
  return
}

// -----

// An op whose inference does not handle symbols refuses them.
func.func @unported(%x: tensor<4x3x8x8xf32, affine_map<()[s0] -> (s0, 3, 8, 8)>>) attributes {graph.dims = [{name = "batch", max = 4 : i64}]} {
  // expected-error @+1 {{'graph.global_average_pool' op does not take dynamic dims yet: operand 0 has shape [batch, 3, 8, 8] (give the model's inputs a static shape with --input-shape)}}
  %0 = graph.global_average_pool %x : tensor<4x3x8x8xf32, affine_map<()[s0] -> (s0, 3, 8, 8)>> -> tensor<4x3x1x1xf32>
  return
}

// -----

// Elements must agree for every value of the symbols, not only at the bounds.
func.func @reshape_count(%x: tensor<8x128xf32, affine_map<()[s0, s1] -> (s0, s1)>>) attributes {graph.dims = [{name = "batch", max = 8 : i64}, {name = "seq", max = 128 : i64}]} {
  // expected-error @+2 {{cannot reshape [s0, s1] (s0*s1 elements) to [s0, 128] (s0*128 elements)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.reshape %x {shape = array<i64: 8, 128>, graph.sym = {shape = affine_map<()[s0, s1] -> (s0, 128)>}} : tensor<8x128xf32, affine_map<()[s0, s1] -> (s0, s1)>> -> tensor<8x128xf32, affine_map<()[s0, s1] -> (s0, s1)>>
  return
}

// -----

func.func @sym_mirror(%x: tensor<8x128xf32, affine_map<()[s0, s1] -> (s0, s1)>>) attributes {graph.dims = [{name = "batch", max = 8 : i64}, {name = "seq", max = 128 : i64}]} {
  // expected-error @+1 {{'shape': dim 1 is seq*2, which is 256 at the bounds, but the static shape says 128}}
  %0 = graph.reshape %x {shape = array<i64: 8, 128>, graph.sym = {shape = affine_map<()[s0, s1] -> (s0, s1 * 2)>}} : tensor<8x128xf32, affine_map<()[s0, s1] -> (s0, s1)>> -> tensor<8x128xf32, affine_map<()[s0, s1] -> (s0, s1)>>
  return
}

// -----

func.func @sym_unknown(%x: tensor<8xf32>) attributes {graph.dims = [{name = "n", max = 8 : i64}]} {
  // expected-error @+1 {{'graph.sym' entry 'limit' must be a symbolic shape mirroring an i64 array attribute of the same name}}
  %0 = graph.relu %x {graph.sym = {limit = affine_map<()[s0] -> (s0)>}} : tensor<8xf32>
  return
}

// -----

func.func @norm_dynamic(%x: tensor<2x16xf32, affine_map<()[s0] -> (2, s0)>>, %g: tensor<16xf32>) attributes {graph.dims = [{name = "n", max = 16 : i64}]} {
  // expected-error @+2 {{layer normalization over dynamic dim 1 of [2, s0] is not supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = graph.layer_norm %x, %g {axis = 1 : i64} : tensor<2x16xf32, affine_map<()[s0] -> (2, s0)>>, tensor<16xf32> -> tensor<2x16xf32, affine_map<()[s0] -> (2, s0)>>, tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @squeeze_dynamic(%x: tensor<1x4xf32, affine_map<()[s0] -> (s0, 4)>>) attributes {graph.dims = [{name = "n", max = 1 : i64}]} {
  // expected-error @+2 {{cannot squeeze dim 0 of size s0 in [s0, 4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.squeeze %x {axes = array<i64: 0>} : tensor<1x4xf32, affine_map<()[s0] -> (s0, 4)>> -> tensor<4xf32>
  return
}

// -----

// Along a dynamic dim a slice takes the whole dim.
func.func @slice_dynamic(%x: tensor<64x8xf32, affine_map<()[s0] -> (s0, 8)>>) attributes {graph.dims = [{name = "seq", max = 64 : i64}]} {
  // expected-error @+2 {{slice 1:s0:1 of dim 0 of [s0, 8] is not supported with dynamic dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.slice %x {starts = array<i64: 1, 0>, ends = array<i64: 64, 8>, steps = array<i64: 1, 1>, graph.sym = {ends = affine_map<()[s0] -> (s0, 8)>}} : tensor<64x8xf32, affine_map<()[s0] -> (s0, 8)>> -> tensor<63x8xf32>
  return
}

// -----

func.func @split_dynamic(%x: tensor<64x8xf32, affine_map<()[s0] -> (s0, 8)>>) attributes {graph.dims = [{name = "seq", max = 64 : i64}]} {
  // expected-error @+2 {{splitting dynamic dim 0 of [s0, 8] is not supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = graph.split %x {axis = 0 : i64, sizes = array<i64: 32, 32>} : tensor<64x8xf32, affine_map<()[s0] -> (s0, 8)>> -> tensor<32x8xf32>, tensor<32x8xf32>
  return
}

// -----

// A mask whose length is another symbol does not fit the scores.
func.func @attention_mask(%q: tensor<2x16x8xf32, affine_map<()[s0, s1] -> (2, s0, 8)>>, %m: tensor<2x1x16xf32, affine_map<()[s0, s1] -> (2, 1, s1)>>) attributes {graph.dims = [{name = "seq", max = 16 : i64}, {name = "other", max = 16 : i64}]} {
  // expected-error @+3 {{shapes [2, 1, s1] and [2, s0, s0] do not broadcast: dim 2 is s1 vs s0}}
  // expected-error @+2 {{does not broadcast to the scores [2, s0, s0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.attention %q, %q, %q mask %m {scale = 0.35 : f32} : tensor<2x16x8xf32, affine_map<()[s0, s1] -> (2, s0, 8)>>, tensor<2x16x8xf32, affine_map<()[s0, s1] -> (2, s0, 8)>>, tensor<2x16x8xf32, affine_map<()[s0, s1] -> (2, s0, 8)>>, tensor<2x1x16xf32, affine_map<()[s0, s1] -> (2, 1, s1)>> -> tensor<2x16x8xf32, affine_map<()[s0, s1] -> (2, s0, 8)>>
  return
}
