// RUN: %python %S/Inputs/stats.py %t
// RUN: %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune{stats=%t/stats.json ffn=0.25 channel-multiple=1}))' 2>&1 | FileCheck %s
// RUN: not %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune{ffn=0.25}))' 2>&1 | FileCheck %s --check-prefix=NOSTATS
// RUN: not %shardc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(graph-prune{stats=%t/stats.json heads=0.5}))' 2>&1 | FileCheck %s --check-prefix=NOHEADS
// graph-prune: the hidden channel without fluctuation (channel 2, always
// 1.5: stats.py) costs nothing to remove once 1.5 times its row of the
// second weight moves into the bias; the others keep their rows as they
// were (the least-squares update leaves them alone: nothing to
// reconstruct).

// CHECK:       remark: graph-prune: removed 1 MLP channels and 0 attention heads
// CHECK-LABEL: func.func @mlp
// CHECK:       %[[W1:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00, 8.000000e+00]]> : tensor<2x3xf32>
// CHECK:       %[[B1:.*]] = graph.constant dense<[1.000000e-01, 2.000000e-01, 4.000000e-01]> : tensor<3xf32>
// CHECK:       %[[H:.*]] = graph.linear %arg0, %[[W1]] bias %[[B1]] : tensor<3xf32> {activation = "gelu"} : tensor<8x2xf32>, tensor<2x3xf32> -> tensor<8x3xf32>
// CHECK:       %[[W2:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK:       %[[B2:.*]] = graph.constant dense<[1.300000e+01, 1.700000e+01]> : tensor<2xf32>
// CHECK:       graph.linear %[[H]], %[[W2]] bias %[[B2]] : tensor<2xf32> {graph.prune = {error = {{[0-9.e-]+}} : f64, kept = 3 : i64, kind = "mlp", total = 4 : i64}} : tensor<8x3xf32>, tensor<3x2xf32> -> tensor<8x2xf32>

// NOSTATS: error: graph-prune: structured pruning needs calibration statistics (--calibration=DIR)
// NOHEADS: error: graph-prune: heads=5.000000e-01: the model has no attention whose heads prune removes
func.func @mlp(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %w1 = graph.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %b1 = graph.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %w2 = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [2.0, -2.0], [5.0, 6.0]]> : tensor<4x2xf32>
  %b2 = graph.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %h = graph.linear %x, %w1 bias %b1 : tensor<4xf32> {activation = "gelu"} : tensor<8x2xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %y = graph.linear %h, %w2 bias %b2 : tensor<2xf32> : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

// A gated MLP: the statistics are the swiglu's output's (what down reads);
// channel 2 goes from gate, up and down.
// CHECK:       remark: graph-prune: removed 1 MLP channels and 0 attention heads
// CHECK-LABEL: func.func @gated
// CHECK:       %[[G:.*]] = graph.linear %arg0, %{{.*}} : tensor<8x2xf32>, tensor<2x3xf32> -> tensor<8x3xf32>
// CHECK:       %[[U:.*]] = graph.linear %arg0, %{{.*}} : tensor<8x2xf32>, tensor<2x3xf32> -> tensor<8x3xf32>
// CHECK:       %[[S:.*]] = graph.swiglu %[[G]], %[[U]] : tensor<8x3xf32>
// CHECK:       %[[B2:.*]] = graph.constant dense<[3.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK:       graph.linear %[[S]], %{{.*}} bias %[[B2]] : tensor<2xf32> {graph.prune = {error = {{[0-9.e-]+}} : f64, kept = 3 : i64, kind = "mlp", total = 4 : i64}} : tensor<8x3xf32>, tensor<3x2xf32> -> tensor<8x2xf32>
func.func @gated(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %wg = graph.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %wu = graph.constant dense<[[1.0, -2.0, 3.0, -4.0], [5.0, 6.0, -7.0, 8.0]]> : tensor<2x4xf32>
  %w2 = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [2.0, -2.0], [5.0, 6.0]]> : tensor<4x2xf32>
  %g = graph.linear %x, %wg : tensor<8x2xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %u = graph.linear %x, %wu : tensor<8x2xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %s = graph.swiglu %g, %u : tensor<8x4xf32>
  %y = graph.linear %s, %w2 : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}
