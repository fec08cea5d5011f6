//===- PadBatch.cpp - dist-pad-batch --------------------------------------===//
//
// A batch of B rows that `parts` does not divide (3 over 2, a single row
// over 2): the program is re-typed to B' = parts * ceil(B / parts) rows so
// that dist-seed-batch, dist-propagate and dist-partition split it evenly.
// Part r holds its balanced share of the real rows (B / parts, one more for
// the first B % parts parts, none when B < parts) followed by copies of its
// last real row; the copies compute exactly what that row computes, so they
// raise no error the real rows do not, and are dropped at the end.
//
// The sharding rules say which dims carry the batch: the dims linked to the
// inputs' leading dim through factors that are the major factor of every
// dim they appear in. Padding is exact only when no op mixes rows: a batch
// factor that an op reduces, needs whole, folds under another dim or does
// not pass to its results is refused with the node named.
//
//   dp: the inputs keep their shape; a graph.gather with constant indices
//       lays out the padded rows (`dist.batch_source`, seeded by
//       dist-seed-batch) and one more drops the padding from each output.
//   mb: the inputs and outputs take the padded shape and the function gets
//       `dist.batch_items = B`; dist-microbatch keeps one micro-batch's
//       program and the runtime fills each micro-batch's rows (plan v3).
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/ShardingRule.h"
#include "passes/Sharding/Retype.h"
#include "passes/Sharding/Slicing.h"

#include "shardc/format.h"

#include "llvm/ADT/EquivalenceClasses.h"

#include <cstring>
#include <map>

namespace shardc {
#define GEN_PASS_DEF_DISTPADBATCH
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct DistPadBatchPass
    : shardc::impl::DistPadBatchBase<DistPadBatchPass> {
  using Base::Base;
  void runOnOperation() override;
};

using Dim = std::pair<Value, int64_t>;

/// Indices along a dim of `unit` elements per item: for each padded item
/// (`padded`: the parts' blocks of `per` items, real then copies), or for
/// each real item, its place in the padded layout. The parts' shares are
/// the runtime's micro-batch shares (shardc/format.h), which must agree
/// with this layout for micro-batches. (Batches and parts fit 32 bits:
/// the plan stores them so.)
SmallVector<int64_t> padIndices(int64_t items, int64_t parts, int64_t unit,
                                bool pad) {
  auto n = static_cast<uint32_t>(items), p = static_cast<uint32_t>(parts);
  int64_t per = format::itemsPerMicrobatch(n, p);
  SmallVector<int64_t> idx;
  for (int64_t r = 0; r < parts; ++r) {
    auto [start, count] =
        format::microbatchShare(n, p, static_cast<uint32_t>(r));
    int64_t upto = pad ? per : count;
    for (int64_t j = 0; j < upto; ++j) {
      int64_t item = pad ? (j < count ? start + j
                                      : (count ? start + count - 1 : items - 1))
                         : r * per + j;
      for (int64_t u = 0; u < unit; ++u)
        idx.push_back(item * unit + u);
    }
  }
  return idx;
}

/// `c` with its batch dims `ds` laid out as padIndices lays out the
/// inputs' rows (copies of each part's last row), read at compile time;
/// null when its data cannot be read (bit-packed booleans).
Value padConstantRows(OpBuilder &b, graph::ConstantOp c, ArrayRef<int64_t> ds,
                      int64_t items, int64_t parts) {
  auto type = cast<RankedTensorType>(c.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t padded = (items + parts - 1) / parts * parts;
  SmallVector<int64_t> newShape(shape);
  for (int64_t d : ds)
    newShape[d] = shape[d] / items * padded;
  auto newType = RankedTensorType::get(newShape, type.getElementType());
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      dense && dense.isSplat())
    return b.create<graph::ConstantOp>(c.getLoc(), dense.resizeSplat(newType));
  std::optional<graph::Window> w = graph::windowOf(c, c.getValue());
  if (!w)
    return Value();
  std::vector<char> data = graph::windowBytes(*w, shape);
  // One batch dim at a time: rows of dim d picked by the indices.
  for (int64_t d : ds) {
    SmallVector<int64_t> idx =
        padIndices(items, parts, shape[d] / items, /*pad=*/true);
    int64_t outer = 1, inner = w->elemBytes;
    for (int64_t k = 0; k < d; ++k)
      outer *= shape[k];
    for (int64_t k = d + 1; k < static_cast<int64_t>(shape.size()); ++k)
      inner *= shape[k];
    std::vector<char> next(outer * idx.size() * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (auto [j, from] : llvm::enumerate(idx))
        std::memcpy(next.data() + (o * idx.size() + j) * inner,
                    data.data() + (o * shape[d] + from) * inner, inner);
    data = std::move(next);
    shape[d] = static_cast<int64_t>(idx.size());
  }
  std::string key =
      graph::derivedKey(c.getValue(), ".padded_batch", "padded_batch");
  ElementsAttr value = graph::elementsFromBytes(
      newType, key, [&](MutableArrayRef<char> out) {
        if (out.size() != data.size())
          return false;
        std::memcpy(out.data(), data.data(), data.size());
        return true;
      });
  if (!value)
    return Value();
  return b.create<graph::ConstantOp>(c.getLoc(), value);
}

} // namespace

void DistPadBatchPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (parts < 1 || (axis != dist::kDataAxis && axis != dist::kMicrobatchAxis)) {
    module.emitError("dist-pad-batch needs axis dp or mb and parts >= 1");
    return signalPassFailure();
  }
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (func->hasAttr("dist.stage")) {
      func.emitError("dist-pad-batch runs before dist-pipeline");
      return signalPassFailure();
    }
    Block &body = func.getBody().front();
    // The batch: the largest leading dim of the inputs.
    int64_t items = 0;
    for (BlockArgument arg : body.getArguments())
      if (auto t = dyn_cast<RankedTensorType>(arg.getType());
          t && t.getRank() >= 1)
        items = std::max(items, t.getDimSize(0));
    // One row (a dim of 1 has no factor to follow) is computed whole by
    // every part: dist-seed-batch leaves it unsplit.
    if (items <= 1 || items % parts == 0)
      continue;
    int64_t per = (items + parts - 1) / parts, padded = per * parts;
    auto fail = [&](Operation *at, const Twine &why) {
      at->emitError("cannot split a batch of ")
          << items << " into " << static_cast<int64_t>(parts)
          << (axis == dist::kMicrobatchAxis ? " micro-batches"
                                            : " data-parallel parts")
          << ": " << why;
      signalPassFailure();
    };

