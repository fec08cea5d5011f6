//===- PatternUtils.h - small matchers the fusion passes share --*- C++ -*-===//
#ifndef SHARDC_PASSES_PATTERNUTILS_H
#define SHARDC_PASSES_PATTERNUTILS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/APFloat.h"

#include <optional>

namespace shardc::patterns {

/// The value of a floating-point graph.constant whose elements are all
/// bitwise equal (a scalar or a splat, at most 1024 elements), read from a
/// dense attribute or a resource blob.
std::optional<llvm::APFloat> splatFloat(mlir::Value v);

/// The operand of binary `op` other than `v`; null when `v` is both or
/// neither.
mlir::Value otherOperand(mlir::Operation *op, mlir::Value v);

} // namespace shardc::patterns

#endif // SHARDC_PASSES_PATTERNUTILS_H
