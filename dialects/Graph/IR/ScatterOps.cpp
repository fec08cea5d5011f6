//===- ScatterOps.cpp - gather_elements, scatter_elements, scatter_nd -----===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ConstantEval.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace shardc::graph {

/// `indices` has `data`'s rank and at most its size on every dim but
/// `axis` (in range).
static LogicalResult checkElementIndices(Loc loc, RankedTensorType data,
                                         RankedTensorType indices,
                                         int64_t axis) {
  if (data.getRank() < 1)
    return emitOptionalError(loc, "data must have rank >= 1, got ",
                             typeStr(data));
  if (failed(checkAxis(loc, "axis", axis, data.getRank())))
    return failure();
  if (indices.getRank() != data.getRank())
    return emitOptionalError(loc, "indices ", typeStr(indices),
                             " must have the rank of data ", typeStr(data));
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) > data.getDimSize(d))
      return emitOptionalError(loc, "indices ", typeStr(indices),
                               " exceed data ", typeStr(data), " on dim ", d,
                               " (only the axis ", axis, " may be larger)");
  return success();
}

/// `reduction` is one the scatters know and fits `data`'s elements.
static LogicalResult checkReduction(Loc loc, StringRef reduction,
                                    RankedTensorType data) {
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, reduction))
    return emitOptionalError(loc,
                             "reduction must be none, add, mul, max or "
                             "min, not '",
                             reduction, "'");
  if (reduction != "none" && data.getElementType().isInteger(1))
    return emitOptionalError(loc, "reduction '", reduction,
                             "' needs numeric elements, not ", typeStr(data));
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  if (failed(checkElementIndices(loc, data, indices, adaptor.getAxis())))
    return failure();
  types.push_back(data.clone(indices.getShape()));
  return success();
}

LogicalResult
ScatterElementsOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  auto updates = tensorOf(adaptor.getUpdates());
  if (failed(checkElementIndices(loc, data, indices, adaptor.getAxis())) ||
      failed(checkReduction(loc, adaptor.getReduction(), data)))
    return failure();
  if (updates.getShape() != indices.getShape() ||
      updates.getElementType() != data.getElementType())
    return emitOptionalError(
        loc, "updates ", typeStr(updates), " must have the shape of indices ",
        typeStr(indices), " and the element type of ", typeStr(data));
  types.push_back(data);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  auto updates = tensorOf(adaptor.getUpdates());
  if (failed(checkReduction(loc, adaptor.getReduction(), data)))
    return failure();
  if (data.getRank() < 1 || indices.getRank() < 1)
    return emitOptionalError(loc, "data ", typeStr(data), " and indices ",
                             typeStr(indices), " must have rank >= 1");
  int64_t k = indices.getShape().back();
  SymShape dd = dimsOf(data), id = dimsOf(indices), want;
  if (k < 1 || k > data.getRank() || !id.sym.back().isConstant())
    return emitOptionalError(
        loc, "index tuples of ", k, " entries (the last dim of indices ",
        typeStr(indices), ") must be 1 to the rank of ", typeStr(data));
  for (size_t d = 0; d + 1 < id.size(); ++d)
    want.push_back(id, d);
  for (size_t d = k; d < dd.size(); ++d)
    want.push_back(dd, d);
  if (dimsOf(updates).sym != want.sym ||
      updates.getElementType() != data.getElementType())
    return emitOptionalError(loc, "updates ", typeStr(updates),
                             " must have shape ", want.str(),
                             " (indices' dims but the last, then data's from ",
                             k, ") and the element type of ", typeStr(data));
  types.push_back(data);
  return success();
}

/// Whether `indices` (a constant [d0, .., dn-1, n] of integers) names every
/// position of a tensor of dims d0..dn-1 in row-major order.
static bool enumeratesEveryPosition(Value indices, ArrayRef<int64_t> dims) {
  auto c = indices.getDefiningOp<shardc::graph::ConstantOp>();
  if (!c)
    return false;
  auto type = cast<RankedTensorType>(c.getType());
  int64_t n = static_cast<int64_t>(dims.size());
  if (type.getRank() != n + 1 || type.getShape().drop_back() != dims ||
      type.getShape().back() != n)
    return false;
  auto elements = dyn_cast<DenseIntElementsAttr>(c.getValue());
  if (!elements || elements.isSplat())
    return n == 0;
  SmallVector<int64_t> pos(n, 0);
  int64_t j = 0;
  for (const APInt &v : elements.getValues<APInt>()) {
    if (v.getSExtValue() != pos[j])
      return false;
    if (++j < n)
      continue;
    j = 0;
    // The next position, row-major.
    for (int64_t d = n - 1; d >= 0; --d) {
      if (++pos[d] < dims[d])
        break;
      pos[d] = 0;
    }
  }
  return true;
}

OpFoldResult ScatterNDOp::fold(FoldAdaptor) {
  auto data = cast<RankedTensorType>(getData().getType());
  if (getReduction() != "none" || getUpdates().getType() != data ||
      !data.hasStaticShape())
    return {};
  if (!enumeratesEveryPosition(getIndices(), data.getShape()))
    return {};
  return getUpdates();
}

} // namespace shardc::graph
