//===- QuantSharding.cpp - rules of quantization ops ----------------------===//
//
//   quantize_linear, dequantize_linear: elementwise; a per-axis scale and
//     zero point follow that axis of the input
//   matmul_integer, qlinear_matmul: a contraction over k (a sum for
//     matmul_integer's int32 accumulator; qlinear_matmul requantizes after
//     the sum, so its k needs replication); scales and zero points are
//     scalars (per-tensor) here
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

using namespace mlir;
using namespace shardc::graph;

using Dims = ShardingRule::ValueFactors;

static ShapedType typeOf(Value v) { return cast<ShapedType>(v.getType()); }

template <typename Op>
static std::optional<ShardingRule> quantize(Operation *o) {
  auto op = cast<Op>(o);
  ShapedType in = typeOf(op.getInput());
  ShardingRule rule;
  Dims dims;
  for (int64_t d = 0; d < in.getRank(); ++d)
    dims.push_back({rule.addFactor(in.getDimSize(d), FactorKind::Parallel)});
  int64_t axis = normalizedAxis(op.getAxis(), in.getRank());
  auto paramDims = [&](Value v) -> std::optional<Dims> {
    ShapedType t = typeOf(v);
    if (t.getRank() == 0)
      return Dims{};
    if (t.getRank() == 1 && axis >= 0 && axis < in.getRank() &&
        t.getDimSize(0) == in.getDimSize(axis))
      return Dims{dims[axis]};
    return std::nullopt;
  };
  auto scale = paramDims(op.getScale()), zero = paramDims(op.getZeroPoint());
  if (!scale || !zero)
    return std::nullopt;
  rule.operands = {dims, *scale, *zero};
  rule.results = {dims};
  return rule;
}

/// [.., m, k] x [.., k, n] with scalar quantization parameters at the
/// operand positions not in `matrices`.
static std::optional<ShardingRule> quantMatmul(Operation *o, unsigned lhs,
                                               unsigned rhs, FactorKind k) {
  ShapedType a = typeOf(o->getOperand(lhs)), b = typeOf(o->getOperand(rhs)),
             y = typeOf(o->getResult(0));
  if (a.getRank() != 2 || b.getRank() != 2)
    return std::nullopt; // batched forms: replicated
  for (unsigned i = 0; i < o->getNumOperands(); ++i)
    if (i != lhs && i != rhs && typeOf(o->getOperand(i)).getRank() != 0)
      return std::nullopt; // per-channel parameters: replicated
  ShardingRule rule;
  int64_t m = rule.addFactor(y.getDimSize(0), FactorKind::Parallel);
  int64_t n = rule.addFactor(y.getDimSize(1), FactorKind::Parallel);
  int64_t kf = rule.addFactor(a.getDimSize(1), k, "sum");
  for (unsigned i = 0; i < o->getNumOperands(); ++i)
    rule.operands.push_back(i == lhs   ? Dims{{m}, {kf}}
                            : i == rhs ? Dims{{kf}, {n}}
                                       : Dims{});
  rule.results = {{{m}, {n}}};
  return rule;
}

static std::optional<ShardingRule> matmulInteger(Operation *o) {
  return quantMatmul(o, 0, 1, FactorKind::Reduction);
}
static std::optional<ShardingRule> qlinearMatmul(Operation *o) {
  return quantMatmul(o, 0, 3, FactorKind::NeedReplication);
}

void shardc::graph::attachQuantShardingRules(MLIRContext *ctx) {
  attachRule<quantize<QuantizeLinearOp>, QuantizeLinearOp>(ctx);
  attachRule<quantize<DequantizeLinearOp>, DequantizeLinearOp>(ctx);
  attachRule<matmulInteger, MatMulIntegerOp>(ctx);
  attachRule<qlinearMatmul, QLinearMatMulOp>(ctx);
}
