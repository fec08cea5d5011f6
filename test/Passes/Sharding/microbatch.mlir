// RUN: %shardc-opt %s --split-input-file --dist-seed-batch="axis=mb parts=2" --dist-propagate --dist-partition --dist-microbatch -verify-diagnostics | FileCheck %s
// dist-microbatch: the program of one micro-batch, from a partition of the
// batch over the "mb" axis; refused where rows interact.

// An MLP on [4, 8, 64]: one micro-batch is [2, 8, 64]; the input and
// output are marked batched, the mesh is gone, the module has the count.
// CHECK:       module attributes {dist.microbatches = 2 : i64}
// CHECK-NOT:   dist.mesh
// CHECK-LABEL: func.func @main(%arg0: tensor<2x8x64xf32> {dist.batched, graph.name = "x"})
// CHECK-SAME:    -> (tensor<2x8x64xf32> {dist.batched, graph.name = "y"})
// CHECK-NOT:     kern.ranks
// CHECK:         graph.matmul %arg0, %{{.*}} : tensor<2x8x64xf32>, tensor<64x256xf32> -> tensor<2x8x256xf32>
// CHECK-NOT:     dist.
// CHECK:         return %{{.*}} : tensor<2x8x64xf32>
// CHECK-NOT:   func.func
func.func @main(%x: tensor<4x8x64xf32> {graph.name = "x"}) -> (tensor<4x8x64xf32> {graph.name = "y"}) {
  %w1 = graph.constant dense<0.5> : tensor<64x256xf32>
  %w2 = graph.constant dense<0.25> : tensor<256x64xf32>
  %a = graph.matmul %x, %w1 : tensor<4x8x64xf32>, tensor<64x256xf32> -> tensor<4x8x256xf32>
  %b = graph.gelu %a : tensor<4x8x256xf32>
  %c = graph.matmul %b, %w2 : tensor<4x8x256xf32>, tensor<256x64xf32> -> tensor<4x8x64xf32>
  %y = graph.add %c, %x : tensor<4x8x64xf32>, tensor<4x8x64xf32> -> tensor<4x8x64xf32>
  return %y : tensor<4x8x64xf32>
}

// -----

// A sum over the batch needs every micro-batch's rows.
func.func @main(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{cannot split the batch into 2 micro-batches: this node needs the rows of other micro-batches (a dist.all_reduce across the batch}}
  %s = graph.reduce_sum %x {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32>
  return %s : tensor<1x8xf32>
}

// -----

// A constant with a row per example: each micro-batch would need its own.
func.func @main(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{cannot split the batch into 2 micro-batches: 'graph.constant' differs between micro-batches (a constant that varies along the batch)}}
  %c = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %y = graph.add %x, %c : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// The same constant in every row is the same in every micro-batch.
// CHECK-LABEL: func.func @main(%arg0: tensor<2x2xf32> {dist.batched})
// CHECK:         graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
func.func @main(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %c = graph.constant dense<[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]> : tensor<4x2xf32>
  %y = graph.add %x, %c : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// No input has a leading dim that 2 divides.
// expected-error @+1 {{cannot split the batch into 2 parts (axis "mb"): no input has a leading (batch) dim that 2 divides (input 0 is tensor<3x8xf32>)}}
module {
  func.func @main(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
    return %x : tensor<3x8xf32>
  }
}
