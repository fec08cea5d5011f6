//===- Microbatch.cpp - dist-microbatch -----------------------------------===//
//
// The program of one micro-batch, from a module partitioned over a mesh
// with the single axis "mb" (dist-seed-batch axis=mb, dist-propagate,
// dist-partition). Using the partitioner for this means every op's own
// sharding rule decides whether its rows are independent: reshapes that
// fold the batch into other dims, attention and the rest keep their local
// shapes right, and a graph whose rows interact (a reduction over the
// batch, attention over a leading sequence dim) is refused, because its
// program would need a collective on "mb".
//
//===----------------------------------------------------------------------===//

#include "passes/Sharding/Passes.h"

#include "dialects/Graph/IR/ConstantEval.h"

#include <vector>

namespace shardc {
#define GEN_PASS_DEF_DISTMICROBATCH
#include "passes/Sharding/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct DistMicrobatchPass
    : shardc::impl::DistMicrobatchBase<DistMicrobatchPass> {
  void runOnOperation() override;
};

/// The bytes of constant `c`: its data, or its window's (zeros past the
/// source's end); empty when they cannot be read.
std::vector<char> bytesOf(graph::ConstantOp c) {
  std::optional<graph::Window> w = graph::windowOf(c, c.getValue());
  if (!w)
    return {};
  return graph::windowBytes(*w, cast<RankedTensorType>(c.getType()).getShape());
}

/// Whether two constants of one type hold the same data.
bool sameData(graph::ConstantOp x, graph::ConstantOp y) {
  if (x.getValue() == y.getValue() &&
      x->getAttr(graph::kSourceAttr) == y->getAttr(graph::kSourceAttr) &&
      x->getAttr(graph::kSourceOffsetAttr) == y->getAttr(graph::kSourceOffsetAttr))
    return true;
  // Windows (graph::Window) compare by what they show.
  if (x->hasAttr(graph::kSourceAttr) || y->hasAttr(graph::kSourceAttr)) {
    std::vector<char> a = bytesOf(x);
    return !a.empty() && a == bytesOf(y);
  }
  return graph::rawElementData(x.getValue()) ==
         graph::rawElementData(y.getValue());
}

/// Whether rank `other`'s program is rank 0's: the same ops, types and
/// attributes, constants with the same data, except the slices that cut
/// each rank's rows of an input. Returns the first op that differs.
Operation *firstDifference(func::FuncOp first, func::FuncOp other) {
  auto &a = first.getBody().front(), &b = other.getBody().front();
  auto ia = a.begin(), ib = b.begin();
  for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
    Operation &x = *ia, &y = *ib;
    if (x.getName() != y.getName() || x.getResultTypes() != y.getResultTypes())
      return &x;
    if (isa<graph::SliceOp>(x) && isa<BlockArgument>(x.getOperand(0)))
      continue;
    if (auto cx = dyn_cast<graph::ConstantOp>(x)) {
      auto cy = cast<graph::ConstantOp>(y);
      if (!sameData(cx, cy))
        return &x;
      continue;
    }
    if (x.getAttrDictionary() != y.getAttrDictionary())
      return &x;
  }
  return ia == a.end() && ib == b.end() ? nullptr : first.getOperation();
}

std::string describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    os << "node '" << name.getName().getValue() << "'";
  else
    os << "'" << op->getName() << "'";
  return s;
}

} // namespace

void DistMicrobatchPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<dist::MeshOp> meshes(module.getOps<dist::MeshOp>());
  if (meshes.size() != 1 || meshes.front().getAxes().size() != 1 ||
      !meshes.front().axisSize(dist::kMicrobatchAxis)) {
    module.emitError("dist-microbatch needs a module partitioned over one "
                     "mesh with the single axis \"mb\"");
    return signalPassFailure();
  }
  dist::MeshOp mesh = meshes.front();
  int64_t count = *mesh.axisSize(dist::kMicrobatchAxis);
  SmallVector<func::FuncOp> programs(count);
  for (auto func : module.getOps<func::FuncOp>()) {
    auto ranks = func->getAttrOfType<DenseI64ArrayAttr>("kern.ranks");
    if (!ranks || ranks.size() != 1 || ranks[0] < 0 || ranks[0] >= count ||
        programs[ranks[0]]) {
      func.emitError("dist-microbatch expects one partitioned program per "
                     "micro-batch");
      return signalPassFailure();
    }
    programs[ranks[0]] = func;
  }
  func::FuncOp first = programs.front();
  auto fail = [&](Operation *at, const Twine &why) {
    at->emitError("cannot split the batch into ")
        << count << " micro-batches: " << why;
    signalPassFailure();
  };
  // Anything that talks over "mb", but the gathers of the outputs, needs
  // other micro-batches' rows.
  Operation *ret0 = first.getBody().front().getTerminator();
  WalkResult walk = first.walk([&](Operation *op) {
    if (!isa<dist::DistDialect>(op->getDialect()))
      return WalkResult::advance();
    if (isa<dist::AllGatherOp>(op) && llvm::all_of(op->getUsers(), [&](
                                          Operation *u) { return u == ret0; }))
      return WalkResult::advance();
    fail(op, "this node needs the rows of other micro-batches (a " +
                 op->getName().getStringRef().str() +
                 " across the batch: is the leading dim of the inputs the "
                 "batch?)");
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return;
  for (int64_t r = 1; r < count; ++r)
    if (Operation *op = firstDifference(first, programs[r]))
      return fail(op, describe(op) + " differs between micro-batches (a "
                                     "constant that varies along the batch)");

  // Inputs: rank 0's rows are a slice [0, rows / count) of the leading dim.
  Block &body = first.getBody().front();
  SmallVector<Type> inputs;
  SmallVector<bool> batchedInputs;
  for (BlockArgument arg : body.getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    graph::SliceOp rows;
    for (Operation *user : arg.getUsers()) {
      auto slice = dyn_cast<graph::SliceOp>(user);
      bool isRows = slice && slice.getType().getRank() >= 1 &&
                    slice.getType().getDimSize(0) * count ==
                        type.getDimSize(0) &&
                    slice.getType().getShape().drop_front() ==
                        type.getShape().drop_front();
      if (isRows && !rows) {
        rows = slice;
        continue;
      }
      if (rows || isRows || slice)
        return fail(user, "input " + std::to_string(arg.getArgNumber()) +
                              " is read whole by " + describe(user));
    }
    if (rows && !arg.hasOneUse())
      return fail(*llvm::find_if(arg.getUsers(),
                                 [&](Operation *u) { return u != rows; }),
                  "input " + std::to_string(arg.getArgNumber()) +
                      " is both split by the batch and read whole");
    batchedInputs.push_back(static_cast<bool>(rows));
    if (rows) {
      arg.setType(rows.getType());
      rows.replaceAllUsesWith(arg);
      rows.erase();
    }
    inputs.push_back(arg.getType());
  }
  // Outputs: each all-gathered over "mb" along its leading dim.
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<Type> results;
  for (OpOperand &operand : ret->getOpOperands()) {
    auto gather = operand.get().getDefiningOp<dist::AllGatherOp>();
    if (!gather || gather.getDim() != 0)
      return fail(ret, "output " + std::to_string(operand.getOperandNumber()) +
                           " does not split along its leading (batch) dim");
    operand.set(gather.getInput());
    if (gather->use_empty())
      gather.erase();
    results.push_back(operand.get().getType());
  }

  std::string name =
      StringRef(first.getName()).rsplit("_rank").first.str();
  first.setName(name);
  first.setType(FunctionType::get(&getContext(), inputs, results));
  first->removeAttr("kern.ranks");
  for (auto [i, batched] : llvm::enumerate(batchedInputs))
    if (batched)
      first.setArgAttr(i, "dist.batched", UnitAttr::get(&getContext()));
  for (unsigned i = 0; i < results.size(); ++i)
    first.setResultAttr(i, "dist.batched", UnitAttr::get(&getContext()));
  for (int64_t r = 1; r < count; ++r)
    programs[r].erase();
  mesh.erase();
  module->setAttr("dist.microbatches",
                  IntegerAttr::get(IntegerType::get(&getContext(), 64), count));
  // A batch dist-pad-batch padded: the real rows the runtime spreads over
  // the micro-batches.
  if (auto items = first->getAttrOfType<IntegerAttr>("dist.batch_items")) {
    first->removeAttr("dist.batch_items");
    module->setAttr("dist.batch_items", items);
  }
}
