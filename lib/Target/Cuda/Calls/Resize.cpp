//===- Resize.cpp - kern.resize on CUDA (prelude resize.cuh) ---------------===//
//
// The interpolation taps of every output coordinate are computed here, per
// dim, with the CPU kernel's double arithmetic, and baked into constant
// tables; a thread per output element applies them.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;

namespace {
// The per-dim taps of runtime/src/cpu/Resize.cpp, computed here with the
// same double arithmetic (the kernel only applies them).
enum ResizeMode { kNearest = 0, kLinear = 1, kCubic = 2 };
enum ResizeCoord {
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
  kCeil = 3
};

struct ResizeParams {
  int mode, coord, nearest;
  double cubicA;
  bool excludeOutside, antialias;
};
struct Tap {
  int64_t idx;
  double w;
};
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

DimTaps makeTaps(int64_t in, int64_t out, double scale, const ResizeParams &p) {
  DimTaps dt;
  dt.first.reserve(out + 1);
  std::vector<double> w;
  for (int64_t o = 0; o < out; ++o) {
    dt.first.push_back((int64_t)dt.taps.size());
    double xo = originalCoord(o, scale, in, out, p.coord);
    double base = std::ceil(xo) - 1.0;
    double ratio = xo - base;
    int64_t b = (int64_t)base;
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

/// A double literal that reads back as exactly `v`.
std::string exactDouble(double v) {
  if (std::isnan(v))
    return "(double)NAN";
  if (std::isinf(v))
    return v < 0 ? "-(double)INFINITY" : "(double)INFINITY";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.17g", v);
  os.flush();
  return s;
}
} // namespace

FailureOr<Kernel> calls::resize(kern::ResizeOp op, StringRef name) {
  CallWriter w(op, name);
  Type t = elem(op.getX());
  ArrayRef<int64_t> xs = shape(op.getX()), ys = shape(op.getY());
  int64_t rank = xs.size();
  int mode = op.getModeCode();
  std::string what = "resize " + dimsText(xs) + " -> " + dimsText(ys);
  int64_t total = product(ys);
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  ResizeParams p{mode,
                 op.getCoordinateTransformationCode(),
                 op.getNearestModeCode(),
                 (double)op.getCubicCoeffA().convertToFloat(),
                 op.getExcludeOutside(),
                 op.getAntialias() && mode != kNearest};
  ArrayRef<float> scales = op.getScales();
  SmallVector<int64_t> xstride(rank);
  for (int64_t d = rank - 1, s = 1; d >= 0; --d) {
    xstride[d] = s;
    s *= xs[d];
  }
  // Tables: first (per dim, out + 1 entries into the tap arrays), the taps'
  // offsets (input coordinate * stride) and weights.
  std::string first, offs, wts;
  SmallVector<int64_t> bases;
  int64_t numFirst = 0, numTaps = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = xs[d], out = ys[d];
    double s = (size_t)d < scales.size() ? (double)scales[d] : 0.0;
    if (!(s > 0.0) || std::fabs(s * (double)in - (double)out) <=
                          1e-6 * std::max<double>((double)out, 1.0))
      s = (double)out / (double)in;
    DimTaps dt = makeTaps(in, out, s, p);
    bases.push_back(numFirst);
    for (int64_t f : dt.first) {
      first += (numFirst++ % 16 ? ", " : (numFirst > 1 ? ",\n  " : "  ")) +
               std::to_string(f + numTaps);
    }
    for (const Tap &tap : dt.taps) {
      offs += (numTaps % 8 ? ", " : (numTaps ? ",\n  " : "  ")) +
              lit(tap.idx * xstride[d]);
      wts += (numTaps % 4 ? ", " : (numTaps ? ",\n  " : "  ")) +
             exactDouble(tap.w);
      ++numTaps;
    }
  }
  if (numTaps >= std::numeric_limits<int32_t>::max())
    return w.unsupported("too many interpolation taps");
  w.decls = "// taps of " + w.name +
            " (resize.cuh)\n"
            "static __device__ const int " +
            w.name + "_first[] = {\n" + first +
            "};\n"
            "static __device__ const int64_t " +
            w.name + "_off[] = {\n" + offs +
            "};\n"
            "static __device__ const double " +
            w.name + "_w[] = {\n" + wts + "};\n";
  static const char *const modes[] = {"nearest", "linear", "cubic"};
  std::string I = indexType(std::max(total, product(xs)));
  w.launchOver(total);
  w.body = "  const sc_resize_geom<" + std::to_string(rank) + "> g = {" +
           braced(ys) + ", " + braced(bases) + "};\n" + "  sc_resize<" +
           elemKind(t) + ", " + std::to_string(rank) + ", " +
           (mode == kNearest ? "true" : "false") + ", " + I + ">(" +
           w.param(op.getXMutable()) + ", " + w.param(op.getYMutable()) +
           ", g, " + w.name + "_first, " + w.name + "_off, " + w.name +
           "_w, " + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize,
           what + " (" + modes[mode] + "), " + std::to_string(numTaps) +
               " taps");
  return w.kernel;
}
