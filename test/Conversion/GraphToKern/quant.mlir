// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// Quantize / dequantize are generated maps: per-tensor parameters have all
// zero strides, per-axis ones stride 1 along the axis. Integer matmuls call
// the runtime.

// CHECK-LABEL: func.func @main
// Per tensor, to uint8: round half to even, add the zero point, clamp to
// [0, 255], convert unsigned.
// CHECK:      kern.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<4x8xf32>, memref<f32>, memref<ui8>) outs(%{{.*}} : memref<4x8xui8>) attributes {layouts = [array<i64: 0, 8, 1>, array<i64: 0, 0, 0>, array<i64: 0, 0, 0>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>} {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: i8):
// CHECK-NEXT:   %[[D:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK-NEXT:   %[[R:.*]] = math.roundeven %[[D]] : f32
// CHECK-NEXT:   %[[ZF:.*]] = arith.uitofp %[[Z]] : i8 to f32
// CHECK-NEXT:   %[[Q:.*]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK-NEXT:   %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %[[HI:.*]] = arith.constant 2.550000e+02 : f32
// CHECK-NEXT:   %[[C1:.*]] = arith.minimumf %[[Q]], %[[HI]] : f32
// CHECK-NEXT:   %[[C2:.*]] = arith.maximumf %[[C1]], %[[LO]] : f32
// CHECK-NEXT:   %[[OUT:.*]] = arith.fptoui %[[C2]] : f32 to i8
// CHECK-NEXT:   kern.yield %[[OUT]] : i8
// Per axis 1, to int8: clamp to [-128, 127].
// CHECK:      kern.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<4x8xf32>, memref<8xf32>, memref<8xi8>) outs(%{{.*}} : memref<4x8xi8>) attributes {layouts = [array<i64: 0, 8, 1>, array<i64: 0, 0, 1>, array<i64: 0, 0, 1>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>}
// CHECK:        arith.sitofp %{{.*}} : i8 to f32
// CHECK:        arith.constant -1.280000e+02 : f32
// CHECK:        arith.constant 1.270000e+02 : f32
// CHECK:        arith.fptosi %{{.*}} : f32 to i8
// Dequantize per axis 1 and per axis 0: (x - zp) * scale.
// CHECK:      kern.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<4x8xi8>, memref<8xf32>, memref<8xi8>) outs(%{{.*}} : memref<4x8xf32>) attributes {layouts = [array<i64: 0, 8, 1>, array<i64: 0, 0, 1>, array<i64: 0, 0, 1>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>} {
// CHECK-NEXT: ^bb0(%[[Q:.*]]: i8, %[[S:.*]]: f32, %[[Z:.*]]: i8):
// CHECK-NEXT:   %[[ZF:.*]] = arith.sitofp %[[Z]] : i8 to f32
// CHECK-NEXT:   %[[QF:.*]] = arith.sitofp %[[Q]] : i8 to f32
// CHECK-NEXT:   %[[SUB:.*]] = arith.subf %[[QF]], %[[ZF]] : f32
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[SUB]], %[[S]] : f32
// CHECK-NEXT:   kern.yield %[[M]] : f32
// CHECK:      kern.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<4x8xi8>, memref<4xf32>, memref<4xi8>) outs(%{{.*}} : memref<4x8xf32>) attributes {layouts = [array<i64: 0, 8, 1>, array<i64: 0, 1, 0>, array<i64: 0, 1, 0>, array<i64: 0, 8, 1>], shape = array<i64: 4, 8>}
func.func @main(%x: tensor<4x8xf32>, %s: tensor<f32>, %zp: tensor<ui8>, %sa: tensor<8xf32>, %zpa: tensor<8xi8>, %s0: tensor<4xf32>, %z0: tensor<4xi8>) -> (tensor<4x8xui8>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = graph.quantize_linear %x, %s, %zp : tensor<4x8xf32>, tensor<f32>, tensor<ui8> -> tensor<4x8xui8>
  %1 = graph.quantize_linear %x, %sa, %zpa {axis = 1 : i64} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xi8> -> tensor<4x8xi8>
  %2 = graph.dequantize_linear %1, %sa, %zpa {axis = 1 : i64} : tensor<4x8xi8>, tensor<8xf32>, tensor<8xi8> -> tensor<4x8xf32>
  %3 = graph.dequantize_linear %1, %s0, %z0 {axis = 0 : i64} : tensor<4x8xi8>, tensor<4xf32>, tensor<4xi8> -> tensor<4x8xf32>
  return %0, %2, %3 : tensor<4x8xui8>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// MatMulInteger: operands, zero points, the int32 output. QLinearMatMul:
// each 8-bit operand with its scale and zero point.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:arg[0-9]+]]: memref<4x8xui8> {{.*}}, %[[S:arg[0-9]+]]: memref<f32> {{.*}}, %[[AZ:arg[0-9]+]]: memref<ui8> {{.*}}, %[[B:arg[0-9]+]]: memref<8x2xi8> {{.*}}, %[[BZ:arg[0-9]+]]: memref<i8> {{.*}}, %[[Y0:arg[0-9]+]]: memref<4x2xi32> {{.*}}, %[[Y1:arg[0-9]+]]: memref<4x2xui8>
// CHECK-NEXT: kern.matmul_integer %[[A]], %[[B]] zero_points %[[AZ]], %[[BZ]] into %[[Y0]] : memref<4x8xui8>, memref<8x2xi8> zero_points memref<ui8>, memref<i8> into memref<4x2xi32>
// CHECK-NEXT: kern.qlinear_matmul %[[A]][%[[S]], %[[AZ]]], %[[B]][%[[S]], %[[BZ]]] into %[[Y1]][%[[S]], %[[AZ]]] : memref<4x8xui8>[memref<f32>, memref<ui8>], memref<8x2xi8>[memref<f32>, memref<i8>] into memref<4x2xui8>[memref<f32>, memref<ui8>]
func.func @main(%a: tensor<4x8xui8>, %s: tensor<f32>, %azp: tensor<ui8>, %b: tensor<8x2xi8>, %bzp: tensor<i8>) -> (tensor<4x2xi32>, tensor<4x2xui8>) {
  %0 = graph.matmul_integer %a, %b, %azp, %bzp : tensor<4x8xui8>, tensor<8x2xi8>, tensor<ui8>, tensor<i8> -> tensor<4x2xi32>
  %1 = graph.qlinear_matmul %a, %s, %azp, %b, %s, %bzp, %s, %azp : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>, tensor<8x2xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<4x2xui8>
  return %0, %1 : tensor<4x2xi32>, tensor<4x2xui8>
}
