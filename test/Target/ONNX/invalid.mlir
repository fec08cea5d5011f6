// RUN: %shardc-translate --graph-to-onnx %s --split-input-file --verify-diagnostics -o /dev/null
// What --emit=onnx refuses, each with one line on the op.


// One rank's part of a vocabulary-parallel table (what dist-partition
// makes; --emit=onnx writes the model before partitioning).
func.func @main(%x: tensor<4x8xf32>, %i: tensor<5xi64>) -> tensor<5x8xf32> {
  // expected-error @+1 {{--emit=onnx: a vocabulary-parallel gather (one rank's part of a table) has no ONNX form}}
  %0 = graph.gather %x, %i {axis = 0 : i64, part = array<i64: 8, 4>} : tensor<4x8xf32>, tensor<5xi64> -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// A weight without data (a shape-only import, as --emit=plan makes).
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{--emit=onnx: the data of constant 'absent' is absent (a shape-only import has no weights)}}
  %w = graph.constant dense_resource<absent> : tensor<4x4xf32>
  %0 = graph.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{--emit=onnx: a dilated average pool is past opset 17}}
  %0 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x8x8xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
