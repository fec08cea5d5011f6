//===- RoutingStats.h - tokens per expert, for calibration ------*- C++ -*-===//
//
// `shardc --calibration DIR` runs a single-rank build of the model on sample
// inputs with `--routing-stats FILE` and balances the experts of --ep by
// what it reads back. While enabled, every sc_moe_route adds its choices per
// expert to row i of a table, i its position among the run's routes (the
// program's MoE layers in order). Process-wide: a calibration run is one
// single-rank model.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_ROUTINGSTATS_H
#define SHARDC_RUNTIME_ROUTINGSTATS_H

#include "runtime/src/Status.h"

#include <cstdint>
#include <string>

namespace shardc::rt {

void routingEnable(bool enable);
/// A run begins: the next route is layer 0 again.
void routingStartRun();
/// A route of `experts` experts with these row offsets (E + 1 entries).
void routingRecord(const int32_t *offsets, int64_t experts);
/// {"runs": N, "layers": [[tokens of expert 0, ...], ...]}.
Status routingWrite(const std::string &path);

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_ROUTINGSTATS_H
