//===- QuantizeObserve.cpp - the graph-quantize-observe pass
//---------------===//
//
// The calibration program of static int8 quantization: the activations
// graph-quantize-static will scale become results of the function, so that
// running it on the calibration samples writes them (`--output DIR`) for
// the driver to reduce to statistics (tools/shardc/Calibration.cpp).
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Passes.h"
#include "passes/Precision/Quantize.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHQUANTIZEOBSERVE
#include "passes/Precision/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct GraphQuantizeObservePass
    : shardc::impl::GraphQuantizeObserveBase<GraphQuantizeObservePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The linear layers' activations, then the convolutions'.
    SmallVector<Value> observed;
    for (const quant::ActivationGroup &g :
         quant::quantizableGroups(func, /*readWeights=*/false))
      observed.push_back(g.activation);
    for (const quant::ConvGroup &g : quant::quantizableConvs(func))
      observed.push_back(g.activation);
    if (observed.empty())
      return;
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    SmallVector<Value> results(ret.getOperands());
    SmallVector<Type> types(func.getFunctionType().getResults());
    SmallVector<Attribute> attrs;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      attrs.push_back(func.getResultAttrDict(i)
                          ? Attribute(func.getResultAttrDict(i))
                          : Attribute(DictionaryAttr::get(&getContext())));
    Builder b(&getContext());
    for (auto [i, activation] : llvm::enumerate(observed)) {
      results.push_back(activation);
      types.push_back(activation.getType());
      attrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          "graph.name",
          b.getStringAttr(quant::kCalibrationOutput + std::to_string(i)))));
    }
    ret->setOperands(results);
    func.setType(b.getFunctionType(func.getArgumentTypes(), types));
    func.setAllResultAttrs(attrs);
  }
};

} // namespace
