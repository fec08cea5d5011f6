//===- ShardingInterface.td - sharding rules of graph ops ------*- tablegen -*-===//

#ifndef SHARDC_GRAPH_SHARDING_INTERFACE
#define SHARDC_GRAPH_SHARDING_INTERFACE

include "mlir/IR/OpBase.td"

def Graph_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::shardc::graph";
  let description = [{
    How an op's operand and result dims may be split across devices, as
    factors (Shardy's OpShardingRule, JAX custom_partitioning's einsum-like
    rules): every dim is a list of factors, major to minor; a factor is
    parallel (split it and every rank computes its slice), a reduction
    (split it and every rank holds a partial result that a collective
    combines) or needs replication (it must be whole on every rank).
    Reshapes map compound factors: `[6] -> [2, 3]` is the factors (i, j) on
    the operand's one dim and i, j on the result's two.

    The rules live beside the type inference of each op family
    (`*Sharding.cpp`) and are attached as external models
    (`registerShardingRules`). An op without a rule is replicated.
  }];
  let methods = [
    InterfaceMethod<[{
        The op's rule, or std::nullopt when this instance has none (it is
        replicated: a reshape whose factors do not line up, a
        configuration the rule does not cover).
      }],
      "std::optional<::shardc::graph::ShardingRule>", "getShardingRule",
      (ins)>,
    InterfaceMethod<[{
        The op's own rewrite into a rank's local computation, beside its
        rule (as upstream MLIR mesh's ShardingInterface::spmdize): where the
        rule's generic rewrite would gather an operand whole, an op that
        knows better (a vocabulary-parallel lookup, a selection over a split
        axis) builds its local ops and collectives through `partitioner`
        and defines its results. Returns true when it did; false, having
        built nothing, leaves the op to the generic rewrite; failure after a
        diagnostic.
      }],
      "::mlir::FailureOr<bool>", "partitionLocally",
      (ins "::shardc::graph::LocalPartitioner &":$partitioner,
           "::mlir::OpBuilder &":$builder),
      /*methodBody=*/"", /*defaultImplementation=*/"return false;">,
  ];
}

#endif // SHARDC_GRAPH_SHARDING_INTERFACE
