//===- Slicing.cpp - blocks of constants at compile time ------------------===//

#include "passes/Sharding/Slicing.h"

#include "dialects/Graph/IR/ConstantEval.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"


using namespace mlir;
using namespace shardc;

/// Slices of at least this many bytes are views or windows, never copies
/// (a head's q, k or v block of GPT-2-small at tp=4 is 576 KiB: copied,
/// they were a quarter of the partitioning).
static constexpr int64_t kLargeSliceBytes = 64 << 10;

Value shardc::sliceConstantData(OpBuilder &b, graph::ConstantOp op,
                                ArrayRef<int64_t> offset,
                                ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(op.getType());
  auto localType = RankedTensorType::get(sizes, type.getElementType());
  Attribute value = op.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
    return b.create<graph::ConstantOp>(op.getLoc(),
                                       dense.resizeSplat(localType));
  // A weight's slice is named after it (its resource key).
  std::string key = graph::derivedKey(op.getValue(), ".slice", "slice");
  bool window = op->hasAttr(graph::kSourceAttr);
  if (!window && graph::isShapeOnly(value)) // planning a model whose weights are absent
    return b.create<graph::ConstantOp>(
        op.getLoc(), graph::shapeOnlyElements(localType, key));
  std::optional<graph::Window> w = graph::windowOf(op, op.getValue());
  if (!w)
    return Value();
  int64_t rank = type.getRank();
  // The block's place in the source.
  SmallVector<int64_t> at(rank);
  bool inside = true;
  for (int64_t d = 0; d < rank; ++d) {
    at[d] = w->offset[d] + offset[d];
    inside &= at[d] + sizes[d] <= w->sourceShape[d];
  }
  int64_t bytes = localType.getNumElements() * w->elemBytes;
  if (bytes >= kLargeSliceBytes) {
    // A contiguous block of the source (a row-parallel weight's rows) is a
    // view of it, which the context keeps (blob manager or attribute
    // storage) as long as the slice; at an odd address (a weight in place
    // in the model file) with alignment 1: readers copy bytes.
    int64_t last = rank - 1;
    while (last >= 0 && sizes[last] == w->sourceShape[last])
      --last;
    bool contiguous = llvm::all_of(
        sizes.take_front(std::max<int64_t>(last, 0)),
        [](int64_t s) { return s == 1; });
    if (inside && contiguous) {
      int64_t start = 0, stride = 1;
      for (int64_t d = rank - 1; d >= 0; --d) {
        start += at[d] * stride;
        stride *= w->sourceShape[d];
      }
      const char *data = w->raw.data() + start * w->elemBytes;
      size_t align = reinterpret_cast<uintptr_t>(data) % w->elemBytes == 0
                         ? w->elemBytes
                         : 1;
      return b.create<graph::ConstantOp>(
          op.getLoc(), DenseResourceElementsAttr::get(
                           localType, key,
                           UnmanagedAsmResourceBlob::allocateWithAlign(
                               ArrayRef<char>(data, bytes), align)));
    }
    // Anything else (a column-parallel weight's columns, a padded
    // vocabulary's last block) is a window of the source: the weights
    // writer reads its rows from there, and nothing is copied.
    auto slice = b.create<graph::ConstantOp>(
        op.getLoc(), graph::shapeOnlyElements(localType, key));
    slice->setAttr(graph::kSourceAttr, w->source);
    slice->setAttr(graph::kSourceOffsetAttr, b.getDenseI64ArrayAttr(at));
    return slice;
  }
  // A small block is copied (zeros where it passes the source's end).
  graph::Window block = *w;
  block.offset = at;
  std::vector<char> small = graph::windowBytes(block, sizes);
  return b.create<graph::ConstantOp>(
      op.getLoc(), DenseElementsAttr::getFromRawBuffer(localType, small));
}

Value shardc::padConstantData(OpBuilder &b, graph::ConstantOp op, int64_t dim,
                              int64_t size) {
  auto type = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> shape(type.getShape());
  // A window's source may go on past the window: padding it would show
  // the source's next elements, not zeros.
  if (dim < 0 || dim >= type.getRank() || size < shape[dim] ||
      op->hasAttr(graph::kSourceAttr))
    return Value();
  // Data the slicer could not cut (a splat, bit-packed booleans) stays
  // unpadded and whole.
  if (!graph::isShapeOnly(op.getValue()) && !graph::windowOf(op, op.getValue()))
    return Value();
  shape[dim] = size;
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  // The padded data is never made whole: a window of the original as large
  // as the padded shape (zeros past the original's end).
  auto padded = b.create<graph::ConstantOp>(
      op.getLoc(),
      graph::shapeOnlyElements(paddedType, graph::derivedKey(op.getValue(), ".padded", "padded")));
  if (!graph::isShapeOnly(op.getValue()))
    padded->setAttr(graph::kSourceAttr, op.getValue());
  return padded;
}

shardc::graph::MatMulOp shardc::widenToWeight(graph::MatMulOp op) {
  auto out = cast<RankedTensorType>(op.getOutput().getType());
  // The columns are static; the rows may be dynamic dims (kept as they are).
  graph::SymShape dims = graph::dimsOf(out), shape = dims;
  shape.bound.back() =
      cast<RankedTensorType>(op.getRhs().getType()).getDimSize(1);
  shape.sym.back() = sym::Expr(shape.bound.back());
  OpBuilder b(op);
  auto wide = b.create<graph::MatMulOp>(
      op.getLoc(), graph::tensorType(shape, out.getElementType()), op.getLhs(),
      op.getRhs());
  SmallVector<int64_t> starts(out.getRank(), 0), steps(out.getRank(), 1);
  SmallVector<NamedAttribute> attrs =
      graph::shapeAttrs(b.getContext(), "ends", dims);
  attrs.push_back(b.getNamedAttr("starts", b.getDenseI64ArrayAttr(starts)));
  attrs.push_back(b.getNamedAttr("steps", b.getDenseI64ArrayAttr(steps)));
  auto slice = b.create<graph::SliceOp>(op.getLoc(), TypeRange{out},
                                        ValueRange{wide.getOutput()}, attrs);
  op.getOutput().replaceAllUsesWith(slice.getOutput());
  op.erase();
  return wide;
}

Value shardc::gatherAt(OpBuilder &b, Location loc, Value v, int64_t dim,
                       ArrayRef<int64_t> indices) {
  auto idxType = RankedTensorType::get({static_cast<int64_t>(indices.size())},
                                       b.getI64Type());
  Value idx = b.create<graph::ConstantOp>(
      loc, DenseElementsAttr::get(idxType, indices));
  return b.create<graph::GatherOp>(loc, v, idx, b.getI64IntegerAttr(dim),
                                   DenseI64ArrayAttr());
}
