//===- DistOps.td - dist dialect operations --------------------*- tablegen -*-===//

#ifndef SHARDC_DIST_OPS
#define SHARDC_DIST_OPS

include "dialects/Dist/IR/DistAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Meshes and shardings
//===----------------------------------------------------------------------===//

def Dist_MeshOp : Dist_Op<"mesh", [Symbol]> {
  let summary = "the devices of a job as a grid with named axes";
  let description = [{
    `dist.mesh @mesh axes = ["pp", "tp"] shape = [2, 4]` is 8 devices; rank
    r has coordinates (r / 4, r % 4). Axis names are unique and non-empty,
    sizes at least 1.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axes,
                       DenseI64ArrayAttr:$shape);
  let assemblyFormat = "$sym_name `axes` `=` $axes `shape` `=` $shape attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The size of axis `name`, or std::nullopt if the mesh has none.
    std::optional<int64_t> axisSize(llvm::StringRef name);
    /// The number of devices.
    int64_t numDevices();
    /// The coordinates of `rank` (row-major: the last axis changes
    /// fastest).
    llvm::SmallVector<int64_t> coordinates(int64_t rank);
    /// How many parts the axes `axes` (in order) make, and the part of the
    /// device at `coord`; std::nullopt if an axis is not the mesh's.
    std::optional<std::pair<int64_t, int64_t>>
    part(llvm::ArrayRef<int64_t> coord, llvm::ArrayRef<llvm::StringRef> axes);
  }];
}

def Dist_ShardOp : Dist_Op<"shard", [Pure, SameOperandsAndResultType]> {
  let summary = "a value of the global program with its sharding";
  let description = [{
    Returns its operand, annotated with how it is (or must be) laid out over
    the mesh: a seed for `dist-propagate`, or its result. The verifier checks
    the sharding against the tensor and its mesh.
  }];
  let arguments = (ins AnyRankedTensor:$input, Dist_ShardingAttr:$sharding);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input `:` type($result) `to` qualified($sharding) attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives (on the local tensors of per-rank programs)
//===----------------------------------------------------------------------===//

class Dist_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Dist_Op<mnemonic, traits> {
  code commonDeclaration = [{
    /// The mesh this collective runs on (a verified op).
    MeshOp getMeshOp();
    /// The number of ranks in each group: the product of the axes' sizes.
    int64_t groupSize();
  }];
}

def Dist_AllReduceOp : Dist_CollectiveOp<"all_reduce",
                                         [SameOperandsAndResultType]> {
  let summary = "every rank of a group gets the reduction of the group's tensors";
  let description = [{
    `kind` is `sum`, `max` or `min`. Ring all-reduce moves 2(n-1)/n of the
    tensor's bytes per rank.
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, StrAttr:$kind);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `kind` `=` $kind attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration;
}

def Dist_AllGatherOp : Dist_CollectiveOp<"all_gather"> {
  let summary = "concatenates the group's tensors along `dim`, in rank order";
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `dim` `=` $dim attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration;
}

def Dist_ReduceScatterOp : Dist_CollectiveOp<"reduce_scatter"> {
  let summary = "reduces the group's tensors and gives rank i block i along `dim`";
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$dim, StrAttr:$kind);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `dim` `=` $dim `kind` `=` $kind
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration;
}

def Dist_AllToAllOp : Dist_CollectiveOp<"all_to_all"> {
  let summary = "splits along `split_dim`, exchanges, concatenates along `concat_dim`";
  let description = [{
    Block j of rank i's tensor (split along `split_dim`) goes to rank j,
    which concatenates what it receives along `concat_dim` in rank order.
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$split_dim,
                       I64Attr:$concat_dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `split` `=` $split_dim `concat` `=`
    $concat_dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration;
}

def Dist_SendOp : Dist_CollectiveOp<"send"> {
  let summary = "sends a tensor to the rank `offset` steps along one axis";
  let description = [{
    For pipeline stages: the peer is this rank with its coordinate on `axis`
    moved by `offset` (non-zero; it must stay on the mesh, or the op does
    nothing on that rank, as for the last stage).
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$offset);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `offset` `=` $offset attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration;
}

def Dist_RecvOp : Dist_CollectiveOp<"recv"> {
  let summary = "receives a tensor from the rank `offset` steps along one axis";
  let arguments = (ins FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes,
                       I64Attr:$offset);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    `on` $mesh `axes` `=` $axes `offset` `=` $offset attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration;
}

//===----------------------------------------------------------------------===//
// Expert parallelism
//===----------------------------------------------------------------------===//

def Dist_MoeOp : Dist_CollectiveOp<"moe", [AttrSizedOperandSegments]> {
  let summary = "graph.moe with its experts split across a group: tokens "
                "go to their experts' ranks and come back (all-to-all)";
  let description = [{
    The per-rank form of `graph.moe` under expert parallelism (`--ep`,
    made by `dist-partition` from experts split over `axes`). Each rank of
    the group holds `L` consecutive experts: rank j of the group holds
    global experts [j * L, (j + 1) * L), so `gate_up` is [L, H, 2F] and
    `down` [L, F, H]; E = L * group size. `input` [T, H] are this rank's
    tokens, `weights` [T, K] their routing weights, `ids` [T, K] their
    global expert ids in [0, E).

    Each choice (t, k) is sent to the rank that holds expert ids[t, k]
    (counts first, then the rows: a variable-size all-to-all), computed
    there with that expert's SwiGLU MLP, and sent back; the result [T, H]
    is the same weighted sum as graph.moe's. Dropless: a rank receives up
    to T * min(K, L) rows from each peer.

    With `placement` (expert load balancing), the group holds
    `placement.size()` expert slots, L per rank in order, and slot s holds
    a copy of expert placement[s]; a choice of an expert with several
    copies goes to copy number t mod (its copies), t the token's index
    within the rank. Without it, slot s holds expert s.

    With `biases` (graph.moe's), `gate_up_bias` [L, 2F] and `down_bias`
    [L, H] are the local experts' (slots').

    ```mlir
    %y = dist.moe %x, %w, %ids, %gate_up, %down on @mesh axes = ["ep"]
      : tensor<8x32xf32>, tensor<8x2xf32>, tensor<8x2xi64>,
        tensor<2x32x96xf32>, tensor<2x48x32xf32> -> tensor<8x32xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$weights,
                       AnyRankedTensor:$ids, AnyRankedTensor:$gate_up,
                       AnyRankedTensor:$down,
                       Optional<AnyRankedTensor>:$gate_up_bias,
                       Optional<AnyRankedTensor>:$down_bias,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$axes,
                       OptionalAttr<DenseI64ArrayAttr>:$placement);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $weights `,` $ids `,` $gate_up `,` $down
    (`biases` $gate_up_bias^ `,` $down_bias)? `on` $mesh `axes`
    `=` $axes (`placement` `=` $placement^)? attr-dict `:` type($input) `,`
    type($weights) `,` type($ids) `,` type($gate_up) `,` type($down)
    (`,` type($gate_up_bias)^ `,` type($down_bias))? `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = commonDeclaration # [{
    /// Experts (slots) per rank.
    int64_t getLocalExperts() {
      return llvm::cast<mlir::RankedTensorType>(getDown().getType())
          .getDimSize(0);
    }
    /// Expert slots across the group: L * group size.
    int64_t getNumSlots() { return getLocalExperts() * groupSize(); }
    /// Distinct experts: the largest placement entry + 1, or the slots.
    int64_t getNumExperts();
  }];
}

#endif // SHARDC_DIST_OPS
