// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --convert-graph-to-kern | FileCheck %s
// Lowering over bounded dynamic dims: buffers keep their bound types; the
// function keeps its symbols (kern.dims), arguments and buffers their
// symbolic shapes, and generated kernels their symbolic space and layouts
// (kern.sym). Both symbols have a bound of 8: only the mirrors tell them
// apart.

#bsh = affine_map<()[s0, s1] -> (s0, s1, 16)>

// A broadcast add: the bias row has stride 0 on the dynamic dims; the
// output is dense over [s0, s1, 16].
// CHECK-DAG: #[[BSH:.+]] = affine_map<()[s0, s1] -> (s0, s1, 16)>
// CHECK-DAG: #[[DENSE:.+]] = affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<() -> (0, 0, 0, 1)>
// CHECK-LABEL: func.func @add
// CHECK-SAME: kern.input = "x", kern.sym = #[[BSH]]
// CHECK-SAME: kern.output = "y", kern.sym = #[[BSH]]
// CHECK-SAME: kern.dims = [{max = 8 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]
// CHECK: kern.map ins({{.*}}) outs({{.*}}) attributes {kern.sym = {layouts = [#[[DENSE]], #[[ROW]], #[[DENSE]]], shape = #[[BSH]]}, layouts = [array<i64: 0, 128, 16, 1>, array<i64: 0, 0, 0, 1>, array<i64: 0, 128, 16, 1>], shape = array<i64: 8, 8, 16>}
func.func @add(%x: tensor<8x8x16xf32, #bsh> {graph.name = "x"}, %b: tensor<16xf32> {graph.name = "b"}) -> (tensor<8x8x16xf32, #bsh> {graph.name = "y"}) attributes {graph.dims = [{name = "batch", max = 8 : i64}, {name = "seq", max = 8 : i64}]} {
  %0 = graph.add %x, %b : tensor<8x8x16xf32, #bsh>, tensor<16xf32> -> tensor<8x8x16xf32, #bsh>
  return %0 : tensor<8x8x16xf32, #bsh>
}

// -----

// GPT-2's view(-1, nx) and its Conv1D: a view of [s0, s1, 16] as
// [s0 * s1, 16] (no copy), one GEMM on the symbolic buffers; a transpose
// of the dynamic dims reads through permuted strides.
// CHECK-DAG: #[[ROWS:.+]] = affine_map<()[s0, s1] -> (s0 * s1, 16)>
// CHECK-DAG: #[[T:.+]] = affine_map<()[s0, s1] -> (s1, s0, 16)>
// CHECK-DAG: #[[TIN:.+]] = affine_map<()[s0, s1] -> (0, 16, s1 * 16, 1)>
// CHECK-LABEL: func.func @rows
// CHECK: %[[V:.+]] = kern.view %arg0 {kern.sym = {result = #[[ROWS]]}} : memref<8x8x16xf32> to memref<64x16xf32>
// CHECK: %[[G:.+]] = kern.alloc {kern.sym = {result = #[[ROWS]]}} : memref<64x16xf32>
// CHECK: kern.matmul %[[V]], %arg1 into %[[G]]
// CHECK: kern.map ins(%arg0 : memref<8x8x16xf32>) outs(%arg3 : memref<8x8x16xf32>) attributes {kern.sym = {layouts = [#[[TIN]], {{.*}}], shape = #[[T]]}
func.func @rows(%x: tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s0, s1, 16)>> {graph.name = "x"}, %w: tensor<16x16xf32> {graph.name = "w"}) -> (tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s0, s1, 16)>> {graph.name = "y"}, tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s1, s0, 16)>> {graph.name = "t"}) attributes {graph.dims = [{name = "batch", max = 8 : i64}, {name = "seq", max = 8 : i64}]} {
  %0 = graph.reshape %x {shape = array<i64: 64, 16>, graph.sym = {shape = affine_map<()[s0, s1] -> (s0 * s1, 16)>}} : tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s0, s1, 16)>> -> tensor<64x16xf32, affine_map<()[s0, s1] -> (s0 * s1, 16)>>
  %1 = graph.gemm %0, %w : tensor<64x16xf32, affine_map<()[s0, s1] -> (s0 * s1, 16)>>, tensor<16x16xf32> -> tensor<64x16xf32, affine_map<()[s0, s1] -> (s0 * s1, 16)>>
  %2 = graph.reshape %1 {shape = array<i64: 8, 8, 16>, graph.sym = {shape = affine_map<()[s0, s1] -> (s0, s1, 16)>}} : tensor<64x16xf32, affine_map<()[s0, s1] -> (s0 * s1, 16)>> -> tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s0, s1, 16)>>
  %3 = graph.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s0, s1, 16)>> -> tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s1, s0, 16)>>
  return %2, %3 : tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s0, s1, 16)>>, tensor<8x8x16xf32, affine_map<()[s0, s1] -> (s1, s0, 16)>>
}

