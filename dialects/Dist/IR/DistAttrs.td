//===- DistAttrs.td - dist dialect attributes ------------------*- tablegen -*-===//

#ifndef SHARDC_DIST_ATTRS
#define SHARDC_DIST_ATTRS

include "dialects/Dist/IR/DistDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Dist_ShardingAttr : AttrDef<Dist_Dialect, "Sharding"> {
  let mnemonic = "sharding";
  let summary = "how a tensor is laid out over a mesh";
  let description = [{
    `dims` has one entry per tensor dim: the mesh axes the dim is split over,
    major to minor (`[]`: not split). `partial` lists the axes along which
    each rank holds a partial value of the tensor, and `partial_kind` the
    reduction that combines the partial values into the tensor (upstream
    MLIR mesh's partial type): `sum`, `max`, `min`, `prod`, or `mean`, where
    each rank holds the sum of its part and the combined sum is divided by
    the whole count (a mean's partial state is (sum, count), not a mean).
    `sum` is the default and is not printed.

      #dist.sharding<@mesh, [["tp"], []]>                  rows split over tp
      #dist.sharding<@mesh, [[], []], partial = ["tp"]>    partial sums over tp
      #dist.sharding<@mesh, [[], []], partial = max ["tp"]>  partial maxima
      #dist.sharding<@mesh, [["dp", "tp"], []]>            rows over dp x tp

    An axis appears at most once in a sharding. Whether the dims divide and
    the axes exist is checked where the sharding meets a tensor and its mesh
    (`dist.shard`'s verifier, `verifyFor`).
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$mesh,
                        "::mlir::ArrayAttr":$dims,
                        OptionalParameter<"::mlir::ArrayAttr">:$partial,
                        StringRefParameter<"the reduction of the partial "
                                           "values", "\"sum\"">:$partial_kind);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilderWithInferredContext<(ins "::mlir::FlatSymbolRefAttr":$mesh,
                                        "::mlir::ArrayAttr":$dims,
                                        CArg<"::mlir::ArrayAttr", "{}">:$partial,
                                        CArg<"::llvm::StringRef", "\"sum\"">:$partialKind), [{
      return $_get(mesh.getContext(), mesh, dims, partial, partialKind);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The axes of tensor dim `dim`.
    llvm::SmallVector<llvm::StringRef> axesOf(unsigned dim) const;
    /// The partial axes (combined by `getPartialKind()`).
    llvm::SmallVector<llvm::StringRef> partialAxes() const;
    /// Whether `kind` names a reduction that combines partial values.
    static bool isPartialKind(llvm::StringRef kind);
    /// No dim split and no partial sums.
    bool isReplicated() const;
    /// Checks the sharding against a tensor of `type` on `mesh`: one entry
    /// per dim, axes of the mesh, and every split dim divisible by the
    /// product of its axes' sizes (the error names the dim and the sizes).
    mlir::LogicalResult
    verifyFor(mlir::ShapedType type, MeshOp mesh,
              llvm::function_ref<mlir::InFlightDiagnostic()> emitError) const;
    /// The shape each rank holds (a verified sharding).
    llvm::SmallVector<int64_t> localShape(mlir::ShapedType type,
                                          MeshOp mesh) const;
  }];
}

#endif // SHARDC_DIST_ATTRS
