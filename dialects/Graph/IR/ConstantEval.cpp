//===- ConstantEval.cpp - the kernels of the constant evaluator -------------===//
//
// HostTensor's element access and one kernel per op family. Data movement
// (broadcast, transpose, slice) is one strided copy; elementwise functions
// run over an odometer of the broadcast result.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/ConstantEval.h"

#include "dialects/Graph/IR/ShapeInference.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <limits>

using namespace mlir;
using llvm::APFloat;

namespace shardc::graph {

//===----------------------------------------------------------------------===//
// Element types and HostTensor
//===----------------------------------------------------------------------===//

std::optional<ScalarType> scalarTypeFromOnnx(int32_t code) {
  switch (code) {
  case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 9: case 10:
  case 11: case 12: case 13: case 16:
    return static_cast<ScalarType>(code);
  default:
    return std::nullopt;
  }
}

std::optional<ScalarType> scalarTypeOf(Type t) {
  if (t.isF32()) return ScalarType::F32;
  if (t.isF64()) return ScalarType::F64;
  if (t.isF16()) return ScalarType::F16;
  if (t.isBF16()) return ScalarType::BF16;
  auto it = dyn_cast<IntegerType>(t);
  if (!it)
    return std::nullopt;
  bool u = it.isUnsigned();
  switch (it.getWidth()) {
  case 1: return ScalarType::Bool;
  case 8: return u ? ScalarType::U8 : ScalarType::I8;
  case 16: return u ? ScalarType::U16 : ScalarType::I16;
  case 32: return u ? ScalarType::U32 : ScalarType::I32;
  case 64: return u ? ScalarType::U64 : ScalarType::I64;
  default: return std::nullopt;
  }
}

Type toMLIRType(MLIRContext *ctx, ScalarType t) {
  auto integer = [&](unsigned width, bool u) -> Type {
    return IntegerType::get(ctx, width,
                            u ? IntegerType::Unsigned : IntegerType::Signless);
  };
  switch (t) {
  case ScalarType::F32: return Float32Type::get(ctx);
  case ScalarType::F64: return Float64Type::get(ctx);
  case ScalarType::F16: return Float16Type::get(ctx);
  case ScalarType::BF16: return BFloat16Type::get(ctx);
  case ScalarType::Bool: return integer(1, false);
  case ScalarType::I8: return integer(8, false);
  case ScalarType::U8: return integer(8, true);
  case ScalarType::I16: return integer(16, false);
  case ScalarType::U16: return integer(16, true);
  case ScalarType::I32: return integer(32, false);
  case ScalarType::U32: return integer(32, true);
  case ScalarType::I64: return integer(64, false);
  case ScalarType::U64: return integer(64, true);
  }
  return {};
}

bool isFloatType(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64 ||
         t == ScalarType::F16 || t == ScalarType::BF16;
}

bool isUnsignedType(ScalarType t) {
  return t == ScalarType::U8 || t == ScalarType::U16 ||
         t == ScalarType::U32 || t == ScalarType::U64;
}

std::pair<int64_t, int64_t> intRange(ScalarType t) {
  switch (t) {
  case ScalarType::Bool: return {0, 1};
  case ScalarType::I8: return {INT8_MIN, INT8_MAX};
  case ScalarType::U8: return {0, UINT8_MAX};
  case ScalarType::I16: return {INT16_MIN, INT16_MAX};
  case ScalarType::U16: return {0, UINT16_MAX};
  case ScalarType::I32: return {INT32_MIN, INT32_MAX};
  case ScalarType::U32: return {0, UINT32_MAX};
  case ScalarType::U64: return {0, INT64_MAX};
  default: return {INT64_MIN, INT64_MAX};
  }
}

/// `v` wrapped to the range of integer type `t` (two's complement).
static int64_t wrapTo(ScalarType t, int64_t v) {
  switch (t) {
  case ScalarType::Bool: return v != 0;
  case ScalarType::I8: return (int8_t)(uint8_t)v;
  case ScalarType::U8: return (uint8_t)v;
  case ScalarType::I16: return (int16_t)(uint16_t)v;
  case ScalarType::U16: return (uint16_t)v;
  case ScalarType::I32: return (int32_t)(uint32_t)v;
  case ScalarType::U32: return (uint32_t)v;
  default: return v;
  }
}

/// `f` rounded to fp16 or bf16 (to nearest, ties to even).
static double roundHalf(float f, bool bf16) {
  APFloat a(f);
  bool lost;
  a.convert(bf16 ? APFloat::BFloat() : APFloat::IEEEhalf(),
            APFloat::rmNearestTiesToEven, &lost);
  return a.convertToDouble();
}

/// `v` rounded to float type `t` as the generated code rounds: fp16 and
/// bf16 through fp32.
static double roundTo(ScalarType t, double v) {
  switch (t) {
  case ScalarType::F32: return (float)v;
  case ScalarType::F16: return roundHalf((float)v, false);
  case ScalarType::BF16: return roundHalf((float)v, true);
  default: return v;
  }
}

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

double HostTensor::f(int64_t i) const {
  if (isFloat())
    return floats[i];
  if (dtype == ScalarType::U64)
    return (double)(uint64_t)ints[i];
  return (double)ints[i];
}

int64_t HostTensor::saturate(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 9223372036854775807.0)
    return INT64_MAX;
  if (v <= -9223372036854775808.0)
    return INT64_MIN;
  return (int64_t)v;
}

