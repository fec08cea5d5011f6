//===- FuseActivations.cpp - the graph-fuse-activations pass ---===//
//
// Placeholder: the pattern set lands with the fusion work (issue 5).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSEACTIVATIONS
#include "passes/Passes.h.inc"
} // namespace shardc

namespace {
struct GraphFuseActivationsPass : shardc::impl::GraphFuseActivationsBase<GraphFuseActivationsPass> {
  void runOnOperation() override {}
};
} // namespace
