//===- PruneCalibrated.cpp - graph-prune ----------------------------------===//
//
// Structured pruning from calibration rows (Passes.td): per layer, the
// input channels (or heads) of a second projection are removed greedily by
// the Optimal Brain Surgeon's cost on the layer's output, the kept ones
// rescaled by its update (the least-squares reconstruction), the means
// matched by the bias; the layers' shares are chosen by their costs.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Quantize.h"
#include "passes/Pruning/Passes.h"
#include "passes/Pruning/Prune.h"

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>

namespace shardc {
#define GEN_PASS_DEF_GRAPHPRUNE
#include "passes/Pruning/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using namespace shardc::prune;

namespace {

struct GraphPrunePass : shardc::impl::GraphPruneBase<GraphPrunePass> {
  using GraphPruneBase::GraphPruneBase;
  void runOnOperation() override;
};

/// An activation's statistics (channel means, mean squares and sample
/// rows: quant::readStats).
using Moments = quant::ActivationStats;

/// H = (X~^T X~) o (W W^T): the Gram matrix of the per-row contributions
/// x~_j W[j, :] of the input channels of a projection by the [n, m] weight
/// W to its output (X~: the centered sample rows; o: the elementwise
/// product), with a ridge of 1% of its mean diagonal (SparseGPT's damping).
Eigen::MatrixXd gram(const Moments &x, const F32Data &w, int64_t n, int64_t m) {
  Eigen::MatrixXd xc(x.rows(), n);
  for (int64_t r = 0; r < x.rows(); ++r)
    for (int64_t j = 0; j < n; ++j)
      xc(r, j) = x.sample[r * n + j] - x.mean[j];
  Eigen::MatrixXd wd(n, m);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i)
      wd(j, i) = w.f(j * m + i);
  Eigen::MatrixXd cov = xc.transpose() * xc;
  Eigen::MatrixXd h = cov.cwiseProduct(wd * wd.transpose());
  double ridge = 0.01 * h.diagonal().mean();
  h.diagonal().array() += ridge > 0 ? ridge : 1e-12;
  return h;
}

/// The Optimal Brain Surgeon on the mask values s (all 1 at first) of
/// groups of `group` consecutive channels (1: an MLP channel; a head's
/// columns): each of `steps` steps removes the `perStep` groups whose own
/// removal, with the best update of the others, adds least to the squared
/// output error s_G^T (H^-1_GG)^-1 s_G (ZipLM's structured OBS), then
/// removes them together: s -= H^-1_:G (H^-1_GG)^-1 s_G and the inverse
/// is downdated. `order` lists the removed groups, `cost` the error after
/// each step relative to the output's own energy 1^T H 1, and `masks` the
/// mask values after each step (the least-squares reconstruction of the
/// output from what stays).
struct Obs {
  std::vector<int64_t> order;
  std::vector<double> cost;
  std::vector<Eigen::VectorXd> masks;
};
Obs surgeon(const Eigen::MatrixXd &h, int64_t group, int64_t perStep,
            int64_t steps) {
  int64_t n = h.rows(), groups = n / group;
  Eigen::MatrixXd inv = h.llt().solve(Eigen::MatrixXd::Identity(n, n));
  Eigen::VectorXd s = Eigen::VectorXd::Ones(n);
  double energy = std::max(1e-30, h.sum());
  std::vector<bool> gone(groups, false);
  Obs out;
  double total = 0;
  for (int64_t step = 0; step < steps; ++step) {
    // Each remaining group's cost on its own.
    std::vector<std::pair<double, int64_t>> costs;
    for (int64_t g = 0; g < groups; ++g) {
      if (gone[g])
        continue;
      int64_t at = g * group;
      double cost;
      if (group == 1) {
        cost = s[at] * s[at] / inv(at, at);
      } else {
        Eigen::VectorXd sg = s.segment(at, group);
        cost = sg.dot(inv.block(at, at, group, group).llt().solve(sg));
      }
      costs.push_back({cost, g});
    }
    if (static_cast<int64_t>(costs.size()) <= perStep)
      break;
    std::partial_sort(costs.begin(), costs.begin() + perStep, costs.end());
    std::vector<int> idx;
    for (int64_t i = 0; i < perStep; ++i) {
      int64_t g = costs[i].second;
      gone[g] = true;
      out.order.push_back(g);
      for (int64_t c = 0; c < group; ++c)
        idx.push_back(static_cast<int>(g * group + c));
    }
    // Removed together: the joint cost and update.
    Eigen::MatrixXd cols = inv(Eigen::all, idx);
    Eigen::LLT<Eigen::MatrixXd> block(cols(idx, Eigen::all));
    Eigen::VectorXd sg = s(idx);
    Eigen::VectorXd t = block.solve(sg);
    total += sg.dot(t);
    s -= cols * t;
    inv -= cols * block.solve(cols.transpose());
    s(idx).setZero();
    out.cost.push_back(total / energy);
    out.masks.push_back(s);
  }
  return out;
}

/// The steps each layer takes: `fraction` of all groups, a step at a
/// time to the layer whose relative output error grows least (each layer
/// keeping at least one step's worth).
std::vector<int64_t> shares(const std::vector<Obs> &curves,
                            const std::vector<int64_t> &sizes,
                            const std::vector<int64_t> &perStep,
                            double fraction) {
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  auto goal = static_cast<int64_t>(std::llround(fraction * total));
  std::vector<int64_t> steps(sizes.size(), 0);
  auto costAt = [&](size_t l, int64_t k) {
    return k == 0 ? 0.0 : curves[l].cost[k - 1];
  };
  for (int64_t done = 0; done < goal;) {
    int64_t best = -1;
    double bestGrowth = 0;
    for (size_t l = 0; l < sizes.size(); ++l) {
      int64_t next = steps[l] + 1;
      if (next > static_cast<int64_t>(curves[l].cost.size()))
        continue;
      double growth = costAt(l, next) - costAt(l, steps[l]);
      if (best < 0 || growth < bestGrowth) {
        best = static_cast<int64_t>(l);
        bestGrowth = growth;
      }
    }
    if (best < 0)
      break;
    ++steps[best];
    done += perStep[best];
  }
  return steps;
}

/// The bias shift that keeps the output's mean: the removed rows' mean
/// contribution, and what the kept rows' scaling takes from theirs.
std::vector<double> meanShift(const Moments &x, const F32Data &w, int64_t n,
                              int64_t m, ArrayRef<int64_t> keep,
                              ArrayRef<double> scale) {
  std::vector<double> factor(n, 1.0); // 1 - s_j for every row
  for (auto [a, j] : llvm::enumerate(keep))
    factor[j] = 1.0 - scale[a];
  std::vector<double> shift(m, 0.0);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m && factor[j] != 0; ++i)
      shift[i] += factor[j] * x.mean[j] * w.f(j * m + i);
  return shift;
}

