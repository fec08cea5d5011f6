// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --convert-graph-to-kern
// Lowerings that do not handle dynamic dims refuse them, naming the op,
// rather than lowering the bound.

// graph.batch_norm's lowering builds its kernel from the static shape.
func.func @batch_norm(%x: tensor<8x4xf32, affine_map<()[s0] -> (s0, 4)>>, %p: tensor<4xf32>) -> tensor<8x4xf32, affine_map<()[s0] -> (s0, 4)>> attributes {graph.dims = [{name = "n", max = 8 : i64}]} {
  // expected-error @+1 {{cannot lower 'graph.batch_norm': does not take dynamic dims yet (give the model's inputs a static shape with --input-shape)}}
  %0 = graph.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<8x4xf32, affine_map<()[s0] -> (s0, 4)>>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<8x4xf32, affine_map<()[s0] -> (s0, 4)>>
  return %0 : tensor<8x4xf32, affine_map<()[s0] -> (s0, 4)>>
}
