//===- KvHeads.cpp - KV heads copied for more tp ranks than KV heads ------===//

#include "passes/Sharding/KvHeads.h"
#include "passes/Sharding/Retype.h"
#include "passes/Sharding/Slicing.h"

#include "dialects/Graph/IR/ConstantEval.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <cstring>
#include <map>

using namespace mlir;
using namespace shardc;

using graph::SymShape;

namespace {

/// `shape` with dim `dim` of static `size` (the head dim, never dynamic).
SymShape withDim(SymShape shape, int64_t dim, int64_t size) {
  shape.bound[dim] = size;
  shape.sym[dim] = sym::Expr(size);
  return shape;
}

RankedTensorType withDim(Type t, int64_t dim, int64_t size) {
  return graph::tensorType(withDim(graph::dimsOf(t), dim, size),
                           cast<RankedTensorType>(t).getElementType());
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// Builds values equal to gather(v, indices, dim) for the values of one
/// chain, pushing the gather up through head-wise ops to the constants,
/// where it is done at compile time. Each (value, dim, indices) is built
/// once.
class HeadCopier {
public:
  Value copy(Value v, int64_t dim, ArrayRef<int64_t> indices);
  /// The ops the copies replace, to erase once unused.
  SmallVector<Operation *> replaced;

private:
  Value build(Value v, int64_t dim, ArrayRef<int64_t> indices);
  Value constant(graph::ConstantOp c, int64_t dim, ArrayRef<int64_t> indices);
  Value gatherOp(Value v, int64_t dim, ArrayRef<int64_t> indices);
  /// `op` cloned after itself with `operands`, its result's `dim` resized.
  Value cloneWith(Operation *op, ArrayRef<Value> operands, int64_t dim,
                  int64_t size);

  std::map<std::tuple<void *, int64_t, std::vector<int64_t>>, Value> built;
};

Value HeadCopier::copy(Value v, int64_t dim, ArrayRef<int64_t> indices) {
  auto key = std::make_tuple(v.getAsOpaquePointer(), dim,
                             std::vector<int64_t>(indices.begin(),
                                                  indices.end()));
  auto it = built.find(key);
  if (it != built.end())
    return it->second;
  Value out = build(v, dim, indices);
  built[key] = out;
  return out;
}

Value HeadCopier::cloneWith(Operation *op, ArrayRef<Value> operands,
                            int64_t dim, int64_t size) {
  OpBuilder b(op);
  b.setInsertionPointAfter(op);
  IRMapping map;
  map.map(op->getOperands(), operands);
  Operation *clone = b.clone(*op, map);
  clone->getResult(0).setType(withDim(op->getResult(0).getType(), dim, size));
  replaced.push_back(op);
  return clone->getResult(0);
}

Value HeadCopier::gatherOp(Value v, int64_t dim, ArrayRef<int64_t> indices) {
  OpBuilder b(v.getContext());
  b.setInsertionPointAfterValue(v);
  return gatherAt(b, v.getLoc(), v, dim, indices);
}

Value HeadCopier::constant(graph::ConstantOp c, int64_t dim,
                           ArrayRef<int64_t> indices) {
  auto type = cast<RankedTensorType>(c.getType());
  RankedTensorType out =
      withDim(type, dim, static_cast<int64_t>(indices.size()));
  // Named after the weight (its resource key, else its location's name).
  std::string key = "constant";
  if (auto res = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
    key = res.getRawHandle().getKey().str();
  else if (auto name = dyn_cast<NameLoc>(c.getLoc()))
    key = name.getName().str();
  key += ".kv_copies";
  Location loc = NameLoc::get(StringAttr::get(c.getContext(), key));
  OpBuilder b(c);
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      dense && dense.isSplat())
    return b.create<graph::ConstantOp>(loc, dense.resizeSplat(out));
  // Planning a model whose weights are absent: the copy has no data either.
  if (graph::isShapeOnly(c.getValue()) && !c->hasAttr(graph::kSourceAttr))
    return b.create<graph::ConstantOp>(loc,
                                       graph::shapeOnlyElements(out, key));
  std::optional<graph::Window> w = graph::windowOf(c, c.getValue());
  if (!w)
    return gatherOp(c, dim, indices);
  std::vector<char> whole = graph::windowBytes(*w, type.getShape());
  int64_t outer = product(type.getShape().take_front(dim));
  int64_t rows = type.getDimSize(dim);
  int64_t block = product(type.getShape().drop_front(dim + 1)) * w->elemBytes;
  ElementsAttr data =
      graph::elementsFromBytes(out, key, [&](MutableArrayRef<char> bytes) {
        char *to = bytes.data();
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i : indices) {
            std::memcpy(to, whole.data() + (o * rows + i) * block, block);
            to += block;
          }
        return true;
      });
  if (!data)
    return gatherOp(c, dim, indices);
  return b.create<graph::ConstantOp>(loc, data);
}

Value HeadCopier::build(Value v, int64_t dim, ArrayRef<int64_t> indices) {
  int64_t n = static_cast<int64_t>(indices.size());
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumResults() != 1)
    return gatherOp(v, dim, indices);
  if (auto c = dyn_cast<graph::ConstantOp>(op))
    return constant(c, dim, indices);
  auto type = cast<RankedTensorType>(v.getType());

