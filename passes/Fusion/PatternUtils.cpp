//===- PatternUtils.cpp - small matchers the fusion passes share -----------===//

#include "passes/Fusion/PatternUtils.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"

#include <cstring>

using namespace mlir;

std::optional<APFloat> shardc::patterns::splatFloat(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto ft = dyn_cast<FloatType>(c.getValue().getElementType());
  std::optional<graph::HostTensor> t =
      ft ? graph::readElements(c.getValue(), 1024) : std::nullopt;
  if (!t || t->floats.empty())
    return std::nullopt;
  // Bitwise equal: +0 and -0 differ, and so do NaNs of other payloads.
  auto bits = [](double d) {
    uint64_t b;
    std::memcpy(&b, &d, sizeof(b));
    return b;
  };
  if (llvm::any_of(t->floats,
                   [&](double d) { return bits(d) != bits(t->floats[0]); }))
    return std::nullopt;
  APFloat f(t->floats[0]);
  bool lost;
  f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return f;
}

Value shardc::patterns::otherOperand(Operation *op, Value v) {
  if (op->getOperand(0) == v && op->getOperand(1) != v)
    return op->getOperand(1);
  if (op->getOperand(1) == v && op->getOperand(0) != v)
    return op->getOperand(0);
  return {};
}
