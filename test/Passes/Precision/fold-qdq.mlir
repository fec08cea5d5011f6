// RUN: %shardc-opt %s --split-input-file --graph-fold-qdq | FileCheck %s
// graph-fold-qdq: an imported Q/DQ linear layer runs on the int8 kernels.
// The activation is uint8 per tensor (scale 0.5, zero point 10), the
// weight int8 per column (scales 0.25 and 2): the column scales become
// 0.5 * 0.25 = 0.125 and 0.5 * 2 = 1, and the zero point's term folds into
// the bias: b[n] - 0.5 * sw[n] * 10 * sum_k Wq[k, n], with the column sums
// 1 + 3 = 4 and 2 - 4 = -2: 1 - 0.125 * 40 = -4 and -1 - 1 * 10 * -2 = 19.
// CHECK-LABEL: func.func @linear
// CHECK-DAG:   %[[S:.*]] = graph.constant dense<[1.250000e-01, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG:   %[[B:.*]] = graph.constant dense<[-4.000000e+00, 1.900000e+01]> : tensor<2xf32>
// CHECK:       %[[Y:.*]] = graph.linear_int8 %arg0, %{{.*}} scales %[[S]] bias %[[B]] : tensor<2xf32> {activation = "relu", graph.quant = {scheme = "imported QDQ"}} : tensor<4x2xui8>, tensor<2x2xi8>, tensor<2xf32> -> tensor<4x2xf32>
// CHECK-NOT:   graph.dequantize_linear
// CHECK:       return %[[Y]]
func.func @linear(%aq: tensor<4x2xui8>) -> tensor<4x2xf32> {
  %sa = graph.constant dense<0.5> : tensor<f32>
  %za = graph.constant dense<10> : tensor<ui8>
  %a = graph.dequantize_linear %aq, %sa, %za : tensor<4x2xui8>, tensor<f32>, tensor<ui8> -> tensor<4x2xf32>
  %wq = graph.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
  %sw = graph.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %zw = graph.constant dense<0> : tensor<2xi8>
  %w = graph.dequantize_linear %wq, %sw, %zw {axis = 1 : i64} : tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<2x2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %y = graph.linear %a, %w bias %b : tensor<2xf32> {activation = "relu"} : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// What stays: an asymmetric weight (its zero point is not 0), a weight
// scaled per row (axis 0), and an activation scaled per channel.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: graph.linear %
// CHECK-NOT:   graph.linear_int8
func.func @kept(%aq: tensor<4x2xi8>, %ac: tensor<4x2xi8>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %sa = graph.constant dense<0.5> : tensor<f32>
  %za = graph.constant dense<0> : tensor<i8>
  %a = graph.dequantize_linear %aq, %sa, %za : tensor<4x2xi8>, tensor<f32>, tensor<i8> -> tensor<4x2xf32>
  %wq = graph.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
  %sw = graph.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %z1 = graph.constant dense<[0, 1]> : tensor<2xi8>
  %w1 = graph.dequantize_linear %wq, %sw, %z1 {axis = 1 : i64} : tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<2x2xf32>
  %y1 = graph.linear %a, %w1 : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  %z0 = graph.constant dense<0> : tensor<2xi8>
  %w0 = graph.dequantize_linear %wq, %sw, %z0 {axis = 0 : i64} : tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<2x2xf32>
  %y2 = graph.linear %a, %w0 : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  %sc = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %zc = graph.constant dense<0> : tensor<2xi8>
  %c = graph.dequantize_linear %ac, %sc, %zc {axis = 1 : i64} : tensor<4x2xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<4x2xf32>
  %w2 = graph.dequantize_linear %wq, %sw, %z0 {axis = 1 : i64} : tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<2x2xf32>
  %y3 = graph.linear %c, %w2 : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  return %y1, %y2, %y3 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// The activation quantized at run time (ONNX Runtime's quantize_dynamic,
// after canonicalization: its scale and zero point are computed, not
// constants): the layer takes x quantized per token instead (max |x| of
// each row over 127), one quantization for the two layers that read x; the
// weight stays the model's int8, its scale per tensor becomes per column.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<4x2xf32>, %[[SA:.*]]: tensor<f32>, %[[ZA:.*]]: tensor<ui8>)
// CHECK:         %[[ABS:.*]] = graph.abs %[[X]]
// CHECK:         %[[PEAK:.*]] = graph.reduce_max %[[ABS]] {axes = array<i64: 1>} : tensor<4x2xf32> -> tensor<4x1xf32>
// CHECK:         %[[S:.*]] = graph.mul
// CHECK:         %[[XS:.*]] = graph.div %[[X]], %[[S]]
// CHECK:         %[[XQ:.*]] = graph.quantize_linear %[[XS]], {{.*}} -> tensor<4x2xi8>
// CHECK-DAG:     %[[C:.*]] = graph.constant dense<2.500000e-01> : tensor<2xf32>
// CHECK:         %[[Y1:.*]] = graph.linear_int8 %[[XQ]], %{{.*}} scales %[[C]] rows %[[S]] : tensor<4x1xf32> {graph.quant = {scheme = "imported dynamic"}}
// CHECK:         %[[Y2:.*]] = graph.linear_int8 %[[XQ]], %{{.*}} scales %{{.*}} rows %[[S]] : tensor<4x1xf32> {activation = "relu", graph.quant = {scheme = "imported dynamic"}}
// CHECK-NOT:     graph.dequantize_linear
// CHECK:         return %[[Y1]], %[[Y2]]
func.func @dynamic(%x: tensor<4x2xf32>, %sa: tensor<f32>, %za: tensor<ui8>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %aq = graph.quantize_linear %x, %sa, %za : tensor<4x2xf32>, tensor<f32>, tensor<ui8> -> tensor<4x2xui8>
  %a = graph.dequantize_linear %aq, %sa, %za : tensor<4x2xui8>, tensor<f32>, tensor<ui8> -> tensor<4x2xf32>
  %wq = graph.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
  %sw = graph.constant dense<0.25> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize_linear %wq, %sw, %zw : tensor<2x2xi8>, tensor<f32>, tensor<i8> -> tensor<2x2xf32>
  %y1 = graph.linear %a, %w : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  %wq2 = graph.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi8>
  %w2 = graph.dequantize_linear %wq2, %sw, %zw : tensor<2x2xi8>, tensor<f32>, tensor<i8> -> tensor<2x2xf32>
  %y2 = graph.linear %a, %w2 {activation = "relu"} : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  return %y1, %y2 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A quantize whose scale is not the dequantize's: not the dynamic form.
// CHECK-LABEL: func.func @other_scale
// CHECK-NOT:     graph.linear_int8
func.func @other_scale(%x: tensor<4x2xf32>, %sa: tensor<f32>, %sb: tensor<f32>, %za: tensor<ui8>) -> tensor<4x2xf32> {
  %aq = graph.quantize_linear %x, %sa, %za : tensor<4x2xf32>, tensor<f32>, tensor<ui8> -> tensor<4x2xui8>
  %a = graph.dequantize_linear %aq, %sb, %za : tensor<4x2xui8>, tensor<f32>, tensor<ui8> -> tensor<4x2xf32>
  %wq = graph.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
  %sw = graph.constant dense<0.25> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize_linear %wq, %sw, %zw : tensor<2x2xi8>, tensor<f32>, tensor<i8> -> tensor<2x2xf32>
  %y = graph.linear %a, %w : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// A product with no epilogue (a QLinearMatMul's QDQ form, requantized
// after it) folds as a linear layer does.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[Y:.*]] = graph.linear_int8 %arg0, %{{.*}} scales %{{.*}} : tensor<4x2xi8>, tensor<2x2xi8>, tensor<2xf32> -> tensor<4x2xf32>
// CHECK:         graph.quantize_linear %[[Y]]
func.func @matmul(%aq: tensor<4x2xi8>) -> tensor<4x2xui8> {
  %sa = graph.constant dense<0.5> : tensor<f32>
  %za = graph.constant dense<0> : tensor<i8>
  %a = graph.dequantize_linear %aq, %sa, %za : tensor<4x2xi8>, tensor<f32>, tensor<i8> -> tensor<4x2xf32>
  %wq = graph.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi8>
  %sw = graph.constant dense<0.25> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize_linear %wq, %sw, %zw : tensor<2x2xi8>, tensor<f32>, tensor<i8> -> tensor<2x2xf32>
  %p = graph.matmul %a, %w : tensor<4x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  %sy = graph.constant dense<2.0> : tensor<f32>
  %zy = graph.constant dense<7> : tensor<ui8>
  %y = graph.quantize_linear %p, %sy, %zy : tensor<4x2xf32>, tensor<f32>, tensor<ui8> -> tensor<4x2xui8>
  return %y : tensor<4x2xui8>
}

// -----

// A QDQ convolution (fused with its residual and relu) becomes
// graph.conv_int8 on the quantized operands: the scales are the
// activation's 0.5 times the weight's per output channel (0.25, 2), and
// the activation's zero point 10 goes to the convolution itself (the
// padding must read as real zero), so the bias stays as it is.
// CHECK-LABEL: func.func @conv
// CHECK:       %[[Y:.*]] = graph.conv_int8 %arg0, %{{.*}} bias %{{.*}} : tensor<2xf32> residual %arg1 : tensor<1x2x4x4xf32> {activation = "relu", dilations = array<i64: 1, 1>, graph.quant = {scheme = "imported QDQ"}, input_zero_point = 10 : i64, pads = array<i64: 1, 1, 1, 1>, scales = array<f32: 1.250000e-01, 1.000000e+00>, strides = array<i64: 1, 1>} : tensor<1x3x4x4xui8>, tensor<2x3x3x3xi8> -> tensor<1x2x4x4xf32>
// CHECK-NOT:   graph.dequantize_linear
// CHECK:       return %[[Y]]
func.func @conv(%xq: tensor<1x3x4x4xui8>, %r: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %sa = graph.constant dense<0.5> : tensor<f32>
  %za = graph.constant dense<10> : tensor<ui8>
  %x = graph.dequantize_linear %xq, %sa, %za : tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8> -> tensor<1x3x4x4xf32>
  %wq = graph.constant dense<3> : tensor<2x3x3x3xi8>
  %sw = graph.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %zw = graph.constant dense<0> : tensor<2xi8>
  %w = graph.dequantize_linear %wq, %sw, %zw {axis = 0 : i64} : tensor<2x3x3x3xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<2x3x3x3xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %y = graph.fused_conv %x, %w bias %b : tensor<2xf32> residual %r : tensor<1x2x4x4xf32> {activation = "relu", dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// A convolution of an activation quantized at run time (ConvInteger's QDQ
// form after DynamicQuantizeLinear): its scale and zero point stay
// operands, the scales are the weight's alone.
// CHECK-LABEL: func.func @conv_dynamic
// CHECK:       %[[Q:.*]] = graph.quantize_linear %arg0, %arg1, %arg2
// CHECK:       %[[Y:.*]] = graph.conv_int8 %[[Q]], %{{.*}} bias %{{.*}} : tensor<2xf32> dynamic %arg1, %arg2 : tensor<f32>, tensor<ui8> {activation = "relu", dilations = array<i64: 1, 1>, graph.quant = {scheme = "imported dynamic"}, pads = array<i64: 1, 1, 1, 1>, scales = array<f32: 2.500000e-01>, strides = array<i64: 1, 1>} : tensor<1x3x4x4xui8>, tensor<2x3x3x3xi8> -> tensor<1x2x4x4xf32>
// CHECK-NOT:   graph.dequantize_linear
// CHECK:       return %[[Y]]
func.func @conv_dynamic(%x: tensor<1x3x4x4xf32>, %sa: tensor<f32>, %za: tensor<ui8>) -> tensor<1x2x4x4xf32> {
  %xq = graph.quantize_linear %x, %sa, %za : tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8> -> tensor<1x3x4x4xui8>
  %xd = graph.dequantize_linear %xq, %sa, %za : tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8> -> tensor<1x3x4x4xf32>
  %wq = graph.constant dense<3> : tensor<2x3x3x3xi8>
  %sw = graph.constant dense<0.25> : tensor<f32>
  %zw = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize_linear %wq, %sw, %zw : tensor<2x3x3x3xi8>, tensor<f32>, tensor<i8> -> tensor<2x3x3x3xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %y = graph.fused_conv %xd, %w bias %b : tensor<2xf32> {activation = "relu", dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// What stays: a weight scaled along its input channels (axis 1), an
// asymmetric weight, and a zero activation scale (oneDNN needs positive
// ones).
// CHECK-LABEL: func.func @conv_kept
// CHECK-COUNT-3: graph.conv %
// CHECK-NOT:   graph.conv_int8
func.func @conv_kept(%xq: tensor<1x2x4x4xi8>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %sa = graph.constant dense<0.5> : tensor<f32>
  %s0 = graph.constant dense<0.0> : tensor<f32>
  %za = graph.constant dense<0> : tensor<i8>
  %x = graph.dequantize_linear %xq, %sa, %za : tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8> -> tensor<1x2x4x4xf32>
  %x0 = graph.dequantize_linear %xq, %s0, %za : tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8> -> tensor<1x2x4x4xf32>
  %wq = graph.constant dense<3> : tensor<2x2x3x3xi8>
  %sw = graph.constant dense<[0.25, 2.0]> : tensor<2xf32>
  %z0 = graph.constant dense<0> : tensor<2xi8>
  %z1 = graph.constant dense<[0, 1]> : tensor<2xi8>
  %w1 = graph.dequantize_linear %wq, %sw, %z0 {axis = 1 : i64} : tensor<2x2x3x3xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<2x2x3x3xf32>
  %y1 = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x2x2xf32>
  %w2 = graph.dequantize_linear %wq, %sw, %z1 {axis = 0 : i64} : tensor<2x2x3x3xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<2x2x3x3xf32>
  %y2 = graph.conv %x, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x2x2xf32>
  %w3 = graph.dequantize_linear %wq, %sw, %z0 {axis = 0 : i64} : tensor<2x2x3x3xi8>, tensor<2xf32>, tensor<2xi8> -> tensor<2x2x3x3xf32>
  %y3 = graph.conv %x0, %w3 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32> -> tensor<1x2x2x2xf32>
  return %y1, %y2, %y3 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// QLinearMatMul of two run-time operands (quantize_static's attention
// products), every parameter per tensor: the integers (scale 1) multiply on
// the f32 GEMM, then one multiplier (0.5 * 0.25 / 2) and a quantize of
// scale 1 to the output's zero point. With f16 scales (an f16 program's:
// f16 sums of integers would overflow) it stays.
// CHECK-LABEL: func @qlinear_run_time
// CHECK-SAME:    (%[[AQ:.*]]: tensor<2x4x3xui8>, %[[BQ:.*]]: tensor<2x3x5xui8>)
// CHECK-DAG:     %[[SA:.*]] = graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG:     %[[SB:.*]] = graph.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG:     %[[SY:.*]] = graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[ONE:.*]] = graph.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[A:.*]] = graph.dequantize_linear %[[AQ]], %[[ONE]], {{.*}} -> tensor<2x4x3xf32>
// CHECK:         %[[ONEB:.*]] = graph.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[B:.*]] = graph.dequantize_linear %[[BQ]], %[[ONEB]], {{.*}} -> tensor<2x3x5xf32>
// CHECK:         %[[P:.*]] = graph.matmul %[[A]], %[[B]] : tensor<2x4x3xf32>, tensor<2x3x5xf32> -> tensor<2x4x5xf32>
// CHECK:         %[[AB:.*]] = graph.mul %[[SA]], %[[SB]]
// CHECK:         %[[M:.*]] = graph.div %[[AB]], %[[SY]]
// CHECK:         %[[S:.*]] = graph.mul %[[P]], %[[M]]
// CHECK:         %[[ONEY:.*]] = graph.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[Y:.*]] = graph.quantize_linear %[[S]], %[[ONEY]], {{.*}} -> tensor<2x4x5xui8>
// CHECK-NOT:     graph.qlinear_matmul
// CHECK:         return %[[Y]]
func.func @qlinear_run_time(%aq: tensor<2x4x3xui8>, %bq: tensor<2x3x5xui8>) -> tensor<2x4x5xui8> {
  %sa = graph.constant dense<0.5> : tensor<f32>
  %za = graph.constant dense<3> : tensor<ui8>
  %sb = graph.constant dense<0.25> : tensor<f32>
  %zb = graph.constant dense<128> : tensor<ui8>
  %sy = graph.constant dense<2.0> : tensor<f32>
  %zy = graph.constant dense<7> : tensor<ui8>
  %y = graph.qlinear_matmul %aq, %sa, %za, %bq, %sb, %zb, %sy, %zy : (tensor<2x4x3xui8>, tensor<f32>, tensor<ui8>, tensor<2x3x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4x5xui8>
  return %y : tensor<2x4x5xui8>
}

// -----

// CHECK-LABEL: func @qlinear_run_time_f16
// CHECK:         graph.qlinear_matmul
// CHECK-NOT:     graph.matmul
func.func @qlinear_run_time_f16(%aq: tensor<2x4x3xui8>, %bq: tensor<2x3x5xui8>) -> tensor<2x4x5xui8> {
  %sa = graph.constant dense<0.5> : tensor<f16>
  %za = graph.constant dense<3> : tensor<ui8>
  %sb = graph.constant dense<0.25> : tensor<f16>
  %zb = graph.constant dense<128> : tensor<ui8>
  %sy = graph.constant dense<2.0> : tensor<f16>
  %zy = graph.constant dense<7> : tensor<ui8>
  %y = graph.qlinear_matmul %aq, %sa, %za, %bq, %sb, %zb, %sy, %zy : (tensor<2x4x3xui8>, tensor<f16>, tensor<ui8>, tensor<2x3x5xui8>, tensor<f16>, tensor<ui8>, tensor<f16>, tensor<ui8>) -> tensor<2x4x5xui8>
  return %y : tensor<2x4x5xui8>
}