    // (value, dim) pairs linked by factors that are the major factor of
    // their dims; a factor seen minor anywhere is remembered.
    std::map<std::pair<void *, int64_t>, unsigned> ids;
    std::vector<Dim> dims;
    llvm::EquivalenceClasses<unsigned> classes;
    auto id = [&](Value v, int64_t d) {
      auto [it, added] = ids.try_emplace({v.getAsOpaquePointer(), d},
                                         static_cast<unsigned>(dims.size()));
      if (added) {
        dims.push_back({v, d});
        classes.insert(it->second);
      }
      return it->second;
    };
    struct OpRule {
      Operation *op;
      graph::ShardingRule rule;
      SmallVector<SmallVector<Dim>> firsts; ///< per factor
      SmallVector<bool> minor, inResult;
    };
    std::vector<OpRule> rules;
    SmallVector<Operation *> unruled;
    for (Operation &op : body.without_terminator()) {
      std::optional<graph::ShardingRule> rule;
      if (auto iface = dyn_cast<graph::ShardingRuleOpInterface>(&op))
        rule = iface.getShardingRule();
      if (!rule) {
        unruled.push_back(&op);
        continue;
      }
      OpRule r{&op, *rule, {}, {}, {}};
      size_t n = rule->factors.size();
      r.firsts.resize(n);
      r.minor.assign(n, false);
      r.inResult.assign(n, false);
      auto visit = [&](Value v, const graph::ShardingRule::ValueFactors &fs,
                       bool result) {
        for (auto [d, list] : llvm::enumerate(fs))
          for (auto [k, f] : llvm::enumerate(list)) {
            if (k == 0)
              r.firsts[f].push_back({v, static_cast<int64_t>(d)});
            else
              r.minor[f] = true;
            if (result)
              r.inResult[f] = true;
          }
      };
      for (auto [v, fs] : llvm::zip(op.getOperands(), rule->operands))
        visit(v, fs, false);
      for (auto [v, fs] : llvm::zip(op.getResults(), rule->results))
        visit(v, fs, true);
      for (const auto &group : r.firsts)
        for (size_t k = 1; k < group.size(); ++k)
          classes.unionSets(id(group[0].first, group[0].second),
                            id(group[k].first, group[k].second));
      rules.push_back(std::move(r));
    }
    // The inputs' batch dims are one class.
    SmallVector<BlockArgument> batched;
    for (BlockArgument arg : body.getArguments())
      if (auto t = dyn_cast<RankedTensorType>(arg.getType());
          t && t.getRank() >= 1 && t.getDimSize(0) == items) {
        if (!batched.empty())
          classes.unionSets(id(batched.front(), 0), id(arg, 0));
        batched.push_back(arg);
      }
    unsigned leader = classes.getLeaderValue(id(batched.front(), 0));
    auto isBatch = [&](Value v, int64_t d) {
      auto it = ids.find({v.getAsOpaquePointer(), d});
      return it != ids.end() && classes.getLeaderValue(it->second) == leader;
    };
    auto batchDims = [&](Value v) {
      SmallVector<int64_t> out;
      if (auto t = dyn_cast<RankedTensorType>(v.getType()))
        for (int64_t d = 0; d < t.getRank(); ++d)
          if (isBatch(v, d))
            out.push_back(d);
      return out;
    };

