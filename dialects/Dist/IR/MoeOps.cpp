//===- MoeOps.cpp - dist.moe ----------------------------------------------===//
//
// Verifier: graph.moe's shapes with the experts local ([L, ..]), the group
// from the mesh, and a placement (when given) of one logical expert per slot
// that names every expert at least once.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/IR/DistOps.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace shardc::dist;

MeshOp MoeOp::getMeshOp() { return lookupMesh(*this, getMeshAttr()); }

int64_t MoeOp::groupSize() {
  int64_t n = 1;
  for (Attribute a : getAxes())
    n *= *getMeshOp().axisSize(cast<StringAttr>(a).getValue());
  return n;
}

int64_t MoeOp::getNumExperts() {
  std::optional<ArrayRef<int64_t>> placement = getPlacement();
  if (!placement)
    return getNumSlots();
  int64_t most = -1;
  for (int64_t e : *placement)
    most = std::max(most, e);
  return most + 1;
}

LogicalResult MoeOp::verify() {
  MeshOp mesh = lookupMesh(*this, getMeshAttr());
  if (!mesh)
    return emitOpError("names mesh ") << getMeshAttr()
                                      << ", which is not a dist.mesh";
  SmallVector<StringRef> axes;
  for (Attribute a : getAxes())
    axes.push_back(cast<StringAttr>(a).getValue());
  if (axes.empty())
    return emitOpError("needs at least one mesh axis");
  if (failed(verifyAxes(axes, mesh, [&] { return emitOpError(); })))
    return failure();

  auto x = cast<RankedTensorType>(getInput().getType());
  auto w = cast<RankedTensorType>(getWeights().getType());
  auto ids = cast<RankedTensorType>(getIds().getType());
  auto gu = cast<RankedTensorType>(getGateUp().getType());
  auto down = cast<RankedTensorType>(getDown().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  Type elem = x.getElementType();
  if (!isa<FloatType>(elem) || x.getRank() != 2)
    return emitOpError("input ") << x << " must be [tokens, hidden] floats";
  int64_t t = x.getDimSize(0), h = x.getDimSize(1);
  if (ids.getRank() != 2 || ids.getDimSize(0) != t ||
      !ids.getElementType().isSignlessInteger())
    return emitOpError("ids ") << ids << " must be [" << t
                               << ", k] integers";
  if (w.getShape() != ids.getShape() || w.getElementType() != elem)
    return emitOpError("weights ") << w << " must have the ids' shape and "
                                   << "the input's element type";
  if (down.getRank() != 3 || down.getDimSize(2) != h ||
      down.getElementType() != elem)
    return emitOpError("down ") << down << " must be [local experts, ffn, "
                                << h << "] of the input's element type";
  int64_t l = down.getDimSize(0), f = down.getDimSize(1);
  if (l < 1)
    return emitOpError("needs at least one expert per rank");
  SmallVector<int64_t> want = {l, h, 2 * f};
  if (gu.getShape() != ArrayRef<int64_t>(want) || gu.getElementType() != elem)
    return emitOpError("gate_up ")
           << gu << " should be " << RankedTensorType::get(want, elem);
  if (out != x)
    return emitOpError("result ") << out << " should be " << x;
  if (std::optional<ArrayRef<int64_t>> placement = getPlacement()) {
    int64_t slots = l * groupSize();
    if (static_cast<int64_t>(placement->size()) != slots)
      return emitOpError("placement has ")
             << placement->size() << " slots; the group holds " << slots
             << " (" << l << " per rank)";
    int64_t experts = getNumExperts();
    llvm::SmallBitVector seen(experts);
    for (int64_t e : *placement) {
      if (e < 0)
        return emitOpError("placement names expert ") << e;
      seen.set(e);
    }
    if (!seen.all())
      return emitOpError("placement leaves expert ")
             << seen.find_first_unset() << " without a slot";
  }
  return success();
}
