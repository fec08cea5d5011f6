//===- CollectiveOps.cpp - dist collectives -------------------------------===//
//
// Verifiers: the mesh exists and holds the axes (each once); the result's
// shape follows from the input's and the group size.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dist/IR/DistOps.h"

using namespace mlir;
using namespace shardc::dist;

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
  if (kind != "sum" && kind != "max" && kind != "min")
    return op->emitOpError("kind '") << kind
                                     << "': expected sum, max or min";
  return success();
}

static LogicalResult verifyDim(Operation *op, int64_t dim, int64_t rank,
                               StringRef what) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError(what) << " " << dim << " is out of range for rank "
                                 << rank;
  return success();
}

/// Result dims equal to the input's but at `dim`, where the result has
/// `expected`.
static LogicalResult verifyShape(Operation *op, RankedTensorType in,
                                 RankedTensorType out,
                                 ArrayRef<std::pair<int64_t, int64_t>> changed) {
  if (in.getElementType() != out.getElementType() ||
      in.getRank() != out.getRank())
    return op->emitOpError("result ") << out << " must have the input's "
                                      << "element type and rank (" << in
                                      << ")";
  SmallVector<int64_t> expect(in.getShape());
  for (auto [d, size] : changed)
    expect[d] = size;
  if (out.getShape() != ArrayRef<int64_t>(expect)) {
    auto shape = RankedTensorType::get(expect, in.getElementType());
    return op->emitOpError("result ") << out << " should be " << shape;
  }
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
