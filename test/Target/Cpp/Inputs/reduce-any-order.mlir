// Full reductions of a channels-last buffer: logical [1, 8, 4, 4] (NCHW)
// over physical [1, 4, 4, 8] (strides: C 1, H 32, W 8).
func.func @main(%x: memref<1x4x4x8xf32> {kern.input = "x"}, %mx: memref<f32> {kern.output = "max"}, %sm: memref<f32> {kern.output = "sum"}) {
  kern.reduce "max" ins(%x : memref<1x4x4x8xf32>) outs(%mx : memref<f32>) attributes {layouts = [array<i64: 0, 128, 1, 32, 8>, array<i64: 0, 0, 0, 0, 0>], reduce_dims = array<i64: 0, 1, 2, 3>, shape = array<i64: 1, 8, 4, 4>} {
  ^bb0(%v: f32):
    kern.yield %v : f32
  }
  kern.reduce "sum" ins(%x : memref<1x4x4x8xf32>) outs(%sm : memref<f32>) attributes {layouts = [array<i64: 0, 128, 1, 32, 8>, array<i64: 0, 0, 0, 0, 0>], reduce_dims = array<i64: 0, 1, 2, 3>, shape = array<i64: 1, 8, 4, 4>} {
  ^bb0(%v: f32):
    kern.yield %v : f32
  }
  return
}
