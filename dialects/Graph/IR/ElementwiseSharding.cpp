//===- ElementwiseSharding.cpp - rules of elementwise ops -----------------===//
//
// Every result dim is a parallel factor; operands broadcast against the
// result (a size-1 dim facing a larger one has no factor). Constants are
// sliced at compile time, so their dims are parallel too.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShardingRule.h"

using namespace mlir;
using namespace shardc::graph;

static std::optional<ShardingRule> elementwise(Operation *op) {
  return elementwiseRule(op);
}

void shardc::graph::attachElementwiseShardingRules(MLIRContext *ctx) {
  attachRule<elementwise,
             // unary
             SqrtOp, ReciprocalOp, ExpOp, LogOp, ErfOp, CosOp, SinOp, TanhOp, SigmoidOp,
             FloorOp, CeilOp, RoundOp,
             ReluOp, HardSwishOp, NegOp, AbsOp, IdentityOp, LeakyReluOp,
             HardSigmoidOp, ClipOp, NotOp, SiluOp, GeluOp,
             // binary, ternary, conversions
             AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, EqualOp, LessOp,
             GreaterOp, AndOp, OrOp, WhereOp, CastOp, SwigluOp, ExpandOp,
             // constants (no operands)
             ConstantOp, ConstantOfShapeOp>(ctx);
}
