//===- MeshOps.cpp - dist.mesh and dist.shard -----------------------------===//

#include "dialects/Dist/IR/DistOps.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace shardc::dist;

MeshOp shardc::dist::lookupMesh(Operation *from, FlatSymbolRefAttr symbol) {
  return SymbolTable::lookupNearestSymbolFrom<MeshOp>(from, symbol);
}

LogicalResult shardc::dist::verifyAxes(
    ArrayRef<StringRef> axes, MeshOp mesh,
    function_ref<InFlightDiagnostic()> emitError) {
  llvm::StringSet<> seen;
  for (StringRef a : axes) {
    if (!mesh.axisSize(a))
      return emitError() << "mesh @" << mesh.getSymName() << " has no axis '"
                         << a << "'";
    if (!seen.insert(a).second)
      return emitError() << "mesh axis '" << a << "' is used twice";
  }
  return success();
}

std::optional<int64_t> MeshOp::axisSize(StringRef name) {
  for (auto [axis, size] : llvm::zip(getAxes(), getShape()))
    if (cast<StringAttr>(axis).getValue() == name)
      return size;
  return std::nullopt;
}

int64_t MeshOp::numDevices() {
  int64_t n = 1;
  for (int64_t s : getShape())
    n *= s;
  return n;
}

LogicalResult MeshOp::verify() {
  if (getAxes().size() != getShape().size())
    return emitOpError("has ") << getAxes().size() << " axis names for "
                               << getShape().size() << " sizes";
  if (getAxes().empty())
    return emitOpError("needs at least one axis");
  llvm::StringSet<> seen;
  for (auto [axis, size] : llvm::zip(getAxes(), getShape())) {
    StringRef name = cast<StringAttr>(axis).getValue();
    if (name.empty())
      return emitOpError("has an axis without a name");
    if (!seen.insert(name).second)
      return emitOpError("has axis '") << name << "' twice";
    if (size < 1)
      return emitOpError("axis '") << name << "' has size " << size;
  }
  if (numDevices() > (int64_t(1) << 16))
    return emitOpError("has ") << numDevices()
                               << " devices, more than 65536";
  return success();
}

LogicalResult ShardOp::verify() {
  MeshOp mesh = lookupMesh(*this, getSharding().getMesh());
  if (!mesh)
    return emitOpError("names mesh ") << getSharding().getMesh()
                                      << ", which is not a dist.mesh";
  return getSharding().verifyFor(getInput().getType(), mesh,
                                 [&] { return emitOpError(); });
}
