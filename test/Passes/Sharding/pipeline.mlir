// RUN: %shardc-opt %s --split-input-file --dist-pipeline=stages=2 -verify-diagnostics | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --dist-pipeline=stages=3 -verify-diagnostics | FileCheck %s --check-prefix=THREE
// dist-pipeline: stages cut where one tensor crosses, balanced by estimated
// FLOPs, joined by send/recv on the pp axis.

// Three residual layers; the first is 4x as expensive as each of the
// others (a 256-wide hidden layer against 64-wide ones). A cut may go after
// any op where one tensor alone crosses (the input does not count: every
// stage binds the inputs it reads), and the cuts minimize the most expensive
// stage: with two stages, after the first projection (0.53 MFLOP against
// 0.79 MFLOP; the cut after the first layer would give 1.58 against 0.53).
// The weight used by layers 2 and 3 is copied into the stage that has them.
// CHECK:       dist.mesh @mesh axes = ["pp"] shape = [2]
// CHECK-LABEL: func.func @main_stage0(%arg0: tensor<2x8x64xf32> {graph.name = "x"})
// CHECK-SAME:    attributes {dist.stage = 0 : i64, dist.stage_flops = 5.283840e+05 : f64}
// CHECK:         graph.matmul
// CHECK:         %[[H:.*]] = graph.relu
// CHECK-NEXT:    dist.send %[[H]] on @mesh axes = ["pp"] offset = 1 : tensor<2x8x256xf32>
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @main_stage1(%arg0: tensor<2x8x64xf32> {graph.name = "x"})
// CHECK-SAME:    -> (tensor<2x8x64xf32> {graph.name = "y"})
// CHECK-SAME:    attributes {dist.stage = 1 : i64, dist.stage_flops = 7.895040e+05 : f64}
// CHECK-NEXT:    %[[R:.*]] = dist.recv on @mesh axes = ["pp"] offset = -1 : tensor<2x8x256xf32>
// CHECK:         graph.matmul %[[R]]
// CHECK:         graph.add %{{.*}}, %arg0
// CHECK:         %[[W:.*]] = graph.constant dense<1.250000e-01> : tensor<64x64xf32>
// CHECK-NEXT:    graph.matmul %{{.*}}, %[[W]]
// CHECK-NOT:     graph.constant
// CHECK:         graph.matmul %{{.*}}, %[[W]]
// CHECK-NOT:     dist.send
// CHECK:         return
// Three stages: the first projection, the ReLU and second projection, then
// the residual and the two cheap layers (0.524, 0.528, 0.265 MFLOP).
// THREE-LABEL: func.func @main_stage0
// THREE-SAME:    dist.stage_flops = 5.242880e+05
// THREE-LABEL: func.func @main_stage1
// THREE-SAME:    dist.stage_flops = 5.283840e+05
// THREE:         dist.recv
// THREE:         dist.send
// THREE-LABEL: func.func @main_stage2
// THREE-SAME:    dist.stage_flops = 2.652160e+05
// THREE:         dist.recv
func.func @main(%x: tensor<2x8x64xf32> {graph.name = "x"}) -> (tensor<2x8x64xf32> {graph.name = "y"}) {
  %w1 = graph.constant dense<0.5> : tensor<64x256xf32>
  %w2 = graph.constant dense<0.25> : tensor<256x64xf32>
  %w3 = graph.constant dense<0.125> : tensor<64x64xf32>
  %a = graph.matmul %x, %w1 : tensor<2x8x64xf32>, tensor<64x256xf32> -> tensor<2x8x256xf32>
  %b = graph.relu %a : tensor<2x8x256xf32>
  %c = graph.matmul %b, %w2 : tensor<2x8x256xf32>, tensor<256x64xf32> -> tensor<2x8x64xf32>
  %h1 = graph.add %c, %x : tensor<2x8x64xf32>, tensor<2x8x64xf32> -> tensor<2x8x64xf32>
  %d = graph.matmul %h1, %w3 : tensor<2x8x64xf32>, tensor<64x64xf32> -> tensor<2x8x64xf32>
  %h2 = graph.add %d, %h1 : tensor<2x8x64xf32>, tensor<2x8x64xf32> -> tensor<2x8x64xf32>
  %e = graph.matmul %h2, %w3 : tensor<2x8x64xf32>, tensor<64x64xf32> -> tensor<2x8x64xf32>
  %h3 = graph.add %e, %h2 : tensor<2x8x64xf32>, tensor<2x8x64xf32> -> tensor<2x8x64xf32>
  return %h3 : tensor<2x8x64xf32>
}

// -----

// Two tensors cross everywhere (two halves computed side by side): there
// is no point where one tensor alone crosses.
// expected-error @+1 {{: the graph has 0 points where only one tensor crosses (between layers), so it splits into at most 1 pipeline stages}}
func.func @main(%x: tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a, %b = graph.split %x {axis = 0 : i64, sizes = array<i64: 2, 2>} : tensor<4xf32> -> tensor<2xf32>, tensor<2xf32>
  %c = graph.relu %a : tensor<2xf32>
  %d = graph.neg %b : tensor<2xf32>
  return %c, %d : tensor<2xf32>, tensor<2xf32>
}

// -----

// A mask computed from constants alone (in a real model, a causal mask too
// large to fold) is used by every layer: it never counts as crossing a
// cut, and each stage that uses it computes its own copy. Six ops of 16
// FLOPs: two stages cut after the second add, three after each ReLU.
// CHECK-LABEL: func.func @main_stage0
// CHECK-SAME:    dist.stage_flops = 4.800000e+01
// CHECK-NEXT:    %[[F:.*]] = graph.constant_of_shape
// CHECK-NEXT:    %[[M:.*]] = graph.trilu %[[F]]
// CHECK-NEXT:    graph.add %arg0, %[[M]]
// CHECK:         dist.send
// CHECK-LABEL: func.func @main_stage1
// CHECK-SAME:    dist.stage_flops = 4.800000e+01
// CHECK-NEXT:    dist.recv
// CHECK-NEXT:    graph.relu
// CHECK-NEXT:    %[[F1:.*]] = graph.constant_of_shape
// CHECK-NEXT:    %[[M1:.*]] = graph.trilu %[[F1]]
// CHECK-NEXT:    graph.add %{{.*}}, %[[M1]]
// THREE-LABEL: func.func @main_stage2
// THREE-SAME:    dist.stage_flops = 3.200000e+01
// THREE-NEXT:    dist.recv
// THREE-NEXT:    graph.constant_of_shape
// THREE-NEXT:    graph.trilu
func.func @main(%x: tensor<4x4xf32> {graph.name = "x"}) -> (tensor<4x4xf32> {graph.name = "y"}) {
  %f = graph.constant_of_shape {shape = array<i64: 4, 4>, value = dense<-1.0e+09> : tensor<1xf32>} : tensor<4x4xf32>
  %m = graph.trilu %f {k = 1 : i64} : tensor<4x4xf32>
  %a1 = graph.add %x, %m : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %r1 = graph.relu %a1 : tensor<4x4xf32>
  %a2 = graph.add %r1, %m : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %r2 = graph.relu %a2 : tensor<4x4xf32>
  %a3 = graph.add %r2, %m : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %r3 = graph.relu %a3 : tensor<4x4xf32>
  return %r3 : tensor<4x4xf32>
}
