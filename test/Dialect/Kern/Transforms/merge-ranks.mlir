// RUN: %shardc-opt %s --split-input-file --kern-merge-ranks | FileCheck %s
// Rank programs that run the same code merge into one serving their ranks
// in order; what differs between them (weights' data and windows, a
// gather's vocabulary offset, a map's base offset) is listed per rank.

// CHECK-LABEL: func.func @main_rank0
// CHECK-SAME:    kern.ranks = array<i64: 0, 1>
// CHECK:         kern.weight {kern.per_rank = {value = [dense<1.000000e+00> : tensor<4x2xf32>, dense<2.000000e+00> : tensor<4x2xf32>]}, offset = 0 : i64, value = dense<1.000000e+00> : tensor<4x2xf32>}
// CHECK:         kern.weight {offset = 64 : i64, value = dense<5.000000e-01> : tensor<2xf32>}
// CHECK:         kern.gather {{.*}} {axis = 0 : i64, kern.per_rank = {part = [array<i64: 8, 0>, array<i64: 8, 4>]}, part = array<i64: 8, 0>}
// CHECK:         kern.map {{.*}} attributes {kern.per_rank = {layouts = {{\[}}[array<i64: 0, 2, 1>, array<i64: 0, 2, 1>], [array<i64: 6, 2, 1>, array<i64: 0, 2, 1>]]}, layouts = [array<i64: 0, 2, 1>, array<i64: 0, 2, 1>], shape = array<i64: 3, 2>}
// CHECK:           arith.addf
// CHECK-NOT:   func.func
module {
  func.func @main_rank0(%ids: memref<3xi64> {kern.input = "ids"}, %y: memref<3x2xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 0>, kern.arena_bytes = 128 : i64} {
    %t = kern.weight {offset = 0 : i64, value = dense<1.0> : tensor<4x2xf32>} : memref<4x2xf32>
    %b = kern.weight {offset = 64 : i64, value = dense<0.5> : tensor<2xf32>} : memref<2xf32>
    %g = kern.alloc {offset = 0 : i64} : memref<6x2xf32>
    %h = kern.view %g : memref<6x2xf32> to memref<12xf32>
    kern.gather %t, %ids into %y {axis = 0 : i64, part = array<i64: 8, 0>} : memref<4x2xf32>, memref<3xi64> into memref<3x2xf32>
    kern.map ins(%g : memref<6x2xf32>) outs(%y : memref<3x2xf32>) attributes {layouts = [array<i64: 0, 2, 1>, array<i64: 0, 2, 1>], shape = array<i64: 3, 2>} {
    ^bb0(%a: f32):
      %s = arith.addf %a, %a : f32
      kern.yield %s : f32
    }
    return
  }
  func.func @main_rank1(%ids: memref<3xi64> {kern.input = "ids"}, %y: memref<3x2xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 1>, kern.arena_bytes = 128 : i64} {
    %t = kern.weight {offset = 0 : i64, value = dense<2.0> : tensor<4x2xf32>} : memref<4x2xf32>
    %b = kern.weight {offset = 64 : i64, value = dense<0.5> : tensor<2xf32>} : memref<2xf32>
    %g = kern.alloc {offset = 0 : i64} : memref<6x2xf32>
    %h = kern.view %g : memref<6x2xf32> to memref<12xf32>
    kern.gather %t, %ids into %y {axis = 0 : i64, part = array<i64: 8, 4>} : memref<4x2xf32>, memref<3xi64> into memref<3x2xf32>
    kern.map ins(%g : memref<6x2xf32>) outs(%y : memref<3x2xf32>) attributes {layouts = [array<i64: 6, 2, 1>, array<i64: 0, 2, 1>], shape = array<i64: 3, 2>} {
    ^bb0(%a: f32):
      %s = arith.addf %a, %a : f32
      kern.yield %s : f32
    }
    return
  }
}

// -----

