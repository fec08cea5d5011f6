// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// Products, normalization and reductions.

// MatMul in fp32 is kern.matmul: operands get equal ranks through views
// (a 2-D rhs gains a leading 1; a 1-D rhs becomes a [K,1] column, a 1-D lhs
// a [1,K] row, and the output a view with the 1 put back).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x4x8xf32> {{.*}}, %[[W:arg[0-9]+]]: memref<8x16xf32> {{.*}}, %[[V:arg[0-9]+]]: memref<8xf32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<2x4x16xf32> {{.*}}, %[[Y1:arg[0-9]+]]: memref<2x4xf32> {{.*}}, %[[Y2:arg[0-9]+]]: memref<16xf32> {{.*}}, %[[Y3:arg[0-9]+]]: memref<f32>
// CHECK-NEXT: %[[W3:.*]] = kern.view %[[W]] : memref<8x16xf32> to memref<1x8x16xf32>
// CHECK-NEXT: kern.matmul %[[X]], %[[W3]] into %[[Y0]] : memref<2x4x8xf32>, memref<1x8x16xf32> into memref<2x4x16xf32>
// CHECK-NEXT: %[[VC:.*]] = kern.view %[[V]] : memref<8xf32> to memref<1x8x1xf32>
// CHECK-NEXT: %[[Y1V:.*]] = kern.view %[[Y1]] : memref<2x4xf32> to memref<2x4x1xf32>
// CHECK-NEXT: kern.matmul %[[X]], %[[VC]] into %[[Y1V]] : memref<2x4x8xf32>, memref<1x8x1xf32> into memref<2x4x1xf32>
// CHECK-NEXT: %[[VR:.*]] = kern.view %[[V]] : memref<8xf32> to memref<1x8xf32>
// CHECK-NEXT: %[[Y2V:.*]] = kern.view %[[Y2]] : memref<16xf32> to memref<1x16xf32>
// CHECK-NEXT: kern.matmul %[[VR]], %[[W]] into %[[Y2V]] : memref<1x8xf32>, memref<8x16xf32> into memref<1x16xf32>
// CHECK-NEXT: %[[VR2:.*]] = kern.view %[[V]] : memref<8xf32> to memref<1x8xf32>
// CHECK-NEXT: %[[VC2:.*]] = kern.view %[[V]] : memref<8xf32> to memref<8x1xf32>
// CHECK-NEXT: %[[Y3V:.*]] = kern.view %[[Y3]] : memref<f32> to memref<1x1xf32>
// CHECK-NEXT: kern.matmul %[[VR2]], %[[VC2]] into %[[Y3V]] : memref<1x8xf32>, memref<8x1xf32> into memref<1x1xf32>
// CHECK-NEXT: return
func.func @main(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>, %v: tensor<8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4xf32>, tensor<16xf32>, tensor<f32>) {
  %0 = graph.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %1 = graph.matmul %x, %v : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4xf32>
  %2 = graph.matmul %v, %w : tensor<8xf32>, tensor<8x16xf32> -> tensor<16xf32>
  %3 = graph.matmul %v, %v : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  return %0, %1, %2, %3 : tensor<2x4x16xf32>, tensor<2x4xf32>, tensor<16xf32>, tensor<f32>
}

// -----

// fp16 goes through fp32 copies and back; integers call the reference kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:arg[0-9]+]]: memref<4x8xf16> {{.*}}, %[[B:arg[0-9]+]]: memref<8x16xf16> {{.*}}, %[[I:arg[0-9]+]]: memref<4x8xi32> {{.*}}, %[[J:arg[0-9]+]]: memref<8x16xi32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<4x16xf16> {{.*}}, %[[Y1:arg[0-9]+]]: memref<4x16xi32>
// CHECK-DAG:  %[[Y32:.*]] = kern.alloc : memref<4x16xf32>
// CHECK-DAG:  %[[A32:.*]] = kern.alloc : memref<4x8xf32>
// CHECK-DAG:  %[[B32:.*]] = kern.alloc : memref<8x16xf32>
// CHECK-DAG:  kern.map ins(%[[A]] : memref<4x8xf16>) outs(%[[A32]] : memref<4x8xf32>)
// CHECK-DAG:  kern.map ins(%[[B]] : memref<8x16xf16>) outs(%[[B32]] : memref<8x16xf32>)
// CHECK:      kern.matmul %[[A32]], %[[B32]] into %[[Y32]] : memref<4x8xf32>, memref<8x16xf32> into memref<4x16xf32>
// CHECK-NEXT: kern.map ins(%[[Y32]] : memref<4x16xf32>) outs(%[[Y0]] : memref<4x16xf16>)
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32):
// CHECK-NEXT:   %[[T:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK:      kern.matmul_ref %[[I]], %[[J]] into %[[Y1]] : memref<4x8xi32>, memref<8x16xi32> into memref<4x16xi32>
func.func @main(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>, %i: tensor<4x8xi32>, %j: tensor<8x16xi32>) -> (tensor<4x16xf16>, tensor<4x16xi32>) {
  %0 = graph.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
  %1 = graph.matmul %i, %j : tensor<4x8xi32>, tensor<8x16xi32> -> tensor<4x16xi32>
  return %0, %1 : tensor<4x16xf16>, tensor<4x16xi32>
}

