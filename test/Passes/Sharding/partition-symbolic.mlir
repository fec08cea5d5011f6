// RUN: %shardc-opt %s --split-input-file --dist-propagate --dist-partition | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-propagate | FileCheck %s --check-prefix=PROP
// dist-partition with bounded dynamic dims (docs/dynamic-shapes.md): the
// rank's local types keep their symbolic mirrors, only static dims are
// split, and the collectives, the reshards' slices and the attributes that
// carry a result shape keep the mirrors too. A dynamic dim is never split:
// its size divides by the ranks only at its bound.

// The Megatron MLP on [batch, seq, hidden]: the hidden dims split, the
// tokens whole on every rank.
// CHECK-DAG:     #[[BSH:.+]] = affine_map<()[s0, s1] -> (s0, s1, 4)>
// CHECK-DAG:     #[[HALF:.+]] = affine_map<()[s0, s1] -> (s0, s1, 2)>
// CHECK-LABEL: func.func @mlp_rank0
// CHECK-SAME:    (%[[X:.+]]: tensor<2x8x4xf32, #[[BSH]]>) -> tensor<2x8x2xf32, #[[HALF]]>
// CHECK-SAME:    graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}], kern.ranks = array<i64: 0>
// CHECK:         %[[H:.+]] = graph.linear %[[X]], %{{.*}} {activation = "gelu"} : tensor<2x8x4xf32, #[[BSH]]>, tensor<4x2xf32> -> tensor<2x8x2xf32, #[[HALF]]>
// CHECK:         %[[P:.+]] = graph.linear %[[H]], %{{.*}} : tensor<2x8x2xf32, #[[HALF]]>, tensor<2x2xf32> -> tensor<2x8x2xf32, #[[HALF]]>
// CHECK:         %[[S:.+]] = dist.all_reduce %[[P]] on @mesh axes = ["tp"] kind = "sum" : tensor<2x8x2xf32, #[[HALF]]>
// CHECK:         graph.add %[[S]], %{{.*}} : tensor<2x8x2xf32, #[[HALF]]>, tensor<2xf32> -> tensor<2x8x2xf32, #[[HALF]]>
// CHECK-LABEL: func.func @mlp_rank1
#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
#out = affine_map<()[s0, s1] -> (s0, s1, 2)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @mlp(%x: tensor<2x8x4xf32, #bsh>) -> tensor<2x8x2xf32, #out> attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  %w1 = graph.constant dense<1.0> : tensor<4x4xf32>
  %w2 = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %b = graph.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %ws = dist.shard %w1 : tensor<4x4xf32> to #dist.sharding<@mesh, [[], ["tp"]]>
  %h = graph.linear %x, %ws {activation = "gelu"} : tensor<2x8x4xf32, #bsh>, tensor<4x4xf32> -> tensor<2x8x4xf32, #bsh>
  %y = graph.linear %h, %w2 bias %b : tensor<2xf32> : tensor<2x8x4xf32, #bsh>, tensor<4x2xf32> -> tensor<2x8x2xf32, #out>
  return %y : tensor<2x8x2xf32, #out>
}

// -----

