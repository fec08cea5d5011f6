// RUN: %shardc-translate --graph-to-onnx %s -o %t.onnx
// RUN: %python %src/scripts/onnx-run.py %t.onnx --dump | FileCheck %s
//
// The fused and quantized ops become standard ONNX (opset 17): the export
// runs on ONNX Runtime and gives what shardc's own program of the same IR
// gives, on random inputs.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %python %S/Inputs/random_inputs.py %t.onnx %t.d/in > %t.d/flags
// RUN: %shardc %s -o %t.d/exe
// RUN: sh -c '%t.d/exe $(cat %t.d/flags) --output %t.d/shardc'
// RUN: sh -c '%python %src/scripts/onnx-run.py %t.onnx $(cat %t.d/flags) --output %t.d/ort'
// RUN: %python %S/../../Integration/Inputs/compare_dirs.py %t.d/ort %t.d/shardc --rtol 1e-5 | FileCheck --check-prefix=SAME %s
// SAME: 10 outputs equal

// CHECK: opset 17
// CHECK: input x: float[2,8,16]
// CHECK: input q: int8[2,8,16]
// CHECK: input img: uint8[1,4,8,8]
// CHECK: initializer x_zero: uint8[]

// graph.linear: the product, then its epilogue (bias, the tanh GELU).
// CHECK: [[P:[^ ]+]] = MatMul(x, w)
// CHECK: [[B:[^ ]+]] = Add([[P]], b)
// CHECK: = Tanh(
// CHECK: lin = Mul(
// A residual comes last.
// CHECK: [[P2:[^ ]+]] = MatMul(x, w2)
// CHECK: res = Add([[P2]], x)

// graph.split, graph.swiglu: silu(gate) * up.
// CHECK: [[G:[^ ]+]], [[U:[^ ]+]] = Split(lin, {{[^ ]+}}) {axis=2}
// CHECK: [[S:[^ ]+]] = Sigmoid([[G]])
// CHECK: [[SILU:[^ ]+]] = Mul([[G]], [[S]])
// CHECK: glu = Mul([[SILU]], [[U]])

// graph.attention: scaled scores, the mask, the causal triangle (Trilu
// with k = T - S), softmax, the product with v.
// CHECK: = Transpose({{[^ ]+}}) {perm=[0, 1, 3, 2]}
// CHECK: = MatMul({{[^ ]+}}, {{[^ ]+}})
// CHECK: = Add({{[^ ]+}}, mask)
// CHECK: = ConstantOfShape({{[^ ]+}}) {value=float[1] [1.0]}
// CHECK: = Trilu({{[^ ]+}}, {{[^ ]+}}) {upper=0}
// CHECK: = Where(
// CHECK: = Softmax({{[^ ]+}}) {axis=-1}
// CHECK: att = MatMul({{[^ ]+}}, {{[^ ]+}})

// graph.rms_norm: mean of squares over the axes from `axis`.
// CHECK: = ReduceMean({{[^ ]+}}) {axes=[2], keepdims=1}
// CHECK: rms = Mul({{[^ ]+}}, g)

// graph.linear_int8 (dynamic): the int8 activation dequantized exactly,
// scaled per row, the weight per column.
// CHECK: [[QA:[^ ]+]] = DequantizeLinear(q, {{[^ ]+}}, {{[^ ]+}})
// CHECK: [[QR:[^ ]+]] = Mul([[QA]], rs)
// CHECK: [[QW:[^ ]+]] = DequantizeLinear(wq, ws, {{[^ ]+}}) {axis=1}
// CHECK: [[QP:[^ ]+]] = MatMul([[QR]], [[QW]])
// CHECK: qlin = Relu(

// graph.conv_int8: uint8 input with its zero point, the weight per output
// channel, the convolution's bias, residual, activation.
// CHECK: [[CX:[^ ]+]] = DequantizeLinear(img,
// CHECK: [[CW:[^ ]+]] = DequantizeLinear(wc, {{[^ ]+}}, {{[^ ]+}}) {axis=0}
// CHECK: [[CV:[^ ]+]] = Conv([[CX]], [[CW]], cb) {strides=[1, 1], dilations=[1, 1], pads=[1, 1, 1, 1], group=1, kernel_shape=[3, 3]}
// CHECK: [[CR:[^ ]+]] = Add([[CV]], cres)
// CHECK: conv = Relu([[CR]])