// -----

// Gemm: a row bias with beta = 1 is oneDNN's bias (a [1,N] view); any other
// C is first written as beta * C (broadcast) and the product accumulates
// onto it (beta = 1 on the matmul); beta = 0 drops C.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:arg[0-9]+]]: memref<4x8xf32> {{.*}}, %[[B:arg[0-9]+]]: memref<8x16xf32> {{.*}}, %[[C:arg[0-9]+]]: memref<16xf32> {{.*}}, %[[CM:arg[0-9]+]]: memref<4x1xf32> {{.*}}, %[[BT:arg[0-9]+]]: memref<16x8xf32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<4x16xf32> {{.*}}, %[[Y1:arg[0-9]+]]: memref<4x16xf32> {{.*}}, %[[Y2:arg[0-9]+]]: memref<4x16xf32> {{.*}}, %[[Y3:arg[0-9]+]]: memref<4x16xf32>
// CHECK-NEXT: %[[CV:.*]] = kern.view %[[C]] : memref<16xf32> to memref<1x16xf32>
// CHECK-NEXT: kern.matmul %[[A]], %[[B]] bias %[[CV]] into %[[Y0]] : memref<4x8xf32>, memref<8x16xf32>, memref<1x16xf32> into memref<4x16xf32>
// CHECK-NEXT: kern.map ins(%[[C]] : memref<16xf32>) outs(%[[Y1]] : memref<4x16xf32>) attributes {layouts = [array<i64: 0, 0, 1>, array<i64: 0, 16, 1>], shape = array<i64: 4, 16>} {
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32):
// CHECK-NEXT:   %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[E]], %[[HALF]] : f32
// CHECK-NEXT:   kern.yield %[[M]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: kern.matmul %[[A]], %[[B]] into %[[Y1]] {alpha = 2.000000e+00 : f32, beta = 1.000000e+00 : f32} : memref<4x8xf32>, memref<8x16xf32> into memref<4x16xf32>
// CHECK-NEXT: kern.map ins(%[[CM]] : memref<4x1xf32>) outs(%[[Y2]] : memref<4x16xf32>) attributes {layouts = [array<i64: 0, 1, 0>, array<i64: 0, 16, 1>], shape = array<i64: 4, 16>}
// CHECK:      kern.matmul %[[A]], %[[BT]] into %[[Y2]] {beta = 1.000000e+00 : f32, trans_b = true} : memref<4x8xf32>, memref<16x8xf32> into memref<4x16xf32>
// CHECK-NEXT: kern.matmul %[[A]], %[[B]] into %[[Y3]] : memref<4x8xf32>, memref<8x16xf32> into memref<4x16xf32>
// CHECK-NEXT: return
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16xf32>, %cm: tensor<4x1xf32>, %bt: tensor<16x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = graph.gemm %a, %b, %c : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %1 = graph.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %2 = graph.gemm %a, %bt, %cm {trans_b = true} : tensor<4x8xf32>, tensor<16x8xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
  %3 = graph.gemm %a, %b, %c {beta = 0.0 : f32} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  return %0, %1, %2, %3 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// LayerNorm and Softmax call the runtime: kern.layer_norm (bias, mean and
