// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern="int8-gemm=true" | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s --check-prefix=REF
// int8 products on oneDNN (CPU programs, int8-gemm): graph.linear_int8 is
// one kern.matmul_int8 on views of a's rank (b and the bias as [1.., K, N]
// and [1.., 1, N]); a MatMulInteger without zero points (int8 x int8) is a
// kern.matmul into int32. Without int8-gemm (CUDA programs) the
// MatMulInteger keeps the runtime's kern.matmul_integer.

// CHECK-LABEL: func.func @linear_int8
// CHECK-DAG:   %[[BIAS:.*]] = kern.view %{{.*}} : memref<16xf32> to memref<1x1x16xf32>
// CHECK-DAG:   %[[B:.*]] = kern.view %{{.*}} : memref<8x16xi8> to memref<1x8x16xi8>
// CHECK:       kern.matmul_int8 %arg0, %[[B]] scales %{{.*}} rows %arg1 bias %[[BIAS]] into %{{.*}} {epilogue = "gelu"} : memref<2x4x8xi8>, memref<1x8x16xi8>, memref<16xf32> rows memref<2x4x1xf32>, memref<1x1x16xf32> into memref<2x4x16xf32>
func.func @linear_int8(%x: tensor<2x4x8xi8>, %s: tensor<2x4x1xf32>) -> tensor<2x4x16xf32> {
  %w = graph.constant dense<1> : tensor<8x16xi8>
  %ws = graph.constant dense<0.5> : tensor<16xf32>
  %b = graph.constant dense<0.25> : tensor<16xf32>
  %y = graph.linear_int8 %x, %w scales %ws rows %s : tensor<2x4x1xf32> bias %b : tensor<16xf32> {activation = "gelu"} : tensor<2x4x8xi8>, tensor<8x16xi8>, tensor<16xf32> -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// Static quantization: a's scale is folded into the column scales, so the
// matmul has no row scales.
// CHECK-LABEL: func.func @linear_int8_static
// CHECK:       kern.matmul_int8 %arg0, %{{.*}} scales %{{.*}} residual %arg1 into %{{.*}} : memref<8x8xi8>, memref<8x16xi8>, memref<16xf32> residual memref<8x16xf32> into memref<8x16xf32>
func.func @linear_int8_static(%x: tensor<8x8xi8>, %r: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %w = graph.constant dense<1> : tensor<8x16xi8>
  %ws = graph.constant dense<0.5> : tensor<16xf32>
  %y = graph.linear_int8 %x, %w scales %ws residual %r : tensor<8x16xf32> : tensor<8x8xi8>, tensor<8x16xi8>, tensor<16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_integer
// CHECK:       kern.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<4x8xi8>, memref<8x2xi8> into memref<4x2xi32>
// CHECK-NOT:   kern.matmul_integer
// REF-LABEL:   func.func @linear_int8
// REF-LABEL:   func.func @linear_int8_static
// REF-LABEL:   func.func @matmul_integer
// REF:         kern.matmul_integer
func.func @matmul_integer(%a: tensor<4x8xi8>, %b: tensor<8x2xi8>) -> tensor<4x2xi32> {
  %z = graph.constant dense<0> : tensor<i8>
  %0 = graph.matmul_integer %a, %b, %z, %z : tensor<4x8xi8>, tensor<8x2xi8>, tensor<i8>, tensor<i8> -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// A zero point that is not zero (or not known) keeps the runtime's kernel.
// CHECK-LABEL: func.func @zero_points
// CHECK:       kern.matmul_integer
func.func @zero_points(%a: tensor<4x8xi8>, %b: tensor<8x2xi8>, %z: tensor<i8>) -> tensor<4x2xi32> {
  %0 = graph.matmul_integer %a, %b, %z, %z : tensor<4x8xi8>, tensor<8x2xi8>, tensor<i8>, tensor<i8> -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
