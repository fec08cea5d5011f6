// RUN: %shardc-opt %s --split-input-file --graph-fuse-norms | FileCheck %s

// LayerNorm as PyTorch exports it at opset 14: ReduceMean, Sub, Pow 2,
// ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta. The epsilon comes
// from the constant (1e-5 here, the default, so not printed); the
// decomposition disappears.
// CHECK-LABEL: func.func @layer_norm_torch
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:      %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64} :
// CHECK-NOT:  graph.reduce_mean
// CHECK-NOT:  graph.sqrt
// CHECK:      return %[[Y]]
func.func @layer_norm_torch(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 2>} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %d = graph.sub %x, %m : tensor<2x4x8xf32>, tensor<2x4x1xf32> -> tensor<2x4x8xf32>
  %p = graph.pow %d, %two : tensor<2x4x8xf32>, tensor<f32> -> tensor<2x4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 2>} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %a = graph.add %v, %eps : tensor<2x4x1xf32>, tensor<f32> -> tensor<2x4x1xf32>
  %s = graph.sqrt %a : tensor<2x4x1xf32>
  %n = graph.div %d, %s : tensor<2x4x8xf32>, tensor<2x4x1xf32> -> tensor<2x4x8xf32>
  %y = graph.mul %n, %g : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  %z = graph.add %y, %b : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  return %z : tensor<2x4x8xf32>
}

// -----

// Mul(d, d) for the square, Mul by Reciprocal(Sqrt) for the division, the
// epsilon first in its Add, gamma and beta as the left operands.
// CHECK-LABEL: func.func @layer_norm_reciprocal
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:      graph.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.99999997E-7 : f32}
// CHECK-NOT:  graph.reciprocal
func.func @layer_norm_reciprocal(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %eps = graph.constant dense<1.0e-6> : tensor<1xf32>
  %m = graph.reduce_mean %x {axes = array<i64: 2>} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %d = graph.sub %x, %m : tensor<2x4x8xf32>, tensor<2x4x1xf32> -> tensor<2x4x8xf32>
  %p = graph.mul %d, %d : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 2>} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %a = graph.add %eps, %v : tensor<1xf32>, tensor<2x4x1xf32> -> tensor<2x4x1xf32>
  %s = graph.sqrt %a : tensor<2x4x1xf32>
  %r = graph.reciprocal %s : tensor<2x4x1xf32>
  %n = graph.mul %r, %d : tensor<2x4x1xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %y = graph.mul %g, %n : tensor<8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %z = graph.add %b, %y : tensor<8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %z : tensor<2x4x8xf32>
}

// -----

// Neither gamma nor beta: gamma is a constant of ones, no bias. rsqrt as
// exported (Div(1, Sqrt)).
// CHECK-LABEL: func.func @layer_norm_plain
// CHECK:      %[[ONE:.*]] = graph.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK:      graph.layer_norm %arg0, %[[ONE]] {axis = 1 : i64} : tensor<4x8xf32>, tensor<8xf32> ->
func.func @layer_norm_plain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %one = graph.constant dense<1.0> : tensor<f32>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %r = graph.div %one, %s : tensor<f32>, tensor<4x1xf32> -> tensor<4x1xf32>
  %n = graph.mul %d, %r : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Beta without gamma (an Add right after the Div).
// CHECK-LABEL: func.func @layer_norm_bias_only
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:      %[[ONE:.*]] = graph.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK:      graph.layer_norm %[[X]], %[[ONE]], %[[B]] {axis = 1 : i64
// CHECK-NOT:  graph.add
func.func @layer_norm_bias_only(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %z = graph.add %n, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// -----

// Two trailing axes (negative axes were made non-negative by the importer):
// axis 1; a gamma of rank 3 ([1, 4, 8]) is reshaped to the normalized shape.
// CHECK-LABEL: func.func @layer_norm_two_axes
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<1x4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:      %[[G2:.*]] = graph.reshape %[[G]] {shape = array<i64: 4, 8>} : tensor<1x4x8xf32> -> tensor<4x8xf32>
// CHECK:      graph.layer_norm %[[X]], %[[G2]], %[[B]] {axis = 1 : i64
func.func @layer_norm_two_axes(%x: tensor<2x4x8xf32>, %g: tensor<1x4x8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 1, 2>} : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %d = graph.sub %x, %m : tensor<2x4x8xf32>, tensor<2x1x1xf32> -> tensor<2x4x8xf32>
  %p = graph.pow %d, %two : tensor<2x4x8xf32>, tensor<f32> -> tensor<2x4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1, 2>} : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %a = graph.add %v, %eps : tensor<2x1x1xf32>, tensor<f32> -> tensor<2x1x1xf32>
  %s = graph.sqrt %a : tensor<2x1x1xf32>
  %n = graph.div %d, %s : tensor<2x4x8xf32>, tensor<2x1x1xf32> -> tensor<2x4x8xf32>
  %y = graph.mul %n, %g : tensor<2x4x8xf32>, tensor<1x4x8xf32> -> tensor<2x4x8xf32>
  %z = graph.add %y, %b : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  return %z : tensor<2x4x8xf32>
}