// inv_std only when there or used) and kern.softmax (`log` for
// LogSoftmax). A scale that only broadcasts to the normalized shape is
// expanded first.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x4x8xf32> {{.*}}, %[[G:arg[0-9]+]]: memref<8xf32> {{.*}}, %[[G1:arg[0-9]+]]: memref<1xf32> {{.*}}, %[[Y0:arg[0-9]+]]: memref<2x4x8xf32> {{.*}}, %[[Y1:arg[0-9]+]]: memref<2x4x8xf32> {{.*}}, %[[IS:arg[0-9]+]]: memref<2x4x1xf32> {{.*}}, %[[Y3:arg[0-9]+]]: memref<2x4x8xf32> {{.*}}, %[[Y4:arg[0-9]+]]: memref<2x4x8xf32>
// CHECK-NEXT: kern.layer_norm %[[X]], %[[G]] bias %[[G]] into %[[Y0]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : memref<2x4x8xf32>, memref<8xf32>, memref<8xf32> into memref<2x4x8xf32>
// CHECK-NEXT: %[[GE:.*]] = kern.alloc : memref<8xf32>
// CHECK-NEXT: kern.map ins(%[[G1]] : memref<1xf32>) outs(%[[GE]] : memref<8xf32>) attributes {layouts = [array<i64: 0, 0>, array<i64: 0, 1>], shape = array<i64: 8>}
// CHECK:      kern.layer_norm %[[X]], %[[GE]] into %[[Y1]] inv_std %[[IS]] {axis = 2 : i64, epsilon = 1.000000e-03 : f32} : memref<2x4x8xf32>, memref<8xf32> into memref<2x4x8xf32> inv_std memref<2x4x1xf32>
// CHECK-NEXT: kern.softmax %[[X]] into %[[Y3]] {axis = 2 : i64} : memref<2x4x8xf32> into memref<2x4x8xf32>
// CHECK-NEXT: kern.softmax %[[X]] into %[[Y4]] {axis = 1 : i64, log} : memref<2x4x8xf32> into memref<2x4x8xf32>
func.func @main(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %g1: tensor<1xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %0:3 = graph.layer_norm %x, %g, %g {axis = 2 : i64, epsilon = 1.0e-5 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>
  %1:3 = graph.layer_norm %x, %g1 {axis = 2 : i64, epsilon = 1.0e-3 : f32} : tensor<2x4x8xf32>, tensor<1xf32> -> tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>
  %2 = graph.softmax %x {axis = 2 : i64} : tensor<2x4x8xf32>
  %3 = graph.log_softmax %x {axis = 1 : i64} : tensor<2x4x8xf32>
  return %0#0, %1#0, %1#2, %2, %3 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

// Reductions are kern.reduce over the input's shape: reduce_dims lists the
// reduced axes (all of them for empty axes), the output's layout is its
// row-major strides with zeros on those axes.
// CHECK-LABEL: func.func @main
// CHECK:      kern.reduce "mean" ins(%{{.*}} : memref<2x4x8xf32>) outs(%{{.*}} : memref<2x4xf32>) attributes {layouts = [array<i64: 0, 32, 8, 1>, array<i64: 0, 4, 1, 0>], reduce_dims = array<i64: 2>, shape = array<i64: 2, 4, 8>} {
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32):
// CHECK-NEXT:   kern.yield %[[E]] : f32
// CHECK:      kern.reduce "sum" ins(%{{.*}} : memref<2x4x8xf32>) outs(%{{.*}} : memref<1x4x1xf32>) attributes {layouts = [array<i64: 0, 32, 8, 1>, array<i64: 0, 0, 1, 0>], reduce_dims = array<i64: 0, 2>, shape = array<i64: 2, 4, 8>}
// CHECK:      kern.reduce "max" ins(%{{.*}} : memref<2x4x8xf32>) outs(%{{.*}} : memref<2x1x8xf32>) attributes {layouts = [array<i64: 0, 32, 8, 1>, array<i64: 0, 8, 0, 1>], reduce_dims = array<i64: 1>, shape = array<i64: 2, 4, 8>}
// CHECK:      kern.reduce "sum" ins(%{{.*}} : memref<2x4x8xi32>) outs(%{{.*}} : memref<i32>) attributes {layouts = [array<i64: 0, 32, 8, 1>, array<i64: 0, 0, 0, 0>], reduce_dims = array<i64: 0, 1, 2>, shape = array<i64: 2, 4, 8>}
func.func @main(%x: tensor<2x4x8xf32>, %i: tensor<2x4x8xi32>) -> (tensor<2x4xf32>, tensor<1x4x1xf32>, tensor<2x1x8xf32>, tensor<i32>) {
  %0 = graph.reduce_mean %x {axes = array<i64: 2>, keepdims = false} : tensor<2x4x8xf32> -> tensor<2x4xf32>
  %1 = graph.reduce_sum %x {axes = array<i64: 0, 2>} : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
  %2 = graph.reduce_max %x {axes = array<i64: 1>} : tensor<2x4x8xf32> -> tensor<2x1x8xf32>
  %3 = graph.reduce_sum %i {axes = array<i64>, keepdims = false} : tensor<2x4x8xi32> -> tensor<i32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<1x4x1xf32>, tensor<2x1x8xf32>, tensor<i32>
}

// -----

// BatchNorm is one map; the per-channel parameters have stride 1 on dim 1
// and 0 elsewhere. Einsum calls the runtime on all its inputs.
// CHECK-LABEL: func.func @main
// CHECK:      kern.map ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<1x3x4x4xf32>, memref<3xf32>, memref<3xf32>, memref<3xf32>, memref<3xf32>) outs(%{{.*}} : memref<1x3x4x4xf32>) attributes {layouts = [array<i64: 0, 48, 16, 4, 1>, array<i64: 0, 0, 1, 0, 0>, array<i64: 0, 0, 1, 0, 0>, array<i64: 0, 0, 1, 0, 0>, array<i64: 0, 0, 1, 0, 0>, array<i64: 0, 48, 16, 4, 1>], shape = array<i64: 1, 3, 4, 4>}
// CHECK:        math.sqrt
// CHECK:      kern.einsum "bij,jk->bik" ins(%{{.*}}, %{{.*}}) into %{{.*}} : memref<2x4x8xf32>, memref<8x16xf32> into memref<2x4x16xf32>
func.func @main(%bn: tensor<1x3x4x4xf32>, %p: tensor<3xf32>, %x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<1x3x4x4xf32>, tensor<2x4x16xf32>) {
  %0 = graph.batch_norm %bn, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %1 = graph.einsum %x, %w {equation = "bij,jk->bik"} : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  return %0, %1 : tensor<1x3x4x4xf32>, tensor<2x4x16xf32>
}
