//===- SeedMegatron.cpp - dist-seed-megatron ------------------------------===//

#include "passes/Sharding/Passes.h"

#include "passes/Sharding/KvHeads.h"
#include "passes/Sharding/Slicing.h"

#include "dialects/Graph/IR/ShardingRule.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <type_traits>

namespace shardc {
#define GEN_PASS_DEF_DISTSEEDMEGATRON
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct DistSeedMegatronPass
    : shardc::impl::DistSeedMegatronBase<DistSeedMegatronPass> {
  using Base::Base;
  void runOnOperation() override;
};

/// A constant's name: its resource key (the ONNX initializer), else its
/// location's.
std::string constantName(graph::ConstantOp op) {
  if (auto res = dyn_cast<DenseResourceElementsAttr>(op.getValue()))
    return res.getRawHandle().getKey().str();
  if (auto name = dyn_cast<NameLoc>(op.getLoc()))
    return name.getName().str();
  return "constant";
}

/// linear(x, W) bias b -> split along the last axis, with W and b constants
/// and nothing after the sum: one linear per part, W's and b's columns
/// sliced (and an int8 linear's column scales). Returns whether it
/// rewrote.
template <class Op> bool unfuseProjection(graph::SplitOp split) {
  constexpr bool int8 = std::is_same_v<Op, graph::LinearInt8Op>;
  auto linear = split.getInput().getDefiningOp<Op>();
  auto type = cast<RankedTensorType>(split.getInput().getType());
  if (!linear || !linear->hasOneUse() || linear.getResidual() ||
      linear.getActivation() != "none" ||
      static_cast<int64_t>(split.getAxis()) != type.getRank() - 1)
    return false;
  auto weight = linear.getB().template getDefiningOp<graph::ConstantOp>();
  auto wType = cast<RankedTensorType>(linear.getB().getType());
  if (!weight || wType.getRank() != 2)
    return false;
  // The constants with one value per column: the bias, int8's scales.
  auto perColumn = [](Value v) {
    auto c = v ? v.getDefiningOp<graph::ConstantOp>() : graph::ConstantOp();
    return c && cast<RankedTensorType>(c.getType()).getRank() == 1
               ? c
               : graph::ConstantOp();
  };
  graph::ConstantOp bias = perColumn(linear.getBias()), scales;
  if (linear.getBias() && !bias)
    return false;
  if constexpr (int8) {
    scales = perColumn(linear.getBScale());
    if (!scales)
      return false;
  }
  OpBuilder b(split);
  int64_t start = 0;
  SmallVector<Value> parts;
  for (auto [size, result] : llvm::zip(split.getSizes(), split.getResults())) {
    // Each slice is named after the fused constant and the columns it holds.
    std::string cols =
        "[" + std::to_string(start) + ":" + std::to_string(start + size) + "]";
    auto slice = [&](graph::ConstantOp c, ArrayRef<int64_t> offsets,
                     ArrayRef<int64_t> sizes) -> Value {
      if (!c)
        return {};
      Value v = sliceConstantData(b, c, offsets, sizes);
      if (v)
        v.getDefiningOp()->setLoc(
            NameLoc::get(b.getStringAttr(constantName(c) + cols)));
      return v;
    };
    Value w = slice(weight, {0, start}, {wType.getDimSize(0), size});
    Value bs = slice(bias, {start}, {size});
    Value ws = slice(scales, {start}, {size});
    if (!w || (bias && !bs) || (scales && !ws))
      return false;
    if constexpr (int8)
      parts.push_back(b.create<graph::LinearInt8Op>(
          linear.getLoc(), result.getType(), linear.getA(), w,
          linear.getAScale(), ws, bs, Value(), linear.getActivationAttr()));
    else
      parts.push_back(b.create<graph::LinearOp>(linear.getLoc(),
                                                linear.getA(), w, bs, Value(),
                                                linear.getActivationAttr()));
    start += size;
  }
  split.replaceAllUsesWith(parts);
  split.erase();
  linear.erase();
  for (graph::ConstantOp c : {weight, scales, bias})
    if (c && c->use_empty())
      c.erase();
  return true;
}

/// Whether `v` is one of the program's inputs, possibly with a seed on it
/// (dist-seed-batch splits the ids over dp before this pass runs).
bool isProgramInput(Value v) {
  while (auto shard = v.getDefiningOp<dist::ShardOp>())
    v = shard.getInput();
  return isa<BlockArgument>(v);
}

/// Whether `op`'s only result goes to the program's return through casts
/// alone (each with one use).
bool returnedThroughCasts(Operation *op) {
  while (op->hasOneUse()) {
    Operation *user = *op->getUsers().begin();
    if (isa<func::ReturnOp>(user))
      return true;
    if (!isa<graph::CastOp>(user))
      return false;
    op = user;
  }
  return false;
}

/// Whether `linear` is an MLP's first projection: an activation fused in,
/// or applied by its only user (targets that keep it a separate op, as the
/// CUDA target does for GELU).
template <class Linear> bool isActivated(Linear linear) {
  return linear.getActivation() != "none" ||
         (linear->hasOneUse() && !linear.getResidual() &&
          isa<graph::GeluOp, graph::ReluOp, graph::SiluOp, graph::TanhOp,
              graph::SigmoidOp, graph::HardSwishOp>(
              *linear->getUsers().begin()));
}

/// An MLP's first projection (isActivated), float or int8.
bool isActivatedLinear(Operation *op) {
  if (auto linear = dyn_cast<graph::LinearOp>(op))
    return isActivated(linear);
  if (auto linear = dyn_cast<graph::LinearInt8Op>(op))
    return isActivated(linear);
  return false;
}

/// Puts `sharding` on operand `index` of `op` with a dist.shard.
void seed(Operation *op, unsigned index, dist::ShardingAttr sharding) {
  OpBuilder b(op);
  Value v = op->getOperand(index);
  auto shard = b.create<dist::ShardOp>(op->getLoc(), v, sharding);
  op->setOperand(index, shard);
}

/// Makes operand `index` of `user` (a constant) divisible by `parts` along
/// `dim`: when it is not, `user` takes the constant padded with zeros to
/// the next multiple (padConstantData: a window, no copy), marked
/// `dist.padded_from` with the original shape for the plan report.
/// Returns the padded size, or 0 when the dim is smaller than `parts` or
/// the constant cannot be padded (left unsplit).
int64_t padToMultiple(Operation *user, unsigned index, int64_t dim,
                      int64_t parts) {
  auto weight = user->getOperand(index).getDefiningOp<graph::ConstantOp>();
  auto type = cast<RankedTensorType>(user->getOperand(index).getType());
  int64_t size = type.getDimSize(dim);
  if (size % parts == 0)
    return size;
  if (!weight || size < parts)
    return 0;
  int64_t padded = (size + parts - 1) / parts * parts;
  OpBuilder b(user);
  Value p = padConstantData(b, weight, dim, padded);
  if (!p)
    return 0;
  p.getDefiningOp()->setLoc(weight.getLoc());
  p.getDefiningOp()->setAttr("dist.padded_from",
                             b.getDenseI64ArrayAttr(type.getShape()));
  user->setOperand(index, p);
  if (weight->use_empty())
    weight.erase();
  return padded;
}

} // namespace