void HostTensor::resize(int64_t n) {
  if (isFloat())
    floats.assign(n, 0.0);
  else
    ints.assign(n, 0);
}

void HostTensor::set(int64_t i, double v) {
  if (isFloat())
    floats[i] = roundTo(dtype, v);
  else
    ints[i] = wrapTo(dtype, saturate(v));
}

void HostTensor::setInt(int64_t i, int64_t v) {
  if (isFloat())
    floats[i] = roundTo(dtype, (double)v);
  else
    ints[i] = wrapTo(dtype, v);
}

//===----------------------------------------------------------------------===//
// Shapes and strided copies
//===----------------------------------------------------------------------===//

/// The element count of `dims`, or -1 when a dim is negative or the count
/// exceeds `limit`.
static int64_t boundedNumel(ArrayRef<int64_t> dims, int64_t limit) {
  if (llvm::is_contained(dims, 0))
    return llvm::any_of(dims, [](int64_t d) { return d < 0; }) ? -1 : 0;
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > limit)
      return -1;
  return n;
}

static SmallVector<int64_t> rowMajor(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> s(dims.size(), 1);
  for (int64_t d = (int64_t)dims.size() - 2; d >= 0; --d)
    s[d] = s[d + 1] * dims[d + 1];
  return s;
}

/// Strides of `in` read as if broadcast to `out` (0 along broadcast dims),
/// or nullopt when it does not broadcast.
static std::optional<SmallVector<int64_t>>
broadcastStrides(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  if (in.size() > out.size())
    return std::nullopt;
  SmallVector<int64_t> strides(out.size(), 0), own = rowMajor(in);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] != out[lead + d] && in[d] != 1)
      return std::nullopt;
    strides[lead + d] = in[d] == 1 ? 0 : own[d];
  }
  return strides;
}

namespace {
/// Walks the elements of a result of shape `dims` in row-major order and
/// keeps, for each operand, the offset of the element it reads there
/// (base + sum of index * stride).
class Odometer {
public:
  Odometer(ArrayRef<int64_t> dims, SmallVector<SmallVector<int64_t>> strides,
           SmallVector<int64_t> bases)
      : dims(dims), idx(dims.size(), 0), strides(std::move(strides)),
        offsets(std::move(bases)) {}
  int64_t operator[](size_t operand) const { return offsets[operand]; }
  void next() {
    for (int64_t d = (int64_t)dims.size() - 1; d >= 0; --d) {
      for (size_t j = 0; j < offsets.size(); ++j)
        offsets[j] += strides[j][d];
      if (++idx[d] < dims[d])
        return;
      for (size_t j = 0; j < offsets.size(); ++j)
        offsets[j] -= strides[j][d] * dims[d];
      idx[d] = 0;
    }
  }

private:
  ArrayRef<int64_t> dims;
  SmallVector<int64_t> idx;
  SmallVector<SmallVector<int64_t>> strides;
  SmallVector<int64_t> offsets;
};
} // namespace

