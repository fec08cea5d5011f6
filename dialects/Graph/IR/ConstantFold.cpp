//===- ConstantFold.cpp - the constant evaluator on graph ops ---------------===//
//
// Attributes to HostTensors and back, one graph op evaluated on constant
// operands (the fold() methods), and a value evaluated through the ops that
// compute it (passes that inspect constant subgraphs larger than kFoldCap).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/ConstantEval.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cstring>
#include <memory>

using namespace mlir;
using llvm::APFloat;
using llvm::APInt;

namespace shardc::graph {

static double toDouble(APFloat a) {
  bool lost;
  a.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return a.convertToDouble();
}

/// Stores integer bits of `width` into `t` at `i` (sign- or zero-extended
/// by t's type).
static void setBits(HostTensor &t, int64_t i, const APInt &bits) {
  t.ints[i] = t.dtype == ScalarType::Bool ? !bits.isZero()
              : isUnsignedType(t.dtype)  ? (int64_t)bits.getZExtValue()
                                         : bits.getSExtValue();
}

ArrayRef<char> rawElementData(ElementsAttr attr) {
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      return blob->getData();
    return {};
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense.getRawData();
  return {};
}

std::optional<Window> windowOf(Operation *op, ElementsAttr value) {
  Window w;
  w.source = value;
  if (auto source = op->getAttrOfType<ElementsAttr>(kSourceAttr))
    w.source = source;
  auto type = dyn_cast<RankedTensorType>(w.source.getType());
  auto own = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !own || !type.getElementType().isIntOrFloat() ||
      type.getElementType() != own.getElementType() ||
      type.getRank() != own.getRank())
    return std::nullopt;
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  if (bits % 8 != 0)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(w.source); dense && dense.isSplat())
    return std::nullopt;
  w.raw = rawElementData(w.source);
  w.elemBytes = bits / 8;
  if (static_cast<int64_t>(w.raw.size()) != type.getNumElements() * w.elemBytes)
    return std::nullopt;
  w.sourceShape.assign(type.getShape().begin(), type.getShape().end());
  w.offset.assign(type.getRank(), 0);
  if (auto offset = op->getAttrOfType<DenseI64ArrayAttr>(kSourceOffsetAttr)) {
    if (offset.size() != type.getRank() ||
        llvm::any_of(offset.asArrayRef(), [](int64_t o) { return o < 0; }))
      return std::nullopt;
    w.offset.assign(offset.asArrayRef().begin(), offset.asArrayRef().end());
  }
  return w;
}

void forEachRun(const Window &w, ArrayRef<int64_t> shape,
                function_ref<void(int64_t, const char *, int64_t)> run) {
  int64_t rank = static_cast<int64_t>(shape.size());
  if (rank != static_cast<int64_t>(w.sourceShape.size()))
    return;
  int64_t eb = w.elemBytes;
  if (rank == 0) {
    run(0, w.raw.data(), eb);
    return;
  }
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * w.sourceShape[d + 1];
  int64_t inner = shape.back();
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows *= shape[d];
  // The part of each row the source holds.
  int64_t last = w.offset.back();
  int64_t have = std::clamp<int64_t>(w.sourceShape.back() - last, 0, inner);
  if (have == 0)
    return;
  // A pending run, extended while the next one follows it in both.
  int64_t pendAt = -1, pendN = 0;
  const char *pendSrc = nullptr;
  SmallVector<int64_t> idx(rank, 0);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t rest = row;
    for (int64_t d = rank - 2; d >= 0; --d) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    int64_t src = last;
    bool inside = true;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      int64_t i = w.offset[d] + idx[d];
      inside &= i < w.sourceShape[d];
      src += i * strides[d];
    }
    if (!inside)
      continue;
    int64_t at = row * inner * eb;
    const char *from = w.raw.data() + src * eb;
    if (pendAt >= 0 && pendAt + pendN == at && pendSrc + pendN == from) {
      pendN += have * eb;
      continue;
    }
    if (pendAt >= 0)
      run(pendAt, pendSrc, pendN);
    pendAt = at;
    pendSrc = from;
    pendN = have * eb;
  }
  if (pendAt >= 0)
    run(pendAt, pendSrc, pendN);
}

