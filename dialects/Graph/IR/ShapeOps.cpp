//===- ShapeOps.cpp - reshape, transpose, concat, split, slice, gather ------===//

#include "dialects/Graph/IR/GraphOps.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace shardc::graph {

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> shape = adaptor.getShape();
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return emitOptionalError(loc, "target shape ", shapeStr(shape),
                               " has a negative dim");
    if (__builtin_mul_overflow(n, d, &n))
      return emitOptionalError(loc, "target shape ", shapeStr(shape),
                               " has more elements than an int64 counts");
  }
  if (n != t.getNumElements())
    return emitOptionalError(loc, "cannot reshape ", typeStr(t), " (",
                             t.getNumElements(), " elements) to ",
                             shapeStr(shape), " (", n, " elements)");
  // The symbolic target (graph.sym's `shape`) must hold the same elements
  // for every value of the symbols, not only at the bounds.
  SymShape in = dimsOf(t), out;
  SmallVector<sym::Expr> target =
      symAttr(adaptor.getAttributes(), "shape", shape);
  for (auto [b, e] : llvm::zip(shape, target))
    out.push_back(b, e);
  sym::Expr inCount = sym::product(in.sym), outCount = sym::product(out.sym);
  if (inCount != outCount)
    return emitOptionalError(loc, "cannot reshape ", in.str(), " (",
                             inCount.str(), " elements) to ", out.str(), " (",
                             outCount.str(), " elements)");
  types.push_back(tensorType(out, t.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if ((int64_t)perm.size() != t.getRank())
    return emitOptionalError(loc, "perm ", shapeStr(perm), " has ",
                             perm.size(), " entries for rank ", t.getRank());
  SmallVector<bool> seen(perm.size(), false);
  SymShape in = dimsOf(t), shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= t.getRank() || seen[p])
      return emitOptionalError(loc, "perm ", shapeStr(perm),
                               " is not a permutation");
    seen[p] = true;
    shape.push_back(in, p);
  }
  types.push_back(tensorType(shape, t.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "needs at least one input");
  auto first = tensorOf(inputs[0]);
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, "axis", axis, first.getRank())))
    return failure();
  SymShape head = dimsOf(first), shape = head;
  shape.bound[axis] = 0;
  shape.sym[axis] = sym::Expr(0);
  for (auto [i, v] : llvm::enumerate(inputs)) {
    auto t = tensorOf(v);
    if (t.getElementType() != first.getElementType() ||
        t.getRank() != first.getRank())
      return emitOptionalError(loc, "input ", i, " ", typeStr(t),
                               " does not match input 0 ", typeStr(first));
    SymShape td = dimsOf(t);
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != axis && td.sym[d] != head.sym[d])
        return emitOptionalError(loc, "input ", i, " ", typeStr(t),
                                 " differs from input 0 ", typeStr(first),
                                 " in dim ", d);
    shape.bound[axis] += td.bound[axis];
    shape.sym[axis] = shape.sym[axis] + td.sym[axis];
  }
  types.push_back(tensorType(shape, first.getElementType()));
  return success();
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, Loc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, "axis", axis, t.getRank())))
    return failure();
  SymShape in = dimsOf(t);
  if (!in.sym[axis].isConstant())
    return emitOptionalError(loc, "splitting dynamic dim ", axis, " of ",
                             in.str(), " is not supported");
  int64_t total = 0;
  for (int64_t s : adaptor.getSizes()) {
    if (s < 0)
      return emitOptionalError(loc, "negative split size ", s);
    // Each size is at most the dim (<= 2^40) unless the sum is already
    // wrong, so stop before the sum can overflow.
    if (s > t.getDimSize(axis) || total > t.getDimSize(axis))
      return emitOptionalError(loc, "split sizes ",
                               shapeStr(adaptor.getSizes()),
                               " exceed dim ", axis, " of size ",
                               t.getDimSize(axis));
    total += s;
    SymShape shape = in;
    shape.bound[axis] = s;
    shape.sym[axis] = sym::Expr(s);
    types.push_back(tensorType(shape, t.getElementType()));
  }
  if (total != t.getDimSize(axis))
    return emitOptionalError(loc, "split sizes ",
                             shapeStr(adaptor.getSizes()), " sum to ", total,
                             " but dim ", axis, " is ", t.getDimSize(axis));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, Loc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    steps = adaptor.getSteps();
  int64_t rank = t.getRank();
  if ((int64_t)starts.size() != rank || (int64_t)ends.size() != rank ||
      (int64_t)steps.size() != rank)
    return emitOptionalError(loc, "starts, ends and steps need ", rank,
                             " entries each");
  // Dynamic dims: a dynamic dim is kept whole; a static one may start and
  // end at symbolic values (graph.sym's `starts` and `ends`, a past length
  // and past + sequence) with a step of 1. The attributes hold the values
  // at the bounds; the size at the bounds is then the largest (a size's
  // coefficients are not negative, a start's neither).
  SymShape in = dimsOf(t), out;
  SmallVector<sym::Expr> symEnds =
      symAttr(adaptor.getAttributes(), "ends", ends);
  SmallVector<sym::Expr> symStarts =
      symAttr(adaptor.getAttributes(), "starts", starts);
  auto offset = [](const sym::Expr &e) {
    for (const auto &[m, c] : e.terms())
      if (c < 0)
        return false;
    return e.valid();
  };
  for (int64_t d = 0; d < rank; ++d) {
    if (!in.sym[d].isConstant() || !symEnds[d].isConstant() ||
        !symStarts[d].isConstant()) {
      bool whole = symStarts[d] == sym::Expr(0) && steps[d] == 1 &&
                   symEnds[d] == in.sym[d];
      sym::Expr size = symEnds[d] - symStarts[d];
      if (!in.sym[d].isConstant()
              ? !whole
              : steps[d] != 1 || !size.isMonotoneSize() ||
                    !offset(symStarts[d]) || starts[d] < 0 ||
                    ends[d] > in.bound[d] || ends[d] < starts[d])
        return emitOptionalError(loc, "slice ", symStarts[d].str(), ":",
                                 symEnds[d].str(), ":", steps[d], " of dim ", d,
                                 " of ", in.str(),
                                 " is not supported with dynamic dims");
      out.push_back(ends[d] - starts[d], size);
      continue;
    }
    int64_t dim = t.getDimSize(d), s = starts[d], e = ends[d], st = steps[d];
    if (st == 0)
      return emitOptionalError(loc, "step of dim ", d, " is zero");
    bool ok = st > 0 ? (s >= 0 && s <= dim && e >= 0 && e <= dim)
                     : (s >= -1 && s < dim && e >= -1 && e < dim);
    if (!ok)
      return emitOptionalError(loc, "bounds ", s, ":", e, ":", st,
                               " of dim ", d, " are not clamped to size ",
                               dim);
    int64_t n = st > 0 ? (e - s + st - 1) / st : (s - e - st - 1) / -st;
    out.push_back(std::max<int64_t>(0, n), sym::Expr(std::max<int64_t>(0, n)));
  }
  types.push_back(tensorType(out, t.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, "axis", axis, data.getRank())))
    return failure();
  SymShape dd = dimsOf(data), id = dimsOf(indices), shape;
  if (!dd.sym[axis].isConstant())
    return emitOptionalError(loc, "gathering along dynamic dim ", axis, " of ",
                             dd.str(), " is not supported");
  for (int64_t d = 0; d < data.getRank(); ++d) {
    if (d != axis) {
      shape.push_back(dd, d);
      continue;
    }
    for (size_t i = 0; i < id.size(); ++i)
      shape.push_back(id, i);
  }
  types.push_back(tensorType(shape, data.getElementType()));
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  SymShape target, shape;
  for (auto [b, e] :
       llvm::zip(adaptor.getShape(),
                 symAttr(adaptor.getAttributes(), "shape", adaptor.getShape())))
    target.push_back(b, e);
  if (failed(broadcastDims(loc, dimsOf(t), target, shape)))
    return failure();
  types.push_back(tensorType(shape, t.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  SymShape in = dimsOf(t), shape;
  SmallVector<bool> drop(t.getRank(), false);
  for (int64_t a : adaptor.getAxes()) {
    if (failed(checkAxis(loc, "squeeze axis", a, t.getRank())))
      return failure();
    if (in.sym[a] != sym::Expr(1))
      return emitOptionalError(loc, "cannot squeeze dim ", a, " of size ",
                               in.sym[a].str(), " in ", in.str());
    drop[a] = true;
  }
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (!drop[d])
      shape.push_back(in, d);
  types.push_back(tensorType(shape, t.getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  int64_t rank = t.getRank() + adaptor.getAxes().size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : adaptor.getAxes()) {
    if (failed(checkAxis(loc, "unsqueeze axis", a, rank)))
      return failure();
    if (inserted[a])
      return emitOptionalError(loc, "unsqueeze axis ", a, " is repeated");
    inserted[a] = true;
  }
  SymShape in = dimsOf(t), shape;
  int64_t src = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (inserted[d])
      shape.push_back(1, sym::Expr(1));
    else
      shape.push_back(in, src++);
  }
  types.push_back(tensorType(shape, t.getElementType()));
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, Loc loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis > t.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ",
                             t.getRank(), " (expected 0 to ", t.getRank(),
                             ")");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < t.getRank(); ++d)
    (d < axis ? outer : inner) *= t.getDimSize(d);
  types.push_back(t.clone({outer, inner}));
  return success();
}

LogicalResult TriluOp::inferReturnTypes(MLIRContext *, Loc loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getInput());
  if (t.getRank() < 2)
    return emitOptionalError(loc, "input must have rank >= 2, got ",
                             typeStr(t));
  types.push_back(t);
  return success();
}

} // namespace shardc::graph
