// RUN: %shardc-opt %s --split-input-file --verify-diagnostics
// One case per error of the kern dialect's dynamic dims (SymbolicShapes.cpp).

// A mirror that is not the static value at the bounds.
func.func @bound_mismatch() attributes {kern.dims = [{name = "seq", max = 8 : i64}]} {
  // expected-error @+1 {{'kern.alloc' op 'result shape': dim 0 is seq, which is 8 at the bounds, but the static shape says 4}}
  %0 = kern.alloc {kern.sym = {result = affine_map<()[s0] -> (s0, 16)>}} : memref<4x16xf32>
  return
}

// -----

// A symbol the function does not name.
func.func @unknown_symbol() attributes {kern.dims = [{name = "seq", max = 8 : i64}]} {
  // expected-error @+1 {{'kern.alloc' op 'result shape': dim 0 (s1) uses symbol s1 but the function names 1 (kern.dims)}}
  %0 = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s1, 16)>}} : memref<8x16xf32>
  return
}

// -----

// A size must grow with its symbols.
func.func @not_monotone() attributes {kern.dims = [{name = "seq", max = 8 : i64}]} {
  // expected-error @+1 {{'result shape': dim 0 (-seq + 16) is not a size that grows with its symbols}}
  %0 = kern.alloc {kern.sym = {result = affine_map<()[s0] -> (16 - s0)>}} : memref<8xf32>
  return
}

// -----

// A layout mirror of a kernel that disagrees at the bounds.
func.func @layout_mismatch(%x: memref<8x16xf32> {kern.input = "x", kern.sym = affine_map<()[s0] -> (s0, 16)>}, %y: memref<8x16xf32> {kern.output = "y", kern.sym = affine_map<()[s0] -> (s0, 16)>}) attributes {kern.dims = [{name = "seq", max = 8 : i64}]} {
  // expected-error @+1 {{'kern.map' op 'layouts[1]': dim 1 is seq, which is 8 at the bounds, but the static value says 16}}
  kern.map ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>) attributes {kern.sym = {layouts = [affine_map<() -> (0, 16, 1)>, affine_map<()[s0] -> (0, s0, 1)>], shape = affine_map<()[s0] -> (s0, 16)>}, layouts = [array<i64: 0, 16, 1>, array<i64: 0, 16, 1>], shape = array<i64: 8, 16>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

// A mirror of an attribute the op does not have.
func.func @no_static(%x: memref<8xf32> {kern.input = "x"}, %y: memref<8xf32> {kern.output = "y"}) attributes {kern.dims = [{name = "seq", max = 8 : i64}]} {
  // expected-error @+1 {{'kern.softmax' op 'kern.sym' entry 'dims' must mirror an i64 array (or an array of them) with symbolic sizes}}
  kern.softmax %x into %y {axis = 0 : i64, kern.sym = {dims = affine_map<()[s0] -> (s0)>}} : memref<8xf32> into memref<8xf32>
  return
}

// -----

// An argument's mirror must hold at the bounds too.
// expected-error @+1 {{'func.func' op 'argument 0 shape': dim 0 is seq, which is 8 at the bounds, but the static shape says 4}}
func.func @argument(%x: memref<4xf32> {kern.input = "x", kern.sym = affine_map<()[s0] -> (s0)>}) attributes {kern.dims = [{name = "seq", max = 8 : i64}]} {
  return
}

// -----

// The symbol table needs names and bounds of at least 1.
// expected-error @+1 {{'func.func' op 'kern.dims' entry 0 needs a name and a max of at least 1, got {max = 0 : i64, name = "seq"}}}
func.func @bad_table() attributes {kern.dims = [{name = "seq", max = 0 : i64}]} {
  return
}

// -----

// kern.sym outside a function with kern.dims names no symbols.
func.func @no_table() {
  // expected-error @+1 {{'kern.alloc' op 'result shape': dim 0 (s0) uses symbol s0 but the function names 0 (kern.dims)}}
  %0 = kern.alloc {kern.sym = {result = affine_map<()[s0] -> (s0)>}} : memref<8xf32>
  return
}
