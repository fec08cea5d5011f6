// RUN: %shardc-opt %s --split-input-file --dist-kv-cache-append | FileCheck %s
// dist-kv-cache-append: a partitioned KV cache's present, the all-gather of
// each rank's append to its heads of the past, becomes the append of the
// gathered new entries to the whole past (the past's one use, so the
// lowering appends in place); the rank's heads are read back from it.

dist.mesh @mesh axes = ["tp"] shape = [2]

// Ranks 0 and 1 of two, heads 0-1 and 2-3 of four.
// CHECK-LABEL: func.func @rank0
// CHECK:         dist.all_gather %arg1 {{.*}} dim = 1 : tensor<1x2x1x8xf32> -> tensor<1x4x1x8xf32>
// CHECK-LABEL: func.func @rank1
// CHECK-SAME:    (%[[PAST:.*]]: tensor<1x4x6x8xf32> {graph.cache = {axis = 2 : i64, output = 0 : i64}}, %[[NEW:.*]]: tensor<1x2x1x8xf32>)
// CHECK-NEXT:    %[[N:.*]] = dist.all_gather %[[NEW]] on @mesh axes = ["tp"] dim = 1 : tensor<1x2x1x8xf32> -> tensor<1x4x1x8xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.concat %[[PAST]], %[[N]] {axis = 2 : i64} : tensor<1x4x6x8xf32>, tensor<1x4x1x8xf32> -> tensor<1x4x7x8xf32>
// CHECK-NEXT:    %[[MINE:.*]] = graph.slice %[[P]] {ends = array<i64: 1, 4, 7, 8>, starts = array<i64: 0, 2, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x4x7x8xf32> -> tensor<1x2x7x8xf32>
// CHECK-NEXT:    %[[USE:.*]] = graph.relu %[[MINE]]
// CHECK-NOT:     dist.all_gather
// CHECK:         return %[[P]], %[[USE]]
func.func @rank0(%past: tensor<1x4x6x8xf32> {graph.cache = {axis = 2 : i64, output = 0 : i64}}, %new: tensor<1x2x1x8xf32>) -> (tensor<1x4x7x8xf32>, tensor<1x2x7x8xf32>) attributes {kern.ranks = array<i64: 0>} {
  %s = graph.slice %past {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 6, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32> -> tensor<1x2x6x8xf32>
  %c = graph.concat %s, %new {axis = 2 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32> -> tensor<1x2x7x8xf32>
  %u = graph.relu %c : tensor<1x2x7x8xf32>
  %g = dist.all_gather %c on @mesh axes = ["tp"] dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
  return %g, %u : tensor<1x4x7x8xf32>, tensor<1x2x7x8xf32>
}
func.func @rank1(%past: tensor<1x4x6x8xf32> {graph.cache = {axis = 2 : i64, output = 0 : i64}}, %new: tensor<1x2x1x8xf32>) -> (tensor<1x4x7x8xf32>, tensor<1x2x7x8xf32>) attributes {kern.ranks = array<i64: 1>} {
  %s = graph.slice %past {starts = array<i64: 0, 2, 0, 0>, ends = array<i64: 1, 4, 6, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32> -> tensor<1x2x6x8xf32>
  %c = graph.concat %s, %new {axis = 2 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32> -> tensor<1x2x7x8xf32>
  %u = graph.relu %c : tensor<1x2x7x8xf32>
  %g = dist.all_gather %c on @mesh axes = ["tp"] dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
  return %g, %u : tensor<1x4x7x8xf32>, tensor<1x2x7x8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]

// Left alone on every rank: rank 1 slices heads 1-2, not its part (2-3)
// of the gather, so the rewrite would not be exact there, and the ranks
// must keep the same collectives.
// CHECK-LABEL: func.func @rank0
// CHECK:         graph.slice %arg0
// CHECK:         dist.all_gather %{{.*}} dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
// CHECK-LABEL: func.func @rank1
// CHECK:         graph.slice %arg0
// CHECK:         dist.all_gather %{{.*}} dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
func.func @rank0(%past: tensor<1x4x6x8xf32> {graph.cache = {axis = 2 : i64, output = 0 : i64}}, %new: tensor<1x2x1x8xf32>) -> tensor<1x4x7x8xf32> attributes {kern.ranks = array<i64: 0>} {
  %s = graph.slice %past {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 6, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32> -> tensor<1x2x6x8xf32>
  %c = graph.concat %s, %new {axis = 2 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32> -> tensor<1x2x7x8xf32>
  %g = dist.all_gather %c on @mesh axes = ["tp"] dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
  return %g : tensor<1x4x7x8xf32>
}
func.func @rank1(%past: tensor<1x4x6x8xf32> {graph.cache = {axis = 2 : i64, output = 0 : i64}}, %new: tensor<1x2x1x8xf32>) -> tensor<1x4x7x8xf32> attributes {kern.ranks = array<i64: 1>} {
  %s = graph.slice %past {starts = array<i64: 0, 1, 0, 0>, ends = array<i64: 1, 3, 6, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32> -> tensor<1x2x6x8xf32>
  %c = graph.concat %s, %new {axis = 2 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32> -> tensor<1x2x7x8xf32>
  %g = dist.all_gather %c on @mesh axes = ["tp"] dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
  return %g : tensor<1x4x7x8xf32>
}

// -----

dist.mesh @mesh axes = ["tp"] shape = [2]

// Left alone: the past has another use (it would read the input, which the
// runtime does not fill for a cache); the gather does not rebuild the
// past's six heads; a past that is not a cache.
// CHECK-LABEL: func.func @rank0
// CHECK:         graph.slice %arg0
// CHECK:         dist.all_gather %{{.*}} dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
// CHECK:         graph.slice %arg1
// CHECK:         dist.all_gather %{{.*}} dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
// CHECK:         graph.slice %arg2
// CHECK:         dist.all_gather %{{.*}} dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
func.func @rank0(%past: tensor<1x4x6x8xf32> {graph.cache = {axis = 2 : i64, output = 0 : i64}}, %six: tensor<1x6x6x8xf32> {graph.cache = {axis = 2 : i64, output = 2 : i64}}, %plain: tensor<1x4x6x8xf32>, %new: tensor<1x2x1x8xf32>) -> (tensor<1x4x7x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x7x8xf32>, tensor<1x4x7x8xf32>) attributes {kern.ranks = array<i64: 0>} {
  %s = graph.slice %past {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 6, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32> -> tensor<1x2x6x8xf32>
  %c = graph.concat %s, %new {axis = 2 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32> -> tensor<1x2x7x8xf32>
  %g = dist.all_gather %c on @mesh axes = ["tp"] dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
  %e = graph.exp %past : tensor<1x4x6x8xf32>
  %s1 = graph.slice %six {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 6, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x6x6x8xf32> -> tensor<1x2x6x8xf32>
  %c1 = graph.concat %s1, %new {axis = 2 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32> -> tensor<1x2x7x8xf32>
  %g1 = dist.all_gather %c1 on @mesh axes = ["tp"] dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
  %s2 = graph.slice %plain {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 6, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xf32> -> tensor<1x2x6x8xf32>
  %c2 = graph.concat %s2, %new {axis = 2 : i64} : tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32> -> tensor<1x2x7x8xf32>
  %g2 = dist.all_gather %c2 on @mesh axes = ["tp"] dim = 1 : tensor<1x2x7x8xf32> -> tensor<1x4x7x8xf32>
  return %g, %e, %g1, %g2 : tensor<1x4x7x8xf32>, tensor<1x4x6x8xf32>, tensor<1x4x7x8xf32>, tensor<1x4x7x8xf32>
}
