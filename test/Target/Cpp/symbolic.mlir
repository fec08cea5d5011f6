// RUN: %shardc-opt %s --kern-plan-weights --kern-plan-memory \
// RUN:   | %shardc-translate --kern-to-cpp --weights-file=%t.weights -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: c++ -std=c++17 -fsyntax-only -I%src/runtime/include -x c++ %t.cpp
// The C++ of a program over dynamic dims (kern.dims, kern.sym): the run
// function reads this run's sizes from ctx->dims; kernels take the symbols
// they use and loop over them (dims merge where the strides agree for
// every value: [s0, s1, 16] is s0*s1 rows); descriptors of symbolic buffers
// and attention's dims and layouts are the run's locals; the GEMM keeps a
// oneDNN primitive per shape (created at the bounds in init).

// CHECK: static const sc_desc [[BOUND:d[0-9]+]] = {1, 3, {4, 8, 16}};
// CHECK: // kern.map over [s0, s1, 16]
// CHECK-NEXT: static void [[ADD:k[0-9]+]](const float *__restrict in0, const float *__restrict in1, float *__restrict out0, int64_t s0, int64_t s1) {
// CHECK-NEXT:   for (int64_t i0 = 0; i0 < s0*s1; ++i0) {
// CHECK: // kern.reduce mean over [s0, s1, 16]
// CHECK-NEXT: static void [[MEAN:k[0-9]+]](const float *__restrict in0, float *__restrict out0, int64_t s0, int64_t s1) {
// CHECK: const float x0 = in0[0 + i0*s1*16 + i1 + i2*16];
// CHECK: out0[0 + i0*16 + i1] = acc / (float)(s1);
// CHECK: h[0] = sc_dnnl_matmul_dyn_create(&[[BOUND]], &{{d[0-9]+}}, 0, 0, &[[BOUND]], 0, 0, 1.0f, 0.0f, SC_EPILOGUE_NONE);
// CHECK: prog0_run(
// CHECK: const int64_t s0 = ctx->dims[0]; (void)s0;
// CHECK-NEXT: const int64_t s1 = ctx->dims[1]; (void)s1;
// CHECK-NEXT: const sc_desc [[RD:d[0-9]+]] = {1, 3, {s0, s1, 16}};
// CHECK-NEXT: sc_dnnl_matmul_dyn_run(h[0], &[[RD]], &{{d[0-9]+}}, 0, 0, &[[RD]], ((const float *)in[0]), ((const float *)in[1]), 0, 0,
// CHECK-NEXT: [[ADD]]({{.*}}, s0, s1);
// CHECK: const int64_t [[DIMS:da[0-9]+]][] = {s0, s1, s1, 16, 16};
// CHECK-NEXT: const int64_t [[Q:da[0-9]+]][] = {0, s1*16, 16, 1};
// CHECK: sc_attention(1, 1, [[DIMS]], {{.*}}, [[Q]],
// CHECK: sc_softmax(&[[RD]],
// CHECK-NEXT: [[MEAN]]({{.*}}, s0, s1);
module {
  func.func @main(%arg0: memref<4x8x16xf32> {kern.input = "x", kern.sym = affine_map<()[s0, s1] -> (s0, s1, 16)>}, %arg1: memref<16x16xf32> {kern.input = "input1"}, %arg2: memref<16xf32> {kern.input = "input2"}, %arg3: memref<4x8x16xf32> {kern.output = "y", kern.sym = affine_map<()[s0, s1] -> (s0, s1, 16)>}, %arg4: memref<4x16xf32> {kern.output = "m", kern.sym = affine_map<()[s0] -> (s0, 16)>}) attributes {kern.dims = [{max = 4 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
    %0 = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s0, s1, 16)>}} : memref<4x8x16xf32>
    %1 = kern.view %arg1 : memref<16x16xf32> to memref<1x16x16xf32>
    kern.matmul %arg0, %1 into %0 : memref<4x8x16xf32>, memref<1x16x16xf32> into memref<4x8x16xf32>
    %2 = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s0, s1, 16)>}} : memref<4x8x16xf32>
    kern.map ins(%0, %arg2 : memref<4x8x16xf32>, memref<16xf32>) outs(%2 : memref<4x8x16xf32>) attributes {kern.sym = {layouts = [affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>, affine_map<() -> (0, 0, 0, 1)>, affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>], shape = affine_map<()[s0, s1] -> (s0, s1, 16)>}, layouts = [array<i64: 0, 128, 16, 1>, array<i64: 0, 0, 0, 1>, array<i64: 0, 128, 16, 1>], shape = array<i64: 4, 8, 16>} {
    ^bb0(%arg5: f32, %arg6: f32):
      %4 = arith.addf %arg5, %arg6 : f32
      kern.yield %4 : f32
    }
    %3 = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s0, s1, 16)>}} : memref<4x8x16xf32>
    kern.attention %2, %2, %2 into %3 {causal, dims = array<i64: 4, 8, 8, 16, 16>, k_layout = array<i64: 0, 128, 16, 1>, kern.sym = {dims = affine_map<()[s0, s1] -> (s0, s1, s1, 16, 16)>, k_layout = affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>, q_layout = affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>, v_layout = affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>, y_layout = affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>}, q_layout = array<i64: 0, 128, 16, 1>, scale = 2.500000e-01 : f32, v_layout = array<i64: 0, 128, 16, 1>, y_layout = array<i64: 0, 128, 16, 1>} : memref<4x8x16xf32>, memref<4x8x16xf32>, memref<4x8x16xf32> into memref<4x8x16xf32>
    kern.softmax %3 into %arg3 {axis = 2 : i64} : memref<4x8x16xf32> into memref<4x8x16xf32>
    kern.reduce "mean" ins(%arg3 : memref<4x8x16xf32>) outs(%arg4 : memref<4x16xf32>) attributes {kern.sym = {layouts = [affine_map<()[s0, s1] -> (0, s1 * 16, 16, 1)>, affine_map<() -> (0, 16, 0, 1)>], shape = affine_map<()[s0, s1] -> (s0, s1, 16)>}, layouts = [array<i64: 0, 128, 16, 1>, array<i64: 0, 16, 0, 1>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 8, 16>} {
    ^bb0(%arg5: f32):
      kern.yield %arg5 : f32
    }
    return
  }
}
