//===- QuantizeObserve.cpp - the graph-quantize-observe pass
//---------------===//
//
// The calibration program of static int8 quantization: the activations
// graph-quantize-static will scale become results of the function, so that
// running it on the calibration samples writes them (`--output DIR`) for
// the driver to reduce to statistics (tools/shardc/Calibration.cpp), their
// rows over the last dim: a linear layer's tokens, a convolution's pixels
// (its input is observed channels last).
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
    // A convolution's input channels last ([N, spatial.., C]): the
    // statistics' rows are then pixels, whose products with the filters
    // graph-quantize-static checks (its SQNR estimate).
    for (const quant::ConvGroup &g : quant::quantizableConvs(func)) {
      auto t = cast<RankedTensorType>(g.activation.getType());
      SmallVector<int64_t> perm = {0};
      for (int64_t d = 2; d < t.getRank(); ++d)
        perm.push_back(d);
      perm.push_back(1);
      OpBuilder b = OpBuilder::atBlockTerminator(&func.getBody().back());
      observed.push_back(b.create<graph::TransposeOp>(
          g.activation.getLoc(), g.activation, b.getDenseI64ArrayAttr(perm)));
    }
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
