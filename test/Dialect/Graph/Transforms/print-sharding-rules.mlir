// RUN: %shardc-opt %s --split-input-file --graph-print-sharding-rules --verify-diagnostics -o /dev/null
// RUN: %shardc-opt %S/../ops.mlir --split-input-file --graph-print-sharding-rules -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVERY-OP
// Every op of the dialect test: rules that verify against their shapes.
// EVERY-OP-NOT: error
// EVERY-OP:     remark: sharding rule
// EVERY-OP-NOT: error
// The sharding rule of each op family, in Shardy's notation: factors i, j,
// ... per operand and result dim, their sizes, and which are reductions
// (with their combiner) or need replication.

// Elementwise: operands broadcast against the result; a size-1 dim facing
// a larger one has no factor.
func.func @elementwise(%x: tensor<2x3xf32>, %b: tensor<1x3xf32>, %c: tensor<i1>) -> tensor<2x3xf32> {
  // expected-remark @+1 {{sharding rule: ([i, j], [1, j]) -> ([i, j]) {i=2, j=3}}}
  %0 = graph.add %x, %b : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xf32>
  // expected-remark @+1 {{sharding rule: ([], [i, j], [i, j]) -> ([i, j]) {i=2, j=3}}}
  %1 = graph.where %c, %0, %x : tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A batched matmul: k is a sum reduction, the batch dim broadcasts.
func.func @matmul(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-remark @+1 {{sharding rule: ([i, j, l], [l, k]) -> ([i, j, k]) {i=2, j=4, k=16, l=8} reduction={l:sum}}}
  %0 = graph.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Gemm with transposed B and a bias: the bias is added after the sum, so k
// needs replication.
func.func @gemm(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %c: tensor<16xf32>) -> tensor<4x16xf32> {
  // expected-remark @+1 {{sharding rule: ([i, k], [j, k], [j]) -> ([i, j]) {i=4, j=16, k=8} need_replication={k}}}
  %0 = graph.gemm %a, %b, %c {trans_b = true} : tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Einsum: a factor per letter; letters missing from the output are sums.
func.func @einsum(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-remark @+1 {{sharding rule: ([i, j, l], [l, k]) -> ([i, j, k]) {i=2, j=4, k=16, l=8} reduction={l:sum}}}
  %0 = graph.einsum %x, %w {equation = "bij,jk->bik"} : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Reductions: a split reduced dim gives partial values of the reduction's
// kind; a mean's are (sum, count), of floats only.
func.func @reductions(%x: tensor<2x4x16xf32>, %i: tensor<2x4xi32>) -> (tensor<1x4x1xf32>, tensor<2x16xf32>, tensor<2x4x1xf32>, tensor<2xf32>, tensor<1x4x16xf32>, tensor<2x1xi32>) {
  // expected-remark @+1 {{sharding rule: ([i, j, k]) -> ([1, j, 1]) {i=2, j=4, k=16} reduction={i:sum, k:sum}}}
  %0 = graph.reduce_sum %x {axes = array<i64: 0, 2>} : tensor<2x4x16xf32> -> tensor<1x4x1xf32>
  // expected-remark @+1 {{sharding rule: ([i, j, k]) -> ([i, k]) {i=2, j=4, k=16} reduction={j:max}}}
  %1 = graph.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<2x4x16xf32> -> tensor<2x16xf32>
  // expected-remark @+1 {{sharding rule: ([i, j, k]) -> ([i, j, 1]) {i=2, j=4, k=16} reduction={k:mean}}}
  %2 = graph.reduce_mean %x {axes = array<i64: 2>} : tensor<2x4x16xf32> -> tensor<2x4x1xf32>
  // expected-remark @+1 {{sharding rule: ([i, j, k]) -> ([i]) {i=2, j=4, k=16} reduction={j:min, k:min}}}
  %3 = graph.reduce_min %x {axes = array<i64: 1, 2>, keepdims = false} : tensor<2x4x16xf32> -> tensor<2xf32>
  // expected-remark @+1 {{sharding rule: ([i, j, k]) -> ([1, j, k]) {i=2, j=4, k=16} reduction={i:prod}}}
  %4 = graph.reduce_prod %x {axes = array<i64: 0>} : tensor<2x4x16xf32> -> tensor<1x4x16xf32>
  // expected-remark @+1 {{sharding rule: ([i, j]) -> ([i, 1]) {i=2, j=4} need_replication={j}}}
  %5 = graph.reduce_mean %i {axes = array<i64: 1>} : tensor<2x4xi32> -> tensor<2x1xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x4x1xf32>, tensor<2x16xf32>, tensor<2x4x1xf32>, tensor<2xf32>, tensor<1x4x16xf32>, tensor<2x1xi32>
}

// -----

// Softmax and normalization: the normalized dims need replication.
func.func @norms(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  // expected-remark @+1 {{sharding rule: ([i, j, k]) -> ([i, j, k]) {i=2, j=4, k=8} need_replication={k}}}
  %0 = graph.softmax %x {axis = 2 : i64} : tensor<2x4x8xf32>
  // expected-remark @+1 {{sharding rule: ([i, j, k], [k], [k]) -> ([i, j, k], [i, j, 1], [i, j, 1]) {i=2, j=4, k=8} need_replication={k}}}
  %1:3 = graph.layer_norm %0, %g, %g {axis = 2 : i64, epsilon = 1.0e-5 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>
  return %0, %1#0 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

// Reshapes carry compound factors; shapes whose factors do not line up get
// no rule.
func.func @reshapes(%x: tensor<2x3x4xf32>, %y: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<2x12xf32>, tensor<4x6xf32>) {
  // expected-remark @+1 {{sharding rule: ([i, j, k]) -> ([(i, j), k]) {i=2, j=3, k=4}}}
  %0 = graph.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // expected-remark @+1 {{sharding rule: ([(i, j), k]) -> ([i, (j, k)]) {i=2, j=3, k=4}}}
  %1 = graph.reshape %y {shape = array<i64: 2, 12>} : tensor<6x4xf32> -> tensor<2x12xf32>
  // expected-remark @+1 {{no sharding rule (replicated)}}
  %2 = graph.reshape %y {shape = array<i64: 4, 6>} : tensor<6x4xf32> -> tensor<4x6xf32>
  return %0, %1, %2 : tensor<6x4xf32>, tensor<2x12xf32>, tensor<4x6xf32>
}

// -----

// Data movement: transpose permutes factors; concat, slice and gather keep
// the dims they move whole.
func.func @movement(%x: tensor<2x3x4xf32>, %i: tensor<5xi64>) -> (tensor<4x3x2xf32>, tensor<2x6x4xf32>, tensor<2x2x4xf32>, tensor<5x3x4xf32>) {
  // expected-remark @+1 {{sharding rule: ([i, j, k]) -> ([k, j, i]) {i=2, j=3, k=4}}}
  %0 = graph.transpose %x {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  // expected-remark @+1 {{sharding rule: ([i, k, j], [i, l, j]) -> ([i, m, j]) {i=2, j=4, k=3, l=3, m=6} need_replication={k, l, m}}}
  %1 = graph.concat %x, %x {axis = 1 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x6x4xf32>
  // expected-remark @+1 {{sharding rule: ([i, j, l]) -> ([i, k, l]) {i=2, j=3, k=2, l=4} need_replication={j, k}}}
  %2 = graph.slice %x {starts = array<i64: 0, 1, 0>, ends = array<i64: 2, 3, 4>, steps = array<i64: 1, 1, 1>} : tensor<2x3x4xf32> -> tensor<2x2x4xf32>
  // expected-remark @+1 {{sharding rule: ([i, k, l], [j]) -> ([j, k, l]) {i=2, j=5, k=3, l=4} need_replication={i}}}
  %3 = graph.gather %x, %i {axis = 0 : i64} : tensor<2x3x4xf32>, tensor<5xi64> -> tensor<5x3x4xf32>
  return %0, %1, %2, %3 : tensor<4x3x2xf32>, tensor<2x6x4xf32>, tensor<2x2x4xf32>, tensor<5x3x4xf32>
}

// -----

// A grouped convolution: channels are (group, per-group) compound factors;
// without a bias the input channels are a sum; windows need replication.
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> {
  // expected-remark @+1 {{sharding rule: ([i, (l, j), m, n], [(l, k), j, q, r]) -> ([i, (l, k), o, p]) {i=1, j=2, k=3, l=2, m=8, n=8, o=4, p=4, q=3, r=3} reduction={j:sum} need_replication={m, n, o, p, q, r}}}
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// -----

// Max pooling whose indices are used: they count over the whole tensor, so
// the op is replicated.
func.func @max_pool_indices(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xi64> {
  // expected-remark @+1 {{no sharding rule (replicated)}}
  %0, %1 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
  return %1 : tensor<1x4x4x4xi64>
}

// -----

// Fused ops: attention splits batch, heads and the value dim; linear's k
// is a sum only without an epilogue.
func.func @fused(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %m: tensor<8x8xf32>, %a: tensor<2x8x64xf32>, %w: tensor<64x256xf32>, %bias: tensor<256xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x8x256xf32>, tensor<2x8x256xf32>) {
  // expected-remark @+1 {{sharding rule: ([i, j, k, l], [i, j, m, l], [i, j, m, n], [k, m]) -> ([i, j, k, n]) {i=2, j=4, k=8, l=16, m=8, n=16} need_replication={k, l, m}}}
  %0 = graph.attention %q, %k, %k mask %m {scale = 0.25 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<8x8xf32> -> tensor<2x4x8x16xf32>
  // expected-remark @+1 {{sharding rule: ([i, j, l], [l, k]) -> ([i, j, k]) {i=2, j=8, k=256, l=64} reduction={l:sum}}}
  %1 = graph.linear %a, %w : tensor<2x8x64xf32>, tensor<64x256xf32> -> tensor<2x8x256xf32>
  // expected-remark @+1 {{sharding rule: ([i, j, l], [l, k], [k]) -> ([i, j, k]) {i=2, j=8, k=256, l=64} need_replication={l}}}
  %2 = graph.linear %a, %w bias %bias : tensor<256xf32> {activation = "gelu"} : tensor<2x8x64xf32>, tensor<64x256xf32> -> tensor<2x8x256xf32>
  return %0, %1, %2 : tensor<2x4x8x16xf32>, tensor<2x8x256xf32>, tensor<2x8x256xf32>
}

// -----

// Selection along an axis keeps it whole.
func.func @topk(%x: tensor<3x10xf32>) -> (tensor<3x4xf32>, tensor<3x4xi64>) {
  // expected-remark @+1 {{sharding rule: ([i, j]) -> ([i, k], [i, l]) {i=3, j=10, k=4, l=4} need_replication={j, k, l}}}
  %0, %1 = graph.topk %x {k = 4 : i64, axis = 1 : i64} : tensor<3x10xf32> -> tensor<3x4xf32>, tensor<3x4xi64>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xi64>
}

// -----

// Per-axis dequantization: the scale and zero point follow their axis.
func.func @dequantize(%x: tensor<4x8xi8>, %s: tensor<8xf32>, %z: tensor<8xi8>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{sharding rule: ([i, j], [j], [j]) -> ([i, j]) {i=4, j=8}}}
  %0 = graph.dequantize_linear %x, %s, %z {axis = 1 : i64} : tensor<4x8xi8>, tensor<8xf32>, tensor<8xi8> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Element gathers and scatters pair data and indices position by position:
// a dim is parallel where they agree in size, and the gather's indices are
// parallel along the axis too (the data coordinate is the index's value);
// a scatter's indexed dims and its updates' other dims need replication.
func.func @scatter(%x: tensor<4x6xf32>, %i: tensor<4x3xi64>, %j: tensor<2x3xi64>, %u: tensor<2x3xf32>, %n: tensor<5x1xi64>, %v: tensor<5x6xf32>) -> (tensor<4x3xf32>, tensor<2x3xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  // expected-remark @+1 {{sharding rule: ([i, j], [i, k]) -> ([i, k]) {i=4, j=6, k=3} need_replication={j}}}
  %0 = graph.gather_elements %x, %i {axis = 1 : i64} : tensor<4x6xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
  // expected-remark @+1 {{sharding rule: ([i, k], [j, l]) -> ([j, l]) {i=4, j=2, k=6, l=3} need_replication={i, j, k}}}
  %1 = graph.gather_elements %x, %j {axis = 1 : i64} : tensor<4x6xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  // expected-remark @+1 {{sharding rule: ([i, k], [j, l], [j, l]) -> ([i, k]) {i=4, j=2, k=6, l=3} need_replication={i, j, k, l}}}
  %2 = graph.scatter_elements %x, %j, %u {axis = 0 : i64, reduction = "add"} : tensor<4x6xf32>, tensor<2x3xi64>, tensor<2x3xf32> -> tensor<4x6xf32>
  // expected-remark @+1 {{sharding rule: ([i, j], [k, l], [k, j]) -> ([i, j]) {i=4, j=6, k=5, l=1} need_replication={i, k, l}}}
  %3 = graph.scatter_nd %x, %n, %v : tensor<4x6xf32>, tensor<5x1xi64>, tensor<5x6xf32> -> tensor<4x6xf32>
  return %0, %1, %2, %3 : tensor<4x3xf32>, tensor<2x3xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}

// -----

// graph.moe: tokens and output columns parallel, the experts' FFN dim a sum
// (Megatron inside every expert), the rest replicated (expert parallelism
// is --ep's all-to-all, not a factor).
func.func @moe(%x: tensor<16x32xf32>, %w: tensor<16x2xf32>, %ids: tensor<16x2xi64>, %gu: tensor<4x32x96xf32>, %d: tensor<4x48x32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{sharding rule: ([i, j], [i, k], [i, k], [l, j, (m, n)], [l, n, o]) -> ([i, o]) {i=16, j=32, k=2, l=4, m=2, n=48, o=32} reduction={n:sum} need_replication={j, k, l, m}}}
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32> -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
