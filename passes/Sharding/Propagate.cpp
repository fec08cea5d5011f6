//===- Propagate.cpp - dist-propagate -------------------------------------===//
//
// Factor propagation (Shardy's algorithm, simplified): every value has a
// sharding (mesh axes per dim) or none yet; an op's rule projects the
// shardings of its operands and results onto its factors, picks one
// assignment of axes per factor, and projects it back onto the values that
// have none (or whose sharding it refines). Values only ever gain axes, so
// the iteration ends.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Graph/IR/ShardingRule.h"
#include "passes/Sharding/Projection.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

namespace shardc {
#define GEN_PASS_DEF_DISTPROPAGATE
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using graph::FactorKind;
using graph::ShardingRule;

namespace {

using Axes = SmallVector<StringRef, 2>;

/// What propagation knows about a value.
struct ValueState {
  SmallVector<Axes> dims;
  Axes partial;
  /// The reduction that combines the partial values (ShardingAttr's
  /// partial kind: the reduction factor's combiner).
  StringRef partialKind = "sum";
  /// Lower is stronger: seeds are 0, then the round the value was reached.
  int priority = 0;
  bool fixed = false; ///< a seed: never changed
};

class Propagator {
public:
  Propagator(dist::MeshOp mesh) : mesh(mesh) {}

  void seed(Value v, dist::ShardingAttr sharding) {
    ValueState s;
    for (unsigned d = 0; d < sharding.getDims().size(); ++d)
      s.dims.push_back(Axes(sharding.axesOf(d)));
    s.partial = Axes(sharding.partialAxes());
    s.partialKind = sharding.getPartialKind();
    s.fixed = true;
    states[v] = s;
  }

  /// One op: returns whether any value changed.
  bool propagate(Operation *op, const ShardingRule &rule, int round);

  const ValueState *lookup(Value v) const {
    auto it = states.find(v);
    return it == states.end() ? nullptr : &it->second;
  }

private:
  int64_t axisSize(StringRef a) { return *mesh.axisSize(a); }

