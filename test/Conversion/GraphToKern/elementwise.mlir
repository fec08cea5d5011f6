// RUN: %shardc-opt %s --split-input-file --convert-graph-to-kern | FileCheck %s
// Elementwise graph ops become kern.map kernels: numpy broadcasting through
// zero strides, splat constants folded into the body, results written
// straight into the output arguments.

// Broadcasting: a [3,1] operand over [2,3,4] has strides (0, 1, 0); a [4]
// one (0, 0, 1). The function takes inputs, then outputs, named by
// kern.input / kern.output.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x3x4xf32> {kern.input = "x"}, %[[B:arg[0-9]+]]: memref<3x1xf32> {kern.input = "b"}, %[[V:arg[0-9]+]]: memref<4xf32> {kern.input = "v"}, %[[Y:arg[0-9]+]]: memref<2x3x4xf32> {kern.output = "y"})
// CHECK-NOT: kern.alloc
// CHECK:      %[[T:.*]] = kern.alloc : memref<2x3x4xf32>
// CHECK-NEXT: kern.map ins(%[[X]], %[[B]] : memref<2x3x4xf32>, memref<3x1xf32>) outs(%[[T]] : memref<2x3x4xf32>) attributes {layouts = [array<i64: 0, 12, 4, 1>, array<i64: 0, 0, 1, 0>, array<i64: 0, 12, 4, 1>], shape = array<i64: 2, 3, 4>} {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[A0]], %[[A1]] : f32
// CHECK-NEXT:   kern.yield %[[S]] : f32
// The last op writes the output argument directly: no alloc, no copy.
// CHECK-NOT:  kern.alloc
// CHECK:      kern.map ins(%[[T]], %[[V]] : memref<2x3x4xf32>, memref<4xf32>) outs(%[[Y]] : memref<2x3x4xf32>) attributes {layouts = [array<i64: 0, 12, 4, 1>, array<i64: 0, 0, 0, 1>, array<i64: 0, 12, 4, 1>], shape = array<i64: 2, 3, 4>}
// CHECK:        arith.mulf
// CHECK-NOT:  kern.map
// CHECK:      return
func.func @main(%x: tensor<2x3x4xf32> {graph.name = "x"}, %b: tensor<3x1xf32> {graph.name = "b"}, %v: tensor<4xf32> {graph.name = "v"}) -> (tensor<2x3x4xf32> {graph.name = "y"}) {
  %0 = graph.add %x, %b : tensor<2x3x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
  %1 = graph.mul %0, %v : tensor<2x3x4xf32>, tensor<4xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// A splat constant is a body constant, not a weight; a non-splat constant is
// a kern.weight read with broadcast strides.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x4xf32> {kern.input = "x"}, %[[Y:arg[0-9]+]]: memref<2x4xf32> {kern.output = "y"})
// CHECK-NEXT: %[[W:.*]] = kern.weight {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>} : memref<4xf32>
// CHECK-NOT:  kern.weight
// CHECK:      kern.map ins(%[[X]] : memref<2x4xf32>) outs(%[[T:.*]] : memref<2x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 2, 4>} {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:   %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[A]], %[[C]] : f32
// CHECK-NEXT:   kern.yield %[[M]] : f32
// CHECK:      kern.map ins(%[[T]], %[[W]] : memref<2x4xf32>, memref<4xf32>) outs(%[[Y]] : memref<2x4xf32>) attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 0, 1>, array<i64: 0, 4, 1>], shape = array<i64: 2, 4>}
// CHECK:        arith.subf
func.func @main(%x: tensor<2x4xf32> {graph.name = "x"}) -> (tensor<2x4xf32> {graph.name = "y"}) {
  %c = graph.constant dense<0.5> : tensor<1xf32>
  %w = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = graph.mul %x, %c : tensor<2x4xf32>, tensor<1xf32> -> tensor<2x4xf32>
  %1 = graph.sub %0, %w : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// Integer splats are signless in the body.
// CHECK-LABEL: func.func @main
// CHECK-NOT:  kern.weight
// CHECK:      kern.map ins(%{{.*}} : memref<5xui16>) outs(%{{.*}} : memref<5xui16>)
// CHECK-NEXT: ^bb0(%[[U:.*]]: i16):
// CHECK-NEXT:   %[[C3:.*]] = arith.constant 3 : i16
// CHECK-NEXT:   %[[D:.*]] = arith.divui %[[U]], %[[C3]] : i16
func.func @main(%x: tensor<5xui16> {graph.name = "x"}) -> (tensor<5xui16> {graph.name = "y"}) {
  %c = graph.constant dense<3> : tensor<ui16>
  %0 = graph.div %x, %c : tensor<5xui16>, tensor<ui16> -> tensor<5xui16>
  return %0 : tensor<5xui16>
}

// -----

// Outputs nobody wrote directly are copied at the end: a returned input, an
// identity of an input (an alias, no kernel of its own), a view (reshape) of
// a computed value, a value returned twice and a constant.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<2x3xf32> {kern.input = "x"}, %[[O1:arg[0-9]+]]: memref<2x3xf32> {kern.output = "relu"}, %[[O2:arg[0-9]+]]: memref<2x3xf32> {kern.output = "again"}, %[[O3:arg[0-9]+]]: memref<3x2xf32> {kern.output = "view"}, %[[O4:arg[0-9]+]]: memref<2x3xf32> {kern.output = "input"}, %[[O5:arg[0-9]+]]: memref<2x3xf32> {kern.output = "alias"}, %[[O6:arg[0-9]+]]: memref<2xi64> {kern.output = "const"})
// CHECK:      %[[W:.*]] = kern.weight {value = dense<[5, 6]> : tensor<2xi64>} : memref<2xi64>
// CHECK-NOT:  kern.alloc
// CHECK:      kern.map ins(%[[X]] : memref<2x3xf32>) outs(%[[O1]] : memref<2x3xf32>)
// CHECK:        arith.maximumf
// CHECK:      %[[RV:.*]] = kern.view %[[O1]] : memref<2x3xf32> to memref<3x2xf32>
// CHECK-NEXT: kern.map ins(%[[O1]] : memref<2x3xf32>) outs(%[[O2]] : memref<2x3xf32>) attributes {layouts = [array<i64: 0, 3, 1>, array<i64: 0, 3, 1>], shape = array<i64: 2, 3>} {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:   kern.yield %[[A]] : f32
// CHECK:      kern.map ins(%[[RV]] : memref<3x2xf32>) outs(%[[O3]] : memref<3x2xf32>) attributes {layouts = [array<i64: 0, 2, 1>, array<i64: 0, 2, 1>], shape = array<i64: 3, 2>}
// CHECK:      kern.map ins(%[[X]] : memref<2x3xf32>) outs(%[[O4]] : memref<2x3xf32>)
// CHECK:      kern.map ins(%[[X]] : memref<2x3xf32>) outs(%[[O5]] : memref<2x3xf32>)
// CHECK:      kern.map ins(%[[W]] : memref<2xi64>) outs(%[[O6]] : memref<2xi64>)
// CHECK-NOT:  kern.map
// CHECK:      return
func.func @main(%x: tensor<2x3xf32> {graph.name = "x"}) -> (tensor<2x3xf32> {graph.name = "relu"}, tensor<2x3xf32> {graph.name = "again"}, tensor<3x2xf32> {graph.name = "view"}, tensor<2x3xf32> {graph.name = "input"}, tensor<2x3xf32> {graph.name = "alias"}, tensor<2xi64> {graph.name = "const"}) {
  %c = graph.constant dense<[5, 6]> : tensor<2xi64>
  %0 = graph.relu %x : tensor<2x3xf32>
  %1 = graph.reshape %0 {shape = array<i64: 3, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = graph.identity %x : tensor<2x3xf32>
  return %0, %0, %1, %x, %2, %c : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xi64>
}

// -----

// Unnamed inputs and outputs get positional names.
// CHECK-LABEL: func.func @main
// CHECK-SAME: {kern.input = "input0"}
// CHECK-SAME: {kern.output = "output0"}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Signedness picks the arith op; bodies are signless; comparisons yield i1.
// CHECK-LABEL: func.func @main
// CHECK:      kern.map ins(%{{.*}}, %{{.*}} : memref<4xi32>, memref<4xi32>) outs(%{{.*}} : memref<4xi32>)
// CHECK:        arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK:      kern.map ins(%{{.*}}, %{{.*}} : memref<4xui32>, memref<4xui32>) outs(%{{.*}} : memref<4xi1>)
// CHECK-NEXT: ^bb0(%{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT:   %[[LT:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:   kern.yield %[[LT]] : i1
// CHECK:      kern.map ins(%{{.*}} : memref<4xui32>) outs(%{{.*}} : memref<4xf32>)
// CHECK:        arith.uitofp %{{.*}} : i32 to f32
// CHECK:      kern.map ins(%{{.*}} : memref<4xi32>) outs(%{{.*}} : memref<4xf16>)
// CHECK:        arith.sitofp %{{.*}} : i32 to f16
// CHECK:      kern.map ins(%{{.*}} : memref<4xf32>) outs(%{{.*}} : memref<4xi1>)
// CHECK:        %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:        arith.cmpf une, %{{.*}}, %[[Z]] : f32
// CHECK:      kern.map ins(%{{.*}} : memref<4xi1>) outs(%{{.*}} : memref<4xi1>)
// CHECK:        %[[TRUE:.*]] = arith.constant true
// CHECK:        arith.xori %{{.*}}, %[[TRUE]] : i1
func.func @main(%i: tensor<4xi32>, %u: tensor<4xui32>, %f: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf16>, tensor<4xi1>) {
  %0 = graph.div %i, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %1 = graph.less %u, %u : tensor<4xui32>, tensor<4xui32> -> tensor<4xi1>
  %2 = graph.cast %u {to = f32} : tensor<4xui32> -> tensor<4xf32>
  %3 = graph.cast %i {to = f16} : tensor<4xi32> -> tensor<4xf16>
  %4 = graph.cast %f {to = i1} : tensor<4xf32> -> tensor<4xi1>
  %5 = graph.not %4 : tensor<4xi1>
  return %0, %1, %2, %3, %5 : tensor<4xi32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf16>, tensor<4xi1>
}

// -----

// Where broadcasts all three operands; clip and leaky_relu bodies.
// CHECK-LABEL: func.func @main
// CHECK:      kern.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<3x1xi1>, memref<4xf32>, memref<3x4xf32>) outs(%{{.*}} : memref<3x4xf32>) attributes {layouts = [array<i64: 0, 1, 0>, array<i64: 0, 0, 1>, array<i64: 0, 4, 1>, array<i64: 0, 4, 1>], shape = array<i64: 3, 4>} {
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.select %[[C]], %[[A]], %[[B]] : f32
// CHECK-NEXT:   kern.yield %[[S]] : f32
// CHECK:      kern.map
// CHECK:        %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:        arith.maximumf %{{.*}}, %[[LO]] : f32
// CHECK:        %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK:        arith.minimumf %{{.*}}, %[[HI]] : f32
// CHECK:      kern.map
// CHECK:        arith.cmpf oge
// CHECK:        arith.select
func.func @main(%c: tensor<3x1xi1>, %a: tensor<4xf32>, %b: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = graph.where %c, %a, %b : tensor<3x1xi1>, tensor<4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %1 = graph.clip %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<3x4xf32>
  %2 = graph.leaky_relu %0 {alpha = 0.1 : f32} : tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// Generators have no inputs: range from kern.index, constant_of_shape a
// body constant.
// CHECK-LABEL: func.func @main
// CHECK:      kern.map outs(%{{.*}} : memref<3xf32>) attributes {layouts = [array<i64: 0, 1>], shape = array<i64: 3>} {
// CHECK-NEXT:   %[[I:.*]] = kern.index 0
// CHECK-NEXT:   %[[F:.*]] = arith.sitofp %[[I]] : i64 to f64
// CHECK:        arith.truncf %{{.*}} : f64 to f32
// CHECK:      kern.map outs(%{{.*}} : memref<2x2xi64>) attributes {layouts = [array<i64: 0, 2, 1>], shape = array<i64: 2, 2>} {
// CHECK-NEXT:   %[[C7:.*]] = arith.constant 7 : i64
// CHECK-NEXT:   kern.yield %[[C7]] : i64
func.func @main() -> (tensor<3xf32>, tensor<2x2xi64>) {
  %0 = graph.range {start = 0.0 : f64, limit = 1.5 : f64, delta = 0.5 : f64, element_type = f32} : tensor<3xf32>
  %1 = graph.constant_of_shape {shape = array<i64: 2, 2>, value = dense<7> : tensor<1xi64>} : tensor<2x2xi64>
  return %0, %1 : tensor<3xf32>, tensor<2x2xi64>
}

// -----

// Pow with an integer exponent converts it to the base's type.
// CHECK-LABEL: func.func @main
// CHECK:      ^bb0(%[[X:.*]]: f32, %[[N:.*]]: i32):
// CHECK-NEXT:   %[[NF:.*]] = arith.sitofp %[[N]] : i32 to f32
// CHECK-NEXT:   %[[P:.*]] = math.powf %[[X]], %[[NF]] : f32
func.func @main(%x: tensor<4xf32>, %n: tensor<4xi32>) -> tensor<4xf32> {
  %0 = graph.pow %x, %n : tensor<4xf32>, tensor<4xi32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Max/Min (ONNX's variadic ones import as chains of these): IEEE maximum and
// minimum on floats (a NaN operand gives NaN), signed or unsigned ones on
// integers.
// CHECK-LABEL: func.func @main
// CHECK:      kern.map
// CHECK:        arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:      kern.map
// CHECK:        arith.minsi %{{.*}}, %{{.*}} : i32
// CHECK:      kern.map
// CHECK:        arith.maxui %{{.*}}, %{{.*}} : i32
func.func @main(%f: tensor<4xf32>, %g: tensor<4xf32>, %i: tensor<4xi32>, %u: tensor<4xui32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xui32>) {
  %0 = graph.max %f, %g : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = graph.min %i, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %2 = graph.max %u, %u : tensor<4xui32>, tensor<4xui32> -> tensor<4xui32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<4xui32>
}