/// A tensor of shape `dims` whose element k is `in`'s element at the
/// strided offset base + sum(index_d * strides[d]).
static std::optional<HostTensor> stridedCopy(EvalContext &ctx,
                                             const HostTensor &in,
                                             ArrayRef<int64_t> dims,
                                             int64_t base,
                                             SmallVector<int64_t> strides) {
  int64_t n = boundedNumel(dims, ctx.maxElements);
  if (n < 0)
    return std::nullopt;
  HostTensor r;
  r.dtype = in.dtype;
  r.dims.assign(dims.begin(), dims.end());
  r.resize(n);
  Odometer it(dims, {std::move(strides)}, {base});
  for (int64_t k = 0; k < n; ++k, it.next()) {
    if (r.isFloat())
      r.floats[k] = in.floats[it[0]];
    else
      r.ints[k] = in.ints[it[0]];
  }
  return r;
}

std::optional<HostTensor> evalBroadcast(EvalContext &ctx, const HostTensor &in,
                                        ArrayRef<int64_t> dims) {
  auto strides = broadcastStrides(in.dims, dims);
  if (!strides)
    return std::nullopt;
  return stridedCopy(ctx, in, dims, 0, std::move(*strides));
}

std::optional<HostTensor> evalTranspose(EvalContext &ctx, const HostTensor &in,
                                        ArrayRef<int64_t> perm) {
  if (perm.size() != in.dims.size())
    return std::nullopt;
  SmallVector<int64_t> own = rowMajor(in.dims), dims, strides;
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)perm.size() || seen[p])
      return std::nullopt;
    seen[p] = true;
    dims.push_back(in.dims[p]);
    strides.push_back(own[p]);
  }
  return stridedCopy(ctx, in, dims, 0, std::move(strides));
}

std::optional<HostTensor> evalSlice(EvalContext &ctx, const HostTensor &in,
                                    ArrayRef<int64_t> starts,
                                    ArrayRef<int64_t> steps,
                                    ArrayRef<int64_t> dims) {
  size_t rank = in.dims.size();
  if (starts.size() != rank || steps.size() != rank || dims.size() != rank)
    return std::nullopt;
  SmallVector<int64_t> own = rowMajor(in.dims), strides;
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    // Every index read, the first and the last, lies inside the input.
    int64_t last = starts[d] + (dims[d] - 1) * steps[d];
    if (dims[d] > 0 && (starts[d] < 0 || starts[d] >= in.dims[d] ||
                        last < 0 || last >= in.dims[d]))
      return std::nullopt;
    base += starts[d] * own[d];
    strides.push_back(steps[d] * own[d]);
  }
  if (boundedNumel(dims, ctx.maxElements) == 0)
    base = 0;
  return stridedCopy(ctx, in, dims, base, std::move(strides));
}

std::optional<HostTensor> evalConcat(EvalContext &ctx,
                                     ArrayRef<const HostTensor *> inputs,
                                     int64_t axis) {
  if (inputs.empty() || !inputs[0])
    return std::nullopt;
  const HostTensor &first = *inputs[0];
  int64_t rank = first.dims.size();
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  HostTensor r;
  r.dtype = first.dtype;
  r.dims = first.dims;
  r.dims[axis] = 0;
  for (const HostTensor *t : inputs) {
    if (!t || (int64_t)t->dims.size() != rank || t->dtype != r.dtype)
      return std::nullopt;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t->dims[d] != first.dims[d])
        return std::nullopt;
    r.dims[axis] += t->dims[axis];
  }
  if (boundedNumel(r.dims, ctx.maxElements) < 0)
    return std::nullopt;
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= r.dims[d];
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor *t : inputs) {
      int64_t chunk = t->numel() / std::max<int64_t>(outer, 1);
      if (t->isFloat())
        r.floats.insert(r.floats.end(), t->floats.begin() + o * chunk,
                        t->floats.begin() + (o + 1) * chunk);
      else
        r.ints.insert(r.ints.end(), t->ints.begin() + o * chunk,
                      t->ints.begin() + (o + 1) * chunk);
    }
  return r;
}

