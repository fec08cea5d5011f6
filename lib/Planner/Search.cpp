//===- Search.cpp - choosing the mesh -------------------------------------===//

#include "shardc/Planner/Search.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace llvm;
using namespace shardc::planner;

std::string Candidate::name() const {
  std::string n = formatv("dp{0} pp{1} ep{2} tp{3}{4} mb{5}", dp, pp, ep, tp,
                          sp ? " sp" : "", microbatches)
                      .str();
  if (embeddingWhole)
    n += " embedding-whole";
  if (headWhole)
    n += " head-whole";
  if (!replicatedLayers.empty())
    n += formatv(" replicated-layers{0}", replicatedLayers.size()).str();
  return n;
}

std::string shardc::planner::formatBytes(double b) {
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
  if (b >= kGiB)
    return formatv("{0:F2} GiB", b / kGiB);
  if (b >= kMiB)
    return formatv("{0:F1} MiB", b / kMiB);
  if (b >= kKiB)
    return formatv("{0:F1} KiB", b / kKiB);
  return formatv("{0} B", static_cast<int64_t>(b));
}

std::string shardc::planner::formatSeconds(double s) {
  if (s >= 1)
    return formatv("{0:F3} s", s);
  if (s >= 1e-3)
    return formatv("{0:F3} ms", s * 1e3);
  return formatv("{0:F1} us", s * 1e6);
}

namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      out.push_back(d);
  return out;
}

/// The summary whose trial ran at `tp`, else `m`.
const ModelSummary &atDegree(const ModelSummary &m, int64_t tp) {
  for (const ModelSummary &s : m.atDegrees)
    if (s.trialTp == tp)
      return s;
  return m;
}

/// The batch items one rank computes per micro-batch: the compile splits
/// the batch into micro-batches, then each over dp, and pads what does not
/// divide (dist-pad-batch: 5 over 2 computes 3 on each).
int64_t itemsPerRank(const ModelSummary &m, const Candidate &c) {
  int64_t batch = std::max<int64_t>(1, m.batch);
  int64_t mb = std::min(std::max<int64_t>(1, c.microbatches), batch);
  int64_t perMicrobatch = (batch + mb - 1) / mb;
  return (perMicrobatch + c.dp - 1) / c.dp;
}

/// What the batch is divided by for one rank's micro-batch: dp times the
/// micro-batches when they divide it, less with padding.
double batchSplit(const ModelSummary &m, const Candidate &c) {
  return static_cast<double>(std::max<int64_t>(1, m.batch)) /
         static_cast<double>(itemsPerRank(m, c));
}

/// Why the family cannot run, or empty.
std::string reject(const ModelSummary &model, const Candidate &c) {
  const ModelSummary &m = atDegree(model, c.tp);
  // A trial at this degree is the partitioner's own answer: it refuses
  // (trialError), or splits what divides and leaves the rest whole (the
  // attention of heads tp does not divide), which the price counts.
  bool trial = c.tp > 1 && m.trialTp == c.tp;
  if (trial && !m.trialError.empty())
    return formatv("tp={0}: {1}", c.tp, m.trialError);
  if (!trial && c.tp > 1 && m.heads > 0 && m.heads % c.tp != 0)
    return formatv("{0} heads do not divide by tp={1}", m.heads, c.tp);
  if (!trial && c.tp > 1 && m.hidden % c.tp != 0)
    return formatv("the hidden size {0} does not divide by tp={1}", m.hidden,
                   c.tp);
  if (c.ep > 1 && m.experts == 0)
    return formatv("ep={0}: the model has no mixture-of-experts layer", c.ep);
  if (!m.segments.empty() && c.pp > static_cast<int64_t>(m.segments.size()))
    return formatv("the graph has {0} points where only one tensor crosses, "
                   "so at most {1} stages, not pp={2}",
                   m.segments.size() - 1, m.segments.size(), c.pp);
  if (m.segments.empty() && c.pp > m.layers)
    return formatv("{0} layers give at most {0} stages, not pp={1}",
                   m.layers, c.pp);
  for (int64_t layer : c.replicatedLayers)
    if (layer < 0 || layer >= m.layers)
      return formatv("replicated layer {0} is not one of the model's {1} "
                     "layers",
                     layer, m.layers);
  int64_t rows =
      itemsPerRank(m, c) * (m.tokens / std::max<int64_t>(1, m.batch));
  if (c.sp && rows % c.tp != 0)
    return formatv("sp: {0} tokens per micro-batch do not split over tp={1}",
                   rows, c.tp);
  // dist-seed-megatron splits the norms' token dim (the largest leading
  // one: the sequence of [batch, seq, hidden]) and refuses one tp does not
  // divide.
  int64_t localBatch = itemsPerRank(m, c);
  int64_t tokenDim =
      std::max(localBatch, m.tokens / std::max<int64_t>(1, m.batch));
  if (c.sp && tokenDim % c.tp != 0)
    return formatv("sp: the sequence of {0} tokens does not split over "
                   "tp={1}",
                   tokenDim, c.tp);
  return "";
}

