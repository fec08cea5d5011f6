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
