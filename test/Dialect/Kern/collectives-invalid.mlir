// RUN: %shardc-opt %s --split-input-file --verify-diagnostics

func.func @gather_size(%a: memref<8xf32>, %b: memref<24xf32>) {
  // expected-error @+1 {{'kern.all_gather' op output has 24 elements; expected 32}}
  kern.all_gather %a, %b {axis = 0 : i64, group_size = 4 : i64} : memref<8xf32>, memref<24xf32>
  return
}

// -----

func.func @scatter_size(%a: memref<8xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'kern.reduce_scatter' op output has 4 elements; expected 2}}
  kern.reduce_scatter %a, %b {axis = 0 : i64, group_size = 4 : i64, kind = "sum"} : memref<8xf32>, memref<4xf32>
  return
}

// -----

func.func @kind(%a: memref<8xf32>) {
  // expected-error @+1 {{'kern.all_reduce' op kind 'mean': expected sum, max, min or prod}}
  kern.all_reduce %a, %a {axis = 0 : i64, group_size = 2 : i64, kind = "mean"} : memref<8xf32>, memref<8xf32>
  return
}

// -----

func.func @types(%a: memref<8xf32>, %b: memref<8xf16>) {
  // expected-error @+1 {{'kern.all_reduce' op input and output element types differ ('f32' vs 'f16')}}
  kern.all_reduce %a, %b {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<8xf32>, memref<8xf16>
  return
}

// -----

func.func @axis(%a: memref<8xf32>) {
  // expected-error @+1 {{'kern.all_reduce' op mesh axis -1 is negative}}
  kern.all_reduce %a, %a {axis = -1 : i64, group_size = 2 : i64, kind = "sum"} : memref<8xf32>, memref<8xf32>
  return
}

// -----

func.func @blocks(%a: memref<6xf32>, %b: memref<6xf32>) {
  // expected-error @+1 {{'kern.all_to_all' op input of 6 elements does not split into 4 blocks}}
  kern.all_to_all %a, %b {axis = 0 : i64, group_size = 4 : i64} : memref<6xf32>, memref<6xf32>
  return
}

// -----

func.func @group(%a: memref<8xf32>) {
  // expected-error @+1 {{'kern.all_reduce' op group size 0 is below 1}}
  kern.all_reduce %a, %a {axis = 0 : i64, group_size = 0 : i64, kind = "sum"} : memref<8xf32>, memref<8xf32>
  return
}

// -----

func.func @self(%a: memref<8xf32>) {
  // expected-error @+1 {{'kern.send' op peer offset 0 is not a peer in a group of 2}}
  kern.send %a {axis = 0 : i64, group_size = 2 : i64, offset = 0 : i64} : memref<8xf32>
  return
}

// -----

func.func @outside(%a: memref<8xf32>) {
  // expected-error @+1 {{'kern.recv' op peer offset -4 is not a peer in a group of 4}}
  kern.recv %a {axis = 0 : i64, group_size = 4 : i64, offset = -4 : i64} : memref<8xf32>
  return
}

// -----

func.func @alone(%a: memref<8xf32>) {
  // expected-error @+1 {{'kern.send' op group size 1: a point-to-point peer needs at least 2 ranks}}
  kern.send %a {axis = 0 : i64, group_size = 1 : i64, offset = 1 : i64} : memref<8xf32>
  return
}

// -----

func.func @moe_uneven(%rows: memref<16x32xf32>, %offsets: memref<4xi32>, %recv: memref<32x32xf32>, %ro: memref<3xi32>, %counts: memref<3xi32>) {
  // expected-error @+1 {{'kern.moe_dispatch' op the 3 expert slots do not split over a group of 2}}
  kern.moe_dispatch %rows, %offsets into %recv, %ro, %counts {axis = 0 : i64, group_size = 2 : i64} : memref<16x32xf32>, memref<4xi32> into memref<32x32xf32>, memref<3xi32>, memref<3xi32>
  return
}

// -----

func.func @moe_width(%rows: memref<16x32xf32>, %offsets: memref<5xi32>, %recv: memref<32x16xf32>, %ro: memref<3xi32>, %counts: memref<4xi32>) {
  // expected-error @+1 {{'kern.moe_dispatch' op rows 'memref<16x32xf32>' and 'memref<32x16xf32>' must be [rows, width] of one width and type}}
  kern.moe_dispatch %rows, %offsets into %recv, %ro, %counts {axis = 0 : i64, group_size = 2 : i64} : memref<16x32xf32>, memref<5xi32> into memref<32x16xf32>, memref<3xi32>, memref<4xi32>
  return
}

// -----

func.func @moe_recv_offsets(%rows: memref<16x32xf32>, %offsets: memref<5xi32>, %recv: memref<32x32xf32>, %ro: memref<5xi32>, %counts: memref<4xi32>) {
  // expected-error @+1 {{'kern.moe_dispatch' op recv_offsets must be memref<3xi32>, not 'memref<5xi32>'}}
  kern.moe_dispatch %rows, %offsets into %recv, %ro, %counts {axis = 0 : i64, group_size = 2 : i64} : memref<16x32xf32>, memref<5xi32> into memref<32x32xf32>, memref<5xi32>, memref<4xi32>
  return
}

// -----

func.func @moe_counts(%recv: memref<32x32xf32>, %counts: memref<2xi32>, %offsets: memref<5xi32>, %rows: memref<16x32xf32>) {
  // expected-error @+1 {{'kern.moe_return' op recv_counts must be memref<4xi32>, not 'memref<2xi32>'}}
  kern.moe_return %recv, %counts, %offsets into %rows {axis = 0 : i64, group_size = 2 : i64} : memref<32x32xf32>, memref<2xi32>, memref<5xi32> into memref<16x32xf32>
  return
}
