// A lookup table by token ids (negative ids wrap, as ONNX Gather says):
// under --tp it is vocab-parallel (rows split over the ranks).
func.func @main(%ids: tensor<2x3xi64> {graph.name = "ids"}) -> (tensor<2x3x4xf32> {graph.name = "rows"}) {
  %table = graph.constant dense<[[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5], [6.0, 6.5, 7.0, 7.5], [8.0, 8.5, 9.0, 9.5], [10.0, 10.5, 11.0, 11.5], [12.0, 12.5, 13.0, 13.5], [14.0, 14.5, 15.0, 15.5]]> : tensor<8x4xf32>
  %rows = graph.gather %table, %ids {axis = 0 : i64} : tensor<8x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  return %rows : tensor<2x3x4xf32>
}
