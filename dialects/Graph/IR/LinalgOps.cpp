//===- LinalgOps.cpp - matmul, gemm, softmax, normalization, einsum ---------===//

#include "dialects/Graph/IR/GraphOps.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace shardc::graph {

static LogicalResult sameElementType(Loc loc, RankedTensorType a,
                                     RankedTensorType b, StringRef what) {
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, what, " element type differs: ", typeStr(a),
                             " and ", typeStr(b));
  return success();
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto a = tensorOf(adaptor.getLhs()), b = tensorOf(adaptor.getRhs());
  SymShape shape;
  if (failed(sameElementType(loc, a, b, "operand")) ||
      failed(checkElementKind(loc, a, ElementKind::Numeric)) ||
      failed(matmulDims(loc, dimsOf(a), dimsOf(b), shape)))
    return failure();
  types.push_back(tensorType(shape, a.getElementType()));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto a = tensorOf(adaptor.getA()), b = tensorOf(adaptor.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(loc, "A and B must be 2-D, got ", typeStr(a),
                             " and ", typeStr(b));
  if (failed(sameElementType(loc, a, b, "operand")))
    return failure();
  SymShape da = dimsOf(a), db = dimsOf(b), mn;
  mn.push_back(da, adaptor.getTransA() ? 1 : 0);
  mn.push_back(db, adaptor.getTransB() ? 0 : 1);
  const sym::Expr &k1 = da.sym[adaptor.getTransA() ? 0 : 1];
  const sym::Expr &k2 = db.sym[adaptor.getTransB() ? 1 : 0];
  if (k1 != k2)
    return emitOptionalError(loc, "inner dimensions ", k1.str(), " and ",
                             k2.str(), " differ (shapes ", da.str(), " and ",
                             db.str(), ")");
  if (Value c = adaptor.getC()) {
    auto ct = tensorOf(c);
    SymShape out;
    if (failed(sameElementType(loc, a, ct, "bias")) ||
        failed(broadcastDims(loc, dimsOf(ct), mn, out)))
      return failure();
    if (out.sym != mn.sym)
      return emitOptionalError(loc, "bias ", typeStr(ct),
                               " does not broadcast to ", mn.str());
  }
  types.push_back(tensorType(mn, a.getElementType()));
  return success();
}

static LogicalResult inferSoftmax(Loc loc, Value input, int64_t axis,
                                  SmallVectorImpl<Type> &types) {
  auto t = tensorOf(input);
  if (failed(checkElementKind(loc, t, ElementKind::Float)) ||
      failed(checkAxis(loc, "axis", axis, t.getRank())))
    return failure();
  types.push_back(t);
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *, Loc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferSoftmax(loc, adaptor.getInput(), adaptor.getAxis(), types);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *, Loc loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  return inferSoftmax(loc, adaptor.getInput(), adaptor.getAxis(), types);
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (failed(checkElementKind(loc, x, ElementKind::Float)) ||
      failed(checkAxis(loc, "axis", axis, x.getRank())))
    return failure();
  SymShape xd = dimsOf(x);
  if (failed(checkStaticFrom(loc, "layer normalization", xd, axis)))
    return failure();
  ArrayRef<int64_t> normShape = x.getShape().drop_front(axis);
  SmallVector<Value> params{adaptor.getScale()};
  if (adaptor.getBias())
    params.push_back(adaptor.getBias());
  for (Value p : params) {
    auto pt = tensorOf(p);
    SmallVector<int64_t> out;
    if (failed(sameElementType(loc, x, pt, "scale/bias")) ||
        failed(broadcastShapes(loc, pt.getShape(), normShape, out)))
      return failure();
    if (ArrayRef<int64_t>(out) != normShape)
      return emitOptionalError(loc, "scale/bias ", typeStr(pt),
                               " does not broadcast to the normalized shape ",
                               shapeStr(normShape));
  }
  SymShape statShape;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    if (d < axis)
      statShape.push_back(xd, d);
    else
      statShape.push_back(1, sym::Expr(1));
  }
  auto stat = tensorType(statShape, Float32Type::get(ctx));
  types.append({x, stat, stat});
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = tensorOf(adaptor.getInput());
  if (x.getRank() < 2)
    return emitOptionalError(loc, "input must have rank >= 2, got ",
                             typeStr(x));
  int64_t c = x.getDimSize(1);
  for (Value p : {adaptor.getScale(), adaptor.getBias(), adaptor.getMean(),
                  adaptor.getVariance()}) {
    auto pt = tensorOf(p);
    if (pt.getShape() != ArrayRef<int64_t>{c})
      return emitOptionalError(loc, "per-channel parameter ", typeStr(pt),
                               " must have shape [", c, "]");
  }
  types.push_back(x);
  return success();
}

