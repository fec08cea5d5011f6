//===- ReductionKinds.h - the names of the reductions ----------*- C++ -*-===//
//
// One list of the reductions the dialects name by string: the collectives'
// kinds (dist and kern all_reduce / reduce_scatter: sum, max, min, prod),
// and the partial values of a #dist.sharding and kern.reduce, which add
// mean (a partial mean is a (sum, count) pair).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SUPPORT_REDUCTIONKINDS_H
#define SHARDC_SUPPORT_REDUCTIONKINDS_H

#include "llvm/ADT/StringRef.h"

namespace shardc {

/// What a collective reduces with: sum, max, min or prod.
inline bool isCollectiveReduction(llvm::StringRef kind) {
  return kind == "sum" || kind == "max" || kind == "min" || kind == "prod";
}

/// A collective's kinds and mean.
inline bool isReductionKind(llvm::StringRef kind) {
  return isCollectiveReduction(kind) || kind == "mean";
}

} // namespace shardc

#endif // SHARDC_SUPPORT_REDUCTIONKINDS_H
