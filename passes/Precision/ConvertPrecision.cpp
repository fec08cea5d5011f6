//===- ConvertPrecision.cpp - the graph-convert-precision pass -------------===//

#include "passes/Precision/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/APFloat.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHCONVERTPRECISION
#include "passes/Precision/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

bool isF32Tensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.getElementType().isF32();
}

RankedTensorType narrowed(Type t, FloatType to) {
  return cast<RankedTensorType>(t).clone(to);
}

/// The narrow form of an fp32 ElementsAttr (dense or a dense_resource blob),
/// or null when it cannot be read.
ElementsAttr narrowedValue(ElementsAttr value, FloatType to) {
  auto type = narrowed(value.getType(), to);
  const llvm::fltSemantics &sem = to.getFloatSemantics();
  auto narrow = [&](float f) {
    bool lost;
    APFloat a(f);
    a.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    return a;
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat())
      return DenseElementsAttr::get(type, narrow(dense.getSplatValue<float>()));
    SmallVector<APFloat> values;
    for (float f : dense.getValues<float>())
      values.push_back(narrow(f));
    return DenseElementsAttr::get(type, values);
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(value);
  if (!res)
    return {};
  AsmResourceBlob *blob = res.getRawHandle().getBlob();
  if (!blob)
    return {};
  ArrayRef<char> raw = blob->getData();
  int64_t n = type.getNumElements();
  if (static_cast<int64_t>(raw.size()) != n * 4)
    return {};
  std::vector<uint16_t> bits(n);
  for (int64_t i = 0; i < n; ++i) {
    float f;
    memcpy(&f, raw.data() + 4 * i, 4);
    bits[i] = static_cast<uint16_t>(narrow(f).bitcastToAPInt().getZExtValue());
  }
  auto narrowBlob = HeapAsmResourceBlob::allocateAndCopyInferAlign(
      ArrayRef<uint16_t>(bits));
  return DenseResourceElementsAttr::get(
      type, (res.getRawHandle().getKey() + "." + (to.isF16() ? "f16" : "bf16")).str(),
      std::move(narrowBlob));
}

struct GraphConvertPrecisionPass
    : shardc::impl::GraphConvertPrecisionBase<GraphConvertPrecisionPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    FloatType narrow;
    if (to == "f16")
      narrow = FloatType::getF16(ctx);
    else if (to == "bf16")
      narrow = FloatType::getBF16(ctx);
    else {
      func.emitError("graph-convert-precision: 'to' must be f16 or bf16, not '")
          << to << "'";
      return signalPassFailure();
    }
    if (func.getBody().empty())
      return;
    Block &entry = func.getBody().front();
    OpBuilder b(ctx);

    // The signature stays fp32: a cast after each input (first, so that the
    // ops below infer from narrow operands) and before each result.
    b.setInsertionPointToStart(&entry);
    llvm::SmallPtrSet<Operation *, 8> inputCasts;
    for (BlockArgument arg : entry.getArguments()) {
      if (!isF32Tensor(arg.getType()) || arg.use_empty())
        continue;
      auto cast = b.create<graph::CastOp>(arg.getLoc(),
                                          narrowed(arg.getType(), narrow), arg,
                                          TypeAttr::get(narrow));
      arg.replaceAllUsesExcept(cast.getResult(), cast);
      inputCasts.insert(cast);
    }

    // Every op inside: fp32 results narrow, fp32 constants convert.
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (op == func || isa<func::ReturnOp>(op) || inputCasts.contains(op))
        return WalkResult::advance();
      if (auto c = dyn_cast<graph::ConstantOp>(op); c && isF32Tensor(c.getType())) {
        ElementsAttr v = narrowedValue(c.getValue(), narrow);
        if (!v)
          return op->emitError("cannot read this fp32 constant to convert it");
        c.setValueAttr(v);
      }
      if (auto c = dyn_cast<graph::ConstantOfShapeOp>(op);
          c && isF32Tensor(c.getValue().getType())) {
        ElementsAttr v = narrowedValue(c.getValue(), narrow);
        if (!v)
          return op->emitError("cannot read this fp32 value to convert it");
        c.setValueAttr(v);
      }
      if (auto cast = dyn_cast<graph::CastOp>(op); cast && cast.getTo().isF32())
        cast.setToAttr(TypeAttr::get(narrow));
      // Ops that infer their result types say which results stay fp32 (the
      // statistics of layer_norm); other ops narrow every fp32 result.
      if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
        SmallVector<Type> types;
        if (failed(infer.inferReturnTypes(
                ctx, op->getLoc(), op->getOperands(), op->getAttrDictionary(),
                op->getPropertiesStorage(), op->getRegions(), types)))
          return WalkResult::interrupt(); // the op said why
        for (auto [r, t] : llvm::zip(op->getResults(), types))
          r.setType(t);
        return WalkResult::advance();
      }
      for (Value r : op->getResults())
        if (isF32Tensor(r.getType()))
          r.setType(narrowed(r.getType(), narrow));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Type want = func.getResultTypes()[operand.getOperandNumber()];
      if (!isF32Tensor(want) || operand.get().getType() == want)
        continue;
      auto cast = b.create<graph::CastOp>(ret.getLoc(), want, operand.get(),
                                          TypeAttr::get(b.getF32Type()));
      operand.set(cast.getResult());
    }
  }
};

} // namespace
