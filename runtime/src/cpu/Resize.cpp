//===- Resize.cpp - ONNX Resize (nearest, linear, cubic) ------------------===//
//
// Follows the ONNX reference implementation (onnx/reference/ops/op_resize.py):
// every output coordinate x maps to x_ori in the input; the n taps nearest to
// x_ori (edge-padded, ties to the lower index) get the mode's coefficients
// for ratio = x_ori - (ceil(x_ori) - 1), which lies in (0, 1]. N-D
// interpolation is the product of the per-dim taps. As in the reference, the
// "output length" of the coordinate transforms is scale * input length (not
// rounded); when the scale is output/input (Resize given sizes) it is the
// output length.
//
// Integer outputs of linear and cubic interpolation are rounded to nearest
// (ties to even) and saturated; nearest copies elements.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <limits>
#include <vector>

using namespace shardc::rt::cpu;

namespace {

enum Mode { kNearest = 0, kLinear = 1, kCubic = 2 };
enum Coord {
  kHalfPixel = 0,
  kAsymmetric = 1,
  kPytorchHalfPixel = 2,
  kAlignCorners = 3,
  kTfHalfPixelForNearest = 4,
  kHalfPixelSymmetric = 5,
};
enum NearestMode {
  kRoundPreferFloor = 0,
  kRoundPreferCeil = 1,
  kFloor = 2,
  kCeil = 3,
};

struct Params {
  int mode, coord, nearest;
  double cubicA;
  bool excludeOutside, antialias;
};

struct Tap {
  int64_t idx;
  double w;
};

// Taps of one dim: for output coordinate o, taps[first[o], first[o+1]).
struct DimTaps {
  std::vector<int64_t> first;
  std::vector<Tap> taps;
};

double originalCoord(int64_t x, double scale, int64_t in, int64_t outInt,
                     int coord) {
  double outLen = scale * (double)in;
  double xd = (double)x;
  switch (coord) {
  case kAsymmetric:
    return xd / scale;
  case kPytorchHalfPixel:
    return outLen == 1.0 ? -0.5 : (xd + 0.5) / scale - 0.5;
  case kAlignCorners:
    return outLen == 1.0 ? 0.0 : xd * (double)(in - 1) / (outLen - 1.0);
  case kTfHalfPixelForNearest:
    return (xd + 0.5) / scale;
  case kHalfPixelSymmetric: {
    double adjustment = (double)outInt / outLen;
    double center = (double)in / 2.0;
    double offset = center * (1.0 - adjustment);
    return offset + (xd + 0.5) / scale - 0.5;
  }
  case kHalfPixel:
  default:
    return (xd + 0.5) / scale - 0.5;
  }
}

double cubicKernel(double x, double a) {
  x = std::fabs(x);
  if (x <= 1.0)
    return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0)
    return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

DimTaps makeTaps(int64_t in, int64_t out, double scale, const Params &p) {
  DimTaps dt;
  dt.first.reserve(out + 1);
  std::vector<double> w;
  for (int64_t o = 0; o < out; ++o) {
    dt.first.push_back((int64_t)dt.taps.size());
    double xo = originalCoord(o, scale, in, out, p.coord);
    double base = std::ceil(xo) - 1.0; // the tap left of xo
    double ratio = xo - base;          // in (0, 1]
    int64_t b = (int64_t)base;
    // Relative offsets [start, start + n) of the taps from `base`.
    int64_t start = 0, n = 0;
    w.clear();
    if (p.mode == kNearest) {
      bool up;
      if (ratio == 1.0)
        up = true;
      else if (p.nearest == kRoundPreferCeil)
        up = ratio >= 0.5;
      else if (p.nearest == kFloor)
        up = false;
      else if (p.nearest == kCeil)
        up = true;
      else
        up = ratio > 0.5;
      int64_t i = std::clamp<int64_t>(b + (up ? 1 : 0), 0, in - 1);
      dt.taps.push_back(Tap{i, 1.0});
      continue;
    }
    double s = p.antialias ? std::min(scale, 1.0) : 1.0;
    if (p.mode == kLinear) {
      start = p.antialias ? (int64_t)std::floor(-1.0 / s) + 1 : 0;
      n = 2 - 2 * start;
      for (int64_t i = 0; i < n; ++i) {
        double arg = ((double)(start + i) - ratio) * s;
        w.push_back(std::clamp(1.0 - std::fabs(arg), 0.0, 1.0));
      }
    } else {
      start = p.antialias ? (int64_t)std::floor(-2.0 / s) + 1 : -1;
      n = 2 - 2 * start;
      for (int64_t i = 0; i < n; ++i)
        w.push_back(cubicKernel(((double)(start + i) - ratio) * s, p.cubicA));
    }
    if (p.antialias) {
      double sum = 0;
      for (double v : w)
        sum += v;
      for (double &v : w)
        v /= sum;
    }
    if (p.excludeOutside) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        int64_t idx = b + start + i;
        if (idx < 0 || idx >= in)
          w[i] = 0.0;
        sum += w[i];
      }
      for (double &v : w)
        v /= sum;
    }
    for (int64_t i = 0; i < n; ++i)
      if (w[i] != 0.0)
        dt.taps.push_back(
            Tap{std::clamp<int64_t>(b + start + i, 0, in - 1), w[i]});
  }
  dt.first.push_back((int64_t)dt.taps.size());
  return dt;
}

