// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern=half-gemm=true | FileCheck %s --check-prefix=NATIVE
// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s --check-prefix=WIDEN
// fp16 GEMMs: with half-gemm (CUDA) kern.matmul takes the fp16 buffers
// (cuBLASLt accumulates in fp32); without it (the CPU) the operands are
// widened to fp32 copies, multiplied, and the product narrowed.

// NATIVE-LABEL: func.func @main
// NATIVE-NOT:   kern.map
// NATIVE:       kern.matmul %arg0, %{{.*}} bias %{{.*}} into %{{.*}} : memref<4x8xf16>, memref<8x16xf16>, memref<1x16xf16> into memref<4x16xf16>
// NATIVE-NOT:   kern.map
// NATIVE:       kern.matmul %{{.*}}, %{{.*}} into %arg1 : memref<4x16xf16>, memref<16x2xf16> into memref<4x2xf16>
// NATIVE-NOT:   kern.map

// WIDEN-LABEL: func.func @main
// WIDEN-COUNT-3: kern.map
// WIDEN:         kern.matmul %{{.*}}, %{{.*}} bias %{{.*}} into %{{.*}} : memref<4x8xf32>, memref<8x16xf32>, memref<1x16xf32> into memref<4x16xf32>
// WIDEN:         kern.map
// WIDEN:         arith.truncf
func.func @main(%x: tensor<4x8xf16> {graph.name = "x"}) -> (tensor<4x2xf16> {graph.name = "y"}) {
  %w = graph.constant dense<0.5> : tensor<8x16xf16>
  %b = graph.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]> : tensor<16xf16>
  %h = graph.gemm %x, %w, %b : tensor<4x8xf16>, tensor<8x16xf16>, tensor<16xf16> -> tensor<4x16xf16>
  %w2 = graph.constant dense<0.25> : tensor<16x2xf16>
  %y = graph.matmul %h, %w2 : tensor<4x16xf16>, tensor<16x2xf16> -> tensor<4x2xf16>
  return %y : tensor<4x2xf16>
}

// -----

// fp16 convolution: native with half-gemm, through fp32 copies without.
// NATIVE-LABEL: func.func @main
// NATIVE-NOT:   kern.map
// NATIVE:       kern.conv %arg0, %{{.*}} into %arg1 {{.*}}: memref<1x4x8x8xf16>, memref<6x4x3x3xf16> into memref<1x6x6x6xf16>
// WIDEN-LABEL: func.func @main
// WIDEN-COUNT-2: arith.extf
// WIDEN:         kern.conv {{.*}}: memref<1x4x8x8xf32>, memref<6x4x3x3xf32> into memref<1x6x6x6xf32>
// WIDEN:         arith.truncf
func.func @main(%x: tensor<1x4x8x8xf16> {graph.name = "x"}) -> (tensor<1x6x6x6xf16> {graph.name = "y"}) {
  %w = graph.constant dense<0.5> : tensor<6x4x3x3xf16>
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : tensor<1x4x8x8xf16>, tensor<6x4x3x3xf16> -> tensor<1x6x6x6xf16>
  return %0 : tensor<1x6x6x6xf16>
}
