//===- KernDialect.cpp - kern dialect registration ------------------------===//

#include "dialects/Kern/IR/KernOps.h"

using namespace mlir;
using namespace shardc::kern;

#include "dialects/Kern/IR/KernDialect.cpp.inc"

void KernDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Kern/IR/KernOps.cpp.inc"
      >();
}
