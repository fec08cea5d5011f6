//===- Passes.td - graph dialect passes -------------------------*- tablegen -*-===//

#ifndef SHARDC_GRAPH_TRANSFORMS
#define SHARDC_GRAPH_TRANSFORMS

include "mlir/Pass/PassBase.td"

def GraphPrintShardingRules : Pass<"graph-print-sharding-rules",
                                   "mlir::func::FuncOp"> {
  let summary = "Print every graph op's sharding rule as a remark";
  let description = [{
    For testing and for reading a model's partitioning options: a remark on
    each graph op with its factor rule in Shardy's notation, e.g. for a
    matmul of [4, 16] by [16, 8]

      sharding rule: ([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k:sum}

    or `no sharding rule (replicated)`. A rule whose factors do not match
    the op's shapes is an error (ShardingRule::verify).
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

#endif // SHARDC_GRAPH_TRANSFORMS
