// RUN: %shardc-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{'dist.mesh' op has axis 'tp' twice}}
dist.mesh @mesh axes = ["tp", "tp"] shape = [2, 2]

// -----

// expected-error @+1 {{'dist.mesh' op has 2 axis names for 1 sizes}}
dist.mesh @mesh axes = ["pp", "tp"] shape = [2]

// -----

// expected-error @+1 {{'dist.mesh' op axis 'tp' has size 0}}
dist.mesh @mesh axes = ["tp"] shape = [0]

// -----

// expected-error @+1 {{'dist.mesh' op has an axis without a name}}
dist.mesh @mesh axes = [""] shape = [2]

// -----

// expected-error @+1 {{'dist.mesh' op needs at least one axis}}
dist.mesh @mesh axes = [] shape = []

// -----

// expected-error @+1 {{'dist.mesh' op has 131072 devices, more than 65536}}
dist.mesh @mesh axes = ["a", "b"] shape = [512, 256]

// -----

// A split dim must divide by its axes' product: the error says which.
dist.mesh @mesh axes = ["pp", "tp"] shape = [2, 4]
func.func @indivisible(%x: tensor<6x16xf32>) -> tensor<6x16xf32> {
  // expected-error @+1 {{'dist.shard' op dim 0 of size 6 does not divide by 4 (mesh axes tp)}}
  %0 = dist.shard %x : tensor<6x16xf32> to #dist.sharding<@mesh, [["tp"], []]>
  return %0 : tensor<6x16xf32>
}

// -----

dist.mesh @mesh axes = ["pp", "tp"] shape = [2, 4]
func.func @indivisible_two_axes(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'dist.shard' op dim 0 of size 4 does not divide by 8 (mesh axes pp x tp)}}
  %0 = dist.shard %x : tensor<4x16xf32> to #dist.sharding<@mesh, [["pp", "tp"], []]>
  return %0 : tensor<4x16xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @unknown_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dist.shard' op mesh @mesh has no axis 'ep'}}
  %0 = dist.shard %x : tensor<8xf32> to #dist.sharding<@mesh, [["ep"]]>
  return %0 : tensor<8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @wrong_rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dist.shard' op sharding has 2 dims for a tensor of rank 1}}
  %0 = dist.shard %x : tensor<8xf32> to #dist.sharding<@mesh, [["tp"], []]>
  return %0 : tensor<8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @axis_twice(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mesh axis 'tp' is used twice}}
  %0 = dist.shard %x : tensor<8x8xf32> to #dist.sharding<@mesh, [["tp"], []], partial = ["tp"]>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @no_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dist.shard' op names mesh @nowhere, which is not a dist.mesh}}
  %0 = dist.shard %x : tensor<8xf32> to #dist.sharding<@nowhere, [[]]>
  return %0 : tensor<8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @bad_partial_kind(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unknown partial kind 'avg' (expected sum, max, min, prod or mean)}}
  %0 = dist.shard %x : tensor<8xf32> to #dist.sharding<@mesh, [[]], partial = avg ["tp"]>
  return %0 : tensor<8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @bad_kind(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dist.all_reduce' op kind 'mean': expected sum, max, min or prod}}
  %0 = dist.all_reduce %x on @mesh axes = ["tp"] kind = "mean" : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @gather_shape(%x: tensor<2x8xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{'dist.all_gather' op result 'tensor<2x16xf32>' should be 'tensor<2x32xf32>'}}
  %0 = dist.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x8xf32> -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @gather_dim(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'dist.all_gather' op dim 2 is out of range for rank 2}}
  %0 = dist.all_gather %x on @mesh axes = ["tp"] dim = 2 : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @scatter_indivisible(%x: tensor<2x6xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'dist.reduce_scatter' op dim 1 of size 6 does not divide by the group size 4}}
  %0 = dist.reduce_scatter %x on @mesh axes = ["tp"] dim = 1 kind = "sum" : tensor<2x6xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @all_to_all_shape(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'dist.all_to_all' op result 'tensor<4x8xf32>' should be 'tensor<16x2xf32>'}}
  %0 = dist.all_to_all %x on @mesh axes = ["tp"] split = 1 concat = 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @all_reduce_no_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dist.all_reduce' op needs at least one mesh axis}}
  %0 = dist.all_reduce %x on @mesh axes = [] kind = "sum" : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

