//===- FuseAttention.cpp - the graph-fuse-attention pass ---===//
//
// Placeholder: the pattern set lands with the fusion work (issue 5).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHFUSEATTENTION
#include "passes/Passes.h.inc"
} // namespace shardc

namespace {
struct GraphFuseAttentionPass : shardc::impl::GraphFuseAttentionBase<GraphFuseAttentionPass> {
  void runOnOperation() override {}
};
} // namespace
