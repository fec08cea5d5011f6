//===- LowerMoe.cpp - graph.moe -------------------------------------------===//
//
// Dropless and sparse: the T * K choices are sorted by expert
// (kern.moe_route, kern.moe_permute), each expert's rows go through one
// GEMM per projection (kern.grouped_matmul: gate and up side by side, then
// down), and the rows come back weighted to their tokens
// (kern.moe_combine). Work is T * K rows per projection, whatever the
// routing; nothing runs for the (t, e) pairs that were not chosen.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "dialects/Dist/IR/DistOps.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

/// The SwiGLU experts over `rows` ([P, H], grouped by expert at `offsets`):
/// gate and up in one grouped GEMM (plus their biases, if any),
/// silu(gate) * up, then down (plus its bias). [P, H].
static Value expertMlp(KernLowering &l, Location loc, Value rows,
                       Value gateUp, Value down, Value gateUpBias,
                       Value downBias, Value offsets, Type elem) {
  OpBuilder &b = l.b;
  auto shape = cast<MemRefType>(rows.getType()).getShape();
  int64_t p = shape[0], h = shape[1];
  int64_t f = cast<MemRefType>(down.getType()).getDimSize(1);
  Value gu = l.alloc(loc, {p, 2 * f}, elem);
  b.create<GroupedMatmulOp>(loc, rows, gateUp, offsets, gu);
  if (gateUpBias)
    b.create<GroupedBiasOp>(loc, gateUpBias, offsets, gu);
  // silu(gate) * up over the two halves of each row.
  Value act = l.alloc(loc, {p, f}, elem);
  Type ct = computeType(elem);
  l.map(loc, {p, f}, {Access{gu, {0, 2 * f, 1}}, Access{gu, {f, 2 * f, 1}}},
        {KernLowering::dense(act)}, [&](Scalar &s, ValueRange a) {
          Value g = s.convert(a[0], elem, ct), u = s.convert(a[1], elem, ct);
          return SmallVector<Value>{s.convert(swiglu(s, ct, g, u), ct, elem)};
        });
  Value y = l.alloc(loc, {p, h}, elem);
  b.create<GroupedMatmulOp>(loc, act, down, offsets, y);
  if (downBias)
    b.create<GroupedBiasOp>(loc, downBias, offsets, y);
  return y;
}

/// The buffers of graph.moe and dist.moe: x [T, H], weights [T, K], ids
/// [T, K], the experts' stacked weights and the result.
struct MoeParts {
  Value x, weights, ids, gateUp, down, out;
  Value gateUpBias, downBias; ///< both or neither
  int64_t slots = 0; ///< the route's experts (all slots of the group)
  ArrayRef<int64_t> placement = {}; ///< dist.moe's (empty: slot s = expert s)
};

/// graph.moe, or with `axis` (dist.moe) the experts of a group of `group`
/// ranks along mesh axis `axis`: kern.moe_dispatch between the permutation
/// and the experts, kern.moe_return after them.

