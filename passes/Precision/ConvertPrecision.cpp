//===- ConvertPrecision.cpp - the graph-convert-precision pass -------------===//

#include "passes/Precision/Passes.h"

#include "dialects/Graph/IR/ConstantEval.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "shardc/Support/Pages.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Threading.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace shardc {
#define GEN_PASS_DEF_GRAPHCONVERTPRECISION
#include "passes/Precision/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

bool isF32Tensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.getElementType().isF32();
}

RankedTensorType narrowed(Type t, FloatType to) {
  return cast<RankedTensorType>(t).clone(to);
}

/// fp32 -> fp16 bits, rounding to nearest even: bit for bit what APFloat's
/// convert(IEEEhalf, rmNearestTiesToEven) gives for every non-NaN input
/// (subnormals, overflow to infinity and ties included). NaNs go to APFloat.
/// Branch-free, so that the conversion loop vectorizes.
inline uint16_t halfBits(uint32_t bits) {
  const uint32_t sign = (bits >> 16) & 0x8000;
  const uint32_t mag = bits & 0x7FFFFFFFu;
  // Normal: rebias the exponent and round the 13 dropped bits (a carry into
  // the exponent is right, up to infinity for [65520, 65536)).
  const uint32_t normal =
      (mag + (uint32_t(15 - 127) << 23) + 0xFFF + ((mag >> 13) & 1)) >> 13;
  // A half subnormal (or zero): one fp32 addition of 0.5 aligns the
  // mantissa at the half's last place and rounds to nearest even.
  const uint32_t magicBits = ((127u - 15) + (23 - 10) + 1) << 23;
  float f, magic;
  std::memcpy(&f, &mag, 4);
  std::memcpy(&magic, &magicBits, 4);
  f += magic;
  uint32_t sub;
  std::memcpy(&sub, &f, 4);
  sub -= magicBits;
  uint32_t r = mag < (127u - 14) << 23 ? sub : normal;
  r = mag >= (127u + 16) << 23 ? 0x7C00 : r; // >= 65536 or infinity
  return static_cast<uint16_t>(sign | r);
}

/// fp32 -> bf16 bits, rounding to nearest even (APFloat's result for every
/// non-NaN input: bf16 has fp32's exponent range, so subnormals and
/// overflow round by the same integer addition).
inline uint16_t bf16Bits(uint32_t bits) {
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

/// The largest finite magnitude of fp16 / bf16, as bits.
constexpr uint16_t kHalfMax = 0x7BFF, kBf16Max = 0x7F7F;

/// `r`, the narrow bits of fp32 `bits`, saturated: a finite fp32 value
/// that rounded to infinity becomes the largest finite value of its sign
/// (as ONNX Runtime's float16 converter clamps: a mask's finfo(float32).min
/// stays a huge negative number, not -inf, whose product with 0 is NaN).
template <bool Half> inline uint16_t saturated(uint32_t bits, uint16_t r) {
  const uint16_t inf = Half ? 0x7C00 : 0x7F80;
  const uint16_t max = Half ? kHalfMax : kBf16Max;
  bool overflow = (r & 0x7FFF) == inf && (bits & 0x7FFFFFFFu) < 0x7F800000u;
  return overflow ? static_cast<uint16_t>((r & 0x8000) | max) : r;
}

/// Converts [begin, end) without branches; returns whether a NaN was seen
/// (the caller redoes NaNs with APFloat).
template <bool Half>
bool convertRange(const char *src, uint16_t *dst, int64_t begin,
                  int64_t end) {
  uint32_t nan = 0;
  for (int64_t i = begin; i < end; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + 4 * i, 4);
    nan |= (bits & 0x7FFFFFFFu) > 0x7F800000u;
    dst[i] = saturated<Half>(bits, Half ? halfBits(bits) : bf16Bits(bits));
  }
  return nan;
}

