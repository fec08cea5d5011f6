// RUN: %shardc-opt %s --allow-unregistered-dialect --kern-plan-weights | FileCheck %s
// The weights section: every kern.weight gets a 64-byte aligned offset in
// program order; kern.weights_bytes is the aligned end.
// ("test.use" is an unregistered op that reads its operands.)

// 12 bytes at 0, 32 at 64, 5 one-byte booleans at 128, 400 at 192 (ends at
// 592, rounded to 640), a splat stored in full (8 x f16) at 640.
// CHECK-LABEL: func.func @main
// CHECK-SAME: attributes {kern.weights_bytes = 704 : i64}
// CHECK-NEXT: kern.weight {offset = 0 : i64, value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>} : memref<3xf32>
// CHECK-NEXT: kern.weight {offset = 64 : i64, value = dense<[{{\[}}1, 2], [3, 4]]> : tensor<2x2xi64>} : memref<2x2xi64>
// CHECK-NEXT: kern.weight {offset = 128 : i64, value = dense<[true, false, true, false, true]> : tensor<5xi1>} : memref<5xi1>
// CHECK-NEXT: kern.weight {offset = 192 : i64, value = dense<5.000000e-01> : tensor<100xf32>} : memref<100xf32>
// CHECK-NEXT: kern.weight {offset = 640 : i64, value = dense<1.000000e+00> : tensor<8xf16>} : memref<8xf16>
func.func @main(%y: memref<1xf32> {kern.output = "y"}) {
  %a = kern.weight {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : memref<3xf32>
  %b = kern.weight {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>} : memref<2x2xi64>
  %c = kern.weight {value = dense<[true, false, true, false, true]> : tensor<5xi1>} : memref<5xi1>
  %d = kern.weight {value = dense<0.5> : tensor<100xf32>} : memref<100xf32>
  %e = kern.weight {value = dense<1.0> : tensor<8xf16>} : memref<8xf16>
  "test.use"(%a, %b, %c, %d, %e, %y) : (memref<3xf32>, memref<2x2xi64>, memref<5xi1>, memref<100xf32>, memref<8xf16>, memref<1xf32>) -> ()
  return
}

// Each function has its own section; an exact multiple of 64 is not padded.
// CHECK-LABEL: func.func @exact
// CHECK-SAME: attributes {kern.weights_bytes = 128 : i64}
// CHECK-NEXT: kern.weight {offset = 0 : i64, value = dense<0> : tensor<16xi32>} : memref<16xi32>
// CHECK-NEXT: kern.weight {offset = 64 : i64, value = dense<0> : tensor<8xi64>} : memref<8xi64>
func.func @exact(%y: memref<1xf32> {kern.output = "y"}) {
  %a = kern.weight {value = dense<0> : tensor<16xi32>} : memref<16xi32>
  %b = kern.weight {value = dense<0> : tensor<8xi64>} : memref<8xi64>
  "test.use"(%a, %b, %y) : (memref<16xi32>, memref<8xi64>, memref<1xf32>) -> ()
  return
}

// No weights: an empty section.
// CHECK-LABEL: func.func @none
// CHECK-SAME: attributes {kern.weights_bytes = 0 : i64}
func.func @none(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) {
  kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  return
}

// A program of several ranks (after kern-merge-ranks): the weights every
// rank reads alike (no kern.per_rank) come first, padded to 64 KiB, then
// those whose data differs per rank; kern.weights_shared_bytes is the
// head's extent, which the weights file stores once for all ranks. 1 MiB +
// 64 B alike (the pass's default min-shared-bytes is 1 MiB) pad to 1 MiB +
// 64 KiB.
// CHECK-LABEL: func.func @merged
// CHECK-SAME: kern.ranks = array<i64: 0, 1>, kern.weights_bytes = 1114176 : i64, kern.weights_shared_bytes = 1114112 : i64
// CHECK-NEXT: kern.weight {kern.per_rank = {value = [dense<1.000000e+00> : tensor<4xf32>, dense<2.000000e+00> : tensor<4xf32>]}, offset = 1114112 : i64
// CHECK-NEXT: kern.weight {offset = 0 : i64, value = dense<3.000000e+00> : tensor<262144xf32>}
// CHECK-NEXT: kern.weight {offset = 1048576 : i64, value = dense<4.000000e+00> : tensor<2xf32>}
func.func @merged(%y: memref<1xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 0, 1>} {
  %a = kern.weight {kern.per_rank = {value = [dense<1.0> : tensor<4xf32>, dense<2.0> : tensor<4xf32>]}, value = dense<1.0> : tensor<4xf32>} : memref<4xf32>
  %b = kern.weight {value = dense<3.0> : tensor<262144xf32>} : memref<262144xf32>
  %c = kern.weight {value = dense<4.0> : tensor<2xf32>} : memref<2xf32>
  "test.use"(%a, %b, %c, %y) : (memref<4xf32>, memref<262144xf32>, memref<2xf32>, memref<1xf32>) -> ()
  return
}

// Less than min-shared-bytes alike: program order, no head (the padding
// would cost more than the copies save).
// CHECK-LABEL: func.func @small
// CHECK-SAME: attributes {kern.ranks = array<i64: 0, 1>, kern.weights_bytes = 128 : i64}
// CHECK-NEXT: kern.weight {kern.per_rank = {{.*}}, offset = 0 : i64
// CHECK-NEXT: kern.weight {offset = 64 : i64
func.func @small(%y: memref<1xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 0, 1>} {
  %a = kern.weight {kern.per_rank = {value = [dense<1.0> : tensor<4xf32>, dense<2.0> : tensor<4xf32>]}, value = dense<1.0> : tensor<4xf32>} : memref<4xf32>
  %b = kern.weight {value = dense<3.0> : tensor<8xf32>} : memref<8xf32>
  "test.use"(%a, %b, %y) : (memref<4xf32>, memref<8xf32>, memref<1xf32>) -> ()
  return
}

// Every weight alike (dp replicas): no head (the file stores identical
// sections once anyway).
// CHECK-LABEL: func.func @replicas
// CHECK-SAME: attributes {kern.ranks = array<i64: 0, 1>, kern.weights_bytes = 1048576 : i64}
func.func @replicas(%y: memref<1xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 0, 1>} {
  %b = kern.weight {value = dense<3.0> : tensor<262144xf32>} : memref<262144xf32>
  "test.use"(%b, %y) : (memref<262144xf32>, memref<1xf32>) -> ()
  return
}
