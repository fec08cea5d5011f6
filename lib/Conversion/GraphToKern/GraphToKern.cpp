//===- GraphToKern.cpp - the convert-graph-to-kern pass --------------------===//
//
// Builds the bufferized kern function next to the graph one, op by op in
// program order, then replaces it. The per-family lowerings live in
// Lower*.cpp; this file holds the buffer bookkeeping and kernel builders.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "dialects/Graph/IR/ConstantEval.h"
#include "shardc/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace shardc {
#define GEN_PASS_DEF_CONVERTGRAPHTOKERN
#include "shardc/Conversion/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using namespace shardc::kern;

//===----------------------------------------------------------------------===//
// KernLowering
//===----------------------------------------------------------------------===//

Value KernLowering::get(Value v) {
  auto it = buffers.find(v);
  if (it != buffers.end())
    return it->second;
  if (auto view = views.find(v); view != views.end()) {
    // A dense copy for a reader that needs one.
    Value dense = alloc(v.getLoc(), graph::dimsOf(v), elemOf(v));
    copy(v.getLoc(),
         access(view->second.buffer, view->second.offset, view->second.strides),
         dense);
    buffers[v] = dense;
    return dense;
  }
  Operation *def = v.getDefiningOp();
  if (def && deferred.contains(def) && lowered.insert(def).second) {
    // A deferred layout op something reads as a buffer after all: lower it
    // here (layout lowerings do not fail).
    (void)table->lookup(def->getName().getStringRef())(def, *this);
    return buffers.lookup(v);
  }
  auto constant = v.getDefiningOp<graph::ConstantOp>();
  assert(constant && "graph value lowered before its producer");
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  auto type = cast<ShapedType>(v.getType());
  Value weight = b.create<WeightOp>(
      constant.getLoc(), MemRefType::get(type.getShape(), type.getElementType()),
      constant.getValue(), IntegerAttr());
  // A window of another constant's data stays one (graph::Window).
  for (StringRef name : {graph::kSourceAttr, graph::kSourceOffsetAttr})
    if (Attribute a = constant->getAttr(name))
      weight.getDefiningOp()->setAttr(name, a);
  buffers[v] = weight;
  return weight;
}

Value KernLowering::result(Value v, bool optional) {
  auto pending = pendingOutputs.find(v);
  if (pending != pendingOutputs.end() && !pending->second.empty()) {
    Value out = pending->second.front();
    pending->second.erase(pending->second.begin());
    if (pending->second.empty())
      pendingOutputs.erase(pending);
    buffers[v] = out;
    return out;
  }
  if (optional && v.use_empty())
    return Value();
  Value buffer = alloc(v.getLoc(), graph::dimsOf(v), elemOf(v));
  buffers[v] = buffer;
  return buffer;
}

std::optional<TypedAttr> KernLowering::splat(Value v) {
  auto constant = v.getDefiningOp<graph::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<TypedAttr>();
}

Value KernLowering::view(Location loc, Value buffer, ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(buffer.getType());
  // A static view of a buffer with dynamic dims would read it at the bound.
  unported |= isSymbolic(buffer);
  if (type.getShape() == shape)
    return buffer;
  return b.create<ViewOp>(loc, MemRefType::get(shape, type.getElementType()),
                          buffer);
}

Value KernLowering::alloc(Location loc, ArrayRef<int64_t> shape, Type elem) {
  return b.create<AllocOp>(loc, MemRefType::get(shape, elem), IntegerAttr());
}

/// Records `shape` as the symbolic shape of `op`'s result when it is one.
static void mirrorResult(Operation *op, const SymShape &shape) {
  if (shape.isSymbolic())
    addMirrors(op,
               {NamedAttribute(StringAttr::get(op->getContext(), kSymResult),
                               sym::toAffine(op->getContext(), shape.sym))});
}