void price(const ModelSummary &model, const Cluster &cl, Candidate &c) {
  const ModelSummary &m = atDegree(model, c.tp);
  double mb = static_cast<double>(c.microbatches);
  // A rank's share of the batch per micro-batch, padding included.
  double split = batchSplit(m, c);
  double rows = static_cast<double>(m.tokens) / split;
  double hiddenBytes = rows * m.hidden * m.elementBytes;
  // What sp's all-gathers move before a split layer (int8 rows where the
  // layer quantizes them).
  double gatheredBytes = m.gatherElementBytes > 0
                             ? rows * m.hidden * m.gatherElementBytes
                             : hiddenBytes;
  // The slowest stage's share of the program: the balanced grouping of the
  // cut points' segments (dist-pipeline's cuts), else 1/pp. Its layers,
  // collectives and weights are taken in the same proportion.
  double share = 1.0 / c.pp;
  if (c.pp > 1 && !m.segments.empty()) {
    double total = 0;
    for (double f : m.segments)
      total += f;
    if (total > 0)
      share = balancedStageCost(m.segments, c.pp) / total;
  }
  double moePerStage = m.moeLayers * share;
  // The weights of the stage holding the most, in the same grouping.
  double weightShare = share;
  if (c.pp > 1 && m.segmentWeights.size() == m.segments.size() &&
      m.denseWeights + m.expertWeights > 0) {
    std::vector<int64_t> starts = balancedStageStarts(m.segments, c.pp);
    if (!starts.empty()) {
      double most = 0;
      for (size_t g = 0; g < starts.size(); ++g) {
        size_t end = g + 1 < starts.size() ? starts[g + 1] : m.segments.size();
        double sum = 0;
        for (size_t i = starts[g]; i < end; ++i)
          sum += m.segmentWeights[i];
        most = std::max(most, sum);
      }
      weightShare = most / (m.denseWeights + m.expertWeights);
    }
  }

  // The per-layer strategies: what tp splits and what it leaves whole on
  // every rank (the trial's whole weights, and the parts chosen whole).
  bool tpMesh = c.tp > 1;
  double replicated = tpMesh ? static_cast<double>(c.replicatedLayers.size())
                             : 0;
  bool embeddingSplit = tpMesh && !c.embeddingWhole &&
                        m.embeddingWeights > 0 &&
                        m.embeddingRows >= c.tp;
  bool headSplit = tpMesh && !c.headWhole && m.headWeights > 0 &&
                   m.headColumns >= c.tp;
  double wholeWeights = std::min(
      m.denseWeights,
      m.tpReplicatedWeights + replicated * m.layerWeights +
          (embeddingSplit ? 0 : m.embeddingWeights) +
          (headSplit ? 0 : m.headWeights));
  double wholeFlops =
      std::min(m.denseFlops, m.tpWholeFlops + replicated * m.layerFlops +
                                 (headSplit ? 0 : m.headFlops));
  if (!tpMesh)
    wholeWeights = wholeFlops = 0;

  // Compute of one stage on one micro-batch: the dense part split over dp,
  // tp and the stages; the experts over ep, each rank routing its share of
  // the tokens, which dist-partition splits over ep and the axes the MoE
  // leaves idle (tp). Without ep the MoE is replicated over tp (Megatron's
  // seeds do not split it): every tp rank runs all of it. Weights are read
  // once per micro-batch.
  double expertSplit = c.ep > 1 ? c.ep * c.tp : 1;
  double flops =
      ((m.denseFlops - wholeFlops) / c.tp + wholeFlops) * share / split +
      m.expertFlops * share / (split * expertSplit);
  // A vocabulary tp does not divide is padded to a multiple: each rank
  // holds ceil(rows / tp) rows.
  auto padding = [&](bool split, double bytes, int64_t rows) {
    if (!split || rows <= 0)
      return 0.0;
    double perRank = static_cast<double>((rows + c.tp - 1) / c.tp);
    return bytes / static_cast<double>(rows) *
           (perRank - static_cast<double>(rows) / c.tp);
  };
  // Experts ep does not divide fill the slots with copies: each rank holds
  // ceil(E / ep) experts' weights.
  int64_t expertsPerRank = (m.experts + c.ep - 1) / c.ep;
  double expertShare = m.experts > 0 ? static_cast<double>(expertsPerRank) /
                                           static_cast<double>(m.experts)
                                     : 1.0 / c.ep;
  double weights = ((m.denseWeights - wholeWeights) / c.tp + wholeWeights +
                    padding(embeddingSplit, m.embeddingWeights, m.embeddingRows) +
                    padding(headSplit, m.headWeights, m.headColumns) +
                    expertShare * m.expertWeights) *
                   weightShare;
  double compute =
      std::max(flops / cl.peakFlops(m.dtype), weights / cl.memoryBandwidth) +
      cl.launchFloor * static_cast<double>(m.kernels) * share;

  // Communication of one stage on one micro-batch; the mesh is row-major
  // over (dp, pp, ep, tp): tp neighbours, ep tp apart, pp ep*tp apart.
  double comm = 0, arBytes = 0, rsBytes = 0, agBytes = 0, a2aBytes = 0;
  Group tp{c.tp, 1}, ep{c.ep, c.tp};
  if (c.tp > 1) {
    // Two per split layer, one more for a vocab-parallel embedding. The
    // embedding's and the head's collectives belong to the first and the
    // last stage; stages are priced alike, so each stage takes 1/pp of
    // them (a run of one micro-batch counts each once).
    double ends = 1.0 / c.pp;
    double n = 2 * (m.layers - replicated) * share +
               (embeddingSplit ? ends : 0);
    double rs = collectiveTime(cl, Collective::ReduceScatter, Algorithm::Ring,
                               tp, hiddenBytes),
           ag = collectiveTime(cl, Collective::AllGather, Algorithm::Ring, tp,
                               gatheredBytes);
    if (c.sp) {
      comm += n * (rs + ag);
      rsBytes += n * hiddenBytes;
      agBytes += n * gatheredBytes;
      // Replicated layers take the whole hidden state: one all-gather
      // where they begin (the tokens are split again locally after them).
      if (replicated > 0) {
        comm += collectiveTime(cl, Collective::AllGather, Algorithm::Ring, tp,
                               hiddenBytes);
        agBytes += hiddenBytes;
      }
    } else {
      comm += n * allReduceTime(cl, tp, hiddenBytes);
      arBytes += n * hiddenBytes;
    }
    if (headSplit) {
      double logits = m.logitsBytes / split;
      comm += ends * collectiveTime(cl, Collective::AllGather,
                                    Algorithm::Ring, tp, logits);
      agBytes += ends * logits;
    }
  }
  if (c.ep > 1) {
    // Tokens the ranks do not divide are padded: each rank routes
    // ceil(rows / (ep * tp)) of them.
    double perRank = std::ceil(rows / (c.ep * c.tp));
    double sent = perRank * m.topK * m.hidden * m.elementBytes;
    comm += moePerStage *
            (2 * collectiveTime(cl, Collective::AllToAll, Algorithm::Ring, ep,
                                sent) +
             collectiveTime(cl, Collective::AllGather, Algorithm::Ring, tp,
                            hiddenBytes / c.ep) +
             collectiveTime(cl, Collective::AllGather, Algorithm::Ring, ep,
                            hiddenBytes));
    a2aBytes += moePerStage * 2 * sent;
    agBytes += moePerStage * (c.tp > 1 ? 2 : 1) * hiddenBytes;
  }
  double stage = compute + comm;
  double send = c.pp > 1 ? collectiveTime(cl, Collective::SendRecv,
                                          Algorithm::Ring,
                                          Group{c.pp, c.ep * c.tp},
                                          hiddenBytes)
                         : 0;
  std::vector<double> stages(c.pp, stage);
  double gather = collectiveTime(cl, Collective::AllGather, Algorithm::Ring,
                                 Group{c.dp, c.pp * c.ep * c.tp},
                                 m.outputBytes);
  c.stageCompute = compute;
  c.stageComm = comm;
  c.sendTime = send;
  c.gatherTime = gather;
  c.latency = pipelineMakespan(stages, c.microbatches, send) + gather;
  c.throughput = m.batch / (mb * (stage + send) + gather);

  c.memory.weights = weights;
  c.memory.runtime = c.dp * c.pp * c.ep * c.tp == 1 && cl.runtimeBytesOneRank > 0
                         ? cl.runtimeBytesOneRank
                         : cl.runtimeBytes;
  // The runtime's buffers for the inputs every rank reads and the outputs
  // (whole after their gather), the most a rank holds.
  c.memory.io = m.inputBytes + m.outputBytes;
  // The memory plan's arena: the most bytes live at once, read off the
  // trial's program. Without it, about two of the largest tensors (an op's
  // input and output); without a trial split (peakActivationSplit and
  // peakActivationWhole 0) every tensor is taken to divide by tp.
  if (!m.liveWhole.empty() && m.liveWhole.size() == m.liveSplit.size()) {
    // A split output's staging; over dp too, the tp-gathered part is a
    // temporary of its own before the dp gather.
    double staging = c.tp == 1 ? 0 : c.dp > 1 ? 2 : 1;
    double live = 0;
    for (size_t i = 0; i < m.liveWhole.size(); ++i)
      live = std::max(live, m.liveWhole[i] + m.liveSplit[i] / c.tp +
                                (i < m.liveGathered.size()
                                     ? staging * m.liveGathered[i]
                                     : 0));
    c.memory.activations = live / split;
  } else {
    double peak = m.peakActivationSplit > 0 || m.peakActivationWhole > 0
                      ? std::max(m.peakActivationSplit / c.tp,
                                 m.peakActivationWhole)
                      : m.peakActivation / c.tp;
    c.memory.activations = 2 * peak / split;
  }
  if (c.ep > 1) // the dispatch's worst-case receive buffer and staging
    c.memory.workspace = 2 * c.ep * std::ceil(rows / (c.ep * c.tp)) *
                         std::min<int64_t>(m.topK, expertsPerRank) *
                         m.hidden * m.elementBytes;
  auto add = [&](const char *kind, double perStage) {
    if (perStage > 0)
      c.traffic.emplace_back(kind, perStage * mb);
  };
  add("all_reduce", arBytes);
  add("reduce_scatter", rsBytes);
  add("all_gather", agBytes);
  add("all_to_all", a2aBytes);
  add("send", c.pp > 1 ? hiddenBytes : 0);
  if (c.dp > 1) // the outputs, gathered once per run
    c.traffic.emplace_back("all_gather (outputs)", m.outputBytes);
}

} // namespace