  // Elementwise with numpy broadcasting: an operand broadcast along `dim`
  // stays as it is (of one head, as multi-query attention's, every operand
  // is copied: a broadcast one then too, which is the same).
  if (isa<graph::AddOp, graph::SubOp, graph::MulOp, graph::DivOp,
          graph::PowOp, graph::MaxOp, graph::MinOp>(op)) {
    SmallVector<Value> operands;
    for (Value x : op->getOperands()) {
      auto t = cast<RankedTensorType>(x.getType());
      int64_t d = dim - (type.getRank() - t.getRank());
      bool broadcast =
          d < 0 || (t.getDimSize(d) == 1 && type.getDimSize(dim) != 1);
      operands.push_back(broadcast ? x : copy(x, d, indices));
    }
    return cloneWith(op, operands, dim, n);
  }
  // Unary elementwise (their attributes say nothing of shapes).
  if (isa<graph::NegOp, graph::ExpOp, graph::LogOp, graph::TanhOp,
          graph::SigmoidOp, graph::ReluOp, graph::AbsOp, graph::CastOp,
          graph::IdentityOp, graph::CosOp, graph::SinOp>(op))
    return cloneWith(op, {copy(op->getOperand(0), dim, indices)}, dim, n);
  if (auto t = dyn_cast<graph::TransposeOp>(op))
    return cloneWith(op, {copy(t.getInput(), t.getPerm()[dim], indices)},
                     dim, n);
  // A slice or concatenation off the head dim.
  if (auto s = dyn_cast<graph::SliceOp>(op)) {
    auto in = cast<RankedTensorType>(s.getInput().getType());
    if (s.getStarts()[dim] != 0 || s.getSteps()[dim] != 1 ||
        s.getEnds()[dim] != in.getDimSize(dim))
      return gatherOp(v, dim, indices);
    SymShape ends;
    ends.bound.assign(s.getEnds().begin(), s.getEnds().end());
    ends.sym = graph::symAttr(op->getAttrDictionary(), "ends", ends.bound);
    Value r = cloneWith(op, {copy(s.getInput(), dim, indices)}, dim, n);
    setShapeAttr(r.getDefiningOp(), "ends", withDim(ends, dim, n));
    return r;
  }
  if (auto c = dyn_cast<graph::ConcatOp>(op)) {
    if (static_cast<int64_t>(c.getAxis()) == dim)
      return gatherOp(v, dim, indices);
    SmallVector<Value> operands;
    for (Value x : c.getInputs())
      operands.push_back(copy(x, dim, indices));
    return cloneWith(op, operands, dim, n);
  }
  // A reshape that keeps the dims before `dim` (as a product) and takes
  // `dim` with the dims after it up to some point from one input dim:
  // the heads split off a projection's columns, or an unsqueeze. Head i of
  // the result is a block of `inner` elements of that input dim.
  if (auto r = dyn_cast<graph::ReshapeOp>(op)) {
    auto in = cast<RankedTensorType>(r.getInput().getType());
    int64_t before = product(type.getShape().take_front(dim));
    int64_t k = 0, seen = 1;
    while (k < in.getRank() && seen < before)
      seen *= in.getDimSize(k++);
    if (seen != before || k >= in.getRank() ||
        in.getDimSize(k) % type.getDimSize(dim) != 0)
      return gatherOp(v, dim, indices);
    int64_t inner = in.getDimSize(k) / type.getDimSize(dim);
    int64_t e = dim + 1, after = 1;
    while (e < type.getRank() && after < inner)
      after *= type.getDimSize(e++);
    if (after != inner)
      return gatherOp(v, dim, indices);
    // With dynamic dims the same at every size: the dims before agree as
    // symbolic products, and the head's dims are static.
    SymShape inDims = graph::dimsOf(in), outDims = graph::dimsOf(type);
    if (sym::product(ArrayRef<sym::Expr>(inDims.sym).take_front(k)) !=
            sym::product(ArrayRef<sym::Expr>(outDims.sym).take_front(dim)) ||
        !inDims.sym[k].isConstant() ||
        !sym::product(ArrayRef<sym::Expr>(outDims.sym).slice(dim, e - dim))
             .isConstant())
      return gatherOp(v, dim, indices);
    SmallVector<int64_t> blocks;
    for (int64_t i : indices)
      for (int64_t j = 0; j < inner; ++j)
        blocks.push_back(i * inner + j);
    Value x = copy(r.getInput(), k, blocks);
    Value out = cloneWith(op, {x}, dim, n);
    setShapeAttr(out.getDefiningOp(), "shape", graph::dimsOf(out));
    return out;
  }
  // A projection's columns: the last dim of a matmul (or linear) by a
  // rank-2 right-hand side, which holds them.
  if (isa<graph::MatMulOp, graph::LinearOp>(op) &&
      dim == type.getRank() - 1 &&
      cast<RankedTensorType>(op->getOperand(1).getType()).getRank() == 2) {
    SmallVector<Value> operands{op->getOperand(0),
                                copy(op->getOperand(1), 1, indices)};
    if (auto linear = dyn_cast<graph::LinearOp>(op)) {
      if (Value bias = linear.getBias()) {
        auto t = cast<RankedTensorType>(bias.getType());
        int64_t last = t.getRank() - 1;
        bool broadcast = t.getDimSize(last) == 1 && type.getDimSize(dim) != 1;
        operands.push_back(broadcast ? bias : copy(bias, last, indices));
      }
      if (Value residual = linear.getResidual())
        operands.push_back(copy(residual, dim, indices));
    }
    return cloneWith(op, operands, dim, n);
  }
  return gatherOp(v, dim, indices);
}