Value KernLowering::alloc(Location loc, const SymShape &shape, Type elem) {
  Value buffer = alloc(loc, shape.bound, elem);
  mirrorResult(buffer.getDefiningOp(), shape);
  return buffer;
}

Value KernLowering::view(Location loc, Value buffer, const SymShape &shape) {
  SymShape from = shapeOfBuffer(buffer);
  if (from.bound == shape.bound && from.sym == shape.sym)
    return buffer;
  auto type = cast<MemRefType>(buffer.getType());
  Value v = b.create<ViewOp>(
      loc, MemRefType::get(shape.bound, type.getElementType()), buffer);
  mirrorResult(v.getDefiningOp(), shape);
  return v;
}

SymShape KernLowering::shapeOfBuffer(Value buffer) {
  SymShape shape;
  shape.bound.assign(shapeOf(buffer).begin(), shapeOf(buffer).end());
  shape.sym = symShape(buffer);
  return shape;
}

int64_t KernLowering::atBound(const sym::Expr &e) const {
  std::optional<int64_t> v = e.eval(bounds);
  assert(v && "a symbolic size beyond the function's symbols");
  return *v;
}

Access KernLowering::access(Value buffer, const sym::Expr &offset,
                            ArrayRef<sym::Expr> strides) const {
  Access a{buffer, {atBound(offset)}};
  for (const sym::Expr &e : strides)
    a.layout.push_back(atBound(e));
  if (!offset.isConstant() || isSymbolic(strides)) {
    a.sym.push_back(offset);
    a.sym.append(strides.begin(), strides.end());
  }
  return a;
}

SmallVector<sym::Expr> KernLowering::strides(ArrayRef<sym::Expr> shape) {
  return symStrides(shape);
}

Value KernLowering::converted(Location loc, Value buffer, Type to) {
  auto type = cast<MemRefType>(buffer.getType());
  Type from = type.getElementType();
  SymShape shape = shapeOfBuffer(buffer);
  Value out = alloc(loc, shape, to);
  map(loc, shape, {dense(buffer)}, {dense(out)}, [&](Scalar &s, ValueRange a) {
    return SmallVector<Value>{s.convert(a[0], from, to)};
  });
  return out;
}

Access KernLowering::dense(Value buffer) {
  Access a{buffer, {0}};
  a.layout.append(rowMajorStrides(cast<MemRefType>(buffer.getType()).getShape()));
  SmallVector<sym::Expr> shape = symShape(buffer);
  if (isSymbolic(shape)) {
    a.sym.push_back(sym::Expr(0));
    llvm::append_range(a.sym, strides(shape));
  }
  return a;
}

Access KernLowering::broadcast(Value buffer, ArrayRef<int64_t> iter) {
  ArrayRef<int64_t> shape = cast<MemRefType>(buffer.getType()).getShape();
  SmallVector<int64_t> bounds = rowMajorStrides(shape);
  SmallVector<sym::Expr> symbolic = symShape(buffer);
  bool isSym = isSymbolic(symbolic);
  SmallVector<sym::Expr> symStrides = strides(symbolic);
  Access a{buffer, {0}};
  if (isSym)
    a.sym.push_back(sym::Expr(0));
  size_t lead = iter.size() - shape.size();
  for (size_t d = 0; d < iter.size(); ++d) {
    // A static 1 broadcasts; a dynamic dim is the iteration's own (the
    // graph's inference broadcasts symbols only when they are equal).
    bool zero = d < lead || (shape[d - lead] == 1 && iter[d] != 1 &&
                             symbolic[d - lead].isConstant());
    a.layout.push_back(zero ? 0 : bounds[d - lead]);
    if (isSym)
      a.sym.push_back(zero ? sym::Expr(0) : symStrides[d - lead]);
  }
  return a;
}

static ArrayAttr layoutsAttr(OpBuilder &b, ArrayRef<Access> ins,
                             ArrayRef<Access> outs) {
  SmallVector<Attribute> layouts;
  for (const Access &a : ins)
    layouts.push_back(b.getDenseI64ArrayAttr(a.layout));
  for (const Access &a : outs)
    layouts.push_back(b.getDenseI64ArrayAttr(a.layout));
  return b.getArrayAttr(layouts);
}

