//===- Pipeline.cpp - dist-pipeline ---------------------------------------===//
//
// Cuts the global program into pipeline stages joined by send/recv. A cut
// goes where exactly one tensor is live across it (the hidden state between
// two layers; program inputs and constants do not count: every stage binds
// the inputs it reads and has its own copy of the constants it uses). The
// cuts are chosen by dynamic programming over those points so that the
// most expensive stage is as cheap as possible (GPipe's and Megatron's
// balanced split, here on estimated FLOPs rather than layer counts).
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

#include <limits>
#include <map>

namespace shardc {
#define GEN_PASS_DEF_DISTPIPELINE
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct DistPipelinePass : shardc::impl::DistPipelineBase<DistPipelinePass> {
  using Base::Base;
  void runOnOperation() override;
};

int64_t numElements(Type t) {
  auto s = dyn_cast<ShapedType>(t);
  return s && s.hasStaticShape() ? s.getNumElements() : 0;
}

int64_t lastDim(Value v) {
  auto t = cast<ShapedType>(v.getType());
  return t.getRank() ? t.getDimSize(t.getRank() - 1) : 1;
}

} // namespace

/// Estimated floating-point operations of `op`: 2·M·N·K for contractions,
/// 4·(query rows)·keys·dim for attention, 2·outputs·(filter taps) for
/// convolutions (int8 ones counted alike), one per output element for
/// everything else.
double shardc::estimateFlops(Operation *op) {
  double out = 0;
  for (Type t : op->getResultTypes())
    out += static_cast<double>(numElements(t));
  if (isa<graph::LinearOp, graph::LinearInt8Op, graph::MatMulOp>(op))
    return 2.0 * out * lastDim(op->getOperand(0));
  if (auto gemm = dyn_cast<graph::GemmOp>(op)) {
    auto a = cast<ShapedType>(gemm->getOperand(0).getType());
    int64_t k = a.getRank() == 2 ? a.getDimSize(gemm.getTransA() ? 0 : 1) : 1;
    return 2.0 * out * k;
  }
  if (auto attn = dyn_cast<graph::AttentionOp>(op)) {
    auto k = cast<ShapedType>(attn.getKey().getType());
    int64_t keys = k.getRank() >= 2 ? k.getDimSize(k.getRank() - 2) : 1;
    return 4.0 * numElements(attn.getQuery().getType()) * keys;
  }
  if (auto moe = dyn_cast<graph::MoeOp>(op))
    // T * K routed rows through gate/up (H x 2F) and down (F x H).
    return 6.0 * moe.getNumTokens() * moe.getTopK() * moe.getHidden() *
           moe.getFfn();
  if (isa<graph::ConvOp, graph::FusedConvOp, graph::ConvInt8Op>(op)) {
    auto w = cast<ShapedType>(op->getOperand(1).getType());
    int64_t taps = w.getRank() ? numElements(w) / std::max<int64_t>(
                                                      1, w.getDimSize(0))
                               : 1;
    return 2.0 * out * taps;
  }
  return out;
}

PipelineCuts shardc::findPipelineCuts(func::FuncOp global) {
  PipelineCuts pc;
  Block &body = global.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());

  // The ops that compute, their costs and each value's last use. Constants
  // and what is computed from constants alone (a causal mask too large to
  // fold, rotary tables) are copied into the stages that use them: they
  // never cross a cut, so a layer boundary stays a point where only the
  // hidden state does.
  SmallVector<Operation *> &ops = pc.ops;
  DenseMap<Operation *, int64_t> index;
  for (Operation &op : body.without_terminator()) {
    bool fromConstants =
        op.getNumRegions() == 0 &&
        llvm::all_of(op.getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && pc.constantLike.contains(def);
        });
    if (isa<graph::ConstantOp>(op) ||
        (fromConstants && isa<graph::GraphDialect>(op.getDialect()))) {
      pc.constantLike.insert(&op);
      continue;
    }
    index[&op] = ops.size();
    ops.push_back(&op);
  }
  int64_t n = ops.size();
  pc.prefix.assign(n + 1, 0.0);
  for (int64_t i = 0; i < n; ++i)
    pc.prefix[i + 1] = pc.prefix[i] + estimateFlops(ops[i]);
  // Live across the boundary after op i: defined at or before i, used after.
  SmallVector<SmallVector<Value>> endingAt(n + 1);
  for (int64_t i = 0; i < n; ++i)
    for (Value r : ops[i]->getResults()) {
      int64_t last = i;
      for (Operation *user : r.getUsers()) {
        if (user == ret)
          last = n;
        else if (auto it = index.find(user); it != index.end())
          last = std::max(last, it->second);
      }
      endingAt[last].push_back(r);
    }
  // Candidate cuts: boundaries after op i (i < n - 1) with one live value.
  // (position of definition, result number) -> value
  std::map<std::pair<int64_t, unsigned>, Value> live;
  for (int64_t i = 0; i < n - 1; ++i) {
    for (OpResult r : ops[i]->getResults())
      live[{i, r.getResultNumber()}] = r;
    for (Value r : endingAt[i])
      live.erase({index[r.getDefiningOp()],
                  cast<OpResult>(r).getResultNumber()});
    if (live.size() == 1 && isa<RankedTensorType>(live.begin()->second.getType())) {
      pc.cuts.push_back(i);
      pc.crossing.push_back(live.begin()->second);
    }
  }
  return pc;
}

