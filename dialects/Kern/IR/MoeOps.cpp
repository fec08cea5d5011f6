//===- MoeOps.cpp - the mixture-of-experts kernel ops ---------------------===//
//
// Verifiers and C arguments of the mixture-of-experts kernels
// (runtime/include/shardc/cpu.h: sc_moe_route, sc_moe_permute,
// sc_grouped_matmul, sc_moe_combine).
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/IR/RuntimeOps.h"

using namespace mlir;
using namespace shardc::kern;
using namespace shardc::kern::runtime;

/// `v` is an i32 vector of `n` elements.
static LogicalResult verifyI32Vector(Operation *op, Value v, int64_t n,
                                     StringRef what) {
  MemRefType t = bufferType(v);
  if (t.getRank() != 1 || t.getDimSize(0) != n ||
      !isSignedInt(t.getElementType(), 32))
    return op->emitOpError(what)
           << " must be memref<" << n << "xi32>, not " << t;
  return success();
}

//===----------------------------------------------------------------------===//
// kern.moe_route
//===----------------------------------------------------------------------===//

LogicalResult MoeRouteOp::verify() {
  MemRefType ids = getIds().getType();
  Type it = ids.getElementType();
  if (ids.getRank() != 2 || (!isSignedInt(it, 32) && !isSignedInt(it, 64)))
    return emitOpError("ids must be [tokens, k] of i32 or i64, not ") << ids;
  if (getNumExperts() < 1)
    return emitOpError("needs at least one expert");
  return failure(failed(verifyI32Vector(*this, getOffsets(),
                                        getNumExperts() + 1, "offsets")) ||
                 failed(verifyI32Vector(*this, getSlots(), ids.getNumElements(),
                                        "slots")));
}

StringRef MoeRouteOp::getRuntimeCallee() { return "sc_moe_route"; }

// sc_moe_route(ids desc, ids, experts, offsets, slots)
void MoeRouteOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getIds()), RuntimeArg::ptr(getIds()),
               RuntimeArg::i64(getNumExperts()), RuntimeArg::ptr(getOffsets()),
               RuntimeArg::ptr(getSlots())});
}

//===----------------------------------------------------------------------===//
// kern.moe_place
//===----------------------------------------------------------------------===//

LogicalResult MoePlaceOp::verify() {
  MemRefType ids = getIds().getType(), slots = getSlots().getType();
  Type it = ids.getElementType();
  if (ids.getRank() != 2 || (!isSignedInt(it, 32) && !isSignedInt(it, 64)))
    return emitOpError("ids must be [tokens, k] of i32 or i64, not ") << ids;
  if (slots.getShape() != ids.getShape() ||
      !isSignedInt(slots.getElementType(), 32))
    return emitOpError("slots must be i32 of the ids' shape, not ") << slots;
  ArrayRef<int64_t> copies = getCopies(), table = getTable();
  int64_t most = getMaxCopies();
  if (copies.empty() || most < 1 ||
      static_cast<int64_t>(table.size()) !=
          static_cast<int64_t>(copies.size()) * most)
    return emitOpError("table must hold max_copies (")
           << most << ") entries for each of the " << copies.size()
           << " experts, not " << table.size();
  for (auto [e, c] : llvm::enumerate(copies)) {
    if (c < 1 || c > most)
      return emitOpError("expert ") << e << " has " << c << " copies";
    for (int64_t i = 0; i < c; ++i)
      if (table[e * most + i] < 0)
        return emitOpError("copy ") << i << " of expert " << e
                                    << " has no slot";
  }
  return success();
}

StringRef MoePlaceOp::getRuntimeCallee() { return "sc_moe_place"; }

// sc_moe_place(ids desc, ids, experts, max copies, copies, table, slots)
void MoePlaceOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getIds()), RuntimeArg::ptr(getIds()),
               RuntimeArg::i64(static_cast<int64_t>(getCopies().size())),
               RuntimeArg::i64(getMaxCopies()), RuntimeArg::i64s(getCopies()),
               RuntimeArg::i64s(getTable()), RuntimeArg::ptr(getSlots())});
}

