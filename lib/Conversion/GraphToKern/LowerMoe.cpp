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

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

static LogicalResult lowerMoe(graph::MoeOp op, KernLowering &l) {
  Location loc = op.getLoc();
  OpBuilder &b = l.b;
  int64_t t = op.getNumTokens(), k = op.getTopK(), e = op.getNumExperts(),
          f = op.getFfn(), h = op.getHidden(), p = t * k;
  Type elem = elemOf(op.getInput());
  if (!(elem.isF32() || elem.isF16() || elem.isBF16()))
    return l.fail(op, "experts run in f32, f16 or bf16");
  Type i32 = b.getI32Type();
  Value x = l.get(op.getInput()), weights = l.get(op.getWeights()),
        ids = l.get(op.getIds()), gateUp = l.get(op.getGateUp()),
        down = l.get(op.getDown());
  // Without native half GEMMs (CPU programs) the experts run in fp32, as
  // kern.matmul's operands are widened (LowerLinalg.cpp).
  Type half = elem;
  bool widen = (elem.isF16() || elem.isBF16()) && !l.halfGemm;
  if (widen) {
    elem = b.getF32Type();
    x = l.converted(loc, x, elem);
    weights = l.converted(loc, weights, elem);
    gateUp = l.converted(loc, gateUp, elem);
    down = l.converted(loc, down, elem);
  }

  Value offsets = l.alloc(loc, {e + 1}, i32);
  Value slots = l.alloc(loc, {p}, i32);
  b.create<MoeRouteOp>(loc, ids, offsets, slots, e);
  Value rows = l.alloc(loc, {p, h}, elem);
  b.create<MoePermuteOp>(loc, x, slots, rows);
  Value gu = l.alloc(loc, {p, 2 * f}, elem);
  b.create<GroupedMatmulOp>(loc, rows, gateUp, offsets, gu);
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
  Value out = l.result(op.getOutput());
  if (!widen) {
    b.create<MoeCombineOp>(loc, y, weights, slots, out);
    return success();
  }
  Value out32 = l.alloc(loc, {t, h}, elem);
  b.create<MoeCombineOp>(loc, y, weights, slots, out32);
  l.map(loc, {t, h}, {KernLowering::dense(out32)}, {KernLowering::dense(out)},
        [&](Scalar &s, ValueRange v) {
          return SmallVector<Value>{s.convert(v[0], elem, half)};
        });
  return success();
}

void shardc::kern::addMoeLowerings(LoweringTable &t) {
  addLowering<graph::MoeOp>(t, lowerMoe);
}
