// RUN: %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune-experts{expert-loads=5,0,3}))' 2>&1 | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune-experts{expert-loads=12,1,3 share=0.1}))' 2>&1 | FileCheck %s --check-prefix=SHARE
// RUN: %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune-experts{expert-loads=0,0,4}))' 2>&1 | FileCheck %s --check-prefix=TOPK
// RUN: not %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune-experts{expert-loads=5,0}))' 2>&1 | FileCheck %s --check-prefix=COUNT
// graph-prune-experts: expert 1 is never routed (loads 5, 0, 3): its slices
// of the expert weights and its column of the router go, and the softmax
// and the top-k pick among experts 0 and 2 (now 0 and 1).

// CHECK:       remark: graph-prune-experts: removed 1 experts
// CHECK-LABEL: func.func @moe
// CHECK-DAG:   %[[GU:.*]] = graph.constant dense<{{\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]], {{\[\[}}9.000000e+00, 1.000000e+01], [1.100000e+01, 1.200000e+01]]]> : tensor<2x2x2xf32>
// CHECK-DAG:   %[[D:.*]] = graph.constant dense<{{\[\[\[}}1.000000e+00, 2.000000e+00]], {{\[\[}}5.000000e+00, 6.000000e+00]]]> : tensor<2x1x2xf32>
// CHECK-DAG:   %[[R:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [4.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// CHECK:       %[[L:.*]] = graph.matmul %arg0, %[[R]] : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
// CHECK:       %[[S:.*]] = graph.softmax %[[L]] {axis = 1 : i64} : tensor<4x2xf32>
// CHECK:       %{{.*}}, %[[IDS:.*]] = graph.topk %[[S]] {axis = 1 : i64, k = 1 : i64} : tensor<4x2xf32> -> tensor<4x1xf32>, tensor<4x1xi64>
// CHECK:       graph.moe %arg0, %{{.*}}, %[[IDS]], %[[GU]], %[[D]] : tensor<4x2xf32>, tensor<4x1xf32>, tensor<4x1xi64>, tensor<2x2x2xf32>, tensor<2x1x2xf32> -> tensor<4x2xf32>

// share=0.1: expert 1 has 1 of 16 choices (0.0625).
// SHARE:       remark: graph-prune-experts: removed 1 experts
// SHARE:       graph.moe {{.*}} tensor<2x2x2xf32>, tensor<2x1x2xf32> -> tensor<4x2xf32>

// Only expert 2 routed: with top-1 experts 0 and 1 go; with top-2 (the
// second function) the most loaded of the others (a tie: the first) stays
// too, experts 0 and 2.
// TOPK:        remark: graph-prune-experts: removed 2 experts
// TOPK:        graph.moe {{.*}} tensor<1x2x2xf32>, tensor<1x1x2xf32> -> tensor<4x2xf32>
// TOPK:        remark: graph-prune-experts: removed 1 experts
// TOPK-LABEL:  func.func @top2
// TOPK:        graph.constant dense<[5.000000e-01, 1.250000e-01]> : tensor<2xf32>
// TOPK:        graph.sigmoid %{{.*}} : tensor<4x2xf32>
// TOPK:        graph.constant dense<{{\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]], {{\[\[}}9.000000e+00
// TOPK:        graph.moe {{.*}} tensor<2x2x2xf32>, tensor<2x1x2xf32> -> tensor<4x2xf32>

// COUNT-COUNT-2: error: graph-prune-experts: the calibration routed 2 expert loads, but the 1 mixture-of-experts layers have 3 experts
func.func @moe(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %r = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %gu = graph.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[9.0, 10.0], [11.0, 12.0]]]> : tensor<3x2x2xf32>
  %d = graph.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]]> : tensor<3x1x2xf32>
  %l = graph.matmul %x, %r : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %s = graph.softmax %l {axis = 1 : i64} : tensor<4x3xf32>
  %v, %i = graph.topk %s {axis = 1 : i64, k = 1 : i64} : tensor<4x3xf32> -> tensor<4x1xf32>, tensor<4x1xi64>
  %y = graph.moe %x, %v, %i, %gu, %d : tensor<4x2xf32>, tensor<4x1xf32>, tensor<4x1xi64>, tensor<3x2x2xf32>, tensor<3x1x2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// A router with a bias and a sigmoid, top-2.
func.func @top2(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %r = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = graph.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %gu = graph.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[9.0, 10.0], [11.0, 12.0]]]> : tensor<3x2x2xf32>
  %d = graph.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]]> : tensor<3x1x2xf32>
  %l = graph.linear %x, %r bias %b : tensor<3xf32> : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %s = graph.sigmoid %l : tensor<4x3xf32>
  %v, %i = graph.topk %s {axis = 1 : i64, k = 2 : i64} : tensor<4x3xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %y = graph.moe %x, %v, %i, %gu, %d : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<3x2x2xf32>, tensor<3x1x2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
