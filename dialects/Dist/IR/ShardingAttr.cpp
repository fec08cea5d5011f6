//===- ShardingAttr.cpp - #dist.sharding ----------------------------------===//

#include "dialects/Dist/IR/DistOps.h"
#include "shardc/Support/ReductionKinds.h"
#include "shardc/Support/SymAffine.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace shardc::dist;

static SmallVector<StringRef> strings(ArrayAttr array) {
  SmallVector<StringRef> out;
  if (array)
    for (Attribute a : array)
      out.push_back(cast<StringAttr>(a).getValue());
  return out;
}

bool ShardingAttr::isPartialKind(StringRef kind) {
  return shardc::isReductionKind(kind);
}

/// #dist.sharding<@mesh, [["tp"], []], partial = max ["tp"]>: the kind is
/// printed before the partial axes unless it is "sum".
Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  FlatSymbolRefAttr mesh;
  ArrayAttr dims, partial;
  std::string kind = "sum";
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseAttribute(mesh) ||
      parser.parseComma() || parser.parseAttribute(dims))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("partial") || parser.parseEqual())
      return {};
    StringRef word;
    if (succeeded(parser.parseOptionalKeyword(&word)))
      kind = word.str();
    if (parser.parseAttribute(partial))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return ShardingAttr::getChecked([&] { return parser.emitError(loc); },
                                  parser.getContext(), mesh, dims, partial,
                                  StringRef(kind));
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<" << getMesh() << ", " << getDims();
  if (getPartial()) {
    printer << ", partial = ";
    if (getPartialKind() != "sum")
      printer << getPartialKind() << " ";
    printer << getPartial();
  }
  printer << ">";
}

LogicalResult
ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     FlatSymbolRefAttr mesh, ArrayAttr dims,
                     ArrayAttr partial, StringRef partialKind) {
  if (!mesh)
    return emitError() << "a sharding needs a mesh";
  if (!isPartialKind(partialKind))
    return emitError() << "unknown partial kind '" << partialKind
                       << "' (expected sum, max, min, prod or mean)";
  llvm::StringSet<> seen;
  auto checkAxes = [&](ArrayAttr axes, const Twine &where) -> LogicalResult {
    for (Attribute a : axes) {
      auto name = llvm::dyn_cast<StringAttr>(a);
      if (!name || name.getValue().empty())
        return emitError() << where << ": expected non-empty axis names";
      if (!seen.insert(name.getValue()).second)
        return emitError() << "mesh axis '" << name.getValue()
                           << "' is used twice";
    }
    return success();
  };
  for (auto [i, d] : llvm::enumerate(dims)) {
    auto axes = llvm::dyn_cast<ArrayAttr>(d);
    if (!axes)
      return emitError() << "dim " << i
                         << ": expected an array of mesh axis names";
    if (failed(checkAxes(axes, "dim " + Twine(i))))
      return failure();
  }
  if (partial && failed(checkAxes(partial, "partial")))
    return failure();
  return success();
}

SmallVector<StringRef> ShardingAttr::axesOf(unsigned dim) const {
  return strings(llvm::cast<ArrayAttr>(getDims()[dim]));
}

SmallVector<StringRef> ShardingAttr::partialAxes() const {
  return strings(getPartial());
}

bool ShardingAttr::isReplicated() const {
  if (getPartial() && !getPartial().empty())
    return false;
  return llvm::all_of(getDims(), [](Attribute d) {
    return llvm::cast<ArrayAttr>(d).empty();
  });
}

LogicalResult
ShardingAttr::verifyFor(ShapedType type, MeshOp mesh,
                        function_ref<InFlightDiagnostic()> emitError) const {
  if (static_cast<int64_t>(getDims().size()) != type.getRank())
    return emitError() << "sharding has " << getDims().size()
                       << " dims for a tensor of rank " << type.getRank();
  std::optional<SmallVector<shardc::sym::Expr>> dynamic;
  if (auto ranked = llvm::dyn_cast<RankedTensorType>(type))
    dynamic = shardc::sym::fromAffine(ranked.getEncoding(), type.getRank());
  for (unsigned d = 0; d < getDims().size(); ++d) {
    SmallVector<StringRef> axes = axesOf(d);
    if (failed(verifyAxes(axes, mesh, emitError)))
      return failure();
    int64_t parts = 1;
    for (StringRef a : axes)
      parts *= *mesh.axisSize(a);
    // A dynamic dim (docs/dynamic-shapes.md) divides by the parts only at
    // its bound: it stays whole.
    if (parts > 1 && dynamic && !(*dynamic)[d].isConstant())
      return emitError() << "dim " << d << " of " << type << " is dynamic ("
                         << (*dynamic)[d].str()
                         << "): a sharding does not split it";
    int64_t size = type.getDimSize(d);
    if (!ShapedType::isDynamic(size) && size % parts != 0) {
      std::string names;
      for (StringRef a : axes)
        names += (names.empty() ? "" : " x ") + a.str();
      return emitError() << "dim " << d << " of size " << size
                         << " does not divide by " << parts << " (mesh axes "
                         << names << ")";
    }
  }
  return verifyAxes(partialAxes(), mesh, emitError);
}

SmallVector<int64_t> ShardingAttr::localShape(ShapedType type,
                                              MeshOp mesh) const {
  SmallVector<int64_t> shape(type.getShape());
  for (unsigned d = 0; d < shape.size(); ++d)
    for (StringRef a : axesOf(d))
      if (!ShapedType::isDynamic(shape[d]))
        shape[d] /= *mesh.axisSize(a);
  return shape;
}

ShardingAttr shardc::dist::splitAlong(MeshOp mesh, int64_t rank, int64_t dim,
                                      StringRef axis) {
  Builder b(mesh.getContext());
  SmallVector<Attribute> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(d == dim ? b.getStrArrayAttr({axis}) : b.getArrayAttr({}));
  return ShardingAttr::get(FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
                           b.getArrayAttr(dims));
}