dist.mesh @mesh axes = ["pp", "tp"] shape = [2, 4]
func.func @send_two_axes(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dist.send' op takes one mesh axis, not 2}}
  dist.send %x on @mesh axes = ["pp", "tp"] offset = 1 : tensor<8xf32>
  return
}

// -----

dist.mesh @mesh axes = ["pp"] shape = [2]
func.func @recv_zero(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dist.recv' op needs a non-zero offset}}
  %0 = dist.recv on @mesh axes = ["pp"] offset = 0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @gather_type(%x: tensor<2x8xf32>) -> tensor<2x32xf16> {
  // expected-error @+1 {{'dist.all_gather' op result 'tensor<2x32xf16>' must have the input's element type and rank ('tensor<2x8xf32>')}}
  %0 = dist.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x8xf32> -> tensor<2x32xf16>
  return %0 : tensor<2x32xf16>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [4]
func.func @not_an_array(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{dim 0: expected an array of mesh axis names}}
  %0 = dist.shard %x : tensor<8xf32> to #dist.sharding<@mesh, ["tp"]>
  return %0 : tensor<8xf32>
}

// -----

dist.mesh @mesh axes = ["ep"] shape = [2]
func.func @moe_gate_up(%x: tensor<4x32xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x32x64xf32>, %dn: tensor<2x48x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'dist.moe' op gate_up 'tensor<2x32x64xf32>' should be 'tensor<2x32x96xf32>'}}
  %0 = dist.moe %x, %w, %ids, %gu, %dn on @mesh axes = ["ep"] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x64xf32>, tensor<2x48x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

dist.mesh @mesh axes = ["ep"] shape = [2]
func.func @moe_down_bias(%x: tensor<4x32xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x32x96xf32>, %dn: tensor<2x48x32xf32>, %gub: tensor<2x96xf32>, %db: tensor<4x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'dist.moe' op down_bias 'tensor<4x32xf32>' should be 'tensor<2x32xf32>'}}
  %0 = dist.moe %x, %w, %ids, %gu, %dn biases %gub, %db on @mesh axes = ["ep"] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32>, tensor<2x96xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

dist.mesh @mesh axes = ["ep"] shape = [2]
func.func @moe_ids(%x: tensor<4x32xf32>, %w: tensor<4x2xf32>, %ids: tensor<3x2xi64>, %gu: tensor<2x32x96xf32>, %dn: tensor<2x48x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'dist.moe' op ids 'tensor<3x2xi64>' must be [4, k] integers}}
  %0 = dist.moe %x, %w, %ids, %gu, %dn on @mesh axes = ["ep"] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<3x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

dist.mesh @mesh axes = ["ep"] shape = [2]
func.func @moe_placement_size(%x: tensor<4x32xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x32x96xf32>, %dn: tensor<2x48x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'dist.moe' op placement has 3 slots; the group holds 4 (2 per rank)}}
  %0 = dist.moe %x, %w, %ids, %gu, %dn on @mesh axes = ["ep"] placement = [0, 1, 2] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

dist.mesh @mesh axes = ["ep"] shape = [2]
func.func @moe_placement_gap(%x: tensor<4x32xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x32x96xf32>, %dn: tensor<2x48x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'dist.moe' op placement leaves expert 1 without a slot}}
  %0 = dist.moe %x, %w, %ids, %gu, %dn on @mesh axes = ["ep"] placement = [0, 2, 2, 0] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @moe_axis(%x: tensor<4x32xf32>, %w: tensor<4x2xf32>, %ids: tensor<4x2xi64>, %gu: tensor<2x32x96xf32>, %dn: tensor<2x48x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'dist.moe' op mesh @mesh has no axis 'ep'}}
  %0 = dist.moe %x, %w, %ids, %gu, %dn on @mesh axes = ["ep"] : tensor<4x32xf32>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<2x32x96xf32>, tensor<2x48x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}
