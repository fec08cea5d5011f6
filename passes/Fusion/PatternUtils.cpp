//===- PatternUtils.cpp - small matchers the fusion passes share -----------===//

#include "passes/Fusion/PatternUtils.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;

std::optional<APFloat> shardc::patterns::splatFloat(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return std::nullopt;
  ElementsAttr value = c.getValue();
  auto ft = dyn_cast<FloatType>(value.getElementType());
  if (!ft || value.getNumElements() < 1 || value.getNumElements() > 1024)
    return std::nullopt;
  SmallVector<APFloat> values;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    llvm::append_range(values, dense.getValues<APFloat>());
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    unsigned bytes = ft.getWidth() / 8;
    if (!blob || bytes > 8 ||
        static_cast<int64_t>(blob->getData().size()) !=
            bytes * value.getNumElements())
      return std::nullopt;
    ArrayRef<char> raw = blob->getData();
    for (size_t at = 0; at < raw.size(); at += bytes) {
      uint64_t bits = 0;
      memcpy(&bits, raw.data() + at, bytes);
      values.push_back(
          APFloat(ft.getFloatSemantics(), APInt(ft.getWidth(), bits)));
    }
  }
  if (values.empty() || llvm::any_of(values, [&](const APFloat &f) {
        return !f.bitwiseIsEqual(values.front());
      }))
    return std::nullopt;
  return values.front();
}

Value shardc::patterns::otherOperand(Operation *op, Value v) {
  if (op->getOperand(0) == v && op->getOperand(1) != v)
    return op->getOperand(1);
  if (op->getOperand(1) == v && op->getOperand(0) != v)
    return op->getOperand(0);
  return {};
}