std::vector<char> windowBytes(const Window &w, ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  std::vector<char> out(count * w.elemBytes, 0);
  forEachRun(w, shape, [&](int64_t at, const char *src, int64_t n) {
    std::memcpy(out.data() + at, src, n);
  });
  return out;
}

bool isShapeOnly(Attribute attr) {
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  return res && !res.getRawHandle().getBlob();
}

std::string derivedKey(Attribute value, StringRef suffix, StringRef fallback) {
  if (auto res = dyn_cast_if_present<DenseResourceElementsAttr>(value))
    return (res.getRawHandle().getKey() + suffix).str();
  return fallback.str();
}

ElementsAttr shapeOnlyElements(RankedTensorType type, StringRef key) {
  auto &manager =
      DenseResourceElementsHandle::getManagerInterface(type.getContext());
  return DenseResourceElementsAttr::get(type, manager.insert(key));
}

ElementsAttr
elementsFromBytes(RankedTensorType type, StringRef key,
                  function_ref<bool(MutableArrayRef<char>)> fill) {
  int64_t eb = type.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t bytes = type.getNumElements() * eb;
  if (bytes < (int64_t(1) << 20)) {
    std::vector<char> small(static_cast<size_t>(bytes));
    if (!fill(small))
      return {};
    return DenseElementsAttr::getFromRawBuffer(type, small);
  }
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocate(bytes, eb, /*dataIsMutable=*/true);
  if (!fill(blob.getMutableData()))
    return {};
  return DenseResourceElementsAttr::get(type, key, std::move(blob));
}

std::optional<HostTensor> constantElements(Value v, int64_t maxElements) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c || c->hasAttr(kSourceAttr))
    return std::nullopt;
  auto attr = dyn_cast<ElementsAttr>(c.getValue());
  if (!attr || isShapeOnly(attr))
    return std::nullopt;
  return readElements(attr, maxElements);
}

std::optional<HostTensor> readElements(ElementsAttr attr, int64_t maxElements) {
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  std::optional<ScalarType> st =
      type ? scalarTypeOf(type.getElementType()) : std::nullopt;
  if (!st || !type.hasStaticShape() || type.getNumElements() > maxElements)
    return std::nullopt;
  HostTensor t;
  t.dtype = *st;
  t.dims.assign(type.getShape().begin(), type.getShape().end());
  int64_t n = t.numel();
  t.resize(n);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    int64_t i = 0;
    if (t.isFloat())
      for (APFloat f : dense.getValues<APFloat>())
        t.floats[i++] = toDouble(f);
    else if (t.dtype == ScalarType::Bool)
      for (bool b : dense.getValues<bool>())
        t.ints[i++] = b;
    else
      for (APInt v : dense.getValues<APInt>())
        setBits(t, i++, v);
    return t;
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob = res ? res.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return std::nullopt;
  ArrayRef<char> raw = blob->getData();
  Type elem = type.getElementType();
  unsigned bits = elem.isInteger(1) ? 8 : elem.getIntOrFloatBitWidth();
  unsigned bytes = bits / 8;
  if (bits % 8 || (int64_t)raw.size() != n * bytes)
    return std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t word = 0;
    std::memcpy(&word, raw.data() + i * bytes, bytes); // little endian
    if (auto ft = dyn_cast<FloatType>(elem))
      t.floats[i] = toDouble(APFloat(ft.getFloatSemantics(), APInt(bits, word)));
    else
      setBits(t, i, APInt(bits, word));
  }
  return t;
}

template <typename T>
static DenseElementsAttr fromNumbers(RankedTensorType type,
                                     const std::vector<T> &in) {
  return DenseElementsAttr::get(type, ArrayRef<T>(in));
}

