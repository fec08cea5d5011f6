// RUN: %shardc-opt %s --split-input-file --graph-pad-columns="multiple=16 min-columns=8" | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --graph-pad-columns | FileCheck %s --check-prefix=DEFAULT
// graph-pad-columns: a product by a constant [K, N] weight whose rows of N
// elements are not whole 16 bytes gets zero columns up to a multiple of
// `multiple` (a window of the weight: graph.source names the data, the
// padding reads as zeros) and a slice back to N.

// fp16, N = 10 (20-byte rows): padded to 16 columns.
// CHECK-LABEL: func.func @odd_vocabulary
// CHECK:         %[[W:.*]] = graph.constant {graph.source = dense<{{.*}}> : tensor<2x10xf16>} dense_resource<{{.*}}> : tensor<2x16xf16>
// CHECK:         %[[Y:.*]] = graph.matmul %arg0, %[[W]] : tensor<3x2xf16>, tensor<2x16xf16> -> tensor<3x16xf16>
// CHECK:         %[[S:.*]] = graph.slice %[[Y]] {ends = array<i64: 3, 10>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<3x16xf16> -> tensor<3x10xf16>
// CHECK:         return %[[S]]
// The default needs at least 1024 columns.
// DEFAULT-LABEL: func.func @odd_vocabulary
// DEFAULT-NOT:   graph.slice
func.func @odd_vocabulary(%x: tensor<3x2xf16>) -> tensor<3x10xf16> {
  %w = graph.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0]]> : tensor<2x10xf16>
  %y = graph.matmul %x, %w : tensor<3x2xf16>, tensor<2x10xf16> -> tensor<3x10xf16>
  return %y : tensor<3x10xf16>
}

// -----

// Batched input, the weight shared with another reader: the original
// stays for it.
// CHECK-LABEL: func.func @shared_weight
// CHECK-DAG:     %[[W:.*]] = graph.constant dense<{{.*}}> : tensor<2x9xf32>
// CHECK-DAG:     %[[P:.*]] = graph.constant {graph.source = {{.*}}} {{.*}} : tensor<2x16xf32>
// CHECK:         %[[Y:.*]] = graph.matmul %arg0, %[[P]] : tensor<4x3x2xf32>, tensor<2x16xf32> -> tensor<4x3x16xf32>
// CHECK:         graph.slice %[[Y]] {ends = array<i64: 4, 3, 9>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>}
// CHECK:         graph.add %[[W]], %[[W]]
func.func @shared_weight(%x: tensor<4x3x2xf32>) -> (tensor<4x3x9xf32>, tensor<2x9xf32>) {
  %w = graph.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]]> : tensor<2x9xf32>
  %y = graph.matmul %x, %w : tensor<4x3x2xf32>, tensor<2x9xf32> -> tensor<4x3x9xf32>
  %z = graph.add %w, %w : tensor<2x9xf32>, tensor<2x9xf32> -> tensor<2x9xf32>
  return %y, %z : tensor<4x3x9xf32>, tensor<2x9xf32>
}

// -----

// Left alone: rows of whole 16 bytes (f32, N = 12), fewer columns than
// min-columns, a weight that is not a constant, a splat (no data to
// window).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     graph.slice
func.func @left_alone(%x: tensor<3x2xf32>, %h: tensor<3x2xf16>, %v: tensor<2x10xf16>) -> (tensor<3x12xf32>, tensor<3x6xf16>, tensor<3x10xf16>, tensor<3x10xf16>) {
  %a = graph.constant dense<1.0> : tensor<2x12xf32>
  %w = graph.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]]> : tensor<2x12xf32>
  %y = graph.matmul %x, %w : tensor<3x2xf32>, tensor<2x12xf32> -> tensor<3x12xf32>
  %n = graph.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]> : tensor<2x6xf16>
  %z = graph.matmul %h, %n : tensor<3x2xf16>, tensor<2x6xf16> -> tensor<3x6xf16>
  %u = graph.matmul %h, %v : tensor<3x2xf16>, tensor<2x10xf16> -> tensor<3x10xf16>
  %s = graph.constant dense<2.0> : tensor<2x10xf16>
  %t = graph.matmul %h, %s : tensor<3x2xf16>, tensor<2x10xf16> -> tensor<3x10xf16>
  return %y, %z, %u, %t : tensor<3x12xf32>, tensor<3x6xf16>, tensor<3x10xf16>, tensor<3x10xf16>
}
