// Full reductions of a large buffer ([64, 1024], 65536 elements: a
// per-tensor quantization range at run time).
func.func @main(%x: memref<64x1024xf32> {kern.input = "x"}, %mx: memref<f32> {kern.output = "max"}, %sm: memref<f32> {kern.output = "sum"}) {
  kern.reduce "max" ins(%x : memref<64x1024xf32>) outs(%mx : memref<f32>) attributes {layouts = [array<i64: 0, 1024, 1>, array<i64: 0, 0, 0>], reduce_dims = array<i64: 0, 1>, shape = array<i64: 64, 1024>} {
  ^bb0(%v: f32):
    kern.yield %v : f32
  }
  kern.reduce "sum" ins(%x : memref<64x1024xf32>) outs(%sm : memref<f32>) attributes {layouts = [array<i64: 0, 1024, 1>, array<i64: 0, 0, 0>], reduce_dims = array<i64: 0, 1>, shape = array<i64: 64, 1024>} {
  ^bb0(%v: f32):
    kern.yield %v : f32
  }
  return
}
