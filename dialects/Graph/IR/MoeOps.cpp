//===- MoeOps.cpp - graph.moe ---------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace shardc::graph {

LogicalResult MoeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput()), w = tensorOf(adaptor.getWeights()),
       ids = tensorOf(adaptor.getIds()), gu = tensorOf(adaptor.getGateUp()),
       down = tensorOf(adaptor.getDown());
  if (failed(checkElementKind(loc, x, ElementKind::Float)))
    return failure();
  if (x.getRank() != 2)
    return emitOptionalError(loc, "input must be [tokens, hidden], got ",
                             typeStr(x));
  int64_t t = x.getDimSize(0), h = x.getDimSize(1);
  if (ids.getRank() != 2 || ids.getDimSize(0) != t)
    return emitOptionalError(loc, "ids ", typeStr(ids),
                             " must be [tokens, k] with the input's ", t,
                             " tokens");
  int64_t k = ids.getDimSize(1);
  if (w.getShape() != ids.getShape() ||
      w.getElementType() != x.getElementType())
    return emitOptionalError(loc, "weights ", typeStr(w), " must be [", t, ", ",
                             k, "] of the input's element type");
  if (down.getRank() != 3 || down.getDimSize(2) != h ||
      down.getElementType() != x.getElementType())
    return emitOptionalError(loc, "down ", typeStr(down),
                             " must be [experts, ffn, ", h,
                             "] of the input's element type");
  int64_t e = down.getDimSize(0), f = down.getDimSize(1);
  if (e < 1)
    return emitOptionalError(loc, "there must be at least one expert");
  SmallVector<int64_t> want = {e, h, 2 * f};
  if (gu.getShape() != ArrayRef<int64_t>(want) ||
      gu.getElementType() != x.getElementType())
    return emitOptionalError(loc, "gate_up ", typeStr(gu), " must be ",
                             shapeStr(want),
                             " (gate then up columns of each of the ", e,
                             " experts) of the input's element type");
  Value gub = adaptor.getGateUpBias(), db = adaptor.getDownBias();
  if (!gub != !db)
    return emitOptionalError(loc, "gate_up_bias and down_bias come together");
  if (gub) {
    auto gb = tensorOf(gub), dbt = tensorOf(db);
    if (gb.getShape() != ArrayRef<int64_t>{e, 2 * f} ||
        gb.getElementType() != x.getElementType())
      return emitOptionalError(loc, "gate_up_bias ", typeStr(gb), " must be ",
                               shapeStr({e, 2 * f}),
                               " of the input's element type");
    if (dbt.getShape() != ArrayRef<int64_t>{e, h} ||
        dbt.getElementType() != x.getElementType())
      return emitOptionalError(loc, "down_bias ", typeStr(dbt), " must be ",
                               shapeStr({e, h}),
                               " of the input's element type");
  }
  types.push_back(x);
  return success();
}

} // namespace shardc::graph