std::vector<double> PipelineCuts::segmentFlops() const {
  std::vector<double> out;
  double begin = 0;
  for (int64_t c : cuts) {
    out.push_back(prefix[c + 1] - begin);
    begin = prefix[c + 1];
  }
  if (!prefix.empty())
    out.push_back(prefix.back() - begin);
  return out;
}

std::vector<double> PipelineCuts::segmentWeights() const {
  std::vector<double> out(cuts.size() + 1, 0);
  size_t segment = 0;
  DenseSet<std::pair<size_t, Operation *>> counted;
  for (auto [i, op] : llvm::enumerate(ops)) {
    while (segment < cuts.size() && static_cast<int64_t>(i) > cuts[segment])
      ++segment;
    for (Value v : op->getOperands())
      if (auto c = v.getDefiningOp<graph::ConstantOp>();
          c && counted.insert({segment, c}).second) {
        auto t = cast<ShapedType>(c.getType());
        out[segment] += static_cast<double>(t.getNumElements()) *
                        std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
      }
  }
  return out;
}

void DistPipelinePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (stages < 1) {
    module.emitError("--pp=") << static_cast<int64_t>(stages) << ": expected at least 1 stage";
    return signalPassFailure();
  }
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  if (funcs.size() != 1 || funcs.front().isExternal()) {
    module.emitError("dist-pipeline takes one global program, found ")
        << funcs.size();
    return signalPassFailure();
  }
  func::FuncOp global = funcs.front();
  Block &body = global.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  PipelineCuts pc = findPipelineCuts(global);
  const SmallVector<Operation *> &ops = pc.ops;
  const llvm::DenseSet<Operation *> &constantLike = pc.constantLike;
  const SmallVector<double> &prefix = pc.prefix;
  const SmallVector<int64_t> &cuts = pc.cuts;
  const SmallVector<Value> &crossing = pc.crossing;
  int64_t n = ops.size();
  int64_t k = cuts.size();
  if (k < stages - 1) {
    global.emitError("--pp=")
        << static_cast<int64_t>(stages) << ": the graph has " << k
        << " points where only one tensor crosses (between layers), so it "
           "splits into at most "
        << k + 1 << " pipeline stages";
    return signalPassFailure();
  }

  // best[s][c]: the least possible cost of the most expensive of the first
  // s + 1 stages when stage s ends at cut c (cut k = the end of the program).
  auto costBetween = [&](int64_t fromCut, int64_t toCut) {
    double begin = fromCut < 0 ? 0.0 : prefix[cuts[fromCut] + 1];
    double end = toCut == k ? prefix[n] : prefix[cuts[toCut] + 1];
    return end - begin;
  };
  const double inf = std::numeric_limits<double>::infinity();
  SmallVector<SmallVector<double>> best(stages, SmallVector<double>(k + 1, inf));
  SmallVector<SmallVector<int64_t>> from(stages,
                                         SmallVector<int64_t>(k + 1, -1));
  for (int64_t c = 0; c <= k; ++c)
    best[0][c] = costBetween(-1, c);
  for (int64_t s = 1; s < stages; ++s)
    for (int64_t c = s; c <= k; ++c)
      for (int64_t p = s - 1; p < c; ++p) {
        double v = std::max(best[s - 1][p], costBetween(p, c));
        if (v < best[s][c]) {
          best[s][c] = v;
          from[s][c] = p;
        }
      }
  SmallVector<int64_t> chosen(stages); // the cut each stage ends at
  chosen[stages - 1] = k;
  for (int64_t s = stages - 1; s > 0; --s)
    chosen[s - 1] = from[s][chosen[s]];

  dist::MeshOp mesh = dist::getOrAddMeshAxis(module, dist::kPipelineAxis, stages);
  if (!mesh)
    return signalPassFailure();
  MLIRContext *ctx = &getContext();
  auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  Builder builder(ctx);
  ArrayAttr ppAxes = builder.getStrArrayAttr({dist::kPipelineAxis});

  OpBuilder b(global);
  for (int64_t s = 0; s < stages; ++s) {
    int64_t first = s == 0 ? 0 : cuts[chosen[s - 1]] + 1;
    int64_t last = chosen[s] == k ? n - 1 : cuts[chosen[s]];
    bool isLast = s == stages - 1;
    // The program inputs this stage reads.
    llvm::SetVector<BlockArgument> args;
    auto noteArgs = [&](Operation *op) {
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (auto a = dyn_cast<BlockArgument>(v); a && a.getOwner() == &body)
            args.insert(a);
      });
    };
    for (int64_t i = first; i <= last; ++i)
      noteArgs(ops[i]);
    if (isLast)
      noteArgs(ret);
    SmallVector<BlockArgument> argList(args.begin(), args.end());
    llvm::sort(argList, [](BlockArgument x, BlockArgument y) {
      return x.getArgNumber() < y.getArgNumber();
    });
    SmallVector<Type> argTypes;
    for (BlockArgument a : argList)
      argTypes.push_back(a.getType());
    auto stage = b.create<func::FuncOp>(
        global.getLoc(), (global.getName() + "_stage" + Twine(s)).str(),
        FunctionType::get(ctx, argTypes,
                          isLast ? global.getResultTypes() : TypeRange{}));
    for (auto [i, a] : llvm::enumerate(argList))
      if (DictionaryAttr attrs = global.getArgAttrDict(a.getArgNumber()))
        stage.setArgAttrs(i, attrs);
    if (isLast)
      stage.setAllResultAttrs(global.getAllResultAttrs());
    stage->setAttr("dist.stage", builder.getI64IntegerAttr(s));
    stage->setAttr("dist.stage_flops",
                   builder.getF64FloatAttr(prefix[last + 1] - prefix[first]));
    Block *entry = stage.addEntryBlock();
    OpBuilder sb = OpBuilder::atBlockEnd(entry);
    IRMapping map;
    for (auto [a, local] : llvm::zip(argList, entry->getArguments()))
      map.map(a, local);
    if (s > 0) {
      Value in = crossing[chosen[s - 1]];
      auto recv = sb.create<dist::RecvOp>(in.getLoc(), in.getType(), meshRef,
                                          ppAxes, builder.getI64IntegerAttr(-1));
      map.map(in, recv.getResult());
    }
    // Constants and what is computed from them alone are cloned where
    // first needed, producers first.
    std::function<void(Value)> cloneConstant = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!def || !constantLike.contains(def) || map.contains(v))
        return;
      for (Value operand : def->getOperands())
        cloneConstant(operand);
      sb.clone(*def, map);
    };
    auto cloneConstants = [&](Operation *op) {
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          cloneConstant(v);
      });
    };
    for (int64_t i = first; i <= last; ++i) {
      cloneConstants(ops[i]);
      sb.clone(*ops[i], map);
    }
    if (!isLast) {
      Value out = crossing[chosen[s]];
      sb.create<dist::SendOp>(out.getLoc(), map.lookup(out), meshRef, ppAxes,
                              builder.getI64IntegerAttr(1));
      sb.create<func::ReturnOp>(global.getLoc());
    } else {
      cloneConstants(ret);
      SmallVector<Value> results;
      for (Value v : ret.getOperands())
        results.push_back(map.lookupOrDefault(v));
      sb.create<func::ReturnOp>(ret.getLoc(), results);
    }
  }
  global.erase();
}
