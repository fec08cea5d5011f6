// RUN: %shardc-opt %s | %shardc-opt | FileCheck %s
// Bounded dynamic dims in the kern dialect (SymbolicShapes.h): buffers keep
// their bound types; the function names its symbols (kern.dims), arguments
// and buffer-producing ops mirror their shapes (kern.sym), and generated
// kernels mirror their iteration space and layouts. The two symbols have
// equal bounds: only the mirrors tell them apart.

// CHECK-DAG: #[[BSH:.+]] = affine_map<()[s0, s1] -> (s0, s1, 16)>
// CHECK-DAG: #[[ROWS:.+]] = affine_map<()[s0, s1] -> (s0 * s1, 16)>
// CHECK-DAG: #[[DENSE:.+]] = affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>
// CHECK-LABEL: func.func @main
// CHECK-SAME: kern.sym = #[[BSH]]
// CHECK-SAME: kern.dims = [{max = 64 : i64, name = "batch"}, {max = 64 : i64, name = "seq"}]
// CHECK: kern.alloc {kern.sym = {result = #[[BSH]]}} : memref<64x64x16xf32>
// CHECK: kern.view %{{.*}} {kern.sym = {result = #[[ROWS]]}} : memref<64x64x16xf32> to memref<4096x16xf32>
// CHECK: kern.map {{.*}} attributes {kern.sym = {layouts = [#[[DENSE]], #[[DENSE]]], shape = #[[BSH]]}
// CHECK: kern.reduce "mean" {{.*}} attributes {kern.sym = {layouts = [#[[DENSE]], {{.*}}], shape = #[[BSH]]}
// CHECK: kern.softmax
// CHECK: kern.matmul
func.func @main(%x: memref<64x64x16xf32> {kern.input = "x", kern.sym = affine_map<()[s0, s1] -> (s0, s1, 16)>}, %w: memref<1x16x16xf32> {kern.input = "w"}, %y: memref<64x64x16xf32> {kern.output = "y", kern.sym = affine_map<()[s0, s1] -> (s0, s1, 16)>}, %z: memref<64x16xf32> {kern.output = "z", kern.sym = affine_map<()[s0, s1] -> (s0, 16)>}, %r: memref<64x64x16xf32> {kern.output = "r", kern.sym = affine_map<()[s0, s1] -> (s0, s1, 16)>}) attributes {kern.dims = [{name = "batch", max = 64 : i64}, {name = "seq", max = 64 : i64}]} {
  %0 = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s0, s1, 16)>}} : memref<64x64x16xf32>
  %1 = kern.view %0 {kern.sym = {result = affine_map<()[s0, s1] -> (s0 * s1, 16)>}} : memref<64x64x16xf32> to memref<4096x16xf32>
  kern.map ins(%x : memref<64x64x16xf32>) outs(%0 : memref<64x64x16xf32>) attributes {kern.sym = {layouts = [affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>, affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>], shape = affine_map<()[s0, s1] -> (s0, s1, 16)>}, layouts = [array<i64: 0, 1024, 16, 1>, array<i64: 0, 1024, 16, 1>], shape = array<i64: 64, 64, 16>} {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    kern.yield %e : f32
  }
  kern.reduce "mean" ins(%0 : memref<64x64x16xf32>) outs(%z : memref<64x16xf32>) attributes {kern.sym = {layouts = [affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>, affine_map<() -> (0, 16, 0, 1)>], shape = affine_map<()[s0, s1] -> (s0, s1, 16)>}, layouts = [array<i64: 0, 1024, 16, 1>, array<i64: 0, 16, 0, 1>], reduce_dims = array<i64: 1>, shape = array<i64: 64, 64, 16>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  kern.softmax %0 into %y {axis = 2 : i64} : memref<64x64x16xf32> into memref<64x64x16xf32>
  kern.matmul %x, %w into %r : memref<64x64x16xf32>, memref<1x16x16xf32> into memref<64x64x16xf32>
  return
}
