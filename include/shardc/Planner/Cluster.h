//===- Cluster.h - the machines a plan is made for ---------------*- C++ -*-===//
//
// A cluster spec: nodes of identical devices, each device's peak rate per
// element type, memory and memory bandwidth, and the links inside a node and
// between nodes (bandwidth per direction per device, latency). The planner's
// cost model (CostModel.h) prices compute, memory traffic and collectives
// with it. Presets (`cpu`, `a100-80g-8`, `h100-sxm-8`, `h200-8`, and
// `<preset>x<N>` for N such nodes) or a JSON file of the same fields
// (`toJson` writes one). No MLIR: unit-tested alone
// (unittests/Planner).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_PLANNER_CLUSTER_H
#define SHARDC_PLANNER_CLUSTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace shardc::planner {

/// A link's bandwidth (bytes/s, per direction, per device) and latency (s).
struct Link {
  double bandwidth = 0;
  double latency = 0;
};

struct Cluster {
  std::string name;
  int64_t devicesPerNode = 1;
  int64_t nodes = 1;
  /// Peak rate (FLOP/s, dense) per element type: "fp32", "tf32", "fp16",
  /// "bf16", "int8". A type without an entry runs at the fp32 rate.
  std::map<std::string, double> flops;
  double memoryBytes = 0;     ///< per device
  double memoryBandwidth = 0; ///< bytes/s per device
  Link intraNode, interNode;
  /// The least time any kernel takes (launch and synchronization), s.
  double launchFloor = 0;
  /// What every rank holds besides its weights, activations and
  /// workspaces: loaded libraries, a CUDA context and its handles, bytes.
  double runtimeBytes = 0;
  /// The same for a program of one rank, which loads no MPI or NCCL (0:
  /// runtimeBytes).
  double runtimeBytesOneRank = 0;

  int64_t devices() const { return devicesPerNode * nodes; }
  /// The peak rate of `dtype` (fp32's if the spec has none for it).
  double peakFlops(llvm::StringRef dtype) const;
};

/// A preset by name: "cpu" (this kind of machine: the defaults that
/// `shardc --calibrate-cluster` replaces by measurements), "a100-80g-8",
/// "h100-sxm-8", "h200-8"; "<preset>x<N>" is N such nodes. None for an
/// unknown name.
std::optional<Cluster> presetCluster(llvm::StringRef name);
/// The names `presetCluster` knows (single-node forms).
llvm::ArrayRef<llvm::StringRef> presetNames();

/// A spec from JSON text (the fields of Cluster; `toJson` writes them).
/// Errors name the field ("cluster spec: 'nodes' must be a positive
/// integer").
llvm::Expected<Cluster> parseCluster(llvm::StringRef json);
/// A preset name, or else a JSON file.
llvm::Expected<Cluster> loadCluster(llvm::StringRef nameOrPath);
std::string toJson(const Cluster &c);

} // namespace shardc::planner

#endif // SHARDC_PLANNER_CLUSTER_H
