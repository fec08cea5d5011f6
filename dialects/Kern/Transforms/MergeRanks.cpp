//===- MergeRanks.cpp - the kern-merge-ranks pass -------------------------===//
//--------------------------===//
//
// dist-partition writes one program per rank. The ranks of a tp group hold
// the same code on their own slices: GPT-2's rank programs differ in their
// weights and in one constant, the vocabulary offset of the embedding
// gather. Compiling each of them costs the host compiler (and NVRTC) once
// per rank, so this pass merges them back into one SPMD program whose
// rank-dependent constants are listed per rank (`kern.per_rank`), as
// Megatron's and XLA's SPMD programs read theirs from the rank.
//
// Two programs merge when a walk of both in order meets the same ops with
// the same operands (in correspondence), result types, regions and function
// attributes (but `kern.ranks` and the name). Attributes may differ only on
// ops that code generation writes one rank at a time (lib/Target/Cpp:
// statements, and weights by their data); the ops that lay out buffers
// (allocs, views, the offset of a weight) must agree, since every statement
// addresses them. What differs in a shape stays a program of its own.
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace shardc {
#define GEN_PASS_DEF_KERNMERGERANKS
#include "dialects/Kern/Transforms/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// Whether `other` runs `rep`'s code, up to the attributes that may vary
/// per rank.
class Matcher {
public:
  bool functions(func::FuncOp rep, func::FuncOp other) {
    if (rep.getFunctionType() != other.getFunctionType() ||
        programAttrs(rep) != programAttrs(other))
      return false;
    return regions(rep.getBody(), other.getBody());
  }

private:
  /// The function's attributes that must agree: all but its name and ranks.
  static DictionaryAttr programAttrs(func::FuncOp f) {
    NamedAttrList attrs(f->getAttrDictionary());
    attrs.erase(kern::kRanksAttr);
    attrs.erase(SymbolTable::getSymbolAttrName());
    return attrs.getDictionary(f.getContext());
  }

  bool regions(Region &a, Region &b) {
    if (a.getBlocks().size() != b.getBlocks().size())
      return false;
    for (auto [ba, bb] : llvm::zip(a, b)) {
      if (ba.getArgumentTypes() != bb.getArgumentTypes() ||
          ba.getOperations().size() != bb.getOperations().size())
        return false;
      for (auto [x, y] : llvm::zip(ba.getArguments(), bb.getArguments()))
        map.map(y, x);
      for (auto [x, y] : llvm::zip(ba, bb))
        if (!ops(x, y))
          return false;
    }
    return true;
  }

  bool ops(Operation &a, Operation &b) {
    if (a.getName() != b.getName() ||
        a.getNumOperands() != b.getNumOperands() ||
        a.getResultTypes() != b.getResultTypes() ||
        a.getNumRegions() != b.getNumRegions() ||
        a.getNumSuccessors() != b.getNumSuccessors())
      return false;
    for (auto [x, y] : llvm::zip(a.getOperands(), b.getOperands()))
      if (map.lookupOrNull(y) != x)
        return false;
    if (!attributes(a, b))
      return false;
    for (auto [x, y] : llvm::zip(a.getResults(), b.getResults()))
      map.map(y, x);
    for (auto [ra, rb] : llvm::zip(a.getRegions(), b.getRegions()))
      if (!regions(ra, rb))
        return false;
    return true;
  }

  static bool attributes(Operation &a, Operation &b) {
    DictionaryAttr da = a.getAttrDictionary(), db = b.getAttrDictionary();
    if (da == db)
      return true;
    // A buffer's place is read by every statement that uses it.
    if (isa<kern::AllocOp, kern::ViewOp>(a))
      return false;
    // A weight's data may be a window of a larger tensor on one rank and
    // its own on another (graph.source...): the names may differ.
    if (auto w = dyn_cast<kern::WeightOp>(a))
      return w.getOffset() == cast<kern::WeightOp>(b).getOffset();
    // Otherwise the same names: a value per rank for each that differs.
    if (da.size() != db.size())
      return false;
    for (auto [x, y] : llvm::zip(da, db))
      if (x.getName() != y.getName())
        return false;
    return true;
  }

  IRMapping map; ///< `other`'s values to `rep`'s
};

/// Folds `members` into `rep`: its ranks become all of theirs, in order, and
/// each op whose attributes differ between them lists them per slot.
void merge(func::FuncOp rep, ArrayRef<func::FuncOp> members) {
  MLIRContext *ctx = rep.getContext();
  SmallVector<int64_t> ranks(
      rep->getAttrOfType<DenseI64ArrayAttr>(kern::kRanksAttr).asArrayRef());
  // The walks of matched functions meet corresponding ops in step.
  auto opsOf = [](func::FuncOp f) {
    SmallVector<Operation *> ops;
    f.getBody().walk<WalkOrder::PreOrder>(
        [&](Operation *op) { ops.push_back(op); });
    return ops;
  };
  SmallVector<Operation *> repOps = opsOf(rep);
  SmallVector<SmallVector<Operation *>> memberOps;
  for (func::FuncOp m : members) {
    llvm::append_range(
        ranks,
        m->getAttrOfType<DenseI64ArrayAttr>(kern::kRanksAttr).asArrayRef());
    memberOps.push_back(opsOf(m));
  }
  for (auto [i, op] : llvm::enumerate(repOps)) {
    // Every name any rank's op has, inherent ones (properties: an
    // arith.constant's value in a kernel body) included; `unit` for a
    // rank's op without it.
    llvm::SetVector<StringAttr> names;
    for (NamedAttribute attr : op->getAttrDictionary())
      names.insert(attr.getName());
    for (const SmallVector<Operation *> &ops : memberOps)
      for (NamedAttribute attr : ops[i]->getAttrDictionary())
        names.insert(attr.getName());
    NamedAttrList perRank;
    for (StringAttr name : names) {
      auto valueOf = [&](Operation *o) -> Attribute {
        Attribute v = o->getAttr(name);
        return v ? v : UnitAttr::get(ctx);
      };
      SmallVector<Attribute> values{valueOf(op)};
      for (const SmallVector<Operation *> &ops : memberOps)
        values.push_back(valueOf(ops[i]));
      if (llvm::all_equal(values))
        continue;
      perRank.append(name, ArrayAttr::get(ctx, values));
    }
    if (!perRank.empty())
      op->setAttr(kern::kPerRankAttr, perRank.getDictionary(ctx));
  }
  rep->setAttr(kern::kRanksAttr, DenseI64ArrayAttr::get(ctx, ranks));
  for (func::FuncOp m : members)
    m.erase();
}

struct KernMergeRanksPass
    : shardc::impl::KernMergeRanksBase<KernMergeRanksPass> {
  void runOnOperation() override {
    // Groups in the order of their first program; a program joins the
    // first group whose code it runs.
    SmallVector<SmallVector<func::FuncOp>> groups;
    for (auto f : getOperation().getOps<func::FuncOp>()) {
      // A program merged before keeps its slots.
      if (!f->hasAttr(kern::kRanksAttr) || kern::RankSlot::varies(f))
        continue;
      auto *group = llvm::find_if(groups, [&](ArrayRef<func::FuncOp> g) {
        return Matcher().functions(g.front(), f);
      });
      if (group == groups.end())
        groups.push_back({f});
      else
        group->push_back(f);
    }
    for (ArrayRef<func::FuncOp> g : groups)
      if (g.size() > 1)
        merge(g.front(), g.drop_front());
  }
};

} // namespace
