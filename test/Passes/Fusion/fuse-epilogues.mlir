// RUN: %shardc-opt %s --split-input-file --graph-fuse-epilogues | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --graph-fuse-epilogues=erf-gelu=false | FileCheck %s --check-prefix=NOERF
// RUN: %shardc-opt %s --split-input-file --graph-fuse-epilogues=conv-epilogues=false | FileCheck %s --check-prefix=NOCONV

// The GPT-2 MLP as exported: MatMul, bias Add, GELU; then MatMul, bias Add
// (bias first), residual Add (residual first). Each chain is one linear.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME:  (%[[X:.*]]: tensor<2x16x64xf32>)
// CHECK-DAG:   %[[W1:.*]] = graph.constant {{.*}} : tensor<64x256xf32>
// CHECK-DAG:   %[[B1:.*]] = graph.constant {{.*}} : tensor<256xf32>
// CHECK-DAG:   %[[W2:.*]] = graph.constant {{.*}} : tensor<256x64xf32>
// CHECK-DAG:   %[[B2:.*]] = graph.constant {{.*}} : tensor<64xf32>
// CHECK:       %[[H:.*]] = graph.linear %[[X]], %[[W1]] bias %[[B1]] : tensor<256xf32> {activation = "gelu"} : tensor<2x16x64xf32>, tensor<64x256xf32> -> tensor<2x16x256xf32>
// CHECK-NEXT:  %[[Y:.*]] = graph.linear %[[H]], %[[W2]] bias %[[B2]] : tensor<64xf32> residual %[[X]] : tensor<2x16x64xf32> : tensor<2x16x256xf32>, tensor<256x64xf32> -> tensor<2x16x64xf32>
// CHECK-NEXT:  return %[[Y]]
// Without erf GELUs (CUDA programs) the GELU stays; the bias folds.
// NOERF-LABEL: func.func @mlp
// NOERF:       %[[P:.*]] = graph.linear %{{.*}}, %{{.*}} bias %{{.*}} : tensor<256xf32> : tensor<2x16x64xf32>, tensor<64x256xf32> -> tensor<2x16x256xf32>
// NOERF-NEXT:  %[[G:.*]] = graph.gelu %[[P]] : tensor<2x16x256xf32>
// NOERF-NEXT:  graph.linear %[[G]], %{{.*}} bias %{{.*}} : tensor<64xf32> residual %{{.*}} : tensor<2x16x64xf32>
func.func @mlp(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %w1 = graph.constant dense<0.5> : tensor<64x256xf32>
  %b1 = graph.constant dense<0.25> : tensor<256xf32>
  %w2 = graph.constant dense<0.125> : tensor<256x64xf32>
  %b2 = graph.constant dense<1.0> : tensor<64xf32>
  %0 = graph.matmul %x, %w1 : tensor<2x16x64xf32>, tensor<64x256xf32> -> tensor<2x16x256xf32>
  %1 = graph.add %0, %b1 : tensor<2x16x256xf32>, tensor<256xf32> -> tensor<2x16x256xf32>
  %2 = graph.gelu %1 : tensor<2x16x256xf32>
  %3 = graph.matmul %2, %w2 : tensor<2x16x256xf32>, tensor<256x64xf32> -> tensor<2x16x64xf32>
  %4 = graph.add %b2, %3 : tensor<64xf32>, tensor<2x16x64xf32> -> tensor<2x16x64xf32>
  %5 = graph.add %x, %4 : tensor<2x16x64xf32>, tensor<2x16x64xf32> -> tensor<2x16x64xf32>
  return %5 : tensor<2x16x64xf32>
}

// -----

