//===- MeshOps.cpp - dist.mesh and dist.shard -----------------------------===//

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

int64_t shardc::dist::batchRows(ModuleOp module) {
  int64_t rows = 0;
  for (auto func : module.getOps<func::FuncOp>())
    for (Type t : func.getArgumentTypes())
      if (auto r = dyn_cast<RankedTensorType>(t); r && r.getRank() >= 1)
        rows = std::max(rows, r.getDimSize(0));
  return rows;
}

FailureOr<MeshOp> shardc::dist::getSingleMesh(ModuleOp module, StringRef pass,
                                              bool required) {
  SmallVector<MeshOp> meshes(module.getOps<MeshOp>());
  if (meshes.size() == 1)
    return meshes.front();
  if (meshes.empty() && !required)
    return MeshOp();
  InFlightDiagnostic d =
      meshes.empty() ? module.emitError() : meshes[1].emitError();
  d << pass << " needs one dist.mesh in the module, found " << meshes.size();
  return failure();
}

MeshOp shardc::dist::getOrAddMeshAxis(ModuleOp module, StringRef name,
                                      int64_t size) {
  SmallVector<MeshOp> meshes(module.getOps<MeshOp>());
  if (meshes.size() > 1) {
    module.emitError("the module has ") << meshes.size()
                                        << " dist.mesh ops; expected one";
    return nullptr;
  }
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  if (meshes.empty())
    return b.create<MeshOp>(module.getLoc(), "mesh", b.getStrArrayAttr({name}),
                            b.getDenseI64ArrayAttr({size}));
  MeshOp mesh = meshes.front();
  if (std::optional<int64_t> have = mesh.axisSize(name)) {
    if (*have == size)
      return mesh;
    mesh.emitError("mesh axis '") << name << "' has size " << *have
                                  << ", not " << size;
    return nullptr;
  }
  static const llvm::StringLiteral kOrder[] = {kDataAxis, kPipelineAxis,
                                               kExpertAxis, kTensorAxis};
  auto rankOf = [](StringRef axis) {
    for (auto [i, n] : llvm::enumerate(kOrder))
      if (axis == n)
        return static_cast<int64_t>(i);
    return static_cast<int64_t>(std::size(kOrder));
  };
  SmallVector<StringRef> axes;
  SmallVector<int64_t> shape;
  bool placed = false;
  for (auto [axis, s] : llvm::zip(mesh.getAxes(), mesh.getShape())) {
    StringRef a = cast<StringAttr>(axis).getValue();
    if (!placed && rankOf(name) < rankOf(a)) {
      axes.push_back(name);
      shape.push_back(size);
      placed = true;
    }
    axes.push_back(a);
    shape.push_back(s);
  }
  if (!placed) {
    axes.push_back(name);
    shape.push_back(size);
  }
  mesh.setAxesAttr(b.getStrArrayAttr(axes));
  mesh.setShape(shape);
  return mesh;
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

SmallVector<int64_t> MeshOp::coordinates(int64_t rank) {
  ArrayRef<int64_t> shape = getShape();
  SmallVector<int64_t> coord(shape.size(), 0);
  for (size_t i = shape.size(); i-- > 0;) {
    coord[i] = rank % shape[i];
    rank /= shape[i];
  }
  return coord;
}

std::optional<std::pair<int64_t, int64_t>>
MeshOp::part(ArrayRef<int64_t> coord, ArrayRef<StringRef> axes) {
  int64_t parts = 1, index = 0;
  for (StringRef a : axes) {
    std::optional<size_t> at;
    for (auto [i, name] : llvm::enumerate(getAxes()))
      if (cast<StringAttr>(name).getValue() == a)
        at = i;
    if (!at || *at >= coord.size())
      return std::nullopt;
    int64_t size = getShape()[*at];
    parts *= size;
    index = index * size + coord[*at];
  }
  return std::make_pair(parts, index);
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