static bool anySymbolic(ArrayRef<Access> ins, ArrayRef<Access> outs) {
  auto symbolic = [](const Access &a) { return !a.sym.empty(); };
  return llvm::any_of(ins, symbolic) || llvm::any_of(outs, symbolic);
}

/// The `kern.sym` mirrors of a generated kernel over `shape` when it or an
/// access is symbolic: `shape`, and `layouts` (the static layout as
/// constants where an access has no mirror).
static void mirrorKernel(OpBuilder &b, Operation *op, const SymShape &shape,
                         ArrayRef<Access> ins, ArrayRef<Access> outs) {
  if (!shape.isSymbolic() && !anySymbolic(ins, outs))
    return;
  MLIRContext *ctx = b.getContext();
  SmallVector<Attribute> layouts;
  auto add = [&](const Access &a) {
    SmallVector<sym::Expr> exprs(a.sym);
    if (exprs.empty())
      for (int64_t v : a.layout)
        exprs.push_back(sym::Expr(v));
    layouts.push_back(sym::toAffine(ctx, exprs));
  };
  llvm::for_each(ins, add);
  llvm::for_each(outs, add);
  addMirrors(op, {b.getNamedAttr("shape", sym::toAffine(ctx, shape.sym)),
                  b.getNamedAttr("layouts", b.getArrayAttr(layouts))});
}

static SymShape staticShape(ArrayRef<int64_t> shape) {
  SymShape s;
  for (int64_t d : shape)
    s.push_back(d, sym::Expr(d));
  return s;
}

