// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// graph.attention is one kern.attention. Its operands go as base buffers
// with [offset, batch strides, row stride, column stride] layouts, so the
// layout ops around attention are absorbed: the split / reshape /
// transpose producing q, k and v (deferred by the driver when every use
// reads them through strides) and the transpose / reshape after it (the
// kernel writes the final value). Batch dims merge where every operand
// allows.

// GPT-2: q, k, v are [2, 4, 8, 16] views of the packed [2, 8, 192] input at
// offsets 0, 64, 128 (batch stride 8 * 192, head stride 16, row stride 192);
// the output is written straight into y as [2, 8, 4, 16]. No copy kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME:  (%[[X:.*]]: memref<2x8x192xf32> {kern.input = "x"}, %[[Y:.*]]: memref<2x8x64xf32> {kern.output = "y"})
// CHECK-NEXT:  kern.attention %[[X]], %[[X]], %[[X]] into %[[Y]] {causal, dims = array<i64: 2, 4, 8, 8, 16, 16>, k_layout = array<i64: 64, 1536, 16, 192, 1>, q_layout = array<i64: 0, 1536, 16, 192, 1>, scale = 2.500000e-01 : f32, v_layout = array<i64: 128, 1536, 16, 192, 1>, y_layout = array<i64: 0, 512, 16, 64, 1>} : memref<2x8x192xf32>, memref<2x8x192xf32>, memref<2x8x192xf32> into memref<2x8x64xf32>
// CHECK-NEXT:  return
func.func @main(%x: tensor<2x8x192xf32> {graph.name = "x"}) -> (tensor<2x8x64xf32> {graph.name = "y"}) {
  %s:3 = graph.split %x {axis = 2 : i64, sizes = array<i64: 64, 64, 64>} : tensor<2x8x192xf32> -> tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
  %q0 = graph.reshape %s#0 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %q = graph.transpose %q0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %k0 = graph.reshape %s#1 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %k = graph.transpose %k0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %v0 = graph.reshape %s#2 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %v = graph.transpose %v0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %a = graph.attention %q, %k, %v {causal = true, scale = 0.25 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %t = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xf32> -> tensor<2x8x4x16xf32>
  %y = graph.reshape %t {shape = array<i64: 2, 8, 64>} : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// A split whose piece has another user (v0 is returned) is materialized,
// all of it; the transposes after it are still read through strides, and
// the returned reshape is a view copied into its output.
// CHECK-LABEL: func.func @main
// CHECK-COUNT-3: kern.map ins(%arg0 : memref<2x8x192xf32>)
// CHECK:       %[[V:.*]] = kern.view
// CHECK-NEXT:  kern.attention %{{.*}}, %{{.*}}, %[[V]] into %arg1 {dims = array<i64: 2, 4, 8, 8, 16, 16>, k_layout = array<i64: 0, 512, 16, 64, 1>, q_layout = array<i64: 0, 512, 16, 64, 1>, scale = 2.500000e-01 : f32, v_layout = array<i64: 0, 512, 16, 64, 1>, y_layout = array<i64: 0, 512, 16, 64, 1>} : memref<2x8x64xf32>, memref<2x8x64xf32>, memref<2x8x4x16xf32> into memref<2x8x64xf32>
// CHECK-NEXT:  kern.map ins(%[[V]] : memref<2x8x4x16xf32>) outs(%arg2
// CHECK-NEXT:  ^bb0
func.func @main(%x: tensor<2x8x192xf32> {graph.name = "x"}) -> (tensor<2x8x64xf32> {graph.name = "y"}, tensor<2x8x4x16xf32> {graph.name = "v"}) {
  %s:3 = graph.split %x {axis = 2 : i64, sizes = array<i64: 64, 64, 64>} : tensor<2x8x192xf32> -> tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
  %q0 = graph.reshape %s#0 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %q = graph.transpose %q0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %k0 = graph.reshape %s#1 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %k = graph.transpose %k0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %v0 = graph.reshape %s#2 {shape = array<i64: 2, 8, 4, 16>} : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %v = graph.transpose %v0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32> -> tensor<2x4x8x16xf32>
  %a = graph.attention %q, %k, %v {scale = 0.25 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %t = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xf32> -> tensor<2x8x4x16xf32>
  %y = graph.reshape %t {shape = array<i64: 2, 8, 64>} : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %y, %v0 : tensor<2x8x64xf32>, tensor<2x8x4x16xf32>
}

// -----

// fp16 with a [2, 1, 1, 6] mask broadcast through zero
// strides; the transpose after attention becomes y's strides.
// CHECK-LABEL: func.func @main
// CHECK-NEXT:  kern.attention %arg0, %arg1, %arg2 mask %arg3 into %arg4 {dims = array<i64: 2, 3, 4, 6, 8, 5>, k_layout = array<i64: 0, 144, 48, 8, 1>, mask_layout = array<i64: 0, 6, 0, 0, 1>, q_layout = array<i64: 0, 96, 32, 8, 1>, scale = 5.000000e-01 : f32, v_layout = array<i64: 0, 90, 30, 5, 1>, y_layout = array<i64: 0, 60, 5, 15, 1>} : memref<2x3x4x8xf16>, memref<2x3x6x8xf16>, memref<2x3x6x5xf16> mask memref<2x1x1x6xf16> into memref<2x4x3x5xf16>
// CHECK-NEXT:  return
func.func @main(%q: tensor<2x3x4x8xf16> {graph.name = "q"}, %k: tensor<2x3x6x8xf16> {graph.name = "k"}, %v: tensor<2x3x6x5xf16> {graph.name = "v"}, %m: tensor<2x1x1x6xf16> {graph.name = "m"}) -> (tensor<2x4x3x5xf16> {graph.name = "y"}) {
  %a = graph.attention %q, %k, %v mask %m {scale = 0.5 : f32} : tensor<2x3x4x8xf16>, tensor<2x3x6x8xf16>, tensor<2x3x6x5xf16>, tensor<2x1x1x6xf16> -> tensor<2x3x4x5xf16>
  %t = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x5xf16> -> tensor<2x4x3x5xf16>
  return %t : tensor<2x4x3x5xf16>
}

// -----

// A reshape that merges dims a transpose made non-contiguous cannot be a
// strided view: the deferred transpose is materialized where attention
// needs it. No batch dims (rank 2); k and v are one buffer.
// CHECK-LABEL: func.func @main
// CHECK:       %[[T:.*]] = kern.alloc : memref<2x4x8xf32>
// CHECK-NEXT:  kern.map ins(%arg0 : memref<4x2x8xf32>) outs(%[[T]] : memref<2x4x8xf32>) attributes {layouts = [array<i64: 0, 8, 16, 1>, array<i64: 0, 32, 8, 1>]
// CHECK:       %[[Q:.*]] = kern.view %[[T]] : memref<2x4x8xf32> to memref<8x8xf32>
// CHECK-NEXT:  %[[A:.*]] = kern.alloc : memref<8x8xf32>
// CHECK-NEXT:  kern.attention %[[Q]], %arg1, %arg1 into %[[A]] {dims = array<i64: 8, 8, 8, 8>, k_layout = array<i64: 0, 8, 1>, q_layout = array<i64: 0, 8, 1>, scale = 1.000000e+00 : f32, v_layout = array<i64: 0, 8, 1>, y_layout = array<i64: 0, 8, 1>} : memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32> into memref<8x8xf32>
func.func @main(%x: tensor<4x2x8xf32> {graph.name = "x"}, %k: tensor<8x8xf32> {graph.name = "k"}) -> (tensor<8x8xf32> {graph.name = "y"}) {
  %t = graph.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
  %q = graph.reshape %t {shape = array<i64: 8, 8>} : tensor<2x4x8xf32> -> tensor<8x8xf32>
  %a = graph.attention %q, %k, %k {scale = 1.0 : f32} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %r = graph.relu %a : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// bf16_products (the int8 passes' mark) goes with the call.
// CHECK-LABEL: func.func @main
// CHECK:       kern.attention {{.*}} {bf16_products, dims = array<i64: 2, 8, 8, 16, 16>
func.func @main(%q: tensor<2x8x16xf32> {graph.name = "q"}) -> (tensor<2x8x16xf32> {graph.name = "y"}) {
  %a = graph.attention %q, %q, %q {bf16_products, scale = 0.25 : f32} : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %a : tensor<2x8x16xf32>
}
