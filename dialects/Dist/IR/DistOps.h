//===- DistOps.h - dist dialect ---------------------------------*- C++ -*-===//
#ifndef SHARDC_DIALECTS_DIST_IR_DISTOPS_H
#define SHARDC_DIALECTS_DIST_IR_DISTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Dist/IR/DistDialect.h.inc"

namespace shardc::dist {
class MeshOp;
} // namespace shardc::dist

#define GET_ATTRDEF_CLASSES
#include "dialects/Dist/IR/DistAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Dist/IR/DistOps.h.inc"

namespace shardc::dist {

/// The `dist.mesh` that `symbol` names from `from`, or null.
MeshOp lookupMesh(mlir::Operation *from, mlir::FlatSymbolRefAttr symbol);

/// Checks `axes` against `mesh`: each an axis of it, none twice. `what`
/// names the list in the error ("axes", "partial").
mlir::LogicalResult
verifyAxes(mlir::ArrayRef<llvm::StringRef> axes, MeshOp mesh,
           llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The sharding of a rank-`rank` tensor on `mesh` split along `dim` over
/// `axis`, its other dims whole (the seeds' usual form).
ShardingAttr splitAlong(MeshOp mesh, int64_t rank, int64_t dim,
                        llvm::StringRef axis);

/// The module's `dist.mesh @mesh` with axis `name` of `size`: made if the
/// module has none, the axis added if the mesh lacks it. Axes keep the
/// order dp, pp, ep, tp (the outer axes change slowest, so a tensor-parallel
/// group is neighbouring ranks, one node, as Megatron places it); other
/// names go last. Null, with an error on `module`, when the mesh has the
/// axis at another size or the module has several meshes.
MeshOp getOrAddMeshAxis(mlir::ModuleOp module, llvm::StringRef name,
                        int64_t size);

/// The mesh axes shardc's strategies add, in getOrAddMeshAxis's order
/// (data, pipeline, expert, tensor parallelism), and the micro-batch axis
/// dist-microbatch partitions over and removes.
inline constexpr llvm::StringLiteral kDataAxis = "dp";
inline constexpr llvm::StringLiteral kPipelineAxis = "pp";
inline constexpr llvm::StringLiteral kExpertAxis = "ep";
inline constexpr llvm::StringLiteral kTensorAxis = "tp";
inline constexpr llvm::StringLiteral kMicrobatchAxis = "mb";

/// The module's one dist.mesh, for pass `pass`: null when it has none and
/// `required` is false; failure, after "PASS needs one dist.mesh in the
/// module, found N" (on the second mesh, or the module when there is none),
/// otherwise.
mlir::FailureOr<MeshOp> getSingleMesh(mlir::ModuleOp module,
                                      llvm::StringRef pass,
                                      bool required = true);

/// The batch of `module`'s programs: the largest leading dim of their
/// inputs (0 when none has one). dist-seed-batch splits it, dist-pad-batch
/// pads it.
int64_t batchRows(mlir::ModuleOp module);

} // namespace shardc::dist

#endif // SHARDC_DIALECTS_DIST_IR_DISTOPS_H
