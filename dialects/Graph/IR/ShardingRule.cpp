//===- ShardingRule.cpp - factor-based sharding rules ---------------------===//

#include "dialects/Graph/IR/ShardingRule.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace mlir;
using namespace shardc::graph;

#include "dialects/Graph/IR/ShardingInterface.cpp.inc"

int64_t ShardingRule::addFactor(int64_t size, FactorKind kind,
                                StringRef combiner) {
  // A reduction says how its partial values combine; sum unless told.
  if (kind == FactorKind::Reduction && combiner.empty())
    combiner = "sum";
  factors.push_back({size, kind, combiner});
  return static_cast<int64_t>(factors.size()) - 1;
}

static std::string factorName(int64_t f) {
  if (f < 18)
    return std::string(1, static_cast<char>('i' + f));
  return "f" + std::to_string(f);
}

std::string ShardingRule::str() const {
  auto values = [&](ArrayRef<ValueFactors> list) {
    std::string s = "(";
    for (auto [v, dims] : llvm::enumerate(list)) {
      s += v ? ", [" : "[";
      for (auto [d, fs] : llvm::enumerate(dims)) {
        if (d)
          s += ", ";
        if (fs.empty()) {
          s += "1";
        } else if (fs.size() == 1) {
          s += factorName(fs[0]);
        } else {
          s += "(";
          for (auto [i, f] : llvm::enumerate(fs))
            s += (i ? ", " : "") + factorName(f);
          s += ")";
        }
      }
      s += "]";
    }
    return s + ")";
  };
  std::string s = values(operands) + " -> " + values(results) + " {";
  for (auto [i, f] : llvm::enumerate(factors))
    s += (i ? ", " : "") + factorName(i) + "=" + std::to_string(f.size);
  s += "}";
  std::string reduction, replicated;
  for (auto [i, f] : llvm::enumerate(factors)) {
    if (f.kind == FactorKind::Reduction)
      reduction += (reduction.empty() ? "" : ", ") + factorName(i) + ":" +
                   f.combiner.str();
    if (f.kind == FactorKind::NeedReplication)
      replicated += (replicated.empty() ? "" : ", ") + factorName(i);
  }
  if (!reduction.empty())
    s += " reduction={" + reduction + "}";
  if (!replicated.empty())
    s += " need_replication={" + replicated + "}";
  return s;
}

LogicalResult ShardingRule::verify(Operation *op) const {
  auto check = [&](TypeRange types, ArrayRef<ValueFactors> list,
                   StringRef what) -> LogicalResult {
    if (types.size() != list.size())
      return op->emitError("sharding rule has ")
             << list.size() << " " << what << " for " << types.size();
    for (auto [i, type, dims] : llvm::enumerate(types, list)) {
      auto shaped = dyn_cast<ShapedType>(type);
      if (!shaped || static_cast<int64_t>(dims.size()) != shaped.getRank())
        return op->emitError("sharding rule: ")
               << what << " " << i << " has " << dims.size() << " dims";
      for (auto [d, fs] : llvm::enumerate(dims)) {
        int64_t product = 1;
        for (int64_t f : fs) {
          if (f < 0 || f >= static_cast<int64_t>(factors.size()))
            return op->emitError("sharding rule: no factor ") << f;
          product *= factors[f].size;
        }
        if (product != shaped.getDimSize(d))
          return op->emitError("sharding rule: ")
                 << what << " " << i << " dim " << d << " has size "
                 << shaped.getDimSize(d) << ", its factors " << product;
      }
    }
    return success();
  };
  if (failed(check(op->getOperandTypes(), operands, "operands")) ||
      failed(check(op->getResultTypes(), results, "results")))
    return failure();
  return success();
}

ShardingRule::ValueFactors
shardc::graph::broadcastFactors(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> fullShape,
                                ArrayRef<SmallVector<int64_t, 2>> full) {
  ShardingRule::ValueFactors dims;
  int64_t offset = static_cast<int64_t>(fullShape.size()) -
                   static_cast<int64_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    dims.push_back(shape[d] == fullShape[d + offset]
                       ? full[d + offset]
                       : SmallVector<int64_t, 2>{}); // broadcast from 1
  return dims;
}

ShardingRule shardc::graph::elementwiseRule(Operation *op) {
  ShardingRule rule;
  auto out = cast<ShapedType>(op->getResult(0).getType());
  ShardingRule::ValueFactors outDims;
  for (int64_t size : out.getShape())
    outDims.push_back({rule.addFactor(size, FactorKind::Parallel)});
  for (Value operand : op->getOperands())
    rule.operands.push_back(broadcastFactors(
        cast<ShapedType>(operand.getType()).getShape(), out.getShape(),
        outDims));
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    rule.results.push_back(outDims);
  return rule;
}

