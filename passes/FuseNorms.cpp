//===- FuseNorms.cpp - the graph-fuse-norms pass ---===//
//
// Placeholder: the pattern set lands with the fusion work (issue 5).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSENORMS
#include "passes/Passes.h.inc"
} // namespace shardc

namespace {
struct GraphFuseNormsPass : shardc::impl::GraphFuseNormsBase<GraphFuseNormsPass> {
  void runOnOperation() override {}
};
} // namespace