#if defined(__x86_64__)
/// convertRange<true> with the F16C instruction (round to nearest even, the
/// same bits as halfBits for every non-NaN input), where the CPU has it.
__attribute__((target("avx,f16c"))) bool
convertHalfF16C(const char *src, uint16_t *dst, int64_t begin, int64_t end) {
  int nan = 0;
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    __m256 v = _mm256_loadu_ps(reinterpret_cast<const float *>(src + 4 * i));
    nan |= _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(dst + i),
        _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  // Saturate what overflowed (rare: a second pass over the chunk).
  for (int64_t j = begin; j < i; ++j) {
    uint32_t bits;
    std::memcpy(&bits, src + 4 * j, 4);
    dst[j] = saturated<true>(bits, dst[j]);
  }
  return convertRange<true>(src, dst, i, end) || nan != 0;
}
#endif

/// Elements per task of the parallel conversion (256 KiB of fp32).
constexpr int64_t kChunk = 1 << 16;

/// Converts n fp32 values at `src` into `dst`, in parallel chunks on the
/// context's thread pool (--mlir-disable-threading: one thread; the result
/// is the same).
void convertBlob(MLIRContext *ctx, const char *src, uint16_t *dst, int64_t n,
                 FloatType to) {
  bool half = to.isF16();
  const llvm::fltSemantics &sem = to.getFloatSemantics();
  int64_t chunks = (n + kChunk - 1) / kChunk;
#if defined(__x86_64__)
  static const bool f16c = __builtin_cpu_supports("f16c");
#endif
  mlir::parallelFor(ctx, 0, chunks, [&](size_t c) {
    int64_t begin = c * kChunk, end = std::min(n, begin + kChunk);
    bool nan;
    if (!half)
      nan = convertRange<false>(src, dst, begin, end);
#if defined(__x86_64__)
    else if (f16c)
      nan = convertHalfF16C(src, dst, begin, end);
#endif
    else
      nan = convertRange<true>(src, dst, begin, end);
    if (!nan)
      return;
    for (int64_t i = begin; i < end; ++i) {
      uint32_t bits;
      std::memcpy(&bits, src + 4 * i, 4);
      if ((bits & 0x7FFFFFFFu) <= 0x7F800000u)
        continue;
      // NaN: APFloat's payload and quieting.
      float f;
      std::memcpy(&f, &bits, 4);
      bool lost;
      APFloat a(f);
      a.convert(sem, APFloat::rmNearestTiesToEven, &lost);
      dst[i] = static_cast<uint16_t>(a.bitcastToAPInt().getZExtValue());
    }
  });
}

/// The narrow form of an fp32 ElementsAttr (dense or a dense_resource blob),
/// or null when it cannot be read.
ElementsAttr narrowedValue(ElementsAttr value, FloatType to) {
  auto type = narrowed(value.getType(), to);
  const llvm::fltSemantics &sem = to.getFloatSemantics();
  // Saturating: a finite value past the type's range is its largest finite
  // value (see saturated()), infinities stay.
  auto narrow = [&](float f) {
    bool lost;
    APFloat a(f);
    a.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    if (a.isInfinity() && std::isfinite(f))
      return APFloat::getLargest(sem, /*Negative=*/f < 0);
    return a;
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat())
      return DenseElementsAttr::get(type, narrow(dense.getSplatValue<float>()));
    SmallVector<APFloat> values;
    for (float f : dense.getValues<float>())
      values.push_back(narrow(f));
    return DenseElementsAttr::get(type, values);
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(value);
  if (!res)
    return {};
  std::string key =
      (res.getRawHandle().getKey() + "." + (to.isF16() ? "f16" : "bf16")).str();
  AsmResourceBlob *blob = res.getRawHandle().getBlob();
  if (!blob) // shape-only (weights absent): the narrow type, no data either
    return graph::shapeOnlyElements(cast<RankedTensorType>(type), key);
  ArrayRef<char> raw = blob->getData();
  int64_t n = type.getNumElements();
  if (static_cast<int64_t>(raw.size()) != n * 4)
    return {};
  // Converted straight into the new blob's storage: no staging copy.
  AsmResourceBlob narrowBlob = HeapAsmResourceBlob::allocate(
      n * sizeof(uint16_t), alignof(uint16_t), /*dataIsMutable=*/true);
  convertBlob(to.getContext(), raw.data(),
              reinterpret_cast<uint16_t *>(narrowBlob.getMutableData().data()),
              n, to);
  // An fp32 original in a mapped external data file leaves the resident
  // set: only its narrow copy stays.
  releaseReadOnlyFilePages(raw.data(), raw.size());
  return DenseResourceElementsAttr::get(type, key, std::move(narrowBlob));
}

