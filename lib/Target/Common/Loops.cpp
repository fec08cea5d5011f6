//===- Loops.cpp - the iteration space of a generated kernel ---------------===//

#include "Loops.h"

#include "dialects/Kern/IR/KernOps.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir;
using namespace shardc;
using namespace shardc::target;

LoopNest target::collapseLoops(ArrayRef<int64_t> shape, ArrayAttr layouts,
                               ArrayRef<int64_t> reduceDims, Block &body,
                               bool reduceInAnyOrder,
                               ArrayRef<sym::Expr> symShape,
                               ArrayRef<SmallVector<sym::Expr>> symLayouts) {
  LoopNest nest;
  unsigned numOperands = layouts.size();
  bool symbolic = !symShape.empty();
  // The value of layout entry `i` of operand `o`, symbolic or constant.
  auto layoutAt = [&](unsigned o, unsigned i) {
    return symbolic ? symLayouts[o][i]
                    : sym::Expr(cast<DenseI64ArrayAttr>(layouts[o])[i]);
  };
  for (auto [o, a] : llvm::enumerate(layouts)) {
    nest.offsets.push_back(cast<DenseI64ArrayAttr>(a)[0]);
    nest.symOffsets.push_back(layoutAt(o, 0));
  }
  body.walk([&](kern::IndexOp) { nest.usesIndex = true; });

  SmallVector<Loop> loops;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    Loop loop{shape[d],
              {},
              llvm::is_contained(reduceDims, d),
              d,
              symbolic ? symShape[d] : sym::Expr(shape[d])};
    for (auto [o, a] : llvm::enumerate(layouts)) {
      loop.strides.push_back(cast<DenseI64ArrayAttr>(a)[d + 1]);
      loop.symStrides.push_back(layoutAt(o, d + 1));
    }
    if (shape[d] == 0 && !loop.reduce)
      nest.empty = true;
    if (shape[d] == 1 && !nest.usesIndex)
      continue;
    loops.push_back(loop);
  }
  auto firstReduce = std::stable_partition(
      loops.begin(), loops.end(), [](const Loop &l) { return !l.reduce; });
  if (!nest.usesIndex) {
    // Parallel dims in the order the last output (an output in every
    // kernel) is laid out, outermost first: a kernel whose space is a
    // permutation of its output's (one over a channels-last buffer) then
    // writes contiguously and its loops merge. Already in order for most.
    std::stable_sort(loops.begin(), firstReduce,
                     [&](const Loop &a, const Loop &b) {
                       return std::abs(a.strides.back()) >
                              std::abs(b.strides.back());
                     });
    if (reduceInAnyOrder)
      std::stable_sort(
          firstReduce, loops.end(), [&](const Loop &a, const Loop &b) {
            return std::abs(a.strides.front()) > std::abs(b.strides.front());
          });
    SmallVector<Loop> merged;
    for (Loop &l : loops) {
      if (!merged.empty() && merged.back().reduce == l.reduce) {
        Loop &p = merged.back();
        bool ok = true;
        for (unsigned o = 0; o < numOperands; ++o)
          ok &= p.symStrides[o] == l.symStrides[o] * l.symSize;
        if (ok) {
          p.size *= l.size;
          p.symSize = p.symSize * l.symSize;
          p.strides = l.strides;
          p.symStrides = l.symStrides;
          continue;
        }
      }
      merged.push_back(l);
    }
    loops = merged;
  }
  nest.loops = loops;
  for (const Loop &l : loops) {
    if (l.reduce) {
      nest.reduceSize *= l.size;
      nest.symReduceSize = nest.symReduceSize * l.symSize;
    } else {
      ++nest.numParallel;
      nest.parallelSize *= l.size;
      nest.symParallelSize = nest.symParallelSize * l.symSize;
    }
  }
  auto isSym = [](const sym::Expr &e) { return !e.isConstant(); };
  nest.symbolic = llvm::any_of(nest.symOffsets, isSym);
  for (const Loop &l : loops)
    nest.symbolic |= isSym(l.symSize) || llvm::any_of(l.symStrides, isSym);
  return nest;
}

std::string target::cExpr(const sym::Expr &e) {
  std::string s = e.str();
  return e.terms().size() > 1 ? "(" + s + ")" : s;
}

std::string target::indexExpr(const sym::Expr &offset, ArrayRef<Loop> loops,
                              unsigned operand) {
  std::string e = offset.terms().empty() ? "0" : cExpr(offset);
  for (auto [l, loop] : llvm::enumerate(loops)) {
    const sym::Expr &s = loop.symStrides[operand];
    if (s == sym::Expr(0))
      continue;
    e += " + i" + std::to_string(l) + (s == sym::Expr(1) ? "" : "*" + cExpr(s));
  }
  return e;
}

std::string target::indexExpr(int64_t offset, ArrayRef<Loop> loops,
                              unsigned operand) {
  std::string e = std::to_string(offset);
  for (auto [l, loop] : llvm::enumerate(loops)) {
    int64_t s = loop.strides[operand];
    if (s == 0)
      continue;
    e += " + i" + std::to_string(l) + (s == 1 ? "" : "*" + std::to_string(s));
  }
  return e;
}

int64_t target::maxOffset(const LoopNest &nest) {
  int64_t most = 0;
  for (auto [o, off] : llvm::enumerate(nest.offsets)) {
    int64_t reach = off;
    for (const Loop &l : nest.loops)
      reach += (l.size - 1) * std::max<int64_t>(l.strides[o], 0);
    most = std::max(most, reach);
  }
  return most;
}
