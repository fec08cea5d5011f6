//===- Projection.h - a dim's mesh axes onto its factors --------*- C++ -*-===//
#ifndef SHARDC_PASSES_SHARDING_PROJECTION_H
#define SHARDC_PASSES_SHARDING_PROJECTION_H

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

namespace shardc {

/// Gives the mesh `axes` of one dim to the dim's `factors`, major to minor,
/// as propagation and partitioning both read a sharding: a factor takes
/// axes while their sizes' product divides its size, and the next factor
/// starts only once the previous one is whole. Calls `take(f, axes)` for
/// each factor reached (with possibly no axes).
template <typename TakeFn>
void projectAxesOntoFactors(llvm::ArrayRef<llvm::StringRef> axes,
                            llvm::ArrayRef<int64_t> factors,
                            const graph::ShardingRule &rule,
                            dist::MeshOp mesh, TakeFn &&take) {
  size_t next = 0;
  for (int64_t f : factors) {
    int64_t size = rule.factors[f].size, product = 1;
    llvm::SmallVector<llvm::StringRef, 2> taken;
    while (next < axes.size() &&
           size % (product * *mesh.axisSize(axes[next])) == 0) {
      product *= *mesh.axisSize(axes[next]);
      taken.push_back(axes[next++]);
    }
    take(f, llvm::ArrayRef<llvm::StringRef>(taken));
    if (product != size)
      break; // the rest cannot be expressed on this dim's later factors
  }
}

/// Per factor of `op`'s `rule`: whether it makes up a dynamic dim (one
/// whose size is symbolic, docs/dynamic-shapes.md) of an operand or a
/// result. Such a factor is never split: its size in the rule is the bound,
/// and a split that divides the bound need not divide the run's size.
inline llvm::SmallVector<bool> dynamicFactors(mlir::Operation *op,
                                              const graph::ShardingRule &rule) {
  llvm::SmallVector<bool> out(rule.factors.size(), false);
  auto mark = [&](mlir::Value v, const graph::ShardingRule::ValueFactors &fs) {
    if (!graph::isSymbolic(v))
      return;
    graph::SymShape dims = graph::dimsOf(v);
    for (auto [d, factors] : llvm::enumerate(fs))
      if (d < dims.size() && !dims.sym[d].isConstant())
        for (int64_t f : factors)
          out[f] = true;
  };
  for (auto [v, fs] : llvm::zip(op->getOperands(), rule.operands))
    mark(v, fs);
  for (auto [v, fs] : llvm::zip(op->getResults(), rule.results))
    mark(v, fs);
  return out;
}

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_PROJECTION_H
