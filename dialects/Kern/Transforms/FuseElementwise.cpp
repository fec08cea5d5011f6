//===- FuseElementwise.cpp - the kern-fuse-elementwise pass ----------------===//
//
// Inlines a producer kern.map into the kern.map or kern.reduce that reads its
// result, so the intermediate is never stored: the producer's body is cloned
// into the consumer's, and the producer's input accesses are composed with
// the consumer's access to the intermediate. Chains collapse by repetition
// (a fused consumer can be the producer of the next step), and transposes,
// broadcasts and slices (copy maps) fold into the kernels that read them.
//
// When not to fuse (each rule keeps the result exact and the work bounded):
//   1. The intermediate has another reader, is written by anything else, is
//      seen through a kern.view, or is not a kern.alloc (a function output
//      must be stored): fusing would recompute or lose a value someone needs.
//   2. The consumer is a library call (kern.matmul, kern.conv, a runtime
//      kernel such as kern.softmax):
//      libraries read memory.
//   3. The producer has several outputs, reads kern.index, or does not write
//      its output densely in its own iteration order (its shape is the
//      buffer's, offset 0, row-major strides).
//   4. The consumer's access to the intermediate is not a per-dim
//      permutation, broadcast, slice or reversal of it (e.g. a reshape that
//      merges dims): the composed access would not be strided.
//   5. The consumer reads each intermediate element several times
//      (broadcast) and the producer computes a transcendental (exp, log,
//      erf, tanh, pow, sqrt, ...): recomputing it would cost more than the
//      store and load it saves.
//   6. An op between the two writes a buffer the producer reads, or the
//      consumer writes one: moving the producer's loads later would read
//      other data.
//   7. The fused kernel would read more than kMaxInputs buffers or compute
//      more than kMaxBodyOps scalar ops: a longer kernel costs the host
//      compiler (and NVRTC, whose kernel parameters are limited) more than
//      the store it saves, and the bound keeps each fusion's work constant.
//
// Cost: linear in the program. The pass visits producers in program order
// from a worklist and, after a fusion, revisits only the fused kernel and
// the maps that write its inputs (nothing else's rules changed): the same
// fusions, in the same order, as retrying every map after each fusion.
// Rule 6 looks up the writers of each buffer the producer reads (positions
// recorded once) instead of walking the ops in between.
//
//===----------------------------------------------------------------------===//

#include "dialects/Kern/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <set>

namespace shardc {
#define GEN_PASS_DEF_KERNFUSEELEMENTWISE
#include "dialects/Kern/Transforms/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// The buffer a value ultimately names (through kern.view).
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<kern::ViewOp>())
    v = view.getSource();
  return v;
}

/// Buffers an op writes.
SmallVector<Value> writtenBy(Operation *op) {
  SmallVector<Value> out;
  if (auto m = dyn_cast<kern::MapOp>(op))
    out.append(m.getOutputs().begin(), m.getOutputs().end());
  else if (auto r = dyn_cast<kern::ReduceOp>(op))
    out.append(r.getOutputs().begin(), r.getOutputs().end());
  else if (auto c = dyn_cast<kern::RuntimeCallOpInterface>(op))
    out = c.getWrittenBuffers();
  else if (auto mm = dyn_cast<kern::MatmulOp>(op))
    out.push_back(mm.getY());
  else if (auto conv = dyn_cast<kern::ConvOp>(op))
    out.push_back(conv.getY());
  for (Value &v : out)
    v = rootOf(v);
  return out;
}

ArrayRef<int64_t> layoutOf(ArrayAttr layouts, unsigned i) {
  return cast<DenseI64ArrayAttr>(layouts[i]).asArrayRef();
}

/// A generated kernel, map or reduce, seen through one interface.
struct Kernel {
  Operation *op;
  OperandRange inputs() const {
    if (auto m = dyn_cast<kern::MapOp>(op))
      return m.getInputs();
    return cast<kern::ReduceOp>(op).getInputs();
  }
  OperandRange outputs() const {
    if (auto m = dyn_cast<kern::MapOp>(op))
      return m.getOutputs();
    return cast<kern::ReduceOp>(op).getOutputs();
  }
  ArrayRef<int64_t> shape() const {
    if (auto m = dyn_cast<kern::MapOp>(op))
      return m.getShape();
    return cast<kern::ReduceOp>(op).getShape();
  }
  ArrayAttr layouts() const {
    if (auto m = dyn_cast<kern::MapOp>(op))
      return m.getLayouts();
    return cast<kern::ReduceOp>(op).getLayouts();
  }
  Block &body() const { return op->getRegion(0).front(); }
};

