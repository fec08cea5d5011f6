//===- PlanSummary.cpp - the model as the planner's search sees it --------===//
//
// Reads planner::ModelSummary (lib/Planner: Search.h) off the optimized
// graph: FLOPs, weights, the hidden state, heads, experts, the pipeline
// cuts, and what a trial Megatron split at each priced degree leaves whole.
// dist-plan (Plan.cpp) searches on it.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/PlanSummary.h"

#include "dialects/Dist/IR/DistOps.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "passes/Sharding/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <functional>

using namespace mlir;
using namespace shardc;
using namespace shardc::planner;

namespace {

double bytesOf(Type t) {
  auto s = dyn_cast<ShapedType>(t);
  if (!s || !s.hasStaticShape() || !s.getElementType().isIntOrFloat())
    return 0;
  return static_cast<double>(s.getNumElements()) *
         std::max<unsigned>(8, s.getElementType().getIntOrFloatBitWidth()) / 8;
}

/// The program: the module's first function with a body.
func::FuncOp mainFunction(ModuleOp module) {
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      return f;
  return {};
}

/// Whether a tensor of sharding `s` (from dist-propagate) is split, i.e.
/// smaller on each rank; partial sums are whole.
bool isSplit(Attribute s) {
  auto sharding = dyn_cast_or_null<dist::ShardingAttr>(s);
  if (!sharding)
    return false;
  for (unsigned d = 0; d < sharding.getDims().size(); ++d)
    if (!sharding.axesOf(d).empty())
      return true;
  return false;
}

/// The bytes of intermediates live after each op of the trial's program, as
/// kern-plan-memory's arena holds them: a tensor from the op that makes it
/// to its last reader, reshapes and seeds (views, no memory of their own)
/// extending their source's life, the program's inputs and outputs apart;
/// whole tensors, those the trial split, and the staging of split outputs
/// gathered at the end, apart (ModelSummary::liveWhole, liveSplit,
/// liveGathered).
void readLiveBytes(ModuleOp trial, ModelSummary &m) {
  func::FuncOp main = mainFunction(trial);
  if (!main)
    return;
  Block &body = main.getBody().front();
  DenseMap<Operation *, int64_t> index;
  for (Operation &op : body)
    index[&op] = static_cast<int64_t>(index.size());
  auto isView = [](Operation *op) {
    return isa<graph::ReshapeOp, dist::ShardOp>(op);
  };
  // The last op reading `v`, through views; -1 if the program returns it.
  std::function<int64_t(Value)> lastUse = [&](Value v) -> int64_t {
    int64_t last = 0;
    for (Operation *user : v.getUsers()) {
      if (isa<func::ReturnOp>(user))
        return -1;
      int64_t at = index.lookup(user);
      if (isView(user)) {
        int64_t viewLast = lastUse(user->getResult(0));
        if (viewLast < 0)
          return -1;
        at = std::max(at, viewLast);
      }
      last = std::max(last, at);
    }
    return last;
  };
  size_t n = index.size();
  std::vector<double> whole(n + 1, 0), split(n + 1, 0), gather(n + 1, 0);
  auto live = [](std::vector<double> &v, int64_t first, int64_t last,
                 double bytes) {
    v[first] += bytes;
    v[last + 1] -= bytes;
  };
  for (Operation &op : body) {
    if (isView(&op) || isa<graph::ConstantOp, func::ReturnOp>(op))
      continue;
    auto shardings = op.getAttrOfType<ArrayAttr>("dist.shardings");
    int64_t at = index[&op];
    for (auto [i, r] : llvm::enumerate(op.getResults())) {
      if (r.use_empty())
        continue;
      int64_t last = lastUse(r);
      bool isSplitResult =
          shardings && i < shardings.size() && isSplit(shardings[i]);
      double bytes = bytesOf(r.getType());
      // An output is the caller's buffer; a split one is gathered into it,
      // after the op, through a whole staging buffer beside the rank's part.
      if (last < 0) {
        if (isSplitResult) {
          live(split, at, at + 1, bytes);
          live(gather, at + 1, at + 1, bytes);
        }
        continue;
      }
      live(isSplitResult ? split : whole, at, last, bytes);
    }
  }
  for (size_t i = 1; i <= n; ++i) {
    whole[i] += whole[i - 1];
    split[i] += split[i - 1];
    gather[i] += gather[i - 1];
  }
  whole.pop_back();
  split.pop_back();
  gather.pop_back();
  m.liveWhole = std::move(whole);
  m.liveSplit = std::move(split);
  m.liveGathered = std::move(gather);
}

/// What a Megatron split at degree `tp` leaves whole: seeds tp on a clone,
/// propagates, and reads which weights, FLOPs and intermediates came out
/// split. Returns false when the seeds refuse the degree (`trialError`
/// then holds why, one line) or propagation fails; nothing is recorded
/// then.
bool readTensorParallelSplit(ModuleOp module, int64_t tp, ModelSummary &m) {
  OwningOpRef<ModuleOp> trial = module.clone();
  PassManager pm(module.getContext());
  DistSeedMegatronOptions seeds;
  seeds.tp = tp;
  pm.addPass(createDistSeedMegatron(seeds));
  pm.addPass(createDistPropagate());
  // The trial's diagnostics are the search's (a rejected degree's
  // reason); the driver's own run reports its own.
  std::string error;
  if (failed(runTrial(pm, *trial, error))) {
    m.trialError = error.empty() ? "the trial partition failed" : error;
    return false;
  }
  double replicated = 0, weights = 0, whole = 0, split = 0, wholeFlops = 0,
         flops = 0;
  auto splitAttr = [](ArrayAttr shardings) {
    return shardings && llvm::any_of(shardings, [](Attribute a) {
             return isSplit(a);
           });
  };
  trial->walk([&](Operation *op) {
    auto shardings = op->getAttrOfType<ArrayAttr>("dist.shardings");
    if (auto c = dyn_cast<graph::ConstantOp>(op)) {
      // Experts' stacked weights are the search's to split (over ep).
      bool expert = llvm::any_of(c->getUsers(), [](Operation *u) {
        return isa<graph::MoeOp>(u);
      });
      if (expert)
        return;
      // A padded constant counts at its size: the search prices padding.
      double bytes = bytesOf(c.getType());
      if (auto from = c->getAttrOfType<DenseI64ArrayAttr>("dist.padded_from"))
        bytes = bytesOf(RankedTensorType::get(
            from.asArrayRef(), c.getType().getElementType()));
      weights += bytes;
      if (!(shardings && !shardings.empty() && isSplit(shardings[0])))
        replicated += bytes;
      return;
    }
    // Seeds (dist.shard) mark a tensor, they hold no memory of their own.
    if (op->getNumResults() == 0 || isa<func::FuncOp, ModuleOp>(op) ||
        isa<dist::DistDialect>(op->getDialect()))
      return;
    if (!isa<graph::MoeOp>(op)) {
      // An op runs whole unless a result, or an operand as it arrives
      // (a row-parallel projection's partial sums), is split.
      double f = estimateFlops(op);
      flops += f;
      bool splitOperand = llvm::any_of(op->getOperands(), [&](Value v) {
        Operation *d = v.getDefiningOp();
        return d && splitAttr(d->getAttrOfType<ArrayAttr>("dist.shardings"));
      });
      if (!splitAttr(shardings) && !splitOperand)
        wholeFlops += f;
    }
    for (auto [i, r] : llvm::enumerate(op->getResults())) {
      double &peak =
          shardings && i < shardings.size() && isSplit(shardings[i]) ? split
                                                                      : whole;
      peak = std::max(peak, bytesOf(r.getType()));
    }
  });
  // What the trial added (KV head copies) costs each rank x / tp, as
  // x / (tp - 1) more of the whole share does.
  double addedWeights = std::max(0.0, weights - m.denseWeights);
  double addedFlops = std::max(0.0, flops - m.denseFlops);
  m.trialTp = tp;
  m.tpReplicatedWeights =
      std::min(m.denseWeights, replicated + addedWeights / (tp - 1));
  m.tpWholeFlops = std::min(m.denseFlops, wholeFlops + addedFlops / (tp - 1));
  m.peakActivationWhole = whole;
  m.peakActivationSplit = split;
  readLiveBytes(*trial, m);
  return true;
}

/// The smallest degree the heads and the hidden size divide by (0: none
/// up to 64): the trial of a summary priced at any degree.
int64_t smallestTrialDegree(const ModelSummary &m) {
  for (int64_t t = 2; t <= 64; ++t)
    if (m.hidden % t == 0 && (m.heads == 0 || m.heads % t == 0))
      return t;
  return 0;
}

/// The per-layer options' sizes (ModelSummary): the embedding and the LM
/// head as dist-seed-megatron finds them, counted as split when they have
/// at least the trial degree `tp` rows or columns (the seeds pad the rest
/// to a multiple), and one layer's share of the rest.
void readLayerParts(func::FuncOp main, int64_t tp, int64_t attentions,
                    ModelSummary &m) {
  if (!tp)
    return;
  main.walk([&](Operation *op) {
    if (auto gather = dyn_cast<graph::GatherOp>(op)) {
      auto t = cast<ShapedType>(gather.getData().getType());
      if (m.embeddingRows == 0 && isVocabularyEmbedding(gather) &&
          t.getDimSize(0) >= tp) {
        m.embeddingWeights = bytesOf(t);
        m.embeddingRows = t.getDimSize(0);
      }
      return;
    }
    if (m.headFlops > 0 || !isLanguageModelHead(op))
      return;
    auto w = cast<ShapedType>(op->getOperand(1).getType());
    m.headFlops = estimateFlops(op);
    m.logitsBytes = bytesOf(op->getResult(0).getType());
    m.headColumns = w.getDimSize(1);
    if (w.getDimSize(1) >= tp)
      m.headWeights = bytesOf(w);
  });
  if (attentions == 0)
    return;
  m.layerFlops = std::max(0.0, m.denseFlops - m.headFlops) / m.layers;
  m.layerWeights = std::max(0.0, m.denseWeights - m.tpReplicatedWeights -
                                     m.embeddingWeights - m.headWeights) /
                   m.layers;
}

} // namespace

