// RUN: %shardc-opt %s --split-input-file --dist-seed-megatron="tp=2 sp=true" --verify-diagnostics
// Sequence parallelism needs tp to divide the token dim: 3 tokens at tp=2
// are an error naming the norm, not a split of the batch (2, which tp
// divides) or a silent fall back to plain tp.

func.func @odd_sequence(%z: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %s = graph.constant dense<1.0> : tensor<8xf32>
  // expected-error @+1 {{--sp: the 3 tokens of this norm's input (dim 1) do not divide by --tp=2; sequence parallelism needs them to (pad the sequence to a multiple of tp, or drop --sp)}}
  %t = graph.rms_norm %z, %s {axis = 2 : i64} : tensor<2x3x8xf32>, tensor<8xf32>
  return %t : tensor<2x3x8xf32>
}
