// RUN: %shardc-opt %s --dist-seed-megatron=tp=2 --dist-propagate --dist-partition \
// RUN:   --convert-graph-to-kern --kern-merge-ranks --kern-plan-weights --kern-plan-memory \
// RUN:   | %shardc-translate --kern-to-cpp --weights-file=%t.weights -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// RUN: c++ -std=c++17 -fsyntax-only -I%src/runtime/include -x c++ %t.cpp
// Tensor parallelism with bounded dynamic dims through the C++ target: a
// vocab-parallel embedding and an LM head over [batch, seq] tokens, one
// program for both ranks (kern-merge-ranks). The collectives move the
// run's elements (the logits' all-gather puts rank r's block at r times
// them). The embedding's lookup differs per rank (a switch on the rank):
// the run-local descriptor of the ids it declares goes before the switch,
// where the next lookup, after the switch, uses it too (the source
// compiles).

// CHECK:      void shardc_gen_run0(
// CHECK:        const int64_t s0 = ctx->dims[0]; (void)s0;
// CHECK:        const int64_t s1 = ctx->dims[1]; (void)s1;
// CHECK-NEXT:   const sc_desc [[IDS:d[0-9]+]] = {7, 2, {s0, s1}};
// CHECK-NEXT:   switch (ctx->rank) {
// CHECK-NEXT:   case 0: {
// CHECK-NEXT:   sc_gather_part(&{{d[0-9]+}}, {{.*}}, &[[IDS]], {{.*}}, 0LL, 16LL, 0LL);
// CHECK:        case 1: {
// CHECK-NEXT:   sc_gather_part(&{{d[0-9]+}}, {{.*}}, &[[IDS]], {{.*}}, 0LL, 16LL, 8LL);
// CHECK:        sc_all_reduce(sc_ctx_comm(ctx, 0), {{.*}}, (unsigned long long)(s0*s1*4), 1, SC_REDUCE_SUM);
// CHECK-NEXT:   sc_gather(&{{d[0-9]+}}, {{.*}}, &[[IDS]], {{.*}}, 0LL);
// CHECK:        sc_dnnl_matmul_dyn_run(
// CHECK-NEXT:   sc_all_gather(sc_ctx_comm(ctx, 0), {{.*}}, (unsigned long long)(s0*s1*8), 1);
#bs = affine_map<()[s0, s1] -> (s0, s1)>
#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
#out = affine_map<()[s0, s1] -> (s0, s1, 16)>
func.func @main(%ids: tensor<2x8xi64, #bs> {graph.name = "ids"}) -> (tensor<2x8x16xf32, #out> {graph.name = "logits"}) attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  %table = graph.constant dense<0.5> : tensor<16x4xf32>
  %head = graph.constant dense<0.25> : tensor<4x16xf32>
  %types = graph.constant dense<0.125> : tensor<4x4xf32>
  %x = graph.gather %table, %ids {axis = 0 : i64} : tensor<16x4xf32>, tensor<2x8xi64, #bs> -> tensor<2x8x4xf32, #bsh>
  %t = graph.gather %types, %ids {axis = 0 : i64} : tensor<4x4xf32>, tensor<2x8xi64, #bs> -> tensor<2x8x4xf32, #bsh>
  %a = graph.add %x, %t : tensor<2x8x4xf32, #bsh>, tensor<2x8x4xf32, #bsh> -> tensor<2x8x4xf32, #bsh>
  %y = graph.matmul %a, %head : tensor<2x8x4xf32, #bsh>, tensor<4x16xf32> -> tensor<2x8x16xf32, #out>
  return %y : tensor<2x8x16xf32, #out>
}
