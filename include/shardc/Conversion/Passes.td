//===- Passes.td - conversion passes ---------------------------*- tablegen -*-===//

#ifndef SHARDC_CONVERSION_PASSES
#define SHARDC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertGraphToKern : Pass<"convert-graph-to-kern", "mlir::ModuleOp"> {
  let summary = "Lower the graph dialect to bufferized kern kernels";
  let description = [{
    Rewrites every `func.func` of the module (a program: the global `@main`
    the importer makes, or a rank program; its name and attributes such as
    `kern.ranks` carry over) from value-semantic graph tensors to a kern
    program on memrefs, in destination-passing style: graph inputs become
    `kern.input` arguments, graph results `kern.output` arguments the
    producing kernels write into directly, intermediates `kern.alloc`
    buffers, constants `kern.weight` buffers (created only where a kernel
    reads them: a splat read by an elementwise kernel becomes a constant of
    its body) and reshapes `kern.view`s. Every graph op becomes a generated
    kernel (`kern.map`, `kern.reduce`) or a library call (`kern.matmul`,
    `kern.conv`, or a runtime kernel op such as `kern.softmax`). An op or
    configuration with no lowering is an error that names the op.
  }];
  let options = [
    Option<"halfGemm", "half-gemm", "bool", /*default=*/"false",
           "fp16/bf16 MatMul and Gemm become kern.matmul on the narrow "
           "buffers (targets with native half GEMMs: CUDA); otherwise they "
           "multiply fp32 copies">,
    Option<"int8Gemm", "int8-gemm", "bool", /*default=*/"false",
           "MatMulInteger without zero points (int8 x int8 -> int32) becomes "
           "kern.matmul (oneDNN's int8 matmul: CPU-only programs); otherwise "
           "the runtime's kern.matmul_integer">,
  ];
  let dependentDialects = ["shardc::kern::KernDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::func::FuncDialect"];
}

#endif // SHARDC_CONVERSION_PASSES
