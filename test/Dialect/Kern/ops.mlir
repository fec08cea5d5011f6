// RUN: %shardc-opt %s --split-input-file | %shardc-opt --split-input-file | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --mlir-print-op-generic | %shardc-opt --split-input-file | FileCheck %s
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

// -----

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

// -----

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

// -----

// An int8 product: int8 x int8 into int32 (oneDNN's int8 matmul).
// CHECK-LABEL: func.func @matmul_int8
// CHECK: kern.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<2x4x8xi8>, memref<1x8x16xi8> into memref<2x4x16xi32>
func.func @matmul_int8(%a: memref<2x4x8xi8>, %b: memref<1x8x16xi8>, %y: memref<2x4x16xi32>) {
  kern.matmul %a, %b into %y : memref<2x4x8xi8>, memref<1x8x16xi8> into memref<2x4x16xi32>
  return
}

// -----

// CHECK-LABEL: func.func @matmul_int8_fused
// CHECK: kern.matmul_int8 %{{.*}}, %{{.*}} scales %{{.*}} rows %{{.*}} bias %{{.*}} into %{{.*}} {epilogue = "gelu"} : memref<2x4x8xi8>, memref<1x8x16xi8>, memref<16xf32> rows memref<2x4x1xf32>, memref<1x1x16xf32> into memref<2x4x16xf32>
func.func @matmul_int8_fused(%a: memref<2x4x8xi8>, %b: memref<1x8x16xi8>, %s: memref<2x4x1xf32>, %ws: memref<16xf32>, %bias: memref<1x1x16xf32>, %y: memref<2x4x16xf32>) {
  kern.matmul_int8 %a, %b scales %ws rows %s bias %bias into %y {epilogue = "gelu"} : memref<2x4x8xi8>, memref<1x8x16xi8>, memref<16xf32> rows memref<2x4x1xf32>, memref<1x1x16xf32> into memref<2x4x16xf32>
  return
}

// CHECK-LABEL: func.func @matmul_int8_static
// CHECK: kern.matmul_int8 %{{.*}}, %{{.*}} scales %{{.*}} into %{{.*}} : memref<1x4x8xi8>, memref<1x8x16xi8>, memref<16xf32> into memref<1x4x16xf32>
func.func @matmul_int8_static(%a: memref<1x4x8xi8>, %b: memref<1x8x16xi8>, %ws: memref<16xf32>, %y: memref<1x4x16xf32>) {
  kern.matmul_int8 %a, %b scales %ws into %y : memref<1x4x8xi8>, memref<1x8x16xi8>, memref<16xf32> into memref<1x4x16xf32>
  return
}

// -----

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

// -----

