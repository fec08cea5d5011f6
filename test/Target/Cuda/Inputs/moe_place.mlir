// kern.moe_place on CUDA (calls.test): the placements here are repeated in
// emulate/moe_kernels.cpp (placeKernels), which runs these kernels on the
// host emulation against the CPU's sc_moe_place and sc_moe_route.
module {
  func.func @main(%ids64: memref<37x3xi64> {kern.input = "ids64"},
                  %ids32: memref<300x4xi32> {kern.input = "ids32"},
                  %none: memref<0x2xi64> {kern.input = "none"},
                  %slots64: memref<37x3xi32> {kern.output = "slots64"},
                  %slots32: memref<300x4xi32> {kern.output = "slots32"},
                  %offsets: memref<12xi32> {kern.output = "offsets"},
                  %rows: memref<1200xi32> {kern.output = "rows"},
                  %noslots: memref<0x2xi32> {kern.output = "noslots"})
      attributes {kern.arena_bytes = 0 : i64, kern.weights_bytes = 0 : i64} {
    // 3 experts on 6 slots: expert 0 on slots 0 and 3, 2 on 2, 4 and 5.
    kern.moe_place %ids64 into %slots64 {copies = array<i64: 2, 1, 3>, max_copies = 3 : i64, table = array<i64: 0, 3, -1, 1, -1, -1, 2, 4, 5>} : memref<37x3xi64> into memref<37x3xi32>
    // 5 experts on 11 slots in no order, then the route by slot.
    kern.moe_place %ids32 into %slots32 {copies = array<i64: 1, 4, 2, 1, 3>, max_copies = 4 : i64, table = array<i64: 7, -1, -1, -1, 0, 9, 3, 10, 1, 5, -1, -1, 8, -1, -1, -1, 2, 6, 4, -1>} : memref<300x4xi32> into memref<300x4xi32>
    kern.moe_route %slots32 into %offsets, %rows {num_experts = 11 : i64} : memref<300x4xi32> into memref<12xi32>, memref<1200xi32>
    kern.moe_place %none into %noslots {copies = array<i64: 1, 1>, max_copies = 1 : i64, table = array<i64: 1, 0>} : memref<0x2xi64> into memref<0x2xi32>
    return
  }
}
