//===- PruneReport.h - what pruning did (--emit=prune-report) -*- C++ -*-===//
//
// Every layer graph-prune judged (after the graph pipeline), in program
// order: its ONNX node (the second projection's), MLP channels or heads
// kept of all, and the layer's estimated output error relative to its
// output's energy (the graph.prune attribute); what the lossless step and
// the other pruning passes removed (graph.pruned); --prune=auto's trials;
// and SVG charts beside -o: the share each layer lost, and the search's
// metric against the fraction pruned.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_PRUNEREPORT_H
#define SHARDC_TOOLS_SHARDC_PRUNEREPORT_H

#include "Options.h"
#include "QuantizePhase.h"

#include "mlir/IR/BuiltinOps.h"

namespace shardc::driver {

/// --emit=prune-report: the report to -o (or stdout), its charts beside a
/// named output (OUT minus its extension, ".prune.svg" and, after
/// --prune=auto, ".prune-curve.svg"). The exit status.
int writePruneReport(const Options &o, mlir::ModuleOp module,
                     const PruneRun &run);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_PRUNEREPORT_H
