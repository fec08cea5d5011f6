// Row-parallel matmul by hand, 2 ranks over mesh axis "tp": each rank
// multiplies its slice of x by its rows of w, then the partial products
// are gathered (kern.all_gather) and summed (kern.all_reduce) over MPI.
// w (4x6) is the same as in tp_matmul.py.
module {
  dist.mesh @mesh axes = ["tp"] shape = [2]
  // Rank 0: rows 0..1 of w, columns 0..1 of x.
  func.func @rank0(%x: memref<2x4xf32> {kern.input = "x"},
                   %y: memref<2x6xf32> {kern.output = "y"},
                   %g: memref<2x2x6xf32> {kern.output = "partials"})
      attributes {kern.ranks = array<i64: 0>} {
    %w = kern.weight {value = dense<[[0.346, 0.822, 0.330, -1.303, 0.905, 0.446], [-0.537, 0.581, 0.365, 0.294, 0.028, 0.547]]> : tensor<2x6xf32>} : memref<2x6xf32>
    %xs = kern.alloc : memref<2x2xf32>
    kern.map ins(%x : memref<2x4xf32>) outs(%xs : memref<2x2xf32>)
        attributes {layouts = [array<i64: 0, 4, 1>, array<i64: 0, 2, 1>],
                    shape = array<i64: 2, 2>} {
    ^bb0(%a: f32):
      kern.yield %a : f32
    }
    %p = kern.alloc : memref<2x6xf32>
    kern.matmul %xs, %w into %p : memref<2x2xf32>, memref<2x6xf32> into memref<2x6xf32>
    kern.all_gather %p, %g {axis = 0 : i64, group_size = 2 : i64} : memref<2x6xf32>, memref<2x2x6xf32>
    kern.all_reduce %p, %y {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<2x6xf32>, memref<2x6xf32>
    return
  }
  // Rank 1: rows 2..3 of w, columns 2..3 of x.
  func.func @rank1(%x: memref<2x4xf32> {kern.input = "x"},
                   %y: memref<2x6xf32> {kern.output = "y"},
                   %g: memref<2x2x6xf32> {kern.output = "partials"})
      attributes {kern.ranks = array<i64: 1>} {
    %w = kern.weight {value = dense<[[-0.736, -0.163, -0.482, 0.599, 0.040, -0.292], [-0.782, -0.257, 0.008, -0.276, 1.294, 1.007]]> : tensor<2x6xf32>} : memref<2x6xf32>
    %xs = kern.alloc : memref<2x2xf32>
    kern.map ins(%x : memref<2x4xf32>) outs(%xs : memref<2x2xf32>)
        attributes {layouts = [array<i64: 2, 4, 1>, array<i64: 0, 2, 1>],
                    shape = array<i64: 2, 2>} {
    ^bb0(%a: f32):
      kern.yield %a : f32
    }
    %p = kern.alloc : memref<2x6xf32>
    kern.matmul %xs, %w into %p : memref<2x2xf32>, memref<2x6xf32> into memref<2x6xf32>
    kern.all_gather %p, %g {axis = 0 : i64, group_size = 2 : i64} : memref<2x6xf32>, memref<2x2x6xf32>
    kern.all_reduce %p, %y {axis = 0 : i64, group_size = 2 : i64, kind = "sum"} : memref<2x6xf32>, memref<2x6xf32>
    return
  }
}
