// RUN: %shardc-opt %s --split-input-file --dist-seed-experts="ep=2" --verify-diagnostics | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-seed-experts="ep=2" --dist-seed-megatron="tp=2" --dist-propagate --dist-partition --verify-diagnostics | FileCheck %s --check-prefix=PART
// dist-seed-experts: every graph.moe's stacked experts split over "ep";
// dist-partition makes the op a dist.moe on that axis, with its tokens
// split over ep and the axes nothing else splits it along (tp), and
// gathers the result back minor axis first.

// CHECK:       dist.mesh @mesh axes = ["ep"] shape = [2]
// CHECK-LABEL: func.func @main
// CHECK:         %[[GU:.*]] = dist.shard %{{.*}} : tensor<4x2x2xf32> to #dist.sharding<@mesh, {{\[\["ep"\], \[\], \[\]\]}}>
// CHECK:         %[[DN:.*]] = dist.shard %{{.*}} : tensor<4x1x2xf32> to #dist.sharding<@mesh, {{\[\["ep"\], \[\], \[\]\]}}>
// CHECK:         graph.moe %arg0, %arg1, %arg2, %[[GU]], %[[DN]]

// On the ep x tp = 2 x 2 mesh rank 2 has coordinates (1, 0): experts 2 and
// 3 (their weights sliced at compile time), tokens [4, 6) of 8.
// PART:        dist.mesh @mesh axes = ["ep", "tp"] shape = [2, 2]
// PART-LABEL:  func.func @main_rank2
// PART-DAG:      %[[GU:.*]] = graph.constant dense<{{\[\[\[}}2.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00]], {{\[\[}}3.000000e+00, {{.*}} : tensor<2x2x2xf32>
// PART-DAG:      %[[DN:.*]] = graph.constant dense<{{\[\[\[}}2.000000e+01, 2.000000e+01]], {{\[\[}}3.000000e+01, 3.000000e+01]]]> : tensor<2x1x2xf32>
// PART-DAG:      %[[X:.*]] = graph.slice %arg0 {ends = array<i64: 6, 2>, starts = array<i64: 4, 0>
// PART-DAG:      %[[W:.*]] = graph.slice %arg1 {ends = array<i64: 6, 2>, starts = array<i64: 4, 0>
// PART-DAG:      %[[I:.*]] = graph.slice %arg2 {ends = array<i64: 6, 2>, starts = array<i64: 4, 0>
// PART:          %[[Y:.*]] = dist.moe %[[X]], %[[W]], %[[I]], %[[GU]], %[[DN]] on @mesh axes = ["ep"] : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x2x2xf32>, tensor<2x1x2xf32> -> tensor<2x2xf32>
// PART:          %[[T:.*]] = dist.all_gather %[[Y]] on @mesh axes = ["tp"] dim = 0 : tensor<2x2xf32> -> tensor<4x2xf32>
// PART:          %[[E:.*]] = dist.all_gather %[[T]] on @mesh axes = ["ep"] dim = 0 : tensor<4x2xf32> -> tensor<8x2xf32>
// PART:          graph.add %[[E]], %arg0
func.func @main(%x: tensor<8x2xf32>, %w: tensor<8x2xf32>, %ids: tensor<8x2xi64>) -> tensor<8x2xf32> {
  %gu = graph.constant dense<[[[0.0, 0.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]], [[2.0, 2.0], [2.0, 2.0]], [[3.0, 3.0], [3.0, 3.0]]]> : tensor<4x2x2xf32>
  %dn = graph.constant dense<[[[0.0, 0.0]], [[10.0, 10.0]], [[20.0, 20.0]], [[30.0, 30.0]]]> : tensor<4x1x2xf32>
  %y = graph.moe %x, %w, %ids, %gu, %dn : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64>, tensor<4x2x2xf32>, tensor<4x1x2xf32> -> tensor<8x2xf32>
  %r = graph.add %y, %x : tensor<8x2xf32>, tensor<8x2xf32> -> tensor<8x2xf32>
  return %r : tensor<8x2xf32>
}

// -----

// Experts that do not split over the group: a copy of expert 0 fills the
// fourth slot (rank 0 holds experts 0 and 1, rank 1 expert 0's copy and
// expert 2, as EPLB packs them), and the weights are placed rows.
// CHECK-LABEL: func.func @uneven
// CHECK:       graph.moe {{.*}}dist.load_uniform, dist.placement = array<i64: 0, 1, 0, 2>} {{.*}}tensor<4x2x2xf32>, tensor<4x1x2xf32> -> tensor<8x2xf32>
func.func @uneven(%x: tensor<8x2xf32>, %w: tensor<8x2xf32>, %ids: tensor<8x2xi64>) -> tensor<8x2xf32> {
  %gu = graph.constant dense<1.0> : tensor<3x2x2xf32>
  %dn = graph.constant dense<1.0> : tensor<3x1x2xf32>
  %y = graph.moe %x, %w, %ids, %gu, %dn : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xi64>, tensor<3x2x2xf32>, tensor<3x1x2xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

// expected-error @+1 {{--ep=2: the model has no mixture-of-experts layer (graph.moe) to split}}
module {
  func.func @dense(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
    return %x : tensor<8x2xf32>
  }
}