/// One kind of structure (MLP channels or heads) across the layers: each
/// layer's second projection weight [n, m], its input's moments and its
/// group size; prunes `fraction` of the groups and calls `apply(layer,
/// keptGroups, keptRows' scales, bias shift)`.
struct Site {
  const Moments *x;
  F32Data w;
  int64_t n, m, group;
};
/// What pruneSites did to one layer: groups (channels or heads) kept of
/// all, and the estimated output error relative to its output's energy
/// after the removals (0 where nothing went).
struct Outcome {
  int64_t kept = 0, total = 0;
  double error = 0;
};
std::vector<Outcome>
pruneSites(std::vector<Site> &sites, double fraction, int64_t multiple,
           function_ref<void(size_t, ArrayRef<int64_t>, ArrayRef<double>,
                             ArrayRef<double>)>
               apply) {
  std::vector<Obs> curves;
  std::vector<int64_t> sizes, perStep;
  for (Site &site : sites) {
    int64_t groups = site.n / site.group;
    int64_t step = std::min(multiple, groups);
    // The curve as far as this fraction could take one layer (twice its
    // share, at most all but one step).
    int64_t most =
        std::min(groups / step - 1,
                 static_cast<int64_t>(std::ceil(2 * fraction * groups / step)));
    curves.push_back(
        surgeon(gram(*site.x, site.w, site.n, site.m), site.group, step, most));
    sizes.push_back(groups);
    perStep.push_back(step);
  }
  std::vector<int64_t> steps = shares(curves, sizes, perStep, fraction);
  std::vector<Outcome> outcomes;
  for (size_t l = 0; l < sites.size(); ++l) {
    outcomes.push_back({sizes[l], sizes[l], 0.0});
    if (!steps[l])
      continue;
    outcomes[l].error = curves[l].cost[steps[l] - 1];
    const Site &site = sites[l];
    // The first steps[l] steps of the layer's curve.
    const Obs &curve = curves[l];
    const Eigen::VectorXd &mask = curve.masks[steps[l] - 1];
    std::vector<bool> gone(sizes[l], false);
    for (int64_t i = 0; i < steps[l] * perStep[l]; ++i)
      gone[curve.order[i]] = true;
    SmallVector<int64_t> keptGroups, keptRows;
    std::vector<double> scale;
    for (int64_t g = 0; g < sizes[l]; ++g) {
      if (gone[g])
        continue;
      keptGroups.push_back(g);
      for (int64_t i = 0; i < site.group; ++i) {
        keptRows.push_back(g * site.group + i);
        scale.push_back(mask[g * site.group + i]);
      }
    }
    outcomes[l].kept = static_cast<int64_t>(keptGroups.size());
    apply(l, keptGroups, scale,
          meanShift(*site.x, site.w, site.n, site.m, keptRows, scale));
  }
  return outcomes;
}