// graph.slice with a negative step through index 0: ONNX's end is INT64_MIN.
// CHECK: = Slice(x, {{.*}})
// CHECK: topv, topi = TopK(x, {{[^ ]+}}) {axis=2, largest=1, sorted=1}
// CHECK: output lin: float[2,8,32]

func.func @main(%x: tensor<2x8x16xf32> {graph.name = "x"},
                %w: tensor<16x32xf32> {graph.name = "w"},
                %b: tensor<32xf32> {graph.name = "b"},
                %w2: tensor<16x16xf32> {graph.name = "w2"},
                %mask: tensor<2x1x8x8xf32> {graph.name = "mask"},
                %g: tensor<16xf32> {graph.name = "g"},
                %q: tensor<2x8x16xi8> {graph.name = "q"},
                %wq: tensor<16x4xi8> {graph.name = "wq"},
                %rs: tensor<2x8x1xf32> {graph.name = "rs"},
                %ws: tensor<4xf32> {graph.name = "ws"},
                %img: tensor<1x4x8x8xui8> {graph.name = "img"},
                %wc: tensor<4x4x3x3xi8> {graph.name = "wc"},
                %cb: tensor<4xf32> {graph.name = "cb"},
                %cres: tensor<1x4x8x8xf32> {graph.name = "cres"})
    -> (tensor<2x8x32xf32> {graph.name = "lin"},
        tensor<2x8x16xf32> {graph.name = "res"},
        tensor<2x8x16xf32> {graph.name = "glu"},
        tensor<2x2x8x8xf32> {graph.name = "att"},
        tensor<2x8x16xf32> {graph.name = "rms"},
        tensor<2x8x4xf32> {graph.name = "qlin"},
        tensor<1x4x8x8xf32> {graph.name = "conv"},
        tensor<2x8x16xf32> {graph.name = "rev"},
        tensor<2x8x3xf32> {graph.name = "topv"},
        tensor<2x8x3xi64> {graph.name = "topi"}) {
  %lin = graph.linear %x, %w bias %b : tensor<32xf32> {activation = "gelu_tanh"} : tensor<2x8x16xf32>, tensor<16x32xf32> -> tensor<2x8x32xf32>
  %res = graph.linear %x, %w2 residual %x : tensor<2x8x16xf32> : tensor<2x8x16xf32>, tensor<16x16xf32> -> tensor<2x8x16xf32>
  %parts:2 = graph.split %lin {axis = 2 : i64, sizes = array<i64: 16, 16>} : tensor<2x8x32xf32> -> tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %glu = graph.swiglu %parts#0, %parts#1 : tensor<2x8x16xf32>
  %r = graph.reshape %x {shape = array<i64: 2, 8, 2, 8>} : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
  %heads = graph.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x8xf32> -> tensor<2x2x8x8xf32>
  %att = graph.attention %heads, %heads, %heads mask %mask {scale = 0.35 : f32, causal = true} : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x1x8x8xf32> -> tensor<2x2x8x8xf32>
  %rms = graph.rms_norm %x, %g {axis = 2 : i64} : tensor<2x8x16xf32>, tensor<16xf32>
  %qlin = graph.linear_int8 %q, %wq scales %ws rows %rs : tensor<2x8x1xf32> {activation = "relu"} : tensor<2x8x16xi8>, tensor<16x4xi8>, tensor<4xf32> -> tensor<2x8x4xf32>
  %conv = graph.conv_int8 %img, %wc bias %cb : tensor<4xf32> residual %cres : tensor<1x4x8x8xf32> {activation = "relu", dilations = array<i64: 1, 1>, input_zero_point = 128 : i64, pads = array<i64: 1, 1, 1, 1>, scales = array<f32: 0.01, 0.02, 0.03, 0.04>, strides = array<i64: 1, 1>} : tensor<1x4x8x8xui8>, tensor<4x4x3x3xi8> -> tensor<1x4x8x8xf32>
  %rev = graph.slice %x {starts = array<i64: 0, 7, 0>, ends = array<i64: 2, -1, 16>, steps = array<i64: 1, -1, 1>} : tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  %top:2 = graph.topk %x {k = 3 : i64, axis = 2 : i64} : tensor<2x8x16xf32> -> tensor<2x8x3xf32>, tensor<2x8x3xi64>
  return %lin, %res, %glu, %att, %rms, %qlin, %conv, %rev, %top#0, %top#1 : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x2x8x8xf32>, tensor<2x8x16xf32>, tensor<2x8x4xf32>, tensor<1x4x8x8xf32>, tensor<2x8x16xf32>, tensor<2x8x3xf32>, tensor<2x8x3xi64>
}
