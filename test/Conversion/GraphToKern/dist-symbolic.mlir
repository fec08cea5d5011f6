// RUN: %shardc-opt %s --convert-graph-to-kern | FileCheck %s
// dist collectives over bounded dynamic dims (docs/dynamic-shapes.md): the
// tokens [s0, s1] stay whole and the hidden dim is split. Its blocks are
// not contiguous (the tokens come before it), so a kern.map lays them out
// over the symbolic space [group, s0, s1, 8]: block r of the whole at
// r * 8 along its rows of s1 * 16, the blocks buffer dense over the run's
// sizes. The buffers and kernels carry their mirrors.

// CHECK-DAG:   #[[HALF:.+]] = affine_map<()[s0, s1] -> (s0, s1, 8)>
// CHECK-DAG:   #[[BLOCKS:.+]] = affine_map<()[s0, s1] -> (2, s0, s1, 8)>
// CHECK-DAG:   #[[WHOLE:.+]] = affine_map<()[s0, s1] -> (0, 8, s1 * 16, 16, 1)>
// CHECK-DAG:   #[[DENSE:.+]] = affine_map<()[s0, s1] -> (0, (s0 * s1) * 8, s1 * 8, 8, 1)>
// CHECK-DAG:   #[[BSH:.+]] = affine_map<()[s0, s1] -> (s0, s1, 16)>
// CHECK-LABEL: func.func @main
// CHECK-SAME:  (%[[X:.*]]: memref<2x8x16xf32> {kern.input = "x", kern.sym = #[[BSH]]}, %[[Y:.*]]: memref<2x8x16xf32> {kern.output = "y", kern.sym = #[[BSH]]})
// CHECK:       %[[S:.+]] = kern.alloc {kern.sym = {result = #[[HALF]]}} : memref<2x8x8xf32>
// CHECK:       %[[T:.+]] = kern.alloc {kern.sym = {result = #[[BLOCKS]]}} : memref<2x2x8x8xf32>
// CHECK:       kern.map ins(%[[X]] : memref<2x8x16xf32>) outs(%[[T]] : memref<2x2x8x8xf32>) attributes {kern.sym = {layouts = [#[[WHOLE]], #[[DENSE]]], shape = #[[BLOCKS]]}
// CHECK:       kern.reduce_scatter %[[T]], %[[S]] {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<2x2x8x8xf32>, memref<2x8x8xf32>
// CHECK:       %[[G:.+]] = kern.alloc {kern.sym = {result = #[[BSH]]}} : memref<2x8x16xf32>
// CHECK:       %[[U:.+]] = kern.alloc {kern.sym = {result = #[[BLOCKS]]}} : memref<2x2x8x8xf32>
// CHECK:       kern.all_gather %[[S]], %[[U]] {axis = 0 : i64, group_size = 2 : i64} : memref<2x8x8xf32>, memref<2x2x8x8xf32>
// CHECK:       kern.map ins(%[[U]] : memref<2x2x8x8xf32>) outs(%[[G]] : memref<2x8x16xf32>) attributes {kern.sym = {layouts = [#[[DENSE]], #[[WHOLE]]], shape = #[[BLOCKS]]}
// CHECK:       kern.all_reduce %[[G]], %[[Y]] {axis = 0 : i64, group_size = 2 : i64, kind = "max"}
#bsh = affine_map<()[s0, s1] -> (s0, s1, 16)>
#half = affine_map<()[s0, s1] -> (s0, s1, 8)>
dist.mesh @mesh axes = ["tp"] shape = [2]
func.func @main(%x: tensor<2x8x16xf32, #bsh> {graph.name = "x"}) -> (tensor<2x8x16xf32, #bsh> {graph.name = "y"}) attributes {graph.dims = [{max = 2 : i64, name = "batch"}, {max = 8 : i64, name = "seq"}]} {
  %s = dist.reduce_scatter %x on @mesh axes = ["tp"] dim = 2 kind = "sum" : tensor<2x8x16xf32, #bsh> -> tensor<2x8x8xf32, #half>
  %g = dist.all_gather %s on @mesh axes = ["tp"] dim = 2 : tensor<2x8x8xf32, #half> -> tensor<2x8x16xf32, #bsh>
  %r = dist.all_reduce %g on @mesh axes = ["tp"] kind = "max" : tensor<2x8x16xf32, #bsh>
  return %r : tensor<2x8x16xf32, #bsh>
}