static LogicalResult lowerExperts(Operation *op, MoeParts m,
                                  KernLowering &l,
                                  std::optional<int64_t> axis = {},
                                  int64_t group = 1) {
  Location loc = op->getLoc();
  OpBuilder &b = l.b;
  auto xt = cast<MemRefType>(m.x.getType());
  int64_t t = xt.getDimSize(0), h = xt.getDimSize(1);
  int64_t k = cast<MemRefType>(m.ids.getType()).getDimSize(1),
          p = t * k;
  Type elem = xt.getElementType();
  if (!(elem.isF32() || elem.isF16() || elem.isBF16()))
    return l.fail(op, "experts run in f32, f16 or bf16");
  Type i32 = b.getI32Type();
  // Without native half GEMMs (CPU programs) the experts run in fp32, as
  // kern.matmul's operands are widened (LowerLinalg.cpp).
  Type half = elem;
  bool widen = (elem.isF16() || elem.isBF16()) && !l.halfGemm;
  Value x = m.x, weights = m.weights, gateUp = m.gateUp, down = m.down;
  Value gateUpBias = m.gateUpBias, downBias = m.downBias;
  if (widen) {
    elem = b.getF32Type();
    x = l.converted(loc, x, elem);
    weights = l.converted(loc, weights, elem);
    gateUp = l.converted(loc, gateUp, elem);
    down = l.converted(loc, down, elem);
    if (gateUpBias) {
      gateUpBias = l.converted(loc, gateUpBias, elem);
      downBias = l.converted(loc, downBias, elem);
    }
  }

  // Expert load balancing: each choice's logical expert becomes one of its
  // copies' slots, and the route sorts by slot.
  Value ids = m.ids;
  if (!m.placement.empty()) {
    int64_t experts = 0;
    for (int64_t e : m.placement)
      experts = std::max(experts, e + 1);
    SmallVector<int64_t> copies(experts, 0);
    for (int64_t e : m.placement)
      ++copies[e];
    int64_t most = *std::max_element(copies.begin(), copies.end());
    SmallVector<int64_t> table(experts * most, -1), filled(experts, 0);
    for (auto [s, e] : llvm::enumerate(m.placement))
      table[e * most + filled[e]++] = static_cast<int64_t>(s);
    ids = l.alloc(loc, {t, k}, i32);
    b.create<MoePlaceOp>(loc, m.ids, ids, b.getDenseI64ArrayAttr(copies),
                         b.getDenseI64ArrayAttr(table), most);
  }
  Value offsets = l.alloc(loc, {m.slots + 1}, i32);
  Value slots = l.alloc(loc, {p}, i32);
  b.create<MoeRouteOp>(loc, ids, offsets, slots, m.slots);
  Value rows = l.alloc(loc, {p, h}, elem);
  b.create<MoePermuteOp>(loc, x, slots, rows);
  Value y;
  if (!axis) {
    y = expertMlp(l, loc, rows, gateUp, down, gateUpBias, downBias, offsets,
                  elem);
  } else {
    // Expert parallelism: the rows of each rank's experts go there (at
    // most T * min(K, L) from each of the group's ranks), are computed by
    // its L experts and come back in the order they left.
    int64_t local = m.slots / group;
    int64_t room = group * t * std::min(k, local);
    Value recv = l.alloc(loc, {room, h}, elem);
    Value recvOffsets = l.alloc(loc, {local + 1}, i32);
    Value counts = l.alloc(loc, {m.slots}, i32);
    b.create<MoeDispatchOp>(loc, rows, offsets, recv, recvOffsets, counts,
                            *axis, group);
    Value computed = expertMlp(l, loc, recv, gateUp, down, gateUpBias,
                               downBias, recvOffsets, elem);
    y = l.alloc(loc, {p, h}, elem);
    b.create<MoeReturnOp>(loc, computed, counts, offsets, y, *axis, group);
  }
  if (!widen) {
    b.create<MoeCombineOp>(loc, y, weights, slots, m.out);
    return success();
  }
  Value out32 = l.alloc(loc, {t, h}, elem);
  b.create<MoeCombineOp>(loc, y, weights, slots, out32);
  l.map(loc, {t, h}, {KernLowering::dense(out32)},
        {KernLowering::dense(m.out)}, [&](Scalar &s, ValueRange v) {
          return SmallVector<Value>{s.convert(v[0], elem, half)};
        });
  return success();
}

/// The buffers of graph.moe's or dist.moe's operands and result; `slots`
/// the route's experts.
template <typename OpTy>
static MoeParts partsOf(OpTy op, KernLowering &l, int64_t slots) {
  auto optional = [&](Value v) { return v ? l.get(v) : v; };
  MoeParts m{l.get(op.getInput()), l.get(op.getWeights()),
             l.get(op.getIds()),   l.get(op.getGateUp()),
             l.get(op.getDown()),  l.result(op->getResult(0)),
             optional(op.getGateUpBias()), optional(op.getDownBias())};
  m.slots = slots;
  return m;
}

static LogicalResult lowerMoe(graph::MoeOp op, KernLowering &l) {
  return lowerExperts(op, partsOf(op, l, op.getNumExperts()), l);
}

static LogicalResult lowerDistMoe(Operation *o, KernLowering &l) {
  auto op = cast<dist::MoeOp>(o);
  FailureOr<std::pair<int64_t, int64_t>> axis = collectiveAxis(op, l);
  if (failed(axis))
    return failure();
  MoeParts m = partsOf(op, l, op.getNumSlots());
  m.placement = op.getPlacement().value_or(ArrayRef<int64_t>());
  return lowerExperts(op, m, l, axis->first, axis->second);
}

void shardc::kern::addMoeLowerings(LoweringTable &t) {
  addLowering<graph::MoeOp>(t, lowerMoe);
  t["dist.moe"] = lowerDistMoe;
}
