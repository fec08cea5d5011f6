//===- CostModel.h - time and memory of a plan -------------------*- C++ -*-===//
//
// The planner's estimates, in seconds and bytes, on a Cluster:
//
//   compute      roofline: max(flops / peak(dtype), bytes / memory
//                bandwidth, launch floor) per kernel;
//   collectives  alpha-beta per algorithm (Thakur, Rabenseifner and Gropp
//                2005; NCCL's documented algorithms) on the link the group
//                spans: with p ranks, latency a and bandwidth B,
//                  ring all-reduce     2(p-1) a + 2 (p-1)/p n / B
//                  tree all-reduce     2 ceil(log2 p) a + 2 n / B
//                  all-gather (ring)   (p-1) a + (p-1)/p n / B
//                  reduce-scatter      (p-1) a + (p-1)/p n / B
//                  all-to-all          (p-1) a + (p-1)/p n / B   (pairwise)
//                  send / recv         a + n / B
//                where n is the all-reduced tensor, the gathered result,
//                the scattered input, or what each rank sends in all;
//   pipelines    fill and drain over the stages' times;
//   memory       weights + peak activations + workspace + the runtime's
//                libraries + the program's inputs and outputs per rank,
//                against the device's memory.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PLANNER_COSTMODEL_H
#define SHARDC_PLANNER_COSTMODEL_H

#include "shardc/Planner/Cluster.h"

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace shardc::planner {

/// One kernel: `flops` of `dtype` reading and writing `bytes`.
double kernelTime(const Cluster &c, double flops, double bytes,
                  llvm::StringRef dtype);

enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };
enum class Algorithm { Ring, Tree };

/// The ranks of a group: `size` ranks `stride` apart in the row-major
/// numbering (the inner mesh axes' product), aligned to a multiple of
/// size * stride; nodes hold consecutive ranks.
struct Group {
  int64_t size = 1;
  int64_t stride = 1;
};

/// Whether the group stays inside one node, and the link it uses: the
/// inter-node one as soon as it spans two nodes.
bool withinNode(const Cluster &c, Group g);
Link linkOf(const Cluster &c, Group g);

/// The time of one collective moving `bytes` (see the header comment for
/// what `bytes` counts) by `algo` (Tree applies to all-reduce only; the
/// others are ring or pairwise). Zero for a group of one.
double collectiveTime(const Cluster &c, Collective kind, Algorithm algo,
                      Group g, double bytes);
/// All-reduce by the faster of ring and tree (as NCCL chooses by size).
double allReduceTime(const Cluster &c, Group g, double bytes);

/// A fill-and-drain pipeline: stage s starts micro-batch k when it has
/// finished k-1 and stage s-1 has sent k (taking `sendTime`). Returns the
/// makespan of `microbatches` micro-batches over the stages' times.
double pipelineMakespan(llvm::ArrayRef<double> stageTimes,
                        int64_t microbatches, double sendTime);
/// The most expensive stage when `segments` (costs between the points
/// where a pipeline may cut, in order) are grouped into `stages` contiguous
/// stages as evenly as possible: the least possible maximum, as
/// dist-pipeline's cuts achieve. 0 when there are fewer segments than
/// stages.
double balancedStageCost(llvm::ArrayRef<double> segments, int64_t stages);

/// The first segment of each of the `stages` groups of that grouping: the
/// balanced maximum, reached greedily, with every stage given at least one
/// segment. Empty when there are fewer segments than stages.
std::vector<int64_t> balancedStageStarts(llvm::ArrayRef<double> segments,
                                         int64_t stages);

/// The start time of every (stage, micro-batch) in that schedule:
/// result[s][k].
std::vector<std::vector<double>>
pipelineStarts(llvm::ArrayRef<double> stageTimes, int64_t microbatches,
               double sendTime);
/// The idle fraction of that makespan: 1 - (busy time of all stages) /
/// (stages * makespan); (p-1)/(m+p-1) for equal stages and free sends.
double pipelineBubble(llvm::ArrayRef<double> stageTimes, int64_t microbatches,
                      double sendTime);

struct MemoryEstimate {
  double weights = 0;     ///< this rank's weights
  double activations = 0; ///< the peak of live activations (memory plan)
  double workspace = 0;   ///< library workspaces, communication buffers
  double runtime = 0;     ///< libraries and contexts (Cluster::runtimeBytes)
  double io = 0; ///< the program's inputs and outputs, beside the arena
  double total() const {
    return weights + activations + workspace + runtime + io;
  }
};
/// How many bytes `m` exceeds a device's memory by (<= 0: it fits).
double memoryExcess(const Cluster &c, const MemoryEstimate &m);

} // namespace shardc::planner

#endif // SHARDC_PLANNER_COSTMODEL_H
