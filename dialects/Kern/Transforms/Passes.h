//===- Passes.h - kern dialect transformations -*- C++ -*-===//
#ifndef SHARDC_KERN_TRANSFORMS_PASSES_H
#define SHARDC_KERN_TRANSFORMS_PASSES_H

#include "dialects/Kern/IR/KernOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "dialects/Kern/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/Kern/Transforms/Passes.h.inc"

} // namespace shardc

#endif // SHARDC_KERN_TRANSFORMS_PASSES_H
