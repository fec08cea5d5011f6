//===- Projection.h - a dim's mesh axes onto its factors --------*- C++ -*-===//
#ifndef SHARDC_PASSES_SHARDING_PROJECTION_H
#define SHARDC_PASSES_SHARDING_PROJECTION_H

#include "dialects/Dist/IR/DistOps.h"
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

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_PROJECTION_H
