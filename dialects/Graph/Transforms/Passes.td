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

def GraphKvCache : Pass<"graph-kv-cache", "mlir::func::FuncOp"> {
  let summary = "Mark the inputs that are a KV cache's past";
  let description = [{
    A decoder exported with its cache (`torch.onnx.export` of a Hugging
    Face model called with `past_key_values`) reads each layer's past keys
    and values as inputs and returns `present = Concat(past, new)` along the
    sequence axis. The compiled program keeps the cache where the output
    is: an input `past` of shape [.., P, ..] (P a dynamic dim whose least
    value is 0, `graph.dims`) whose only use is the first operand of such a
    concat, which is returned, gets

      {graph.cache = {output = R : i64, axis = A : i64}}

    (R the result index, A the axis). The lowering then writes only the new
    entries, at offset P into output R's buffer, which is laid out for the
    bounds (strides of the bound shape, so it can grow in place), and reads
    `present` from there; the runtime keeps that buffer between runs
    (`shardc_keep_cache`) or copies a given past into it. Nothing else
    changes: the function still means Concat(past, new).
  }];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

#endif // SHARDC_GRAPH_TRANSFORMS
