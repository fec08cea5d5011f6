// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --convert-graph-to-kern
// Lowerings that do not handle dynamic dims refuse them, naming the op,
// rather than computing at the bound.

// An integer product runs on the runtime's reference kernel, which takes
// static shapes only.
func.func @matmul_ref(%x: tensor<8x4xi32, affine_map<()[s0] -> (s0, 4)>>, %w: tensor<4x4xi32>) -> tensor<8x4xi32, affine_map<()[s0] -> (s0, 4)>> attributes {graph.dims = [{name = "n", max = 8 : i64}]} {
  // expected-error @+1 {{cannot lower 'graph.matmul': its kern op 'kern.matmul_ref' does not take dynamic dims yet (give the model's inputs a static shape with --input-shape)}}
  %0 = graph.matmul %x, %w : tensor<8x4xi32, affine_map<()[s0] -> (s0, 4)>>, tensor<4x4xi32> -> tensor<8x4xi32, affine_map<()[s0] -> (s0, 4)>>
  return %0 : tensor<8x4xi32, affine_map<()[s0] -> (s0, 4)>>
}
