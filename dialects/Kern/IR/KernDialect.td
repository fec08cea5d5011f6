//===- KernDialect.td - the kern dialect -----------------------*- tablegen -*-===//
//
// The bufferized, per-rank device program: generated kernels, library calls,
// buffers in the arena and in the weights file.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_KERN_DIALECT
#define SHARDC_KERN_DIALECT

include "mlir/IR/OpBase.td"

def Kern_Dialect : Dialect {
  let name = "kern";
  let cppNamespace = "::shardc::kern";
  let summary = "bufferized kernels, library calls and buffers of one rank";
  let description = [{
    The program of one rank after bufferization. Buffers are memrefs with the
    identity layout: `kern.alloc` (a slot in the arena, placed by the memory
    plan), `kern.weight` (a tensor in the rank's weights section), `kern.view`
    (the same bytes with another shape) and the function's arguments (inputs,
    then outputs, named by `kern.input` / `kern.output` argument attributes).

    Kernels are either generated (`kern.map`, `kern.reduce`: an iteration
    space, one strided access per operand and a scalar body written with the
    upstream `arith` and `math` dialects, which both code generators print)
    or library calls (`kern.matmul`, `kern.conv`: oneDNN on the CPU) or
    runtime kernels (`kern.gather`, `kern.softmax`, `kern.pool`, ...: one op
    per kernel of runtime/src/cpu, each with typed operands and attributes,
    a verifier, and its C argument list through `RuntimeCallOpInterface`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let usePropertiesForAttributes = 0;
  // kern.per_rank (kern-merge-ranks): one value per rank of the program;
  // kern.dims and kern.sym (SymbolicShapes.h), on ops and arguments.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

#endif // SHARDC_KERN_DIALECT
