// RUN: %shardc-opt %s --split-input-file --graph-convert-precision=to=f16 | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --graph-convert-precision=to=bf16 | FileCheck %s --check-prefix=BF16
// RUN: not %shardc-opt %s --split-input-file --graph-convert-precision=to=f8 2>&1 | FileCheck %s --check-prefix=BAD

// Inside the function every fp32 tensor is fp16: constants are converted
// (1.0e-4 rounds to the nearest fp16, 1.00017e-4), matmul and elementwise
// results narrow, and layer_norm keeps its fp32 statistics as its type
// inference says. The signature stays fp32: a cast after the input, one
// before the result. Integer tensors are untouched.
// CHECK-LABEL: func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2x1xf32>)
// CHECK-NEXT: %[[X:.*]] = graph.cast %arg0 {to = f16} : tensor<2x4xf32> -> tensor<2x4xf16>
// CHECK-DAG:  %[[W:.*]] = graph.constant dense<1.000170e-04> : tensor<4x4xf16>
// CHECK-DAG:  %[[S:.*]] = graph.constant dense<1.000000e+00> : tensor<4xf16>
// CHECK:      %[[M:.*]] = graph.matmul %[[X]], %[[W]] : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf16>
// CHECK:      %[[Y:.*]], %[[MEAN:.*]], %{{.*}} = graph.layer_norm %[[M]], %[[S]], %[[S]] {axis = 1 : i64} : tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16> -> tensor<2x4xf16>, tensor<2x1xf32>, tensor<2x1xf32>
// CHECK:      %[[R:.*]] = graph.relu %[[Y]] : tensor<2x4xf16>
// CHECK:      %[[C:.*]] = graph.cast %arg1 {to = f16} : tensor<2xi64> -> tensor<2xf16>
// CHECK:      %[[OUT:.*]] = graph.cast %[[R]] {to = f32} : tensor<2x4xf16> -> tensor<2x4xf32>
// CHECK:      return %[[OUT]], %[[MEAN]] : tensor<2x4xf32>, tensor<2x1xf32>
// BF16-LABEL: func.func @main
// BF16: graph.constant dense<1.001360e-04> : tensor<4x4xbf16>
// BF16: graph.matmul {{.*}} -> tensor<2x4xbf16>
// BAD: 'to' must be f16 or bf16, not 'f8'
func.func @main(%x: tensor<2x4xf32>, %i: tensor<2xi64>) -> (tensor<2x4xf32>, tensor<2x1xf32>) {
  %w = graph.constant dense<1.0e-4> : tensor<4x4xf32>
  %s = graph.constant dense<1.0> : tensor<4xf32>
  %m = graph.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %y, %mean, %inv = graph.layer_norm %m, %s, %s {axis = 1 : i64} : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  %r = graph.relu %y : tensor<2x4xf32>
  %c = graph.cast %i {to = f32} : tensor<2xi64> -> tensor<2xf32>
  return %r, %mean : tensor<2x4xf32>, tensor<2x1xf32>
}

// -----

