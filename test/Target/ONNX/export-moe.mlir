// RUN: %shardc-translate --graph-to-onnx %s -o %t.onnx
// RUN: %python %src/scripts/onnx-run.py %t.onnx --dump | FileCheck %s
//
// graph.moe has no standard ONNX op: every expert runs on every token and
// a dense routing matrix weighs them. On random inputs (ids in [0, 4),
// repeats within a token included) ONNX Runtime's run of the export gives
// shardc's routed kernels' result.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %python %S/Inputs/random_inputs.py %t.onnx %t.d/in > %t.d/flags
// RUN: %shardc %s -o %t.d/exe
// RUN: sh -c '%t.d/exe $(cat %t.d/flags) --output %t.d/shardc'
// RUN: sh -c '%python %src/scripts/onnx-run.py %t.onnx $(cat %t.d/flags) --output %t.d/ort'
// RUN: %python %S/../../Integration/Inputs/compare_dirs.py %t.d/ort %t.d/shardc --rtol 1e-5 | FileCheck --check-prefix=SAME %s
// SAME: 1 outputs equal

// CHECK: [[GU:[^ ]+]] = MatMul(x, gate_up)
// CHECK: [[GB:[^ ]+]] = Add([[GU]], {{[^ ]+}})
// CHECK: [[G:[^ ]+]], [[U:[^ ]+]] = Split([[GB]], {{[^ ]+}}) {axis=2}
// CHECK: = MatMul({{[^ ]+}}, down)
// CHECK: = ConstantOfShape({{[^ ]+}}) {value=float[1] [0.0]}
// CHECK: = ScatterElements({{[^ ]+}}, ids, weights) {axis=1, reduction=add}
// CHECK: = Transpose({{[^ ]+}}) {perm=[1, 0]}
// CHECK: y = ReduceSum({{[^ ]+}}, {{[^ ]+}}) {keepdims=0}

func.func @main(%x: tensor<16x32xf32> {graph.name = "x"},
                %w: tensor<16x2xf32> {graph.name = "weights"},
                %ids: tensor<16x2xi64> {graph.name = "ids"},
                %gu: tensor<4x32x96xf32> {graph.name = "gate_up"},
                %d: tensor<4x48x32xf32> {graph.name = "down"},
                %gub: tensor<4x96xf32> {graph.name = "gate_up_bias"},
                %db: tensor<4x32xf32> {graph.name = "down_bias"})
    -> (tensor<16x32xf32> {graph.name = "y"}) {
  %y = graph.moe %x, %w, %ids, %gu, %d biases %gub, %db : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32>, tensor<4x96xf32>, tensor<4x32xf32> -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
