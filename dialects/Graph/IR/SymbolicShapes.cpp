//===- SymbolicShapes.cpp - bounded dynamic dims in the graph dialect -----===//

#include "dialects/Graph/IR/SymbolicShapes.h"

#include "dialects/Graph/IR/ShapeInference.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
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

AffineMapAttr toAffine(MLIRContext *ctx, ArrayRef<sym::Expr> exprs) {
  unsigned numSymbols = 0;
  for (const sym::Expr &e : exprs)
    numSymbols = std::max(numSymbols, e.numSymbols());
  SmallVector<AffineExpr> results;
  for (const sym::Expr &e : exprs) {
    // Highest degree first, each monomial's symbols in order, the
    // coefficient last: built without AffineExpr's simplification, so the
    // map depends on the canonical polynomial only.
    AffineExpr sum;
    const sym::Expr::Terms &terms = e.terms();
    for (auto it = terms.rbegin(); it != terms.rend(); ++it) {
      AffineExpr term;
      for (unsigned s : it->first) {
        AffineExpr v = getAffineSymbolExpr(s, ctx);
        term = term ? getAffineBinaryOpExpr(AffineExprKind::Mul, term, v) : v;
      }
      AffineExpr c = getAffineConstantExpr(it->second, ctx);
      if (!term)
        term = c;
      else if (it->second != 1)
        term = getAffineBinaryOpExpr(AffineExprKind::Mul, term, c);
      sum = sum ? getAffineBinaryOpExpr(AffineExprKind::Add, sum, term) : term;
    }
    results.push_back(sum ? sum : getAffineConstantExpr(0, ctx));
  }
  return AffineMapAttr::get(AffineMap::get(0, numSymbols, results, ctx));
}

static FailureOr<sym::Expr> fromAffine(AffineExpr e) {
  switch (e.getKind()) {
  case AffineExprKind::Constant:
    return sym::Expr(cast<AffineConstantExpr>(e).getValue());
  case AffineExprKind::SymbolId:
    return sym::Expr::symbol(cast<AffineSymbolExpr>(e).getPosition());
  case AffineExprKind::Add:
  case AffineExprKind::Mul: {
    auto bin = cast<AffineBinaryOpExpr>(e);
    FailureOr<sym::Expr> l = fromAffine(bin.getLHS());
    FailureOr<sym::Expr> r = fromAffine(bin.getRHS());
    if (failed(l) || failed(r))
      return failure();
    sym::Expr v = e.getKind() == AffineExprKind::Add ? *l + *r : *l * *r;
    if (!v.valid())
      return failure();
    return v;
  }
  default:
    return failure();
  }
}

FailureOr<SmallVector<sym::Expr>> fromAffine(AffineMap map) {
  if (map.getNumDims() != 0)
    return failure();
  SmallVector<sym::Expr> out;
  for (AffineExpr e : map.getResults()) {
    FailureOr<sym::Expr> v = fromAffine(e);
    if (failed(v))
      return failure();
    out.push_back(*v);
  }
  return out;
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

static Operation *functionOf(Operation *op) {
  while (op && !isa<FunctionOpInterface>(op))
    op = op->getParentOp();
  return op;
}

FailureOr<SmallVector<Symbol>> readSymbols(Operation *op) {
  SmallVector<Symbol> out;
  Operation *func = functionOf(op);
  if (!func)
    return out;
  Attribute attr = func->getAttr(kDimsAttr);
  if (!attr)
    return out;
  auto list = dyn_cast<ArrayAttr>(attr);
  if (!list)
    return func->emitOpError("'") << kDimsAttr << "' must be an array";
  for (auto [i, entry] : llvm::enumerate(list)) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto name = dict ? dict.getAs<StringAttr>("name") : nullptr;
    auto max = dict ? dict.getAs<IntegerAttr>("max") : nullptr;
    if (!name || !max || max.getInt() < 1)
      return func->emitOpError("'")
             << kDimsAttr << "' entry " << i
             << " needs a name and a max of at least 1, got " << entry;
    out.push_back({name.str(), max.getInt()});
  }
  return out;
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
  Builder b(ctx);
  SmallVector<Attribute> entries;
  for (const Symbol &s : symbols)
    entries.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("name", b.getStringAttr(s.name)),
         b.getNamedAttr("max", b.getI64IntegerAttr(s.max))}));
  return b.getArrayAttr(entries);
}

LogicalResult checkMirror(Operation *op, StringRef what,
                          ArrayRef<sym::Expr> exprs, ArrayRef<int64_t> bound,
                          ArrayRef<Symbol> symbols) {
  SmallVector<int64_t> maxes;
  SmallVector<std::string> names;
  for (const Symbol &s : symbols) {
    maxes.push_back(s.max);
    names.push_back(s.name);
  }
  if (exprs.size() != bound.size())
    return op->emitOpError()
           << what << ": symbolic shape " << sym::shapeStr(exprs, names)
           << " has " << exprs.size() << " dims for " << bound.size();
  for (auto [d, e] : llvm::enumerate(exprs)) {
    if (e.numSymbols() > symbols.size())
      return op->emitOpError()
             << what << ": dim " << d << " (" << e.str() << ") uses symbol s"
             << e.numSymbols() - 1 << " but the function names "
             << symbols.size() << " (" << kDimsAttr << ")";
    if (!e.isMonotoneSize())
      return op->emitOpError() << what << ": dim " << d << " (" << e.str(names)
                               << ") is not a size that grows with its symbols";
    std::optional<int64_t> v = e.eval(maxes);
    if (!v || *v != bound[d])
      return op->emitOpError()
             << what << ": dim " << d << " is " << e.str(names) << ", which is "
             << (v ? std::to_string(*v) : "out of range")
             << " at the bounds, but the static shape says " << bound[d];
  }
  return success();
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
      if (failed(checkMirror(op, ("'" + m.getName().strref() + "'").str(),
                             *exprs, values.asArrayRef(), *symbols)))
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