/// What graph-prune did to one layer, on its second projection (for
/// --emit=prune-report): `graph.prune = {kind, kept, total, error}`.
void recordLayer(Operation *second, StringRef kind, const Outcome &o) {
  Builder b(second->getContext());
  second->setAttr("graph.prune",
                  b.getDictionaryAttr(
                      {b.getNamedAttr("error", b.getF64FloatAttr(o.error)),
                       b.getNamedAttr("kind", b.getStringAttr(kind)),
                       b.getNamedAttr("kept", b.getI64IntegerAttr(o.kept)),
                       b.getNamedAttr("total", b.getI64IntegerAttr(o.total))}));
}

void GraphPrunePass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (ffn <= 0 && heads <= 0 && conv <= 0)
    return;
  if (ffn >= 1 || heads >= 1 || conv >= 1 || ffn < 0 || heads < 0 || conv < 0 ||
      channelMultiple < 1 || headMultiple < 1 || convMultiple < 1) {
    func.emitError("graph-prune: ffn, heads and conv are fractions in [0, "
                   "1), the multiples at least 1");
    return signalPassFailure();
  }
  if (stats.empty()) {
    func.emitError("graph-prune: structured pruning needs calibration "
                   "statistics (--calibration=DIR)");
    return signalPassFailure();
  }
  std::vector<Moments> moments;
  if (std::optional<std::string> err = quant::readStats(stats, moments)) {
    func.emitError(*err);
    return signalPassFailure();
  }
  // The statistics are per activation of the int8 passes' order.
  DenseMap<Value, size_t> index;
  for (auto [i, g] : llvm::enumerate(quant::quantizableGroups(func, false)))
    index[g.activation] = i;
  size_t linearGroups = index.size();
  for (auto [i, g] : llvm::enumerate(quant::quantizableConvs(func)))
    index.try_emplace(g.activation, linearGroups + i);
  auto momentsOf = [&](Value activation, int64_t channels) -> const Moments * {
    auto it = index.find(activation);
    if (it == index.end() || it->second >= moments.size() ||
        moments[it->second].channels != channels ||
        static_cast<int64_t>(moments[it->second].mean.size()) != channels)
      return nullptr;
    return &moments[it->second];
  };

  // A layer to prune: the input of its second projection `second`, `n`
  // channels in groups of `group`, when the calibration measured it.
  std::vector<Site> sites;
  auto addSite = [&](Value activation, int64_t n, Projection second,
                     int64_t group) {
    const Moments *x = momentsOf(activation, n);
    if (!x || x->rows() == 0)
      return false;
    int64_t m = cast<ShapedType>(second.weight().getType()).getDimSize(1);
    sites.push_back({x, weightData(second.weight()), n, m, group});
    return true;
  };

  int64_t channels = 0, removedHeads = 0;
  if (ffn > 0) {
    std::vector<Mlp> mlps;
    for (Mlp &mlp : findMlps(func))
      if (addSite(mlp.hidden(), mlp.channels, mlp.down, 1))
        mlps.push_back(mlp);
    if (mlps.empty()) {
      func.emitError("graph-prune: ffn=")
          << ffn.getValue()
          << ": the model has no MLP whose channels prune removes (two "
             "f32 projections by constant weights, the first read by the "
             "second only)";
      return signalPassFailure();
    }
    std::vector<Outcome> outcomes =
        pruneSites(sites, ffn, channelMultiple,
                   [&](size_t l, ArrayRef<int64_t> keep, ArrayRef<double> scale,
                       ArrayRef<double> shift) {
                     channels += mlps[l].channels - keep.size();
                     (void)keepChannels(mlps[l], keep, shift, scale);
                   });
    for (size_t l = 0; l < mlps.size(); ++l)
      recordLayer(mlps[l].down.getOperation(), "mlp", outcomes[l]);
  }

  if (heads > 0) {
    std::vector<HeadBlock> blocks;
    sites.clear();
    // A group is a head, or under grouped-query attention the G query
    // heads that share a key and value head (their rows of the output
    // projection are consecutive).
    for (HeadBlock &h : findHeadBlocks(func))
      if (addSite(h.merge.getResult(), h.heads * h.headDim, h.out,
                  h.headDim * h.group()))
        blocks.push_back(h);
    if (blocks.empty()) {
      func.emitError("graph-prune: heads=")
          << heads.getValue()
          << ": the model has no attention whose heads prune removes "
             "(q, k and v projections by constant f32 weights reshaped "
             "into heads of one size, then per-head ops such as rotary "
             "embeddings and a repeat of the key and value heads)";
      return signalPassFailure();
    }
    std::vector<Outcome> outcomes =
        pruneSites(sites, heads, headMultiple,
                   [&](size_t l, ArrayRef<int64_t> keep, ArrayRef<double> scale,
                       ArrayRef<double> shift) {
                     HeadBlock &h = blocks[l];
                     SmallVector<int64_t> queries;
                     for (int64_t group : keep)
                       for (int64_t j = 0; j < h.group(); ++j)
                         queries.push_back(group * h.group() + j);
                     removedHeads += h.heads - queries.size();
                     (void)keepHeads(h, queries, shift, scale);
                   });
    for (size_t l = 0; l < blocks.size(); ++l)
      recordLayer(blocks[l].out.getOperation(), "heads", outcomes[l]);
  }
  int64_t convChannels = 0;
  if (conv > 0) {
    // The second convolution's filters [Cout, C, 1...] as the [C, Cout]
    // weight of a projection of the pixels.
    std::vector<ConvChain> chains, found = findConvChains(func);
    std::deque<std::vector<float>> transposed;
    sites.clear();
    for (ConvChain &chain : found) {
      auto t = cast<RankedTensorType>(convWeight(chain.second).getType());
      int64_t cout = t.getDimSize(0), c = t.getDimSize(1);
      if (!isPixelProjection(chain))
        continue;
      // Fewer sample rows than twice the channels (a squeeze-excite
      // block's pooled pixel: one row per sample) would let any few
      // channels rebuild the rows the layer is judged on: kept whole.
      const Moments *x = momentsOf(chain.second->getOperand(0), c);
      if (!x || x->rows() < 2 * c)
        continue;
      F32Data w = weightData(convWeight(chain.second));
      std::vector<float> &wt = transposed.emplace_back(c * cout);
      for (int64_t o = 0; o < cout; ++o)
        for (int64_t j = 0; j < c; ++j)
          wt[j * cout + o] = static_cast<float>(w.f(o * c + j));
      F32Data view{ArrayRef<char>(reinterpret_cast<const char *>(wt.data()),
                                  wt.size() * sizeof(float)),
                   false};
      sites.push_back({x, view, c, cout, 1});
      chains.push_back(chain);
    }
    if (chains.empty()) {
      func.emitError("graph-prune: conv=")
          << conv.getValue()
          << ": the model has no convolution chain whose channels prune "
             "removes (a group-1 convolution read, through depthwise "
             "convolutions and scalar affines, by a 1x1 unpadded one, with "
             "calibration pixels at least twice its channels; "
          << found.size() << " chains found)";
      return signalPassFailure();
    }
    std::vector<Outcome> outcomes =
        pruneSites(sites, conv, convMultiple,
                   [&](size_t l, ArrayRef<int64_t> keep, ArrayRef<double> scale,
                       ArrayRef<double> shift) {
                     convChannels += chains[l].channels - keep.size();
                     (void)keepChainChannels(chains[l], keep, shift, scale);
                   });
    for (size_t l = 0; l < chains.size(); ++l)
      recordLayer(chains[l].second, "conv", outcomes[l]);
  }
  numChannels += channels;
  numHeads += removedHeads;
  numConvChannels += convChannels;
  recordPruned(func, channels, removedHeads, convChannels);
  if (conv > 0)
    func.emitRemark() << "graph-prune: removed " << channels
                      << " MLP channels, " << removedHeads
                      << " attention heads and " << convChannels
                      << " convolution channels";
  else
    func.emitRemark() << "graph-prune: removed " << channels
                      << " MLP channels and " << removedHeads
                      << " attention heads";
}

} // namespace
