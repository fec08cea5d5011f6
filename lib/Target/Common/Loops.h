//===- Loops.h - the iteration space of a generated kernel ------*- C++ -*-===//
//
// A kern.map / kern.reduce iterates a shape with one strided access per
// operand. Both targets first simplify that space the same way: unit dims
// go, parallel dims come before reduced ones and follow the output's
// layout (outermost first), and neighbouring dims that every operand walks
// contiguously merge into one loop.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_TARGET_COMMON_LOOPS_H
#define SHARDC_LIB_TARGET_COMMON_LOOPS_H

#include "shardc/Support/SymExpr.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace shardc::target {

/// One loop of a collapsed iteration space. With dynamic dims, `size` and
/// `strides` are the values at the bounds and `symSize` / `symStrides` the
/// symbolic ones (over the function's symbols; constants otherwise).
struct Loop {
  int64_t size;
  llvm::SmallVector<int64_t> strides; ///< one per operand
  bool reduce = false;
  int64_t dim; ///< the original dim (meaningful when not merged)
  sym::Expr symSize = 0;
  llvm::SmallVector<sym::Expr> symStrides = {};
};

struct LoopNest {
  llvm::SmallVector<Loop> loops; ///< parallel loops first, then reduced ones
  llvm::SmallVector<int64_t> offsets; ///< one per operand
  llvm::SmallVector<sym::Expr> symOffsets;
  unsigned numParallel = 0;
  int64_t parallelSize = 1, reduceSize = 1; ///< at the bounds
  sym::Expr symParallelSize = 1, symReduceSize = 1;
  bool empty = false;    ///< a parallel dim is 0: nothing to do
  bool usesIndex = false; ///< the body reads kern.index (no dims merged)
  bool symbolic = false;  ///< a size, stride or offset is symbolic
};

/// Simplifies the iteration space of `shape` with `layouts` (kern's
/// [offset, strides...] per operand) and the reduced dims. With
/// `reduceInAnyOrder` (a max or a min, whose result no order changes) the
/// reduced dims also go in the order the first input is laid out, so that a
/// reduction over a channels-last buffer reads it contiguously.
/// `symShape` and `symLayouts` (kern.sym's mirrors; empty when static) give
/// the symbolic space: dims merge only where they do for every value of
/// the symbols.
LoopNest
collapseLoops(llvm::ArrayRef<int64_t> shape, mlir::ArrayAttr layouts,
              llvm::ArrayRef<int64_t> reduceDims, mlir::Block &body,
              bool reduceInAnyOrder = false,
              llvm::ArrayRef<sym::Expr> symShape = {},
              llvm::ArrayRef<llvm::SmallVector<sym::Expr>> symLayouts = {});

/// `off + i0*s0 + ...` for one operand over loops [0, n).
std::string indexExpr(int64_t offset, llvm::ArrayRef<Loop> loops,
                      unsigned operand);
/// The same over the symbolic strides: `0 + i0*(s1*24) + i1`.
std::string indexExpr(const sym::Expr &offset, llvm::ArrayRef<Loop> loops,
                      unsigned operand);
/// C source of a symbolic value, parenthesized when it is a sum.
std::string cExpr(const sym::Expr &e);

/// The largest element offset any operand reaches.
int64_t maxOffset(const LoopNest &nest);

} // namespace shardc::target

#endif // SHARDC_LIB_TARGET_COMMON_LOOPS_H
