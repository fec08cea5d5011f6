// RUN: %shardc-opt %s --split-input-file --verify-diagnostics
// Bounded dynamic dims (docs/dynamic-shapes.md) in the dist dialect: a
// dynamic dim divides by the ranks only at its bound, so no sharding
// splits one and no collective gathers or scatters along one; a
// collective's result keeps its input's symbolic mirror.

#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @split_dynamic(%x: tensor<2x8x4xf32, #bsh>) -> tensor<2x8x4xf32, #bsh> attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  // expected-error @+1 {{dim 1 of 'tensor<2x8x4xf32, affine_map<()[s0, s1] -> (s0, s1, 4)>>' is dynamic (s1): a sharding does not split it}}
  %s = dist.shard %x : tensor<2x8x4xf32, #bsh> to #dist.sharding<@mesh, [[], ["tp"], []]>
  return %s : tensor<2x8x4xf32, #bsh>
}

// -----

#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
#wide = affine_map<()[s0, s1] -> (s0, s1 * 2, 4)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @gather_dynamic(%x: tensor<2x8x4xf32, #bsh>) -> tensor<2x16x4xf32, #wide> attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  // expected-error @+1 {{dim 1 of 'tensor<2x8x4xf32, affine_map<()[s0, s1] -> (s0, s1, 4)>>' is dynamic (s1): a collective does not split or gather it}}
  %g = dist.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x8x4xf32, #bsh> -> tensor<2x16x4xf32, #wide>
  return %g : tensor<2x16x4xf32, #wide>
}

// -----

#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @scatter_drops_mirror(%x: tensor<2x8x4xf32, #bsh>) -> tensor<2x8x2xf32> attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  // expected-error @+1 {{result 'tensor<2x8x2xf32>' should be 'tensor<2x8x2xf32, affine_map<()[s0, s1] -> (s0, s1, 2)>>'}}
  %r = dist.reduce_scatter %x on @mesh axes = ["tp"] dim = 2 kind = "sum" : tensor<2x8x4xf32, #bsh> -> tensor<2x8x2xf32>
  return %r : tensor<2x8x2xf32>
}

// -----

#bsh = affine_map<()[s0, s1] -> (s0, s1, 4)>
#half = affine_map<()[s0, s1] -> (s0, s1, 2)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @gather_static_dim(%x: tensor<2x8x2xf32, #half>) -> tensor<2x8x4xf32, #bsh> attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  %g = dist.all_gather %x on @mesh axes = ["tp"] dim = 2 : tensor<2x8x2xf32, #half> -> tensor<2x8x4xf32, #bsh>
  return %g : tensor<2x8x4xf32, #bsh>
}