// Position embeddings cut to the run's tokens (a slice ending at s1, as
// the importer makes of Range), split on their columns with the hidden
// state: the slice's `ends` mirror follows its local type; the seed's
// reshard slices the tokens whole (ends at s0, s1) and the result is
// all-gathered on its static dim.
// CHECK-DAG:     #[[BSH:.+]] = affine_map<()[s0, s1] -> (s0, s1, 4)>
// CHECK-DAG:     #[[POS:.+]] = affine_map<()[s0, s1] -> (s1, 2)>
// CHECK-DAG:     #[[HALF:.+]] = affine_map<()[s0, s1] -> (s0, s1, 2)>
// CHECK-LABEL: func.func @positions_rank1
// CHECK:         %[[T:.+]] = graph.constant dense<2.500000e-01> : tensor<8x2xf32>
// CHECK:         %[[P:.+]] = graph.slice %[[T]] {ends = array<i64: 8, 2>, graph.sym = {ends = #[[POS]]}, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<8x2xf32> -> tensor<8x2xf32, #[[POS]]>
// CHECK:         %[[X:.+]] = graph.slice %arg0 {ends = array<i64: 2, 8, 4>, graph.sym = {ends = #[[BSH]]}, starts = array<i64: 0, 0, 2>, steps = array<i64: 1, 1, 1>} : tensor<2x8x4xf32, #[[BSH]]> -> tensor<2x8x2xf32, #[[HALF]]>
// CHECK:         %[[A:.+]] = graph.add %[[X]], %[[P]] : tensor<2x8x2xf32, #[[HALF]]>, tensor<8x2xf32, #[[POS]]> -> tensor<2x8x2xf32, #[[HALF]]>
// CHECK:         %[[E:.+]] = graph.exp %[[A]] : tensor<2x8x2xf32, #[[HALF]]>
// CHECK:         dist.all_gather %[[E]] on @mesh axes = ["tp"] dim = 2 : tensor<2x8x2xf32, #[[HALF]]> -> tensor<2x8x4xf32, #[[BSH]]>
#pos = affine_map<()[s0, s1] -> (s1, 4)>
#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @positions(%x: tensor<2x8x4xf32, #bsh>) -> tensor<2x8x4xf32, #bsh> attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  %table = graph.constant dense<0.25> : tensor<8x4xf32>
  %p = graph.slice %table {starts = array<i64: 0, 0>, ends = array<i64: 8, 4>, steps = array<i64: 1, 1>, graph.sym = {ends = #pos}} : tensor<8x4xf32> -> tensor<8x4xf32, #pos>
  %a = graph.add %x, %p : tensor<2x8x4xf32, #bsh>, tensor<8x4xf32, #pos> -> tensor<2x8x4xf32, #bsh>
  %s = dist.shard %a : tensor<2x8x4xf32, #bsh> to #dist.sharding<@mesh, [[], [], ["tp"]]>
  %e = graph.exp %s : tensor<2x8x4xf32, #bsh>
  return %e : tensor<2x8x4xf32, #bsh>
}

// -----

// Rows split on their static dim, then flattened with the dynamic one:
// [8, s0] -> [8 * s0]. Splitting the product along its major (static)
// factor would divide exactly, but the flattened dim is dynamic and stays
// whole: the rows are all-gathered (along the static dim) before the
// reshape, whose `shape` keeps its mirror.
// PROP-LABEL:  func.func @flatten
// PROP:          graph.exp {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[}}"tp"], []]>]
// PROP:          graph.reshape {{.*}}dist.shardings = [#dist.sharding<@mesh, {{\[\[}}]]>]
// CHECK-DAG:     #[[ROWS:.+]] = affine_map<()[s0] -> (8, s0)>
// CHECK-DAG:     #[[FLAT:.+]] = affine_map<()[s0] -> (s0 * 8)>
// CHECK-DAG:     #[[HALF:.+]] = affine_map<()[s0] -> (4, s0)>
// CHECK-LABEL: func.func @flatten_rank0
// CHECK:         %[[X:.+]] = graph.slice %arg0 {ends = array<i64: 4, 16>, graph.sym = {ends = #[[HALF]]}, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>}
// CHECK:         %[[E:.+]] = graph.exp %[[X]] : tensor<4x16xf32, #[[HALF]]>
// CHECK:         %[[G:.+]] = dist.all_gather %[[E]] on @mesh axes = ["tp"] dim = 0 : tensor<4x16xf32, #[[HALF]]> -> tensor<8x16xf32, #[[ROWS]]>
// CHECK:         graph.reshape %[[G]] {graph.sym = {shape = #[[FLAT]]}, shape = array<i64: 128>} : tensor<8x16xf32, #[[ROWS]]> -> tensor<128xf32, #[[FLAT]]>
#rows = affine_map<()[s0] -> (8, s0)>
#flat = affine_map<()[s0] -> (s0 * 8)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @flatten(%x: tensor<8x16xf32, #rows>) -> tensor<128xf32, #flat> attributes {graph.dims = [{max = 16 : i64, name = "seq"}]} {
  %s = dist.shard %x : tensor<8x16xf32, #rows> to #dist.sharding<@mesh, [["tp"], []]>
  %e = graph.exp %s : tensor<8x16xf32, #rows>
  %y = graph.reshape %e {shape = array<i64: 128>, graph.sym = {shape = #flat}} : tensor<8x16xf32, #rows> -> tensor<128xf32, #flat>
  return %y : tensor<128xf32, #flat>
}

// -----

// A mean over a dynamic dim and a split static one: the count is the
// run's, so each rank takes the mean of its part and the sum of the means
// is divided by the number of parts (at a static shape: sums, divided by
// the whole count).
// CHECK-DAG:     #[[B:.+]] = affine_map<()[s0] -> (s0)>
// CHECK-DAG:     #[[HALF:.+]] = affine_map<()[s0, s1] -> (s0, s1, 2)>
// CHECK-LABEL: func.func @mean_rank0
// CHECK:         %[[M:.+]] = graph.reduce_mean %{{.*}} {axes = array<i64: 1, 2>, keepdims = false} : tensor<2x8x2xf32, #[[HALF]]> -> tensor<2xf32, #[[B]]>
// CHECK:         %[[S:.+]] = dist.all_reduce %[[M]] on @mesh axes = ["tp"] kind = "sum" : tensor<2xf32, #[[B]]>
// CHECK:         %[[N:.+]] = graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         graph.div %[[S]], %[[N]] : tensor<2xf32, #[[B]]>, tensor<f32> -> tensor<2xf32, #[[B]]>
#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
#b = affine_map<()[s0] -> (s0)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @mean(%x: tensor<2x8x4xf32, #bsh>) -> tensor<2xf32, #b> attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  %s = dist.shard %x : tensor<2x8x4xf32, #bsh> to #dist.sharding<@mesh, [[], [], ["tp"]]>
  %m = graph.reduce_mean %s {axes = array<i64: 1, 2>, keepdims = false} : tensor<2x8x4xf32, #bsh> -> tensor<2xf32, #b>
  return %m : tensor<2xf32, #b>
}
