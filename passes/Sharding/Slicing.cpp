//===- Slicing.cpp - blocks of constants at compile time ------------------===//

#include "passes/Sharding/Slicing.h"

#include "dialects/Graph/IR/ConstantEval.h"

#include "shardc/Support/Pages.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Threading.h"

#include <algorithm>
#include <cstring>

using namespace mlir;

/// Slices of at least this many bytes become dense_resource blobs.
static constexpr int64_t kLargeSliceBytes = 1 << 20;

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
  std::string key = "slice";
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value))
    key = (res.getRawHandle().getKey() + ".slice").str();
  // A padded constant's data is its source's, zeros beyond.
  auto source = op->getAttrOfType<ElementsAttr>(kPadSource);
  auto sourceType = source ? cast<RankedTensorType>(source.getType()) : type;
  if (!source && graph::isShapeOnly(value)) // planning a model whose weights are absent
    return b.create<graph::ConstantOp>(
        op.getLoc(), graph::shapeOnlyElements(localType, key));
  ArrayRef<char> raw = graph::rawElementData(source ? source : op.getValue());
  int64_t elemBits = type.getElementType().getIntOrFloatBitWidth();
  int64_t elemBytes = elemBits / 8;
  if (elemBits % 8 != 0 ||
      static_cast<int64_t>(raw.size()) != sourceType.getNumElements() * elemBytes)
    return Value();
  int64_t rank = type.getRank();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * sourceType.getDimSize(d + 1);
  // Whether the block lies inside the source (no zeros to add).
  bool inside = true;
  for (int64_t d = 0; d < rank; ++d)
    inside &= offset[d] + sizes[d] <= sourceType.getDimSize(d);
  int64_t count = localType.getNumElements();
  // A large slice (a weight) goes straight into a dense_resource blob: a
  // DenseElementsAttr of gigabytes would be hashed and kept by the context.
  bool large = count * elemBytes >= kLargeSliceBytes;
  // A large contiguous block (a row-parallel weight's rows) is a view of the
  // original, which the context keeps (blob manager or attribute storage)
  // as long as the slice.
  int64_t last = rank - 1;
  while (last >= 0 && sizes[last] == sourceType.getDimSize(last))
    --last;
  bool contiguous = llvm::all_of(sizes.take_front(std::max<int64_t>(last, 0)),
                                 [](int64_t s) { return s == 1; });
  if (large && contiguous && inside) {
    int64_t start = 0;
    for (int64_t d = 0; d < rank; ++d)
      start += offset[d] * strides[d];
    // (At an odd address, as a weight in place in the model file may be,
    // with alignment 1: readers copy bytes.)
    const char *data = raw.data() + start * elemBytes;
    size_t align =
        reinterpret_cast<uintptr_t>(data) % elemBytes == 0 ? elemBytes : 1;
    return b.create<graph::ConstantOp>(
        op.getLoc(),
        DenseResourceElementsAttr::get(
            localType, key,
            UnmanagedAsmResourceBlob::allocateWithAlign(
                ArrayRef<char>(data, count * elemBytes), align)));
  }
  std::vector<char> small;
  char *out;
  if (large) {
    // Fresh memory in 2 MiB pages (a fault per 4 KiB page was most of the
    // cost), filled on the context's threads.
    out = static_cast<char *>(allocateWeightBytes(count * elemBytes));
    if (!out)
      return Value();
  } else {
    small.resize(count * elemBytes);
    out = small.data();
  }
  // Row by row of the innermost dim, in blocks of rows.
  int64_t inner = rank ? sizes.back() : 1;
  int64_t rows = inner ? count / inner : 0;
  auto copyRows = [&](int64_t first, int64_t end) {
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t row = first; row < end; ++row) {
      int64_t rest = row;
      for (int64_t d = rank - 2; d >= 0; --d) {
        idx[d] = rest % sizes[d];
        rest /= sizes[d];
      }
      char *to = out + row * inner * elemBytes;
      int64_t src = 0;
      bool zeros = false;
      for (int64_t d = 0; d + 1 < rank; ++d) {
        src += (offset[d] + idx[d]) * strides[d];
        zeros |= offset[d] + idx[d] >= sourceType.getDimSize(d);
      }
      // The elements of the row the source has; zeros after them.
      int64_t have = inner;
      if (rank) {
        src += offset.back();
        have = std::clamp<int64_t>(
            sourceType.getDimSize(rank - 1) - offset.back(), 0, inner);
      }
      if (zeros)
        have = 0;
      std::memcpy(to, raw.data() + src * elemBytes, have * elemBytes);
      std::memset(to + have * elemBytes, 0, (inner - have) * elemBytes);
    }
  };
  int64_t perBlock = std::max<int64_t>(
      1, (int64_t(4) << 20) / std::max<int64_t>(1, inner * elemBytes));
  int64_t blocks = (rows + perBlock - 1) / perBlock;
  if (large)
    mlir::parallelFor(b.getContext(), 0, blocks, [&](int64_t i) {
      copyRows(i * perBlock, std::min(rows, (i + 1) * perBlock));
    });
  else
    copyRows(0, rows);
  if (!large)
    return b.create<graph::ConstantOp>(
        op.getLoc(), DenseElementsAttr::getFromRawBuffer(localType, small));
  // Each rank's slice is cut in turn: the original, when it views a mapped
  // external data file, leaves the resident set meanwhile (read again from
  // the page cache for the next rank).
  releaseReadOnlyFilePages(raw.data(), raw.size());
  return b.create<graph::ConstantOp>(
      op.getLoc(),
      DenseResourceElementsAttr::get(
          localType, key,
          UnmanagedAsmResourceBlob::allocateWithAlign(
              ArrayRef<char>(out, count * elemBytes), elemBytes,
              [](void *p, size_t, size_t) { std::free(p); })));
}

Value shardc::padConstantData(OpBuilder &b, graph::ConstantOp op, int64_t dim,
                              int64_t size) {
  auto type = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (dim < 0 || dim >= type.getRank() || size < shape[dim] ||
      op->hasAttr(kPadSource))
    return Value();
  if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
      dense && dense.isSplat())
    return Value();
  shape[dim] = size;
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  std::string key = "padded";
  if (auto res = dyn_cast<DenseResourceElementsAttr>(op.getValue()))
    key = (res.getRawHandle().getKey() + ".padded").str();
  // The padded data is never made whole: its value is shape-only, and the
  // source, on the side, is what sliceConstantData reads.
  auto padded = b.create<graph::ConstantOp>(
      op.getLoc(), graph::shapeOnlyElements(paddedType, key));
  if (!graph::isShapeOnly(op.getValue()))
    padded->setAttr(kPadSource, op.getValue());
  return padded;
}
