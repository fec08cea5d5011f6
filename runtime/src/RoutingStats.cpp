//===- RoutingStats.cpp - tokens per expert, for calibration ---------------===//

#include "runtime/src/RoutingStats.h"

#include <cstdio>
#include <vector>

namespace {

struct Table {
  bool enabled = false;
  size_t next = 0;
  int64_t runs = 0;
  std::vector<std::vector<int64_t>> layers;
};

Table &table() {
  static Table t;
  return t;
}

} // namespace

void shardc::rt::routingEnable(bool enable) {
  table() = Table();
  table().enabled = enable;
}

void shardc::rt::routingStartRun() {
  Table &t = table();
  if (!t.enabled)
    return;
  t.next = 0;
  ++t.runs;
}

void shardc::rt::routingRecord(const int32_t *offsets, int64_t experts) {
  Table &t = table();
  if (!t.enabled)
    return;
  if (t.layers.size() <= t.next)
    t.layers.emplace_back(static_cast<size_t>(experts), 0);
  std::vector<int64_t> &row = t.layers[t.next++];
  if (row.size() < static_cast<size_t>(experts))
    row.resize(static_cast<size_t>(experts), 0);
  for (int64_t e = 0; e < experts; ++e)
    row[e] += offsets[e + 1] - offsets[e];
}

shardc::rt::Status shardc::rt::routingWrite(const std::string &path) {
  const Table &t = table();
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (!f)
    return {SHARDC_ERROR_IO, "cannot write routing statistics to '" + path +
                                 "'"};
  std::fprintf(f, "{\"runs\": %lld, \"layers\": [", (long long)t.runs);
  for (size_t l = 0; l < t.layers.size(); ++l) {
    std::fprintf(f, "%s[", l ? ", " : "");
    for (size_t e = 0; e < t.layers[l].size(); ++e)
      std::fprintf(f, "%s%lld", e ? ", " : "", (long long)t.layers[l][e]);
    std::fprintf(f, "]");
  }
  std::fprintf(f, "]}\n");
  if (std::fclose(f) != 0)
    return {SHARDC_ERROR_IO, "cannot write routing statistics to '" + path +
                                 "'"};
  return {};
}