/// Whether `v` is computed from constants alone (no function argument
/// reaches it): a weight, also behind a dequantize, transpose or cast.
bool fromConstants(Value v, llvm::DenseMap<Value, bool> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  bool constant = def != nullptr;
  memo[v] = false; // no cycles in a graph body; a safe default meanwhile
  for (Value operand : def ? def->getOperands() : ValueRange{})
    constant = constant && fromConstants(operand, memo);
  return memo[v] = constant;
}

/// Whether `op` is a product by a weight: a matmul, linear layer or
/// convolution one of whose operands comes from constants alone (where
/// the fp32 region around a KV cache ends; attention's products read two
/// activations).
bool productByWeight(Operation *op, llvm::DenseMap<Value, bool> &memo) {
  if (!isa<graph::MatMulOp, graph::GemmOp, graph::LinearOp, graph::EinsumOp,
           graph::ConvOp, graph::ConvTransposeOp>(op))
    return false;
  return llvm::any_of(op->getOperands(),
                      [&](Value v) { return fromConstants(v, memo); });
}

/// A decoder's KV cache and what reads it up to the next product by a
/// weight (productByWeight): the ops that stay fp32. A cache is
/// graph-kv-cache's pattern (an fp32 past input whose one use is its append
/// along a dynamic dim that may be 0, returned as the present). Why: the
/// signature stays fp32, so a narrow cache would be the whole past converted on
/// the way in and the whole present on the way out at every decode step, where
/// the fp32 one is appended in place (graph-kv-cache, the lowering) and
/// attention reads it as it lies. `pasts` gets the cache inputs.
llvm::SmallPtrSet<Operation *, 16>
wideCacheOps(func::FuncOp func, llvm::SmallPtrSetImpl<Value> &pasts) {
  llvm::SmallPtrSet<Operation *, 16> wide;
  FailureOr<SmallVector<graph::Symbol>> symbols = graph::readSymbols(func);
  if (failed(symbols) || symbols->empty())
    return wide;
  Operation *ret = func.getBody().front().getTerminator();
  SmallVector<Operation *> work;
  for (BlockArgument arg : func.getArguments()) {
    if (!isF32Tensor(arg.getType()) || !arg.hasOneUse())
      continue;
    auto concat = dyn_cast<graph::ConcatOp>(*arg.getUsers().begin());
    if (!concat || concat.getInputs().size() != 2 ||
        concat.getInputs()[0] != arg ||
        !llvm::is_contained(concat.getOutput().getUsers(), ret))
      continue;
    std::optional<unsigned> k =
        graph::dimsOf(arg.getType()).sym[concat.getAxis()].asSymbol();
    if (!k || (*symbols)[*k].min != 0)
      continue;
    pasts.insert(arg);
    work.push_back(concat);
  }
  llvm::DenseMap<Value, bool> memo;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!wide.insert(op).second)
      continue;
    for (Operation *user : op->getUsers())
      if (user != ret && user->getBlock() == op->getBlock() &&
          !productByWeight(user, memo))
        work.push_back(user);
  }
  return wide;
}

