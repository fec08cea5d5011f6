//===- ExpertPlacement.cpp - expert load balancing (EPLB) -----------------===//

#include "passes/Sharding/ExpertPlacement.h"

#include <algorithm>
#include <numeric>

using namespace shardc;

ExpertPlacement shardc::placeExperts(llvm::ArrayRef<int64_t> loads,
                                     int64_t ranks, int64_t redundant) {
  int64_t experts = static_cast<int64_t>(loads.size());
  int64_t slots = experts + redundant;
  int64_t perRank = slots / ranks;
  ExpertPlacement p;
  p.before.assign(ranks, 0.0);
  for (int64_t e = 0; e < experts; ++e)
    p.before[e * ranks / experts] += static_cast<double>(loads[e]);

  // Copies: each extra one to the expert whose copies carry the most (the
  // lower id on ties).
  llvm::SmallVector<int64_t> copies(experts, 1);
  for (int64_t i = 0; i < redundant; ++i) {
    int64_t best = 0;
    for (int64_t e = 1; e < experts; ++e)
      if (loads[e] * copies[best] > loads[best] * copies[e])
        best = e;
    ++copies[best];
  }
  // Packing: heaviest copy first (then lower expert id), onto the least
  // loaded rank with a free slot (then lower rank).
  struct Copy {
    double load;
    int64_t expert;
  };
  llvm::SmallVector<Copy> items;
  for (int64_t e = 0; e < experts; ++e)
    for (int64_t c = 0; c < copies[e]; ++c)
      items.push_back({static_cast<double>(loads[e]) / copies[e], e});
  std::stable_sort(items.begin(), items.end(),
                   [](const Copy &a, const Copy &b) { return a.load > b.load; });
  p.after.assign(ranks, 0.0);
  llvm::SmallVector<llvm::SmallVector<int64_t>> held(ranks);
  for (const Copy &item : items) {
    int64_t best = -1;
    for (int64_t r = 0; r < ranks; ++r)
      if (static_cast<int64_t>(held[r].size()) < perRank &&
          (best < 0 || p.after[r] < p.after[best]))
        best = r;
    held[best].push_back(item.expert);
    p.after[best] += item.load;
  }
  // Within a rank, its experts in id order.
  for (auto &h : held) {
    std::sort(h.begin(), h.end());
    p.slots.append(h.begin(), h.end());
  }
  return p;
}