//===----------------------------------------------------------------------===//
// kern.moe_permute
//===----------------------------------------------------------------------===//

LogicalResult MoePermuteOp::verify() {
  MemRefType x = getX().getType(), rows = getRows().getType();
  if (x.getRank() != 2 || rows.getRank() != 2 ||
      rows.getDimSize(1) != x.getDimSize(1) ||
      rows.getElementType() != x.getElementType())
    return emitOpError("rows ")
           << rows << " must be [choices, "
           << (x.getRank() ? x.getDimSize(x.getRank() - 1) : 0)
           << "] of x's type " << x;
  int64_t choices = rows.getDimSize(0);
  if (x.getDimSize(0) == 0 ? choices != 0 : choices % x.getDimSize(0) != 0)
    return emitOpError("rows ")
           << rows << " must hold k rows per token of " << x;
  return verifyI32Vector(*this, getSlots(), choices, "slots");
}

StringRef MoePermuteOp::getRuntimeCallee() { return "sc_moe_permute"; }

// sc_moe_permute(x desc, x, rows desc, slots, rows)
void MoePermuteOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getX()), RuntimeArg::ptr(getX()),
               RuntimeArg::desc(getRows()), RuntimeArg::ptr(getSlots()),
               RuntimeArg::ptr(getRows())});
}

//===----------------------------------------------------------------------===//
// kern.grouped_matmul
//===----------------------------------------------------------------------===//

LogicalResult GroupedMatmulOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType(), y = getY().getType();
  if (a.getRank() != 2 || b.getRank() != 3 || y.getRank() != 2)
    return emitOpError("needs a [rows, k], b [experts, k, n] and y [rows, "
                       "n], got ")
           << a << ", " << b << ", " << y;
  if (b.getDimSize(1) != a.getDimSize(1) ||
      y.getDimSize(0) != a.getDimSize(0) || y.getDimSize(1) != b.getDimSize(2))
    return emitOpError("shapes do not chain: ")
           << a << " x " << b << " into " << y;
  Type e = a.getElementType();
  if (!(e.isF32() || e.isF16() || e.isBF16()) || b.getElementType() != e ||
      y.getElementType() != e)
    return emitOpError("a, b and y must be one of f32, f16, bf16, got ")
           << a << ", " << b << ", " << y;
  return verifyI32Vector(*this, getOffsets(), b.getDimSize(0) + 1, "offsets");
}

StringRef GroupedMatmulOp::getRuntimeCallee() { return "sc_grouped_matmul"; }

// sc_grouped_matmul(a desc, a, b desc, b, offsets, y)
void GroupedMatmulOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getA()), RuntimeArg::ptr(getA()),
               RuntimeArg::desc(getB()), RuntimeArg::ptr(getB()),
               RuntimeArg::ptr(getOffsets()), RuntimeArg::ptr(getY())});
}

//===----------------------------------------------------------------------===//
// kern.grouped_bias
//===----------------------------------------------------------------------===//

LogicalResult GroupedBiasOp::verify() {
  MemRefType bias = getBias().getType(), y = getY().getType();
  if (bias.getRank() != 2 || y.getRank() != 2 ||
      bias.getDimSize(1) != y.getDimSize(1))
    return emitOpError("needs bias [experts, n] and y [rows, n], got ")
           << bias << ", " << y;
  Type e = bias.getElementType();
  if (!(e.isF32() || e.isF16() || e.isBF16()) || y.getElementType() != e)
    return emitOpError("bias and y must be one of f32, f16, bf16, got ")
           << bias << ", " << y;
  return verifyI32Vector(*this, getOffsets(), bias.getDimSize(0) + 1,
                         "offsets");
}

StringRef GroupedBiasOp::getRuntimeCallee() { return "sc_grouped_bias"; }