template <typename OpTy>
static void buildBody(OpBuilder &b, Location loc, OpTy op,
                      ArrayRef<Access> ins, const BodyFn &body) {
  Block *block = new Block();
  op.getBody().push_back(block);
  for (const Access &a : ins)
    block->addArgument(
        bodyType(cast<MemRefType>(a.buffer.getType()).getElementType()), loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(block);
  Scalar s{b, loc};
  SmallVector<Value> results = body(s, block->getArguments());
  b.create<YieldOp>(loc, results);
}

Operation *KernLowering::map(Location loc, ArrayRef<int64_t> shape,
                             ArrayRef<Access> ins, ArrayRef<Access> outs,
                             const BodyFn &body) {
  unported |= anySymbolic(ins, outs);
  return map(loc, staticShape(shape), ins, outs, body);
}

Operation *KernLowering::map(Location loc, const SymShape &space,
                             ArrayRef<Access> ins, ArrayRef<Access> outs,
                             const BodyFn &body) {
  ArrayRef<int64_t> shape = space.bound;
  SmallVector<Value> inBufs, outBufs;
  for (const Access &a : ins)
    inBufs.push_back(a.buffer);
  for (const Access &a : outs)
    outBufs.push_back(a.buffer);
  auto op = b.create<MapOp>(loc, inBufs, outBufs,
                            b.getDenseI64ArrayAttr(shape),
                            layoutsAttr(b, ins, outs));
  mirrorKernel(b, op, space, ins, outs);
  buildBody(b, loc, op, ins, body);
  return op;
}

Operation *KernLowering::reduce(Location loc, StringRef kind,
                                ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> reduceDims,
                                ArrayRef<Access> ins, Access out,
                                const BodyFn &body) {
  unported |= anySymbolic(ins, {out});
  return reduce(loc, kind, staticShape(shape), reduceDims, ins, out, body);
}

Operation *KernLowering::reduce(Location loc, StringRef kind,
                                const SymShape &space,
                                ArrayRef<int64_t> reduceDims,
                                ArrayRef<Access> ins, Access out,
                                const BodyFn &body) {
  ArrayRef<int64_t> shape = space.bound;
  SmallVector<Value> inBufs;
  for (const Access &a : ins)
    inBufs.push_back(a.buffer);
  auto op = b.create<ReduceOp>(
      loc, inBufs, ValueRange{out.buffer}, b.getDenseI64ArrayAttr(shape),
      layoutsAttr(b, ins, {out}), b.getDenseI64ArrayAttr(reduceDims),
      b.getStringAttr(kind));
  mirrorKernel(b, op, space, ins, {out});
  buildBody(b, loc, op, ins, body);
  return op;
}

void KernLowering::copy(Location loc, Value src, Value dst) {
  copy(loc, dense(src), dst);
}

void KernLowering::copy(Location loc, const Access &src, Value dst) {
  map(loc, shapeOfBuffer(dst), {src}, {dense(dst)},
      [](Scalar &, ValueRange args) { return SmallVector<Value>(args); });
}

LogicalResult KernLowering::elementwise(Operation *op, ValueRange operands,
                                        const BodyFn &body) {
  Value res = op->getResult(0);
  SymShape space = graph::dimsOf(res);
  ArrayRef<int64_t> shape = space.bound;
  SmallVector<Access> ins;
  SmallVector<std::optional<TypedAttr>> splats;
  for (Value v : operands) {
    splats.push_back(splat(v));
    if (!splats.back())
      ins.push_back(broadcast(get(v), shape));
  }
  Access out = dense(result(res));
  map(op->getLoc(), space, ins, {out}, [&](Scalar &s, ValueRange args) {
    SmallVector<Value> full;
    size_t next = 0;
    for (auto [v, sp] : llvm::zip(operands, splats)) {
      if (!sp) {
        full.push_back(args[next++]);
        continue;
      }
      Type t = bodyType(sp->getType());
      Attribute attr = *sp;
      if (auto ia = dyn_cast<IntegerAttr>(attr))
        attr = IntegerAttr::get(t, ia.getValue());
      full.push_back(s.b.create<arith::ConstantOp>(s.loc, cast<TypedAttr>(attr)));
    }
    return body(s, full);
  });
  return success();
}

LogicalResult KernLowering::fail(Operation *op, const Twine &msg) {
  return op->emitError() << "cannot lower '" << op->getName() << "': " << msg;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertGraphToKernPass
    : shardc::impl::ConvertGraphToKernBase<ConvertGraphToKernPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

static StringAttr nameOf(DictionaryAttr attrs, unsigned i, StringRef prefix,
                         Builder &b) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("graph.name"))
      return name;
  return b.getStringAttr(prefix + std::to_string(i));
}

/// Refuses dynamic dims where `op`'s lowering (the ops after `before` in
/// `entry`) does not handle them.
static LogicalResult checkLowered(Operation *op, KernLowering &l, Block *entry,
                                  Operation *before) {
  if (!op->getParentOp()->hasAttr(graph::kDimsAttr))
    return success();
  if (l.unported)
    return l.fail(op, "does not take dynamic dims yet (give the model's "
                      "inputs a static shape with --input-shape)");
  auto it = before ? std::next(before->getIterator()) : entry->begin();
  for (Operation &k : llvm::make_range(it, entry->end())) {
    if (k.hasTrait<OpTrait::KernSymbolicShapes>() ||
        llvm::none_of(k.getOperands(), [](Value v) {
          return isa<MemRefType>(v.getType()) && isSymbolic(v);
        }))
      continue;
    return l.fail(op, "its kern op '" + k.getName().getStringRef() +
                          "' does not take dynamic dims yet (give the "
                          "model's inputs a static shape with --input-shape)");
  }
  return success();
}