/// The repeat of KV heads feeding attention operand `v`: reshape(expand(
/// reshape(x))) from x of [..., kv, T, D] through [..., kv, 1, T, D] and
/// [..., kv, rep, T, D] to [..., kv * rep, T, D]. Returns x.
Value repeatedHeads(Value v, int64_t &kv) {
  auto merged = v.getDefiningOp<graph::ReshapeOp>();
  if (!merged)
    return Value();
  auto expand = merged.getInput().getDefiningOp<graph::ExpandOp>();
  if (!expand)
    return Value();
  auto unsqueeze = expand.getInput().getDefiningOp<graph::ReshapeOp>();
  if (!unsqueeze)
    return Value();
  auto out = cast<RankedTensorType>(v.getType());
  auto wide = cast<RankedTensorType>(expand.getType());
  auto one = cast<RankedTensorType>(expand.getInput().getType());
  Value x = unsqueeze.getInput();
  auto in = cast<RankedTensorType>(x.getType());
  int64_t r = out.getRank();
  if (r < 3 || in.getRank() != r || wide.getRank() != r + 1 ||
      one.getRank() != r + 1)
    return Value();
  int64_t h = r - 3; // the head dim
  // Compared as symbolic shapes (dynamic dims equal for every size); the
  // head dims are static.
  SymShape outDims = graph::dimsOf(out), wideDims = graph::dimsOf(wide),
           oneDims = graph::dimsOf(one), inDims = graph::dimsOf(in);
  ArrayRef<sym::Expr> o = outDims.sym, w = wideDims.sym, s = oneDims.sym,
                      i = inDims.sym;
  auto isStatic = [](const sym::Expr &e) { return e.isConstant(); };
  bool shaped = o.take_front(h) == i.take_front(h) &&
                w.take_front(h) == i.take_front(h) &&
                s.take_front(h) == i.take_front(h) && isStatic(i[h]) &&
                isStatic(w[h + 1]) && isStatic(o[h]) && s[h] == i[h] &&
                s[h + 1] == sym::Expr(1) && w[h] == i[h] &&
                w[h] * w[h + 1] == o[h] && o.take_back(2) == i.take_back(2) &&
                w.take_back(2) == i.take_back(2) &&
                s.take_back(2) == i.take_back(2);
  if (!shaped)
    return Value();
  kv = inDims.bound[h];
  return x;
}