Candidate shardc::planner::evaluatePlan(const ModelSummary &m,
                                        const Cluster &cl, Candidate c) {
  c.rejected = reject(m, c);
  if (!c.rejected.empty())
    return c;
  price(m, cl, c);
  // dist-seed-megatron leaves attention whose heads tp does not divide
  // whole on every rank (the price counts it through the degree's trial).
  if (c.tp > 1 && m.heads > 0 && m.heads % c.tp != 0)
    c.strategyNotes.push_back(
        formatv("attention whole on every rank: {0} heads do not divide by "
                "tp={1}",
                m.heads, c.tp));
  double excess = memoryExcess(cl, c.memory);
  if (excess > 0)
    c.rejected = "does not fit: needs " + formatBytes(c.memory.total()) +
                 " per rank, " + formatBytes(excess) + " over";
  return c;
}

Candidate shardc::planner::chooseLayerStrategies(const ModelSummary &m,
                                                 const Cluster &cl,
                                                 Candidate family) {
  family.embeddingWhole = family.headWhole = false;
  family.replicatedLayers.clear();
  family.strategyNotes.clear();
  Candidate split = evaluatePlan(m, cl, family);
  if (family.tp == 1 || !reject(m, family).empty())
    return split;
  const ModelSummary &d = atDegree(m, family.tp);
  bool embeddingOption =
      d.embeddingWeights > 0 && d.embeddingRows >= family.tp;
  bool headOption = d.headWeights > 0 && d.headColumns >= family.tp;
  int64_t layers = family.pp == 1 && (d.layerFlops > 0 || d.layerWeights > 0)
                       ? m.layers
                       : 0;
  auto with = [&](bool embeddingWhole, bool headWhole, int64_t k) {
    Candidate c = family;
    c.embeddingWhole = embeddingWhole;
    c.headWhole = headWhole;
    for (int64_t l = m.layers - k; l < m.layers; ++l)
      c.replicatedLayers.push_back(l);
    return evaluatePlan(m, cl, c);
  };
  auto stage = [](const Candidate &c) { return c.stageCompute + c.stageComm; };
  // Evaluated in order, the first of equal times kept: Megatron's splits
  // win ties (less memory).
  Candidate best = split;
  bool found = split.rejected.empty();
  for (bool e : {false, true})
    for (bool h : {false, true}) {
      if ((e && !embeddingOption) || (h && !headOption))
        continue;
      Candidate none = e || h ? with(e, h, 0) : split;
      std::vector<Candidate> tried = {none};
      if (layers > 0) {
        tried.push_back(with(e, h, layers));
        // Memory is linear in k: the largest k that fits.
        Candidate one = with(e, h, 1);
        double perLayer = one.memory.total() - none.memory.total();
        if (perLayer > 0) {
          double room = cl.memoryBytes - none.memory.total();
          int64_t fit = static_cast<int64_t>(std::floor(room / perLayer));
          if (fit > 0 && fit < layers)
            tried.push_back(fit == 1 ? one : with(e, h, fit));
        }
      }
      for (const Candidate &c : tried) {
        if (!c.rejected.empty())
          continue;
        if (!found || stage(c) < stage(best) * (1 - 1e-9)) {
          best = c;
          found = true;
        }
      }
    }
  if (!found)
    return split;

  // Each part's alternative, priced.
  auto note = [&](const std::string &chosen, const std::string &other,
                  const Candidate &alt) {
    std::string line = chosen + "; " + other;
    if (!alt.rejected.empty()) {
      best.strategyNotes.push_back(line + " does not fit");
      return;
    }
    double dt = alt.latency - best.latency,
           dm = alt.memory.total() - best.memory.total();
    line += formatv(" would take {0} {1} per run and {2} {3} per rank",
                    formatSeconds(std::abs(dt)), dt >= 0 ? "more" : "less",
                    formatBytes(std::abs(dm)), dm >= 0 ? "more" : "less");
    best.strategyNotes.push_back(line);
  };
  int64_t k = static_cast<int64_t>(best.replicatedLayers.size());
  if (embeddingOption)
    note(best.embeddingWhole ? "embedding whole" : "embedding vocab-parallel",
         best.embeddingWhole ? "vocab-parallel" : "whole",
         with(!best.embeddingWhole, best.headWhole, k));
  if (layers > 0) {
    std::string chosen =
        k == 0 ? "every layer split by heads and columns"
        : k == layers
            ? "every layer replicated"
        : k == 1 ? formatv("layer {0} replicated, the others split",
                           layers - 1)
                       .str()
                 : formatv("layers {0}-{1} replicated, the others split",
                           layers - k, layers - 1)
                       .str();
    int64_t otherK = k == 0 ? layers : 0;
    note(chosen,
         otherK == 0 ? "splitting every layer" : "replicating every layer",
         with(best.embeddingWhole, best.headWhole, otherK));
  }
  if (headOption)
    note(best.headWhole ? "head whole" : "head column-parallel",
         best.headWhole ? "column-parallel" : "whole",
         with(best.embeddingWhole, !best.headWhole, k));
  return best;
}

