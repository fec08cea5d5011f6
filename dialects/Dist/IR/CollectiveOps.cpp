//===- CollectiveOps.cpp - dist collectives -------------------------------===//
//
// Verifiers: the mesh exists and holds the axes (each once); the result's
// shape follows from the input's and the group size. dist.moe (expert
// parallelism) checks graph.moe's shapes with the experts local.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/IR/DistOps.h"
#include "shardc/Support/ReductionKinds.h"
#include "shardc/Support/SymAffine.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace shardc::dist;
using shardc::sym::Expr;

static SmallVector<StringRef> names(ArrayAttr axes) {
  SmallVector<StringRef> out;
  for (Attribute a : axes)
    out.push_back(cast<StringAttr>(a).getValue());
  return out;
}

/// The mesh and group size of a collective, or failure with an error.
static FailureOr<int64_t> group(Operation *op, FlatSymbolRefAttr meshName,
                                ArrayAttr axes) {
  MeshOp mesh = lookupMesh(op, meshName);
  if (!mesh)
    return op->emitOpError("names mesh ") << meshName
                                          << ", which is not a dist.mesh";
  if (axes.empty())
    return op->emitOpError("needs at least one mesh axis");
  if (failed(verifyAxes(names(axes), mesh, [&] { return op->emitOpError(); })))
    return failure();
  int64_t n = 1;
  for (StringRef a : names(axes))
    n *= *mesh.axisSize(a);
  return n;
}

static LogicalResult verifyKind(Operation *op, StringRef kind) {
  if (!shardc::isCollectiveReduction(kind))
    return op->emitOpError("kind '")
           << kind << "': expected sum, max, min or prod";
  return success();
}

static LogicalResult verifyDim(Operation *op, int64_t dim, int64_t rank,
                               StringRef what) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError(what) << " " << dim << " is out of range for rank "
                                 << rank;
  return success();
}

/// The symbolic shape of a tensor with dynamic dims (its encoding,
/// docs/dynamic-shapes.md), or its static dims as constants.
static SmallVector<Expr> mirrorOf(RankedTensorType t) {
  if (std::optional<SmallVector<Expr>> e =
          shardc::sym::fromAffine(t.getEncoding(), t.getRank()))
    return *e;
  SmallVector<Expr> out;
  for (int64_t d : t.getShape())
    out.push_back(Expr(d));
  return out;
}

/// Result dims equal to the input's but at `dim`, where the result has
/// `expected`. Dynamic dims pass through as they are: a collective never
/// splits or gathers one (its size divides by the group only at the
/// bound).
static LogicalResult verifyShape(Operation *op, RankedTensorType in,
                                 RankedTensorType out,
                                 ArrayRef<std::pair<int64_t, int64_t>> changed) {
  if (in.getElementType() != out.getElementType() ||
      in.getRank() != out.getRank())
    return op->emitOpError("result ") << out << " must have the input's "
                                      << "element type and rank (" << in
                                      << ")";
  SmallVector<int64_t> expect(in.getShape());
  SmallVector<Expr> mirror = mirrorOf(in);
  for (auto [d, size] : changed) {
    if (!mirror[d].isConstant())
      return op->emitOpError("dim ")
             << d << " of " << in << " is dynamic (" << mirror[d].str()
             << "): a collective does not split or gather it";
    expect[d] = size;
    mirror[d] = Expr(size);
  }
  bool symbolic =
      llvm::any_of(mirror, [](const Expr &e) { return !e.isConstant(); });
  auto shape = symbolic ? RankedTensorType::get(
                              expect, in.getElementType(),
                              shardc::sym::toAffine(op->getContext(), mirror))
                        : RankedTensorType::get(expect, in.getElementType());
  if (out != shape)
    return op->emitOpError("result ") << out << " should be " << shape;
  return success();
}

#define DEFINE_COMMON(OP)                                                      \
  MeshOp OP::getMeshOp() { return lookupMesh(*this, getMeshAttr()); }          \
  int64_t OP::groupSize() {                                                    \
    int64_t n = 1;                                                             \
    for (StringRef a : names(getAxes()))                                       \
      n *= *getMeshOp().axisSize(a);                                           \
    return n;                                                                  \
  }