std::optional<HostTensor> evalGather(EvalContext &ctx, const HostTensor &data,
                                     const HostTensor &indices, int64_t axis) {
  int64_t rank = data.dims.size();
  if (axis < 0 || axis >= rank || indices.isFloat())
    return std::nullopt;
  SmallVector<int64_t> dims(data.dims.begin(), data.dims.begin() + axis);
  dims.append(indices.dims.begin(), indices.dims.end());
  dims.append(data.dims.begin() + axis + 1, data.dims.end());
  int64_t n = boundedNumel(dims, ctx.maxElements);
  if (n < 0)
    return std::nullopt;
  int64_t dimA = data.dims[axis], nidx = indices.numel(), inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= data.dims[d];
  for (int64_t k = 0; k < nidx; ++k)
    if (indices.i(k) < -dimA || indices.i(k) >= dimA)
      return std::nullopt;
  HostTensor r;
  r.dtype = data.dtype;
  r.dims = dims;
  r.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    int64_t in = k % inner, rest = k / inner;
    int64_t j = rest % nidx, o = rest / nidx;
    int64_t i = indices.i(j);
    if (i < 0)
      i += dimA;
    int64_t src = (o * dimA + i) * inner + in;
    if (r.isFloat())
      r.floats[k] = data.floats[src];
    else
      r.ints[k] = data.ints[src];
  }
  return r;
}

std::optional<HostTensor> evalTrilu(EvalContext &ctx, const HostTensor &in,
                                    bool upper, int64_t k) {
  size_t rank = in.dims.size();
  if (rank < 2 || boundedNumel(in.dims, ctx.maxElements) < 0)
    return std::nullopt;
  HostTensor r = in;
  int64_t rows = in.dims[rank - 2], cols = in.dims[rank - 1];
  for (int64_t i = 0, n = r.numel(); i < n; ++i) {
    int64_t row = (i / cols) % rows, col = i % cols;
    // c - r compared without overflow: k is clamped by the importer, but a
    // hand-written one may be anything.
    bool keep = upper ? col - row >= k : col - row <= k;
    if (keep)
      continue;
    if (r.isFloat())
      r.floats[i] = 0.0;
    else
      r.ints[i] = 0;
  }
  return r;
}

std::optional<HostTensor> evalFill(EvalContext &ctx, const HostTensor &value,
                                   ArrayRef<int64_t> dims) {
  if (value.numel() != 1)
    return std::nullopt;
  int64_t n = boundedNumel(dims, ctx.maxElements);
  if (n < 0)
    return std::nullopt;
  HostTensor r;
  r.dtype = value.dtype;
  r.dims.assign(dims.begin(), dims.end());
  if (value.isFloat())
    r.floats.assign(n, value.floats[0]);
  else
    r.ints.assign(n, value.ints[0]);
  return r;
}

std::optional<HostTensor> evalRange(EvalContext &ctx, const HostTensor &start,
                                    const HostTensor &limit,
                                    const HostTensor &delta) {
  if (start.numel() != 1 || limit.numel() != 1 || delta.numel() != 1)
    return std::nullopt;
  double s = start.f(0), l = limit.f(0), d = delta.f(0);
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d))
    return std::nullopt;
  double count = std::ceil((l - s) / d);
  if (!(count <= (double)ctx.maxElements))
    return std::nullopt;
  int64_t n = std::max<int64_t>(0, (int64_t)count);
  HostTensor r;
  r.dtype = start.dtype;
  r.dims = {n};
  r.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    if (r.isFloat())
      r.set(k, s + k * d);
    else
      r.setInt(k, (uint64_t)start.i(0) + (uint64_t)k * (uint64_t)delta.i(0));
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Elementwise functions
//===----------------------------------------------------------------------===//

static bool isUnary(ElementwiseFn fn) { return fn >= ElementwiseFn::Not; }

static bool isCompare(ElementwiseFn fn) {
  return fn == ElementwiseFn::Equal || fn == ElementwiseFn::Less ||
         fn == ElementwiseFn::Greater;
}

