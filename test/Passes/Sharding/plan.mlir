// RUN: %shardc-opt %s --dist-plan="devices=2 cluster=cpu" | FileCheck %s
// RUN: echo '{"plan": {"tp": 2}}' > %t.tp2.json
// RUN: %shardc-opt %s --dist-plan="plan-file=%t.tp2.json" | FileCheck %s --check-prefix=FILE
// RUN: echo '{"plan": {"dp": 2, "pp": 2, "microbatches": 2}}' > %t.dp2pp2.json
// RUN: %shardc-opt %s --dist-plan="plan-file=%t.dp2pp2.json" | FileCheck %s --check-prefix=DPPP
// RUN: %shardc-opt %s --dist-plan="devices=1" | FileCheck %s --check-prefix=ONE
// RUN: not %shardc-opt %s --dist-plan="devices=2 cluster=tpu-v9" 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: not %shardc-opt %s --dist-plan="devices=2 objective=fast" 2>&1 | FileCheck %s --check-prefix=GOAL
// RUN: not %shardc-opt %s --dist-plan 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: echo '{"devices_per_node": 2, "nodes": 1, "memory_bytes": 1000, "memory_bandwidth": 1e10, "flops": {"fp32": 1e11}, "intra_node": {"bandwidth": 5e9, "latency": 1e-6}, "inter_node": {"bandwidth": 1e9, "latency": 3e-5}}' > %t.small.json
// RUN: not %shardc-opt %s --dist-plan="devices=2 cluster=%t.small.json" 2>&1 | FileCheck %s --check-prefix=FIT

// dist-plan writes the mesh and the seeds of the plan it chooses, and
// nothing else: propagation (dist.shardings) is the next pass's.
// CHECK:      dist.mesh @mesh
// CHECK-SAME: shape = [2]
// CHECK:      func.func @mlp
// CHECK:      dist.shard
// CHECK-NOT:  dist.shardings

// The plan file's plan as written: Megatron's column-parallel first
// projection.
// FILE:       dist.mesh @mesh axes = ["tp"] shape = [2]
// FILE:       dist.shard %{{.*}} : tensor<64x256xf32> to #dist.sharding<@mesh, {{\[\[\], \["tp"\]\]}}>
// FILE-NOT:   dist.shardings

// Micro-batches first (four rows each), then the pipeline's stages are
// cut and each stage's rows seeded over dp.
// DPPP:       module attributes {dist.microbatches = 2 : i64}
// DPPP:       dist.mesh @mesh axes = ["dp", "pp"] shape = [2, 2]
// DPPP:       func.func @mlp_stage0(%arg0: tensor<4x16x64xf32>
// DPPP:       dist.shard %arg0 : tensor<4x16x64xf32> to #dist.sharding<@mesh, {{\[\["dp"\], \[\], \[\]\]}}>
// DPPP:       dist.send
// DPPP:       func.func @mlp_stage1()
// DPPP-NOT:   dist.shardings

// One device: nothing to seed.
// ONE-NOT:    dist.mesh

// SPEC:  error: --cluster=tpu-v9: neither a preset
// GOAL:  error: dist-plan: objective=fast: expected latency or throughput
// NONE:  error: dist-plan: devices=0: expected at least 1 (or a plan-file)
// FIT:   error: --devices=2 on {{.*}}small.json: no plan runs ({{.*}}does not fit

func.func @mlp(%x: tensor<8x16x64xf32>) -> tensor<8x16x64xf32> {
  %g = graph.constant dense<1.0> : tensor<64xf32>
  %b = graph.constant dense<0.0> : tensor<64xf32>
  %n:3 = graph.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f32} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>, tensor<8x16x1xf32>, tensor<8x16x1xf32>
  %w1 = graph.constant dense<0.125> : tensor<64x256xf32>
  %h = graph.linear %n#0, %w1 {activation = "gelu"} : tensor<8x16x64xf32>, tensor<64x256xf32> -> tensor<8x16x256xf32>
  %w2 = graph.constant dense<0.0625> : tensor<256x64xf32>
  %y = graph.linear %h, %w2 residual %x : tensor<8x16x64xf32> : tensor<8x16x256xf32>, tensor<256x64xf32> -> tensor<8x16x64xf32>
  %n2:3 = graph.layer_norm %y, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f32} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<8x16x64xf32>, tensor<8x16x1xf32>, tensor<8x16x1xf32>
  %w3 = graph.constant dense<0.125> : tensor<64x256xf32>
  %h2 = graph.linear %n2#0, %w3 {activation = "gelu"} : tensor<8x16x64xf32>, tensor<64x256xf32> -> tensor<8x16x256xf32>
  %w4 = graph.constant dense<0.0625> : tensor<256x64xf32>
  %y2 = graph.linear %h2, %w4 residual %y : tensor<8x16x64xf32> : tensor<8x16x256xf32>, tensor<256x64xf32> -> tensor<8x16x64xf32>
  return %y2 : tensor<8x16x64xf32>
}
