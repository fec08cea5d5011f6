// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// The ops the fusion passes create: gelu, silu and swiglu are one generated
// map each; rms_norm a mean-of-squares reduction into an fp32 buffer and a
// map. fp16 / bf16 compute in f32 with one rounding at the store.

// GELU, erf form: 0.5 x (1 + erf(x / sqrt 2)).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x8xf32> {kern.input = "x"}, %[[Y:arg[0-9]+]]: memref<2x8xf32> {kern.output = "y"})
// CHECK-NEXT: kern.map ins(%[[X]] : memref<2x8xf32>) outs(%[[Y]] : memref<2x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:   %[[R:.*]] = arith.constant 0.707106769 : f32
// CHECK-NEXT:   %[[S:.*]] = arith.mulf %[[A]], %[[R]] : f32
// CHECK-NEXT:   %[[E:.*]] = math.erf %[[S]] : f32
// CHECK-NEXT:   %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:   %[[H:.*]] = arith.mulf %[[A]], %[[HALF]] : f32
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   %[[P:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT:   %[[G:.*]] = arith.mulf %[[H]], %[[P]] : f32
// CHECK-NEXT:   kern.yield %[[G]] : f32
func.func @main(%x: tensor<2x8xf32> {graph.name = "x"}) -> (tensor<2x8xf32> {graph.name = "y"}) {
  %0 = graph.gelu %x : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @main
// CHECK:      kern.map
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:   %[[SQ:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:   %[[CUBE:.*]] = arith.mulf %[[A]], %[[SQ]] : f32
// CHECK-NEXT:   %[[K:.*]] = arith.constant 4.471500e-02 : f32
// CHECK-NEXT:   %[[KC:.*]] = arith.mulf %[[K]], %[[CUBE]] : f32
// CHECK-NEXT:   %[[SUM:.*]] = arith.addf %[[A]], %[[KC]] : f32
// CHECK-NEXT:   %[[B:.*]] = arith.constant 0.797884583 : f32
// CHECK-NEXT:   %[[ARG:.*]] = arith.mulf %[[B]], %[[SUM]] : f32
// CHECK-NEXT:   %[[T:.*]] = math.tanh %[[ARG]] : f32
// CHECK:        arith.addf %{{.*}}, %[[T]] : f32
// CHECK-NOT:    math.erf
// CHECK:        kern.yield
func.func @main(%x: tensor<2x8xf32> {graph.name = "x"}) -> (tensor<2x8xf32> {graph.name = "y"}) {
  %0 = graph.gelu %x {approximate = "tanh"} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// SiLU and SwiGLU on fp16: loads widen to f32, x / (1 + exp(-x)) as
// x * sigmoid(x), one truncation at the store.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:arg[0-9]+]]: memref<2x8xf16> {kern.input = "a"}, %[[B:arg[0-9]+]]: memref<2x8xf16> {kern.input = "b"}, %[[S:arg[0-9]+]]: memref<2x8xf16> {kern.output = "s"}, %[[G:arg[0-9]+]]: memref<2x8xf16> {kern.output = "g"})
// CHECK-NEXT: kern.map ins(%[[A]] : memref<2x8xf16>) outs(%[[S]] : memref<2x8xf16>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f16):
// CHECK-NEXT:   %[[W:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:   %[[N:.*]] = arith.negf %[[W]] : f32
// CHECK-NEXT:   %[[E:.*]] = math.exp %[[N]] : f32
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT:   %[[SG:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[W]], %[[SG]] : f32
// CHECK-NEXT:   %[[T:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT:   kern.yield %[[T]] : f16
// CHECK:      kern.map ins(%[[A]], %[[B]] : memref<2x8xf16>, memref<2x8xf16>) outs(%[[G]] : memref<2x8xf16>)
// CHECK-NEXT: ^bb0(%[[V0:.*]]: f16, %[[V1:.*]]: f16):
// CHECK-NEXT:   %[[W0:.*]] = arith.extf %[[V0]] : f16 to f32
// CHECK-NEXT:   %[[W1:.*]] = arith.extf %[[V1]] : f16 to f32
// CHECK:        %[[SILU:.*]] = arith.mulf %[[W0]], %{{.*}} : f32
// CHECK-NEXT:   %[[PROD:.*]] = arith.mulf %[[SILU]], %[[W1]] : f32
// CHECK-NEXT:   %[[T2:.*]] = arith.truncf %[[PROD]] : f32 to f16
// CHECK-NEXT:   kern.yield %[[T2]] : f16
func.func @main(%a: tensor<2x8xf16> {graph.name = "a"}, %b: tensor<2x8xf16> {graph.name = "b"}) -> (tensor<2x8xf16> {graph.name = "s"}, tensor<2x8xf16> {graph.name = "g"}) {
  %0 = graph.silu %a : tensor<2x8xf16>
  %1 = graph.swiglu %a, %b : tensor<2x8xf16>
  return %0, %1 : tensor<2x8xf16>, tensor<2x8xf16>
}

// -----

// RMSNorm on fp16 over the last axis: the mean of squares (widened first)
// into an fp32 [2, 3, 1] buffer, then x * (1 / sqrt(ms + eps)) * w with the
// statistic and the weight read through broadcast strides.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x3x8xf16> {kern.input = "x"}, %[[Y:arg[0-9]+]]: memref<2x3x8xf16> {kern.output = "y"})
// CHECK-NEXT: %[[W:.*]] = kern.weight {{.*}} : memref<8xf16>
// CHECK-NEXT: %[[MS:.*]] = kern.alloc : memref<2x3x1xf32>
// CHECK-NEXT: kern.reduce "mean" ins(%[[X]] : memref<2x3x8xf16>) outs(%[[MS]] : memref<2x3x1xf32>) attributes {layouts = [array<i64: 0, 24, 8, 1>, array<i64: 0, 3, 1, 0>], reduce_dims = array<i64: 2>, shape = array<i64: 2, 3, 8>}
// CHECK-NEXT: ^bb0(%[[V:.*]]: f16):
// CHECK-NEXT:   %[[F:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:   %[[SQ:.*]] = arith.mulf %[[F]], %[[F]] : f32
// CHECK-NEXT:   kern.yield %[[SQ]] : f32
// CHECK:      kern.map ins(%[[X]], %[[MS]], %[[W]] : memref<2x3x8xf16>, memref<2x3x1xf32>, memref<8xf16>) outs(%[[Y]] : memref<2x3x8xf16>) attributes {layouts = [array<i64: 0, 24, 8, 1>, array<i64: 0, 3, 1, 0>, array<i64: 0, 0, 0, 1>, array<i64: 0, 24, 8, 1>], shape = array<i64: 2, 3, 8>}
// CHECK-NEXT: ^bb0(%[[XV:.*]]: f16, %[[MV:.*]]: f32, %[[WV:.*]]: f16):
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:   %[[SUM:.*]] = arith.addf %[[MV]], %[[EPS]] : f32
// CHECK-NEXT:   %[[RT:.*]] = math.sqrt %[[SUM]] : f32
// CHECK-NEXT:   %[[INV:.*]] = arith.divf %[[ONE]], %[[RT]] : f32
// CHECK-NEXT:   %[[XF:.*]] = arith.extf %[[XV]] : f16 to f32
// CHECK-NEXT:   %[[N:.*]] = arith.mulf %[[XF]], %[[INV]] : f32
// CHECK-NEXT:   %[[WF:.*]] = arith.extf %[[WV]] : f16 to f32
// CHECK-NEXT:   %[[R:.*]] = arith.mulf %[[N]], %[[WF]] : f32
// CHECK-NEXT:   %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK-NEXT:   kern.yield %[[T]] : f16
func.func @main(%x: tensor<2x3x8xf16> {graph.name = "x"}) -> (tensor<2x3x8xf16> {graph.name = "y"}) {
  %w = graph.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf16>
  %0 = graph.rms_norm %x, %w {axis = 2 : i64, epsilon = 1.0e-5 : f32} : tensor<2x3x8xf16>, tensor<8xf16>
  return %0 : tensor<2x3x8xf16>
}

// -----

// RMSNorm over two axes with a splat scale of ones (no weight in the
// export): no weight buffer, no multiply.
// CHECK-LABEL: func.func @main
// CHECK-NOT:  kern.weight
// CHECK:      %[[MS:.*]] = kern.alloc : memref<2x1x1xf32>
// CHECK-NEXT: kern.reduce "mean" {{.*}} outs(%[[MS]] : memref<2x1x1xf32>) attributes {layouts = [array<i64: 0, 24, 8, 1>, array<i64: 0, 1, 0, 0>], reduce_dims = array<i64: 1, 2>
// CHECK:      kern.map ins(%{{.*}}, %[[MS]] : memref<2x3x8xf32>, memref<2x1x1xf32>)
// CHECK:        %[[INV:.*]] = arith.divf
// CHECK-NEXT:   %[[N:.*]] = arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK-NEXT:   kern.yield %[[N]] : f32
func.func @main(%x: tensor<2x3x8xf32> {graph.name = "x"}) -> (tensor<2x3x8xf32> {graph.name = "y"}) {
  %one = graph.constant dense<1.0> : tensor<3x8xf32>
  %0 = graph.rms_norm %x, %one {axis = 1 : i64} : tensor<2x3x8xf32>, tensor<3x8xf32>
  return %0 : tensor<2x3x8xf32>
}
