//===- PrintShardingRules.cpp - graph-print-sharding-rules ----------------===//

#include "dialects/Graph/Transforms/Passes.h"

#include "dialects/Graph/IR/ShardingRule.h"

namespace shardc {
#define GEN_PASS_DEF_GRAPHPRINTSHARDINGRULES
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {
struct PrintShardingRules
    : shardc::impl::GraphPrintShardingRulesBase<PrintShardingRules> {
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      if (!isa<graph::GraphDialect>(op->getDialect()))
        return;
      auto iface = dyn_cast<graph::ShardingRuleOpInterface>(op);
      std::optional<graph::ShardingRule> rule;
      if (iface)
        rule = iface.getShardingRule();
      if (!rule) {
        op->emitRemark("no sharding rule (replicated)");
        return;
      }
      if (mlir::failed(rule->verify(op))) {
        failed = true;
        return;
      }
      op->emitRemark("sharding rule: ") << rule->str();
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