bool isTranscendental(Operation *op) {
  return isa<math::MathDialect>(op->getDialect()) &&
         !isa<math::AbsFOp, math::AbsIOp, math::FloorOp, math::RoundEvenOp>(op);
}

/// How the consumer's dims walk the intermediate's dims.
struct DimMap {
  SmallVector<int64_t> base;      ///< the intermediate's coordinate at index 0
  SmallVector<int64_t> target;    ///< per consumer dim: intermediate dim, or -1
  SmallVector<int64_t> direction; ///< per consumer dim: +1 or -1
  int64_t broadcast = 1;          ///< elements read per intermediate element
};

/// Rule 4: the consumer's access [offset, strides...] to an intermediate of
/// `shape` (dense, row-major) as per-dim steps, or nothing.
std::optional<DimMap> mapDims(ArrayRef<int64_t> layout,
                              ArrayRef<int64_t> consumerShape,
                              ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides = kern::rowMajorStrides(shape);
  int64_t total = 1;
  for (int64_t d : shape)
    total *= d;
  int64_t offset = layout[0];
  if (total == 0 || offset < 0 || offset >= total)
    return std::nullopt; // nothing to fuse in an empty tensor
  for (int64_t s : strides)
    if (s <= 0)
      return std::nullopt;
  DimMap map;
  for (size_t e = 0; e < shape.size(); ++e)
    map.base.push_back((offset / strides[e]) % shape[e]);
  SmallVector<int64_t> lo(map.base), hi(map.base);
  for (size_t d = 0; d < consumerShape.size(); ++d) {
    int64_t s = layout[d + 1], n = consumerShape[d];
    map.target.push_back(-1);
    map.direction.push_back(1);
    if (n == 1)
      continue;
    if (s == 0) {
      map.broadcast *= n;
      continue;
    }
    int64_t step = s < 0 ? -s : s;
    int64_t e = -1;
    for (size_t k = 0; k < shape.size(); ++k)
      if (strides[k] == step && shape[k] > 1) {
        e = k;
        break;
      }
    if (e < 0)
      return std::nullopt;
    map.target[d] = e;
    map.direction[d] = s < 0 ? -1 : 1;
    (s < 0 ? lo[e] : hi[e]) += (s < 0 ? -1 : 1) * (n - 1);
  }
  for (size_t e = 0; e < shape.size(); ++e)
    if (lo[e] < 0 || hi[e] >= shape[e])
      return std::nullopt; // would wrap into the next dim
  return map;
}

/// The producer's access `layout` (over its dims, which are the
/// intermediate's) seen from the consumer's dims.
SmallVector<int64_t> compose(ArrayRef<int64_t> layout, const DimMap &map) {
  SmallVector<int64_t> out{layout[0]};
  for (size_t e = 0; e < map.base.size(); ++e)
    out[0] += map.base[e] * layout[e + 1];
  for (size_t d = 0; d < map.target.size(); ++d)
    out.push_back(map.target[d] < 0
                      ? 0
                      : map.direction[d] * layout[map.target[d] + 1]);
  return out;
}

/// mapDims over dynamic dims (kernels with kern.sym mirrors): the same
/// rule for every value of the symbols. The consumer's offset into the
/// intermediate must be 0 or a constant number of one dim's rows, and each
/// walk must stay inside its dim for every value (sizes that provably fit);
/// anything else is not fused.
struct SymDimMap {
  SmallVector<sym::Expr> base;
  SmallVector<int64_t> target, direction;
  bool broadcast = false;
};

/// Whether `e` >= 0 for every value of the symbols (each at least 1).
bool nonNegative(const sym::Expr &e) {
  if (std::optional<int64_t> c = e.getConstant())
    return *c >= 0;
  return (e + 1).isMonotoneSize();
}

