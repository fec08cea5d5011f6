//===- Search.h - choosing the mesh ------------------------------*- C++ -*-===//
//
// `shardc --devices=N --cluster=SPEC`: every factorization of N into
// dp x pp x ep x tp (with and without sequence parallelism on tp) and every
// micro-batch count that divides the batch is priced by the cost model
// (CostModel.h) on a summary of the model, and the best by the objective
// is compiled. Families the model cannot take are rejected with their
// reason (heads or experts that do not divide, a batch too small, memory
// that does not fit); the others are ranked.
//
// The estimate follows what the partitioner makes of each family
// (docs/design.md, Partitioning): Megatron's two all-reduces of the hidden
// state per layer over tp (a reduce-scatter and an all-gather each with
// sp), one more for a vocab-parallel embedding and an all-gather of the
// logits for a column-parallel head (each part may instead stay whole,
// chooseLayerStrategies), the attention and dense parts replicated over ep with each rank's
// share of the tokens dispatched to the experts by two all-to-alls and
// gathered back, one send of the hidden state per stage boundary, and the
// outputs gathered over dp.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PLANNER_SEARCH_H
#define SHARDC_PLANNER_SEARCH_H

#include "shardc/Planner/CostModel.h"

#include <string>
#include <vector>

namespace shardc::planner {

/// What the search needs of a model (tools/shardc reads it off the graph).
struct ModelSummary {
  std::string dtype = "fp32";
  double elementBytes = 4;
  /// Bytes per element of the hidden state each split layer all-gathers
  /// under sp: 1 where the layers' projections are int8 (the elementwise
  /// quantization propagates before the gather, which then moves int8),
  /// plus a dynamic scheme's f32 scale per row; 0: elementBytes.
  double gatherElementBytes = 0;
  int64_t batch = 1;   ///< the inputs' leading dim
  int64_t tokens = 1;  ///< rows of the hidden state (batch x sequence)
  int64_t hidden = 1;  ///< its width
  int64_t layers = 1;  ///< transformer layers (attention ops)
  int64_t heads = 0;   ///< attention heads (0: no attention)
  int64_t experts = 0; ///< experts of the MoE layers (0: dense)
  int64_t topK = 0;
  int64_t moeLayers = 0;
  double denseFlops = 0;   ///< per run, everything but the experts
  double expertFlops = 0;  ///< per run, the MoE layers' experts
  double denseWeights = 0; ///< bytes
  double expertWeights = 0;
  double outputBytes = 0;     ///< the program's outputs
  double inputBytes = 0;      ///< the program's inputs
  double peakActivation = 0;  ///< the largest intermediate tensor, bytes
  /// What a Megatron split over tp leaves whole on every rank (read off a
  /// trial propagation): dense weights such as norms, position embeddings
  /// and row-parallel biases, and the largest intermediate it does not
  /// split (the residual stream, gathered logits). The others divide by
  /// tp; `peakActivationSplit` is the largest of those, whole.
  double tpReplicatedWeights = 0;
  /// The dense FLOPs the same trial leaves whole on every rank (norms and
  /// residual adds, attention whose heads tp does not divide). Weights and
  /// FLOPs a trial adds (the copies of KV heads for more ranks than KV
  /// heads) count here and above as the whole share with the same cost per
  /// rank: x / (tp - 1) for x added.
  double tpWholeFlops = 0;
  /// The tp degree of the trial these figures come from (0: none), and its
  /// error when dist-seed-megatron refuses that degree.
  int64_t trialTp = 0;
  std::string trialError;
  /// The same model with the trial run at other degrees: a candidate of
  /// tp t is priced from the one whose trialTp is t, where there is one
  /// (the figures of the degree being priced), else from this one.
  std::vector<ModelSummary> atDegrees;
  double peakActivationWhole = 0;
  double peakActivationSplit = 0;
  /// Bytes of intermediates live after each op of the program in order (a
  /// tensor from its op to its last reader, as the memory plan places
  /// them), whole and split by the trial apart: a rank at degree tp holds
  /// max over ops of whole + split / tp (+ gathered with tp > 1: the whole
  /// staging buffer of a split output's all-gather). Empty: no trial (the
  /// search then takes twice the largest tensor).
  std::vector<double> liveWhole, liveSplit, liveGathered;
  /// The per-layer options' sizes, from the same trial (0 where the trial
  /// did not split the part): the embedding table the seeds split by rows
  /// (vocab-parallel) and its row count; the LM head's weight they split
  /// by columns, its column count, FLOPs and logits (bytes per run); one
  /// transformer layer's share of the dense FLOPs and of the weights tp
  /// splits (the layers taken as equal; the experts are ep's).
  double embeddingWeights = 0;
  int64_t embeddingRows = 0;
  double headWeights = 0, headFlops = 0, logitsBytes = 0;
  int64_t headColumns = 0;
  double layerFlops = 0, layerWeights = 0;
  int64_t kernels = 1;        ///< kernels per run (launch floors)
  /// FLOPs between the points where dist-pipeline may cut, in program
  /// order (embedding and head included); empty: `layers` equal stages'
  /// worth. A pipeline's slowest stage is the balanced grouping's largest.
  std::vector<double> segments;
  /// The weights each segment's ops read (a constant read by two segments
  /// counts in both: each stage holds its copy). A pipeline rank holds its
  /// stage's; without them, its FLOPs share of all weights.
  std::vector<double> segmentWeights;
};

enum class Objective { Latency, Throughput };

struct Candidate {
  int64_t dp = 1, pp = 1, ep = 1, tp = 1, microbatches = 1;
  bool sp = false;
  /// Per-layer strategies on tp (Megatron's by default): the embedding
  /// whole instead of vocab-parallel, the LM head whole instead of
  /// column-parallel, and layers (by attention, from 0) replicated instead
  /// of split by heads and columns.
  bool embeddingWhole = false, headWhole = false;
  std::vector<int64_t> replicatedLayers;
  /// Why the search chose the per-layer strategies it did: each part's
  /// alternative with its cost in time and memory (report lines).
  std::vector<std::string> strategyNotes;
  double latency = 0;    ///< s per run (fill and drain)
  double throughput = 0; ///< rows of the batch per second, pipeline full
  /// One stage's time on one micro-batch (compute: kernels; comm: the tp
  /// and ep collectives inside it), one stage-to-stage send, and the
  /// gather of the outputs over dp after the last micro-batch: what the
  /// timeline (PlanSvg.h) draws.
  double stageCompute = 0, stageComm = 0, sendTime = 0, gatherTime = 0;
  MemoryEstimate memory; ///< per rank
  /// Bytes each rank moves per run, by collective ("all_reduce", ...).
  std::vector<std::pair<std::string, double>> traffic;
  std::string rejected; ///< why the family cannot run (empty: it can)

