//===- SymAffine.cpp - symbolic sizes stored as MLIR attributes -----------===//

#include "shardc/Support/SymAffine.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace shardc::sym {

AffineMapAttr toAffine(MLIRContext *ctx, ArrayRef<Expr> exprs) {
  unsigned numSymbols = 0;
  for (const Expr &e : exprs)
    numSymbols = std::max(numSymbols, e.numSymbols());
  SmallVector<AffineExpr> results;
  for (const Expr &e : exprs) {
    // Highest degree first, each monomial's symbols in order, the
    // coefficient last: built without AffineExpr's simplification, so the
    // map depends on the canonical polynomial only.
    AffineExpr sum;
    const Expr::Terms &terms = e.terms();
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

static FailureOr<Expr> fromAffine(AffineExpr e) {
  switch (e.getKind()) {
  case AffineExprKind::Constant:
    return Expr(cast<AffineConstantExpr>(e).getValue());
  case AffineExprKind::SymbolId:
    return Expr::symbol(cast<AffineSymbolExpr>(e).getPosition());
  case AffineExprKind::Add:
  case AffineExprKind::Mul: {
    auto bin = cast<AffineBinaryOpExpr>(e);
    FailureOr<Expr> l = fromAffine(bin.getLHS());
    FailureOr<Expr> r = fromAffine(bin.getRHS());
    if (failed(l) || failed(r))
      return failure();
    Expr v = e.getKind() == AffineExprKind::Add ? *l + *r : *l * *r;
    if (!v.valid())
      return failure();
    return v;
  }
  default:
    return failure();
  }
}

FailureOr<SmallVector<Expr>> fromAffine(AffineMap map) {
  if (map.getNumDims() != 0)
    return failure();
  SmallVector<Expr> out;
  for (AffineExpr e : map.getResults()) {
    FailureOr<Expr> v = fromAffine(e);
    if (failed(v))
      return failure();
    out.push_back(*v);
  }
  return out;
}

std::optional<SmallVector<Expr>> fromAffine(Attribute attr, size_t size) {
  auto map = dyn_cast_or_null<AffineMapAttr>(attr);
  if (!map)
    return std::nullopt;
  FailureOr<SmallVector<Expr>> exprs = fromAffine(map.getValue());
  if (failed(exprs) || exprs->size() != size)
    return std::nullopt;
  return std::move(*exprs);
}

FailureOr<SmallVector<Symbol>> readSymbols(Operation *func,
                                           StringRef attrName) {
  SmallVector<Symbol> out;
  Attribute attr = func ? func->getAttr(attrName) : Attribute();
  if (!attr)
    return out;
  auto list = dyn_cast<ArrayAttr>(attr);
  if (!list)
    return func->emitOpError("'") << attrName << "' must be an array";
  for (auto [i, entry] : llvm::enumerate(list)) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto name = dict ? dict.getAs<StringAttr>("name") : nullptr;
    auto max = dict ? dict.getAs<IntegerAttr>("max") : nullptr;
    auto min = dict ? dict.getAs<IntegerAttr>("min") : nullptr;
    if (!name || !max || max.getInt() < 1)
      return func->emitOpError("'")
             << attrName << "' entry " << i
             << " needs a name and a max of at least 1, got " << entry;
    if (dict.get("min") && (!min || (min.getInt() != 0 && min.getInt() != 1)))
      return func->emitOpError("'")
             << attrName << "' entry " << i << " has a min other than 0 or 1";
    out.push_back({name.str(), max.getInt(), min ? min.getInt() : 1});
  }
  return out;
}

ArrayAttr symbolsAttr(MLIRContext *ctx, ArrayRef<Symbol> symbols) {
  Builder b(ctx);
  SmallVector<Attribute> entries;
  for (const Symbol &s : symbols) {
    SmallVector<NamedAttribute> fields{
        b.getNamedAttr("name", b.getStringAttr(s.name)),
        b.getNamedAttr("max", b.getI64IntegerAttr(s.max))};
    if (s.min != 1)
      fields.push_back(b.getNamedAttr("min", b.getI64IntegerAttr(s.min)));
    entries.push_back(b.getDictionaryAttr(fields));
  }
  return b.getArrayAttr(entries);
}

LogicalResult checkMirror(Operation *op, StringRef what, ArrayRef<Expr> exprs,
                          ArrayRef<int64_t> bound, ArrayRef<Symbol> symbols,
                          StringRef attrName, bool sizes) {
  SmallVector<int64_t> maxes, mins;
  SmallVector<std::string> names;
  for (const Symbol &s : symbols) {
    maxes.push_back(s.max);
    mins.push_back(s.min);
    names.push_back(s.name);
  }
  if (exprs.size() != bound.size())
    return op->emitOpError()
           << what << ": symbolic shape " << shapeStr(exprs, names) << " has "
           << exprs.size() << " dims for " << bound.size();
  for (auto [d, e] : llvm::enumerate(exprs)) {
    if (e.numSymbols() > symbols.size())
      return op->emitOpError()
             << what << ": dim " << d << " (" << e.str() << ") uses symbol s"
             << e.numSymbols() - 1 << " but the function names "
             << symbols.size() << " (" << attrName << ")";
    if (sizes && !e.isMonotoneSize(mins))
      return op->emitOpError() << what << ": dim " << d << " (" << e.str(names)
                               << ") is not a size that grows with its symbols";
    std::optional<int64_t> v = e.eval(maxes);
    if (!v || *v != bound[d])
      return op->emitOpError()
             << what << ": dim " << d << " is " << e.str(names) << ", which is "
             << (v ? std::to_string(*v) : "out of range")
             << " at the bounds, but the static " << (sizes ? "shape" : "value")
             << " says " << bound[d];
  }
  return success();
}

} // namespace shardc::sym