std::optional<SymDimMap> mapDims(ArrayRef<sym::Expr> layout,
                                 ArrayRef<sym::Expr> consumerShape,
                                 ArrayRef<sym::Expr> shape) {
  SmallVector<sym::Expr> strides = kern::symStrides(shape);
  for (const sym::Expr &d : shape)
    if (d == sym::Expr(0))
      return std::nullopt;
  SymDimMap map;
  map.base.assign(shape.size(), sym::Expr(0));
  if (layout[0] != sym::Expr(0)) {
    bool found = false;
    for (size_t e = 0; e < shape.size() && !found; ++e) {
      if (shape[e] == sym::Expr(1))
        continue;
      std::optional<sym::Expr> q = layout[0].divExact(strides[e]);
      if (q && q->isConstant() && *q->getConstant() > 0 &&
          nonNegative(shape[e] - *q - 1)) {
        map.base[e] = *q;
        found = true;
      }
    }
    if (!found)
      return std::nullopt;
  }
  for (size_t d = 0; d < consumerShape.size(); ++d) {
    const sym::Expr &n = consumerShape[d], &s = layout[d + 1];
    map.target.push_back(-1);
    map.direction.push_back(1);
    if (n == sym::Expr(1))
      continue;
    if (s == sym::Expr(0)) {
      map.broadcast = true;
      continue;
    }
    int64_t e = -1;
    for (size_t k = 0; k < shape.size() && e < 0; ++k)
      if (shape[k] != sym::Expr(1) && (strides[k] == s || strides[k] == -s))
        e = k;
    if (e < 0)
      return std::nullopt;
    map.target[d] = e;
    map.direction[d] = strides[e] == s ? 1 : -1;
    // The walk stays inside dim e: base + n - 1 < size going forward,
    // base - (n - 1) >= 0 going back.
    sym::Expr room =
        map.direction[d] > 0 ? shape[e] - map.base[e] - n : map.base[e] - n + 1;
    if (!nonNegative(room))
      return std::nullopt;
  }
  return map;
}

SmallVector<sym::Expr> compose(ArrayRef<sym::Expr> layout,
                               const SymDimMap &map) {
  SmallVector<sym::Expr> out{layout[0]};
  for (size_t e = 0; e < map.base.size(); ++e)
    out[0] = out[0] + map.base[e] * layout[e + 1];
  for (size_t d = 0; d < map.target.size(); ++d)
    out.push_back(map.target[d] < 0
                      ? sym::Expr(0)
                      : layout[map.target[d] + 1] * map.direction[d]);
  return out;
}

/// Rule 7's bounds. Kernels of the models in test/ stay far below them.
constexpr unsigned kMaxInputs = 64;
constexpr unsigned kMaxBodyOps = 1024;

struct KernFuseElementwisePass
    : shardc::impl::KernFuseElementwiseBase<KernFuseElementwisePass> {
  void runOnOperation() override;

  /// Fuses `producer` into its consumer; returns the fused kernel, or null.
  Operation *tryFuse(kern::MapOp producer);

  /// Program order: the walk's index of every op, for a fused kernel its
  /// consumer's (it takes the consumer's place).
  DenseMap<Operation *, unsigned> position;
  /// Rule 6: for each buffer and block, the positions of the ops of that
  /// block writing it, ascending. Fusion only removes writers (the
  /// producer, of its intermediate, which nothing else reads), so stale
  /// entries never matter.
  DenseMap<std::pair<Value, Block *>, SmallVector<unsigned, 2>> writers;
  /// Producers still to try, by program order: the smallest first, as a
  /// rescan would.
  std::set<std::pair<unsigned, Operation *>> worklist;
  /// Rule 7: scalar ops per kernel body, counted once.
  DenseMap<Operation *, unsigned> bodyOps;

  unsigned numBodyOps(Operation *op) {
    auto [it, inserted] = bodyOps.try_emplace(op, 0);
    if (inserted)
      it->second = op->getRegion(0).front().getOperations().size();
    return it->second;
  }
  /// Whether an op of `block` strictly after `from` and at or before `to`
  /// writes `buffer`.
  bool writtenBetween(Value buffer, Block *block, unsigned from, unsigned to) {
    auto it = writers.find({buffer, block});
    if (it == writers.end())
      return false;
    auto next = llvm::upper_bound(it->second, from);
    return next != it->second.end() && *next <= to;
  }
};

void KernFuseElementwisePass::runOnOperation() {
  unsigned next = 0;
  getOperation().walk([&](Operation *op) {
    position[op] = next++;
    for (Value w : writtenBy(op))
      writers[{w, op->getBlock()}].push_back(position[op]);
  });
  getOperation().walk(
      [&](kern::MapOp m) { worklist.insert({position[m], m}); });
  while (!worklist.empty()) {
    auto producer = cast<kern::MapOp>(worklist.begin()->second);
    worklist.erase(worklist.begin());
    Operation *fused = tryFuse(producer);
    if (!fused)
      continue;
    // Only the fused kernel and the maps writing its inputs can decide
    // differently now.
    if (isa<kern::MapOp>(fused))
      worklist.insert({position[fused], fused});
    for (Value in : Kernel{fused}.inputs()) {
      if (!in.getDefiningOp<kern::AllocOp>() || llvm::hasNItemsOrMore(in.getUses(), 3))
        continue;
      for (Operation *user : in.getUsers())
        if (user != fused && isa<kern::MapOp>(user) &&
            llvm::is_contained(Kernel{user}.outputs(), in))
          worklist.insert({position[user], user});
    }
  }
}

