//===- ExpertPlacement.h - expert load balancing (EPLB) ---------*- C++ -*-===//
//
// DeepSeek's expert-parallel load balancer (EPLB, as vLLM adopted it):
// given each expert's load (tokens routed to it in calibration), the K
// hottest get extra copies, one at a time to the expert whose copies carry
// the most each, and the copies are packed onto the ranks, heaviest first,
// each onto the least loaded rank that still has a free slot. A copy
// carries load / copies of its expert (its tokens are spread over the
// copies).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PASSES_SHARDING_EXPERTPLACEMENT_H
#define SHARDC_PASSES_SHARDING_EXPERTPLACEMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace shardc {

struct ExpertPlacement {
  /// The logical expert of each slot; rank j holds slots [j * L, (j + 1) *
  /// L).
  llvm::SmallVector<int64_t> slots;
  /// Expected tokens per rank: with the experts in order (E / n each, no
  /// copies) and with this placement.
  llvm::SmallVector<double> before, after;
};

/// The placement of `loads.size()` experts plus `redundant` copies on
/// `ranks` ranks; (experts + redundant) must divide by `ranks`.
ExpertPlacement placeExperts(llvm::ArrayRef<int64_t> loads, int64_t ranks,
                             int64_t redundant);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_EXPERTPLACEMENT_H
