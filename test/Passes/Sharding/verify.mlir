// RUN: %shardc-opt %s --split-input-file --dist-verify --verify-diagnostics | FileCheck %s
// dist-verify: the dist phase's closing check. It changes nothing; each
// invalid module below is what a partitioning bug would hand on.

// A propagated module: shardings that fit their tensors on the mesh.
// CHECK-LABEL: func.func @propagated
// CHECK:         graph.relu {{.*}}dist.shardings
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @propagated(%x: tensor<2x4xf32> {dist.sharding = #dist.sharding<@mesh, [[], ["tp"]]>}) -> tensor<2x4xf32> {
  %y = graph.relu %x {dist.shardings = [#dist.sharding<@mesh, [[], ["tp"]]>]} : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Per-rank programs: ranks 0 and 1 once each, nothing global left.
// CHECK-LABEL: func.func @f_rank0
// CHECK-LABEL: func.func @f_rank1
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @f_rank0(%x: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {kern.ranks = array<i64: 0>} {
  %y = dist.all_reduce %x on @mesh axes = ["tp"] kind = "sum" : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
func.func @f_rank1(%x: tensor<2x2xf32>) -> tensor<2x2xf32> attributes {kern.ranks = array<i64: 1>} {
  %y = dist.all_reduce %x on @mesh axes = ["tp"] kind = "sum" : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// expected-error @below {{dist-verify: rank 1 of 2 has no program}}
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @f_rank0(%x: tensor<2xf32>) -> tensor<2xf32> attributes {kern.ranks = array<i64: 0>} {
  return %x : tensor<2xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @f_rank0(%x: tensor<2xf32>) -> tensor<2xf32> attributes {kern.ranks = array<i64: 0, 1>} {
  return %x : tensor<2xf32>
}
// expected-error @below {{dist-verify: rank 1 has two programs, 'f_rank0' and 'f_rank1'}}
func.func @f_rank1(%x: tensor<2xf32>) -> tensor<2xf32> attributes {kern.ranks = array<i64: 1>} {
  return %x : tensor<2xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]
// expected-error @below {{dist-verify: rank 2 is not on the mesh of 2 devices}}
func.func @f_rank2(%x: tensor<2xf32>) -> tensor<2xf32> attributes {kern.ranks = array<i64: 2>} {
  return %x : tensor<2xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @f_rank0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {kern.ranks = array<i64: 0, 1>} {
  // expected-error @below {{dist-verify: a rank program still holds a sharding of the global program}}
  %y = dist.shard %x : tensor<4xf32> to #dist.sharding<@mesh, [["tp"]]>
  return %y : tensor<4xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]
// expected-error @below {{dist-verify: function 'helper' of a partitioned module has no kern.ranks}}
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @f_rank0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {kern.ranks = array<i64: 0, 1>} {
  return %x : tensor<4xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @odd(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{dim 1}}
  %y = graph.relu %x {dist.shardings = [#dist.sharding<@mesh, [[], ["tp"]]>]} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @count(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{dist-verify: 2 shardings for 1 results}}
  %y = graph.relu %x {dist.shardings = [#dist.sharding<@mesh, [[], []]>, #dist.sharding<@mesh, [[], []]>]} : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

dist.mesh @a axes = ["tp"] shape = [2]
// expected-error @below {{dist-verify needs one dist.mesh in the module, found 2}}
dist.mesh @b axes = ["dp"] shape = [2]