  dist::MeshOp mesh;
  DenseMap<Value, ValueState> states;
};

bool Propagator::propagate(Operation *op, const ShardingRule &rule,
                           int round) {
  size_t numFactors = rule.factors.size();
  SmallVector<std::optional<Axes>> chosen(numFactors);
  SmallVector<int> chosenPriority(numFactors, INT_MAX);
  SmallVector<bool> chosenByOperand(numFactors, false);
  SmallVector<bool> closed(numFactors, false);

  auto values = [&](auto fn) {
    for (auto [v, dims] : llvm::zip(op->getOperands(), rule.operands))
      fn(Value(v), dims, /*isOperand=*/true);
    for (auto [v, dims] : llvm::zip(op->getResults(), rule.results))
      fn(Value(v), dims, /*isOperand=*/false);
  };

  // 1. Every known value votes for the axes of its factors.
  values([&](Value v, const ShardingRule::ValueFactors &dims,
             bool isOperand) {
    const ValueState *s = lookup(v);
    if (!s || s->dims.size() != dims.size())
      return;
    for (auto [axes, factors] : llvm::zip(s->dims, dims)) {
      if (factors.empty())
        continue;
      SmallVector<std::optional<Axes>> projected(numFactors);
      projectAxesOntoFactors(axes, factors, rule, mesh,
                             [&](int64_t f, ArrayRef<StringRef> taken) {
                               projected[f] = Axes(taken);
                             });
      for (int64_t f : factors) {
        if (!projected[f])
          continue;
        // A seed that leaves a dim unsplit closes its factors.
        if (projected[f]->empty()) {
          if (s->fixed && axes.empty())
            closed[f] = true;
          continue;
        }
        if (s->priority < chosenPriority[f]) {
          chosen[f] = projected[f];
          chosenPriority[f] = s->priority;
          chosenByOperand[f] = isOperand;
        }
      }
    }
  });

  // 2. Resolve: no axes on factors that need replication, are closed or
  // make up a dynamic dim, sizes must divide, an axis serves one factor
  // (stronger ones first: seeds; then contractions an operand arrives split
  // along, since contracting locally and reducing the partial sums after (an
  // all-reduce, or a reduce-scatter where the result stays split another
  // way, as with sequence parallelism) moves less than gathering the
  // operand whole; then factors that split a weight (a constant operand),
  // which keeps weights split rather than replicated when a projection's
  // input and output are split different ways; then by priority).
  SmallVector<bool> splitsWeight(numFactors, false);
  for (auto [v, dims] : llvm::zip(op->getOperands(), rule.operands)) {
    Value w = v;
    if (auto shard = w.getDefiningOp<dist::ShardOp>())
      w = shard.getInput();
    if (w.getDefiningOp<graph::ConstantOp>())
      for (const auto &fs : dims)
        for (int64_t f : fs)
          splitsWeight[f] = true;
  }
  auto strength = [&](int64_t f) {
    bool seed = chosenPriority[f] == 0;
    bool contraction = chosenByOperand[f] &&
                       rule.factors[f].kind == FactorKind::Reduction;
    return std::make_tuple(seed ? 0 : 1, contraction ? 0 : 1,
                           splitsWeight[f] ? 0 : 1, chosenPriority[f]);
  };
  SmallVector<int64_t> order(numFactors);
  for (size_t f = 0; f < numFactors; ++f)
    order[f] = f;
  llvm::stable_sort(order, [&](int64_t a, int64_t b) {
    return strength(a) < strength(b);
  });
  llvm::StringSet<> used;
  SmallVector<Axes> factorAxes(numFactors);
  SmallVector<bool> dynamic = dynamicFactors(op, rule);
  int contributing = 0;
  for (int64_t f : order) {
    if (!chosen[f] || closed[f] || dynamic[f] ||
        rule.factors[f].kind == FactorKind::NeedReplication)
      continue;
    int64_t product = 1;
    bool ok = true;
    for (StringRef a : *chosen[f]) {
      product *= axisSize(a);
      ok &= !used.contains(a);
    }
    if (!ok || rule.factors[f].size % product != 0)
      continue;
    for (StringRef a : *chosen[f])
      used.insert(a);
    factorAxes[f] = *chosen[f];
    contributing = std::max(contributing, chosenPriority[f]);
  }

  // 3. Project back onto the values that have no sharding yet, or whose
  // sharding this one refines (it only adds axes to unsplit dims).
  llvm::DenseSet<int64_t> inResults;
  for (const auto &dims : rule.results)
    for (const auto &fs : dims)
      inResults.insert(fs.begin(), fs.end());
  bool changed = false;
  auto update = [&](Value v, const ShardingRule::ValueFactors &dims,
                    bool isResult) {
    ValueState next;
    for (const auto &factors : dims) {
      Axes axes;
      bool full = true;
      for (int64_t f : factors) {
        if (!factorAxes[f].empty() && !full)
          return; // a strided split: not a sharding of this dim
        int64_t product = 1;
        for (StringRef a : factorAxes[f]) {
          axes.push_back(a);
          product *= axisSize(a);
        }
        full = product == rule.factors[f].size;
      }
      next.dims.push_back(axes);
    }
    if (isResult)
      for (size_t f = 0; f < numFactors; ++f)
        if (rule.factors[f].kind == FactorKind::Reduction &&
            !inResults.contains(f) && !factorAxes[f].empty()) {
          next.partial.append(factorAxes[f].begin(), factorAxes[f].end());
          next.partialKind = rule.factors[f].combiner;
        }
    bool anything = !next.partial.empty() ||
                    llvm::any_of(next.dims, [](const Axes &a) {
                      return !a.empty();
                    });
    if (!anything)
      return;
    next.priority = std::max(contributing, 0) + round;
    auto it = states.find(v);
    if (it == states.end()) {
      states[v] = next;
      changed = true;
      return;
    }
    ValueState &cur = it->second;
    if (cur.fixed || cur.dims.size() != next.dims.size())
      return;
    // Refinement: every dim equal, or empty before; partial sums equal.
    bool refines = cur.partial == next.partial &&
                   cur.partialKind == next.partialKind,
         grows = false;
    for (auto [a, b] : llvm::zip(cur.dims, next.dims)) {
      if (a == b)
        continue;
      if (!a.empty()) {
        refines = false;
        break;
      }
      grows = true;
    }
    if (refines && grows) {
      cur.dims = next.dims;
      changed = true;
    }
  };
  for (auto [v, dims] : llvm::zip(op->getOperands(), rule.operands))
    update(v, dims, false);
  for (auto [v, dims] : llvm::zip(op->getResults(), rule.results))
    update(v, dims, true);
  return changed;
}

/// Only parallel factors: the op moves or maps elements one to one.
bool isPassThrough(const ShardingRule &rule) {
  return llvm::all_of(rule.factors, [](const graph::ShardingFactor &f) {
    return f.kind == FactorKind::Parallel;
  });
}

struct DistPropagatePass
    : shardc::impl::DistPropagateBase<DistPropagatePass> {
  void runOnOperation() override;
};

} // namespace

void DistPropagatePass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<dist::MeshOp> single =
      dist::getSingleMesh(module, "dist-propagate");
  if (failed(single))
    return signalPassFailure();
  dist::MeshOp mesh = *single;
  MLIRContext *ctx = &getContext();
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());

  for (auto func : module.getOps<func::FuncOp>()) {
    Propagator prop(mesh);
    // Ops in program order with their rules; seeds.
    SmallVector<std::pair<Operation *, ShardingRule>> ops;
    func.walk([&](Operation *op) {
      if (auto shard = dyn_cast<dist::ShardOp>(op)) {
        prop.seed(shard.getResult(), shard.getSharding());
        ShardingRule same = graph::sameShapeRule(op, {});
        ops.push_back({op, same});
        return;
      }
      if (!isa<graph::GraphDialect>(op->getDialect()))
        return;
      auto iface = dyn_cast<graph::ShardingRuleOpInterface>(op);
      std::optional<ShardingRule> rule;
      if (iface)
        rule = iface.getShardingRule();
      if (!rule) {
        op->setAttr("dist.no_rule", UnitAttr::get(ctx));
        return;
      }
      ops.push_back({op, *rule});
    });

    // Pass-through ops to a fixed point, then everything.
    int round = 1;
    for (bool all : {false, true}) {
      bool changed = true;
      while (changed && round < 1000) {
        changed = false;
        for (auto &[op, rule] : ops)
          if (all || isPassThrough(rule))
            changed |= prop.propagate(op, rule, round);
        for (auto &[op, rule] : llvm::reverse(ops))
          if (all || isPassThrough(rule))
            changed |= prop.propagate(op, rule, round);
        ++round;
      }
    }

    auto toAttr = [&](Value v) {
      auto type = cast<ShapedType>(v.getType());
      const ValueState *s = prop.lookup(v);
      SmallVector<Attribute> dims;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        SmallVector<Attribute> axes;
        if (s && d < static_cast<int64_t>(s->dims.size()))
          for (StringRef a : s->dims[d])
            axes.push_back(StringAttr::get(ctx, a));
        dims.push_back(ArrayAttr::get(ctx, axes));
      }
      ArrayAttr partial;
      if (s && !s->partial.empty()) {
        SmallVector<Attribute> axes;
        for (StringRef a : s->partial)
          axes.push_back(StringAttr::get(ctx, a));
        partial = ArrayAttr::get(ctx, axes);
      }
      return dist::ShardingAttr::get(meshRef, ArrayAttr::get(ctx, dims),
                                     partial,
                                     s ? s->partialKind : StringRef("sum"));
    };
    for (BlockArgument arg : func.getArguments())
      if (isa<ShapedType>(arg.getType()))
        func.setArgAttr(arg.getArgNumber(), "dist.sharding", toAttr(arg));
    func.walk([&](Operation *op) {
      if (!isa<graph::GraphDialect>(op->getDialect()))
        return;
      SmallVector<Attribute> results;
      for (Value r : op->getResults())
        results.push_back(toAttr(r));
      op->setAttr("dist.shardings", ArrayAttr::get(ctx, results));
    });
  }
}