DenseElementsAttr toElementsAttr(MLIRContext *ctx, const HostTensor &t) {
  auto type = RankedTensorType::get(t.dims, toMLIRType(ctx, t.dtype));
  Type elem = type.getElementType();
  int64_t n = t.numel();
  switch (t.dtype) {
  case ScalarType::F64:
    return fromNumbers(type, t.floats);
  case ScalarType::F32:
    return fromNumbers(type, std::vector<float>(t.floats.begin(), t.floats.end()));
  case ScalarType::I64:
    return fromNumbers(type, t.ints);
  case ScalarType::Bool: {
    SmallVector<bool> v(n);
    for (int64_t i = 0; i < n; ++i)
      v[i] = t.ints[i] != 0;
    return DenseElementsAttr::get(type, v);
  }
  default:
    break;
  }
  if (auto ft = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> v;
    v.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      APFloat f(t.floats[i]);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f);
    }
    return DenseElementsAttr::get(type, v);
  }
  SmallVector<APInt> v;
  v.reserve(n);
  for (int64_t i = 0; i < n; ++i)
    v.push_back(APInt(elem.getIntOrFloatBitWidth(), (uint64_t)t.ints[i],
                      /*isSigned=*/true));
  return DenseElementsAttr::get(type, v);
}

/// The function of an elementwise graph op.
static std::optional<ElementwiseFn> elementwiseFn(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<ElementwiseFn>>(op)
      .Case([](AddOp) { return ElementwiseFn::Add; })
      .Case([](SubOp) { return ElementwiseFn::Sub; })
      .Case([](MulOp) { return ElementwiseFn::Mul; })
      .Case([](DivOp) { return ElementwiseFn::Div; })
      .Case([](PowOp) { return ElementwiseFn::Pow; })
      .Case([](MinOp) { return ElementwiseFn::Min; })
      .Case([](MaxOp) { return ElementwiseFn::Max; })
      .Case([](EqualOp) { return ElementwiseFn::Equal; })
      .Case([](LessOp) { return ElementwiseFn::Less; })
      .Case([](GreaterOp) { return ElementwiseFn::Greater; })
      .Case([](AndOp) { return ElementwiseFn::And; })
      .Case([](OrOp) { return ElementwiseFn::Or; })
      .Case([](NotOp) { return ElementwiseFn::Not; })
      .Case([](NegOp) { return ElementwiseFn::Neg; })
      .Case([](AbsOp) { return ElementwiseFn::Abs; })
      .Case([](SqrtOp) { return ElementwiseFn::Sqrt; })
      .Case([](CosOp) { return ElementwiseFn::Cos; })
      .Case([](FloorOp) { return ElementwiseFn::Floor; })
      .Case([](CeilOp) { return ElementwiseFn::Ceil; })
      .Case([](RoundOp) { return ElementwiseFn::Round; })
      .Case([](SinOp) { return ElementwiseFn::Sin; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<HostTensor> evaluateOp(Operation *op,
                                     ArrayRef<const HostTensor *> in,
                                     EvalContext &ctx) {
  if (op->getNumResults() != 1 || in.size() != op->getNumOperands() ||
      llvm::is_contained(in, nullptr))
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<ScalarType> st =
      type ? scalarTypeOf(type.getElementType()) : std::nullopt;
  if (!st || !type.hasStaticShape() ||
      type.getNumElements() > ctx.maxElements)
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  auto relabeled = [&]() -> std::optional<HostTensor> {
    HostTensor r = *in[0];
    r.dims.assign(shape.begin(), shape.end());
    return r;
  };
  std::optional<HostTensor> r;
  if (std::optional<ElementwiseFn> fn = elementwiseFn(op))
    r = evalElementwise(ctx, *fn, in, *st);
  else
    r = llvm::TypeSwitch<Operation *, std::optional<HostTensor>>(op)
            .Case([&](ConstantOp c) { return readElements(c.getValue(), ctx.maxElements); })
            .Case([&](ConstantOfShapeOp c) -> std::optional<HostTensor> {
              auto value = readElements(c.getValue(), 1);
              if (!value)
                return std::nullopt;
              return evalFill(ctx, *value, shape);
            })
            .Case<IdentityOp, ReshapeOp, SqueezeOp, UnsqueezeOp, FlattenOp>(
                [&](Operation *) { return relabeled(); })
            .Case([&](WhereOp) { return evalWhere(ctx, *in[0], *in[1], *in[2]); })
            .Case([&](CastOp) { return evalCast(ctx, *in[0], *st); })
            .Case([&](ExpandOp) { return evalBroadcast(ctx, *in[0], shape); })
            .Case([&](TransposeOp t) { return evalTranspose(ctx, *in[0], t.getPerm()); })
            .Case([&](SliceOp s) {
              return evalSlice(ctx, *in[0], s.getStarts(), s.getSteps(), shape);
            })
            .Case([&](ConcatOp c) { return evalConcat(ctx, in, c.getAxis()); })
            .Case([&](GatherOp g) {
              using Result = decltype(evalGather(ctx, *in[0], *in[1], 0));
              if (g.getPart()) // a part of a table: looked up at run time
                return Result();
              return evalGather(ctx, *in[0], *in[1], g.getAxis());
            })
            .Case([&](TriluOp t) {
              return evalTrilu(ctx, *in[0], t.getUpper(), t.getK());
            })
            .Default([](Operation *) { return std::nullopt; });
  // The verifier's type is the truth; an evaluation that disagrees with it
  // (an op that would not verify) is not used.
  if (!r || r->dtype != *st || ArrayRef<int64_t>(r->dims) != shape)
    return std::nullopt;
  return r;
}

namespace {
/// evaluateValue's walk, each value evaluated once.
struct ValueEvaluator {
  explicit ValueEvaluator(EvalContext &ctx) : ctx(ctx) {}
  EvalContext &ctx;
  llvm::DenseMap<Value, std::shared_ptr<const HostTensor>> memo;

  std::shared_ptr<const HostTensor> eval(Value v, int depth) {
    auto found = memo.find(v);
    if (found != memo.end())
      return found->second;
    std::shared_ptr<const HostTensor> result = compute(v, depth);
    memo[v] = result;
    return result;
  }

  std::shared_ptr<const HostTensor> compute(Value v, int depth) {
    Operation *op = v.getDefiningOp();
    if (!op || depth < 0 || !isa<GraphDialect>(op->getDialect()))
      return nullptr;
    SmallVector<std::shared_ptr<const HostTensor>> operands;
    SmallVector<const HostTensor *> ptrs;
    for (Value operand : op->getOperands()) {
      operands.push_back(eval(operand, depth - 1));
      if (!operands.back())
        return nullptr;
      ptrs.push_back(operands.back().get());
    }
    std::optional<HostTensor> r = evaluateOp(op, ptrs, ctx);
    if (!r)
      return nullptr;
    return std::make_shared<const HostTensor>(std::move(*r));
  }
};
} // namespace

std::optional<HostTensor> evaluateValue(Value v, EvalContext &ctx,
                                        int maxDepth) {
  ValueEvaluator walk(ctx);
  std::shared_ptr<const HostTensor> r = walk.eval(v, maxDepth);
  if (!r)
    return std::nullopt;
  return *r;
}

Attribute foldConstant(Operation *op, ArrayRef<Attribute> operands) {
  if (op->getNumResults() != 1 || operands.empty())
    return {};
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > kFoldCap)
    return {};
  SmallVector<HostTensor> values;
  for (Attribute a : operands) {
    auto elements = dyn_cast_or_null<ElementsAttr>(a);
    std::optional<HostTensor> t =
        elements ? readElements(elements, kFoldCap) : std::nullopt;
    if (!t)
      return {};
    values.push_back(std::move(*t));
  }
  SmallVector<const HostTensor *> ptrs;
  for (const HostTensor &t : values)
    ptrs.push_back(&t);
  EvalContext ctx; // kFoldCap, UndefinedPolicy::Refuse
  std::optional<HostTensor> r = evaluateOp(op, ptrs, ctx);
  if (!r)
    return {};
  // (An explicitly signed integer type would print back as signless.)
  DenseElementsAttr attr = toElementsAttr(op->getContext(), *r);
  return attr.getType() == type ? attr : Attribute();
}

} // namespace shardc::graph
