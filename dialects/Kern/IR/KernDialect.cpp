//===- KernDialect.cpp - kern dialect registration ------------------------===//

#include "dialects/Kern/IR/KernOps.h"

using namespace mlir;
using namespace shardc::kern;

#include "dialects/Kern/IR/KernDialect.cpp.inc"

void KernDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Kern/IR/KernOps.cpp.inc"
      >();
}

/// `kern.per_rank` holds, for each attribute that differs between the ranks
/// of a merged program, one value per slot of the enclosing `kern.ranks`,
/// each of the type of the op's own (slot 0's) value; `unit` where a
/// weight's rank has none (a window attribute on some ranks only).
LogicalResult KernDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kDimsAttr || attr.getName() == kSymAttr)
    return verifySymbolicAttribute(op, attr);
  if (attr.getName() != kPerRankAttr)
    return success();
  auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
  if (!dict)
    return op->emitOpError("'") << kPerRankAttr << "' must be a dictionary";
  Operation *program = op->getParentOp();
  while (program && !program->hasAttr(kRanksAttr))
    program = program->getParentOp();
  auto ranks = program ? program->getAttrOfType<DenseI64ArrayAttr>(kRanksAttr)
                       : DenseI64ArrayAttr();
  if (!ranks || ranks.size() < 2)
    return op->emitOpError("has '")
           << kPerRankAttr << "' outside a program of several ranks";
  for (NamedAttribute entry : dict) {
    auto values = dyn_cast<ArrayAttr>(entry.getValue());
    if (!values || values.size() != static_cast<size_t>(ranks.size()))
      return op->emitOpError("'")
             << kPerRankAttr << "' entry '" << entry.getName().getValue()
             << "' must list one value per rank (" << ranks.size() << ")";
    Attribute own = op->getAttr(entry.getName());
    bool weight = isa<WeightOp>(op);
    if (values[0] != (own ? own : (weight ? UnitAttr::get(getContext())
                                          : Attribute())))
      return op->emitOpError("'")
             << kPerRankAttr << "' entry '" << entry.getName().getValue()
             << "' must start with the op's own value";
    auto typed = dyn_cast_or_null<TypedAttr>(own);
    for (Attribute v : values) {
      if (weight && isa<UnitAttr>(v))
        continue;
      auto t = dyn_cast<TypedAttr>(v);
      if ((own && static_cast<bool>(t) != static_cast<bool>(typed)) ||
          (t && typed && t.getType() != typed.getType()))
        return op->emitOpError("'")
               << kPerRankAttr << "' entry '" << entry.getName().getValue()
               << "' has a value of another type than the op's";
    }
  }
  return success();
}

LogicalResult KernDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  return verifySymbolicArgAttribute(op, argIndex, attr);
}

RankSlot::RankSlot(Operation *root, unsigned slot) {
  root->walk([&](Operation *op) {
    auto perRank = op->getAttrOfType<DictionaryAttr>(kPerRankAttr);
    if (!perRank)
      return;
    saved.push_back({op, op->getAttrDictionary()});
    for (NamedAttribute entry : perRank) {
      Attribute value = cast<ArrayAttr>(entry.getValue())[slot];
      if (isa<WeightOp>(op) && isa<UnitAttr>(value))
        op->removeAttr(entry.getName());
      else
        op->setAttr(entry.getName(), value);
    }
  });
}

RankSlot::~RankSlot() {
  for (auto &[op, attrs] : llvm::reverse(saved))
    op->setAttrs(attrs);
}

bool RankSlot::varies(Operation *root) {
  return root
      ->walk([](Operation *op) {
        return op->hasAttr(kPerRankAttr) ? WalkResult::interrupt()
                                         : WalkResult::advance();
      })
      .wasInterrupted();
}