// -----

// fp16 (after --precision): the epsilon is the fp16 constant's value.
// CHECK-LABEL: func.func @layer_norm_f16
// CHECK:      graph.layer_norm %arg0, %arg1, %arg2 {axis = 1 : i64, epsilon = 1.00135803E-5 : f32} : tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16> -> tensor<4x8xf16>, tensor<4x1xf32>, tensor<4x1xf32>
func.func @layer_norm_f16(%x: tensor<4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<4x8xf16> {
  %two = graph.constant dense<2.0> : tensor<f16>
  %eps = graph.constant dense<1.0e-5> : tensor<f16>
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf16> -> tensor<4x1xf16>
  %d = graph.sub %x, %m : tensor<4x8xf16>, tensor<4x1xf16> -> tensor<4x8xf16>
  %p = graph.pow %d, %two : tensor<4x8xf16>, tensor<f16> -> tensor<4x8xf16>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf16> -> tensor<4x1xf16>
  %a = graph.add %v, %eps : tensor<4x1xf16>, tensor<f16> -> tensor<4x1xf16>
  %s = graph.sqrt %a : tensor<4x1xf16>
  %n = graph.div %d, %s : tensor<4x8xf16>, tensor<4x1xf16> -> tensor<4x8xf16>
  %y = graph.mul %n, %g : tensor<4x8xf16>, tensor<8xf16> -> tensor<4x8xf16>
  %z = graph.add %y, %b : tensor<4x8xf16>, tensor<8xf16> -> tensor<4x8xf16>
  return %z : tensor<4x8xf16>
}

// -----

// RMSNorm: x * Reciprocal(Sqrt(mean(x^2) + eps)) * w (eps 1e-6, the
// default).
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK:      %[[Y:.*]] = graph.rms_norm %[[X]], %[[W]] {axis = 2 : i64} : tensor<2x4x8xf32>, tensor<8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm(%x: tensor<2x4x8xf32>, %w: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %p = graph.pow %x, %two : tensor<2x4x8xf32>, tensor<f32> -> tensor<2x4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 2>} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %a = graph.add %v, %eps : tensor<2x4x1xf32>, tensor<f32> -> tensor<2x4x1xf32>
  %s = graph.sqrt %a : tensor<2x4x1xf32>
  %r = graph.reciprocal %s : tensor<2x4x1xf32>
  %n = graph.mul %x, %r : tensor<2x4x8xf32>, tensor<2x4x1xf32> -> tensor<2x4x8xf32>
  %y = graph.mul %n, %w : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// RMSNorm with Div(x, Sqrt) and Mul(x, x); x has another user (a residual),
// which is fine: x is the input, not an intermediate.
// CHECK-LABEL: func.func @rms_norm_div
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK:      %[[Y:.*]] = graph.rms_norm %[[X]], %[[W]] {axis = 1 : i64
// CHECK:      graph.add %[[Y]], %[[X]]
func.func @rms_norm_div(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %p = graph.mul %x, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %x, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %y = graph.mul %w, %n : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %r = graph.add %y, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// HF Llama in fp16: x widened to fp32, rsqrt as Div(1, Sqrt), the result
// cast back to fp16 and multiplied by the weight. The casts go with it.
// CHECK-LABEL: func.func @rms_norm_hf_casts
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf16>, %[[W:.*]]: tensor<8xf16>)
// CHECK-NEXT: %[[Y:.*]] = graph.rms_norm %[[X]], %[[W]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : tensor<2x4x8xf16>, tensor<8xf16>
// CHECK-NEXT: return %[[Y]]
func.func @rms_norm_hf_casts(%x: tensor<2x4x8xf16>, %w: tensor<8xf16>) -> tensor<2x4x8xf16> {
  %one = graph.constant dense<1.0> : tensor<f32>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %h = graph.cast %x {to = f32} : tensor<2x4x8xf16> -> tensor<2x4x8xf32>
  %p = graph.pow %h, %two : tensor<2x4x8xf32>, tensor<f32> -> tensor<2x4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 2>} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %a = graph.add %v, %eps : tensor<2x4x1xf32>, tensor<f32> -> tensor<2x4x1xf32>
  %s = graph.sqrt %a : tensor<2x4x1xf32>
  %r = graph.div %one, %s : tensor<f32>, tensor<2x4x1xf32> -> tensor<2x4x1xf32>
  %n = graph.mul %h, %r : tensor<2x4x8xf32>, tensor<2x4x1xf32> -> tensor<2x4x8xf32>
  %c = graph.cast %n {to = f16} : tensor<2x4x8xf32> -> tensor<2x4x8xf16>
  %y = graph.mul %w, %c : tensor<8xf16>, tensor<2x4x8xf16> -> tensor<2x4x8xf16>
  return %y : tensor<2x4x8xf16>
}

// -----

// RMSNorm without a weight: ones.
// CHECK-LABEL: func.func @rms_norm_no_weight
// CHECK:      %[[ONE:.*]] = graph.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK:      graph.rms_norm %arg0, %[[ONE]] {axis = 1 : i64
func.func @rms_norm_no_weight(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %p = graph.pow %x, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %x, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Look-alike: the epsilon is added after the square root.
// CHECK-LABEL: func.func @no_eps_after_sqrt
// CHECK-NOT:  graph.layer_norm
// CHECK-NOT:  graph.rms_norm
// CHECK:      graph.reduce_mean
func.func @no_eps_after_sqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %s = graph.sqrt %v : tensor<4x1xf32>
  %a = graph.add %s, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %n = graph.div %d, %a : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Look-alike: the epsilon inside the mean.
// CHECK-LABEL: func.func @no_eps_inside_mean
// CHECK-NOT:  graph.layer_norm
// CHECK-NOT:  graph.rms_norm
func.func @no_eps_inside_mean(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %a = graph.add %p, %eps : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %a {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %s = graph.sqrt %v : tensor<4x1xf32>
  %n = graph.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Look-alike: the subtracted mean is over axis 0, the variance over axis 1.
// Not a LayerNorm. (What remains, d / sqrt(mean(d^2) + eps) with d = x -
// mean0(x), is exactly an RMSNorm of d, and is fused as one.)
// CHECK-LABEL: func.func @no_ln_mean_other_axis
// CHECK-NOT:  graph.layer_norm
// CHECK:      %[[M:.*]] = graph.reduce_mean %arg0 {axes = array<i64: 0>}
// CHECK:      %[[D:.*]] = graph.sub %arg0, %[[M]]
// CHECK:      graph.rms_norm %[[D]], %{{.*}} {axis = 1 : i64
// CHECK-NOT:  graph.layer_norm
func.func @no_ln_mean_other_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Look-alike: the mean subtracted is another tensor's. Not a LayerNorm
// (again an exact RMSNorm of the difference).
// CHECK-LABEL: func.func @no_ln_other_mean
// CHECK-NOT:  graph.layer_norm
// CHECK:      %[[D:.*]] = graph.sub %arg0
// CHECK:      graph.rms_norm %[[D]]
func.func @no_ln_other_mean(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %z {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Look-alike: exponent 3.
// CHECK-LABEL: func.func @no_cube
// CHECK-NOT:  graph.layer_norm
// CHECK-NOT:  graph.rms_norm
// CHECK:      graph.pow
func.func @no_cube(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = graph.constant dense<3.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %three : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Look-alike: a leading (not trailing) axis.
// CHECK-LABEL: func.func @no_leading_axis
// CHECK-NOT:  graph.layer_norm
// CHECK-NOT:  graph.rms_norm
func.func @no_leading_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32>
  %a = graph.add %v, %eps : tensor<1x8xf32>, tensor<f32> -> tensor<1x8xf32>
  %s = graph.sqrt %a : tensor<1x8xf32>
  %n = graph.div %d, %s : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Look-alike gamma: [4, 1] varies along the rows, not the normalized axis.
// The normalization still fuses, with ones; the Mul stays.
// CHECK-LABEL: func.func @gamma_not_normalized
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x1xf32>)
// CHECK:      %[[ONE:.*]] = graph.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK:      %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_norm %[[X]], %[[ONE]] {axis = 1 : i64
// CHECK:      graph.mul %[[Y]], %[[G]]
func.func @gamma_not_normalized(%x: tensor<4x8xf32>, %g: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %y = graph.mul %n, %g : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// An intermediate with another user (the variance is also returned):
// nothing fuses.
// CHECK-LABEL: func.func @no_shared_intermediate
// CHECK-NOT:  graph.layer_norm
// CHECK-NOT:  graph.rms_norm
func.func @no_shared_intermediate(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = graph.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %p = graph.pow %d, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n, %v : tensor<4x8xf32>, tensor<4x1xf32>
}

// -----

// RMSNorm look-alike: the normalized tensor is not the squared one.
// CHECK-LABEL: func.func @no_rms_other_tensor
// CHECK-NOT:  graph.rms_norm
func.func @no_rms_other_tensor(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %p = graph.pow %x, %two : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %v = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %a = graph.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32>
  %n = graph.div %z, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}
