//===- ChannelsLast.cpp - the kern-channels-last pass ----------------------===//
//
// Stores the activations around convolutions channels-last, so oneDNN runs
// them on the layout its fast kernels use (nhwc) without reordering the
// source in and the destination out on every call.
//
// A candidate is an arena buffer (kern.alloc) of rank >= 3 whose every use
// can take it channels-last:
//   - a non-transposed kern.conv reading it as x, or writing it as y or
//     reading it as the residual (which share one flag: y_channels_last);
//   - a kern.pool without indices, as input or output (one flag,
//     channels_last, for both);
//   - a kern.map or kern.reduce operand whose access decomposes into
//     per-dim steps without carries (true of elementwise, broadcast,
//     transpose and slice accesses), rewritten for the new strides.
// Anything else (a view, a GEMM, other runtime kernels, a function result
// or argument) keeps the buffer NCHW. Buffers tied by one flag (a conv's y
// and residual, a pool's input and output) are decided together, and a
// group converts when one of its uses is a convolution, or when a map or
// reduction that uses it also uses a converted buffer of the same dims
// (else that kernel transposes in its inner loop), to a fixpoint: maps
// and reductions alone gain nothing from the layout.
//
// A converted buffer's type becomes the physical dims [N, spatial..., C];
// the convolutions and pools that use it carry the flag that says so, and
// the maps and reductions read it through permuted strides.
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/Transforms/Passes.h"

#include "llvm/ADT/IntEqClasses.h"

namespace shardc {
#define GEN_PASS_DEF_KERNCHANNELSLAST
#include "dialects/Kern/Transforms/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

using kern::channelsLastDims;
using kern::rowMajorStrides;

/// The strides, per logical dim of `dims` ([N, C, spatial...]), of the
/// channels-last buffer.
SmallVector<int64_t> channelsLastStrides(ArrayRef<int64_t> dims) {
  return kern::channelsFirstDims(rowMajorStrides(channelsLastDims(dims)));
}

/// An access `offset + sum(i[d] * strides[d])` into a row-major buffer of
/// `dims`, iterated over `shape`, rewritten for the channels-last buffer:
/// the offset and each stride are split into logical coordinates, checked
/// to stay in range over the whole iteration space (no carry from one dim
/// into the next), and recombined with the new strides. None when the
/// access does not split that way.
std::optional<SmallVector<int64_t>> remapAccess(ArrayRef<int64_t> dims,
                                                ArrayRef<int64_t> layout,
                                                ArrayRef<int64_t> shape) {
  size_t rank = dims.size();
  SmallVector<int64_t> old = rowMajorStrides(dims),
                      neu = channelsLastStrides(dims);
  int64_t offset = layout[0];
  if (offset < 0)
    return std::nullopt;
  // The offset's coordinates (mixed radix).
  SmallVector<int64_t> base(rank), lo(rank), hi(rank);
  for (size_t j = 0; j < rank; ++j) {
    base[j] = offset / old[j];
    offset %= old[j];
  }
  if (base[0] >= dims[0])
    return std::nullopt;
  lo = base;
  hi = base;
  // Each iteration dim steps along one logical dim: the outermost whose
  // stride divides the step.
  SmallVector<int64_t> result{0};
  for (size_t j = 0; j < rank; ++j)
    result[0] += base[j] * neu[j];
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t step = layout[d + 1];
    if (step == 0 || shape[d] <= 1) {
      result.push_back(0);
      continue;
    }
    int64_t mag = step < 0 ? -step : step;
    std::optional<size_t> along;
    for (size_t j = 0; j < rank && !along; ++j)
      if (old[j] <= mag && mag % old[j] == 0)
        along = j;
    if (!along)
      return std::nullopt;
    int64_t k = step / old[*along];
    int64_t reach = (shape[d] - 1) * k;
    (reach < 0 ? lo : hi)[*along] += reach;
    result.push_back(k * neu[*along]);
  }
  for (size_t j = 0; j < rank; ++j)
    if (lo[j] < 0 || hi[j] >= dims[j])
      return std::nullopt;
  return result;
}

/// A map or reduce seen through one interface.
struct Kernel {
  Operation *op;
  ArrayRef<int64_t> shape() const {
    return op->getAttrOfType<DenseI64ArrayAttr>("shape").asArrayRef();
  }
  ArrayAttr layouts() const { return op->getAttrOfType<ArrayAttr>("layouts"); }
};

enum class ConvUse { X, Y, Residual, Other };

/// What operand `n` of `conv` is.
ConvUse roleIn(kern::ConvOp conv, unsigned n) {
  if (n == conv.getXMutable().getOperandNumber())
    return ConvUse::X;
  if (n == conv.getYMutable().getOperandNumber())
    return ConvUse::Y;
  MutableOperandRange residual = conv.getResidualMutable();
  if (residual.size() && n == residual.begin()->getOperandNumber())
    return ConvUse::Residual;
  return ConvUse::Other;
}