// -----

// Concatenation along the dynamic dim: the second piece is written at
// offset s0 * 16; a mean over it divides by this run's count.
// CHECK-DAG: #[[AT:.+]] = affine_map<()[s0] -> (s0 * 16, 16, 1)>
// CHECK-DAG: #[[TWICE:.+]] = affine_map<()[s0] -> (s0 * 2, 16)>
// CHECK-LABEL: func.func @concat
// CHECK: kern.map {{.*}}layouts = [{{.*}}, #[[AT]]]
// CHECK: kern.reduce "mean" {{.*}}kern.sym = {layouts = {{.*}}, shape = #[[TWICE]]}
func.func @concat(%a: tensor<8x16xf32, affine_map<()[s0] -> (s0, 16)>> {graph.name = "a"}) -> (tensor<16x16xf32, affine_map<()[s0] -> (s0 * 2, 16)>> {graph.name = "c"}, tensor<16xf32> {graph.name = "m"}) attributes {graph.dims = [{name = "n", max = 8 : i64}]} {
  %0 = graph.concat %a, %a {axis = 0 : i64} : tensor<8x16xf32, affine_map<()[s0] -> (s0, 16)>>, tensor<8x16xf32, affine_map<()[s0] -> (s0, 16)>> -> tensor<16x16xf32, affine_map<()[s0] -> (s0 * 2, 16)>>
  %1 = graph.reduce_mean %0 {axes = array<i64: 0>, keepdims = false} : tensor<16x16xf32, affine_map<()[s0] -> (s0 * 2, 16)>> -> tensor<16xf32>
  return %0, %1 : tensor<16x16xf32, affine_map<()[s0] -> (s0 * 2, 16)>>, tensor<16xf32>
}

// -----

// Attention over dynamic sequences: dims and layouts are symbolic.
// CHECK-DAG: #[[DIMS:.+]] = affine_map<()[s0] -> (4, s0, s0, 8, 8)>
// CHECK-DAG: #[[QKV:.+]] = affine_map<()[s0] -> (0, s0 * 8, 8, 1)>
// CHECK-LABEL: func.func @attention
// CHECK: kern.attention {{.*}}kern.sym = {dims = #[[DIMS]], k_layout = #[[QKV]], q_layout = #[[QKV]], v_layout = #[[QKV]], y_layout = #[[QKV]]}
func.func @attention(%q: tensor<4x8x8xf32, affine_map<()[s0] -> (4, s0, 8)>> {graph.name = "q"}) -> (tensor<4x8x8xf32, affine_map<()[s0] -> (4, s0, 8)>> {graph.name = "y"}) attributes {graph.dims = [{name = "seq", max = 8 : i64}]} {
  %0 = graph.attention %q, %q, %q {causal = true, scale = 0.35 : f32} : tensor<4x8x8xf32, affine_map<()[s0] -> (4, s0, 8)>>, tensor<4x8x8xf32, affine_map<()[s0] -> (4, s0, 8)>>, tensor<4x8x8xf32, affine_map<()[s0] -> (4, s0, 8)>> -> tensor<4x8x8xf32, affine_map<()[s0] -> (4, s0, 8)>>
  return %0 : tensor<4x8x8xf32, affine_map<()[s0] -> (4, s0, 8)>>
}
