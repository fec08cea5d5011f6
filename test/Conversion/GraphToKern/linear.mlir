// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --convert-graph-to-kern | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --convert-graph-to-kern=half-gemm=true | FileCheck %s --check-prefix=NATIVE
// graph.linear is one kern.matmul: the bias (a row) as a [1,...,1,N] view
// of the matmul's rank, the activation as its epilogue, the residual (a
// view at the matmul's rank) added after it.

// CHECK-LABEL: func.func @main
// CHECK-SAME:  (%[[X:arg[0-9]+]]: memref<2x4x8xf32> {{.*}}, %[[R:arg[0-9]+]]: memref<2x4x16xf32> {{.*}}, %[[Y:arg[0-9]+]]: memref<2x4x16xf32> {{.*}}, %[[Z:arg[0-9]+]]: memref<2x4x16xf32> {{.*}}, %[[V:arg[0-9]+]]: memref<4x16xf32>
// CHECK-DAG:   %[[B:.*]] = kern.weight {{.*}} : memref<16xf32>
// CHECK-DAG:   %[[W:.*]] = kern.weight {{.*}} : memref<8x16xf32>
// CHECK:       %[[W3:.*]] = kern.view %[[W]] : memref<8x16xf32> to memref<1x8x16xf32>
// CHECK-NEXT:  %[[B3:.*]] = kern.view %[[B]] : memref<16xf32> to memref<1x1x16xf32>
// CHECK-NEXT:  kern.matmul %[[X]], %[[W3]] bias %[[B3]] into %[[Y]] {epilogue = "gelu"} : memref<2x4x8xf32>, memref<1x8x16xf32>, memref<1x1x16xf32> into memref<2x4x16xf32>
// CHECK:       kern.matmul %[[X]], %{{.*}} bias %{{.*}} residual %[[R]] into %[[Z]] : memref<2x4x8xf32>, memref<1x8x16xf32>, memref<1x1x16xf32> residual memref<2x4x16xf32> into memref<2x4x16xf32>
// A 2-D product into a 2-D result; no bias; the tanh GELU.
// CHECK:       kern.view %[[X]] : memref<2x4x8xf32> to memref<8x8xf32>
// CHECK:       kern.matmul %{{.*}}, %[[W]] into %[[V]] {epilogue = "gelu_tanh"} : memref<4x8xf32>, memref<8x16xf32> into memref<4x16xf32>
func.func @main(%x: tensor<2x4x8xf32> {graph.name = "x"}, %r: tensor<2x4x16xf32> {graph.name = "r"}) -> (tensor<2x4x16xf32> {graph.name = "y"}, tensor<2x4x16xf32> {graph.name = "z"}, tensor<4x16xf32> {graph.name = "v"}) {
  %w = graph.constant dense<0.5> : tensor<8x16xf32>
  %b = graph.constant dense<0.25> : tensor<16xf32>
  %0 = graph.linear %x, %w bias %b : tensor<16xf32> {activation = "gelu"} : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %1 = graph.linear %x, %w bias %b : tensor<16xf32> residual %r : tensor<2x4x16xf32> : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %x2 = graph.reshape %x {shape = array<i64: 8, 8>} : tensor<2x4x8xf32> -> tensor<8x8xf32>
  %s = graph.slice %x2 {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>, axes = array<i64: 0, 1>, steps = array<i64: 1, 1>} : tensor<8x8xf32> -> tensor<4x8xf32>
  %2 = graph.linear %s, %w {activation = "gelu_tanh"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0, %1, %2 : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16xf32>
}

// -----

// fp16 on the CPU: the operands, the bias and the residual are widened to
// fp32 copies, the product (with its epilogue) narrowed into the result.
// With native half GEMMs (CUDA) the linear takes the fp16 buffers.
// CHECK-LABEL: func.func @main
// CHECK-SAME:  (%[[X:arg[0-9]+]]: memref<4x8xf16> {{.*}}, %[[R:arg[0-9]+]]: memref<4x16xf16> {{.*}}, %[[Y:arg[0-9]+]]: memref<4x16xf16>
// CHECK-DAG:   %[[B:.*]] = kern.weight {{.*}} : memref<1x16xf16>
// CHECK-DAG:   %[[W:.*]] = kern.weight {{.*}} : memref<8x16xf16>
// CHECK:       %[[Y32:.*]] = kern.alloc : memref<4x16xf32>
// CHECK-NEXT:  %[[X32:.*]] = kern.alloc : memref<4x8xf32>
// CHECK-NEXT:  kern.map ins(%[[X]] : memref<4x8xf16>) outs(%[[X32]] : memref<4x8xf32>)
// CHECK:       %[[W32:.*]] = kern.alloc : memref<8x16xf32>
// CHECK-NEXT:  kern.map ins(%[[W]] : memref<8x16xf16>) outs(%[[W32]] : memref<8x16xf32>)
// CHECK:       %[[B32:.*]] = kern.alloc : memref<1x16xf32>
// CHECK-NEXT:  kern.map ins(%[[B]] : memref<1x16xf16>) outs(%[[B32]] : memref<1x16xf32>)
// CHECK:       %[[R32:.*]] = kern.alloc : memref<4x16xf32>
// CHECK-NEXT:  kern.map ins(%[[R]] : memref<4x16xf16>) outs(%[[R32]] : memref<4x16xf32>)
// CHECK:       kern.matmul %[[X32]], %[[W32]] bias %[[B32]] residual %[[R32]] into %[[Y32]] : memref<4x8xf32>, memref<8x16xf32>, memref<1x16xf32> residual memref<4x16xf32> into memref<4x16xf32>
// CHECK-NEXT:  kern.map ins(%[[Y32]] : memref<4x16xf32>) outs(%[[Y]] : memref<4x16xf16>)
// CHECK:         arith.truncf
// NATIVE:       func.func @main(%arg0: memref<4x8xf16>
// NATIVE-NOT:   kern.map
// NATIVE:       kern.matmul %arg0, %{{.*}} bias %{{.*}} residual %arg1 into %arg2 : memref<4x8xf16>, memref<8x16xf16>, memref<1x16xf16> residual memref<4x16xf16> into memref<4x16xf16>
// NATIVE-NOT:   kern.map
func.func @main(%x: tensor<4x8xf16> {graph.name = "x"}, %r: tensor<4x16xf16> {graph.name = "r"}) -> (tensor<4x16xf16> {graph.name = "y"}) {
  %w = graph.constant dense<0.5> : tensor<8x16xf16>
  %b = graph.constant dense<0.25> : tensor<1x16xf16>
  %0 = graph.linear %x, %w bias %b : tensor<1x16xf16> residual %r : tensor<4x16xf16> : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// A linear on float64 has no GEMM library: a clear error.
func.func @main(%x: tensor<4x8xf64> {graph.name = "x"}) -> (tensor<4x8xf64> {graph.name = "y"}) {
  %w = graph.constant dense<0.5> : tensor<8x8xf64>
  // expected-error @+1 {{cannot lower 'graph.linear': a fused linear runs in float32, float16 or bfloat16 only (got tensor<4x8xf64>)}}
  %0 = graph.linear %x, %w {activation = "relu"} : tensor<4x8xf64>, tensor<8x8xf64> -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}