SearchResult shardc::planner::searchPlans(const ModelSummary &m,
                                          const Cluster &cl, int64_t devices,
                                          Objective objective) {
  SearchResult result;
  for (int64_t dp : divisors(devices))
    for (int64_t pp : divisors(devices / dp))
      for (int64_t ep : divisors(devices / (dp * pp))) {
        int64_t tp = devices / (dp * pp * ep);
        // Micro-batches need not divide the batch (dist-pad-batch): any
        // count up to the batch, the few smallest and the divisors.
        std::vector<int64_t> counts = {1};
        if (pp > 1)
          for (int64_t mb = 2; mb <= m.batch; ++mb)
            if (mb <= 8 || m.batch % mb == 0)
              counts.push_back(mb);
        for (bool sp : {false, true}) {
          if (sp && tp == 1)
            continue;
          for (int64_t mb : counts) {
            Candidate plan;
            plan.dp = dp;
            plan.pp = pp;
            plan.ep = ep;
            plan.tp = tp;
            plan.sp = sp;
            plan.microbatches = mb;
            Candidate c = chooseLayerStrategies(m, cl, plan);
            (c.rejected.empty() ? result.ranked : result.rejected)
                .push_back(c);
          }
        }
      }
  auto key = [&](const Candidate &c) {
    double value = objective == Objective::Latency ? c.latency
                                                   : -c.throughput;
    return std::make_tuple(value, c.tp * c.ep * c.pp, c.name());
  };
  std::stable_sort(result.ranked.begin(), result.ranked.end(),
                   [&](const Candidate &a, const Candidate &b) {
                     return key(a) < key(b);
                   });
  return result;
}
