// RUN: %shardc-opt %s | %shardc-opt | FileCheck %s
// RUN: %shardc-opt %s --mlir-print-op-generic | %shardc-opt | FileCheck %s
// Round trip of every kern op through its custom assembly format (and once
// through the generic form).

// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x3xf32> {kern.input = "x"}, %[[Y:arg[0-9]+]]: memref<6xf32> {kern.output = "y"})
func.func @buffers(%x: memref<2x3xf32> {kern.input = "x"}, %y: memref<6xf32> {kern.output = "y"}) {
  // CHECK: %[[A:.*]] = kern.alloc : memref<4x8xf16>
  %a = kern.alloc : memref<4x8xf16>
  // CHECK: kern.alloc {offset = 128 : i64} : memref<2x3xi8>
  %b = kern.alloc {offset = 128 : i64} : memref<2x3xi8>
  // CHECK: %[[W:.*]] = kern.weight {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>} : memref<3xf32>
  %w = kern.weight {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : memref<3xf32>
  // CHECK: kern.weight {offset = 64 : i64, value = dense<7> : tensor<2x2xi64>} : memref<2x2xi64>
  %w2 = kern.weight {offset = 64 : i64, value = dense<7> : tensor<2x2xi64>} : memref<2x2xi64>
  // CHECK: kern.weight {value = dense<[true, false]> : tensor<2xi1>} : memref<2xi1>
  %w3 = kern.weight {value = dense<[true, false]> : tensor<2xi1>} : memref<2xi1>
  // CHECK: kern.view %[[X]] : memref<2x3xf32> to memref<6xf32>
  %v = kern.view %x : memref<2x3xf32> to memref<6xf32>
  // CHECK: kern.view %[[A]] : memref<4x8xf16> to memref<2x2x8xf16>
  %v2 = kern.view %a : memref<4x8xf16> to memref<2x2x8xf16>
  return
}

// CHECK-LABEL: func.func @map
func.func @map(%x: memref<2x3xf32>, %b: memref<3xf32>, %i: memref<2x3xui8>, %y: memref<2x3xf32>, %z: memref<3x2xi32>) {
  // A broadcast add: the bias has a zero stride along dim 0.
  // CHECK: kern.map ins(%{{.*}}, %{{.*}} : memref<2x3xf32>, memref<3xf32>) outs(%{{.*}} : memref<2x3xf32>) attributes {layouts = [array<i64: 0, 3, 1>, array<i64: 0, 0, 1>, array<i64: 0, 3, 1>], shape = array<i64: 2, 3>} {
  // CHECK-NEXT: ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32):
  // CHECK-NEXT:   %[[S:.*]] = arith.addf %[[A0]], %[[A1]] : f32
  // CHECK-NEXT:   %[[E:.*]] = math.exp %[[S]] : f32
  // CHECK-NEXT:   kern.yield %[[E]] : f32
  // CHECK-NEXT: }
  kern.map ins(%x, %b : memref<2x3xf32>, memref<3xf32>) outs(%y : memref<2x3xf32>) attributes {layouts = [array<i64: 0, 3, 1>, array<i64: 0, 0, 1>, array<i64: 0, 3, 1>], shape = array<i64: 2, 3>} {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    %e = math.exp %s : f32
    kern.yield %e : f32
  }
  // Unsigned buffers give signless body values; a transposed output; the
  // index of the iteration space.
  // CHECK: kern.map ins(%{{.*}} : memref<2x3xui8>) outs(%{{.*}} : memref<3x2xi32>) attributes {layouts = [array<i64: 0, 3, 1>, array<i64: 0, 1, 2>], shape = array<i64: 2, 3>} {
  // CHECK-NEXT: ^bb0(%[[U:.*]]: i8):
  // CHECK-NEXT:   %[[EXT:.*]] = arith.extui %[[U]] : i8 to i32
  // CHECK-NEXT:   %[[IDX:.*]] = kern.index 1
  // CHECK-NEXT:   %[[T:.*]] = arith.trunci %[[IDX]] : i64 to i32
  // CHECK-NEXT:   %[[R:.*]] = arith.addi %[[EXT]], %[[T]] : i32
  // CHECK-NEXT:   kern.yield %[[R]] : i32
  kern.map ins(%i : memref<2x3xui8>) outs(%z : memref<3x2xi32>) attributes {layouts = [array<i64: 0, 3, 1>, array<i64: 0, 1, 2>], shape = array<i64: 2, 3>} {
  ^bb0(%u: i8):
    %ext = arith.extui %u : i8 to i32
    %idx = kern.index 1
    %t = arith.trunci %idx : i64 to i32
    %r = arith.addi %ext, %t : i32
    kern.yield %r : i32
  }
  // No inputs: a generator. Two outputs; a negative stride walks backwards.
  // CHECK: kern.map outs(%{{.*}}, %{{.*}} : memref<2x3xf32>, memref<2x3xf32>) attributes {layouts = [array<i64: 0, 3, 1>, array<i64: 5, -3, -1>], shape = array<i64: 2, 3>} {
  // CHECK-NEXT:   %[[C:.*]] = arith.constant 1.500000e+00 : f32
  // CHECK-NEXT:   kern.yield %[[C]], %[[C]] : f32, f32
  kern.map outs(%y, %y : memref<2x3xf32>, memref<2x3xf32>) attributes {layouts = [array<i64: 0, 3, 1>, array<i64: 5, -3, -1>], shape = array<i64: 2, 3>} {
    %c = arith.constant 1.5 : f32
    kern.yield %c, %c : f32, f32
  }
  return
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: memref<4x5xf32>, %y: memref<4xf32>, %m: memref<5xi64>) {
  // CHECK: kern.reduce "sum" ins(%{{.*}} : memref<4x5xf32>) outs(%{{.*}} : memref<4xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 5>} {
  // CHECK-NEXT: ^bb0(%[[V:.*]]: f32):
  // CHECK-NEXT:   %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
  // CHECK-NEXT:   kern.yield %[[SQ]] : f32
  kern.reduce "sum" ins(%x : memref<4x5xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 5>} {
  ^bb0(%v: f32):
    %sq = arith.mulf %v, %v : f32
    kern.yield %sq : f32
  }
  // CHECK: kern.reduce "max" {{.*}} reduce_dims = array<i64: 0>
  kern.reduce "max" ins(%x : memref<4x5xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1, 4>, array<i64: 0, 0, 1>], reduce_dims = array<i64: 0>, shape = array<i64: 5, 4>} {
  ^bb0(%v: f32):
    kern.yield %v : f32
  }
  // CHECK: kern.reduce "min" ins(%{{.*}} : memref<4x5xf32>) outs(%{{.*}} : memref<4xf32>)
  kern.reduce "min" ins(%x : memref<4x5xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 5>} {
  ^bb0(%v: f32):
    kern.yield %v : f32
  }
  // CHECK: kern.reduce "mean" outs(%{{.*}} : memref<5xi64>) {{.*}} reduce_dims = array<i64: 0, 1>
  // CHECK: kern.index 0
  kern.reduce "mean" outs(%m : memref<5xi64>) attributes {layouts = [array<i64: 0, 0, 0>], reduce_dims = array<i64: 0, 1>, shape = array<i64: 2, 3>} {
    %i = kern.index 0
    kern.yield %i : i64
  }
  return
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: memref<2x4x8xf32>, %b: memref<1x8x16xf32>, %bias: memref<1x1x16xf32>, %y: memref<2x4x16xf32>, %at: memref<8x4xf32>, %bt: memref<16x8xf32>, %y2: memref<4x16xf32>, %res: memref<2x4x16xf32>) {
  // CHECK: kern.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<2x4x8xf32>, memref<1x8x16xf32> into memref<2x4x16xf32>
  kern.matmul %a, %b into %y : memref<2x4x8xf32>, memref<1x8x16xf32> into memref<2x4x16xf32>
  // CHECK: kern.matmul %{{.*}}, %{{.*}} bias %{{.*}} into %{{.*}} : memref<2x4x8xf32>, memref<1x8x16xf32>, memref<1x1x16xf32> into memref<2x4x16xf32>
  kern.matmul %a, %b bias %bias into %y : memref<2x4x8xf32>, memref<1x8x16xf32>, memref<1x1x16xf32> into memref<2x4x16xf32>
  // CHECK: kern.matmul %{{.*}}, %{{.*}} into %{{.*}} {alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32, trans_a = true, trans_b = true} : memref<8x4xf32>, memref<16x8xf32> into memref<4x16xf32>
  kern.matmul %at, %bt into %y2 {trans_a = true, trans_b = true, alpha = 0.5 : f32, beta = 1.0 : f32} : memref<8x4xf32>, memref<16x8xf32> into memref<4x16xf32>
  // Epilogues: an activation after the bias, or a residual of y's type.
  // CHECK: kern.matmul %{{.*}}, %{{.*}} bias %{{.*}} into %{{.*}} {epilogue = "gelu"} : memref<2x4x8xf32>, memref<1x8x16xf32>, memref<1x1x16xf32> into memref<2x4x16xf32>
  kern.matmul %a, %b bias %bias into %y {epilogue = "gelu"} : memref<2x4x8xf32>, memref<1x8x16xf32>, memref<1x1x16xf32> into memref<2x4x16xf32>
  // CHECK: kern.matmul %{{.*}}, %{{.*}} into %{{.*}} {epilogue = "relu"} : memref<2x4x8xf32>, memref<1x8x16xf32> into memref<2x4x16xf32>
  kern.matmul %a, %b into %y {epilogue = "relu"} : memref<2x4x8xf32>, memref<1x8x16xf32> into memref<2x4x16xf32>
  // CHECK: kern.matmul %{{.*}}, %{{.*}} bias %{{.*}} residual %[[R:.*]] into %{{.*}} : memref<2x4x8xf32>, memref<1x8x16xf32>, memref<1x1x16xf32> residual memref<2x4x16xf32> into memref<2x4x16xf32>
  kern.matmul %a, %b bias %bias residual %res into %y : memref<2x4x8xf32>, memref<1x8x16xf32>, memref<1x1x16xf32> residual memref<2x4x16xf32> into memref<2x4x16xf32>
  // CHECK: kern.matmul %{{.*}}, %{{.*}} residual %{{.*}} into %{{.*}} {alpha = 2.000000e+00 : f32} : memref<2x4x8xf32>, memref<1x8x16xf32> residual memref<2x4x16xf32> into memref<2x4x16xf32>
  kern.matmul %a, %b residual %res into %y {alpha = 2.0 : f32, epilogue = "none"} : memref<2x4x8xf32>, memref<1x8x16xf32> residual memref<2x4x16xf32> into memref<2x4x16xf32>
  return
}

