//===- KernInterfaces.td - kern op interfaces ------------------*- tablegen -*-===//

#ifndef SHARDC_KERN_INTERFACES
#define SHARDC_KERN_INTERFACES

include "mlir/IR/OpBase.td"

def Kern_RuntimeCallOpInterface : OpInterface<"RuntimeCallOpInterface"> {
  let cppNamespace = "::shardc::kern";
  let description = [{
    An op that is one call of a runtime kernel (runtime/src/cpu, declared in
    runtime/include/shardc/cpu.h). The op names the callee and lists its C
    arguments in order, from its typed operands and attributes: this list is
    the only place on the compiler side where the kernel's C signature is
    written. The C++ emitter prints any op with this interface the same way
    (lib/Target/Cpp/EmitCalls.cpp); the CUDA emitter reads the op's typed
    accessors instead (lib/Target/Cuda/Calls).

    The ops declare their operands' effects (`MemRead` on the buffers they
    read, `MemWrite` on those they write), so passes can tell inputs from
    outputs without knowing the op (see `getReadBuffers`).
  }];
  let methods = [
    InterfaceMethod<"The C name of the runtime kernel, e.g. `sc_gather`.",
                    "::llvm::StringRef", "getRuntimeCallee">,
    InterfaceMethod<[{
        Appends the kernel's C arguments, in the order of its prototype in
        shardc/cpu.h.
      }], "void", "getRuntimeArgs",
      (ins "::llvm::SmallVectorImpl<::shardc::kern::RuntimeArg> &":$args)>,
  ];
  let extraClassDeclaration = [{
    /// The buffers the call reads / writes, in operand order (an operand
    /// bound twice appears twice).
    ::llvm::SmallVector<::mlir::Value> getReadBuffers();
    ::llvm::SmallVector<::mlir::Value> getWrittenBuffers();
  }];
}

#endif // SHARDC_KERN_INTERFACES