struct GraphConvertPrecisionPass
    : shardc::impl::GraphConvertPrecisionBase<GraphConvertPrecisionPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    FloatType narrow;
    if (to == "f16")
      narrow = FloatType::getF16(ctx);
    else if (to == "bf16")
      narrow = FloatType::getBF16(ctx);
    else {
      func.emitError("graph-convert-precision: 'to' must be f16 or bf16, not '")
          << to << "'";
      return signalPassFailure();
    }
    if (func.getBody().empty())
      return;
    Block &entry = func.getBody().front();
    OpBuilder b(ctx);

    // A KV cache stays fp32 up to the next product by a weight
    // (wideCacheOps): its ops keep their types, with a cast to fp32 before
    // each operand from outside (kept fp32 too: the walk below leaves the
    // region's ops alone) and a cast after each value that leaves it (to
    // fp32 now, to the narrow type once the walk narrows it).
    llvm::SmallPtrSet<Value, 4> cachePasts;
    llvm::SmallPtrSet<Operation *, 16> wide = wideCacheOps(func, cachePasts);
    // In the block's order, so that the casts come out the same every run.
    SmallVector<Operation *> region;
    for (Operation &op : entry)
      if (wide.contains(&op))
        region.push_back(&op);
    for (Operation *op : region) {
      b.setInsertionPoint(op);
      for (OpOperand &operand : op->getOpOperands()) {
        Value v = operand.get();
        Operation *def = v.getDefiningOp();
        if (!isF32Tensor(v.getType()) || cachePasts.contains(v) ||
            (def && wide.contains(def)))
          continue;
        auto cast = b.create<graph::CastOp>(op->getLoc(), v.getType(), v,
                                            TypeAttr::get(b.getF32Type()));
        operand.set(cast.getResult());
        wide.insert(cast);
      }
      for (Value r : op->getResults()) {
        if (!isF32Tensor(r.getType()))
          continue;
        for (OpOperand &use : llvm::make_early_inc_range(r.getUses())) {
          Operation *user = use.getOwner();
          if (wide.contains(user) || isa<func::ReturnOp>(user))
            continue;
          b.setInsertionPoint(user);
          auto cast = b.create<graph::CastOp>(user->getLoc(), r.getType(), r,
                                              TypeAttr::get(b.getF32Type()));
          use.set(cast.getResult());
        }
      }
    }

    // The signature stays fp32: a cast after each input (first, so that the
    // ops below infer from narrow operands) and before each result.
    b.setInsertionPointToStart(&entry);
    llvm::SmallPtrSet<Operation *, 8> inputCasts;
    for (BlockArgument arg : entry.getArguments()) {
      if (!isF32Tensor(arg.getType()) || arg.use_empty() ||
          cachePasts.contains(arg))
        continue;
      auto cast = b.create<graph::CastOp>(arg.getLoc(),
                                          narrowed(arg.getType(), narrow), arg,
                                          TypeAttr::get(narrow));
      arg.replaceAllUsesExcept(cast.getResult(), cast);
      inputCasts.insert(cast);
    }

    // Every op inside: fp32 results narrow, fp32 constants convert.
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (op == func || isa<func::ReturnOp>(op) || inputCasts.contains(op) ||
          wide.contains(op))
        return WalkResult::advance();
      if (auto c = dyn_cast<graph::ConstantOp>(op); c && isF32Tensor(c.getType())) {
        ElementsAttr v = narrowedValue(c.getValue(), narrow);
        if (!v)
          return op->emitError("cannot read this fp32 constant to convert it");
        c.setValueAttr(v);
      }
      if (auto c = dyn_cast<graph::ConstantOfShapeOp>(op);
          c && isF32Tensor(c.getValue().getType())) {
        ElementsAttr v = narrowedValue(c.getValue(), narrow);
        if (!v)
          return op->emitError("cannot read this fp32 value to convert it");
        c.setValueAttr(v);
      }
      if (auto cast = dyn_cast<graph::CastOp>(op); cast && cast.getTo().isF32())
        cast.setToAttr(TypeAttr::get(narrow));
      // Ops that infer their result types say which results stay fp32 (the
      // statistics of layer_norm); other ops narrow every fp32 result.
      if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
        SmallVector<Type> types;
        if (failed(infer.inferReturnTypes(
                ctx, op->getLoc(), op->getOperands(), op->getAttrDictionary(),
                op->getPropertiesStorage(), op->getRegions(), types)))
          return WalkResult::interrupt(); // the op said why
        for (auto [r, t] : llvm::zip(op->getResults(), types))
          r.setType(t);
        return WalkResult::advance();
      }
      for (Value r : op->getResults())
        if (isF32Tensor(r.getType()))
          r.setType(narrowed(r.getType(), narrow));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Type want = func.getResultTypes()[operand.getOperandNumber()];
      if (!isF32Tensor(want) || operand.get().getType() == want)
        continue;
      auto cast = b.create<graph::CastOp>(ret.getLoc(), want, operand.get(),
                                          TypeAttr::get(b.getF32Type()));
      operand.set(cast.getResult());
    }
  }
};

} // namespace