// Relu and the tanh GELU fold (the tanh form also without erf GELUs); a
// [1,N] row is a bias; a linear without a bias takes the activation.
// CHECK-LABEL: func.func @activations
// CHECK:       %[[R:.*]] = graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<1x8xf32> {activation = "relu"}
// CHECK-NEXT:  %[[T:.*]] = graph.linear %[[R]], %{{.*}} bias %{{.*}} : tensor<8xf32> {activation = "gelu_tanh"}
// CHECK-NEXT:  %[[N:.*]] = graph.linear %[[T]], %{{.*}} {activation = "relu"} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  return %[[N]]
// NOERF-LABEL: func.func @activations
// NOERF:       activation = "relu"
// NOERF:       activation = "gelu_tanh"
func.func @activations(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = graph.constant dense<0.5> : tensor<8x8xf32>
  %b = graph.constant dense<0.25> : tensor<1x8xf32>
  %c = graph.constant dense<0.25> : tensor<8xf32>
  %0 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = graph.add %0, %b : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %2 = graph.relu %1 : tensor<4x8xf32>
  %3 = graph.matmul %2, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %4 = graph.add %3, %c : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %5 = graph.gelu %4 {approximate = "tanh"} : tensor<4x8xf32>
  %6 = graph.matmul %5, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %7 = graph.relu %6 : tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// -----

// Gemm: alpha 1 without transposes; a row C with beta 1 is the bias (then
// the activation folds), no C or beta 0 lets a following bias Add fold.
// CHECK-LABEL: func.func @gemm
// CHECK:       %[[A:.*]] = graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<8xf32> {activation = "relu"} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  %[[B:.*]] = graph.linear %[[A]], %{{.*}} bias %{{.*}} : tensor<1x8xf32> residual %[[A]] : tensor<4x8xf32> : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  return %[[B]]
func.func @gemm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = graph.constant dense<0.5> : tensor<8x8xf32>
  %c = graph.constant dense<0.25> : tensor<8xf32>
  %r = graph.constant dense<0.25> : tensor<1x8xf32>
  %0 = graph.gemm %x, %w, %c : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = graph.relu %0 : tensor<4x8xf32>
  %2 = graph.gemm %1, %w, %c {beta = 0.0 : f32} : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %3 = graph.add %2, %r : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %4 = graph.add %3, %1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// torch's nn.Linear on 2-D rows (Gemm with a constant trans_b B, the
// weight [N, K]: transposed at compile time) and nn.MultiheadAttention's
// out-projection: its [S*B, E] product reshaped to [S, B, E] before the
// residual add. The reshape moves to A, and the residual folds.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK-SAME:    (%[[X:.*]]: tensor<6x2xf32>, %[[R:.*]]: tensor<2x3x3xf32>)
// CHECK-DAG:   %[[WT:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG:   %[[A:.*]] = graph.reshape %[[X]] {shape = array<i64: 2, 3, 2>} : tensor<6x2xf32> -> tensor<2x3x2xf32>
// CHECK:       %[[L:.*]] = graph.linear %[[A]], %[[WT]] bias %{{.*}} : tensor<3xf32> residual %[[R]] : tensor<2x3x3xf32> : tensor<2x3x2xf32>, tensor<2x3xf32> -> tensor<2x3x3xf32>
// CHECK-NEXT:  return %[[L]]
func.func @gemm_trans_b(%x: tensor<6x2xf32>, %r: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %w = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %c = graph.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %0 = graph.gemm %x, %w, %c {trans_b = true} : tensor<6x2xf32>, tensor<3x2xf32>, tensor<3xf32> -> tensor<6x3xf32>
  %1 = graph.reshape %0 {shape = array<i64: 2, 3, 3>} : tensor<6x3xf32> -> tensor<2x3x3xf32>
  %2 = graph.add %r, %1 : tensor<2x3x3xf32>, tensor<2x3x3xf32> -> tensor<2x3x3xf32>
  return %2 : tensor<2x3x3xf32>
}

// -----

// Gemm look-alikes stay: alpha != 1, a transpose of a B that is not a
// constant, a C of the full shape, beta 2 on a row (and nothing folds into
// them).
// CHECK-LABEL: func.func @gemm_negatives
// CHECK-NOT:   graph.linear
// CHECK-COUNT-4: graph.relu
// CHECK-NOT:   graph.linear
func.func @gemm_negatives(%x: tensor<4x8xf32>, %wx: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x8xf32>
  %c = graph.constant dense<0.25> : tensor<8xf32>
  %f = graph.constant dense<0.25> : tensor<4x8xf32>
  %0 = graph.gemm %x, %w, %c {alpha = 2.0 : f32} : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = graph.relu %0 : tensor<4x8xf32>
  %2 = graph.gemm %x, %wx, %c {trans_b = true} : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %3 = graph.relu %2 : tensor<4x8xf32>
  %4 = graph.gemm %x, %w, %f : tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %5 = graph.relu %4 : tensor<4x8xf32>
  %6 = graph.gemm %x, %w, %c {beta = 2.0 : f32} : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %7 = graph.relu %6 : tensor<4x8xf32>
  return %1, %3, %5, %7 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Bias look-alikes: a [M,1] column, a row that is not a constant, and a
// row that broadcasts the product to a larger shape are not biases; the
// add stays, and the activation after it too. (A full [M,N] constant is
// not a bias either: it is a residual, below.)
// CHECK-LABEL: func.func @bias_negatives
// CHECK-NOT:   graph.linear
// CHECK-COUNT-3: graph.add
// CHECK-NOT:   graph.linear
func.func @bias_negatives(%x: tensor<4x8xf32>, %row: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x8xf32>
  %col = graph.constant dense<0.25> : tensor<4x1xf32>
  %big = graph.constant dense<0.25> : tensor<2x1x8xf32>
  %0 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = graph.add %0, %col : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %2 = graph.relu %1 : tensor<4x8xf32>
  %6 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %7 = graph.add %6, %row : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %8 = graph.relu %7 : tensor<4x8xf32>
  %9 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %10 = graph.add %9, %big : tensor<4x8xf32>, tensor<2x1x8xf32> -> tensor<2x4x8xf32>
  %11 = graph.relu %10 : tensor<2x4x8xf32>
  return %2, %8, %11 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>
}

// -----

// A full [M,N] constant after a bare MatMul is a residual (a tensor of the
// result's type), not a bias: it folds as one, and a relu after it stays
// (no activation after a residual).
// CHECK-LABEL: func.func @constant_residual
// CHECK:       %[[L:.*]] = graph.linear %arg0, %{{.*}} residual %{{.*}} : tensor<4x8xf32> : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  graph.relu %[[L]]
func.func @constant_residual(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = graph.constant dense<0.5> : tensor<8x8xf32>
  %full = graph.constant dense<0.25> : tensor<4x8xf32>
  %0 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = graph.add %0, %full : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = graph.relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// One user only: a product read twice keeps its bias add apart; a biased
// value read twice keeps its activation apart (the bias still folds); an
// activation's result read twice is fine (it is the linear's result).
// CHECK-LABEL: func.func @other_users
// CHECK:       %[[P:.*]] = graph.matmul
// CHECK-NEXT:  %[[Q:.*]] = graph.add %[[P]]
// CHECK-NEXT:  %[[L:.*]] = graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<8xf32> : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:  %[[R:.*]] = graph.relu %[[L]]
// CHECK-NEXT:  %[[M:.*]] = graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<8xf32> {activation = "relu"}
// CHECK-NEXT:  return %[[P]], %[[Q]], %[[L]], %[[R]], %[[M]], %[[M]]
func.func @other_users(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x8xf32>
  %c = graph.constant dense<0.25> : tensor<8xf32>
  %0 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = graph.add %0, %c : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %3 = graph.add %2, %c : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %4 = graph.relu %3 : tensor<4x8xf32>
  %5 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %6 = graph.add %5, %c : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %7 = graph.relu %6 : tensor<4x8xf32>
  return %0, %1, %3, %4, %7, %7 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Residual look-alikes: an add of a broadcast tensor (not the result's
// shape), an add after an activation, the product added to itself.
// CHECK-LABEL: func.func @residual_negatives
// CHECK:       %[[A:.*]] = graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<8xf32> : tensor<4x8xf32>
// CHECK-NEXT:  graph.add %[[A]], %arg1 : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK:       %[[B:.*]] = graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<8xf32> {activation = "relu"}
// CHECK-NEXT:  graph.add %[[B]], %arg0
// CHECK:       %[[C:.*]] = graph.matmul
// CHECK-NEXT:  graph.add %[[C]], %[[C]]
// CHECK-NOT:   graph.linear
func.func @residual_negatives(%x: tensor<4x8xf32>, %r: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x8xf32>
  %c = graph.constant dense<0.25> : tensor<8xf32>
  %0 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = graph.add %0, %c : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = graph.add %1, %r : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %3 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %4 = graph.add %3, %c : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %5 = graph.relu %4 : tensor<4x8xf32>
  %6 = graph.add %5, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %7 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %8 = graph.add %7, %7 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %2, %6, %8 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Other look-alikes: a MatMul with a 1-D operand, an integer MatMul, and
// an activation other than relu/gelu stay as they are.
// CHECK-LABEL: func.func @other_negatives
// CHECK-NOT:   graph.linear
// CHECK:       graph.sigmoid
// CHECK-NOT:   graph.linear
func.func @other_negatives(%x: tensor<4x8xf32>, %v: tensor<8xf32>, %i: tensor<4x8xi32>, %j: tensor<8x8xi32>) -> (tensor<4xf32>, tensor<4x8xi32>, tensor<4x8xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x8xf32>
  %c = graph.constant dense<0.25> : tensor<4xf32>
  %ci = graph.constant dense<1> : tensor<8xi32>
  %0 = graph.matmul %x, %v : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  %1 = graph.add %0, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = graph.matmul %i, %j : tensor<4x8xi32>, tensor<8x8xi32> -> tensor<4x8xi32>
  %3 = graph.add %2, %ci : tensor<4x8xi32>, tensor<8xi32> -> tensor<4x8xi32>
  %4 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %5 = graph.sigmoid %4 : tensor<4x8xf32>
  return %1, %3, %5 : tensor<4xf32>, tensor<4x8xi32>, tensor<4x8xf32>
}

// -----

// fp16 (after --precision=fp16) folds like fp32.
// CHECK-LABEL: func.func @half
// CHECK:       graph.linear %arg0, %{{.*}} bias %{{.*}} : tensor<8xf16> residual %arg1 : tensor<4x8xf16> : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
func.func @half(%x: tensor<4x8xf16>, %r: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %w = graph.constant dense<0.5> : tensor<8x8xf16>
  %c = graph.constant dense<0.25> : tensor<8xf16>
  %0 = graph.matmul %x, %w : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
  %1 = graph.add %0, %c : tensor<4x8xf16>, tensor<8xf16> -> tensor<4x8xf16>
  %2 = graph.add %1, %r : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  return %2 : tensor<4x8xf16>
}

// -----

// A ResNet block's end: Conv, residual Add (residual first), Relu -> one
// fused_conv (the residual before the activation). With
// conv-epilogues=false (CUDA programs) nothing folds.
// CHECK-LABEL: func.func @conv_add_relu
// CHECK-SAME:  (%[[X:.*]]: tensor<1x8x6x6xf32>, %[[W:.*]]: tensor<8x8x3x3xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT:  %[[Y:.*]] = graph.fused_conv %[[X]], %[[W]] bias %[[B]] : tensor<8xf32> residual %[[X]] : tensor<1x8x6x6xf32> {{[{]}}activation = "relu", dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>{{[}]}} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
// CHECK-NEXT:  return %[[Y]]
// NOCONV-LABEL: func.func @conv_add_relu
// NOCONV-NEXT:  graph.conv
// NOCONV-NEXT:  graph.add
// NOCONV-NEXT:  graph.relu
func.func @conv_add_relu(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %0 = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32> -> tensor<1x8x6x6xf32>
  %1 = graph.add %x, %0 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
  %2 = graph.relu %1 : tensor<1x8x6x6xf32>
  return %2 : tensor<1x8x6x6xf32>
}

// -----

// Conv then Relu; Conv then a residual Add with no activation; Conv then
// HardSwish (MobileNetV3).
// CHECK-LABEL: func.func @conv_relu_and_conv_add
// CHECK-NEXT:  %[[R:.*]] = graph.fused_conv %arg0, %arg1 {{[{]}}activation = "relu", {{.*}} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
// CHECK-NEXT:  %[[S:.*]] = graph.fused_conv %[[R]], %arg1 residual %arg0 : tensor<1x8x6x6xf32> {{[{]}}dilations{{.*}} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
// CHECK-NEXT:  %[[H:.*]] = graph.fused_conv %[[S]], %arg1 {{[{]}}activation = "hard_swish", {{.*}} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
// CHECK-NEXT:  return %[[H]]
// NOCONV-LABEL: func.func @conv_relu_and_conv_add
// NOCONV-NOT:   fused_conv
// NOCONV:       return
func.func @conv_relu_and_conv_add(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %1 = graph.relu %0 : tensor<1x8x6x6xf32>
  %2 = graph.conv %1, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %3 = graph.add %2, %x : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
  %4 = graph.conv %3, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %5 = graph.hard_swish %4 : tensor<1x8x6x6xf32>
  return %5 : tensor<1x8x6x6xf32>
}

// -----

// Look-alikes: a conv result read twice (the add stays), a residual that
// broadcasts (its type is not the result's), Relu before the Add (only the
// Relu folds, the Add stays after it), a Sigmoid (not an epilogue).
// CHECK-LABEL: func.func @conv_lookalikes
// CHECK-NEXT:  %[[A:.*]] = graph.conv %arg0, %arg1
// CHECK-NEXT:  %[[B:.*]] = graph.add %[[A]], %arg0
// CHECK-NEXT:  %[[C:.*]] = graph.conv %arg0, %arg1
// CHECK-NEXT:  %[[D:.*]] = graph.add %[[C]], %arg2
// CHECK-NEXT:  %[[E:.*]] = graph.fused_conv %arg0, %arg1 {{[{]}}activation = "relu"
// CHECK-NEXT:  %[[F:.*]] = graph.add %[[E]], %arg0
// CHECK-NEXT:  %[[G:.*]] = graph.conv %arg0, %arg1
// CHECK-NEXT:  %[[H:.*]] = graph.sigmoid %[[G]]
// CHECK-NEXT:  return %[[A]], %[[B]], %[[D]], %[[F]], %[[H]]
func.func @conv_lookalikes(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %c: tensor<1x8x1x1xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %1 = graph.add %0, %x : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
  %2 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %3 = graph.add %2, %c : tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32> -> tensor<1x8x6x6xf32>
  %4 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %5 = graph.relu %4 : tensor<1x8x6x6xf32>
  %6 = graph.add %5, %x : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
  %7 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x6x6xf32>
  %8 = graph.sigmoid %7 : tensor<1x8x6x6xf32>
  return %0, %1, %3, %6, %8 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}
