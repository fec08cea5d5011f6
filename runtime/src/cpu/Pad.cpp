//===- Pad.cpp - ONNX Pad (constant, reflect, edge, wrap) -----------------===//
//
// Each output coordinate maps, per dim, to an input coordinate or to "the
// constant". Negative pads crop first; reflect/edge/wrap then pad the cropped
// input (as onnxruntime does). Elements are moved by size, so any dtype works.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <cstring>
#include <vector>

using namespace shardc::rt::cpu;

namespace {

enum PadMode { kConstant = 0, kReflect = 1, kEdge = 2, kWrap = 3 };

// Input index for output index o along one dim, or -1 for the constant.
int64_t mapIndex(int64_t o, int64_t padBegin, int64_t cropBegin, int64_t len,
                 int mode) {
  int64_t j = o - padBegin;
  if (j >= 0 && j < len)
    return cropBegin + j;
  switch (mode) {
  case kEdge:
    j = j < 0 ? 0 : len - 1;
    break;
  case kWrap:
    j = ((j % len) + len) % len;
    break;
  case kReflect: {
    if (len == 1) {
      j = 0;
      break;
    }
    int64_t period = 2 * (len - 1);
    j = ((j % period) + period) % period;
    if (j >= len)
      j = period - j;
    break;
  }
  default:
    return -1;
  }
  return cropBegin + j;
}

template <class E>
void padImpl(const sc_desc *x, const E *xp, const sc_desc *y, E *yp,
             const std::vector<std::vector<int64_t>> &maps, E value) {
  int rank = x->rank;
  int64_t cols = y->dims[rank - 1];
  int64_t rows = prodDims(y, 0, rank - 1);
  std::vector<int64_t> xstride(rank, 1);
  for (int d = rank - 2; d >= 0; --d)
    xstride[d] = xstride[d + 1] * x->dims[d + 1];
  const std::vector<int64_t> &last = maps[rank - 1];
#pragma omp parallel for if (rows * cols > kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    E *out = yp + r * cols;
    // Input offset of this row, or -1 when the row is all padding.
    int64_t off = 0, rem = r;
    for (int d = rank - 2; d >= 0 && off >= 0; --d) {
      int64_t o = rem % y->dims[d];
      rem /= y->dims[d];
      int64_t i = maps[d][o];
      off = i < 0 ? -1 : off + i * xstride[d];
    }
    if (off < 0) {
      for (int64_t c = 0; c < cols; ++c)
        out[c] = value;
      continue;
    }
    const E *in = xp + off;
    for (int64_t c = 0; c < cols; ++c) {
      int64_t i = last[c];
      out[c] = i < 0 ? value : in[i];
    }
  }
}

} // namespace

extern "C" void sc_pad(const sc_desc *x, const void *xp, const sc_desc *y,
                       void *yp, const int64_t *pads, int32_t mode,
                       const void *value) {
  size_t es = dtypeSize(x->dtype);
  if (!es) {
    sc_fail("Pad: unsupported dtype %s", dtypeName(x->dtype));
    return;
  }
  if (mode < kConstant || mode > kWrap) {
    sc_fail("Pad: unknown mode %d", mode);
    return;
  }
  int rank = x->rank;
  if (rank == 0) {
    std::memcpy(yp, xp, es);
    return;
  }
  if (numel(y) == 0)
    return;
  std::vector<std::vector<int64_t>> maps(rank);
  for (int d = 0; d < rank; ++d) {
    int64_t pb = pads[d], pe = pads[rank + d];
    int64_t cropB = pb < 0 ? -pb : 0, cropE = pe < 0 ? -pe : 0;
    int64_t len = x->dims[d] - cropB - cropE;
    int64_t padB = pb > 0 ? pb : 0;
    if (y->dims[d] != len + padB + (pe > 0 ? pe : 0)) {
      sc_fail("Pad: output dim %d is %lld, expected %lld", d,
              (long long)y->dims[d],
              (long long)(len + padB + (pe > 0 ? pe : 0)));
      return;
    }
    if (len <= 0 && mode != kConstant) {
      sc_fail("Pad: %s padding of an empty dim %d",
              mode == kReflect ? "reflect"
              : mode == kEdge  ? "edge"
                               : "wrap",
              d);
      return;
    }
    maps[d].resize(y->dims[d]);
    for (int64_t o = 0; o < y->dims[d]; ++o)
      maps[d][o] = mapIndex(o, padB, cropB, len, mode);
  }
  // Move elements as unsigned integers of the element's size.
  auto run = [&](auto e) {
    using E = decltype(e);
    E v{};
    if (value && mode == kConstant)
      std::memcpy(&v, value, sizeof(E));
    padImpl(x, static_cast<const E *>(xp), y, static_cast<E *>(yp), maps, v);
  };
  switch (es) {
  case 1:
    run(uint8_t{});
    break;
  case 2:
    run(uint16_t{});
    break;
  case 4:
    run(uint32_t{});
    break;
  default:
    run(uint64_t{});
    break;
  }
}
