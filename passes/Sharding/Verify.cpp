//===- Verify.cpp - dist-verify -------------------------------------------===//
//
// The dist phase's closing check (Passes.td): complete per-rank programs,
// or shardings that fit their tensors on the mesh.
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Dist/IR/DistOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace shardc {
#define GEN_PASS_DEF_DISTVERIFY
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// The ranks a program runs on (dist-partition; kRanks).
constexpr StringLiteral kRanks = "kern.ranks";

struct DistVerifyPass : shardc::impl::DistVerifyBase<DistVerifyPass> {
  void runOnOperation() override;
};

/// Per-rank programs: every rank once, nothing of the global program.
LogicalResult verifyRankPrograms(ModuleOp module, dist::MeshOp mesh) {
  if (!mesh)
    return module.emitError("dist-verify: rank programs without a mesh");
  std::vector<func::FuncOp> owner(mesh.numDevices());
  for (auto func : module.getOps<func::FuncOp>()) {
    auto ranks = func->getAttrOfType<DenseI64ArrayAttr>(kRanks);
    if (!ranks)
      return func.emitError("dist-verify: function '")
             << func.getSymName() << "' of a partitioned module has no "
             << kRanks;
    for (int64_t r : ranks.asArrayRef()) {
      if (r < 0 || r >= int64_t(owner.size()))
        return func.emitError("dist-verify: rank ")
               << r << " is not on the mesh of " << owner.size()
               << " devices";
      if (owner[r])
        return func.emitError("dist-verify: rank ")
               << r << " has two programs, '" << owner[r].getSymName()
               << "' and '" << func.getSymName() << "'";
      owner[r] = func;
    }
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (func.getArgAttr(i, "dist.sharding"))
        return func.emitError("dist-verify: argument ")
               << i << " of rank program '" << func.getSymName()
               << "' still has a global sharding";
  }
  for (auto [r, func] : llvm::enumerate(owner))
    if (!func)
      return mesh.emitError("dist-verify: rank ")
             << r << " of " << owner.size() << " has no program";
  WalkResult walk = module.walk([](Operation *op) {
    if (isa<dist::ShardOp>(op) || op->hasAttr("dist.shardings")) {
      op->emitError("dist-verify: a rank program still holds a sharding of "
                    "the global program");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// A propagated module: each sharding fits its tensor on the mesh.
LogicalResult verifyPropagated(ModuleOp module, dist::MeshOp mesh) {
  auto check = [&](Attribute attr, Type type,
                   function_ref<InFlightDiagnostic()> emitError)
      -> LogicalResult {
    auto sharding = dyn_cast<dist::ShardingAttr>(attr);
    auto shaped = dyn_cast<ShapedType>(type);
    if (!sharding || !shaped)
      return emitError() << "dist-verify: " << attr
                         << " is not a sharding of a tensor";
    if (!mesh)
      return emitError() << "dist-verify: a sharding without a mesh";
    return sharding.verifyFor(shaped, mesh, emitError);
  };
  for (auto func : module.getOps<func::FuncOp>())
    for (BlockArgument arg : func.getArguments())
      if (Attribute a = func.getArgAttr(arg.getArgNumber(), "dist.sharding"))
        if (failed(check(a, arg.getType(), [&] { return func.emitError(); })))
          return failure();
  WalkResult walk = module.walk([&](Operation *op) {
    auto all = op->getAttrOfType<ArrayAttr>("dist.shardings");
    if (!all)
      return WalkResult::advance();
    if (all.size() != op->getNumResults()) {
      op->emitError("dist-verify: ")
          << all.size() << " shardings for " << op->getNumResults()
          << " results";
      return WalkResult::interrupt();
    }
    for (auto [attr, result] : llvm::zip(all, op->getResults()))
      if (failed(check(attr, result.getType(),
                       [&] { return op->emitError(); })))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

} // namespace

void DistVerifyPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<dist::MeshOp> mesh =
      dist::getSingleMesh(module, "dist-verify", /*required=*/false);
  if (failed(mesh))
    return signalPassFailure();
  bool partitioned = llvm::any_of(module.getOps<func::FuncOp>(), [](auto f) {
    return f->hasAttr(kRanks);
  });
  if (failed(partitioned ? verifyRankPrograms(module, *mesh)
                         : verifyPropagated(module, *mesh)))
    signalPassFailure();
}
