//===- Passes.h - shardc transformation passes ------------------*- C++ -*-===//
#ifndef SHARDC_PASSES_PASSES_H
#define SHARDC_PASSES_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Kern/IR/KernOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace shardc

#endif // SHARDC_PASSES_PASSES_H
