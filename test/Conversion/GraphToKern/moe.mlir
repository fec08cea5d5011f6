// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern=half-gemm | FileCheck %s --check-prefix=HALF
// graph.moe runs sparsely: T * K = 8 rows (4 tokens, 2 choices) are routed
// and permuted by expert, then one grouped GEMM per projection (gate and
// up side by side in one), SwiGLU over the two halves of each row, and the
// weighted combine back to the tokens. No buffer has an expert dimension
// (3 experts): nothing runs for the experts a token did not choose.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<4x8xf32> {{.*}}, %[[W:arg[0-9]+]]: memref<4x2xf32> {{.*}}, %[[IDS:arg[0-9]+]]: memref<4x2xi64> {{.*}}, %[[GU:arg[0-9]+]]: memref<3x8x6xf32> {{.*}}, %[[D:arg[0-9]+]]: memref<3x3x8xf32> {{.*}}, %[[Y:arg[0-9]+]]: memref<4x8xf32>
// CHECK:      %[[OFF:.*]] = kern.alloc : memref<4xi32>
// CHECK-NEXT: %[[SLOTS:.*]] = kern.alloc : memref<8xi32>
// CHECK-NEXT: kern.moe_route %[[IDS]] into %[[OFF]], %[[SLOTS]] {num_experts = 3 : i64}
// CHECK-NEXT: %[[ROWS:.*]] = kern.alloc : memref<8x8xf32>
// CHECK-NEXT: kern.moe_permute %[[X]], %[[SLOTS]] into %[[ROWS]]
// CHECK-NEXT: %[[H:.*]] = kern.alloc : memref<8x6xf32>
// CHECK-NEXT: kern.grouped_matmul %[[ROWS]], %[[GU]], %[[OFF]] into %[[H]] : memref<8x8xf32>, memref<3x8x6xf32>, memref<4xi32> into memref<8x6xf32>
// CHECK-NEXT: %[[A:.*]] = kern.alloc : memref<8x3xf32>
// CHECK-NEXT: kern.map ins(%[[H]], %[[H]] : memref<8x6xf32>, memref<8x6xf32>) outs(%[[A]] : memref<8x3xf32>) attributes {layouts = [array<i64: 0, 6, 1>, array<i64: 3, 6, 1>, array<i64: 0, 3, 1>], shape = array<i64: 8, 3>}
// CHECK-NEXT: ^bb0(%[[G:.*]]: f32, %[[U:.*]]: f32):
// CHECK:      math.exp
// CHECK:      %[[SILU:.*]] = arith.mulf %[[G]], %{{.*}} : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[SILU]], %[[U]] : f32
// CHECK-NEXT: kern.yield %[[P]]
// CHECK:      %[[OUT:.*]] = kern.alloc : memref<8x8xf32>
// CHECK-NEXT: kern.grouped_matmul %[[A]], %[[D]], %[[OFF]] into %[[OUT]] : memref<8x3xf32>, memref<3x3x8xf32>, memref<4xi32> into memref<8x8xf32>
// CHECK-NEXT: kern.moe_combine %[[OUT]], %[[W]], %[[SLOTS]] into %[[Y]]
// CHECK-NEXT: return
func.func @main(%x: tensor<4x8xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<3x8x6xf32>, %d: tensor<3x3x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<3x8x6xf32>, tensor<3x3x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// fp16 experts on the CPU (no native half GEMMs): run in fp32 copies, the
// result converted back, as kern.matmul's operands are widened.
// CHECK-LABEL: func.func @half
// CHECK: kern.map ins(%{{.*}} : memref<3x8x6xf16>) outs(%[[GU32:.*]] : memref<3x8x6xf32>)
// CHECK: kern.grouped_matmul %{{.*}}, %[[GU32]], %{{.*}} into %{{.*}} : memref<8x8xf32>, memref<3x8x6xf32>
// CHECK: kern.moe_combine %{{.*}} into %[[Y32:.*]] : memref<8x8xf32>, memref<4x2xf32>, memref<8xi32> into memref<4x8xf32>
// CHECK: kern.map ins(%[[Y32]] : memref<4x8xf32>) outs(%{{.*}} : memref<4x8xf16>)
// CHECK: arith.truncf {{.*}} : f32 to f16
// With native half GEMMs (CUDA) they run on the fp16 buffers, the SwiGLU
// in f32 between them.
// HALF-LABEL: func.func @half
// HALF: kern.grouped_matmul {{.*}} into memref<8x6xf16>
// HALF: kern.map
// HALF: arith.extf {{.*}} : f16 to f32
// HALF: arith.truncf {{.*}} : f32 to f16
// HALF: kern.grouped_matmul {{.*}} into memref<8x8xf16>
// HALF: kern.moe_combine {{.*}} : memref<8x8xf16>, memref<4x2xf16>, memref<8xi32> into memref<4x8xf16>
func.func @half(%x: tensor<4x8xf16>, %w: tensor<4x2xf16>, %ids: tensor<4x2xi32>, %gu: tensor<3x8x6xf16>, %d: tensor<3x3x8xf16>) -> tensor<4x8xf16> {
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<4x8xf16>, tensor<4x2xf16>, tensor<4x2xi32>, tensor<3x8x6xf16>, tensor<3x3x8xf16> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// dist.moe (expert parallelism, 2 of 6 experts on each of ep = 3 ranks,
// mesh axis 1): the route covers all 6 experts; the routed rows go to their
// experts' ranks (kern.moe_dispatch on axis 1), which can receive up to
// 3 ranks x 4 tokens x min(K = 2, 2 local experts) = 24 rows; the local
// experts' grouped GEMMs run on those with the arrival offsets, and
// kern.moe_return brings the results back before the combine.
// CHECK-LABEL: func.func @expert_parallel
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<4x8xf32> {{.*}}, %[[W:arg[0-9]+]]: memref<4x2xf32> {{.*}}, %[[IDS:arg[0-9]+]]: memref<4x2xi64> {{.*}}, %[[GU:arg[0-9]+]]: memref<2x8x6xf32> {{.*}}, %[[D:arg[0-9]+]]: memref<2x3x8xf32> {{.*}}, %[[Y:arg[0-9]+]]: memref<4x8xf32>
// CHECK:      %[[OFF:.*]] = kern.alloc : memref<7xi32>
// CHECK-NEXT: %[[SLOTS:.*]] = kern.alloc : memref<8xi32>
// CHECK-NEXT: kern.moe_route %[[IDS]] into %[[OFF]], %[[SLOTS]] {num_experts = 6 : i64}
// CHECK-NEXT: %[[ROWS:.*]] = kern.alloc : memref<8x8xf32>
// CHECK-NEXT: kern.moe_permute %[[X]], %[[SLOTS]] into %[[ROWS]]
// CHECK-NEXT: %[[RECV:.*]] = kern.alloc : memref<24x8xf32>
// CHECK-NEXT: %[[ROFF:.*]] = kern.alloc : memref<3xi32>
// CHECK-NEXT: %[[COUNTS:.*]] = kern.alloc : memref<6xi32>
// CHECK-NEXT: kern.moe_dispatch %[[ROWS]], %[[OFF]] into %[[RECV]], %[[ROFF]], %[[COUNTS]] {axis = 1 : i64, group_size = 3 : i64}
// CHECK-NEXT: %[[H:.*]] = kern.alloc : memref<24x6xf32>
// CHECK-NEXT: kern.grouped_matmul %[[RECV]], %[[GU]], %[[ROFF]] into %[[H]] : memref<24x8xf32>, memref<2x8x6xf32>, memref<3xi32> into memref<24x6xf32>
// CHECK:      %[[OUT:.*]] = kern.alloc : memref<24x8xf32>
// CHECK-NEXT: kern.grouped_matmul %{{.*}}, %[[D]], %[[ROFF]] into %[[OUT]] : memref<24x3xf32>, memref<2x3x8xf32>, memref<3xi32> into memref<24x8xf32>
// CHECK-NEXT: %[[BACK:.*]] = kern.alloc : memref<8x8xf32>
// CHECK-NEXT: kern.moe_return %[[OUT]], %[[COUNTS]], %[[OFF]] into %[[BACK]] {axis = 1 : i64, group_size = 3 : i64}
// CHECK-NEXT: kern.moe_combine %[[BACK]], %[[W]], %[[SLOTS]] into %[[Y]]
// CHECK-NEXT: return
dist.mesh @mesh axes = ["dp", "ep"] shape = [2, 3]
func.func @expert_parallel(%x: tensor<4x8xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x8x6xf32>, %d: tensor<2x3x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.moe %x, %w, %ids, %gu, %d on @mesh axes = ["ep"] : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x8x6xf32>, tensor<2x3x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// dist.moe with a placement (expert load balancing): 3 experts in 4 slots
// over ep = 2, expert 0 in slots 0 and 3. Each choice's expert becomes a
// slot first (kern.moe_place: the copies' slots per expert, -1 padded);
// the route sorts by the 4 slots.
// CHECK-LABEL: func.func @placed
// CHECK:      %[[P:.*]] = kern.alloc : memref<4x2xi32>
// CHECK-NEXT: kern.moe_place %{{.*}} into %[[P]] {copies = array<i64: 2, 1, 1>, max_copies = 2 : i64, table = array<i64: 0, 3, 1, -1, 2, -1>}
// CHECK:      kern.moe_route %[[P]] into %{{.*}}, %{{.*}} {num_experts = 4 : i64} : memref<4x2xi32> into memref<5xi32>, memref<8xi32>
// CHECK:      kern.moe_dispatch
dist.mesh @mesh axes = ["ep"] shape = [2]
func.func @placed(%x: tensor<4x8xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x8x6xf32>, %d: tensor<2x3x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.moe %x, %w, %ids, %gu, %d on @mesh axes = ["ep"] placement = [0, 1, 2, 0] : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x8x6xf32>, tensor<2x3x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// nn.Linear experts: each grouped GEMM is followed by its experts' biases,
// added by the same row offsets.
// CHECK-LABEL: func.func @biases
// CHECK:      kern.grouped_matmul %{{.*}}, %{{.*}}, %[[OFF:.*]] into %[[H:.*]] : memref<8x8xf32>, memref<3x8x6xf32>, memref<4xi32> into memref<8x6xf32>
// CHECK-NEXT: kern.grouped_bias %{{.*}}, %[[OFF]] into %[[H]] : memref<3x6xf32>, memref<4xi32> into memref<8x6xf32>
// CHECK:      kern.grouped_matmul %{{.*}}, %{{.*}}, %[[OFF]] into %[[OUT:.*]] : memref<8x3xf32>, memref<3x3x8xf32>, memref<4xi32> into memref<8x8xf32>
// CHECK-NEXT: kern.grouped_bias %{{.*}}, %[[OFF]] into %[[OUT]] : memref<3x8xf32>, memref<4xi32> into memref<8x8xf32>
// CHECK-NEXT: kern.moe_combine %[[OUT]]
func.func @biases(%x: tensor<4x8xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<3x8x6xf32>, %d: tensor<3x3x8xf32>, %gub: tensor<3x6xf32>, %db: tensor<3x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.moe %x, %w, %ids, %gu, %d biases %gub, %db : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<3x8x6xf32>, tensor<3x3x8xf32>, tensor<3x6xf32>, tensor<3x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
