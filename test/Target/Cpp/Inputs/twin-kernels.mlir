// Two ops of the same shape and body on different buffers (as every layer
// of a stack repeats its kernels): one kernel function, called twice.
func.func @main(%x: tensor<64x1024xf32> {graph.name = "x"}, %y: tensor<64x1024xf32> {graph.name = "y"}) -> (tensor<64x1024xf32> {graph.name = "a"}, tensor<64x1024xf32> {graph.name = "b"}) {
  %a = graph.tanh %x : tensor<64x1024xf32>
  %b = graph.tanh %y : tensor<64x1024xf32>
  return %a, %b : tensor<64x1024xf32>, tensor<64x1024xf32>
}