void eraseUnused(ArrayRef<Operation *> ops) {
  bool erased = true;
  SmallPtrSet<Operation *, 16> gone;
  while (erased) {
    erased = false;
    for (Operation *op : ops)
      if (!gone.contains(op) && op->use_empty()) {
        SmallVector<Operation *> defs;
        for (Value x : op->getOperands())
          if (Operation *d = x.getDefiningOp())
            defs.push_back(d);
        op->erase();
        gone.insert(op);
        erased = true;
        for (Operation *d : defs)
          if (isa<graph::ConstantOp>(d) && d->use_empty() && !gone.contains(d)) {
            d->erase();
            gone.insert(d);
          }
      }
  }
}

} // namespace

bool shardc::replicateKvHeads(graph::AttentionOp op, int64_t tp) {
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  int64_t r = q.getRank();
  if (r < 3 || tp < 2)
    return false;
  int64_t heads = q.getDimSize(r - 3);
  if (heads % tp != 0)
    return false;
  bool rewrote = false;
  for (unsigned operand : {1u, 2u}) {
    Value v = op->getOperand(operand);
    int64_t kv = 0;
    Value x = repeatedHeads(v, kv);
    if (!x || kv >= tp || tp % kv != 0 ||
        cast<RankedTensorType>(v.getType()).getDimSize(r - 3) != heads)
      continue;
    // Head i of tp is a copy of KV head i / (tp / kv); each then serves
    // heads / tp query heads, in order.
    SmallVector<int64_t> indices;
    for (int64_t i = 0; i < tp; ++i)
      indices.push_back(i / (tp / kv));
    HeadCopier copier;
    Value copies = copier.copy(x, r - 3, indices);
    OpBuilder b(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    SymShape one = graph::dimsOf(copies), wide;
    one.bound.insert(one.bound.begin() + (r - 2), 1);
    one.sym.insert(one.sym.begin() + (r - 2), sym::Expr(1));
    wide = withDim(one, r - 2, heads / tp);
    Value y = b.create<graph::ReshapeOp>(loc, ValueRange{copies},
                                         graph::shapeAttrs(ctx, "shape", one));
    y = b.create<graph::ExpandOp>(loc, ValueRange{y},
                                  graph::shapeAttrs(ctx, "shape", wide));
    y = b.create<graph::ReshapeOp>(
        loc, ValueRange{y}, graph::shapeAttrs(ctx, "shape", graph::dimsOf(v)));
    op->setOperand(operand, y);
    SmallVector<Operation *> chain;
    for (Value c = v; c && c != x;) {
      Operation *d = c.getDefiningOp();
      chain.push_back(d);
      c = d->getOperand(0);
    }
    chain.append(copier.replaced);
    eraseUnused(chain);
    rewrote = true;
  }
  return rewrote;
}
