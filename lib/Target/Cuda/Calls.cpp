//===- Calls.cpp - runtime kernels (kern.call) on CUDA ---------------------===//

#include "lib/Target/Cuda/Calls.h"

using namespace mlir;
using namespace shardc;

FailureOr<cuda::Kernel> cuda::emitCallKernel(kern::CallOp op, StringRef name) {
  (void)name;
  return op.emitError("the CUDA target has no kernel for ")
         << op.getCallee() << " yet (compile with --target=cpu)";
}
