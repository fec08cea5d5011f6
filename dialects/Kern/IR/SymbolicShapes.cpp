//===- SymbolicShapes.cpp - bounded dynamic dims in the kern dialect ------===//

#include "dialects/Kern/IR/SymbolicShapes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace shardc::kern {

static SmallVector<sym::Expr> constants(ArrayRef<int64_t> values) {
  SmallVector<sym::Expr> out;
  for (int64_t v : values)
    out.push_back(sym::Expr(v));
  return out;
}

static DictionaryAttr mirrorsOf(Operation *op) {
  return op ? op->getAttrOfType<DictionaryAttr>(kSymAttr) : DictionaryAttr();
}

SmallVector<sym::Expr> symShape(Value buffer) {
  ArrayRef<int64_t> shape = cast<ShapedType>(buffer.getType()).getShape();
  Attribute mirror;
  if (auto arg = dyn_cast<BlockArgument>(buffer)) {
    if (auto func = dyn_cast_or_null<FunctionOpInterface>(
            arg.getOwner()->getParentOp()))
      if (arg.getOwner()->isEntryBlock())
        mirror = func.getArgAttr(arg.getArgNumber(), kSymAttr);
  } else if (DictionaryAttr mirrors = mirrorsOf(buffer.getDefiningOp())) {
    if (cast<OpResult>(buffer).getResultNumber() == 0)
      mirror = mirrors.get(kSymResult);
  }
  if (std::optional<SmallVector<sym::Expr>> exprs =
          sym::fromAffine(mirror, shape.size()))
    return std::move(*exprs);
  return constants(shape);
}

bool isSymbolic(ArrayRef<sym::Expr> exprs) {
  return llvm::any_of(exprs,
                      [](const sym::Expr &e) { return !e.isConstant(); });
}

SmallVector<sym::Expr> symStrides(ArrayRef<sym::Expr> shape) {
  SmallVector<sym::Expr> out(shape.size(), sym::Expr(1));
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    out[d] = out[d + 1] * shape[d + 1];
  return out;
}

bool isSymbolic(Value buffer) {
  return isa<ShapedType>(buffer.getType()) && isSymbolic(symShape(buffer));
}

SmallVector<sym::Expr> symArray(Operation *op, StringRef name) {
  auto values = op->getAttrOfType<DenseI64ArrayAttr>(name);
  ArrayRef<int64_t> v = values ? values.asArrayRef() : ArrayRef<int64_t>();
  if (DictionaryAttr mirrors = mirrorsOf(op))
    if (std::optional<SmallVector<sym::Expr>> exprs =
            sym::fromAffine(mirrors.get(name), v.size()))
      return std::move(*exprs);
  return constants(v);
}

SmallVector<SmallVector<sym::Expr>> symLayouts(Operation *op) {
  SmallVector<SmallVector<sym::Expr>> out;
  auto layouts = op->getAttrOfType<ArrayAttr>("layouts");
  if (!layouts)
    return out;
  DictionaryAttr mirrors = mirrorsOf(op);
  auto symbolic = mirrors ? mirrors.getAs<ArrayAttr>("layouts") : ArrayAttr();
  for (auto [i, a] : llvm::enumerate(layouts)) {
    ArrayRef<int64_t> v = cast<DenseI64ArrayAttr>(a).asArrayRef();
    std::optional<SmallVector<sym::Expr>> exprs;
    if (symbolic && symbolic.size() == layouts.size())
      exprs = sym::fromAffine(symbolic[i], v.size());
    out.push_back(exprs ? std::move(*exprs) : constants(v));
  }
  return out;
}

void addMirrors(Operation *op, ArrayRef<NamedAttribute> entries) {
  NamedAttrList all;
  if (DictionaryAttr mirrors = mirrorsOf(op))
    all.append(mirrors.getValue());
  for (const NamedAttribute &e : entries)
    all.set(e.getName(), e.getValue());
  op->setAttr(kSymAttr, all.getDictionary(op->getContext()));
}

static Operation *functionOf(Operation *op) {
  while (op && !isa<FunctionOpInterface>(op))
    op = op->getParentOp();
  return op;
}

FailureOr<SmallVector<sym::Symbol>> readSymbols(Operation *op) {
  return sym::readSymbols(functionOf(op), kDimsAttr);
}

