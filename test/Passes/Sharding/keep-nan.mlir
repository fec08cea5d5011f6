// RUN: %shardc-opt %s --dist-keep-nan | FileCheck %s
// dist-keep-nan: a max or min collective of floats ORs a NaN mask over the
// same axes and selects NaN where any rank had one (NCCL's fmaxf/fminf
// would drop it); sums and integers are left as they are.

dist.mesh @mesh axes = ["tp"] shape = [2]

// CHECK-LABEL: func.func @extrema
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xf16>, %[[I:.*]]: tensor<4x8xi32>)
// CHECK:         %[[R:.*]] = dist.all_reduce %[[X]] on @mesh axes = ["tp"] kind = "max" : tensor<4x8xf32>
// CHECK-NEXT:    %[[EQ:.*]] = graph.equal %[[X]], %[[X]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK-NEXT:    %[[NAN:.*]] = graph.not %[[EQ]] : tensor<4x8xi1>
// CHECK-NEXT:    %[[ANY:.*]] = dist.all_reduce %[[NAN]] on @mesh axes = ["tp"] kind = "max" : tensor<4x8xi1>
// CHECK-NEXT:    %[[Q:.*]] = graph.constant dense<0x7FC00000> : tensor<f32>
// CHECK-NEXT:    %[[Y:.*]] = graph.where %[[ANY]], %[[Q]], %[[R]] : tensor<4x8xi1>, tensor<f32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK:         %[[S:.*]] = dist.reduce_scatter %[[H]] on @mesh axes = ["tp"] dim = 0 kind = "min" : tensor<4x8xf16> -> tensor<2x8xf16>
// CHECK:         %[[HANY:.*]] = dist.reduce_scatter %{{.*}} on @mesh axes = ["tp"] dim = 0 kind = "max" : tensor<4x8xi1> -> tensor<2x8xi1>
// CHECK-NEXT:    %[[HQ:.*]] = graph.constant dense<0x7E00> : tensor<f16>
// CHECK-NEXT:    %[[HY:.*]] = graph.where %[[HANY]], %[[HQ]], %[[S]]
// CHECK:         %[[SUM:.*]] = dist.all_reduce %[[X]] on @mesh axes = ["tp"] kind = "sum" : tensor<4x8xf32>
// CHECK-NEXT:    %[[IMAX:.*]] = dist.all_reduce %[[I]] on @mesh axes = ["tp"] kind = "max" : tensor<4x8xi32>
// CHECK-NEXT:    return %[[Y]], %[[HY]], %[[SUM]], %[[IMAX]]
func.func @extrema(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>, %i: tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<2x8xf16>, tensor<4x8xf32>, tensor<4x8xi32>) {
  %r = dist.all_reduce %x on @mesh axes = ["tp"] kind = "max" : tensor<4x8xf32>
  %s = dist.reduce_scatter %h on @mesh axes = ["tp"] dim = 0 kind = "min" : tensor<4x8xf16> -> tensor<2x8xf16>
  %sum = dist.all_reduce %x on @mesh axes = ["tp"] kind = "sum" : tensor<4x8xf32>
  %imax = dist.all_reduce %i on @mesh axes = ["tp"] kind = "max" : tensor<4x8xi32>
  return %r, %s, %sum, %imax : tensor<4x8xf32>, tensor<2x8xf16>, tensor<4x8xf32>, tensor<4x8xi32>
}