// CHECK-LABEL: func.func @conv
func.func @conv(%x: memref<1x4x8x8xf32>, %w: memref<6x2x3x3xf32>, %b: memref<6xf32>, %y: memref<1x6x4x4xf32>, %wt: memref<4x3x2x2xf32>, %yt: memref<1x6x16x16xf32>, %xq: memref<1x4x8x8xui8>, %wq: memref<6x2x3x3xi8>) {
  // CHECK: kern.conv %{{.*}}, %{{.*}} bias %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> into memref<1x6x4x4xf32>
  kern.conv %x, %w bias %b into %y {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> into memref<1x6x4x4xf32>
  // CHECK: kern.conv %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, transposed} : memref<1x4x8x8xf32>, memref<4x3x2x2xf32> into memref<1x6x16x16xf32>
  kern.conv %x, %wt into %yt {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2 : i64, transposed} : memref<1x4x8x8xf32>, memref<4x3x2x2xf32> into memref<1x6x16x16xf32>
  // The int8 form: scales and the zero point of x.
  // CHECK: kern.conv %{{.*}}, %{{.*}} bias %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, scales = array<f32: 5.000000e-01>, strides = array<i64: 2, 2>, x_zero_point = 3 : i64} : memref<1x4x8x8xui8>, memref<6x2x3x3xi8>, memref<6xf32> into memref<1x6x4x4xf32>
  kern.conv %xq, %wq bias %b into %y {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, scales = array<f32: 0.5>, x_zero_point = 3 : i64} : memref<1x4x8x8xui8>, memref<6x2x3x3xi8>, memref<6xf32> into memref<1x6x4x4xf32>
  // The dynamic int8 form: x's scale and zero point read at run time.
  %xs = kern.alloc : memref<f32>
  %xz = kern.alloc : memref<ui8>
  // CHECK: kern.conv %{{.*}}, %{{.*}} bias %{{.*}} into %{{.*}} dynamic %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, scales = array<f32: 5.000000e-01>, strides = array<i64: 2, 2>} : memref<1x4x8x8xui8>, memref<6x2x3x3xi8>, memref<6xf32> into memref<1x6x4x4xf32> dynamic memref<f32>, memref<ui8>
  kern.conv %xq, %wq bias %b into %y dynamic %xs, %xz {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, scales = array<f32: 0.5>} : memref<1x4x8x8xui8>, memref<6x2x3x3xi8>, memref<6xf32> into memref<1x6x4x4xf32> dynamic memref<f32>, memref<ui8>
  // A residual and an epilogue; x and y channels-last (physical [N, H, W, C]).
  // CHECK: kern.conv %{{.*}}, %{{.*}} bias %{{.*}} residual %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, epilogue = "relu", group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> residual memref<1x6x4x4xf32> into memref<1x6x4x4xf32>
  kern.conv %x, %w bias %b residual %y into %y {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, epilogue = "relu"} : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>, memref<6xf32> residual memref<1x6x4x4xf32> into memref<1x6x4x4xf32>
  %xl = kern.alloc : memref<1x8x8x4xf32>
  %yl = kern.alloc : memref<1x4x4x6xf32>
  // CHECK: kern.conv %{{.*}}, %{{.*}} into %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, x_channels_last, y_channels_last} : memref<1x8x8x4xf32>, memref<6x2x3x3xf32> into memref<1x4x4x6xf32>
  kern.conv %xl, %w into %yl {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 2 : i64, x_channels_last, y_channels_last} : memref<1x8x8x4xf32>, memref<6x2x3x3xf32> into memref<1x4x4x6xf32>
  return
}

// -----
// Runtime kernels: one op per kernel of runtime/src/cpu.

// CHECK-LABEL: func.func @norms
// CHECK-SAME: (%[[X:.+]]: memref<2x4x8xf32>, %[[S:.+]]: memref<8xf32>, %[[Y:.+]]: memref<2x4x8xf32>, %[[ST:.+]]: memref<2x4x1xf32>)
func.func @norms(%x: memref<2x4x8xf32>, %s: memref<8xf32>, %y: memref<2x4x8xf32>, %st: memref<2x4x1xf32>) {
  // CHECK: kern.softmax %[[X]] into %[[Y]] {axis = -1 : i64} : memref<2x4x8xf32> into memref<2x4x8xf32>
  kern.softmax %x into %y {axis = -1 : i64} : memref<2x4x8xf32> into memref<2x4x8xf32>
  // CHECK: kern.softmax %[[X]] into %[[Y]] {axis = 1 : i64, log} : memref<2x4x8xf32> into memref<2x4x8xf32>
  kern.softmax %x into %y {axis = 1 : i64, log} : memref<2x4x8xf32> into memref<2x4x8xf32>
  // CHECK: kern.layer_norm %[[X]], %[[S]] bias %[[S]] into %[[Y]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : memref<2x4x8xf32>, memref<8xf32>, memref<8xf32> into memref<2x4x8xf32>
  kern.layer_norm %x, %s bias %s into %y {axis = 2 : i64, epsilon = 1.0e-5 : f32} : memref<2x4x8xf32>, memref<8xf32>, memref<8xf32> into memref<2x4x8xf32>
  // CHECK: kern.layer_norm %[[X]], %[[S]] into %[[Y]] mean %[[ST]] inv_std %[[ST]] {axis = -1 : i64, epsilon = 1.000000e-03 : f32} : memref<2x4x8xf32>, memref<8xf32> into memref<2x4x8xf32> mean memref<2x4x1xf32> inv_std memref<2x4x1xf32>
  kern.layer_norm %x, %s into %y mean %st inv_std %st {axis = -1 : i64, epsilon = 1.0e-3 : f32} : memref<2x4x8xf32>, memref<8xf32> into memref<2x4x8xf32> mean memref<2x4x1xf32> inv_std memref<2x4x1xf32>
  return
}

// -----

// CHECK-LABEL: func.func @selection
func.func @selection(%x: memref<3x10xf32>, %i: memref<5xi64>, %g: memref<5x10xf32>, %v: memref<3x4xf32>, %vi: memref<3x4xi64>, %am: memref<3x1xi64>, %y: memref<3x10xf32>) {
  // CHECK: kern.gather %{{.*}}, %{{.*}} into %{{.*}} {axis = 0 : i64} : memref<3x10xf32>, memref<5xi64> into memref<5x10xf32>
  kern.gather %x, %i into %g {axis = 0 : i64} : memref<3x10xf32>, memref<5xi64> into memref<5x10xf32>
  // CHECK: kern.topk %{{.*}} into %{{.*}}, %{{.*}} {axis = -1 : i64, k = 4 : i64, largest, sorted} : memref<3x10xf32> into memref<3x4xf32>, memref<3x4xi64>
  kern.topk %x into %v, %vi {axis = -1 : i64, k = 4 : i64, largest, sorted} : memref<3x10xf32> into memref<3x4xf32>, memref<3x4xi64>
  // CHECK: kern.arg_max %{{.*}} into %{{.*}} {axis = 1 : i64, select_last_index} : memref<3x10xf32> into memref<3x1xi64>
  kern.arg_max %x into %am {axis = 1 : i64, select_last_index} : memref<3x10xf32> into memref<3x1xi64>
  // CHECK: kern.cumsum %{{.*}} into %{{.*}} {axis = 1 : i64, exclusive, reverse} : memref<3x10xf32> into memref<3x10xf32>
  kern.cumsum %x into %y {axis = 1 : i64, exclusive, reverse} : memref<3x10xf32> into memref<3x10xf32>
  // CHECK: kern.trilu %{{.*}} into %{{.*}} {k = -1 : i64, upper} : memref<3x10xf32> into memref<3x10xf32>
  kern.trilu %x into %y {k = -1 : i64, upper} : memref<3x10xf32> into memref<3x10xf32>
  // k defaults to 0.
  // CHECK: kern.trilu %{{.*}} into %{{.*}} : memref<3x10xf32> into memref<3x10xf32>
  kern.trilu %x into %y : memref<3x10xf32> into memref<3x10xf32>
  return
}

// -----

// CHECK-LABEL: func.func @spatial
func.func @spatial(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf32>, %i: memref<1x4x4x4xi64>, %xl: memref<1x8x8x4xf32>, %yl: memref<1x4x4x4xf32>, %v: memref<f32>, %p: memref<1x4x10x9xf32>, %r: memref<1x4x16x16xf32>) {
  // CHECK: kern.pool %{{.*}} into %{{.*}} indices %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, kind = "max", pads = array<i64: 0, 0, 0, 0>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32> indices memref<1x4x4x4xi64>
  kern.pool %x into %y indices %i {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, storage_order = 1 : i64} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32> indices memref<1x4x4x4xi64>
  // Channels-last: physical [N, H, W, C].
  // CHECK: kern.pool %{{.*}} into %{{.*}} {channels_last, count_include_pad, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kind = "average", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : memref<1x8x8x4xf32> into memref<1x4x4x4xf32>
  kern.pool %xl into %yl {kind = "average", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, count_include_pad, channels_last} : memref<1x8x8x4xf32> into memref<1x4x4x4xf32>
  // CHECK: kern.pad %{{.*}} value %{{.*}} into %{{.*}} {mode = "constant", pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 1>} : memref<1x4x8x8xf32>, memref<f32> into memref<1x4x10x9xf32>
  kern.pad %x value %v into %p {mode = "constant", pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 1>} : memref<1x4x8x8xf32>, memref<f32> into memref<1x4x10x9xf32>
  // CHECK: kern.pad %{{.*}} into %{{.*}} {mode = "reflect", pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 1>} : memref<1x4x8x8xf32> into memref<1x4x10x9xf32>
  kern.pad %x into %p {mode = "reflect", pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 1>} : memref<1x4x8x8xf32> into memref<1x4x10x9xf32>
  // CHECK: kern.resize %{{.*}} into %{{.*}} {antialias, coordinate_transformation_mode = "align_corners", cubic_coeff_a = -5.000000e-01 : f32, exclude_outside, extrapolation_value = 0.000000e+00 : f32, mode = "cubic", nearest_mode = "floor", scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : memref<1x4x8x8xf32> into memref<1x4x16x16xf32>
  kern.resize %x into %r {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "cubic", coordinate_transformation_mode = "align_corners", nearest_mode = "floor", cubic_coeff_a = -0.5 : f32, exclude_outside, extrapolation_value = 0.0 : f32, antialias} : memref<1x4x8x8xf32> into memref<1x4x16x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @contraction
func.func @contraction(%a: memref<4x8xi32>, %b: memref<8x16xi32>, %y: memref<4x16xi32>, %qa: memref<4x8xui8>, %qb: memref<8x2xi8>, %za: memref<ui8>, %zb: memref<2xi8>, %s: memref<f32>, %yi: memref<4x2xi32>, %yq: memref<4x2xui8>, %x: memref<2x4x8xf32>, %w: memref<8x16xf32>, %ye: memref<2x4x16xf32>) {
  // CHECK: kern.matmul_ref %{{.*}}, %{{.*}} into %{{.*}} : memref<4x8xi32>, memref<8x16xi32> into memref<4x16xi32>
  kern.matmul_ref %a, %b into %y : memref<4x8xi32>, memref<8x16xi32> into memref<4x16xi32>
  // CHECK: kern.matmul_integer %{{.*}}, %{{.*}} zero_points %{{.*}}, %{{.*}} into %{{.*}} : memref<4x8xui8>, memref<8x2xi8> zero_points memref<ui8>, memref<2xi8> into memref<4x2xi32>
  kern.matmul_integer %qa, %qb zero_points %za, %zb into %yi : memref<4x8xui8>, memref<8x2xi8> zero_points memref<ui8>, memref<2xi8> into memref<4x2xi32>
  // CHECK: kern.qlinear_matmul %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] into %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x8xui8>[memref<f32>, memref<ui8>], memref<8x2xi8>[memref<f32>, memref<2xi8>] into memref<4x2xui8>[memref<f32>, memref<ui8>]
  kern.qlinear_matmul %qa[%s, %za], %qb[%s, %zb] into %yq[%s, %za] : memref<4x8xui8>[memref<f32>, memref<ui8>], memref<8x2xi8>[memref<f32>, memref<2xi8>] into memref<4x2xui8>[memref<f32>, memref<ui8>]
  // CHECK: kern.einsum "bij,jk->bik" ins(%{{.*}}, %{{.*}}) into %{{.*}} : memref<2x4x8xf32>, memref<8x16xf32> into memref<2x4x16xf32>
  kern.einsum "bij,jk->bik" ins(%x, %w) into %ye : memref<2x4x8xf32>, memref<8x16xf32> into memref<2x4x16xf32>
  return
}

// -----

// q, k and v as strided views of one packed buffer (2 x 8 x [q | k | v]),
// 4 heads of 16; then separate operands with a broadcast mask.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[QKV:.+]]: memref<2x8x192xf32>, %[[Y:.+]]: memref<2x8x64xf32>, %[[M:.+]]: memref<8x8xf32>)
func.func @attention(%qkv: memref<2x8x192xf32>, %y: memref<2x8x64xf32>, %m: memref<8x8xf32>) {
  // CHECK: kern.attention %[[QKV]], %[[QKV]], %[[QKV]] into %[[Y]] {causal, dims = array<i64: 2, 4, 8, 8, 16, 16>, k_layout = array<i64: 64, 1536, 16, 192, 1>, q_layout = array<i64: 0, 1536, 16, 192, 1>, scale = 2.500000e-01 : f32, v_layout = array<i64: 128, 1536, 16, 192, 1>, y_layout = array<i64: 0, 512, 16, 64, 1>} : memref<2x8x192xf32>, memref<2x8x192xf32>, memref<2x8x192xf32> into memref<2x8x64xf32>
  kern.attention %qkv, %qkv, %qkv into %y {causal, dims = array<i64: 2, 4, 8, 8, 16, 16>, q_layout = array<i64: 0, 1536, 16, 192, 1>, k_layout = array<i64: 64, 1536, 16, 192, 1>, v_layout = array<i64: 128, 1536, 16, 192, 1>, y_layout = array<i64: 0, 512, 16, 64, 1>, scale = 0.25 : f32} : memref<2x8x192xf32>, memref<2x8x192xf32>, memref<2x8x192xf32> into memref<2x8x64xf32>
  // CHECK: kern.attention %[[Y]], %[[Y]], %[[Y]] mask %[[M]] into %[[Y]] {dims = array<i64: 16, 8, 8, 4, 4>, k_layout = array<i64: 0, 4, 64, 1>, mask_layout = array<i64: 0, 0, 8, 1>, q_layout = array<i64: 0, 4, 64, 1>, scale = 5.000000e-01 : f32, v_layout = array<i64: 0, 4, 64, 1>, y_layout = array<i64: 0, 4, 64, 1>} : memref<2x8x64xf32>, memref<2x8x64xf32>, memref<2x8x64xf32> mask memref<8x8xf32> into memref<2x8x64xf32>
  kern.attention %y, %y, %y mask %m into %y {dims = array<i64: 16, 8, 8, 4, 4>, q_layout = array<i64: 0, 4, 64, 1>, k_layout = array<i64: 0, 4, 64, 1>, v_layout = array<i64: 0, 4, 64, 1>, mask_layout = array<i64: 0, 0, 8, 1>, y_layout = array<i64: 0, 4, 64, 1>, scale = 0.5 : f32} : memref<2x8x64xf32>, memref<2x8x64xf32>, memref<2x8x64xf32> mask memref<8x8xf32> into memref<2x8x64xf32>
  // CHECK: kern.attention %[[Y]], %[[Y]], %[[Y]] into %[[Y]] {bf16_products, dims
  kern.attention %y, %y, %y into %y {bf16_products, dims = array<i64: 16, 8, 8, 4, 4>, q_layout = array<i64: 0, 4, 64, 1>, k_layout = array<i64: 0, 4, 64, 1>, v_layout = array<i64: 0, 4, 64, 1>, y_layout = array<i64: 0, 4, 64, 1>, scale = 0.5 : f32} : memref<2x8x64xf32>, memref<2x8x64xf32>, memref<2x8x64xf32> into memref<2x8x64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @scatter
func.func @scatter(%x: memref<3x4xf32>, %i: memref<3x2xi64>, %g: memref<3x2xf32>, %n: memref<2x1xi32>, %v: memref<2x4xf32>, %y: memref<3x4xf32>) {
  // CHECK: kern.gather_elements %{{.*}}, %{{.*}} into %{{.*}} {axis = -1 : i64} : memref<3x4xf32>, memref<3x2xi64> into memref<3x2xf32>
  kern.gather_elements %x, %i into %g {axis = -1 : i64} : memref<3x4xf32>, memref<3x2xi64> into memref<3x2xf32>
  // CHECK: kern.scatter_elements %{{.*}}, %{{.*}} into %{{.*}} {axis = 1 : i64, reduction = "max"} : memref<3x2xi64>, memref<3x2xf32> into memref<3x4xf32>
  kern.scatter_elements %i, %g into %y {axis = 1 : i64, reduction = "max"} : memref<3x2xi64>, memref<3x2xf32> into memref<3x4xf32>
  // CHECK: kern.scatter_nd %{{.*}}, %{{.*}} into %{{.*}} : memref<2x1xi32>, memref<2x4xf32> into memref<3x4xf32>
  kern.scatter_nd %n, %v into %y : memref<2x1xi32>, memref<2x4xf32> into memref<3x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @moe
func.func @moe(%ids: memref<16x2xi64>, %off: memref<5xi32>, %slots: memref<32xi32>, %x: memref<16x32xf32>, %rows: memref<32x32xf32>, %gu: memref<4x32x96xf32>, %h: memref<32x96xf32>, %w: memref<16x2xf32>, %y: memref<16x32xf32>, %gub: memref<4x96xf32>) {
  // CHECK: kern.moe_route %{{.*}} into %{{.*}}, %{{.*}} {num_experts = 4 : i64} : memref<16x2xi64> into memref<5xi32>, memref<32xi32>
  kern.moe_route %ids into %off, %slots {num_experts = 4 : i64} : memref<16x2xi64> into memref<5xi32>, memref<32xi32>
  // Three experts in four slots (expert 0 twice: slots 0 and 3).
  // CHECK: kern.moe_place %{{.*}} into %{{.*}} {copies = array<i64: 2, 1, 1>, max_copies = 2 : i64, table = array<i64: 0, 3, 1, -1, 2, -1>} : memref<16x2xi64> into memref<16x2xi32>
  %placed = kern.alloc : memref<16x2xi32>
  kern.moe_place %ids into %placed {copies = array<i64: 2, 1, 1>, max_copies = 2 : i64, table = array<i64: 0, 3, 1, -1, 2, -1>} : memref<16x2xi64> into memref<16x2xi32>
  // CHECK: kern.moe_permute %{{.*}}, %{{.*}} into %{{.*}} : memref<16x32xf32>, memref<32xi32> into memref<32x32xf32>
  kern.moe_permute %x, %slots into %rows : memref<16x32xf32>, memref<32xi32> into memref<32x32xf32>
  // CHECK: kern.grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} : memref<32x32xf32>, memref<4x32x96xf32>, memref<5xi32> into memref<32x96xf32>
  kern.grouped_matmul %rows, %gu, %off into %h : memref<32x32xf32>, memref<4x32x96xf32>, memref<5xi32> into memref<32x96xf32>
  // CHECK: kern.grouped_bias %{{.*}}, %{{.*}} into %{{.*}} : memref<4x96xf32>, memref<5xi32> into memref<32x96xf32>
  kern.grouped_bias %gub, %off into %h : memref<4x96xf32>, memref<5xi32> into memref<32x96xf32>
  // CHECK: kern.moe_combine %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} : memref<32x32xf32>, memref<16x2xf32>, memref<32xi32> into memref<16x32xf32>
  kern.moe_combine %rows, %w, %slots into %y : memref<32x32xf32>, memref<16x2xf32>, memref<32xi32> into memref<16x32xf32>
  return
}
