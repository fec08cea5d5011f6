// RUN: %shardc-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// Kern collectives over bounded dynamic dims (KernSymbolicShapes): the
// runtime moves the run's elements, so the buffers' symbolic element
// counts must agree for every value of the symbols, not only at the
// bounds.

// CHECK-LABEL: func.func @collectives
// CHECK: kern.all_reduce
// CHECK: kern.all_gather
// CHECK: kern.reduce_scatter
// CHECK: kern.all_to_all
func.func @collectives(%x: memref<2x8x8xf32> {kern.input = "x", kern.sym = affine_map<()[s0, s1] -> (s0, s1, 8)>}) attributes {kern.dims = [{name = "batch", max = 2 : i64}, {name = "seq", max = 8 : i64}]} {
  %a = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s0, s1, 8)>}} : memref<2x8x8xf32>
  %b = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (2, s0, s1, 8)>}} : memref<2x2x8x8xf32>
  %c = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s0, s1, 4)>}} : memref<2x8x4xf32>
  kern.all_reduce %x, %a {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<2x8x8xf32>, memref<2x8x8xf32>
  kern.all_gather %a, %b {axis = 0 : i64, group_size = 2 : i64} : memref<2x8x8xf32>, memref<2x2x8x8xf32>
  kern.reduce_scatter %a, %c {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<2x8x8xf32>, memref<2x8x4xf32>
  kern.all_to_all %x, %a {axis = 0 : i64, group_size = 2 : i64} : memref<2x8x8xf32>, memref<2x8x8xf32>
  return
}

// -----

// Equal at the bounds (2 x 8 x 8 = 16 x 8), not at other sizes.
func.func @counts_differ(%x: memref<2x8x8xf32> {kern.input = "x", kern.sym = affine_map<()[s0, s1] -> (s0, s1, 8)>}) attributes {kern.dims = [{name = "batch", max = 2 : i64}, {name = "seq", max = 8 : i64}]} {
  %a = kern.alloc {kern.sym = {result = affine_map<()[s0, s1] -> (s1 * 2, 8)>}} : memref<16x8xf32>
  // expected-error @+1 {{output has s1*16 elements; expected s0*s1*8 / 1}}
  kern.all_reduce %x, %a {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<2x8x8xf32>, memref<16x8xf32>
  return
}

// -----

// The blocks of an all-to-all split the run's elements at the bound (32
// into 16 blocks), not for every batch.
func.func @uneven_blocks(%x: memref<4x8xf32> {kern.input = "x", kern.sym = affine_map<()[s0] -> (s0, 8)>}) attributes {kern.dims = [{name = "batch", max = 4 : i64}]} {
  %a = kern.alloc {kern.sym = {result = affine_map<()[s0] -> (s0, 8)>}} : memref<4x8xf32>
  // expected-error @+1 {{input of s0*8 elements does not split into 16 blocks for every value of the dynamic dims}}
  kern.all_to_all %x, %a {axis = 0 : i64, group_size = 16 : i64} : memref<4x8xf32>, memref<4x8xf32>
  return
}