bool shardc::isVocabularyEmbedding(graph::GatherOp gather) {
  auto t = cast<RankedTensorType>(gather.getData().getType());
  return gather.getData().getDefiningOp<graph::ConstantOp>() &&
         t.getRank() == 2 && gather.getAxis() == 0 &&
         isProgramInput(gather.getIndices()) &&
         t.getDimSize(0) > t.getDimSize(1);
}

/// Whether `op`'s only user is a slice that keeps the leading part of its
/// last dim and all of the others (graph-pad-columns' slice back to the
/// vocabulary), returned through casts.
static bool returnedThroughColumnTrim(Operation *op) {
  if (!op->hasOneUse())
    return false;
  auto slice = dyn_cast<graph::SliceOp>(*op->getUsers().begin());
  if (!slice || !returnedThroughCasts(slice))
    return false;
  ArrayRef<int64_t> in =
      cast<RankedTensorType>(slice.getInput().getType()).getShape();
  ArrayRef<int64_t> ends = slice.getEnds();
  for (size_t d = 0; d < in.size(); ++d)
    if (slice.getStarts()[d] != 0 || slice.getSteps()[d] != 1 ||
        (d + 1 < in.size() && ends[d] != in[d]))
      return false;
  return true;
}

bool shardc::isLanguageModelHead(Operation *op) {
  // A graph.linear returned (a block's last projection, as in a bare
  // Llama-style stack) is a row-parallel projection's work: one all-reduce
  // is cheaper than gathering its input and its output.
  if (!isa<graph::MatMulOp>(op) ||
      !(returnedThroughCasts(op) || returnedThroughColumnTrim(op)))
    return false;
  Value w = op->getOperand(1);
  return w.getDefiningOp<graph::ConstantOp>() &&
         cast<RankedTensorType>(w.getType()).getRank() == 2;
}

void DistSeedMegatronPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (tp < 1) {
    module.emitError("--tp=") << tp << ": expected at least 1";
    return signalPassFailure();
  }
  dist::MeshOp mesh = dist::getOrAddMeshAxis(module, dist::kTensorAxis, tp);
  if (!mesh)
    return signalPassFailure();
  auto sharding = [&](int64_t rank, int64_t dim) {
    return dist::splitAlong(mesh, rank, dim, dist::kTensorAxis);
  };

  // Sequence parallelism: a norm's input split along its token dim (the
  // largest of the leading, not normalized, dims, the later one on a tie:
  // the sequence of [batch, seq, hidden]). When tp does not divide it,
  // that is an error: splitting another dim (the batch) instead would not
  // be sequence parallelism, and silently so.
  auto seedTokens = [&](Operation *norm) -> LogicalResult {
    auto t = cast<RankedTensorType>(norm->getOperand(0).getType());
    uint64_t axisAttr =
        isa<graph::LayerNormOp>(norm)
            ? cast<graph::LayerNormOp>(norm).getAxis()
            : cast<graph::RmsNormOp>(norm).getAxis();
    int64_t axis = graph::normalizedAxis(axisAttr, t.getRank());
    int64_t best = -1;
    for (int64_t d = 0; d < axis; ++d)
      if (best < 0 || t.getDimSize(d) >= t.getDimSize(best))
        best = d;
    if (best < 0)
      return success(); // nothing but normalized dims: stays whole
    int64_t tokens = t.getDimSize(best);
    if (tokens % tp != 0)
      return norm->emitError("--sp: the ")
             << tokens << " tokens of this norm's input (dim " << best
             << ") do not divide by --tp=" << static_cast<int64_t>(tp)
             << "; sequence parallelism needs them to (pad the sequence to "
                "a multiple of tp, or drop --sp)";
    seed(norm, 0, sharding(t.getRank(), best));
    return success();
  };

  // Fused QKV projections first, so that q, k and v each have their own.
  SmallVector<graph::SplitOp> splits;
  module.walk([&](graph::SplitOp s) { splits.push_back(s); });
  for (graph::SplitOp s : splits)
    if (!unfuseProjection<graph::LinearOp>(s))
      unfuseProjection<graph::LinearInt8Op>(s);

  // Layers, for the per-layer strategies: layer i is the i-th attention in
  // program order; an MLP (an activated projection, a SwiGLU) belongs to
  // the layer of the last attention before it, a norm to the layer of the
  // next attention or MLP after it (pre-norm and post-norm stacks alike).
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) { ops.push_back(op); });
  auto isMlp = [](Operation *op) {
    return isa<graph::SwigluOp>(op) || isActivatedLinear(op);
  };
  DenseMap<Operation *, int64_t> layerOf;
  int64_t attentions = 0;
  for (Operation *op : ops) {
    if (isa<graph::AttentionOp>(op))
      layerOf[op] = attentions++;
    else if (isMlp(op))
      layerOf[op] = attentions - 1;
  }
  int64_t next = -1;
  for (Operation *op : llvm::reverse(ops)) {
    if (isa<graph::AttentionOp>(op) || isMlp(op))
      next = layerOf[op];
    else if (isa<graph::LayerNormOp, graph::RmsNormOp>(op))
      layerOf[op] = next;
  }
  for (int64_t layer : replicatedLayers)
    if (layer < 0 || layer >= attentions) {
      module.emitError("dist-seed-megatron: replicated layer ")
          << layer << " is not one of the model's " << attentions
          << " attention layers";
      return signalPassFailure();
    }
  auto replicated = [&](Operation *op) {
    auto it = layerOf.find(op);
    return it != layerOf.end() && it->second >= 0 &&
           llvm::is_contained(replicatedLayers, it->second);
  };

  for (Operation *op : ops) {
    if (replicated(op))
      continue;
    if (sp && isa<graph::LayerNormOp, graph::RmsNormOp>(op)) {
      if (failed(seedTokens(op)))
        return signalPassFailure();
      continue;
    }
    if (auto attn = dyn_cast<graph::AttentionOp>(op)) {
      auto q = cast<RankedTensorType>(attn.getQuery().getType());
      if (q.getRank() < 3)
        continue;
      int64_t heads = q.getRank() - 3;
      // Fewer KV heads than ranks: each rank gets a copy of the KV head
      // its query heads read (the ops it replaces all precede `op`).
      replicateKvHeads(attn, tp);
      bool divisible = llvm::all_of(op->getOperands().take_front(3), [&](Value v) {
        return cast<RankedTensorType>(v.getType()).getDimSize(heads) % tp == 0;
      });
      if (!divisible)
        continue; // indivisible heads: replicated
      for (unsigned i = 0; i < 3; ++i)
        seed(op, i, sharding(q.getRank(), heads));
      continue;
    }
    // A gated MLP (SwiGLU): gate and up are column-parallel, so both
    // operands are split along their last dim.
    if (auto swiglu = dyn_cast<graph::SwigluOp>(op)) {
      auto t = cast<RankedTensorType>(swiglu.getGate().getType());
      if (t.getRank() < 1 || t.getDimSize(t.getRank() - 1) % tp != 0)
        continue;
      seed(op, 0, sharding(t.getRank(), t.getRank() - 1));
      seed(op, 1, sharding(t.getRank(), t.getRank() - 1));
      continue;
    }
    // An MLP's first projection is column-parallel (int8's column scales
    // follow its weight's columns through the rule).
    if (isa<graph::LinearOp, graph::LinearInt8Op>(op)) {
      auto w = cast<RankedTensorType>(op->getOperand(1).getType());
      if (isActivatedLinear(op) && w.getRank() == 2 &&
          w.getDimSize(1) % tp == 0)
        seed(op, 1, sharding(2, 1));
      continue;
    }
    // A convolution by constant filters is split on its output channels
    // (the filters' first dim): each rank computes its channels from the
    // whole input; a grouped (depthwise) convolution then reads only its
    // ranks' input channels. An int8 one's per-channel scales follow its
    // filters (partitionConvInt8).
    if (isa<graph::ConvOp, graph::FusedConvOp, graph::ConvInt8Op>(op)) {
      Value w = op->getOperand(1);
      auto t = cast<RankedTensorType>(w.getType());
      if (w.getDefiningOp<graph::ConstantOp>() && t.getRank() >= 3 &&
          t.getDimSize(0) % tp == 0)
        seed(op, 1, sharding(t.getRank(), 0));
      continue;
    }
    // The embedding: a gather of rows of a constant table by the
    // program's token ids is vocab-parallel (rows over "tp"). Only a
    // vocabulary (more rows than its width): splitting a small table (BERT's
    // two token types) saves bytes of weights and costs an all-reduce.
    if (auto gather = dyn_cast<graph::GatherOp>(op)) {
      // A vocabulary that tp does not divide is padded with zero rows
      // (no token id reaches them).
      if (!wholeEmbedding && isVocabularyEmbedding(gather)) {
        // (dist-partition checks and wraps ids by the real rows, which
        // dist.padded_from keeps.)
        if (!padToMultiple(op, 0, 0, tp))
          continue;
        seed(op, 0, sharding(2, 0));
      }
      continue;
    }
    // The LM head: a projection by a constant whose result the program
    // returns (directly or through casts, as Hugging Face's fp16 exports
    // return float32 logits) is column-parallel; partitioning all-gathers
    // the logits.
    if (!wholeHead && isLanguageModelHead(op)) {
      auto t = cast<RankedTensorType>(op->getOperand(1).getType());
      int64_t columns = t.getDimSize(1);
      if (columns % tp != 0 && padToMultiple(op, 1, 1, tp)) {
        // A padded vocabulary's logits: the projection makes the padded
        // columns (zeros), a slice drops them once they are gathered.
        seed(widenToWeight(cast<graph::MatMulOp>(op)), 1, sharding(2, 1));
        continue;
      }
      if (columns % tp == 0) {
        seed(op, 1, sharding(2, 1));
        // Logits widened by a cast are gathered before it, in the
        // narrower type (half the bytes of fp16 logits returned as f32).
        Operation *user = *op->getUsers().begin();
        if (auto cast = dyn_cast<graph::CastOp>(user))
          seed(cast, 0,
               sharding(cast.getInput().getType().getRank(), /*none*/ -1));
      }
    }
  }
}