std::optional<std::pair<ShardingRule::ValueFactors, ShardingRule::ValueFactors>>
shardc::graph::reshapeFactors(ShardingRule &rule, ArrayRef<int64_t> in,
                              ArrayRef<int64_t> out) {
  ShardingRule::ValueFactors inDims(in.size()), outDims(out.size());
  size_t i = 0, j = 0;
  int64_t ri = 0, rj = 0; // what is left of in[i] / out[j]
  auto nextIn = [&] {
    while (i < in.size() && in[i] == 1)
      ++i;
    ri = i < in.size() ? in[i] : 0;
  };
  auto nextOut = [&] {
    while (j < out.size() && out[j] == 1)
      ++j;
    rj = j < out.size() ? out[j] : 0;
  };
  nextIn();
  nextOut();
  while (i < in.size() && j < out.size()) {
    if (ri == 0 || rj == 0)
      return std::nullopt; // zero-size dims: nothing to split
    int64_t f;
    if (ri == rj) {
      f = rule.addFactor(ri, FactorKind::Parallel);
      inDims[i].push_back(f);
      outDims[j].push_back(f);
      ++i, ++j;
      nextIn();
      nextOut();
    } else if (ri % rj == 0) {
      // out[j] is the next (major) part of in[i].
      f = rule.addFactor(rj, FactorKind::Parallel);
      inDims[i].push_back(f);
      outDims[j].push_back(f);
      ri /= rj;
      ++j;
      nextOut();
    } else if (rj % ri == 0) {
      f = rule.addFactor(ri, FactorKind::Parallel);
      inDims[i].push_back(f);
      outDims[j].push_back(f);
      rj /= ri;
      ++i;
      nextIn();
    } else {
      return std::nullopt;
    }
  }
  if (i < in.size() || j < out.size())
    return std::nullopt;
  return std::make_pair(std::move(inDims), std::move(outDims));
}

ShardingRule shardc::graph::sameShapeRule(Operation *op,
                                          ArrayRef<int64_t> replicated) {
  ShardingRule rule;
  auto type = cast<ShapedType>(op->getOperand(0).getType());
  ShardingRule::ValueFactors dims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    dims.push_back({rule.addFactor(type.getDimSize(d),
                                   llvm::is_contained(replicated, d)
                                       ? FactorKind::NeedReplication
                                       : FactorKind::Parallel)});
  rule.operands.push_back(dims);
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    rule.results.push_back(dims);
  return rule;
}

using Dims = ShardingRule::ValueFactors;

ShardingRule shardc::graph::equalDimsRule(Operation *op) {
  auto in = cast<ShapedType>(op->getOperand(0).getType());
  auto out = cast<ShapedType>(op->getResult(0).getType());
  // A slice that walks a dim backwards or with a stride keeps its size
  // but not its order: that dim needs replication too.
  SmallVector<int64_t> steps;
  if (auto slice = dyn_cast<SliceOp>(op))
    steps.assign(slice.getSteps().begin(), slice.getSteps().end());
  ShardingRule rule;
  Dims inDims, outDims;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    bool walksForward = steps.empty() || steps[d] == 1;
    if (in.getDimSize(d) == out.getDimSize(d) && walksForward) {
      int64_t f = rule.addFactor(in.getDimSize(d), FactorKind::Parallel);
      inDims.push_back({f});
      outDims.push_back({f});
    } else {
      inDims.push_back(
          {rule.addFactor(in.getDimSize(d), FactorKind::NeedReplication)});
      outDims.push_back(
          {rule.addFactor(out.getDimSize(d), FactorKind::NeedReplication)});
    }
  }
  rule.operands.push_back(inDims);
  // Further operands (a pad value, scales) are scalars or replicated.
  for (unsigned i = 1; i < op->getNumOperands(); ++i) {
    auto t = cast<ShapedType>(op->getOperand(i).getType());
    Dims dims;
    for (int64_t d = 0; d < t.getRank(); ++d)
      dims.push_back(
          {rule.addFactor(t.getDimSize(d), FactorKind::NeedReplication)});
    rule.operands.push_back(dims);
  }
  rule.results = {outDims};
  return rule;
}

void shardc::graph::registerShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, GraphDialect *) {
    attachElementwiseShardingRules(ctx);
    attachLinalgShardingRules(ctx);
    attachShapeShardingRules(ctx);
    attachConvShardingRules(ctx);
    attachSelectionShardingRules(ctx);
    attachQuantShardingRules(ctx);
    attachFusedShardingRules(ctx);
    attachScatterShardingRules(ctx);
    attachMoeShardingRules(ctx);
  });
}
