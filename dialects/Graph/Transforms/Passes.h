//===- Passes.h - graph dialect passes --------------------------*- C++ -*-===//
#ifndef SHARDC_GRAPH_TRANSFORMS_PASSES_H
#define SHARDC_GRAPH_TRANSFORMS_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "dialects/Graph/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/Graph/Transforms/Passes.h.inc"

} // namespace shardc

#endif // SHARDC_GRAPH_TRANSFORMS_PASSES_H