LogicalResult shardc::runTrial(PassManager &pm, ModuleOp module,
                              std::string &firstError) {
  ScopedDiagnosticHandler quiet(module.getContext(), [&](Diagnostic &d) {
    if (firstError.empty() && d.getSeverity() == DiagnosticSeverity::Error)
      firstError = d.str();
    return success();
  });
  return pm.run(module);
}

ModelSummary shardc::summarizeModel(ModuleOp module, StringRef dtype,
                                    ArrayRef<int64_t> tpDegrees) {
  ModelSummary m;
  m.dtype = dtype.str();
  m.elementBytes = dtype == "fp16" || dtype == "bf16" ? 2 : 4;
  func::FuncOp main = mainFunction(module);
  if (!main)
    return m;
  bool batchSeen = false;
  for (Type t : main.getArgumentTypes()) {
    m.inputBytes += bytesOf(t);
    if (auto s = dyn_cast<ShapedType>(t);
        !batchSeen && s && s.getRank() >= 1) {
      m.batch = s.getDimSize(0);
      batchSeen = true;
    }
  }
  double totalFlops = 0, weights = 0;
  int64_t attentions = 0, kernels = 0, int8Linears = 0;
  bool dynamicRows = false;
  Value hiddenState;
  main.walk([&](Operation *op) {
    if (isa<func::ReturnOp>(op)) {
      for (Value v : op->getOperands())
        m.outputBytes += bytesOf(v.getType());
      return;
    }
    if (isa<graph::ConstantOp>(op)) {
      weights += bytesOf(op->getResult(0).getType());
      return;
    }
    if (op->getNumResults() == 0 || op == main)
      return;
    ++kernels;
    for (Value r : op->getResults())
      m.peakActivation = std::max(m.peakActivation, bytesOf(r.getType()));
    totalFlops += estimateFlops(op);
    if (auto attn = dyn_cast<graph::AttentionOp>(op)) {
      ++attentions;
      auto q = cast<ShapedType>(attn.getQuery().getType());
      if (q.getRank() >= 3)
        m.heads = std::max(m.heads, q.getDimSize(q.getRank() - 3));
    }
    if (auto moe = dyn_cast<graph::MoeOp>(op)) {
      ++m.moeLayers;
      m.experts = std::max(m.experts, moe.getNumExperts());
      m.topK = std::max(m.topK, moe.getTopK());
      m.expertFlops += estimateFlops(op);
      m.expertWeights += bytesOf(moe.getGateUp().getType()) +
                         bytesOf(moe.getDown().getType());
      for (Value bias : {moe.getGateUpBias(), moe.getDownBias()})
        if (bias)
          m.expertWeights += bytesOf(bias.getType());
    }
    if (!hiddenState && isa<graph::LayerNormOp, graph::RmsNormOp>(op))
      hiddenState = op->getOperand(0);
    if (auto q = dyn_cast<graph::LinearInt8Op>(op)) {
      ++int8Linears;
      dynamicRows |= static_cast<bool>(q.getAScale());
    }
  });
  m.layers = std::max<int64_t>(1, attentions);
  m.kernels = std::max<int64_t>(1, kernels);
  m.denseFlops = totalFlops - m.expertFlops;
  m.denseWeights = weights - m.expertWeights;
  if (auto s = hiddenState ? dyn_cast<ShapedType>(hiddenState.getType())
                           : ShapedType();
      s && s.hasStaticShape() && s.getRank() >= 1) {
    m.hidden = s.getDimSize(s.getRank() - 1);
    m.tokens = s.getNumElements() / std::max<int64_t>(1, m.hidden);
  } else {
    m.tokens = m.batch;
    m.hidden = std::max<int64_t>(
        1, static_cast<int64_t>(m.outputBytes / m.elementBytes) /
               std::max<int64_t>(1, m.batch));
  }
  // An int8 model's split layers gather int8 rows (and a dynamic
  // scheme's row scales).
  if (int8Linears > 0)
    m.gatherElementBytes = 1.0 + (dynamicRows ? 4.0 / m.hidden : 0.0);
  PipelineCuts cuts = findPipelineCuts(main);
  m.segments = cuts.segmentFlops();
  m.segmentWeights = cuts.segmentWeights();
  ModelSummary base = m;
  int64_t tp = smallestTrialDegree(m);
  if (tp && readTensorParallelSplit(module, tp, m))
    readLayerParts(main, tp, attentions, m);
  else
    m.trialError.clear(); // no figures: the search takes all to divide
  for (int64_t t : tpDegrees) {
    if (t < 2)
      continue;
    // The degree of the trial just run: its figures, not a second trial.
    if (t == m.trialTp) {
      ModelSummary same = m;
      same.atDegrees.clear();
      m.atDegrees.push_back(std::move(same));
      continue;
    }
    ModelSummary at = base;
    if (readTensorParallelSplit(module, t, at))
      readLayerParts(main, t, attentions, at);
    else
      at.trialTp = t; // refused: trialError says why
    m.atDegrees.push_back(std::move(at));
  }
  return m;
}