// A decoder's KV cache stays fp32 up to the next product by a weight: the
// past input (its append along a dynamic dim that may be empty, returned)
// gets no cast, the appended keys are widened, what reads the cache (a
// relu) stays fp32, and the product by a weight (one computed from
// constants alone: here behind a transpose) reads it narrowed; the present
// is returned as it is. s0 sequence, s1 past.
#x = affine_map<()[s0] -> (s0, 64)>
#past = affine_map<()[s0, s1] -> (s1, 64)>
#all = affine_map<()[s0, s1] -> (s1 + s0, 64)>
// CHECK-LABEL: func.func @cache
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32, #{{.*}}>, %[[PAST:.*]]: tensor<16x64xf32, #{{.*}}>)
// CHECK-NOT: graph.cast %[[PAST]]
// CHECK: %[[XN:.*]] = graph.cast %[[X]] {to = f16}
// CHECK: %[[NEW:.*]] = graph.matmul %[[XN]], %{{.*}} : tensor<8x64xf16, #{{.*}}>, tensor<64x64xf16> -> tensor<8x64xf16
// CHECK: %[[NEWF:.*]] = graph.cast %[[NEW]] {to = f32} : tensor<8x64xf16, #{{.*}}> -> tensor<8x64xf32
// CHECK: %[[P:.*]] = graph.concat %[[PAST]], %[[NEWF]] {axis = 0 : i64} : tensor<16x64xf32, #{{.*}}>, tensor<8x64xf32, #{{.*}}> -> tensor<24x64xf32
// CHECK: %[[R:.*]] = graph.relu %[[P]] : tensor<24x64xf32
// CHECK: %[[WT:.*]] = graph.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<64x64xf16> -> tensor<64x64xf16>
// CHECK: %[[RN:.*]] = graph.cast %[[R]] {to = f16} : tensor<24x64xf32, #{{.*}}> -> tensor<24x64xf16
// CHECK: %[[O:.*]] = graph.matmul %[[RN]], %[[WT]] : tensor<24x64xf16, #{{.*}}>, tensor<64x64xf16> -> tensor<24x64xf16
// CHECK: %[[OF:.*]] = graph.cast %[[O]] {to = f32}
// CHECK: return %[[P]], %[[OF]]
func.func @cache(%x: tensor<8x64xf32, #x>, %past: tensor<16x64xf32, #past>) -> (tensor<24x64xf32, #all>, tensor<24x64xf32, #all>) attributes {graph.dims = [{name = "sequence", max = 8 : i64}, {name = "past", max = 16 : i64, min = 0 : i64}]} {
  %w1 = graph.constant dense<0.5> : tensor<64x64xf32>
  %w2 = graph.constant dense<0.25> : tensor<64x64xf32>
  %new = graph.matmul %x, %w1 : tensor<8x64xf32, #x>, tensor<64x64xf32> -> tensor<8x64xf32, #x>
  %p = graph.concat %past, %new {axis = 0 : i64} : tensor<16x64xf32, #past>, tensor<8x64xf32, #x> -> tensor<24x64xf32, #all>
  %r = graph.relu %p : tensor<24x64xf32, #all>
  %wt = graph.transpose %w2 {perm = array<i64: 1, 0>} : tensor<64x64xf32> -> tensor<64x64xf32>
  %o = graph.matmul %r, %wt : tensor<24x64xf32, #all>, tensor<64x64xf32> -> tensor<24x64xf32, #all>
  return %p, %o : tensor<24x64xf32, #all>, tensor<24x64xf32, #all>
}

// -----

// Saturation: a finite fp32 value past the narrow type's range becomes its
// largest finite value (a mask's finfo(float32).min must stay a huge
// negative number: as -inf, 0 * it is NaN), as ONNX Runtime's float16
// converter clamps; infinities stay. Dense constants (APFloat) and
// dense_resource blobs (the vectorized converter, 8 elements: one F16C
// vector) alike.
// CHECK-LABEL: func.func @saturate
// CHECK-DAG: graph.constant dense<[-6.550400e+04, 6.550400e+04, 0x7C00, 0xFC00]> : tensor<4xf16>
// CHECK-DAG: graph.constant dense_resource<sat.f16> : tensor<8xf16>
// CHECK: sat.f16: "0x02000000FFFBFF7BFF7B007C00FC003CFFFBFF7B"
// BF16-LABEL: func.func @saturate
// BF16-DAG: graph.constant dense<[-3.389530e+38, 9.984000e+04, 0x7F80, 0xFF80]> : tensor<4xbf16>
// BF16-DAG: graph.constant dense_resource<sat.bf16> : tensor<8xbf16>
// BF16: sat.bf16: "0x020000007FFFC3478947807F80FF803F80C78047"
func.func @saturate() -> (tensor<4xf32>, tensor<8xf32>) {
  %a = graph.constant dense<[-3.4028235e+38, 1.0e5, 0x7F800000, 0xFF800000]> : tensor<4xf32>
  %b = graph.constant dense_resource<sat> : tensor<8xf32>
  return %a, %b : tensor<4xf32>, tensor<8xf32>
}

{-#
  dialect_resources: {
    builtin: {
      sat: "0x04000000FFFF7FFF0050C34700B888470000807F000080FF0000803F00F07FC700EF7F47"
    }
  }
#-}