// CHECK-LABEL: func.func @conv
func.func @conv(%x: memref<1x4x8x8xf32>, %w: memref<6x2x3x3xf32>, %b: memref<6xf32>, %y: memref<1x6x4x4xf32>, %wt: memref<4x3x2x2xf32>, %yt: memref<1x6x16x16xf32>) {
  // CHECK: kern.conv %{{.*}}, %{{.*}} bias %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> into memref<1x6x4x4xf32>
  kern.conv %x, %w bias %b into %y {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> into memref<1x6x4x4xf32>
  // CHECK: kern.conv %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, transposed} : memref<1x4x8x8xf32>, memref<4x3x2x2xf32> into memref<1x6x16x16xf32>
  kern.conv %x, %wt into %yt {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2 : i64, transposed} : memref<1x4x8x8xf32>, memref<4x3x2x2xf32> into memref<1x6x16x16xf32>
  // A residual and an epilogue; x and y channels-last (physical [N, H, W, C]).
  // CHECK: kern.conv %{{.*}}, %{{.*}} bias %{{.*}} residual %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, epilogue = "relu", group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> residual memref<1x6x4x4xf32> into memref<1x6x4x4xf32>
  kern.conv %x, %w bias %b residual %y into %y {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, epilogue = "relu"} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> residual memref<1x6x4x4xf32> into memref<1x6x4x4xf32>
  %xl = kern.alloc : memref<1x8x8x4xf32>
  %yl = kern.alloc : memref<1x4x4x6xf32>
  // CHECK: kern.conv %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, x_channels_last, y_channels_last} : memref<1x8x8x4xf32>, memref<6x2x3x3xf32> into memref<1x4x4x6xf32>
  kern.conv %xl, %w into %yl {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, x_channels_last, y_channels_last} : memref<1x8x8x4xf32>, memref<6x2x3x3xf32> into memref<1x4x4x6xf32>
  return
}

// CHECK-LABEL: func.func @call
func.func @call(%x: memref<2x10xf32>, %v: memref<2x3xf32>, %i: memref<2x3xi64>) {
  // CHECK: kern.call @sc_softmax ins(%{{.*}} : memref<2x10xf32>) outs(%{{.*}} : memref<2x10xf32>) {args = ["%d0", "%p0", "%p1", 1, 0 : i32]}
  kern.call @sc_softmax ins(%x : memref<2x10xf32>) outs(%x : memref<2x10xf32>) {args = ["%d0", "%p0", "%p1", 1 : i64, 0 : i32]}
  // CHECK: kern.call @sc_topk ins(%{{.*}} : memref<2x10xf32>) outs(%{{.*}}, %{{.*}} : memref<2x3xf32>, memref<2x3xi64>) {args = ["%d0", "%p0", "%p1", "%p2", 1, 3, 1 : i32, 1 : i32]}
  kern.call @sc_topk ins(%x : memref<2x10xf32>) outs(%v, %i : memref<2x3xf32>, memref<2x3xi64>) {args = ["%d0", "%p0", "%p1", "%p2", 1 : i64, 3 : i64, 1 : i32, 1 : i32]}
  // No inputs; literal strings, floats, arrays and the null pointer.
  // CHECK: kern.call @sc_fill outs(%{{.*}} : memref<2x3xf32>) {args = ["%d0", "%p0", "%null", "text", 2.500000e-01 : f32, array<i64: 1, 2>, array<f32: 1.000000e+00, 2.000000e+00>, "%descs", "%ptrs"]}
  kern.call @sc_fill outs(%v : memref<2x3xf32>) {args = ["%d0", "%p0", "%null", "text", 0.25 : f32, array<i64: 1, 2>, array<f32: 1.0, 2.0>, "%descs", "%ptrs"]}
  return
}