/// Lowers one graph program (a func.func on tensors) into a kern program of
/// the same name and attributes (`kern.ranks` and the like carry over).
static LogicalResult lowerProgram(func::FuncOp func, bool halfGemm,
                                  bool int8Gemm) {
  MLIRContext *context = func.getContext();
  static const LoweringTable table = [] {
    LoweringTable t;
    addElementwiseLowerings(t);
    addShapeLowerings(t);
    addLinalgLowerings(t);
    addConvLowerings(t);
    addSelectionLowerings(t);
    addScatterLowerings(t);
    addMoeLowerings(t);
    addQuantLowerings(t);
    addFusedLowerings(t);
    addAttentionLowerings(t);
    addDistLowerings(t);
    return t;
  }();

  FunctionType type = func.getFunctionType();
  auto toMemRef = [](Type t) {
    auto st = cast<ShapedType>(t);
    return MemRefType::get(st.getShape(), st.getElementType());
  };
  SmallVector<Type> argTypes;
  for (Type t : type.getInputs())
    argTypes.push_back(toMemRef(t));
  for (Type t : type.getResults())
    argTypes.push_back(toMemRef(t));

  OpBuilder b(func);
  auto kernFunc = b.create<func::FuncOp>(
      func.getLoc(), func.getName(), FunctionType::get(context, argTypes, {}));
  for (NamedAttribute attr : func->getDiscardableAttrs())
    if (attr.getName() != graph::kDimsAttr)
      kernFunc->setAttr(attr.getName(), attr.getValue());
  // Dynamic dims: the same symbols, and each argument's symbolic shape.
  if (Attribute dims = func->getAttr(graph::kDimsAttr))
    kernFunc->setAttr(kDimsAttr, dims);
  unsigned numInputs = type.getNumInputs();
  // All at once: setArgAttr per argument would rebuild (and unique) the
  // array of every argument's attributes each time, quadratic in the I/O.
  // A micro-batched program (dist-microbatch) keeps which inputs and
  // outputs are one micro-batch's rows (`dist.batched`).
  SmallVector<DictionaryAttr> argAttrs;
  auto ioAttrs = [&](DictionaryAttr dict, unsigned i, StringRef key,
                     StringRef what, Type t) {
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr(key, nameOf(dict, i, what, b))};
    if (dict && dict.get("dist.batched"))
      attrs.push_back(b.getNamedAttr("dist.batched", b.getUnitAttr()));
    if (graph::isSymbolic(t))
      attrs.push_back(b.getNamedAttr(
          kSymAttr, sym::toAffine(context, graph::dimsOf(t).sym)));
    return b.getDictionaryAttr(attrs);
  };
  for (unsigned i = 0; i < numInputs; ++i)
    argAttrs.push_back(ioAttrs(func.getArgAttrDict(i), i, "kern.input", "input",
                               type.getInput(i)));
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    argAttrs.push_back(ioAttrs(func.getResultAttrDict(i), i, "kern.output",
                               "output", type.getResult(i)));
  kernFunc.setAllArgAttrs(argAttrs);

  Block *entry = kernFunc.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  KernLowering lowering(b, entry);
  FailureOr<SmallVector<graph::Symbol>> symbols = graph::readSymbols(func);
  if (failed(symbols))
    return failure();
  for (const graph::Symbol &sym : *symbols)
    lowering.bounds.push_back(sym.max);
  lowering.halfGemm = halfGemm;
  lowering.int8Gemm = int8Gemm;
  Block &body = func.getBody().front();
  for (auto [arg, buffer] :
       llvm::zip(body.getArguments(), entry->getArguments()))
    lowering.buffers[arg] = buffer;
  for (unsigned i = 0; i < numInputs; ++i)
    if (auto cache =
            func.getArgAttrOfType<DictionaryAttr>(i, graph::kCacheAttr)) {
      auto output = cache.getAs<IntegerAttr>("output");
      auto axis = cache.getAs<IntegerAttr>("axis");
      if (!output || !axis || output.getInt() < 0 ||
          output.getInt() >= type.getNumResults())
        return func.emitError()
               << "malformed " << graph::kCacheAttr << " on argument " << i;
      lowering.caches[body.getArgument(i)] = {output.getInt(), axis.getInt()};
    }
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    lowering.outputArgs.push_back(entry->getArgument(numInputs + i));
  Operation *ret = body.getTerminator();
  for (auto [i, v] : llvm::enumerate(ret->getOperands()))
    lowering.pendingOutputs[v].push_back(entry->getArgument(numInputs + i));
  // Returned block arguments and constants are copied at the end.
  for (Value arg : body.getArguments())
    lowering.pendingOutputs.erase(arg);

  // Layout ops whose every use reads them through strides are deferred
  // (users first: reverse program order).
  static const AbsorbTable absorbers = [] {
    AbsorbTable t;
    addAttentionAbsorbers(t);
    return t;
  }();
  lowering.table = &table;
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (!isa<graph::SplitOp, graph::SliceOp, graph::TransposeOp,
             graph::ReshapeOp, graph::SqueezeOp, graph::UnsqueezeOp,
             graph::FlattenOp>(op))
      continue;
    bool absorbed = !op.use_empty();
    for (OpOperand &use : op.getUses()) {
      Operation *user = use.getOwner();
      auto a = absorbers.find(user->getName().getStringRef());
      absorbed &= lowering.deferred.contains(user) ||
                  (a != absorbers.end() && a->second(use));
    }
    if (absorbed)
      lowering.deferred.insert(&op);
  }

  bool failed = false;
  for (Operation &op : body.without_terminator()) {
    if (isa<graph::ConstantOp>(op) || lowering.deferred.contains(&op) ||
        lowering.lowered.contains(&op))
      continue; // materialized where read, or lowered out of order
    auto it = table.find(op.getName().getStringRef());
    if (it == table.end()) {
      op.emitError() << "no kern lowering for '" << op.getName() << "'";
      failed = true;
      break;
    }
    // Dynamic dims: the op's kern ops must all take them (the graph
    // verifier let only ops with a symbolic lowering through, and a
    // lowering that builds a kernel from the bound says so in `unported`).
    Operation *before = entry->empty() ? nullptr : &entry->back();
    lowering.unported = false;
    if (mlir::failed(it->second(&op, lowering)) ||
        mlir::failed(checkLowered(&op, lowering, entry, before))) {
      failed = true;
      break;
    }
  }
  if (failed) {
    kernFunc.erase();
    return failure();
  }
  // The past inputs whose append the lowering made in place: only those
  // are a cache (the runtime fills the output, not the input, for them).
  // A marked past that a partitioned program slices first is read as an
  // input like any other.
  for (Value arg : lowering.inPlaceCaches) {
    auto [output, axis] = lowering.caches.lookup(arg);
    kernFunc.setArgAttr(
        cast<BlockArgument>(arg).getArgNumber(), kCacheAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("output", b.getI64IntegerAttr(output)),
             b.getNamedAttr("axis", b.getI64IntegerAttr(axis))}));
  }
  // Outputs nobody wrote directly: views, inputs, constants, duplicates.
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    Value out = entry->getArgument(numInputs + i);
    auto view = lowering.views.find(v);
    if (view != lowering.views.end() && view->second.buffer == out)
      continue; // a KV cache's present, written in place
    if (lowering.buffers.lookup(v) != out)
      lowering.copy(ret->getLoc(), lowering.get(v), out);
  }
  b.create<func::ReturnOp>(ret->getLoc());
  func.erase();
  return success();
}

void ConvertGraphToKernPass::runOnOperation() {
  ModuleOp module = getOperation();
  // Every function is a program: the global one (@main, from the importer)
  // or one per distinct rank program.
  SmallVector<func::FuncOp> programs(module.getOps<func::FuncOp>());
  if (programs.empty()) {
    module.emitError("no func.func to lower");
    return signalPassFailure();
  }
  for (func::FuncOp func : programs)
    if (failed(lowerProgram(func, halfGemm, int8Gemm)))
      return signalPassFailure();
}