DEFINE_COMMON(AllReduceOp)
DEFINE_COMMON(AllGatherOp)
DEFINE_COMMON(ReduceScatterOp)
DEFINE_COMMON(AllToAllOp)
DEFINE_COMMON(SendOp)
DEFINE_COMMON(RecvOp)
DEFINE_COMMON(MoeOp)
#undef DEFINE_COMMON

LogicalResult AllReduceOp::verify() {
  if (failed(group(*this, getMeshAttr(), getAxes())))
    return failure();
  return verifyKind(*this, getKind());
}

LogicalResult AllGatherOp::verify() {
  FailureOr<int64_t> n = group(*this, getMeshAttr(), getAxes());
  if (failed(n))
    return failure();
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t d = getDim();
  if (failed(verifyDim(*this, d, in.getRank(), "dim")))
    return failure();
  return verifyShape(*this, in, out, {{d, in.getDimSize(d) * *n}});
}

LogicalResult ReduceScatterOp::verify() {
  FailureOr<int64_t> n = group(*this, getMeshAttr(), getAxes());
  if (failed(n) || failed(verifyKind(*this, getKind())))
    return failure();
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t d = getDim();
  if (failed(verifyDim(*this, d, in.getRank(), "dim")))
    return failure();
  if (in.getDimSize(d) % *n != 0)
    return emitOpError("dim ") << d << " of size " << in.getDimSize(d)
                               << " does not divide by the group size " << *n;
  return verifyShape(*this, in, out, {{d, in.getDimSize(d) / *n}});
}

LogicalResult AllToAllOp::verify() {
  FailureOr<int64_t> n = group(*this, getMeshAttr(), getAxes());
  if (failed(n))
    return failure();
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t split = getSplitDim(), concat = getConcatDim();
  if (failed(verifyDim(*this, split, in.getRank(), "split dim")) ||
      failed(verifyDim(*this, concat, in.getRank(), "concat dim")))
    return failure();
  if (in.getDimSize(split) % *n != 0)
    return emitOpError("split dim ")
           << split << " of size " << in.getDimSize(split)
           << " does not divide by the group size " << *n;
  if (split == concat)
    return verifyShape(*this, in, out, {});
  return verifyShape(*this, in, out,
                     {{split, in.getDimSize(split) / *n},
                      {concat, in.getDimSize(concat) * *n}});
}

static LogicalResult verifyPeer(Operation *op, ArrayAttr axes,
                                int64_t offset) {
  if (axes.size() != 1)
    return op->emitOpError("takes one mesh axis, not ") << axes.size();
  if (offset == 0)
    return op->emitOpError("needs a non-zero offset");
  return success();
}

LogicalResult SendOp::verify() {
  if (failed(group(*this, getMeshAttr(), getAxes())))
    return failure();
  return verifyPeer(*this, getAxes(), getOffset());
}

LogicalResult RecvOp::verify() {
  if (failed(group(*this, getMeshAttr(), getAxes())))
    return failure();
  return verifyPeer(*this, getAxes(), getOffset());
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

/// graph.moe's shapes with the experts local ([L, ..]), and a placement
/// (when given) of one logical expert per slot that names every expert.
LogicalResult MoeOp::verify() {
  FailureOr<int64_t> n = group(*this, getMeshAttr(), getAxes());
  if (failed(n))
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
  if (!getGateUpBias() != !getDownBias())
    return emitOpError("gate_up_bias and down_bias come together");
  if (Value gub = getGateUpBias()) {
    auto gb = cast<RankedTensorType>(gub.getType());
    auto db = cast<RankedTensorType>(getDownBias().getType());
    if (gb != RankedTensorType::get({l, 2 * f}, elem))
      return emitOpError("gate_up_bias ")
             << gb << " should be " << RankedTensorType::get({l, 2 * f}, elem);
    if (db != RankedTensorType::get({l, h}, elem))
      return emitOpError("down_bias ")
             << db << " should be " << RankedTensorType::get({l, h}, elem);
  }
  if (std::optional<ArrayRef<int64_t>> placement = getPlacement()) {
    int64_t slots = l * *n;
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
