//===- Passes.h - conversion passes -----------------------------*- C++ -*-===//
#ifndef SHARDC_CONVERSION_PASSES_H
#define SHARDC_CONVERSION_PASSES_H

#include "dialects/Kern/IR/KernOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "shardc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "shardc/Conversion/Passes.h.inc"

} // namespace shardc

#endif // SHARDC_CONVERSION_PASSES_H