  std::string name() const;
};

struct SearchResult {
  std::vector<Candidate> ranked;   ///< best first
  std::vector<Candidate> rejected; ///< with their reasons
};

/// Bytes as "1.5 GiB", "12.0 MiB", "3.2 KiB" or "100 B"; seconds as
/// "1.250 s", "3.400 ms" or "12.0 us": the report's and pictures' units.
std::string formatBytes(double bytes);
std::string formatSeconds(double seconds);

/// `plan`'s degrees priced on `cluster` for `model`: its estimates filled
/// in, or `rejected` set to why it cannot run (heads or experts that do not
/// divide, a batch too small, memory that does not fit).
Candidate evaluatePlan(const ModelSummary &model, const Cluster &cluster,
                       Candidate plan);

/// `family`'s degrees with the per-layer strategies that make its stage
/// fastest among those that fit (the embedding and the head whole or
/// split, the last k layers replicated), priced, with `strategyNotes`.
/// Layers are equal in the model summary, so a stage's time and memory
/// are linear in k: the best k is 0, or the largest that fits, or every
/// layer, and only those are priced (no replicated layers with pp > 1,
/// where they would all land in the last stage).
Candidate chooseLayerStrategies(const ModelSummary &model,
                                const Cluster &cluster, Candidate family);

/// All families of `devices` on `cluster` for `model`, ranked by
/// `objective` (ties: fewer ranks per group first, then the name), so the
/// same inputs always give the same order.
SearchResult searchPlans(const ModelSummary &model, const Cluster &cluster,
                         int64_t devices, Objective objective);

} // namespace shardc::planner

#endif // SHARDC_PLANNER_SEARCH_H
