// RUN: %shardc-opt %s --split-input-file | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --canonicalize | FileCheck %s --check-prefix=CANON
// Bounded dynamic dims: types keep the bound and mirror the shape over the
// function's symbols (graph.dims); inference carries the mirror through
// (SymbolicShapes.h). Bounds of 8 for both symbols in @equal_bounds: equal
// bounds never make two symbols one.

#bsd = affine_map<()[s0, s1] -> (s0, s1, 768)>
#bs = affine_map<()[s0, s1] -> (s0, s1)>
#bshd = affine_map<()[s0, s1] -> (s0, s1, 12, 64)>
#bhsd = affine_map<()[s0, s1] -> (s0, 12, s1, 64)>

// CHECK-DAG: #[[BSD:.+]] = affine_map<()[s0, s1] -> (s0, s1, 768)>
// CHECK-DAG: #[[BSHD:.+]] = affine_map<()[s0, s1] -> (s0, s1, 12, 64)>
// CHECK-DAG: #[[BHSD:.+]] = affine_map<()[s0, s1] -> (s0, 12, s1, 64)>
// CHECK-DAG: #[[BS11:.+]] = affine_map<()[s0, s1] -> (s0, 1, 1, s1)>
// CHECK-DAG: #[[SQ:.+]] = affine_map<()[s0, s1] -> (s0, 12, s1, s1)>
// CHECK-LABEL: func.func @heads
// CHECK-SAME: graph.dims = [{max = 8 : i64, name = "batch"}, {max = 128 : i64, name = "seq"}]
func.func @heads(%x: tensor<8x128x768xf32, #bsd>, %w: tensor<768x768xf32>, %b: tensor<768xf32>, %m: tensor<8x128xf32, #bs>) -> tensor<8x12x128x128xf32, affine_map<()[s0, s1] -> (s0, 12, s1, s1)>> attributes {graph.dims = [{name = "batch", max = 8 : i64}, {name = "seq", max = 128 : i64}]} {
  // CHECK: graph.matmul {{.*}} -> tensor<8x128x768xf32, #[[BSD]]>
  %0 = graph.matmul %x, %w : tensor<8x128x768xf32, #bsd>, tensor<768x768xf32> -> tensor<8x128x768xf32, #bsd>
  // CHECK: graph.add {{.*}} -> tensor<8x128x768xf32, #[[BSD]]>
  %1 = graph.add %0, %b : tensor<8x128x768xf32, #bsd>, tensor<768xf32> -> tensor<8x128x768xf32, #bsd>
  // CHECK: graph.reshape {{.*}}graph.sym = {shape = #[[BSHD]]}{{.*}} -> tensor<8x128x12x64xf32, #[[BSHD]]>
  %2 = graph.reshape %1 {shape = array<i64: 8, 128, 12, 64>, graph.sym = {shape = #bshd}} : tensor<8x128x768xf32, #bsd> -> tensor<8x128x12x64xf32, #bshd>
  // CHECK: graph.transpose {{.*}} -> tensor<8x12x128x64xf32, #[[BHSD]]>
  %3 = graph.transpose %2 {perm = array<i64: 0, 2, 1, 3>} : tensor<8x128x12x64xf32, #bshd> -> tensor<8x12x128x64xf32, #bhsd>
  %4 = graph.transpose %2 {perm = array<i64: 0, 2, 3, 1>} : tensor<8x128x12x64xf32, #bshd> -> tensor<8x12x64x128xf32, affine_map<()[s0, s1] -> (s0, 12, 64, s1)>>
  // CHECK: graph.matmul {{.*}} -> tensor<8x12x128x128xf32, #[[SQ]]>
  %5 = graph.matmul %3, %4 : tensor<8x12x128x64xf32, #bhsd>, tensor<8x12x64x128xf32, affine_map<()[s0, s1] -> (s0, 12, 64, s1)>> -> tensor<8x12x128x128xf32, affine_map<()[s0, s1] -> (s0, 12, s1, s1)>>
  // The padding mask, [batch, 1, 1, seq], broadcast over heads and queries.
  // CHECK: graph.unsqueeze {{.*}} -> tensor<8x1x1x128xf32, #[[BS11]]>
  %6 = graph.unsqueeze %m {axes = array<i64: 1, 2>} : tensor<8x128xf32, #bs> -> tensor<8x1x1x128xf32, affine_map<()[s0, s1] -> (s0, 1, 1, s1)>>
  %7 = graph.add %5, %6 : tensor<8x12x128x128xf32, affine_map<()[s0, s1] -> (s0, 12, s1, s1)>>, tensor<8x1x1x128xf32, affine_map<()[s0, s1] -> (s0, 1, 1, s1)>> -> tensor<8x12x128x128xf32, affine_map<()[s0, s1] -> (s0, 12, s1, s1)>>
  // CHECK: graph.softmax {{.*}} : tensor<8x12x128x128xf32, #[[SQ]]>
  %8 = graph.softmax %7 {axis = 3 : i64} : tensor<8x12x128x128xf32, affine_map<()[s0, s1] -> (s0, 12, s1, s1)>>
  return %8 : tensor<8x12x128x128xf32, affine_map<()[s0, s1] -> (s0, 12, s1, s1)>>
}

// -----

// GPT-2's view(-1, nx): rows of batch and sequence merged, then split back;
// the mirror `s1 * s0` is the same size as the type's canonical `s0 * s1`.
// CHECK: #[[FLAT:.+]] = affine_map<()[s0, s1] -> (s0 * s1, 768)>
// CHECK-LABEL: func.func @flatten
func.func @flatten(%x: tensor<4x64x768xf32, affine_map<()[s0, s1] -> (s0, s1, 768)>>, %w: tensor<768x2304xf32>, %b: tensor<2304xf32>) -> tensor<4x64x2304xf32, affine_map<()[s0, s1] -> (s0, s1, 2304)>> attributes {graph.dims = [{name = "batch", max = 4 : i64}, {name = "seq", max = 64 : i64}]} {
  // CHECK: graph.reshape {{.*}} -> tensor<256x768xf32, #[[FLAT]]>
  %0 = graph.reshape %x {shape = array<i64: 256, 768>, graph.sym = {shape = affine_map<()[s0, s1] -> (s1 * s0, 768)>}} : tensor<4x64x768xf32, affine_map<()[s0, s1] -> (s0, s1, 768)>> -> tensor<256x768xf32, affine_map<()[s0, s1] -> (s0 * s1, 768)>>
  %1 = graph.gemm %0, %w, %b : tensor<256x768xf32, affine_map<()[s0, s1] -> (s0 * s1, 768)>>, tensor<768x2304xf32>, tensor<2304xf32> -> tensor<256x2304xf32, affine_map<()[s0, s1] -> (s0 * s1, 2304)>>
  %2 = graph.reshape %1 {shape = array<i64: 4, 64, 2304>, graph.sym = {shape = affine_map<()[s0, s1] -> (s0, s1, 2304)>}} : tensor<256x2304xf32, affine_map<()[s0, s1] -> (s0 * s1, 2304)>> -> tensor<4x64x2304xf32, affine_map<()[s0, s1] -> (s0, s1, 2304)>>
  return %2 : tensor<4x64x2304xf32, affine_map<()[s0, s1] -> (s0, s1, 2304)>>
}

// -----

// Norms over the static hidden dim; statistics keep the dynamic rows. A
// concatenation along the dynamic dim adds sizes.
// CHECK: #[[CAT:.+]] = affine_map<()[s0] -> (2, s0 + 32, 32)>
// CHECK-LABEL: func.func @norm
// CHECK: graph.layer_norm {{.*}} -> tensor<2x16x32xf32, #{{.*}}>, tensor<2x16x1xf32, #[[ST:.+]]>, tensor<2x16x1xf32, #[[ST]]>
// CHECK: graph.reduce_mean {{.*}} -> tensor<2x32xf32>{{$}}
// CHECK: graph.concat {{.*}} -> tensor<2x48x32xf32, #[[CAT]]>
func.func @norm(%x: tensor<2x16x32xf32, affine_map<()[s0] -> (2, s0, 32)>>, %g: tensor<32xf32>, %k: tensor<2x32x32xf32>) attributes {graph.dims = [{name = "seq", max = 16 : i64}]} {
  %0:3 = graph.layer_norm %x, %g {axis = 2 : i64} : tensor<2x16x32xf32, affine_map<()[s0] -> (2, s0, 32)>>, tensor<32xf32> -> tensor<2x16x32xf32, affine_map<()[s0] -> (2, s0, 32)>>, tensor<2x16x1xf32, affine_map<()[s0] -> (2, s0, 1)>>, tensor<2x16x1xf32, affine_map<()[s0] -> (2, s0, 1)>>
  %1 = graph.gelu %0#0 : tensor<2x16x32xf32, affine_map<()[s0] -> (2, s0, 32)>>
  %2 = graph.reduce_mean %1 {axes = array<i64: 1>, keepdims = false} : tensor<2x16x32xf32, affine_map<()[s0] -> (2, s0, 32)>> -> tensor<2x32xf32>
  %3 = graph.concat %k, %1 {axis = 1 : i64} : tensor<2x32x32xf32>, tensor<2x16x32xf32, affine_map<()[s0] -> (2, s0, 32)>> -> tensor<2x48x32xf32, affine_map<()[s0] -> (2, s0 + 32, 32)>>
  return
}

// -----

// Two symbols with equal bounds stay two: [s0] + [s1] is refused (see
// symbolic-invalid.mlir), [s0] + [s0] is fine, and a reshape between
// [s0, s1] and [s1, s0] is not the identity.
// CHECK-LABEL: func.func @equal_bounds
// CANON-LABEL: func.func @equal_bounds
// CANON: %[[R:.+]] = graph.reshape {{.*}} -> tensor<8x8xf32, #{{.*}}>
// CANON: return %[[R]]
func.func @equal_bounds(%x: tensor<8x8xf32, affine_map<()[s0, s1] -> (s0, s1)>>) -> tensor<8x8xf32, affine_map<()[s0, s1] -> (s1, s0)>> attributes {graph.dims = [{name = "a", max = 8 : i64}, {name = "b", max = 8 : i64}]} {
  %0 = graph.add %x, %x : tensor<8x8xf32, affine_map<()[s0, s1] -> (s0, s1)>>, tensor<8x8xf32, affine_map<()[s0, s1] -> (s0, s1)>> -> tensor<8x8xf32, affine_map<()[s0, s1] -> (s0, s1)>>
  %1 = graph.reshape %0 {shape = array<i64: 8, 8>, graph.sym = {shape = affine_map<()[s0, s1] -> (s1, s0)>}} : tensor<8x8xf32, affine_map<()[s0, s1] -> (s0, s1)>> -> tensor<8x8xf32, affine_map<()[s0, s1] -> (s1, s0)>>
  return %1 : tensor<8x8xf32, affine_map<()[s0, s1] -> (s1, s0)>>
}

// -----

// Slices ending at a symbolic size (position ids, the causal triangle), a
// fill of a symbolic shape, a split along a static dim.
// CHECK-DAG: #[[POS:.+]] = affine_map<()[s0] -> (1, s0)>
// CHECK-DAG: #[[X:.+]] = affine_map<()[s0] -> (s0, 96)>
// CHECK-DAG: #[[Q:.+]] = affine_map<()[s0] -> (s0, 32)>
// CHECK-LABEL: func.func @slices
// CHECK: graph.slice {{.*}} -> tensor<1x64xi64, #[[POS]]>
// CHECK: graph.constant_of_shape {{.*}} : tensor<64x96xf32, #[[X]]>
// CHECK: graph.split {{.*}} -> tensor<64x32xf32, #[[Q]]>, tensor<64x64xf32, #{{.*}}>
func.func @slices(%pos: tensor<1x512xi64>, %x: tensor<64x96xf32, affine_map<()[s0] -> (s0, 96)>>) attributes {graph.dims = [{name = "seq", max = 64 : i64}]} {
  %0 = graph.slice %pos {starts = array<i64: 0, 0>, ends = array<i64: 1, 64>, steps = array<i64: 1, 1>, graph.sym = {ends = affine_map<()[s0] -> (1, s0)>}} : tensor<1x512xi64> -> tensor<1x64xi64, affine_map<()[s0] -> (1, s0)>>
  %1 = graph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 64, 96>, steps = array<i64: 1, 1>, graph.sym = {ends = affine_map<()[s0] -> (s0, 96)>}} : tensor<64x96xf32, affine_map<()[s0] -> (s0, 96)>> -> tensor<64x96xf32, affine_map<()[s0] -> (s0, 96)>>
  %2 = graph.constant_of_shape {shape = array<i64: 64, 96>, value = dense<1.0> : tensor<1xf32>, graph.sym = {shape = affine_map<()[s0] -> (s0, 96)>}} : tensor<64x96xf32, affine_map<()[s0] -> (s0, 96)>>
  %3:2 = graph.split %1 {axis = 1 : i64, sizes = array<i64: 32, 64>} : tensor<64x96xf32, affine_map<()[s0] -> (s0, 96)>> -> tensor<64x32xf32, affine_map<()[s0] -> (s0, 32)>>, tensor<64x64xf32, affine_map<()[s0] -> (s0, 64)>>
  return
}

// -----

// The fused ops: a linear layer over dynamic rows, attention over a
// dynamic sequence with a padding mask.
// CHECK-DAG: #[[R:.+]] = affine_map<()[s0] -> (s0, 64)>
// CHECK-DAG: #[[H:.+]] = affine_map<()[s0] -> (2, s0, 8)>
// CHECK-LABEL: func.func @fused
// CHECK: graph.linear {{.*}} -> tensor<16x64xf32, #[[R]]>
// CHECK: graph.attention {{.*}} -> tensor<2x16x8xf32, #[[H]]>
func.func @fused(%x: tensor<16x32xf32, affine_map<()[s0] -> (s0, 32)>>, %w: tensor<32x64xf32>, %b: tensor<64xf32>, %q: tensor<2x16x8xf32, affine_map<()[s0] -> (2, s0, 8)>>, %m: tensor<2x1x16xf32, affine_map<()[s0] -> (2, 1, s0)>>) attributes {graph.dims = [{name = "seq", max = 16 : i64}]} {
  %0 = graph.linear %x, %w bias %b : tensor<64xf32> : tensor<16x32xf32, affine_map<()[s0] -> (s0, 32)>>, tensor<32x64xf32> -> tensor<16x64xf32, affine_map<()[s0] -> (s0, 64)>>
  %1 = graph.attention %q, %q, %q mask %m {scale = 0.35 : f32} : tensor<2x16x8xf32, affine_map<()[s0] -> (2, s0, 8)>>, tensor<2x16x8xf32, affine_map<()[s0] -> (2, s0, 8)>>, tensor<2x16x8xf32, affine_map<()[s0] -> (2, s0, 8)>>, tensor<2x1x16xf32, affine_map<()[s0] -> (2, 1, s0)>> -> tensor<2x16x8xf32, affine_map<()[s0] -> (2, s0, 8)>>
  return
}
