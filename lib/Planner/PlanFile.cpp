//===- PlanFile.cpp - plans as JSON ---------------------------------------===//

#include "shardc/Planner/PlanFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace shardc::planner;

namespace {

json::Object degrees(const Candidate &c) {
  json::Array layers;
  for (int64_t l : c.replicatedLayers)
    layers.push_back(l);
  return json::Object{{"dp", c.dp},
                      {"pp", c.pp},
                      {"ep", c.ep},
                      {"tp", c.tp},
                      {"sp", c.sp},
                      {"microbatches", c.microbatches},
                      {"embedding", c.embeddingWhole ? "whole" : "vocab"},
                      {"head", c.headWhole ? "whole" : "column"},
                      {"replicated_layers", std::move(layers)}};
}

json::Object estimate(const Candidate &c) {
  json::Object o = degrees(c);
  o["name"] = c.name();
  if (!c.rejected.empty()) {
    o["rejected"] = c.rejected;
    return o;
  }
  json::Object traffic;
  for (auto &[kind, bytes] : c.traffic)
    traffic[kind] = bytes;
  o["latency_s"] = c.latency;
  o["throughput_rows_per_s"] = c.throughput;
  o["memory_per_rank_bytes"] =
      json::Object{{"weights", c.memory.weights},
                   {"activations", c.memory.activations},
                   {"workspace", c.memory.workspace},
                   {"runtime", c.memory.runtime},
                   {"io", c.memory.io},
                   {"total", c.memory.total()}};
  o["collective_bytes_per_rank"] = std::move(traffic);
  if (!c.strategyNotes.empty()) {
    json::Array notes;
    for (const std::string &n : c.strategyNotes)
      notes.push_back(n);
    o["per_layer"] = std::move(notes);
  }
  return o;
}

} // namespace

void shardc::planner::writePlanFile(raw_ostream &os, const ModelSummary &m,
                                    const Cluster &cluster, int64_t devices,
                                    Objective objective,
                                    const SearchResult &result) {
  json::Array ranked, rejected;
  for (const Candidate &c : result.ranked)
    ranked.push_back(estimate(c));
  for (const Candidate &c : result.rejected)
    rejected.push_back(estimate(c));
  json::Object o{
      {"shardc_plan", 1},
      {"cluster", cluster.name},
      {"devices", devices},
      {"optimize",
       objective == Objective::Latency ? "latency" : "throughput"},
      {"model", json::Object{{"dtype", m.dtype},
                             {"batch", m.batch},
                             {"tokens", m.tokens},
                             {"hidden", m.hidden},
                             {"layers", m.layers},
                             {"heads", m.heads},
                             {"experts", m.experts},
                             {"top_k", m.topK},
                             {"flops", m.denseFlops + m.expertFlops},
                             {"weight_bytes",
                              m.denseWeights + m.expertWeights}}},
      {"candidates", std::move(ranked)},
      {"rejected", std::move(rejected)}};
  if (!result.ranked.empty())
    o["plan"] = degrees(result.ranked.front());
  os << formatv("{0:2}", json::Value(std::move(o))) << "\n";
}

Expected<PlanChoice> shardc::planner::readPlanFile(StringRef path) {
  auto fail = [&](const Twine &msg) {
    return createStringError(inconvertibleErrorCode(),
                             path + ": " + msg);
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read the plan (" + buffer.getError().message() + ")");
  Expected<json::Value> value = json::parse((*buffer)->getBuffer());
  if (!value)
    return fail("not valid JSON (" + toString(value.takeError()) + ")");
  const json::Object *o = value->getAsObject();
  if (!o)
    return fail("a plan file is a JSON object");
  const json::Object *plan = o->getObject("plan");
  if (!plan)
    return fail("no \"plan\" object (shardc --devices=N --emit=plan -o FILE "
                "writes one beside FILE)");
  PlanChoice choice;
  if (const json::Value *c = o->get("cluster")) {
    std::optional<StringRef> s = c->getAsString();
    if (!s)
      return fail("\"cluster\" must be a string");
    choice.cluster = s->str();
  }
  Candidate &p = choice.plan;
  for (auto &[key, v] : *plan) {
    StringRef k = key;
    if (k == "sp") {
      std::optional<bool> b = v.getAsBoolean();
      if (!b)
        return fail("plan.sp must be true or false");
      p.sp = *b;
      continue;
    }
    if (k == "embedding" || k == "head") {
      std::optional<StringRef> str = v.getAsString();
      StringRef split = k == "embedding" ? "vocab" : "column";
      if (!str || (*str != split && *str != "whole"))
        return fail("plan." + k + " must be \"" + split + "\" or \"whole\"");
      (k == "embedding" ? p.embeddingWhole : p.headWhole) = *str == "whole";
      continue;
    }
    if (k == "replicated_layers") {
      const json::Array *layers = v.getAsArray();
      if (!layers)
        return fail("plan.replicated_layers must be a list of layer numbers");
      for (const json::Value &l : *layers) {
        std::optional<int64_t> n = l.getAsInteger();
        if (!n || *n < 0 || *n > 100000)
          return fail("plan.replicated_layers must be a list of layer "
                      "numbers from 0");
        if (llvm::is_contained(p.replicatedLayers, *n))
          return fail("plan.replicated_layers names layer " + Twine(*n) +
                      " twice");
        p.replicatedLayers.push_back(*n);
      }
      llvm::sort(p.replicatedLayers);
      continue;
    }
    int64_t *field = k == "dp"             ? &p.dp
                     : k == "pp"           ? &p.pp
                     : k == "ep"           ? &p.ep
                     : k == "tp"           ? &p.tp
                     : k == "microbatches" ? &p.microbatches
                                           : nullptr;
    if (!field)
      return fail("plan." + k +
                  " is not a plan field (dp, pp, ep, tp, sp, microbatches, "
                  "embedding, head, replicated_layers)");
    std::optional<int64_t> n = v.getAsInteger();
    if (!n || *n < 1 || *n > 4096)
      return fail("plan." + k + " must be an integer from 1 to 4096");
    *field = *n;
  }
  if (p.sp && p.tp == 1)
    return fail("plan.sp splits the tokens over tp: it needs tp > 1");
  if (p.tp == 1 && (p.embeddingWhole || p.headWhole ||
                    !p.replicatedLayers.empty()))
    return fail("plan.embedding, plan.head and plan.replicated_layers choose "
                "what tp splits: they need tp > 1 (or their defaults)");
  if (p.dp * p.pp * p.ep * p.tp > 65536)
    return fail("dp x pp x ep x tp is more than 65536 ranks");
  return choice;
}
