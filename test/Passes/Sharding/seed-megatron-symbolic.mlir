// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron=tp=4 | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron=tp=2 --dist-propagate --dist-partition | FileCheck %s --check-prefix=PART
// dist-seed-megatron's rewrites with bounded dynamic dims
// (docs/dynamic-shapes.md): what they rebuild keeps the symbolic mirrors.

// Grouped-query attention over [batch, seq] tokens (equal bounds: only
// the mirrors tell the symbols and the 4 heads apart) with fewer KV heads
// (2) than ranks (4): the copies of KV heads 0, 0, 1, 1 are pushed through
// the rotary halves (slices and a concatenation off the head dim, whose
// `ends` mirrors follow), the transpose and the reshape (its `shape`
// mirror) into the projections' columns; the repeat is rebuilt over the
// symbols.
// CHECK-DAG:   #[[HEADS:.+]] = affine_map<()[s0, s1] -> (s0, 4, s1, 2)>
// CHECK-DAG:   #[[SPLIT:.+]] = affine_map<()[s0, s1] -> (s0, s1, 4, 2)>
// CHECK-DAG:   #[[HALF:.+]] = affine_map<()[s0, s1] -> (s0, 4, s1, 1)>
// CHECK-DAG:   #[[ONE:.+]] = affine_map<()[s0, s1] -> (s0, 4, 1, s1, 2)>
// CHECK-LABEL: func.func @gqa
// CHECK:       %[[WK:.+]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 3.000000e+00, 4.000000e+00]
// CHECK:       %[[K:.+]] = graph.matmul %arg0, %[[WK]] : tensor<4x4x4xf32, #{{.*}}>, tensor<4x8xf32> -> tensor<4x4x8xf32, #{{.*}}>
// CHECK:       %[[K4:.+]] = graph.reshape %[[K]] {graph.sym = {shape = #[[SPLIT]]}, shape = array<i64: 4, 4, 4, 2>}
// CHECK:       %[[KT:.+]] = graph.transpose %[[K4]] {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x2xf32, #[[SPLIT]]> -> tensor<4x4x4x2xf32, #[[HEADS]]>
// CHECK:       graph.slice %[[KT]] {ends = array<i64: 4, 4, 4, 1>, graph.sym = {ends = #[[HALF]]}, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x2xf32, #[[HEADS]]> -> tensor<4x4x4x1xf32, #[[HALF]]>
// CHECK:       graph.slice %[[KT]] {ends = array<i64: 4, 4, 4, 2>, graph.sym = {ends = #[[HEADS]]}, starts = array<i64: 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, 1>}
// CHECK:       graph.reshape %{{.*}} {graph.sym = {shape = #[[ONE]]}, shape = array<i64: 4, 4, 1, 4, 2>} : tensor<4x4x4x2xf32, #[[HEADS]]> -> tensor<4x4x1x4x2xf32, #[[ONE]]>
// CHECK-NEXT:  graph.expand %{{.*}} {graph.sym = {shape = #[[ONE]]}, shape = array<i64: 4, 4, 1, 4, 2>}
// CHECK-NEXT:  graph.reshape %{{.*}} {graph.sym = {shape = #[[HEADS]]}, shape = array<i64: 4, 4, 4, 2>} : tensor<4x4x1x4x2xf32, #[[ONE]]> -> tensor<4x4x4x2xf32, #[[HEADS]]>
// CHECK-NOT:   graph.gather
// CHECK-COUNT-3: dist.shard %{{.*}} : tensor<4x4x4x2xf32, #[[HEADS]]> to #dist.sharding<@mesh, {{\[\[\], \["tp"\], \[\], \[\]\]}}>
// CHECK:       graph.attention
#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
#bs8 = affine_map<()[s0, s1] -> (s0, s1, 8)>
#q4 = affine_map<()[s0, s1] -> (s0, s1, 4, 2)>
#qt = affine_map<()[s0, s1] -> (s0, 4, s1, 2)>
#k = affine_map<()[s0, s1] -> (s0, s1, 4)>
#k4 = affine_map<()[s0, s1] -> (s0, s1, 2, 2)>
#kt = affine_map<()[s0, s1] -> (s0, 2, s1, 2)>
#kh = affine_map<()[s0, s1] -> (s0, 2, s1, 1)>
#k5 = affine_map<()[s0, s1] -> (s0, 2, 1, s1, 2)>
#ke = affine_map<()[s0, s1] -> (s0, 2, 2, s1, 2)>
func.func @gqa(%x: tensor<4x4x4xf32, #bsh>) -> tensor<4x4x4x2xf32, #qt> attributes {graph.dims = [{max = 4 : i64, name = "batch"}, {max = 4 : i64, name = "seq"}]} {
  %wq = graph.constant dense<0.5> : tensor<4x8xf32>
  %wk = graph.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>
  %wv = graph.constant dense<[[1.0, -1.0, 2.0, -2.0], [3.0, -3.0, 4.0, -4.0], [5.0, -5.0, 6.0, -6.0], [7.0, -7.0, 8.0, -8.0]]> : tensor<4x4xf32>
  %q = graph.matmul %x, %wq : tensor<4x4x4xf32, #bsh>, tensor<4x8xf32> -> tensor<4x4x8xf32, #bs8>
  %q4 = graph.reshape %q {shape = array<i64: 4, 4, 4, 2>, graph.sym = {shape = #q4}} : tensor<4x4x8xf32, #bs8> -> tensor<4x4x4x2xf32, #q4>
  %qt = graph.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x2xf32, #q4> -> tensor<4x4x4x2xf32, #qt>
  %k = graph.matmul %x, %wk : tensor<4x4x4xf32, #bsh>, tensor<4x4xf32> -> tensor<4x4x4xf32, #k>
  %k4 = graph.reshape %k {shape = array<i64: 4, 4, 2, 2>, graph.sym = {shape = #k4}} : tensor<4x4x4xf32, #k> -> tensor<4x4x2x2xf32, #k4>
  %kt = graph.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x2xf32, #k4> -> tensor<4x2x4x2xf32, #kt>
  %lo = graph.slice %kt {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 4, 2, 4, 1>, steps = array<i64: 1, 1, 1, 1>, graph.sym = {ends = #kh}} : tensor<4x2x4x2xf32, #kt> -> tensor<4x2x4x1xf32, #kh>
  %hi = graph.slice %kt {starts = array<i64: 0, 0, 0, 1>, ends = array<i64: 4, 2, 4, 2>, steps = array<i64: 1, 1, 1, 1>, graph.sym = {ends = #kt}} : tensor<4x2x4x2xf32, #kt> -> tensor<4x2x4x1xf32, #kh>
  %nh = graph.neg %hi : tensor<4x2x4x1xf32, #kh>
  %kr = graph.concat %nh, %lo {axis = 3 : i64} : tensor<4x2x4x1xf32, #kh>, tensor<4x2x4x1xf32, #kh> -> tensor<4x2x4x2xf32, #kt>
  %k5 = graph.reshape %kr {shape = array<i64: 4, 2, 1, 4, 2>, graph.sym = {shape = #k5}} : tensor<4x2x4x2xf32, #kt> -> tensor<4x2x1x4x2xf32, #k5>
  %ke = graph.expand %k5 {shape = array<i64: 4, 2, 2, 4, 2>, graph.sym = {shape = #ke}} : tensor<4x2x1x4x2xf32, #k5> -> tensor<4x2x2x4x2xf32, #ke>
  %kk = graph.reshape %ke {shape = array<i64: 4, 4, 4, 2>, graph.sym = {shape = #qt}} : tensor<4x2x2x4x2xf32, #ke> -> tensor<4x4x4x2xf32, #qt>
  %v = graph.matmul %x, %wv : tensor<4x4x4xf32, #bsh>, tensor<4x4xf32> -> tensor<4x4x4xf32, #k>
  %v4 = graph.reshape %v {shape = array<i64: 4, 4, 2, 2>, graph.sym = {shape = #k4}} : tensor<4x4x4xf32, #k> -> tensor<4x4x2x2xf32, #k4>
  %vt = graph.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x2xf32, #k4> -> tensor<4x2x4x2xf32, #kt>
  %v5 = graph.reshape %vt {shape = array<i64: 4, 2, 1, 4, 2>, graph.sym = {shape = #k5}} : tensor<4x2x4x2xf32, #kt> -> tensor<4x2x1x4x2xf32, #k5>
  %ve = graph.expand %v5 {shape = array<i64: 4, 2, 2, 4, 2>, graph.sym = {shape = #ke}} : tensor<4x2x1x4x2xf32, #k5> -> tensor<4x2x2x4x2xf32, #ke>
  %vv = graph.reshape %ve {shape = array<i64: 4, 4, 4, 2>, graph.sym = {shape = #qt}} : tensor<4x2x2x4x2xf32, #ke> -> tensor<4x4x4x2xf32, #qt>
  %a = graph.attention %qt, %kk, %vv {scale = 1.0 : f32} : tensor<4x4x4x2xf32, #qt>, tensor<4x4x4x2xf32, #qt>, tensor<4x4x4x2xf32, #qt> -> tensor<4x4x4x2xf32, #qt>
  return %a : tensor<4x4x4x2xf32, #qt>
}

// -----

// A vocabulary (15) that the ranks do not divide, padded to 16: the LM
// head's wide product keeps the tokens' symbols, and the slice back to the
// vocabulary ends at them (its `ends` mirror).
// CHECK-LABEL: func.func @padded
// PART-DAG:    #[[LOGITS:.+]] = affine_map<()[s0, s1] -> (s0, s1, 15)>
// PART-DAG:    #[[HALF:.+]] = affine_map<()[s0, s1] -> (s0, s1, 8)>
// PART-DAG:    #[[WIDE:.+]] = affine_map<()[s0, s1] -> (s0, s1, 16)>
// PART-LABEL:  func.func @padded_rank1
// PART:        graph.gather %{{.*}}, %arg0 {axis = 0 : i64, part = array<i64: 15, 8>} : tensor<8x4xf32>
// PART:        %[[P:.+]] = graph.matmul %{{.*}}, %{{.*}} : tensor<2x8x4xf32, #{{.*}}>, tensor<4x8xf32> -> tensor<2x8x8xf32, #[[HALF]]>
// PART:        %[[G:.+]] = dist.all_gather %[[P]] on @mesh axes = ["tp"] dim = 2 : tensor<2x8x8xf32, #[[HALF]]> -> tensor<2x8x16xf32, #[[WIDE]]>
// PART:        graph.slice %[[G]] {ends = array<i64: 2, 8, 15>, graph.sym = {ends = #[[LOGITS]]}, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x8x16xf32, #[[WIDE]]> -> tensor<2x8x15xf32, #[[LOGITS]]>
#bs = affine_map<()[s0, s1] -> (s0, s1)>
#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
#out = affine_map<()[s0, s1] -> (s0, s1, 15)>
func.func @padded(%ids: tensor<2x8xi64, #bs>) -> tensor<2x8x15xf32, #out> attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  %table = graph.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0], [28.0, 29.0, 30.0, 31.0], [32.0, 33.0, 34.0, 35.0], [36.0, 37.0, 38.0, 39.0], [40.0, 41.0, 42.0, 43.0], [44.0, 45.0, 46.0, 47.0], [48.0, 49.0, 50.0, 51.0], [52.0, 53.0, 54.0, 55.0], [56.0, 57.0, 58.0, 59.0]]> : tensor<15x4xf32>
  %head = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0], [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5]]> : tensor<4x15xf32>
  %x = graph.gather %table, %ids {axis = 0 : i64} : tensor<15x4xf32>, tensor<2x8xi64, #bs> -> tensor<2x8x4xf32, #bsh>
  %y = graph.matmul %x, %head : tensor<2x8x4xf32, #bsh>, tensor<4x15xf32> -> tensor<2x8x15xf32, #out>
  return %y : tensor<2x8x15xf32, #out>
}
