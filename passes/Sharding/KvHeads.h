//===- KvHeads.h - KV heads copied for more tp ranks than KV heads -*- C++ -*-===//
#ifndef SHARDC_PASSES_SHARDING_KVHEADS_H
#define SHARDC_PASSES_SHARDING_KVHEADS_H

#include "dialects/Graph/IR/GraphOps.h"

namespace shardc {

/// Grouped-query attention with fewer KV heads than tp ranks: the export
/// repeats each of its `kv` heads for its query heads (Hugging Face's
/// repeat_kv: unsqueeze, expand, reshape to H heads), and splitting the H
/// heads over tp leaves the kv-head tensors, and the K and V projections,
/// whole on every rank. This rewrites key and value (operands 1 and 2 of
/// `op`) to repeat `tp` heads instead, head i a copy of KV head
/// i * kv / tp (vLLM's KV head replicas): the copy is pushed up through
/// head-wise ops (elementwise with broadcasting, transposes, slices and
/// concatenations off the head dim, the reshape that splits heads off a
/// projection's columns) into the projection's constant weights and
/// biases. Split over tp, each rank then holds one copy: 1/kv of K and V.
/// Where a copy cannot be pushed further it stays a graph.gather of the
/// heads (exact, only not split). Rewrites nothing unless kv < tp, tp is
/// a multiple of kv and of H / tp heads per rank. Returns whether it
/// rewrote an operand.
bool replicateKvHeads(graph::AttentionOp op, int64_t tp);

} // namespace shardc

#endif // SHARDC_PASSES_SHARDING_KVHEADS_H
