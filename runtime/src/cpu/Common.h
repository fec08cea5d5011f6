//===- Common.h - shared helpers of the CPU kernels -------------*- C++ -*-===//
//
// Private to runtime/src/cpu: element types for fp16/bf16, dtype dispatch,
// shape helpers. The kernels are templates over the element type; each
// public entry point dispatches once on the ONNX dtype code.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CPU_COMMON_H
#define SHARDC_RUNTIME_CPU_COMMON_H

#include "shardc/cpu.h"
#include "shardc/format.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace shardc::rt::cpu {

// ONNX dtype codes and their sizes and names (shared with the loader).
using namespace format::dtypes;
using format::dtypeName;
using format::dtypeSize;

// Storage types of the 16-bit floats (distinct from uint16_t for dispatch).
struct Half {
  uint16_t bits;
};
struct BHalf {
  uint16_t bits;
};

// Elem<T>: the type arithmetic runs in (Acc) and the conversions to it.
template <class T> struct Elem {
  using Acc = T;
  static Acc load(T v) { return v; }
  static T store(Acc v) { return v; }
};
template <> struct Elem<Half> {
  using Acc = float;
  static float load(Half v) { return sc_h2f(v.bits); }
  static Half store(float v) { return Half{sc_f2h(v)}; }
};
template <> struct Elem<BHalf> {
  using Acc = float;
  static float load(BHalf v) { return sc_bf2f(v.bits); }
  static BHalf store(float v) { return BHalf{sc_f2bf(v)}; }
};

template <class T> inline typename Elem<T>::Acc load(T v) {
  return Elem<T>::load(v);
}
template <class T> inline T store(typename Elem<T>::Acc v) {
  return Elem<T>::store(v);
}

// Wrap<T>: the type integer sums run in so that overflow wraps (two's
// complement, like numpy) instead of being undefined; T itself for floats.
template <class T, bool = std::is_integral_v<T>> struct WrapImpl {
  using type = T;
};
template <class T> struct WrapImpl<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T> using Wrap = typename WrapImpl<T>::type;

// Number of elements of a descriptor (1 for rank 0).
/// The logical [N, C, spatial...] descriptor of a tensor stored
/// channels-last, whose descriptor gives [N, spatial..., C].
inline sc_desc channelsFirst(const sc_desc *d) {
  sc_desc l = *d;
  l.dims[1] = d->dims[d->rank - 1];
  for (int i = 2; i < d->rank; ++i)
    l.dims[i] = d->dims[i - 1];
  return l;
}

inline int64_t numel(const sc_desc *d) {
  int64_t n = 1;
  for (int32_t i = 0; i < d->rank; ++i)
    n *= d->dims[i];
  return n;
}

// Product of dims[from, to).
inline int64_t prodDims(const sc_desc *d, int64_t from, int64_t to) {
  int64_t n = 1;
  for (int64_t i = from; i < to; ++i)
    n *= d->dims[i];
  return n;
}

inline int64_t normAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

// Parallelize a loop only when it has enough work to pay for the threads.
constexpr int64_t kParallelGrain = 1 << 14;

// NaN semantics (test/Driver/nan-inf.test checks them): maxima propagate
// NaN as ONNX's Max and IEEE 754-2019 maximum do (numpy's np.max,
// PyTorch's amax / max_pool2d). The accumulator stays NaN once it is; a
// NaN v wins. For integers `v != v` is false and folds away. Both forms
// compile to compares and a blend, so the loops using them still vectorize.
template <class A> inline A maxNaN(A acc, A v) {
  return (v > acc || v != v) ? v : acc;
}
template <class A> inline A minNaN(A acc, A v) {
  return (v < acc || v != v) ? v : acc;
}
// ReLU in place over n elements of a float dtype, NaN kept (max(v, 0) with
// maxNaN). oneDNN's eltwise_relu post-op is not IEEE: its JIT form
// (vmaxps(v, 0)) turns NaN into 0, its reference form (v > 0 ? v : v * 0)
// turns -Inf into NaN, so convolution and GEMM epilogues apply ReLU with
// this after the primitive, on the output it has just written.
void reluInPlace(void *y, int32_t dtype, int64_t n);

// Whether v replaces best as the maximum when the position matters (ArgMax,
// MaxPool's indices): greater, or the first NaN (numpy's argmax).
template <class A> inline bool beatsMaxNaN(A best, A v) {
  return v > best || (v != v && best == best);
}

/// Whether `offsets` (experts + 1 of them) are row offsets of a grouped
/// kernel over `rows` rows: from 0, non-decreasing, within [0, rows]. If not,
/// fails the run naming `what` and the first expert out of order.
inline bool groupOffsetsOk(const char *what, const int32_t *offsets,
                           int64_t experts, int64_t rows) {
  for (int64_t e = 0; e < experts; ++e)
    if (offsets[0] != 0 || offsets[e + 1] < offsets[e] ||
        offsets[e + 1] > rows) {
      sc_fail("%s: row offsets of expert %lld ([%d, %d)) are not within "
              "[0, %lld) in order",
              what, (long long)e, offsets[e], offsets[e + 1], (long long)rows);
      return false;
    }
  return true;
}

// Dispatch helpers: call f(T{}) with the element type of `dtype`; return
// false when the dtype is not in the family.
template <class F> bool dispatchFloat(int32_t dtype, F &&f) {
  switch (dtype) {
  case kF32:
    f(float{});
    return true;
  case kF64:
    f(double{});
    return true;
  case kF16:
    f(Half{});
    return true;
  case kBF16:
    f(BHalf{});
    return true;
  default:
    return false;
  }
}

template <class F> bool dispatchInt(int32_t dtype, F &&f) {
  switch (dtype) {
  case kU8:
    f(uint8_t{});
    return true;
  case kI8:
    f(int8_t{});
    return true;
  case kU16:
    f(uint16_t{});
    return true;
  case kI16:
    f(int16_t{});
    return true;
  case kI32:
    f(int32_t{});
    return true;
  case kI64:
    f(int64_t{});
    return true;
  case kU32:
    f(uint32_t{});
    return true;
  case kU64:
    f(uint64_t{});
    return true;
  case kBool:
    f(uint8_t{});
    return true;
  default:
    return false;
  }
}

template <class F> bool dispatchNumeric(int32_t dtype, F &&f) {
  return dispatchFloat(dtype, f) || dispatchInt(dtype, f);
}

} // namespace shardc::rt::cpu

#endif // SHARDC_RUNTIME_CPU_COMMON_H
