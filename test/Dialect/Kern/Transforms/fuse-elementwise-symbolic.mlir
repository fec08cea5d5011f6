// RUN: %shardc-opt %s --split-input-file --kern-fuse-elementwise | FileCheck %s
// kern-fuse-elementwise over dynamic dims: the rules hold for every value of
// the symbols and the fused kernel's layouts are composed on the mirrors
// (kern.sym). Both symbols have a bound of 8: the bounds alone would make
// [s0, s1] and [s1, s0] look alike.

#bs = affine_map<()[s0, s1] -> (s0, s1)>
#dense = affine_map<()[s0, s1] -> (0, s1, 1)>

// A chain add -> exp over [s0, s1]: one kernel, the bias row broadcast.
// CHECK-LABEL: func.func @chain
// CHECK-NOT:   kern.alloc
// CHECK:       kern.map ins(%arg0, %arg1 : memref<8x8xf32>, memref<8xf32>) outs(%arg2 : memref<8x8xf32>)
// CHECK-SAME:  kern.sym = {layouts = [#[[D:map[0-9]*]], #{{map[0-9]*}}, #[[D]]], shape = #{{map[0-9]*}}}
// CHECK-SAME:  layouts = [array<i64: 0, 8, 1>, array<i64: 0, 0, 1>, array<i64: 0, 8, 1>]
// CHECK:       arith.addf
// CHECK-NEXT:  math.exp
// CHECK-NOT:   kern.map
func.func @chain(%x: memref<8x8xf32> {kern.input = "x", kern.sym = #bs}, %b: memref<8xf32> {kern.input = "b"}, %y: memref<8x8xf32> {kern.output = "y", kern.sym = #bs}) attributes {kern.dims = [{name = "a", max = 8 : i64}, {name = "b", max = 8 : i64}]} {
  %t = kern.alloc {kern.sym = {result = #bs}} : memref<8x8xf32>
  kern.map ins(%x, %b : memref<8x8xf32>, memref<8xf32>) outs(%t : memref<8x8xf32>) attributes {kern.sym = {layouts = [#dense, affine_map<() -> (0, 0, 1)>, #dense], shape = #bs}, layouts = [array<i64: 0, 8, 1>, array<i64: 0, 0, 1>, array<i64: 0, 8, 1>], shape = array<i64: 8, 8>} {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    kern.yield %s : f32
  }
  kern.map ins(%t : memref<8x8xf32>) outs(%y : memref<8x8xf32>) attributes {kern.sym = {layouts = [#dense, #dense], shape = #bs}, layouts = [array<i64: 0, 8, 1>, array<i64: 0, 8, 1>], shape = array<i64: 8, 8>} {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    kern.yield %e : f32
  }
  return
}

// -----

// A transpose of [s0, s1] folded into the kernel reading it: the composed
// access walks x with the symbolic strides (1, s1).
// CHECK-DAG:   #[[T:.+]] = affine_map<()[s0, s1] -> (0, 1, s1)>
// CHECK-LABEL: func.func @transpose
// CHECK:       kern.map ins(%arg0 : memref<8x8xf32>) outs(%arg1 : memref<8x8xf32>)
// CHECK-SAME:  kern.sym = {layouts = [#[[T]], {{.*}}]
// CHECK-NOT:   kern.map
func.func @transpose(%x: memref<8x8xf32> {kern.input = "x", kern.sym = affine_map<()[s0, s1] -> (s0, s1)>}, %y: memref<8x8xf32> {kern.output = "y", kern.sym = affine_map<()[s0, s1] -> (s1, s0)>}) attributes {kern.dims = [{name = "a", max = 8 : i64}, {name = "b", max = 8 : i64}]} {
  %t = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s1, s0)>}} : memref<8x8xf32>
  kern.map ins(%x : memref<8x8xf32>) outs(%t : memref<8x8xf32>) attributes {kern.sym = {layouts = [affine_map<()[s0, s1] -> (0, 1, s1)>, affine_map<()[s0, s1] -> (0, s0, 1)>], shape = affine_map<()[s0, s1] -> (s1, s0)>}, layouts = [array<i64: 0, 1, 8>, array<i64: 0, 8, 1>], shape = array<i64: 8, 8>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  kern.map ins(%t : memref<8x8xf32>) outs(%y : memref<8x8xf32>) attributes {kern.sym = {layouts = [affine_map<()[s0, s1] -> (0, s0, 1)>, affine_map<()[s0, s1] -> (0, s0, 1)>], shape = affine_map<()[s0, s1] -> (s1, s0)>}, layouts = [array<i64: 0, 8, 1>, array<i64: 0, 8, 1>], shape = array<i64: 8, 8>} {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    kern.yield %n : f32
  }
  return
}

// -----

// The consumer reads the intermediate [s0, 8] at an offset of s0 rows'
// worth of a dim whose size is s0: not provably inside it for every value,
// so the two kernels stay apart.
// CHECK-LABEL: func.func @not_provable
// CHECK-COUNT-2: kern.map
func.func @not_provable(%x: memref<8x8xf32> {kern.input = "x", kern.sym = affine_map<()[s0] -> (s0, 8)>}, %y: memref<4x8xf32> {kern.output = "y"}) attributes {kern.dims = [{name = "a", max = 8 : i64}]} {
  %t = kern.alloc {kern.sym = {result = affine_map<()[s0] -> (s0, 8)>}} : memref<8x8xf32>
  kern.map ins(%x : memref<8x8xf32>) outs(%t : memref<8x8xf32>) attributes {kern.sym = {layouts = [affine_map<() -> (0, 8, 1)>, affine_map<() -> (0, 8, 1)>], shape = affine_map<()[s0] -> (s0, 8)>}, layouts = [array<i64: 0, 8, 1>, array<i64: 0, 8, 1>], shape = array<i64: 8, 8>} {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    kern.yield %e : f32
  }
  kern.map ins(%t : memref<8x8xf32>) outs(%y : memref<4x8xf32>) attributes {kern.sym = {layouts = [affine_map<() -> (32, 8, 1)>, affine_map<() -> (0, 8, 1)>], shape = affine_map<() -> (4, 8)>}, layouts = [array<i64: 32, 8, 1>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}
