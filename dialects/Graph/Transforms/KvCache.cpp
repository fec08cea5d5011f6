//===- KvCache.cpp - graph-kv-cache ---------------------------------------===//
//
// Marks the past inputs of a decoder's KV cache (see Passes.td). The
// conditions make the in-place write exact: the past is read by nothing but
// its append, and the appended value is the returned present, so the
// program never needs the past apart from the present's first P entries.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/Transforms/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHKVCACHE
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// The result index that returns `v`, if exactly one does.
std::optional<unsigned> returnedAt(Value v, Operation *ret) {
  std::optional<unsigned> at;
  for (OpOperand &use : v.getUses()) {
    if (use.getOwner() != ret)
      continue;
    if (at)
      return std::nullopt;
    at = use.getOperandNumber();
  }
  return at;
}

struct GraphKvCachePass : shardc::impl::GraphKvCacheBase<GraphKvCachePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<SmallVector<graph::Symbol>> symbols = graph::readSymbols(func);
    if (failed(symbols) || symbols->empty() || func.isExternal())
      return;
    Operation *ret = func.getBody().front().getTerminator();
    for (BlockArgument arg : func.getArguments()) {
      if (!arg.hasOneUse())
        continue;
      auto concat = dyn_cast<graph::ConcatOp>(*arg.getUsers().begin());
      if (!concat || concat.getInputs().size() != 2 ||
          concat.getInputs()[0] != arg)
        continue;
      int64_t axis = concat.getAxis();
      graph::SymShape past = graph::dimsOf(arg.getType());
      std::optional<unsigned> k = past.sym[axis].asSymbol();
      if (!k || (*symbols)[*k].min != 0)
        continue;
      std::optional<unsigned> r = returnedAt(concat.getOutput(), ret);
      if (!r)
        continue;
      Builder b(func.getContext());
      func.setArgAttr(arg.getArgNumber(), graph::kCacheAttr,
                      b.getDictionaryAttr(
                          {b.getNamedAttr("output", b.getI64IntegerAttr(*r)),
                           b.getNamedAttr("axis", b.getI64IntegerAttr(axis))}));
    }
  }
};

} // namespace