/// One element of a float-domain function (values exact in their type).
static double floatFn(ElementwiseFn fn, double a, double b) {
  switch (fn) {
  case ElementwiseFn::Add: return a + b;
  case ElementwiseFn::Sub: return a - b;
  case ElementwiseFn::Mul: return a * b;
  case ElementwiseFn::Div: return a / b;
  case ElementwiseFn::Pow:
    return std::pow(a, b);
  // The generated code's IEEE maximum/minimum: a NaN operand wins.
  case ElementwiseFn::Max: return (a > b || a != a) ? a : b;
  case ElementwiseFn::Min: return (a < b || a != a) ? a : b;
  case ElementwiseFn::Equal: return a == b;
  case ElementwiseFn::Less: return a < b;
  case ElementwiseFn::Greater: return a > b;
  case ElementwiseFn::And: return a != 0 && b != 0;
  case ElementwiseFn::Or: return a != 0 || b != 0;
  case ElementwiseFn::Not: return a == 0;
  case ElementwiseFn::Neg: return -a;
  case ElementwiseFn::Abs: return std::fabs(a);
  case ElementwiseFn::Sqrt: return std::sqrt(a);
  case ElementwiseFn::Floor: return std::floor(a);
  case ElementwiseFn::Ceil: return std::ceil(a);
  case ElementwiseFn::Round: return std::nearbyint(a); // half to even
  case ElementwiseFn::Cos: return std::cos(a);
  case ElementwiseFn::Sin: return std::sin(a);
  }
  return 0;
}

std::optional<HostTensor> evalElementwise(EvalContext &ctx, ElementwiseFn fn,
                                          ArrayRef<const HostTensor *> in,
                                          ScalarType result) {
  if (in.size() != (isUnary(fn) ? 1u : 2u) || llvm::is_contained(in, nullptr))
    return std::nullopt;
  SmallVector<int64_t> dims(in[0]->dims);
  if (in.size() == 2 && failed(broadcastShapes(std::nullopt, in[0]->dims,
                                               in[1]->dims, dims)))
    return std::nullopt;
  int64_t n = boundedNumel(dims, ctx.maxElements);
  if (n < 0)
    return std::nullopt;
  SmallVector<SmallVector<int64_t>> strides;
  for (const HostTensor *t : in)
    strides.push_back(*broadcastStrides(t->dims, dims));
  ScalarType domain = in[0]->dtype;
  bool fp = isFloatType(domain), u = isUnsignedType(domain);
  bool logic = fn == ElementwiseFn::And || fn == ElementwiseFn::Or ||
               fn == ElementwiseFn::Not;
  // Arithmetic on booleans has no one answer (ONNX refuses it).
  if (domain == ScalarType::Bool && !logic && fn != ElementwiseFn::Equal)
    return std::nullopt;
  HostTensor r;
  r.dtype = result;
  r.dims = dims;
  r.resize(n);
  Odometer it(dims, std::move(strides), SmallVector<int64_t>(in.size(), 0));
  for (int64_t k = 0; k < n; ++k, it.next()) {
    auto f = [&](size_t j) { return in[j]->f(it[j]); };
    auto i = [&](size_t j) { return in[j]->i(it[j]); };
    if (fp || logic) {
      double v = floatFn(fn, f(0), in.size() > 1 ? f(1) : 0.0);
      if (isCompare(fn) || logic)
        r.setInt(k, v != 0);
      else
        r.set(k, v);
      continue;
    }
    // Integers: arithmetic in uint64 wraps instead of being undefined.
    int64_t a = i(0), b = in.size() > 1 ? i(1) : 0;
    uint64_t ua = a, ub = b;
    bool less = u ? ua < ub : a < b;
    switch (fn) {
    case ElementwiseFn::Add: r.setInt(k, ua + ub); break;
    case ElementwiseFn::Sub: r.setInt(k, ua - ub); break;
    case ElementwiseFn::Mul: r.setInt(k, ua * ub); break;
    case ElementwiseFn::Div:
      if (b == 0) {
        ctx.error = "integer division by zero (element " + std::to_string(k) +
                    " of the divisor is 0)";
        return std::nullopt;
      }
      if (u)
        r.setInt(k, ua / ub);
      else if (b == -1)
        r.setInt(k, 0 - ua); // INT_MIN / -1 wraps
      else
        r.setInt(k, a / b);
      break;
    case ElementwiseFn::Min: r.setInt(k, less ? a : b); break;
    case ElementwiseFn::Max: r.setInt(k, less ? b : a); break;
    case ElementwiseFn::Equal: r.setInt(k, a == b); break;
    case ElementwiseFn::Less: r.setInt(k, less); break;
    case ElementwiseFn::Greater: r.setInt(k, u ? ua > ub : a > b); break;
    case ElementwiseFn::Neg: r.setInt(k, 0 - ua); break;
    case ElementwiseFn::Abs:
      if (u || a >= 0) {
        r.setInt(k, a);
        break;
      }
      // The code negates i32 and i64 in their own width: the most negative
      // value has no answer there.
      if (a == intRange(domain).first &&
          (domain == ScalarType::I32 || domain == ScalarType::I64) &&
          ctx.undefined == UndefinedPolicy::Refuse)
        return std::nullopt;
      r.setInt(k, 0 - ua);
      break;
    case ElementwiseFn::Sqrt: r.set(k, std::sqrt(in[0]->f(it[0]))); break;
    case ElementwiseFn::Floor:
    case ElementwiseFn::Ceil:
    case ElementwiseFn::Round: r.setInt(k, a); break;
    default: return std::nullopt;
    }
  }
  return r;
}

