//===- SymbolicShapes.cpp - bounded dynamic dims in the graph dialect -----===//

#include "dialects/Graph/IR/SymbolicShapes.h"

#include "dialects/Graph/IR/ShapeInference.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace shardc::graph {

bool SymShape::isSymbolic() const {
  return llvm::any_of(sym, [](const sym::Expr &e) { return !e.isConstant(); });
}

std::string SymShape::str(ArrayRef<std::string> names) const {
  return sym::shapeStr(sym, names);
}

static AffineMapAttr encodingOf(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t ? dyn_cast_or_null<AffineMapAttr>(t.getEncoding()) : nullptr;
}

bool isSymbolic(Type type) { return encodingOf(type) != nullptr; }
bool isSymbolic(Value value) { return isSymbolic(value.getType()); }

SymShape dimsOf(Type type) {
  auto t = cast<RankedTensorType>(type);
  SymShape d;
  d.bound.assign(t.getShape().begin(), t.getShape().end());
  if (AffineMapAttr enc = encodingOf(type)) {
    FailureOr<SmallVector<sym::Expr>> exprs = fromAffine(enc.getValue());
    if (succeeded(exprs) && exprs->size() == d.bound.size()) {
      d.sym = std::move(*exprs);
      return d;
    }
  }
  for (int64_t b : d.bound)
    d.sym.push_back(sym::Expr(b));
  return d;
}

RankedTensorType tensorType(const SymShape &dims, Type elementType) {
  if (!dims.isSymbolic())
    return RankedTensorType::get(dims.bound, elementType);
  return RankedTensorType::get(dims.bound, elementType,
                               toAffine(elementType.getContext(), dims.sym));
}

SmallVector<sym::Expr> symAttr(DictionaryAttr attrs, StringRef name,
                               ArrayRef<int64_t> values) {
  if (auto mirrors = attrs ? attrs.getAs<DictionaryAttr>(kSymAttr) : nullptr)
    if (auto map = mirrors.getAs<AffineMapAttr>(name)) {
      FailureOr<SmallVector<sym::Expr>> exprs = fromAffine(map.getValue());
      if (succeeded(exprs) && exprs->size() == values.size())
        return *exprs;
    }
  SmallVector<sym::Expr> out;
  for (int64_t v : values)
    out.push_back(sym::Expr(v));
  return out;
}

SmallVector<NamedAttribute> shapeAttrs(MLIRContext *ctx, StringRef name,
                                       const SymShape &shape) {
  Builder b(ctx);
  SmallVector<NamedAttribute> attrs{
      b.getNamedAttr(name, b.getDenseI64ArrayAttr(shape.bound))};
  if (shape.isSymbolic())
    attrs.push_back(b.getNamedAttr(
        kSymAttr,
        b.getDictionaryAttr({b.getNamedAttr(name, toAffine(ctx, shape.sym))})));
  return attrs;
}

SmallVector<NamedAttribute>
shapeAttrs(MLIRContext *ctx, ArrayRef<std::pair<StringRef, SymShape>> shapes) {
  Builder b(ctx);
  SmallVector<NamedAttribute> attrs, mirrors;
  for (const auto &[name, shape] : shapes) {
    attrs.push_back(b.getNamedAttr(name, b.getDenseI64ArrayAttr(shape.bound)));
    if (shape.isSymbolic())
      mirrors.push_back(b.getNamedAttr(name, toAffine(ctx, shape.sym)));
  }
  if (!mirrors.empty())
    attrs.push_back(b.getNamedAttr(kSymAttr, b.getDictionaryAttr(mirrors)));
  return attrs;
}

static Operation *functionOf(Operation *op) {
  while (op && !isa<FunctionOpInterface>(op))
    op = op->getParentOp();
  return op;
}

FailureOr<SmallVector<Symbol>> readSymbols(Operation *op) {
  return sym::readSymbols(functionOf(op), kDimsAttr);
}

SmallVector<std::string> symbolNames(Operation *op) {
  SmallVector<std::string> names;
  FailureOr<SmallVector<Symbol>> symbols = readSymbols(op);
  if (succeeded(symbols))
    for (const Symbol &s : *symbols)
      names.push_back(s.name);
  return names;
}

