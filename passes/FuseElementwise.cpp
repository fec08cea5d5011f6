//===- FuseElementwise.cpp - the kern-fuse-elementwise pass ---===//
//
// Placeholder: the pattern set lands with the fusion work (issue 5).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace shardc {
#define GEN_PASS_DEF_KERNFUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace shardc

namespace {
struct KernFuseElementwisePass : shardc::impl::KernFuseElementwiseBase<KernFuseElementwisePass> {
  void runOnOperation() override {}
};
} // namespace
