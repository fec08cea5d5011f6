// A language model's two ends with a vocabulary of 7, which no tp degree
// above 1 divides: an embedding (a table looked up by token ids; negative
// ids wrap, as ONNX Gather says) and an LM head (a projection by a
// constant whose result the program returns).
func.func @main(%ids: tensor<2x3xi64> {graph.name = "ids"}) -> (tensor<2x3x7xf32> {graph.name = "logits"}) {
  %table = graph.constant dense<[[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5], [6.0, 6.5, 7.0, 7.5], [8.0, 8.5, 9.0, 9.5], [10.0, 10.5, 11.0, 11.5], [12.0, 12.5, 13.0, 13.5]]> : tensor<7x4xf32>
  %rows = graph.gather %table, %ids {axis = 0 : i64} : tensor<7x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  %head = graph.constant dense<[[1.0, -1.0, 0.5, 2.0, 0.0, -0.5, 1.5], [0.25, 1.0, -2.0, 0.5, 1.0, 0.0, -1.0], [-1.0, 0.5, 1.0, 0.0, 2.0, 1.0, 0.5], [0.5, 0.0, -0.5, 1.0, -1.0, 2.0, 0.25]]> : tensor<4x7xf32>
  %logits = graph.matmul %rows, %head : tensor<2x3x4xf32>, tensor<4x7xf32> -> tensor<2x3x7xf32>
  return %logits : tensor<2x3x7xf32>
}