ArrayAttr symbolsAttr(MLIRContext *ctx, ArrayRef<Symbol> symbols) {
  return sym::symbolsAttr(ctx, symbols);
}

LogicalResult checkMirror(Operation *op, StringRef what,
                          ArrayRef<sym::Expr> exprs, ArrayRef<int64_t> bound,
                          ArrayRef<Symbol> symbols, bool sizes) {
  return sym::checkMirror(op, what, exprs, bound, symbols, kDimsAttr, sizes);
}

static LogicalResult checkType(Operation *op, StringRef what, Type type,
                               ArrayRef<Symbol> symbols) {
  AffineMapAttr enc = encodingOf(type);
  if (!enc)
    return success();
  FailureOr<SmallVector<sym::Expr>> exprs = fromAffine(enc.getValue());
  if (failed(exprs))
    return op->emitOpError() << what << " " << type
                             << ": the encoding is not a symbolic shape "
                                "(sums and products of symbols and constants)";
  return checkMirror(op, (what + " " + typeStr(type)).str(), *exprs,
                     cast<RankedTensorType>(type).getShape(), symbols);
}

LogicalResult verifySymbolicAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kDimsAttr) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError("'") << kDimsAttr << "' belongs on a function";
    FailureOr<SmallVector<Symbol>> symbols = readSymbols(op);
    if (failed(symbols))
      return failure();
    // Every symbolic type in the function, arguments included.
    WalkResult r = op->walk([&](Operation *inner) {
      for (Region &region : inner->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (failed(checkType(
                    inner, "argument " + std::to_string(arg.getArgNumber()),
                    arg.getType(), *symbols)))
              return WalkResult::interrupt();
      for (OpResult res : inner->getResults())
        if (failed(checkType(inner,
                             "result " + std::to_string(res.getResultNumber()),
                             res.getType(), *symbols)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }
  if (attr.getName() == kSymAttr) {
    auto mirrors = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!mirrors)
      return op->emitOpError("'") << kSymAttr << "' must be a dictionary";
    FailureOr<SmallVector<Symbol>> symbols = readSymbols(op);
    if (failed(symbols))
      return failure();
    for (NamedAttribute m : mirrors) {
      auto map = dyn_cast<AffineMapAttr>(m.getValue());
      auto values = op->getAttrOfType<DenseI64ArrayAttr>(m.getName());
      FailureOr<SmallVector<sym::Expr>> exprs = failure();
      if (map)
        exprs = fromAffine(map.getValue());
      if (failed(exprs) || !values)
        return op->emitOpError("'")
               << kSymAttr << "' entry '" << m.getName().strref()
               << "' must be a symbolic shape mirroring an i64 array "
                  "attribute of the same name";
      // A slice's starts are offsets (0 or a past length), not sizes.
      if (failed(checkMirror(op, ("'" + m.getName().strref() + "'").str(),
                             *exprs, values.asArrayRef(), *symbols,
                             /*sizes=*/m.getName() != "starts")))
        return failure();
    }
    return success();
  }
  return success();
}

LogicalResult verifySymbolicGate(Operation *op) {
  auto symbolic = [](Type t) { return isSymbolic(t); };
  bool any = llvm::any_of(op->getOperandTypes(), symbolic) ||
             llvm::any_of(op->getResultTypes(), symbolic);
  if (!any)
    return success();
  if (!op->hasTrait<OpTrait::SymbolicShapes>()) {
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (isSymbolic(v))
        return op->emitOpError("does not take dynamic dims yet: operand ")
               << i << " has shape " << dimsOf(v).str(symbolNames(op))
               << " (give the model's inputs a static shape with "
                  "--input-shape)";
    return op->emitOpError("does not produce dynamic dims yet");
  }
  Operation *func = functionOf(op);
  if (!func || !func->hasAttr(kDimsAttr))
    return op->emitOpError("has a symbolic type outside a function with '")
           << kDimsAttr << "' naming its symbols";
  return success();
}

} // namespace shardc::graph
