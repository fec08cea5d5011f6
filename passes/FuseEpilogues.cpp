//===- FuseEpilogues.cpp - the graph-fuse-epilogues pass ---===//
//
// Placeholder: the pattern set lands with the fusion work (issue 5).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSEEPILOGUES
#include "passes/Passes.h.inc"
} // namespace shardc

namespace {
struct GraphFuseEpiloguesPass : shardc::impl::GraphFuseEpiloguesBase<GraphFuseEpiloguesPass> {
  void runOnOperation() override {}
};
} // namespace
