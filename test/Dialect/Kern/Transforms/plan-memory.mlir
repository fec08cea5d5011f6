// RUN: %shardc-opt %s --allow-unregistered-dialect --kern-plan-memory | FileCheck %s
// The arena plan: each kern.alloc is live from its definition to its last
// reader (through views); buffers are placed largest first at the lowest
// 64-byte aligned offset free over their live range.
// ("test.use" is an unregistered op that reads its operands.)

// A chain a -> b -> c: a and c are never live together and share offset 0;
// b overlaps both. Peak 8 KiB of 12 KiB requested.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {kern.arena_bytes = 8192 : i64, kern.unplanned_bytes = 12288 : i64}
// CHECK:      %[[A:.*]] = kern.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK:      %[[B:.*]] = kern.alloc {offset = 4096 : i64} : memref<1024xf32>
// CHECK:      %[[C:.*]] = kern.alloc {offset = 0 : i64} : memref<1024xf32>
func.func @chain(%x: memref<1024xf32> {kern.input = "x"}, %y: memref<1024xf32> {kern.output = "y"}) {
  %a = kern.alloc : memref<1024xf32>
  kern.map ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  %b = kern.alloc : memref<1024xf32>
  kern.map ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  %c = kern.alloc : memref<1024xf32>
  kern.map ins(%b : memref<1024xf32>) outs(%c : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  kern.map ins(%c : memref<1024xf32>) outs(%y : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  return
}

// A view keeps its source alive: %a is last read through a view of a view
// after %b is defined, so they overlap (without the views %a would die
// before %b and share its offset).
// CHECK-LABEL: func.func @views
// CHECK-SAME: attributes {kern.arena_bytes = 8192 : i64, kern.unplanned_bytes = 8192 : i64}
// CHECK:      kern.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK:      kern.alloc {offset = 4096 : i64} : memref<1024xf32>
func.func @views(%x: memref<1024xf32> {kern.input = "x"}, %y: memref<1024xf32> {kern.output = "y"}) {
  %a = kern.alloc : memref<1024xf32>
  kern.map ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  %v = kern.view %a : memref<1024xf32> to memref<32x32xf32>
  %w = kern.view %v : memref<32x32xf32> to memref<1024xf32>
  %b = kern.alloc : memref<1024xf32>
  kern.map ins(%x : memref<1024xf32>) outs(%b : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  kern.map ins(%w, %b : memref<1024xf32>, memref<1024xf32>) outs(%y : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32, %f: f32):
    %s = arith.addf %e, %f : f32
    kern.yield %s : f32
  }
  return
}

// The same program without the view: %a dies before %b is defined.
// CHECK-LABEL: func.func @no_views
// CHECK-SAME: attributes {kern.arena_bytes = 4096 : i64, kern.unplanned_bytes = 8192 : i64}
// CHECK:      kern.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK:      kern.alloc {offset = 0 : i64} : memref<1024xf32>
func.func @no_views(%x: memref<1024xf32> {kern.input = "x"}, %y: memref<1024xf32> {kern.output = "y"}) {
  %a = kern.alloc : memref<1024xf32>
  kern.map ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  kern.map ins(%a : memref<1024xf32>) outs(%y : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  %b = kern.alloc : memref<1024xf32>
  kern.map ins(%x : memref<1024xf32>) outs(%b : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  kern.map ins(%b : memref<1024xf32>) outs(%y : memref<1024xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 1024>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  return
}

// Small buffers are rounded up to 64 bytes: 12 bytes of f32, 5 of i8, 12 of
// f16, 10 of i1 (a byte each) and an empty buffer, all live together, land
// at consecutive multiples of 64.
// CHECK-LABEL: func.func @alignment
// CHECK-SAME: attributes {kern.arena_bytes = 320 : i64, kern.unplanned_bytes = 320 : i64}
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<3xf32>
// CHECK-NEXT: kern.alloc {offset = 64 : i64} : memref<5xi8>
// CHECK-NEXT: kern.alloc {offset = 128 : i64} : memref<2x3xf16>
// CHECK-NEXT: kern.alloc {offset = 192 : i64} : memref<10xi1>
// CHECK-NEXT: kern.alloc {offset = 256 : i64} : memref<0xf32>
func.func @alignment(%y: memref<1xf32> {kern.output = "y"}) {
  %a = kern.alloc : memref<3xf32>
  %b = kern.alloc : memref<5xi8>
  %c = kern.alloc : memref<2x3xf16>
  %d = kern.alloc : memref<10xi1>
  %e = kern.alloc : memref<0xf32>
  "test.use"(%a, %b, %c, %d, %e, %y) : (memref<3xf32>, memref<5xi8>, memref<2x3xf16>, memref<10xi1>, memref<0xf32>, memref<1xf32>) -> ()
  return
}

// Largest first: the 4 KiB buffer defined second takes offset 0, the small
// one defined first goes after it.
// CHECK-LABEL: func.func @largest_first
// CHECK-SAME: attributes {kern.arena_bytes = 4160 : i64, kern.unplanned_bytes = 4160 : i64}
// CHECK-NEXT: kern.alloc {offset = 4096 : i64} : memref<16xf32>
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<1024xf32>
func.func @largest_first(%y: memref<1xf32> {kern.output = "y"}) {
  %s = kern.alloc : memref<16xf32>
  %b = kern.alloc : memref<1024xf32>
  "test.use"(%s, %b, %y) : (memref<16xf32>, memref<1024xf32>, memref<1xf32>) -> ()
  return
}

// A buffer fills a gap: %x, %y, %z (1 KiB each) are placed at 0, 1024 and
// 2048; %w (512 B) is live with %x and %z but not %y, so it reuses %y's
// place between them.
// CHECK-LABEL: func.func @gap
// CHECK-SAME: attributes {kern.arena_bytes = 3072 : i64, kern.unplanned_bytes = 3584 : i64}
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<256xf32>
// CHECK-NEXT: kern.alloc {offset = 1024 : i64} : memref<256xf32>
// CHECK-NEXT: kern.alloc {offset = 2048 : i64} : memref<256xf32>
// CHECK:      kern.alloc {offset = 1024 : i64} : memref<128xf32>
func.func @gap(%in: memref<256xf32> {kern.input = "in"}, %out: memref<128xf32> {kern.output = "out"}) {
  %x = kern.alloc : memref<256xf32>
  %y = kern.alloc : memref<256xf32>
  %z = kern.alloc : memref<256xf32>
  kern.map ins(%in : memref<256xf32>) outs(%x, %y : memref<256xf32>, memref<256xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 256>} {
  ^bb0(%e: f32):
    kern.yield %e, %e : f32, f32
  }
  kern.map ins(%x, %y : memref<256xf32>, memref<256xf32>) outs(%z : memref<256xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 256>} {
  ^bb0(%e: f32, %f: f32):
    %s = arith.addf %e, %f : f32
    kern.yield %s : f32
  }
  %w = kern.alloc : memref<128xf32>
  kern.map ins(%z : memref<256xf32>) outs(%w : memref<128xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 128>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  kern.map ins(%x, %z, %w : memref<256xf32>, memref<256xf32>, memref<128xf32>) outs(%out : memref<128xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>, array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 128>} {
  ^bb0(%e: f32, %f: f32, %g: f32):
    %s = arith.addf %e, %f : f32
    %t = arith.addf %s, %g : f32
    kern.yield %t : f32
  }
  return
}

// Offsets and the peak stay 64-byte aligned when sizes are not: 100 bytes
// take 128, so the second of two overlapping buffers starts at 128.
// CHECK-LABEL: func.func @odd_sizes
// CHECK-SAME: attributes {kern.arena_bytes = 256 : i64, kern.unplanned_bytes = 256 : i64}
// CHECK-NEXT: kern.alloc {offset = 0 : i64} : memref<25xf32>
// CHECK-NEXT: kern.alloc {offset = 128 : i64} : memref<100xui8>
func.func @odd_sizes(%y: memref<1xf32> {kern.output = "y"}) {
  %a = kern.alloc : memref<25xf32>
  %b = kern.alloc : memref<100xui8>
  "test.use"(%a, %b, %y) : (memref<25xf32>, memref<100xui8>, memref<1xf32>) -> ()
  return
}

// No allocs: an empty arena.
// CHECK-LABEL: func.func @empty
// CHECK-SAME: attributes {kern.arena_bytes = 0 : i64, kern.unplanned_bytes = 0 : i64}
func.func @empty(%x: memref<4xf32> {kern.input = "x"}, %y: memref<4xf32> {kern.output = "y"}) {
  kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%e: f32):
    kern.yield %e : f32
  }
  return
}

// Declarations are left alone.
// CHECK-LABEL: func.func private @decl(memref<4xf32>)
// CHECK-NOT:  kern.arena_bytes
func.func private @decl(memref<4xf32>)