// A window of a larger tensor on one rank and the weight's own data on
// the other: `unit` where a rank has no such attribute.
// CHECK-LABEL: func.func @main_rank0
// CHECK-SAME:    kern.ranks = array<i64: 0, 1>
// CHECK:         kern.weight {kern.per_rank = {graph.source = [unit, dense<3.000000e+00> : tensor<3x2xf32>], graph.source_offset = [unit, array<i64: 2, 0>], value = [dense<1.000000e+00> : tensor<2x2xf32>, dense<3.000000e+00> : tensor<2x2xf32>]}, offset = 0 : i64, value = dense<1.000000e+00> : tensor<2x2xf32>}
// CHECK-NOT:   func.func
module {
  func.func @main_rank0(%y: memref<2x2xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 0>} {
    %w = kern.weight {offset = 0 : i64, value = dense<1.0> : tensor<2x2xf32>} : memref<2x2xf32>
    kern.softmax %w into %y {axis = 0 : i64} : memref<2x2xf32> into memref<2x2xf32>
    return
  }
  func.func @main_rank1(%y: memref<2x2xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 1>} {
    %w = kern.weight {graph.source = dense<3.0> : tensor<3x2xf32>, graph.source_offset = array<i64: 2, 0>, offset = 0 : i64, value = dense<3.0> : tensor<2x2xf32>} : memref<2x2xf32>
    kern.softmax %w into %y {axis = 0 : i64} : memref<2x2xf32> into memref<2x2xf32>
    return
  }
}

// -----

// What stays apart: a rank whose shard has another shape (rank 1), a rank
// whose buffers are placed elsewhere (rank 2), a rank whose attributes
// have other names (rank 3) and a pipeline stage (rank 4, dist.stage).
// Rank 5 runs rank 0's code and joins it.
// CHECK-LABEL: func.func @main_rank0
// CHECK-SAME:    kern.ranks = array<i64: 0, 5>
// CHECK-LABEL: func.func @main_rank1
// CHECK-SAME:    kern.ranks = array<i64: 1>
// CHECK-LABEL: func.func @main_rank2
// CHECK-SAME:    kern.ranks = array<i64: 2>
// CHECK-LABEL: func.func @main_rank3
// CHECK-SAME:    kern.ranks = array<i64: 3>
// CHECK-LABEL: func.func @main_rank4
// CHECK-SAME:    kern.ranks = array<i64: 4>
// CHECK-NOT:   func.func
module {
  func.func @main_rank0(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 0>} {
    %a = kern.alloc {offset = 0 : i64} : memref<4xf32>
    kern.softmax %x into %a {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    kern.softmax %a into %y {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    return
  }
  func.func @main_rank1(%x: memref<2xf32> {kern.input = "x"}, %y: memref<2xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 1>} {
    %a = kern.alloc {offset = 0 : i64} : memref<2xf32>
    kern.softmax %x into %a {axis = 0 : i64} : memref<2xf32> into memref<2xf32>
    kern.softmax %a into %y {axis = 0 : i64} : memref<2xf32> into memref<2xf32>
    return
  }
  func.func @main_rank2(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 2>} {
    %a = kern.alloc {offset = 64 : i64} : memref<4xf32>
    kern.softmax %x into %a {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    kern.softmax %a into %y {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    return
  }
  func.func @main_rank3(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 3>} {
    %a = kern.alloc {offset = 0 : i64} : memref<4xf32>
    kern.softmax %x into %a {axis = 0 : i64, log} : memref<4xf32> into memref<4xf32>
    kern.softmax %a into %y {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    return
  }
  func.func @main_rank4(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) attributes {dist.stage = 1 : i64, kern.ranks = array<i64: 4>} {
    %a = kern.alloc {offset = 0 : i64} : memref<4xf32>
    kern.softmax %x into %a {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    kern.softmax %a into %y {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    return
  }
  func.func @main_rank5(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 5>} {
    %a = kern.alloc {offset = 0 : i64} : memref<4xf32>
    kern.softmax %x into %a {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    kern.softmax %a into %y {axis = 0 : i64} : memref<4xf32> into memref<4xf32>
    return
  }
}

// -----

// A constant inside a kernel body (an inherent attribute, held as a
// property) that differs per rank is listed per rank too.
// CHECK-LABEL: func.func @main_rank0
// CHECK-SAME:    kern.ranks = array<i64: 0, 1>
// CHECK:         arith.constant {kern.per_rank = {value = [1.000000e+00 : f32, 2.000000e+00 : f32]}} 1.000000e+00 : f32
module {
  func.func @main_rank0(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 0>} {
    kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
    ^bb0(%a: f32):
      %c = arith.constant 1.0 : f32
      %s = arith.addf %a, %c : f32
      kern.yield %s : f32
    }
    return
  }
  func.func @main_rank1(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) attributes {kern.ranks = array<i64: 1>} {
    kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
    ^bb0(%a: f32):
      %c = arith.constant 2.0 : f32
      %s = arith.addf %a, %c : f32
      kern.yield %s : f32
    }
    return
  }
}