// sc_grouped_bias(bias desc, bias, offsets, y desc, y)
void GroupedBiasOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getBias()), RuntimeArg::ptr(getBias()),
               RuntimeArg::ptr(getOffsets()), RuntimeArg::desc(getY()),
               RuntimeArg::ptr(getY())});
}

//===----------------------------------------------------------------------===//
// kern.moe_combine
//===----------------------------------------------------------------------===//

LogicalResult MoeCombineOp::verify() {
  MemRefType rows = getRows().getType(), w = getWeights().getType(),
             y = getY().getType();
  Type e = rows.getElementType();
  if (!isRuntimeFloat(e) || w.getElementType() != e || y.getElementType() != e)
    return emitOpError("rows, weights and y must have one float type, got ")
           << rows << ", " << w << ", " << y;
  if (rows.getRank() != 2 || w.getRank() != 2 || y.getRank() != 2 ||
      y.getDimSize(0) != w.getDimSize(0) ||
      y.getDimSize(1) != rows.getDimSize(1))
    return emitOpError("needs rows [choices, h], weights [tokens, k] and y "
                       "[tokens, h], got ")
           << rows << ", " << w << ", " << y;
  return verifyI32Vector(*this, getSlots(), w.getNumElements(), "slots");
}

StringRef MoeCombineOp::getRuntimeCallee() { return "sc_moe_combine"; }

// sc_moe_combine(rows desc, rows, weights desc, weights, slots, y)
void MoeCombineOp::getRuntimeArgs(SmallVectorImpl<RuntimeArg> &args) {
  args.append({RuntimeArg::desc(getRows()), RuntimeArg::ptr(getRows()),
               RuntimeArg::desc(getWeights()), RuntimeArg::ptr(getWeights()),
               RuntimeArg::ptr(getSlots()), RuntimeArg::ptr(getY())});
}

//===----------------------------------------------------------------------===//
// kern.moe_dispatch, kern.moe_return (expert parallelism)
//===----------------------------------------------------------------------===//

/// Axis and group; the slots (offsets' size - 1) split evenly over the
/// group, L per rank, and recv_counts of n * L; sent and received rows of
/// one width and type. `sent` is the [P, H] side, `arrived` the [C, H] one.
template <typename Op>
static LogicalResult verifyExchange(Op op, Value sent, Value arrived,
                                    Value counts, Value offsets) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  int64_t n = static_cast<int64_t>(op.getGroupSize());
  if (axis < 0)
    return op.emitOpError("mesh axis ") << axis << " is negative";
  if (n < 1)
    return op.emitOpError("group size ") << n << " is below 1";
  MemRefType s = bufferType(sent), a = bufferType(arrived);
  if (s.getRank() != 2 || a.getRank() != 2 ||
      s.getDimSize(1) != a.getDimSize(1) ||
      s.getElementType() != a.getElementType())
    return op.emitOpError("rows ")
           << s << " and " << a << " must be [rows, width] of one width "
           << "and type";
  MemRefType o = bufferType(offsets);
  if (o.getRank() != 1 || o.getDimSize(0) < 2)
    return op.emitOpError("offsets must hold slots + 1 entries, not ") << o;
  int64_t slots = o.getDimSize(0) - 1;
  if (slots % n != 0)
    return op.emitOpError("the ")
           << slots << " expert slots do not split over a group of " << n;
  if (failed(verifyI32Vector(op, offsets, slots + 1, "offsets")))
    return failure();
  return verifyI32Vector(op, counts, slots, "recv_counts");
}

LogicalResult MoeDispatchOp::verify() {
  if (failed(verifyExchange(*this, getRows(), getRecv(), getRecvCounts(),
                            getOffsets())))
    return failure();
  int64_t n = static_cast<int64_t>(getGroupSize());
  int64_t slots = getOffsets().getType().getDimSize(0) - 1;
  return verifyI32Vector(*this, getRecvOffsets(), slots / n + 1,
                         "recv_offsets");
}

LogicalResult MoeReturnOp::verify() {
  return verifyExchange(*this, getRows(), getRecv(), getRecvCounts(),
                        getOffsets());
}
