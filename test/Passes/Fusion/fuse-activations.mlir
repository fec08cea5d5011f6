// RUN: %shardc-opt %s --split-input-file --graph-fuse-activations | FileCheck %s

// GELU as PyTorch exports it at opsets 14 and 17:
// Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5). The default approximate
// ("none", the erf form) is not printed.
// CHECK-LABEL: func.func @gelu_torch
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[Y:.*]] = graph.gelu %[[X]] : tensor<2x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_torch(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = graph.constant dense<5.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = graph.erf %0 : tensor<2x8xf32>
  %2 = graph.add %1, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = graph.mul %x, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// The other orders: Mul(x, 1/sqrt 2) (within 1e-4), Add(1, erf), and
// 0.5 * x first: Mul(Mul(0.5, x), A).
// CHECK-LABEL: func.func @gelu_half_first
// CHECK-NEXT: graph.gelu %arg0 : tensor<2x8xf32>
// CHECK-NEXT: return
func.func @gelu_half_first(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = graph.constant dense<5.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<1xf32>
  %rsqrt2 = graph.constant dense<0.70710> : tensor<f32>
  %0 = graph.mul %rsqrt2, %x : tensor<f32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %1 = graph.erf %0 : tensor<2x8xf32>
  %2 = graph.add %one, %1 : tensor<1xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = graph.mul %half, %x : tensor<f32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// ONNX's function body association: Mul(x, Mul(0.5, A)); fp16 constants
// (after --precision) are within one fp16 ulp.
// CHECK-LABEL: func.func @gelu_f16_nested
// CHECK-NEXT: graph.gelu %arg0 : tensor<2x8xf16>
func.func @gelu_f16_nested(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %half = graph.constant dense<5.000000e-01> : tensor<f16>
  %one = graph.constant dense<1.000000e+00> : tensor<f16>
  %sqrt2 = graph.constant dense<1.414> : tensor<f16>
  %0 = graph.div %x, %sqrt2 : tensor<2x8xf16>, tensor<f16> -> tensor<2x8xf16>
  %1 = graph.erf %0 : tensor<2x8xf16>
  %2 = graph.add %1, %one : tensor<2x8xf16>, tensor<f16> -> tensor<2x8xf16>
  %3 = graph.mul %half, %2 : tensor<f16>, tensor<2x8xf16> -> tensor<2x8xf16>
  %4 = graph.mul %x, %3 : tensor<2x8xf16>, tensor<2x8xf16> -> tensor<2x8xf16>
  return %4 : tensor<2x8xf16>
}

// -----

// The tanh form as torch exports gelu(approximate='tanh'): x * (x * x) for
// the cube.
// CHECK-LABEL: func.func @gelu_tanh_torch
// CHECK-NEXT: %[[Y:.*]] = graph.gelu %arg0 {approximate = "tanh"} : tensor<2x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @gelu_tanh_torch(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = graph.constant dense<5.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %k = graph.constant dense<0.797884583> : tensor<f32>
  %c = graph.constant dense<4.471500e-02> : tensor<f32>
  %0 = graph.mul %x, %x : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %1 = graph.mul %x, %0 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = graph.mul %1, %c : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = graph.add %x, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %k : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %5 = graph.tanh %4 : tensor<2x8xf32>
  %6 = graph.add %5, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %7 = graph.mul %x, %6 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %8 = graph.mul %7, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  return %8 : tensor<2x8xf32>
}

// -----

// The tanh form written out (HF NewGELU): Pow(x, 3), constants on the
// left, 0.5 * x first.
// CHECK-LABEL: func.func @gelu_tanh_pow
// CHECK-NEXT: graph.gelu %arg0 {approximate = "tanh"}
// CHECK-NEXT: return
func.func @gelu_tanh_pow(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = graph.constant dense<5.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %three = graph.constant dense<3.000000e+00> : tensor<f32>
  %k = graph.constant dense<0.797884583> : tensor<f32>
  %c = graph.constant dense<4.471500e-02> : tensor<f32>
  %0 = graph.pow %x, %three : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = graph.mul %c, %0 : tensor<f32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = graph.add %1, %x : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = graph.mul %k, %2 : tensor<f32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.tanh %3 : tensor<2x8xf32>
  %5 = graph.add %one, %4 : tensor<f32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %6 = graph.mul %x, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %7 = graph.mul %6, %5 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %7 : tensor<2x8xf32>
}

// -----

// SiLU and SwiGLU: silu(a) * b with a and b of one type.
// CHECK-LABEL: func.func @silu_swiglu
// CHECK-SAME: (%[[A:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<2x8xf32>)
// CHECK-DAG:  %[[S:.*]] = graph.silu %[[A]] : tensor<2x8xf32>
// CHECK-DAG:  %[[G:.*]] = graph.swiglu %[[B]], %[[A]] : tensor<2x8xf32>
// CHECK-NOT:  graph.sigmoid
// CHECK:      return %[[S]], %[[G]]
func.func @silu_swiglu(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %0 = graph.sigmoid %a : tensor<2x8xf32>
  %1 = graph.mul %a, %0 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = graph.sigmoid %b : tensor<2x8xf32>
  %3 = graph.mul %2, %b : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %a : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %1, %4 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Look-alike GELU: 0.6 instead of 0.5.
// CHECK-LABEL: func.func @no_gelu_wrong_half
// CHECK-NOT:  graph.gelu
// CHECK:      graph.erf
func.func @no_gelu_wrong_half(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = graph.constant dense<6.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = graph.erf %0 : tensor<2x8xf32>
  %2 = graph.add %1, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = graph.mul %x, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// Look-alike GELU: divided by 2.0, not sqrt 2; and 1.4142 off by 1e-3.
// CHECK-LABEL: func.func @no_gelu_wrong_scale
// CHECK-NOT:  graph.gelu
func.func @no_gelu_wrong_scale(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %half = graph.constant dense<5.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %two = graph.constant dense<2.0> : tensor<f32>
  %near = graph.constant dense<1.4156> : tensor<f32>
  %0 = graph.div %x, %two : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = graph.erf %0 : tensor<2x8xf32>
  %2 = graph.add %1, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = graph.mul %x, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %5 = graph.div %x, %near : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %6 = graph.erf %5 : tensor<2x8xf32>
  %7 = graph.add %6, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %8 = graph.mul %x, %7 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %9 = graph.mul %8, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  return %4, %9 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Look-alike GELU: the outer factor is another tensor than erf's argument.
// CHECK-LABEL: func.func @no_gelu_other_tensor
// CHECK-NOT:  graph.gelu
func.func @no_gelu_other_tensor(%x: tensor<2x8xf32>, %z: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = graph.constant dense<5.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = graph.erf %0 : tensor<2x8xf32>
  %2 = graph.add %1, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = graph.mul %z, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// Look-alike GELU: the erf is used elsewhere too.
// CHECK-LABEL: func.func @no_gelu_shared_erf
// CHECK-NOT:  graph.gelu
func.func @no_gelu_shared_erf(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %half = graph.constant dense<5.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = graph.erf %0 : tensor<2x8xf32>
  %2 = graph.add %1, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = graph.mul %x, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  return %4, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Look-alike tanh GELUs: 0.04 instead of 0.044715, and Pow(x, 2) instead
// of the cube.
// CHECK-LABEL: func.func @no_gelu_tanh
// CHECK-NOT:  graph.gelu
func.func @no_gelu_tanh(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %half = graph.constant dense<5.000000e-01> : tensor<f32>
  %one = graph.constant dense<1.000000e+00> : tensor<f32>
  %two = graph.constant dense<2.000000e+00> : tensor<f32>
  %three = graph.constant dense<3.000000e+00> : tensor<f32>
  %k = graph.constant dense<0.797884583> : tensor<f32>
  %c = graph.constant dense<4.471500e-02> : tensor<f32>
  %bad = graph.constant dense<4.000000e-02> : tensor<f32>
  %0 = graph.pow %x, %three : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = graph.mul %0, %bad : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %2 = graph.add %x, %1 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = graph.mul %2, %k : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %4 = graph.tanh %3 : tensor<2x8xf32>
  %5 = graph.add %4, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %6 = graph.mul %x, %5 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %7 = graph.mul %6, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %10 = graph.pow %x, %two : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %11 = graph.mul %10, %c : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %12 = graph.add %x, %11 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %13 = graph.mul %12, %k : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %14 = graph.tanh %13 : tensor<2x8xf32>
  %15 = graph.add %14, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %16 = graph.mul %x, %15 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %17 = graph.mul %16, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  return %7, %17 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Look-alike SiLU: the sigmoid of another tensor (stays a Mul); SwiGLU
// look-alike: b broadcasts ([8] against [2, 8]), so silu(a) stays apart.
// CHECK-LABEL: func.func @no_silu
// CHECK-SAME: (%[[A:.*]]: tensor<2x8xf32>, %[[Z:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:      %[[SG:.*]] = graph.sigmoid %[[Z]]
// CHECK:      graph.mul %[[A]], %[[SG]]
// CHECK:      %[[S:.*]] = graph.silu %[[A]]
// CHECK:      graph.mul %[[S]], %[[B]]
// CHECK-NOT:  graph.swiglu
func.func @no_silu(%a: tensor<2x8xf32>, %z: tensor<2x8xf32>, %b: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %0 = graph.sigmoid %z : tensor<2x8xf32>
  %1 = graph.mul %a, %0 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = graph.sigmoid %a : tensor<2x8xf32>
  %3 = graph.mul %a, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = graph.mul %3, %b : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return %1, %4 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// HardSwish as exporters decompose it: Paddle's (x * clip(x + 3, 0, 6)) / 6,
// torch's x * (relu6(x + 3) / 6) and x * (clip(x + 3, 0, 6) * 1/6), and
// ONNX's x * hard_sigmoid(x) with alpha 1/6, beta 1/2.
// CHECK-LABEL: func.func @hard_swish
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-NOT:  graph.clip
// CHECK-COUNT-4: graph.hard_swish %[[X]] : tensor<2x8xf32>
// CHECK-NOT:  graph.clip
// CHECK-NOT:  graph.hard_sigmoid
func.func @hard_swish(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %three = graph.constant dense<3.0> : tensor<1xf32>
  %six = graph.constant dense<6.0> : tensor<1xf32>
  %sixth = graph.constant dense<0.166666672> : tensor<f32>
  %0 = graph.add %x, %three : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %1 = graph.clip %0 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8xf32>
  %2 = graph.mul %x, %1 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = graph.div %2, %six : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %4 = graph.add %three, %x : tensor<1xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %5 = graph.clip %4 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8xf32>
  %6 = graph.div %5, %six : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %7 = graph.mul %x, %6 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %8 = graph.add %x, %three : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %9 = graph.clip %8 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8xf32>
  %10 = graph.mul %9, %sixth : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %11 = graph.mul %10, %x : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %12 = graph.hard_sigmoid %x {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32} : tensor<2x8xf32>
  %13 = graph.mul %x, %12 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %3, %7, %11, %13 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Look-alikes: a clip to 5, a shift by 2, the clip of another tensor, and
// hard_sigmoid's default alpha (0.2): nothing is fused.
// CHECK-LABEL: func.func @no_hard_swish
// CHECK-NOT:  graph.hard_swish
func.func @no_hard_swish(%x: tensor<2x8xf32>, %z: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %two = graph.constant dense<2.0> : tensor<1xf32>
  %three = graph.constant dense<3.0> : tensor<1xf32>
  %six = graph.constant dense<6.0> : tensor<1xf32>
  %0 = graph.add %x, %three : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %1 = graph.clip %0 {max = 5.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8xf32>
  %2 = graph.mul %x, %1 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %3 = graph.div %2, %six : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %4 = graph.add %x, %two : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %5 = graph.clip %4 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8xf32>
  %6 = graph.mul %x, %5 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %7 = graph.div %6, %six : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %8 = graph.add %z, %three : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %9 = graph.clip %8 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x8xf32>
  %10 = graph.mul %x, %9 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %11 = graph.div %10, %six : tensor<2x8xf32>, tensor<1xf32> -> tensor<2x8xf32>
  %12 = graph.hard_sigmoid %x : tensor<2x8xf32>
  %13 = graph.mul %x, %12 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %3, %7, %11, %13 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
