//===- Cluster.cpp - cluster presets and JSON specs -----------------------===//
//
// The GPU presets are the vendors' dense peak rates and nominal link rates
// per direction (NVIDIA's A100, H100 SXM5 and H200 datasheets; NVLink 3/4 at
// 600/900 GB/s both ways, one 200/400 Gb/s InfiniBand NIC per GPU). The
// latencies are typical NCCL per-step figures, not measurements; the `cpu`
// preset is this machine's order of magnitude until `shardc
// --calibrate-cluster` measures it.
//
//===----------------------------------------------------------------------===//

#include "shardc/Planner/Cluster.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace shardc::planner;

double Cluster::peakFlops(StringRef dtype) const {
  auto it = flops.find(dtype.str());
  if (it != flops.end())
    return it->second;
  auto fp32 = flops.find("fp32");
  return fp32 != flops.end() ? fp32->second : 0;
}

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Cluster gpu(StringRef name, double fp32, double tf32, double half,
            double memory, double bandwidth, double nvlink, double nic) {
  Cluster c;
  c.name = name.str();
  c.devicesPerNode = 8;
  c.flops = {{"fp32", fp32}, {"tf32", tf32}, {"fp16", half},
             {"bf16", half}, {"int8", 2 * half}};
  c.memoryBytes = memory;
  c.memoryBandwidth = bandwidth;
  c.intraNode = {nvlink, 3e-6};
  c.interNode = {nic, 6e-6};
  c.launchFloor = 4e-6;
  // Typical, not measured: a CUDA 12 context (~0.5 GiB with lazy loading),
  // cuBLASLt's workspace and NCCL's channel buffers.
  c.runtimeBytes = kGiB;
  return c;
}

std::optional<Cluster> singleNode(StringRef name) {
  if (name == "cpu") {
    Cluster c;
    c.name = "cpu";
    c.devicesPerNode = 2; // one rank per core
    c.flops = {{"fp32", 80e9}, {"fp16", 40e9}, {"bf16", 40e9}};
    c.memoryBytes = 12 * kGiB;
    c.memoryBandwidth = 10e9;
    c.intraNode = {5e9, 1e-6};    // MPI over shared memory
    c.interNode = {1.25e9, 30e-6}; // TCP over 10 GbE
    c.launchFloor = 1e-6;
    c.runtimeBytes = 64 * 1024 * 1024; // MPI, oneDNN, the C++ runtime
    return c;
  }
  if (name == "a100-80g-8")
    return gpu(name, 19.5e12, 156e12, 312e12, 80 * kGiB, 2.039e12, 300e9,
               25e9);
  if (name == "h100-sxm-8")
    return gpu(name, 67e12, 494.7e12, 989.4e12, 80 * kGiB, 3.35e12, 450e9,
               50e9);
  if (name == "h200-8")
    return gpu(name, 67e12, 494.7e12, 989.4e12, 141e9, 4.8e12, 450e9, 50e9);
  return std::nullopt;
}

} // namespace

ArrayRef<StringRef> shardc::planner::presetNames() {
  static const StringRef kNames[] = {"cpu", "a100-80g-8", "h100-sxm-8",
                                     "h200-8"};
  return kNames;
}

std::optional<Cluster> shardc::planner::presetCluster(StringRef name) {
  if (std::optional<Cluster> c = singleNode(name))
    return c;
  // "<preset>x<N>": N nodes.
  size_t x = name.rfind('x');
  unsigned long long nodes = 0;
  if (x == StringRef::npos || name.substr(x + 1).getAsInteger(10, nodes) ||
      nodes < 1 || nodes > 65536)
    return std::nullopt;
  std::optional<Cluster> c = singleNode(name.substr(0, x));
  if (!c)
    return std::nullopt;
  c->name = name.str();
  c->nodes = static_cast<int64_t>(nodes);
  return c;
}