struct KernChannelsLastPass
    : shardc::impl::KernChannelsLastBase<KernChannelsLastPass> {
  void runOnOperation() override {
    // Candidates and the groups that share a flag.
    SmallVector<Value> candidates;
    getOperation().walk([&](kern::AllocOp alloc) {
      // Empty buffers have nothing to lay out (and zero strides).
      // Nor buffers with dynamic dims (convolutions take static ones).
      if (alloc.getType().getRank() >= 3 &&
          alloc.getType().getNumElements() > 0 &&
          !alloc->hasAttr(kern::kSymAttr))
        candidates.push_back(alloc.getBuffer());
    });
    llvm::DenseMap<Value, unsigned> indexOf;
    for (Value buffer : candidates)
      indexOf.try_emplace(buffer, indexOf.size());
    auto isCandidate = [&](Value v) { return indexOf.count(v) > 0; };
    llvm::IntEqClasses groups(candidates.size());
    auto unite = [&](Value a, Value b) {
      groups.join(indexOf[a], indexOf[b]);
    };
    llvm::DenseSet<Value> rejected, wanted;
    for (Value buffer : candidates) {
      auto type = cast<MemRefType>(buffer.getType());
      for (OpOperand &use : buffer.getUses()) {
        Operation *user = use.getOwner();
        unsigned n = use.getOperandNumber();
        bool ok = false;
        if (auto conv = dyn_cast<kern::ConvOp>(user)) {
          ConvUse role = roleIn(conv, n);
          ok = !conv.getTransposed() && role != ConvUse::Other;
          // y and residual share the flag.
          if (ok && role != ConvUse::X && conv.getResidual()) {
            Value other =
                role == ConvUse::Y ? conv.getResidual() : conv.getY();
            if (isCandidate(other))
              unite(buffer, other);
            else
              ok = false;
          }
          if (ok)
            wanted.insert(buffer);
        } else if (auto pool = dyn_cast<kern::PoolOp>(user)) {
          if (!pool.getIndices()) {
            Value in = pool.getX(), out = pool.getY();
            Value other = buffer == in ? out : in;
            ok = in != out && isCandidate(other);
            if (ok)
              unite(buffer, other);
          }
        } else if (isa<kern::MapOp, kern::ReduceOp>(user)) {
          Kernel k{user};
          auto layout =
              cast<DenseI64ArrayAttr>(k.layouts()[n]).asArrayRef();
          ok = remapAccess(type.getShape(), layout, k.shape()).has_value();
        }
        if (!ok)
          rejected.insert(buffer);
      }
    }
    // A group converts when no member is rejected and one feeds or comes
    // from a convolution.
    groups.compress();
    SmallVector<bool> anyWanted(groups.getNumClasses(), false),
        anyRejected(groups.getNumClasses(), false);
    for (Value buffer : candidates) {
      unsigned g = groups[indexOf[buffer]];
      anyWanted[g] = anyWanted[g] || wanted.count(buffer);
      anyRejected[g] = anyRejected[g] || rejected.count(buffer);
    }
    // Decided per group.
    SmallVector<bool> converted(groups.getNumClasses());
    for (unsigned g = 0; g < groups.getNumClasses(); ++g)
      converted[g] = anyWanted[g] && !anyRejected[g];
    auto isConverted = [&](Value v) {
      return isCandidate(v) && converted[groups[indexOf[v]]];
    };
    // Elementwise neighbours: a group that only maps and reductions use
    // converts too when one of those kernels also reads or writes a
    // converted buffer of the same dims, whatever its element type. Left
    // NCHW, that kernel would read one layout and write the other, a
    // transpose in its inner loop (the scale, shift and activation maps
    // between two convolutions that a value with two uses splits in two;
    // the quantize, dequantize and activation maps of a QOperator CNN,
    // which change the element type on the way).
    for (bool changed = true; changed;) {
      changed = false;
      for (Value buffer : candidates) {
        unsigned g = groups[indexOf[buffer]];
        if (converted[g] || anyRejected[g])
          continue;
        bool near = llvm::any_of(buffer.getUsers(), [&](Operation *user) {
          return isa<kern::MapOp, kern::ReduceOp>(user) &&
                 llvm::any_of(user->getOperands(), [&](Value other) {
                   return other != buffer && isConverted(other) &&
                          cast<MemRefType>(other.getType()).getShape() ==
                              cast<MemRefType>(buffer.getType()).getShape();
                 });
        });
        converted[g] = near;
        changed |= near;
      }
    }
    for (Value buffer : candidates)
      if (isConverted(buffer))
        rewrite(buffer);
  }

  /// Gives `buffer` its channels-last type and updates its users.
  void rewrite(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> dims(type.getShape());
    for (OpOperand &use : llvm::make_early_inc_range(buffer.getUses())) {
      Operation *user = use.getOwner();
      unsigned n = use.getOperandNumber();
      Builder b(user->getContext());
      if (auto conv = dyn_cast<kern::ConvOp>(user)) {
        if (roleIn(conv, n) == ConvUse::X)
          conv.setXChannelsLast(true);
        else
          conv.setYChannelsLast(true);
      } else if (auto pool = dyn_cast<kern::PoolOp>(user)) {
        pool.setChannelsLast(true);
      } else {
        Kernel k{user};
        SmallVector<Attribute> layouts(k.layouts().begin(), k.layouts().end());
        auto old = cast<DenseI64ArrayAttr>(layouts[n]).asArrayRef();
        layouts[n] = b.getDenseI64ArrayAttr(*remapAccess(dims, old, k.shape()));
        user->setAttr("layouts", b.getArrayAttr(layouts));
      }
    }
    buffer.setType(MemRefType::get(channelsLastDims(dims),
                                   type.getElementType()));
  }
};

} // namespace