std::optional<HostTensor> evalWhere(EvalContext &ctx, const HostTensor &cond,
                                    const HostTensor &x, const HostTensor &y) {
  SmallVector<int64_t> cx, dims;
  if (x.dtype != y.dtype ||
      failed(broadcastShapes(std::nullopt, cond.dims, x.dims, cx)) ||
      failed(broadcastShapes(std::nullopt, cx, y.dims, dims)))
    return std::nullopt;
  int64_t n = boundedNumel(dims, ctx.maxElements);
  if (n < 0)
    return std::nullopt;
  SmallVector<SmallVector<int64_t>> strides;
  for (const HostTensor *t : {&cond, &x, &y})
    strides.push_back(*broadcastStrides(t->dims, dims));
  HostTensor r;
  r.dtype = x.dtype;
  r.dims = dims;
  r.resize(n);
  Odometer it(dims, std::move(strides), {0, 0, 0});
  for (int64_t k = 0; k < n; ++k, it.next()) {
    bool c = cond.isFloat() ? cond.floats[it[0]] != 0 : cond.ints[it[0]] != 0;
    const HostTensor &src = c ? x : y;
    int64_t at = c ? it[1] : it[2];
    if (r.isFloat())
      r.floats[k] = src.floats[at];
    else
      r.ints[k] = src.ints[at];
  }
  return r;
}

std::optional<HostTensor> evalCast(EvalContext &ctx, const HostTensor &in,
                                   ScalarType to) {
  int64_t n = in.numel();
  if (n > ctx.maxElements)
    return std::nullopt;
  HostTensor r;
  r.dtype = to;
  r.dims = in.dims;
  r.resize(n);
  bool toFloat = isFloatType(to);
  auto [lo, hi] = intRange(to);
  for (int64_t k = 0; k < n; ++k) {
    if (in.isFloat()) {
      double x = in.floats[k];
      if (toFloat) {
        r.floats[k] = roundTo(to, x);
      } else if (to == ScalarType::Bool) {
        r.ints[k] = x != 0; // NaN is true
      } else {
        // C++ converts by truncation when the result fits and leaves the
        // rest undefined.
        double t = std::trunc(x);
        // (hi + 1 is exact in double: 2^63 for int64, 2^64 for uint64.)
        double above = to == ScalarType::U64 ? 18446744073709551616.0
                                             : (double)hi + 1.0;
        bool fits = t >= (double)lo && t < above;
        if (fits)
          r.ints[k] = to == ScalarType::U64 ? (int64_t)(uint64_t)t : (int64_t)t;
        else if (ctx.undefined == UndefinedPolicy::Define)
          r.ints[k] = wrapTo(to, HostTensor::saturate(x));
        else
          return std::nullopt;
      }
      continue;
    }
    int64_t v = in.ints[k];
    bool u = isUnsignedType(in.dtype);
    switch (to) {
    case ScalarType::F64:
      r.floats[k] = u ? (double)(uint64_t)v : (double)v;
      break;
    case ScalarType::F32:
    case ScalarType::F16:
    case ScalarType::BF16: {
      // One rounding to fp32 (not through double), then to the half type.
      float f = u ? (float)(uint64_t)v : (float)v;
      r.floats[k] = roundTo(to, f);
      break;
    }
    default:
      r.ints[k] = wrapTo(to, v);
    }
  }
  return r;
}

} // namespace shardc::graph