    // Every op that touches the batch keeps its rows apart.
    for (Operation *op : unruled) {
      SmallVector<Value> values(op->getOperands());
      llvm::append_range(values, op->getResults());
      for (Value v : values)
        if (!batchDims(v).empty())
          return fail(op, "this node has no sharding rule");
    }
    for (const OpRule &r : rules)
      for (auto [f, group] : llvm::enumerate(r.firsts)) {
        if (group.empty() || !isBatch(group[0].first, group[0].second))
          continue;
        const graph::ShardingFactor &factor = r.rule.factors[f];
        if (factor.kind != graph::FactorKind::Parallel || !r.inResult[f])
          return fail(r.op, std::string("this node needs the rows of the "
                                        "whole batch (") +
                                (factor.kind == graph::FactorKind::Reduction
                                     ? "it reduces over them"
                                     : "it reads them together") +
                                ")");
        if (r.minor[f])
          return fail(r.op, "this node folds the batch under another dim");
        if (factor.size % items != 0)
          return fail(r.op, "this node splits the batch's dim into " +
                                std::to_string(factor.size) + " rows");
      }
    for (auto [v, d] : dims)
      if (isBatch(v, d) &&
          cast<ShapedType>(v.getType()).getDimSize(d) % items != 0) {
        Operation *at = v.getDefiningOp() ? v.getDefiningOp() : func;
        return fail(at, "this node has a dim of " +
                            std::to_string(cast<ShapedType>(v.getType())
                                               .getDimSize(d)) +
                            " that the batch does not divide");
      }
    if (axis == dist::kMicrobatchAxis)
      for (BlockArgument arg : body.getArguments())
        for (int64_t d : batchDims(arg))
          if (d != 0)
            return fail(func, "input " + std::to_string(arg.getArgNumber()) +
                                  " holds the batch in dim " +
                                  std::to_string(d) + ", not its leading dim");

    // Re-type: a batch dim of B * unit elements becomes B' * unit.
    auto retyped = [&](Value v) -> Type {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(t.getShape());
      for (int64_t d : batchDims(v))
        shape[d] = shape[d] / items * padded;
      return RankedTensorType::get(shape, t.getElementType());
    };
    OpBuilder b(func.getContext());
    b.setInsertionPointToStart(&body);
    for (BlockArgument arg : body.getArguments()) {
      SmallVector<int64_t> ds = batchDims(arg);
      if (ds.empty())
        continue;
      if (axis == dist::kMicrobatchAxis) {
        arg.setType(retyped(arg));
        continue;
      }
      // dp: the rows of every part, real then copies, along each batch dim.
      llvm::SmallPtrSet<Operation *, 4> made;
      Value v = arg;
      for (int64_t d : ds) {
        int64_t unit = cast<ShapedType>(v.getType()).getDimSize(d) / items;
        v = gatherAt(b, arg.getLoc(), v, d,
                       padIndices(items, parts, unit, /*pad=*/true));
        made.insert(v.getDefiningOp());
      }
      v.getDefiningOp()->setAttr("dist.batch_source",
                                 b.getI64IntegerAttr(ds.front()));
      arg.replaceUsesWithIf(
          v, [&](OpOperand &use) { return !made.contains(use.getOwner()); });
    }
    for (Operation &op :
         llvm::make_early_inc_range(body.without_terminator())) {
      if (op.hasAttr("dist.batch_source"))
        continue;
      if (auto c = dyn_cast<graph::ConstantOp>(op)) {
        SmallVector<int64_t> ds = batchDims(c);
        if (ds.empty())
          continue;
        // A constant with the batch's rows (a mask folded for the batch):
        // its rows laid out as the inputs' are.
        b.setInsertionPoint(c);
        Value v = padConstantRows(b, c, ds, items, parts);
        if (!v)
          return fail(c, "this constant varies along the batch and cannot be "
                         "padded");
        c.replaceAllUsesWith(v);
        c.erase();
        continue;
      }
      SmallVector<Type> before(op.getResultTypes());
      bool changed = false;
      for (Value r : op.getResults())
        if (!batchDims(r).empty()) {
          r.setType(retyped(r));
          changed = true;
        }
      bool reads = llvm::any_of(op.getOperands(), [&](Value v) {
        return !batchDims(v).empty();
      });
      if ((changed || reads) && failed(followResultTypes(&op, before)))
        return fail(&op, "this node cannot take the padded batch (its "
                         "shape attributes name the batch size)");
    }
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      SmallVector<int64_t> ds = batchDims(operand.get());
      if (ds.empty() || axis == dist::kMicrobatchAxis)
        continue;
      Value v = operand.get();
      for (int64_t d : ds) {
        int64_t unit = cast<ShapedType>(v.getType()).getDimSize(d) / padded;
        v = gatherAt(b, ret.getLoc(), v, d,
                       padIndices(items, parts, unit, /*pad=*/false));
      }
      operand.set(v);
    }
    func.setType(FunctionType::get(&getContext(), body.getArgumentTypes(),
                                   ret.getOperandTypes()));
    if (axis == dist::kMicrobatchAxis)
      func->setAttr("dist.batch_items", b.getI64IntegerAttr(items));
  }
}
