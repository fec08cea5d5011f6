//===- PlanMemory.cpp - the kern-plan-memory pass --------------------------===//
//
// Liveness-based static placement of arena buffers (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/Transforms/Passes.h"


#include <map>

namespace shardc {
#define GEN_PASS_DEF_KERNPLANMEMORY
#include "dialects/Kern/Transforms/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct Interval {
  kern::AllocOp alloc;
  int64_t first, last; // op indices, inclusive
  uint64_t bytes;
  uint64_t offset = 0;
};

/// The last op index reading `buffer`, following views.
static int64_t lastUse(Value buffer, const DenseMap<Operation *, int64_t> &index,
                       int64_t def) {
  int64_t last = def;
  for (Operation *user : buffer.getUsers()) {
    auto it = index.find(user);
    if (it != index.end())
      last = std::max(last, it->second);
    if (auto view = dyn_cast<kern::ViewOp>(user))
      last = std::max(last, lastUse(view.getResult(), index, def));
  }
  return last;
}

struct KernPlanMemoryPass
    : shardc::impl::KernPlanMemoryBase<KernPlanMemoryPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    DenseMap<Operation *, int64_t> index;
    std::vector<Interval> intervals;
    int64_t i = 0;
    for (Operation &op : func.getBody().front()) {
      index[&op] = i;
      if (auto alloc = dyn_cast<kern::AllocOp>(op))
        intervals.push_back({alloc, i, 0,
                             static_cast<uint64_t>(kern::alignUp(
                                 std::max<int64_t>(
                                     1, kern::bufferBytes(alloc.getType()))))});
      ++i;
    }
    uint64_t unplanned = 0;
    for (Interval &iv : intervals) {
      iv.last = lastUse(iv.alloc.getBuffer(), index, iv.first);
      unplanned += iv.bytes;
    }
    // Largest first; ties in program order (deterministic).
    std::vector<Interval *> order;
    for (Interval &iv : intervals)
      order.push_back(&iv);
    std::stable_sort(order.begin(), order.end(),
                     [](Interval *a, Interval *b) { return a->bytes > b->bytes; });
    // Placed buffers by first use: those live with `iv` start within the
    // longest placed lifetime before it (a scan of all placed buffers per
    // buffer was quadratic in the program).
    std::multimap<int64_t, Interval *> placed;
    int64_t longest = 0;
    uint64_t peak = 0;
    for (Interval *iv : order) {
      std::vector<Interval *> live;
      for (auto it = placed.lower_bound(iv->first - longest),
                end = placed.upper_bound(iv->last);
           it != end; ++it)
        if (iv->first <= it->second->last)
          live.push_back(it->second);
      // Ties in offset do not change the result.
      std::sort(live.begin(), live.end(),
                [](Interval *a, Interval *b) { return a->offset < b->offset; });
      uint64_t offset = 0;
      for (Interval *p : live) {
        if (offset + iv->bytes <= p->offset)
          break;
        offset = std::max(offset, p->offset + p->bytes);
      }
      iv->offset = offset;
      peak = std::max(peak, offset + iv->bytes);
      placed.insert({iv->first, iv});
      longest = std::max(longest, iv->last - iv->first);
    }
    Builder b(&getContext());
    for (Interval &iv : intervals)
      iv.alloc.setOffsetAttr(b.getI64IntegerAttr(iv.offset));
    func->setAttr("kern.arena_bytes", b.getI64IntegerAttr(peak));
    func->setAttr("kern.unplanned_bytes", b.getI64IntegerAttr(unplanned));
  }
};

} // namespace