template <class T> T fromDouble(double v) {
  if constexpr (std::is_integral_v<T>) {
    v = std::nearbyint(v);
    if (v != v)
      return T(0);
    v = std::clamp(v, (double)std::numeric_limits<T>::lowest(),
                   (double)std::numeric_limits<T>::max());
    return (T)v;
  } else {
    return store<T>((typename Elem<T>::Acc)v);
  }
}

template <class T>
void resizeImpl(const sc_desc *x, const T *xp, const sc_desc *y, T *yp,
                const std::vector<DimTaps> &dims, bool copyOnly) {
  int rank = x->rank;
  int64_t cols = y->dims[rank - 1];
  int64_t rows = prodDims(y, 0, rank - 1);
  std::vector<int64_t> xstride(rank, 1);
  for (int d = rank - 2; d >= 0; --d)
    xstride[d] = xstride[d + 1] * x->dims[d + 1];
  const DimTaps &last = dims[rank - 1];
#pragma omp parallel if (rows * cols > kParallelGrain / 4)
  {
    // The taps of a row: (input offset, weight) over dims [0, rank - 1).
    std::vector<Tap> rowTaps, next;
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      rowTaps.assign(1, Tap{0, 1.0});
      int64_t rem = r;
      for (int d = rank - 2; d >= 0; --d) {
        int64_t o = rem % y->dims[d];
        rem /= y->dims[d];
        const DimTaps &dt = dims[d];
        next.clear();
        for (int64_t k = dt.first[o]; k < dt.first[o + 1]; ++k)
          for (const Tap &t : rowTaps)
            next.push_back(
                Tap{t.idx + dt.taps[k].idx * xstride[d], t.w * dt.taps[k].w});
        rowTaps.swap(next);
      }
      T *out = yp + r * cols;
      for (int64_t c = 0; c < cols; ++c) {
        int64_t k0 = last.first[c], k1 = last.first[c + 1];
        if (copyOnly) {
          out[c] = xp[rowTaps[0].idx + last.taps[k0].idx];
          continue;
        }
        double acc = 0;
        for (const Tap &t : rowTaps)
          for (int64_t k = k0; k < k1; ++k)
            acc += t.w * last.taps[k].w *
                   (double)load(xp[t.idx + last.taps[k].idx]);
        out[c] = fromDouble<T>(acc);
      }
    }
  }
}

} // namespace

extern "C" void sc_resize(const sc_desc *x, const void *xp, const sc_desc *y,
                          void *yp, const float *scales, int32_t mode,
                          int32_t coord, int32_t nearest, float cubic_a,
                          int32_t exclude_outside, float extrapolation_value,
                          int32_t antialias) {
  (void)extrapolation_value; // only tf_crop_and_resize extrapolates
  if (x->rank != y->rank || x->rank == 0) {
    sc_fail("Resize: input rank %d, output rank %d", x->rank, y->rank);
    return;
  }
  if (mode < kNearest || mode > kCubic || coord < kHalfPixel ||
      coord > kHalfPixelSymmetric || nearest < 0 || nearest > kCeil) {
    sc_fail("Resize: unsupported mode %d / coordinate transform %d / "
            "nearest mode %d",
            mode, coord, nearest);
    return;
  }
  if (numel(y) == 0)
    return;
  if (numel(x) == 0) {
    sc_fail("Resize: empty input resized to a non-empty output");
    return;
  }
  Params p{mode,
           coord,
           nearest,
           (double)cubic_a,
           exclude_outside != 0,
           antialias != 0 && mode != kNearest};
  std::vector<DimTaps> dims;
  for (int d = 0; d < x->rank; ++d) {
    int64_t in = x->dims[d], out = y->dims[d];
    double s = scales ? (double)scales[d] : 0.0;
    // A scale that gives the output length (up to float rounding) is taken
    // as output/input exactly, as the reference does for sizes.
    if (!(s > 0.0) || std::fabs(s * (double)in - (double)out) <=
                          1e-6 * std::max<double>((double)out, 1.0))
      s = (double)out / (double)in;
    dims.push_back(makeTaps(in, out, s, p));
  }
  auto run = [&](auto t) {
    using T = decltype(t);
    resizeImpl(x, static_cast<const T *>(xp), y, static_cast<T *>(yp), dims,
               mode == kNearest);
  };
  if (x->dtype == kBool || !dispatchNumeric(x->dtype, run))
    sc_fail("Resize: unsupported dtype %s", dtypeName(x->dtype));
}
