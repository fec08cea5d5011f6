// RUN: %shardc-opt %s --split-input-file --kern-fuse-elementwise | FileCheck %s
// kern-fuse-elementwise: a producer map is inlined into the one generated
// kernel that reads its result; the intermediate buffer goes away.

// A chain add -> exp -> store: one kernel, both inputs read directly, the
// add's body before the exp's; no intermediate alloc is left.
// CHECK-LABEL: func.func @chain
// CHECK-NOT:   kern.alloc
// CHECK:       kern.map ins(%arg0, %arg1 : memref<4x8xf32>, memref<8xf32>) outs(%arg2 : memref<4x8xf32>)
// CHECK-SAME:  layouts = [array<i64: 0, 8, 1>, array<i64: 0, 0, 1>, array<i64: 0, 8, 1>]
// CHECK:       ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[S]] : f32
// CHECK-NEXT:    kern.yield %[[E]] : f32
// CHECK-NOT:   kern.map
func.func @chain(%x: memref<4x8xf32> {kern.input = "x"}, %b: memref<8xf32> {kern.input = "b"}, %y: memref<4x8xf32> {kern.output = "y"}) {
  %t = kern.alloc : memref<4x8xf32>
  kern.map ins(%x, %b : memref<4x8xf32>, memref<8xf32>) outs(%t : memref<4x8xf32>) attributes {layouts = [array<i64: 0, 8, 1>, array<i64: 0, 0, 1>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>} {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    kern.yield %s : f32
  }
  kern.map ins(%t : memref<4x8xf32>) outs(%y : memref<4x8xf32>) attributes {layouts = [array<i64: 0, 8, 1>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>} {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    kern.yield %e : f32
  }
  return
}

// -----

// A transpose (a copy map) read by a reduction: the reduction reads the
// source with the permuted strides, and a slice at an offset composes too.
// CHECK-LABEL: func.func @transpose_into_reduce
// CHECK-NOT:   kern.alloc
// CHECK:       kern.reduce "sum" ins(%arg0 : memref<8x4xf32>) outs(%arg1 : memref<3xf32>)
// CHECK-SAME:  layouts = [array<i64: 1, 1, 4>, array<i64: 0, 1, 0>]
func.func @transpose_into_reduce(%x: memref<8x4xf32> {kern.input = "x"}, %y: memref<3xf32> {kern.output = "y"}) {
  %t = kern.alloc : memref<4x8xf32>
  kern.map ins(%x : memref<8x4xf32>) outs(%t : memref<4x8xf32>) attributes {layouts = [array<i64: 0, 1, 4>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  kern.reduce "sum" ins(%t : memref<4x8xf32>) outs(%y : memref<3xf32>) attributes {layouts = [array<i64: 8, 8, 1>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 1>, shape = array<i64: 3, 8>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

// A cheap producer read with broadcast is recomputed per read; an exp read
// with broadcast is kept (rule 5).
// CHECK-LABEL: func.func @broadcast
// CHECK:       kern.alloc : memref<8xf32>
// CHECK:       math.exp
// CHECK:       kern.map ins(%arg0, %{{.*}} : memref<8xf32>, memref<8xf32>) outs(%arg1 : memref<4x8xf32>)
// CHECK-SAME:  layouts = [array<i64: 0, 0, 1>, array<i64: 0, 0, 1>, array<i64: 0, 8, 1>]
// CHECK:         arith.mulf
// CHECK-NEXT:    arith.addf
func.func @broadcast(%x: memref<8xf32> {kern.input = "x"}, %y: memref<4x8xf32> {kern.output = "y"}) {
  %cheap = kern.alloc : memref<8xf32>
  kern.map ins(%x : memref<8xf32>) outs(%cheap : memref<8xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 8>} {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    kern.yield %m : f32
  }
  %costly = kern.alloc : memref<8xf32>
  kern.map ins(%x : memref<8xf32>) outs(%costly : memref<8xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 8>} {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    kern.yield %e : f32
  }
  kern.map ins(%cheap, %costly : memref<8xf32>, memref<8xf32>) outs(%y : memref<4x8xf32>) attributes {layouts = [array<i64: 0, 0, 1>, array<i64: 0, 0, 1>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>} {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    kern.yield %s : f32
  }
  return
}

// -----

// Rule 1: two readers keep the intermediate.
// CHECK-LABEL: func.func @two_readers
// CHECK-COUNT-3: kern.map
func.func @two_readers(%x: memref<4x4xf32> {kern.input = "x"}, %y: memref<4x4xf32> {kern.output = "y"}, %z: memref<4x4xf32> {kern.output = "z"}) {
  %t = kern.alloc : memref<4x4xf32>
  kern.map ins(%x : memref<4x4xf32>) outs(%t : memref<4x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 4, 4>} {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    kern.yield %n : f32
  }
  kern.map ins(%t : memref<4x4xf32>) outs(%y : memref<4x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 4, 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  kern.map ins(%t : memref<4x4xf32>) outs(%z : memref<4x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 4, 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

// Rule 2: a library call reads the intermediate.
// CHECK-LABEL: func.func @library_consumer
// CHECK:       kern.map
// CHECK-NEXT:  ^bb0
// CHECK:       kern.matmul
func.func @library_consumer(%x: memref<4x4xf32> {kern.input = "x"}, %y: memref<4x4xf32> {kern.output = "y"}) {
  %t = kern.alloc : memref<4x4xf32>
  kern.map ins(%x : memref<4x4xf32>) outs(%t : memref<4x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 4, 4>} {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    kern.yield %n : f32
  }
  kern.matmul %t, %x into %y : memref<4x4xf32>, memref<4x4xf32> into memref<4x4xf32>
  return
}

// -----

// Rule 4: the consumer walks the 4x4 intermediate as one dim of 16.
// CHECK-LABEL: func.func @merged_dims
// CHECK-COUNT-2: kern.map
func.func @merged_dims(%x: memref<4x4xf32> {kern.input = "x"}, %y: memref<16xf32> {kern.output = "y"}) {
  %t = kern.alloc : memref<4x4xf32>
  kern.map ins(%x : memref<4x4xf32>) outs(%t : memref<4x4xf32>) attributes {layouts = [array<i64: 0, 1, 4>, array<i64: 0, 4, 1>], shape = array<i64: 4, 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  kern.map ins(%t : memref<4x4xf32>) outs(%y : memref<16xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 16>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

// Rule 6: the producer reads %w, which a matmul overwrites before the
// consumer runs.
// CHECK-LABEL: func.func @overwritten_input
// CHECK:       %[[W:.*]] = kern.alloc
// CHECK:       %[[P:.*]] = kern.alloc
// CHECK:       kern.map ins(%[[W]] : memref<4x4xf32>) outs(%[[P]] : memref<4x4xf32>)
// CHECK:       kern.matmul %arg0, %arg0 into %[[W]]
// CHECK:       kern.map ins(%[[P]], %[[W]] :
func.func @overwritten_input(%x: memref<4x4xf32> {kern.input = "x"}, %y: memref<4x4xf32> {kern.output = "y"}) {
  %w = kern.alloc : memref<4x4xf32>
  kern.map ins(%x : memref<4x4xf32>) outs(%w : memref<4x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 4, 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  %p = kern.alloc : memref<4x4xf32>
  kern.map ins(%w : memref<4x4xf32>) outs(%p : memref<4x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 4, 4>} {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    kern.yield %n : f32
  }
  kern.matmul %x, %x into %w : memref<4x4xf32>, memref<4x4xf32> into memref<4x4xf32>
  kern.map ins(%p, %w : memref<4x4xf32>, memref<4x4xf32>) outs(%y : memref<4x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 4, 4>} {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    kern.yield %s : f32
  }
  return
}

// -----

// An empty intermediate (a zero dim) is left alone.
// CHECK-LABEL: func.func @empty
// CHECK-COUNT-2: kern.map
func.func @empty(%x: memref<2x0xf32> {kern.input = "x"}, %y: memref<2x0xf32> {kern.output = "y"}) {
  %t = kern.alloc : memref<2x0xf32>
  kern.map ins(%x : memref<2x0xf32>) outs(%t : memref<2x0xf32>) attributes {layouts = [array<i64: 0, 0, 1>, array<i64: 0, 0, 1>], shape = array<i64: 2, 0>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  kern.map ins(%t : memref<2x0xf32>) outs(%y : memref<2x0xf32>) attributes {layouts = [array<i64: 0, 0, 1>, array<i64: 0, 0, 1>], shape = array<i64: 2, 0>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}
