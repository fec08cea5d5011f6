// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --graph-quantize-static="stats=%S/Inputs/stats.json smooth=off" | FileCheck %s --check-prefix=OFF
// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --graph-quantize-static="stats=%S/Inputs/stats.json smooth=0.5" | FileCheck %s --check-prefix=HALF
// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --graph-quantize-static="stats=%S/Inputs/stats.json" | FileCheck %s --check-prefix=AUTO
// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --graph-quantize-static="stats=%S/Inputs/stats.json keep=0" | FileCheck %s --check-prefix=KEEP
// graph-quantize-static with the statistics of Inputs/stats.json: the
// activation's channels reach 2 and 1 (max |x_j|), the weight's rows 2 and
// 4 (max |W_j|).
//
// smooth=off: one scale for x, 2 / 127, so x * 63.5 is quantized; the
// weight is int8 per column over 2, 4 and 0.5 (as graph-quantize-dynamic
// quantizes it) and its column scales carry x's scale: 2/127 * 2/127 =
// 2.48e-4, 4.96e-4, 6.2e-5. No row scales.
// OFF-LABEL: func.func @linear
// OFF:       %[[M:.*]] = graph.constant dense<6.350000e+01> : tensor<f32>
// OFF:       %[[X:.*]] = graph.mul %arg0, %[[M]] : tensor<4x2xf32>, tensor<f32> -> tensor<4x2xf32>
// OFF:       %[[XQ:.*]] = graph.quantize_linear %[[X]], %{{.*}}, %{{.*}} : tensor<4x2xf32>, tensor<f32>, tensor<i8> -> tensor<4x2xi8>
// OFF-DAG:   %[[WQ:.*]] = graph.constant dense<{{\[\[}}127, -32, 127], [-64, 127, 0]]> : tensor<2x3xi8>
// OFF-DAG:   %[[WS:.*]] = graph.constant dense<[2.480{{[0-9]+}}E-4, 4.960{{[0-9]+}}e-04, 6.200{{[0-9]+}}E-5]> : tensor<3xf32>
// OFF:       graph.linear_int8 %[[XQ]], %[[WQ]] scales %[[WS]] bias %arg1 : tensor<3xf32> {activation = "gelu", graph.quant = {alpha = 0.000000e+00 : f32, clip = 2.000000e+00 : f32, group = 0 : i64, method = "minmax", scheme = "static"}} : tensor<4x2xi8>, tensor<2x3xi8>, tensor<3xf32> -> tensor<4x3xf32>
// (No sample rows in the statistics: no SQNR.)
//
// smooth=0.5 (SmoothQuant's alpha): s = sqrt(a_j / w_j) = 1 and 0.5, so
// x's channels are divided by 1 and 0.5 (both then reach 2: one scale
// 2/127, the multipliers 63.5 and 127) and the weight's second row is
// halved before it is quantized ([-0.5, 2, 0]: the columns' maxima become
// 2, 2 and 0.5).
// HALF-LABEL: func.func @linear
// HALF:       %[[M:.*]] = graph.constant dense<[6.350000e+01, 1.270000e+02]> : tensor<2xf32>
// HALF:       %[[X:.*]] = graph.mul %arg0, %[[M]] : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
// HALF:       %[[XQ:.*]] = graph.quantize_linear %[[X]]
// HALF-DAG:   %[[WQ:.*]] = graph.constant dense<{{\[\[}}127, -64, 127], [-32, 127, 0]]> : tensor<2x3xi8>
// HALF:       graph.linear_int8 %[[XQ]], %[[WQ]] scales
//
// smooth=auto picks alpha by the layer's expected output noise; here it
// smooths (a multiplier per channel).
// AUTO-LABEL: func.func @linear
// AUTO:       graph.constant dense<[{{.*}}, {{.*}}]> : tensor<2xf32>
// AUTO:       graph.linear_int8 {{.*}} scales
//
// keep=0 (the accuracy guard's choice): the activation's layers stay in
// floating point, marked for the report.
// KEEP-LABEL: func.func @linear
// KEEP:       graph.linear %arg0, %{{.*}} bias %arg1 : tensor<3xf32> {activation = "gelu", graph.quant = {group = 0 : i64, kept = "accuracy guard"}}
// KEEP-NOT:   graph.linear_int8
func.func @linear(%x: tensor<4x2xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %w = graph.constant dense<[[2.0, -1.0, 0.5], [-1.0, 4.0, 0.0]]> : tensor<2x3xf32>
  %y = graph.linear %x, %w bias %b : tensor<3xf32> {activation = "gelu"} : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Statistics of another program: one activation in the file, two here.
// expected-error @+1 {{calibration statistics do not match the model: 2 activations to quantize, 1 in}}
func.func @mismatch(%x: tensor<4x2xf32>, %z: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x2xf32>) {
  %w = graph.constant dense<1.0> : tensor<2x3xf32>
  %v = graph.constant dense<1.0> : tensor<3x2xf32>
  %y = graph.linear %x, %w : tensor<4x2xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %u = graph.linear %z, %v : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  return %y, %u : tensor<4x3xf32>, tensor<4x2xf32>
}

// -----

// A convolution (here with a relu epilogue): its input's statistics give
// one scale, 2 / 127 (no sample rows to show it is never negative, so
// signed int8), and the weight is int8 per output channel over 1 and 2:
// [127, -64] and [16, 127] (1 * 127, -0.5 * 127 = -63.5 to even, 0.25 *
// 63.5 = 15.9, 2 * 63.5). The scales carry x's: 2/127 * 1/127 = 1.24e-4
// and 2/127 * 2/127 = 2.48e-4. keep=0 leaves it in floating point.
// OFF-LABEL: func.func @conv
// OFF:       %[[M:.*]] = graph.constant dense<6.350000e+01> : tensor<f32>
// OFF:       %[[X:.*]] = graph.mul %arg0, %[[M]] : tensor<1x2x3x2xf32>, tensor<f32> -> tensor<1x2x3x2xf32>
// OFF:       %[[XQ:.*]] = graph.quantize_linear %[[X]], %{{.*}}, %{{.*}} : tensor<1x2x3x2xf32>, tensor<f32>, tensor<i8> -> tensor<1x2x3x2xi8>
// OFF:       %[[WQ:.*]] = graph.constant dense<{{\[\[\[\[}}127]], {{\[\[}}-64]]], {{\[\[\[}}16]], {{\[\[}}127]]]]> : tensor<2x2x1x1xi8>
// OFF:       graph.conv_int8 %[[XQ]], %[[WQ]] {activation = "relu", dilations = array<i64: 1, 1>, graph.quant = {clip = 2.000000e+00 : f32, group = 0 : i64, method = "minmax", scheme = "static"}, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 1.24000{{[0-9]+}}E-4, 2.48000{{[0-9]+}}E-4>, strides = array<i64: 1, 1>} : tensor<1x2x3x2xi8>, tensor<2x2x1x1xi8> -> tensor<1x2x3x2xf32>
// KEEP-LABEL: func.func @conv
// KEEP-NOT:   graph.conv_int8
// KEEP:       graph.fused_conv
func.func @conv(%x: tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32> {
  %w = graph.constant dense<[[[[1.0]], [[-0.5]]], [[[0.25]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %y = graph.fused_conv %x, %w {activation = "relu", dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x2xf32>
  return %y : tensor<1x2x3x2xf32>
}
