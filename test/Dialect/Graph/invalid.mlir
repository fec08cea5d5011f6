// RUN: %shardc-opt %s --split-input-file --verify-diagnostics
// One case per verifier error: each names the mismatch it found.

func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{shapes [2, 3] and [4] do not broadcast: dim 1 is 3 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.add %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @dtype_mismatch(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error @+2 {{operand element types differ: tensor<2xf32> and tensor<2xf16>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.mul %a, %b : tensor<2xf32>, tensor<2xf16> -> tensor<2xf32>
  return
}

// -----

func.func @wrong_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "graph.relu"(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @float_only(%a: tensor<4xi32>) {
  // expected-error @+1 {{expected a floating-point tensor, got tensor<4xi32>}}
  %0 = graph.exp %a : tensor<4xi32>
  return
}

// -----

func.func @logic_needs_bool(%a: tensor<4xf32>) {
  // expected-error @+2 {{expected a boolean (i1) tensor}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.and %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_inner(%a: tensor<2x64xf32>, %b: tensor<128x4xf32>) {
  // expected-error @+2 {{inner dimensions 64 and 128 differ (shapes [2, 64] and [128, 4])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.matmul %a, %b : tensor<2x64xf32>, tensor<128x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+2 {{shapes [3] and [2, 4] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.gemm %a, %b, %c : tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @softmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2 (expected 0 to 1)}}
  %0 = graph.softmax %a {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+2 {{shapes [4] and [8] do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = graph.layer_norm %x, %g {axis = 1 : i64} : tensor<2x8xf32>, tensor<4xf32> -> tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  return
}

// -----

func.func @reduce_axes(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{reduction axes [1, 0] must be sorted and unique}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.reduce_sum %x {axes = array<i64: 1, 0>} : tensor<2x8xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{cannot reshape tensor<2x8xf32> (16 elements) to [3, 5] (15 elements)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.reshape %x {shape = array<i64: 3, 5>} : tensor<2x8xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{perm [0, 0] is not a permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.transpose %x {perm = array<i64: 0, 0>} : tensor<2x8xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+2 {{input 1 tensor<4x4xf32> differs from input 0 tensor<2x3xf32> in dim 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<4x4xf32> -> tensor<6x3xf32>
  return
}

// -----

func.func @split_sum(%a: tensor<6xf32>) {
  // expected-error @+2 {{split sizes [2, 2] sum to 4 but dim 0 is 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = graph.split %a {axis = 0 : i64, sizes = array<i64: 2, 2>} : tensor<6xf32> -> tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<6xf32>) {
  // expected-error @+2 {{bounds 0:9:1 of dim 0 are not clamped to size 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.slice %a {starts = array<i64: 0>, ends = array<i64: 9>, steps = array<i64: 1>} : tensor<6xf32> -> tensor<9xf32>
  return
}

// -----

func.func @squeeze_non_unit(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{cannot squeeze dim 1 of size 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.squeeze %a {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @gather_indices(%a: tensor<2x3xf32>, %i: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = graph.gather %a, %i {axis = 0 : i64} : tensor<2x3xf32>, tensor<4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of any type values}}
  %0 = graph.relu %a : tensor<?x3xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+2 {{input channels 4 do not match weight tensor<6x3x3x3xf32> with group 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @pool_attrs(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{expected 2 strides, 2 dilations and 4 pads for the spatial dims, got 1, 2 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
  return
}

// -----

func.func @topk_k(%x: tensor<3x10xf32>) {
  // expected-error @+2 {{k = 11 is out of range for dim 1 of size 10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = graph.topk %x {k = 11 : i64, axis = 1 : i64} : tensor<3x10xf32> -> tensor<3x11xf32>, tensor<3x11xi64>
  return
}

// -----

func.func @einsum_labels(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{label 'j' has sizes 3 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.einsum %a, %b {equation = "ij,jk->ik"} : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @quant_axis(%x: tensor<4x8xf32>, %s: tensor<3xf32>, %zp: tensor<3xui8>) {
  // expected-error @+2 {{per-axis scale tensor<3xf32> does not match dim 1 of tensor<4x8xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.quantize_linear %x, %s, %zp {axis = 1 : i64} : tensor<4x8xf32>, tensor<3xf32>, tensor<3xui8> -> tensor<4x8xui8>
  return
}

// -----

func.func @pad_mode(%x: tensor<4xf32>) {
  // expected-error @+2 {{unknown mode 'mirror'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.pad %x {pads = array<i64: 1, 1>, mode = "mirror"} : tensor<4xf32> -> tensor<6xf32>
  return
}

// -----

func.func @where_cond(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+2 {{branch element types differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.where %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xi32> -> tensor<4xf32>
  return
}

// -----

func.func @constant_of_shape_value() {
  // expected-error @+2 {{value must have exactly one element, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.constant_of_shape {shape = array<i64: 2>, value = dense<[1, 2]> : tensor<2xi64>} : tensor<2xi64>
  return
}


// -----

func.func @gelu_mode(%x: tensor<4xf32>) {
  // expected-error @+1 {{approximate must be 'none' or 'tanh', not 'fast'}}
  %0 = graph.gelu %x {approximate = "fast"} : tensor<4xf32>
  return
}

// -----

func.func @linear_activation(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) {
  // expected-error @+1 {{activation must be none, relu, gelu or gelu_tanh, not 'silu'}}
  %0 = graph.linear %x, %w {activation = "silu"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_residual_after_activation(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) {
  // expected-error @+1 {{a residual comes only with activation 'none'}}
  %0 = graph.linear %x, %w residual %x : tensor<2x4xf32> {activation = "relu"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{bias tensor<2x4xf32> must be a row of 4 elements of the operands' type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.linear %x, %w bias %b : tensor<2x4xf32> : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @attention_shapes(%q: tensor<2x8x16xf32>, %k: tensor<2x8x8xf32>) {
  // expected-error @+2 {{key tensor<2x8x8xf32> and value tensor<2x8x8xf32> do not fit query tensor<2x8x16xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.attention %q, %k, %k {scale = 1.0 : f32} : tensor<2x8x16xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @rms_norm_scale(%x: tensor<2x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{scale tensor<4xf32> does not broadcast to the normalized shape [8]}}
  %0 = graph.rms_norm %x, %s {axis = 1 : i64} : tensor<2x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @fused_conv_activation(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{activation must be none, relu or hard_swish, not 'gelu'}}
  %0 = graph.fused_conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, activation = "gelu"} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @fused_conv_residual(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %r: tensor<1x4x1x1xf32>) {
  // expected-error @+2 {{residual tensor<1x4x1x1xf32> must have the result's type tensor<1x4x8x8xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.fused_conv %x, %w residual %r : tensor<1x4x1x1xf32> {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @gather_elements_rank(%x: tensor<3x4xf32>, %i: tensor<6xi64>) {
  // expected-error @+2 {{indices tensor<6xi64> must have the rank of data tensor<3x4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<6xi64> -> tensor<6xf32>
  return
}

// -----

func.func @gather_elements_dims(%x: tensor<3x4xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+2 {{indices tensor<4x2xi64> exceed data tensor<3x4xf32> on dim 0 (only the axis 1 may be larger)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<4x2xi64> -> tensor<4x2xf32>
  return
}

// -----

func.func @scatter_elements_updates(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf16>) {
  // expected-error @+2 {{updates tensor<3x2xf16> must have the shape of indices tensor<3x2xi64> and the element type of tensor<3x4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.scatter_elements %x, %i, %u {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf16> -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_elements_reduction(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) {
  // expected-error @+2 {{reduction must be none, add, mul, max or min, not 'sum'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "sum"} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_elements_bool(%x: tensor<3x4xi1>, %i: tensor<3x2xi64>, %u: tensor<3x2xi1>) {
  // expected-error @+2 {{reduction 'add' needs numeric elements, not tensor<3x4xi1>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "add"} : tensor<3x4xi1>, tensor<3x2xi64>, tensor<3x2xi1> -> tensor<3x4xi1>
  return
}

// -----

func.func @scatter_nd_tuple(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+2 {{index tuples of 3 entries (the last dim of indices tensor<2x3xi64>) must be 1 to the rank of tensor<3x4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.scatter_nd %x, %i, %u : tensor<3x4xf32>, tensor<2x3xi64>, tensor<2xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_nd_updates(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+2 {{updates tensor<2x3xf32> must have shape [2, 4] (indices' dims but the last, then data's from 1) and the element type of tensor<3x4xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.scatter_nd %x, %i, %u : tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x3xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @moe_input_rank(%x: tensor<2x8x32xf32>, %w: tensor<16x2xf32>, %ids: tensor<16x2xi64>, %gu: tensor<4x32x96xf32>, %d: tensor<4x48x32xf32>) {
  // expected-error @+2 {{input must be [tokens, hidden], got tensor<2x8x32xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<2x8x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @moe_ids_tokens(%x: tensor<16x32xf32>, %w: tensor<8x2xf32>, %ids: tensor<8x2xi64>, %gu: tensor<4x32x96xf32>, %d: tensor<4x48x32xf32>) {
  // expected-error @+2 {{ids tensor<8x2xi64> must be [tokens, k] with the input's 16 tokens}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<16x32xf32>, tensor<8x2xf32>, tensor<8x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @moe_weights(%x: tensor<16x32xf32>, %w: tensor<16x2xf16>, %ids: tensor<16x2xi64>, %gu: tensor<4x32x96xf32>, %d: tensor<4x48x32xf32>) {
  // expected-error @+2 {{weights tensor<16x2xf16> must be [16, 2] of the input's element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<16x32xf32>, tensor<16x2xf16>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @moe_gate_up_bias(%x: tensor<16x32xf32>, %w: tensor<16x2xf32>, %ids: tensor<16x2xi64>, %gu: tensor<4x32x96xf32>, %d: tensor<4x48x32xf32>, %gub: tensor<4x48xf32>, %db: tensor<4x32xf32>) {
  // expected-error @+2 {{gate_up_bias tensor<4x48xf32> must be [4, 96] of the input's element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.moe %x, %w, %ids, %gu, %d biases %gub, %db : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x32xf32>, tensor<4x48xf32>, tensor<4x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @moe_down(%x: tensor<16x32xf32>, %w: tensor<16x2xf32>, %ids: tensor<16x2xi64>, %gu: tensor<4x32x96xf32>, %d: tensor<4x48x16xf32>) {
  // expected-error @+2 {{down tensor<4x48x16xf32> must be [experts, ffn, 32] of the input's element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x96xf32>, tensor<4x48x16xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @moe_gate_up(%x: tensor<16x32xf32>, %w: tensor<16x2xf32>, %ids: tensor<16x2xi64>, %gu: tensor<4x32x48xf32>, %d: tensor<4x48x32xf32>) {
  // expected-error @+2 {{gate_up tensor<4x32x48xf32> must be [4, 32, 96] (gate then up columns of each of the 4 experts) of the input's element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = graph.moe %x, %w, %ids, %gu, %d : tensor<16x32xf32>, tensor<16x2xf32>, tensor<16x2xi64>, tensor<4x32x48xf32>, tensor<4x48x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @linear_int8_scales(%x: tensor<4x8xi8>, %w: tensor<8x2xi8>, %s: tensor<4xf32>, %ws: tensor<2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'graph.linear_int8' op a_scale needs one value per row of a, not 'tensor<4xf32>'}}
  %y = graph.linear_int8 %x, %w scales %ws rows %s : tensor<4xf32> : tensor<4x8xi8>, tensor<8x2xi8>, tensor<2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @linear_int8_float(%x: tensor<4x8xf32>, %w: tensor<8x2xi8>, %s: tensor<4x1xf32>, %ws: tensor<2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'graph.linear_int8' op a and b need int8 elements}}
  %y = graph.linear_int8 %x, %w scales %ws rows %s : tensor<4x1xf32> : tensor<4x8xf32>, tensor<8x2xi8>, tensor<2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @conv_int8_float(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xi8>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'graph.conv_int8' op takes ui8 or i8 input and i8 weight into f32}}
  %y = graph.conv_int8 %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 1.0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @conv_int8_scales(%x: tensor<1x2x4x4xui8>, %w: tensor<2x2x3x3xi8>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'graph.conv_int8' op needs 1 or 2 scales, not 3}}
  %y = graph.conv_int8 %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 1.0, 1.0, 1.0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xui8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @conv_int8_scale_sign(%x: tensor<1x2x4x4xui8>, %w: tensor<2x2x3x3xi8>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'graph.conv_int8' op scales must be finite and positive}}
  %y = graph.conv_int8 %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 1.0, -1.0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xui8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @conv_int8_zero_point(%x: tensor<1x2x4x4xi8>, %w: tensor<2x2x3x3xi8>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'graph.conv_int8' op input_zero_point 200 is outside 'i8''s range}}
  %y = graph.conv_int8 %x, %w {dilations = array<i64: 1, 1>, input_zero_point = 200 : i64, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 1.0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xi8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @conv_int8_dynamic_zero_type(%x: tensor<1x2x4x4xui8>, %w: tensor<2x2x3x3xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'graph.conv_int8' op dynamic zero point must be one 'ui8', not tensor<i8>}}
  %y = graph.conv_int8 %x, %w dynamic %s, %z : tensor<f32>, tensor<i8> {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 1.0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xui8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @conv_int8_dynamic_scale(%x: tensor<1x2x4x4xui8>, %w: tensor<2x2x3x3xi8>, %s: tensor<2xf32>, %z: tensor<ui8>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'graph.conv_int8' op dynamic scale must be one f32, not tensor<2xf32>}}
  %y = graph.conv_int8 %x, %w dynamic %s, %z : tensor<2xf32>, tensor<ui8> {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 1.0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xui8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

func.func @conv_int8_dynamic_static_zero(%x: tensor<1x2x4x4xui8>, %w: tensor<2x2x3x3xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'graph.conv_int8' op input_zero_point must be 0 with a dynamic zero point}}
  %y = graph.conv_int8 %x, %w dynamic %s, %z : tensor<f32>, tensor<ui8> {dilations = array<i64: 1, 1>, input_zero_point = 4 : i64, pads = array<i64: 0, 0, 0, 0>, scales = array<f32: 1.0>, strides = array<i64: 1, 1>} : tensor<1x2x4x4xui8>, tensor<2x2x3x3xi8> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}
