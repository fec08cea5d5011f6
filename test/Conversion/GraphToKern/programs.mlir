// RUN: %shardc-opt %s --convert-graph-to-kern | FileCheck %s
// Every function of the module is a program: each is lowered under its own
// name, and its attributes (the ranks it serves) carry over.

// CHECK-LABEL: func.func @stage0(
// CHECK-SAME:    %[[X:.+]]: memref<4xf32> {kern.input = "x"}, %[[Y:.+]]: memref<4xf32> {kern.output = "y"})
// CHECK-SAME:    attributes {kern.ranks = array<i64: 0>}
// CHECK:         kern.map ins(%[[X]] : memref<4xf32>) outs(%[[Y]] : memref<4xf32>)
// CHECK:           math.tanh
// CHECK-LABEL: func.func @stage1(
// CHECK-SAME:    attributes {kern.ranks = array<i64: 1, 2>}
// CHECK:           arith.mulf
module {
  func.func @stage0(%x: tensor<4xf32> {graph.name = "x"}) -> (tensor<4xf32> {graph.name = "y"})
      attributes {kern.ranks = array<i64: 0>} {
    %0 = graph.tanh %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @stage1(%x: tensor<4xf32> {graph.name = "h"}) -> (tensor<4xf32> {graph.name = "z"})
      attributes {kern.ranks = array<i64: 1, 2>} {
    %0 = graph.mul %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
