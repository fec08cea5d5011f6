//===- Passes.h - pruning passes on the graph dialect -----------*- C++ -*-===//
#ifndef SHARDC_PASSES_PRUNING_PASSES_H
#define SHARDC_PASSES_PRUNING_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "passes/Pruning/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Pruning/Passes.h.inc"

} // namespace shardc

#endif // SHARDC_PASSES_PRUNING_PASSES_H
