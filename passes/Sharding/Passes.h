//===- Passes.h - Sharding: propagation and partitioning --------*- C++ -*-===//
#ifndef SHARDC_PASSES_SHARDING_PASSES_H
#define SHARDC_PASSES_SHARDING_PASSES_H

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "passes/Sharding/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Sharding/Passes.h.inc"

/// Estimated floating-point operations of one run of `op` (dist-pipeline's
/// stage balance and the plan report's pipeline timeline).
double estimateFlops(mlir::Operation *op);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_PASSES_H