SmallVector<std::string> symbolNames(Operation *op) {
  SmallVector<std::string> names;
  FailureOr<SmallVector<sym::Symbol>> symbols = readSymbols(op);
  if (succeeded(symbols))
    for (const sym::Symbol &s : *symbols)
      names.push_back(s.name);
  return names;
}

/// Checks mirror `attr` (a map, or an array of maps) of static `values` (an
/// i64 array, or an array of them).
static LogicalResult checkEntry(Operation *op, StringRef what, Attribute mirror,
                                Attribute values, ArrayRef<sym::Symbol> symbols,
                                bool sizes) {
  auto bad = [&]() {
    return op->emitOpError("'")
           << kSymAttr << "' entry '" << what
           << "' must mirror an i64 array (or an array of them) with "
              "symbolic sizes";
  };
  if (auto list = dyn_cast<ArrayAttr>(mirror)) {
    auto statics = dyn_cast_or_null<ArrayAttr>(values);
    if (!statics || statics.size() != list.size())
      return bad();
    for (auto [i, m] : llvm::enumerate(list))
      if (failed(checkEntry(op, (what + "[" + Twine(i) + "]").str(), m,
                            statics[i], symbols, sizes)))
        return failure();
    return success();
  }
  auto map = dyn_cast<AffineMapAttr>(mirror);
  auto statics = dyn_cast_or_null<DenseI64ArrayAttr>(values);
  FailureOr<SmallVector<sym::Expr>> exprs = failure();
  if (map)
    exprs = sym::fromAffine(map.getValue());
  if (failed(exprs) || !statics)
    return bad();
  return sym::checkMirror(op, ("'" + what + "'").str(), *exprs,
                          statics.asArrayRef(), symbols, kDimsAttr, sizes);
}

LogicalResult verifySymbolicAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kDimsAttr) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError("'") << kDimsAttr << "' belongs on a function";
    return sym::readSymbols(op, kDimsAttr);
  }
  if (attr.getName() != kSymAttr)
    return success();
  auto mirrors = dyn_cast<DictionaryAttr>(attr.getValue());
  if (!mirrors)
    return op->emitOpError("'") << kSymAttr << "' must be a dictionary";
  FailureOr<SmallVector<sym::Symbol>> symbols = readSymbols(op);
  if (failed(symbols))
    return failure();
  for (NamedAttribute m : mirrors) {
    StringRef name = m.getName().strref();
    if (name == kSymResult) {
      if (op->getNumResults() != 1 || !isa<MemRefType>(op->getResultTypes()[0]))
        return op->emitOpError("'")
               << kSymAttr << "' entry '" << kSymResult
               << "' belongs on an op with one buffer result";
      auto shape = DenseI64ArrayAttr::get(
          op->getContext(),
          cast<MemRefType>(op->getResultTypes()[0]).getShape());
      if (failed(checkEntry(op, "result shape", m.getValue(), shape, *symbols,
                            /*sizes=*/true)))
        return failure();
      continue;
    }
    if (failed(checkEntry(op, name, m.getValue(), op->getAttr(name), *symbols,
                          /*sizes=*/name == "shape")))
      return failure();
  }
  return success();
}

LogicalResult verifySymbolicArgAttribute(Operation *op, unsigned argIndex,
                                         NamedAttribute attr) {
  if (attr.getName() != kSymAttr)
    return success();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitOpError("'")
           << kSymAttr << "' belongs on function arguments";
  FailureOr<SmallVector<sym::Symbol>> symbols = readSymbols(op);
  if (failed(symbols))
    return failure();
  auto type = dyn_cast<MemRefType>(func.getArgumentTypes()[argIndex]);
  if (!type)
    return op->emitOpError("argument ")
           << argIndex << ": '" << kSymAttr << "' needs a buffer";
  return checkEntry(op, ("argument " + Twine(argIndex) + " shape").str(),
                    attr.getValue(),
                    DenseI64ArrayAttr::get(op->getContext(), type.getShape()),
                    *symbols, /*sizes=*/true);
}

LogicalResult checkSymbolicGate(Operation *op) {
  if (op->hasTrait<OpTrait::KernSymbolicShapes>())
    return success();
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (isa<MemRefType>(v.getType()) && isSymbolic(v))
      return op->emitOpError("does not take dynamic dims yet: operand ")
             << i << " has shape "
             << sym::shapeStr(symShape(v), symbolNames(op))
             << " (give the model's inputs a static shape with "
                "--input-shape)";
  return success();
}

} // namespace shardc::kern
