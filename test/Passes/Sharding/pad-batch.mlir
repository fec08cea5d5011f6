// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --dist-pad-batch="axis=dp parts=4" | FileCheck %s
// RUN: %shardc-opt %s --split-input-file --verify-diagnostics --dist-pad-batch="axis=mb parts=4" | FileCheck %s --check-prefix=MB
// dist-pad-batch: a batch of 5 over 4 parts is re-typed to 8 rows. Part r
// holds its share (2, 1, 1, 1 rows: items [0, 1], [2], [3], [4]), then
// copies of its last row; a constant with the batch's rows is laid out
// the same way; each output keeps its real rows.

// dp: the inputs keep their shapes and a gather lays out the padded rows
// (marked for dist-seed-batch); a reshape that merges the batch with
// another dim takes the padded size; the output drops the copies.
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%[[X:.*]]: tensor<5x2xf32>, %[[P:.*]]: tensor<1x2xf32>) -> tensor<5x2xf32>
// CHECK:         %[[I:.*]] = graph.constant dense<[0, 1, 2, 2, 3, 3, 4, 4]> : tensor<8xi64>
// CHECK:         %[[G:.*]] = graph.gather %[[X]], %[[I]] {axis = 0 : i64, dist.batch_source = 0 : i64} : tensor<5x2xf32>, tensor<8xi64> -> tensor<8x2xf32>
// CHECK:         %[[C:.*]] = graph.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00], [4.000000e+00, 5.000000e+00], [6.000000e+00, 7.000000e+00], [6.000000e+00, 7.000000e+00], [8.000000e+00, 9.000000e+00], [8.000000e+00, 9.000000e+00]]> : tensor<8x2xf32>
// CHECK:         %[[A:.*]] = graph.add %[[G]], %[[C]] : tensor<8x2xf32>, tensor<8x2xf32> -> tensor<8x2xf32>
// CHECK:         %[[B:.*]] = graph.add %[[A]], %[[P]] : tensor<8x2xf32>, tensor<1x2xf32> -> tensor<8x2xf32>
// CHECK:         %[[R:.*]] = graph.reshape %[[B]] {shape = array<i64: 16>} : tensor<8x2xf32> -> tensor<16xf32>
// CHECK:         %[[S:.*]] = graph.reshape %[[R]] {shape = array<i64: 8, 2>} : tensor<16xf32> -> tensor<8x2xf32>
// CHECK:         %[[U:.*]] = graph.constant dense<[0, 1, 2, 4, 6]> : tensor<5xi64>
// CHECK:         %[[O:.*]] = graph.gather %[[S]], %[[U]] {axis = 0 : i64} : tensor<8x2xf32>, tensor<5xi64> -> tensor<5x2xf32>
// CHECK:         return %[[O]]
// mb: the inputs and outputs take the padded shape; the runtime fills the
// micro-batches' rows (dist.batch_items).
// MB-LABEL:    func.func @rows
// MB-SAME:       (%{{.*}}: tensor<8x2xf32>, %{{.*}}: tensor<1x2xf32>) -> tensor<8x2xf32>
// MB-SAME:       dist.batch_items = 5 : i64
// MB-NOT:        graph.gather
// MB:            graph.reshape %{{.*}} {shape = array<i64: 16>} : tensor<8x2xf32> -> tensor<16xf32>
func.func @rows(%x: tensor<5x2xf32>, %p: tensor<1x2xf32>) -> tensor<5x2xf32> {
  %c = graph.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]]> : tensor<5x2xf32>
  %a = graph.add %x, %c : tensor<5x2xf32>, tensor<5x2xf32> -> tensor<5x2xf32>
  %b = graph.add %a, %p : tensor<5x2xf32>, tensor<1x2xf32> -> tensor<5x2xf32>
  %r = graph.reshape %b {shape = array<i64: 10>} : tensor<5x2xf32> -> tensor<10xf32>
  %s = graph.reshape %r {shape = array<i64: 5, 2>} : tensor<10xf32> -> tensor<5x2xf32>
  return %s : tensor<5x2xf32>
}

// -----

// A batch the parts divide is left as it is.
// CHECK-LABEL: func.func @even
// CHECK-NOT:     graph.gather
// MB-LABEL:    func.func @even
// MB-SAME:       tensor<4x2xf32>
// MB-NOT:        dist.batch_items
func.func @even(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %a = graph.relu %x : tensor<4x2xf32>
  return %a : tensor<4x2xf32>
}

// -----

// A reduction over the batch would sum the copies: refused, the node named
// (at the node: 'this node needs the rows of the whole batch (it reduces
// over them)').
func.func @mixes(%x: tensor<5x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{this node needs the rows of the whole batch (it reduces over them)}}
  %s = graph.reduce_sum %x {axes = array<i64: 0>} : tensor<5x2xf32> -> tensor<1x2xf32>
  return %s : tensor<1x2xf32>
}