// Parses "ij,jk->ik" (or the implicit form "ij,jk") into per-operand labels
// and output labels. "..." is supported as one broadcast group.
LogicalResult EinsumOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  std::string eq;
  for (char ch : adaptor.getEquation().str())
    if (ch != ' ')
      eq.push_back(ch);
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t pos = 0;;) {
    size_t comma = lhs.find(',', pos);
    terms.push_back(lhs.substr(pos, comma - pos));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  ValueRange inputs = adaptor.getInputs();
  if (terms.size() != inputs.size())
    return emitOptionalError(loc, "equation '", eq, "' names ", terms.size(),
                             " operands but ", inputs.size(), " are given");
  llvm::DenseMap<char, int64_t> sizes;
  llvm::DenseMap<char, int> counts;
  SmallVector<int64_t> ellipsis;
  Type elt = tensorOf(inputs[0]).getElementType();
  for (size_t i = 0; i < terms.size(); ++i) {
    auto t = tensorOf(inputs[i]);
    if (t.getElementType() != elt)
      return emitOptionalError(loc, "operand element types differ");
    std::string term = terms[i];
    size_t ell = term.find("...");
    int64_t named = term.size() - (ell == std::string::npos ? 0 : 3);
    int64_t ellRank = t.getRank() - named;
    if (ellRank < 0 || (ell == std::string::npos && ellRank != 0))
      return emitOptionalError(loc, "term '", term, "' does not match rank ",
                               t.getRank(), " of operand ", i);
    int64_t dim = 0;
    for (size_t j = 0; j < term.size(); ++j) {
      if (j == ell) {
        SmallVector<int64_t> merged;
        if (failed(broadcastShapes(loc, ellipsis,
                                   t.getShape().slice(dim, ellRank), merged)))
          return failure();
        ellipsis = merged;
        dim += ellRank;
        j += 2;
        continue;
      }
      char c = term[j];
      if (!isalpha(c))
        return emitOptionalError(loc, "bad label '", c, "' in equation '", eq,
                                 "'");
      int64_t size = t.getDimSize(dim++);
      auto it = sizes.find(c);
      if (it != sizes.end() && it->second != size && it->second != 1 &&
          size != 1)
        return emitOptionalError(loc, "label '", c, "' has sizes ",
                                 it->second, " and ", size);
      if (it == sizes.end() || it->second == 1)
        sizes[c] = size;
      ++counts[c];
    }
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {
    out = lhs.find("...") != std::string::npos ? "..." : "";
    for (char c = 'A'; c <= 'z'; ++c)
      if (counts.lookup(c) == 1)
        out.push_back(c);
  }
  SmallVector<int64_t> shape;
  for (size_t j = 0; j < out.size(); ++j) {
    if (out.compare(j, 3, "...") == 0) {
      shape.append(ellipsis);
      j += 2;
      continue;
    }
    auto it = sizes.find(out[j]);
    if (it == sizes.end())
      return emitOptionalError(loc, "output label '", out[j],
                               "' does not appear in any operand");
    shape.push_back(it->second);
  }
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

} // namespace shardc::graph