Expected<Cluster> shardc::planner::parseCluster(StringRef text) {
  auto fail = [](const Twine &why) -> Expected<Cluster> {
    return createStringError(inconvertibleErrorCode(),
                             "cluster spec: " + why);
  };
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return fail(toString(value.takeError()));
  const json::Object *o = value->getAsObject();
  if (!o)
    return fail("expected a JSON object");
  Cluster c;
  if (std::optional<StringRef> name = o->getString("name"))
    c.name = name->str();
  auto positive = [&](StringRef key, double &out, bool integer) -> bool {
    const json::Value *v = o->get(key);
    std::optional<double> d = v ? v->getAsNumber() : std::nullopt;
    if (!d || *d <= 0 || (integer && *d != static_cast<int64_t>(*d)))
      return false;
    out = *d;
    return true;
  };
  double perNode = 0, nodes = 0;
  if (!positive("devices_per_node", perNode, true))
    return fail("'devices_per_node' must be a positive integer");
  if (!positive("nodes", nodes, true))
    return fail("'nodes' must be a positive integer");
  c.devicesPerNode = static_cast<int64_t>(perNode);
  c.nodes = static_cast<int64_t>(nodes);
  if (!positive("memory_bytes", c.memoryBytes, false))
    return fail("'memory_bytes' must be a positive number");
  if (!positive("memory_bandwidth", c.memoryBandwidth, false))
    return fail("'memory_bandwidth' must be a positive number (bytes/s)");
  const json::Object *flops = o->getObject("flops");
  if (!flops || !flops->get("fp32"))
    return fail("'flops' must give at least \"fp32\" (FLOP/s)");
  for (const auto &[key, v] : *flops) {
    std::optional<double> d = v.getAsNumber();
    if (!d || *d <= 0)
      return fail("'flops." + key.str() + "' must be a positive number");
    c.flops[key.str()] = *d;
  }
  for (auto [key, link] : {std::pair<StringRef, Link *>{"intra_node", &c.intraNode},
                           {"inter_node", &c.interNode}}) {
    const json::Object *l = o->getObject(key);
    std::optional<double> bw = l ? l->getNumber("bandwidth") : std::nullopt;
    std::optional<double> lat = l ? l->getNumber("latency") : std::nullopt;
    if (!bw || *bw <= 0 || !lat || *lat < 0)
      return fail("'" + key + "' must give a positive \"bandwidth\" (bytes/s) "
                  "and a \"latency\" (s)");
    *link = {*bw, *lat};
  }
  if (const json::Value *v = o->get("launch_floor")) {
    std::optional<double> d = v->getAsNumber();
    if (!d || *d < 0)
      return fail("'launch_floor' must be a number of seconds");
    c.launchFloor = *d;
  }
  for (auto [key, field] :
       {std::pair{"runtime_bytes", &c.runtimeBytes},
        std::pair{"runtime_bytes_one_rank", &c.runtimeBytesOneRank}})
    if (const json::Value *v = o->get(key)) {
      std::optional<double> d = v->getAsNumber();
      if (!d || *d < 0)
        return fail("'" + Twine(key) + "' must be a number of bytes");
      *field = *d;
    }
  return c;
}

Expected<Cluster> shardc::planner::loadCluster(StringRef nameOrPath) {
  if (std::optional<Cluster> c = presetCluster(nameOrPath))
    return *c;
  ErrorOr<std::unique_ptr<MemoryBuffer>> buf =
      MemoryBuffer::getFile(nameOrPath);
  if (!buf) {
    std::string names;
    for (StringRef n : presetNames())
      names += (names.empty() ? "" : ", ") + n.str();
    return createStringError(inconvertibleErrorCode(),
                             "--cluster=" + nameOrPath +
                                 ": neither a preset (" + names +
                                 ", or <preset>x<nodes>) nor a readable "
                                 "JSON file");
  }
  Expected<Cluster> c = parseCluster((*buf)->getBuffer());
  if (!c)
    return createStringError(inconvertibleErrorCode(),
                             nameOrPath + ": " + toString(c.takeError()));
  if (c->name.empty())
    c->name = nameOrPath.str();
  return c;
}

std::string shardc::planner::toJson(const Cluster &c) {
  json::Object flops;
  for (const auto &[k, v] : c.flops)
    flops[k] = v;
  json::Object o{
      {"name", c.name},
      {"devices_per_node", c.devicesPerNode},
      {"nodes", c.nodes},
      {"flops", std::move(flops)},
      {"memory_bytes", c.memoryBytes},
      {"memory_bandwidth", c.memoryBandwidth},
      {"intra_node",
       json::Object{{"bandwidth", c.intraNode.bandwidth},
                    {"latency", c.intraNode.latency}}},
      {"inter_node",
       json::Object{{"bandwidth", c.interNode.bandwidth},
                    {"latency", c.interNode.latency}}},
      {"launch_floor", c.launchFloor},
      {"runtime_bytes", c.runtimeBytes},
      {"runtime_bytes_one_rank", c.runtimeBytesOneRank},
  };
  std::string out;
  raw_string_ostream os(out);
  os << formatv("{0:2}", json::Value(std::move(o)));
  return out;
}