Operation *KernFuseElementwisePass::tryFuse(kern::MapOp producer) {
  // Rule 3.
  if (producer.getOutputs().size() != 1)
    return nullptr;
  Value inter = producer.getOutputs()[0];
  auto alloc = inter.getDefiningOp<kern::AllocOp>();
  auto type = cast<MemRefType>(inter.getType());
  ArrayRef<int64_t> shape = type.getShape();
  unsigned numIn = producer.getInputs().size();
  ArrayRef<int64_t> outLayout = layoutOf(producer.getLayouts(), numIn);
  SmallVector<int64_t> dense{0};
  dense.append(kern::rowMajorStrides(shape));
  if (!alloc || producer.getShape() != shape || outLayout != ArrayRef(dense))
    return nullptr;

  // Rule 1: exactly one other use, as one input of a generated kernel.
  Operation *consumerOp = nullptr;
  for (OpOperand &use : inter.getUses()) {
    if (use.getOwner() == producer)
      continue;
    if (consumerOp)
      return nullptr;
    consumerOp = use.getOwner();
  }
  // Rule 2.
  if (!consumerOp || !isa<kern::MapOp, kern::ReduceOp>(consumerOp) ||
      consumerOp->getBlock() != producer->getBlock() ||
      position[producer] >= position[consumerOp])
    return nullptr;
  Kernel consumer{consumerOp};
  SmallVector<unsigned> positions;
  for (auto [i, in] : llvm::enumerate(consumer.inputs()))
    if (in == inter)
      positions.push_back(i);
  if (positions.size() != 1 || llvm::is_contained(consumer.outputs(), inter))
    return nullptr;
  unsigned pos = positions.front();

  // Rule 7 (before anything that walks a body).
  if (consumer.inputs().size() - 1 + producer.getInputs().size() > kMaxInputs ||
      numBodyOps(consumerOp) + numBodyOps(producer) - 1 > kMaxBodyOps)
    return nullptr;
  // Rule 3: kern.index.
  bool usesIndex = false;
  producer.getBody().walk([&](kern::IndexOp) { usesIndex = true; });
  if (usesIndex)
    return nullptr;
  // Dynamic dims: rules 3 and 4 hold for every value of the symbols, and
  // the fused kernel's layouts are composed on the mirrors (the static
  // ones are their values at the bounds).
  bool symbolic = producer->hasAttr(kern::kSymAttr) ||
                  consumerOp->hasAttr(kern::kSymAttr) ||
                  kern::isSymbolic(inter);
  std::optional<DimMap> dims;
  std::optional<SymDimMap> symDims;
  SmallVector<int64_t> bounds;
  if (symbolic) {
    FailureOr<SmallVector<sym::Symbol>> symbols = kern::readSymbols(producer);
    if (failed(symbols))
      return nullptr;
    for (const sym::Symbol &sm : *symbols)
      bounds.push_back(sm.max);
    SmallVector<sym::Expr> interShape = kern::symShape(inter);
    SmallVector<sym::Expr> denseSym{sym::Expr(0)};
    llvm::append_range(denseSym, kern::symStrides(interShape));
    if (kern::symArray(producer, "shape") != interShape ||
        kern::symLayouts(producer)[numIn] != denseSym)
      return nullptr;
    symDims = mapDims(kern::symLayouts(consumerOp)[pos],
                      kern::symArray(consumerOp, "shape"), interShape);
    if (!symDims)
      return nullptr;
  } else {
    // Rule 4.
    dims = mapDims(layoutOf(consumer.layouts(), pos), consumer.shape(), shape);
    if (!dims)
      return nullptr;
  }
  // Rule 5.
  if (symbolic ? symDims->broadcast : dims->broadcast > 1) {
    bool costly = false;
    producer.getBody().walk([&](Operation *op) { costly |= isTranscendental(op); });
    if (costly)
      return nullptr;
  }
  // Rule 6.
  for (Value in : producer.getInputs())
    if (writtenBetween(rootOf(in), producer->getBlock(), position[producer],
                       position[consumerOp]))
      return nullptr;

  // The fused consumer: its inputs with the intermediate replaced by the
  // producer's, the producer's layouts composed.
  SmallVector<Value> inputs;
  SmallVector<Attribute> layouts, symLayouts;
  MLIRContext *ctx = producer.getContext();
  SmallVector<SmallVector<sym::Expr>> consumerSym, producerSym;
  if (symbolic) {
    consumerSym = kern::symLayouts(consumerOp);
    producerSym = kern::symLayouts(producer);
  }
  // A composed symbolic layout: its values at the bounds and its mirror.
  auto addSym = [&](ArrayRef<sym::Expr> layout) {
    SmallVector<int64_t> values;
    for (const sym::Expr &e : layout)
      values.push_back(e.eval(bounds).value_or(0));
    layouts.push_back(DenseI64ArrayAttr::get(ctx, values));
    symLayouts.push_back(sym::toAffine(ctx, layout));
  };
  for (auto [i, in] : llvm::enumerate(consumer.inputs())) {
    if (i != pos) {
      inputs.push_back(in);
      if (symbolic)
        addSym(consumerSym[i]);
      else
        layouts.push_back(consumer.layouts()[i]);
      continue;
    }
    for (auto [k, pin] : llvm::enumerate(producer.getInputs())) {
      inputs.push_back(pin);
      if (symbolic)
        addSym(compose(producerSym[k], *symDims));
      else
        layouts.push_back(DenseI64ArrayAttr::get(
            ctx, compose(layoutOf(producer.getLayouts(), k), *dims)));
    }
  }
  for (size_t o = 0; o < consumer.outputs().size(); ++o) {
    size_t i = consumer.inputs().size() + o;
    if (symbolic)
      addSym(consumerSym[i]);
    else
      layouts.push_back(consumer.layouts()[i]);
  }

  OpBuilder b(consumerOp);
  OperationState state(consumerOp->getLoc(), consumerOp->getName());
  state.addOperands(inputs);
  SmallVector<Value> outputs(consumer.outputs());
  state.addOperands(outputs);
  for (NamedAttribute attr : consumerOp->getAttrs())
    if (attr.getName() != "layouts" &&
        attr.getName() != "operandSegmentSizes" &&
        attr.getName() != kern::kSymAttr)
      state.addAttribute(attr.getName(), attr.getValue());
  state.addAttribute("layouts", ArrayAttr::get(ctx, layouts));
  if (symbolic)
    state.addAttribute(
        kern::kSymAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("layouts", ArrayAttr::get(ctx, symLayouts)),
             b.getNamedAttr(
                 "shape",
                 sym::toAffine(ctx, kern::symArray(consumerOp, "shape")))}));
  state.addAttribute("operandSegmentSizes",
                     b.getDenseI32ArrayAttr({static_cast<int32_t>(inputs.size()),
                                             static_cast<int32_t>(outputs.size())}));
  Region *region = state.addRegion();
  Block *block = new Block();
  region->push_back(block);
  Block &cBody = consumer.body(), &pBody = producer.getBody().front();
  IRMapping mapping;
  for (auto [i, arg] : llvm::enumerate(cBody.getArguments())) {
    if (i == pos) {
      for (BlockArgument parg : pBody.getArguments())
        mapping.map(parg, block->addArgument(parg.getType(), parg.getLoc()));
      continue;
    }
    mapping.map(arg, block->addArgument(arg.getType(), arg.getLoc()));
  }
  OpBuilder bb(ctx); // the region has no parent op yet
  bb.setInsertionPointToEnd(block);
  for (Operation &op : pBody.without_terminator())
    bb.clone(op, mapping);
  mapping.map(cBody.getArgument(pos),
              mapping.lookup(pBody.getTerminator()->getOperand(0)));
  for (Operation &op : cBody)
    bb.clone(op, mapping);

  Operation *fused = b.create(state); // generated kernels have no results
  position[fused] = position[consumerOp];
  bodyOps[fused] = numBodyOps(consumerOp) + numBodyOps(producer) - 1;
  for (Operation *gone : {consumerOp, producer.getOperation()}) {
    worklist.erase({position[gone], gone});
    position.erase(gone);
    bodyOps.erase(gone);
    gone->erase();
  }
  if (alloc->use_empty())
    alloc->erase();
  return fused;
}

} // namespace
