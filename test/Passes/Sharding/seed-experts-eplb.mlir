// RUN: %shardc-opt %s --split-input-file --dist-seed-experts="ep=2 loads=6,2,5,4,10,8,4,9 redundant=2" --verify-diagnostics | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-seed-experts="ep=2 loads=6,2,5,4,10,8,4,9 redundant=2" --dist-propagate --dist-partition --verify-diagnostics | FileCheck %s --check-prefix=PART
// dist-seed-experts with calibration loads: DeepSeek's EPLB greedy. Worked
// by hand for loads 6 2 5 4 10 8 4 9 (48 tokens) on 2 ranks with 2 copies:
// experts 4 (10) and then 7 (9) get the copies (5 and 4.5 each); packed
// heaviest first onto the least loaded rank with a free slot (5 each):
// 5:8 -> r0, 0:6 -> r1, 2:5 -> r1, 4:5 -> r0, 4:5 -> r1, 7:4.5 -> r0,
// 7:4.5 -> r1, 3:4 -> r0, 6:4 -> r1 (r1 full), 1:2 -> r0. Rank 0 holds 1 3
// 4 5 7 (23.5 tokens), rank 1 0 2 4 6 7 (24.5); in order, 0-3 and 4-7 carry
// 17 and 31.

// CHECK-LABEL: func.func @main
// The down projections in slot order (gate/up alike).
// CHECK-DAG:     graph.constant dense<{{\[\[\[}}1.500000e+00]], {{\[\[}}3.500000e+00]], {{\[\[}}4.500000e+00]], {{\[\[}}5.500000e+00]], {{\[\[}}7.500000e+00]], {{\[\[}}5.000000e-01]], {{\[\[}}2.500000e+00]], {{\[\[}}4.500000e+00]], {{\[\[}}6.500000e+00]], {{\[\[}}7.500000e+00]]]> : tensor<10x1x1xf32>
// CHECK:         graph.moe {{.*}} {dist.load_after = array<i64: 24, 25>, dist.load_before = array<i64: 17, 31>, dist.placement = array<i64: 1, 3, 4, 5, 7, 0, 2, 4, 6, 7>}
// CHECK-SAME:    tensor<10x1x2xf32>, tensor<10x1x1xf32> -> tensor<4x1xf32>
// Rank 1 holds slots 5-9 (experts 0 2 4 6 7) and routes by the placement.
// PART-LABEL:  func.func @main_rank1
// PART-DAG:      graph.constant dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}2.500000e+00]], {{\[\[}}4.500000e+00]], {{\[\[}}6.500000e+00]], {{\[\[}}7.500000e+00]]]> : tensor<5x1x1xf32>
// PART-DAG:      graph.constant dense<{{\[\[\[}}0.000000e+00, 0.000000e+00]], {{\[\[}}2.000000e+00, 2.000000e+00]], {{\[\[}}4.000000e+00, 4.000000e+00]], {{\[\[}}6.000000e+00, 6.000000e+00]], {{\[\[}}7.000000e+00, 7.000000e+00]]]> : tensor<5x1x2xf32>
// PART:          dist.moe {{.*}} on @mesh axes = ["ep"] placement = [1, 3, 4, 5, 7, 0, 2, 4, 6, 7] : tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<5x1x2xf32>, tensor<5x1x1xf32> -> tensor<2x1xf32>
func.func @main(%x: tensor<4x1xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>) -> tensor<4x1xf32> {
  %gu = graph.constant dense<[[[0.0, 0.0]], [[1.0, 1.0]], [[2.0, 2.0]], [[3.0, 3.0]], [[4.0, 4.0]], [[5.0, 5.0]], [[6.0, 6.0]], [[7.0, 7.0]]]> : tensor<8x1x2xf32>
  %dn = graph.constant dense<[[[0.5]], [[1.5]], [[2.5]], [[3.5]], [[4.5]], [[5.5]], [[6.5]], [[7.5]]]> : tensor<8x1x1xf32>
  %y = graph.moe %x, %w, %ids, %gu, %dn : tensor<4x1xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<8x1x2xf32>, tensor<8x1x1xf32> -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

// -----

// Loads that do not match the model's experts.
// expected-error @+1 {{the calibration counted 8 expert loads; the model's 1 mixture-of-experts layers have 4 experts}}
module {
  func.func @other(%x: tensor<4x1xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>) -> tensor<4x1xf32> {
    %gu = graph.constant dense<1.0> : tensor<4x1x2xf32>
    %dn = graph.constant dense<1.0> : tensor<4x1x1xf32>
    %y = graph.moe %x, %w, %ids, %gu, %dn : tensor<4x1xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<4x1x2xf32>, tensor<4x1x1xf32> -> tensor<4x1xf32>
    return %y : tensor<4x1xf32>
  }
}
