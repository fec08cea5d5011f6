//===- QuantizeStatic.cpp - the graph-quantize-static pass
//-----------------===//
//
// Static int8 quantization of the linear layers (`--quantize=int8
// --calibration=DIR`, issue 30): W8A8 with every scale fixed at compile
// time from statistics of the calibration samples.
//
// For an activation x [..., K] read by the layers W_1 .. W_g ([K, N_i]):
//
//   s_j   = a_j^alpha / w_j^(1 - alpha)        SmoothQuant, per channel j
//           (a_j = max |x_j| on the samples, w_j = max |W_i[j, :]| over
//           the layers; s_j = 1 where either is zero)
//   c     = the clipping range of x / s        minmax, percentile, entropy
//   xq    = quantize_linear(x * m, 1, 0)       m_j = 127 / (s_j * c)
//   y_i   = linear_int8(xq, Wq_i, ws_i * c / 127, bias, residual, act)
//
// with Wq_i the per-column symmetric int8 of diag(s) W_i and ws_i its
// column scales: x W = (x / s)(diag(s) W), so smoothing changes only where
// the rounding falls. A transformer's activations have a few channels
// hundreds of times larger than the rest (the residual stream's outliers);
// one per-tensor scale for them leaves the others a few levels, while
// their weights' rows are ordinary. Dividing those channels by s_j and
// multiplying the weight's rows moves the range into the weights, which
// are quantized per column over K values.
//
// alpha (`smooth=auto`) is chosen per activation from 0, 0.05, ..., 0.95 by
// the expected noise power of the layers' outputs under uniform rounding:
// (c/127)^2/12 * sum_i |diag(s) W_i|_F^2 for the activation's rounding,
// plus sum_j E[x_j^2]/s_j^2 * sum_i sum_n (ws_i[n])^2/12 for the weights'.
// Both terms come from the statistics (per-channel max and mean square),
// with no products computed.
//
// Left in floating point: what graph-quantize-dynamic leaves.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Passes.h"
#include "passes/Precision/Quantize.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace shardc {
#define GEN_PASS_DEF_GRAPHQUANTIZESTATIC
#include "passes/Precision/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using quant::scalar;

namespace {

/// SmoothQuant's factors for `alpha` (empty: none).
std::vector<float> smoothing(const quant::ActivationStats &st,
                             ArrayRef<float> weightMax, double alpha) {
  if (alpha <= 0)
    return {};
  std::vector<float> s(st.channels, 1.0f);
  for (int64_t j = 0; j < st.channels; ++j)
    if (st.amax[j] > 0 && weightMax[j] > 0)
      s[j] = std::clamp(std::pow(double(st.amax[j]), alpha) /
                            std::pow(double(weightMax[j]), 1 - alpha),
                        1e-5, 1e5);
  return s;
}

/// The largest magnitude of x / s.
double smoothedMax(const quant::ActivationStats &st, ArrayRef<float> s) {
  double m = 0;
  for (int64_t j = 0; j < st.channels; ++j)
    m = std::max(m, double(st.amax[j]) / (s.empty() ? 1.0 : s[j]));
  return m;
}

/// Expected noise power of the layers' outputs (see the file comment).
double outputNoise(const quant::ActivationStats &st, ArrayRef<quant::Weight> ws,
                   ArrayRef<float> s) {
  double c = smoothedMax(st, s) / 127.0;
  double xNoise = c * c / 12.0;
  double power = 0; // sum_j E[x_j^2] / s_j^2
  for (int64_t j = 0; j < st.channels; ++j) {
    double sj = s.empty() ? 1.0 : s[j];
    power += st.meanSquare[j] / (sj * sj);
  }
  double frobenius = 0, columnNoise = 0;
  for (const quant::Weight &w : ws) {
    std::vector<double> colMax(w.n, 0.0);
    for (int64_t i = 0; i < w.k; ++i) {
      double sj = s.empty() ? 1.0 : s[i];
      for (int64_t n = 0; n < w.n; ++n) {
        double v = std::fabs(w.at(i, n) * sj);
        frobenius += v * v;
        colMax[n] = std::max(colMax[n], v);
      }
    }
    for (double m : colMax)
      columnNoise += (m / 127.0) * (m / 127.0) / 12.0;
  }
  return xNoise * frobenius + power * columnNoise;
}

/// |x_ij / s_j| over the sample's rows.
std::vector<float> sampleMagnitudes(const quant::ActivationStats &st,
                                    ArrayRef<float> s) {
  std::vector<float> v(st.sample.size());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::fabs(st.sample[i]) / (s.empty() ? 1.0f : s[i % st.channels]);
  return v;
}

/// The `pct` percentile of the magnitudes.
double percentileOf(std::vector<float> v, double pct) {
  if (v.empty())
    return 0;
  size_t k = std::min(v.size() - 1,
                      static_cast<size_t>(std::ceil(pct / 100.0 * v.size())) -
                          (pct > 0 ? 1 : 0));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k];
}

/// The clipping threshold of least KL divergence between the magnitudes'
/// 2048-bin histogram, its tail folded into the last kept bin, and the
/// same bins merged into 128 levels and spread back over the non-empty
/// ones (TensorRT's entropy calibration, on symmetric int8).
double entropyThreshold(const std::vector<float> &v) {
  constexpr int kBins = 2048, kLevels = 128;
  float top = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  if (top <= 0)
    return 0;
  std::vector<double> hist(kBins, 0.0);
  for (float x : v)
    hist[std::min(kBins - 1, static_cast<int>(x / top * kBins))] += 1;
  double best = INFINITY;
  int bestBins = kBins;
  for (int i = kLevels; i <= kBins; ++i) {
    std::vector<double> p(hist.begin(), hist.begin() + i);
    for (int t = i; t < kBins; ++t)
      p[i - 1] += hist[t];
    std::vector<double> q(i, 0.0);
    double per = static_cast<double>(i) / kLevels;
    for (int l = 0; l < kLevels; ++l) {
      int begin = static_cast<int>(std::floor(l * per));
      int end =
          l + 1 == kLevels ? i : static_cast<int>(std::floor((l + 1) * per));
      double sum = 0;
      int nonzero = 0;
      for (int t = begin; t < end; ++t) {
        sum += hist[t];
        nonzero += hist[t] != 0;
      }
      for (int t = begin; t < end; ++t)
        if (hist[t] != 0)
          q[t] = sum / nonzero;
    }
    double ps = 0, qs = 0;
    for (int t = 0; t < i; ++t) {
      ps += p[t];
      qs += q[t];
    }
    if (ps <= 0 || qs <= 0)
      continue;
    double kl = 0;
    for (int t = 0; t < i; ++t) {
      if (p[t] == 0)
        continue;
      double pt = p[t] / ps, qt = q[t] / qs;
      kl += qt > 0 ? pt * std::log(pt / qt) : pt * 30.0;
    }
    if (kl < best) {
      best = kl;
      bestBins = i;
    }
  }
  return (bestBins + 0.5) * top / kBins;
}

/// Signal over noise power, in dB, of the layer's output (without bias) on
/// sampled calibration rows: f32 x W against the int8 product of
/// quantize_linear(x * m) and `h` scaled back (with m_j = 1 / (s_j scale)).
/// The rows are capped so that the check costs at most 2^25
/// multiply-adds per layer. NaN without a sample.
double sqnrDb(const quant::ActivationStats &st, ArrayRef<float> s, float scale,
              const quant::Weight &w, const quant::HostInt8 &h) {
  int64_t K = st.channels, N = w.n;
  int64_t avail = K ? static_cast<int64_t>(st.sample.size()) / K : 0;
  int64_t rows = std::min<int64_t>(
      avail,
      std::max<int64_t>(8, (int64_t(1) << 25) / std::max<int64_t>(1, K * N)));
  if (rows <= 0 || K != w.k)
    return NAN;
  std::vector<float> wf(K * N);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      wf[k * N + n] = w.at(k, n);
  std::vector<float> m(K);
  for (int64_t k = 0; k < K; ++k)
    m[k] = 1.0f / ((s.empty() ? 1.0f : s[k]) * scale);
  std::vector<float> y(N);
  std::vector<int32_t> acc(N);
  double signal = 0, noise = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float *x = st.sample.data() + r * K;
    std::fill(y.begin(), y.end(), 0.0f);
    std::fill(acc.begin(), acc.end(), 0);
    for (int64_t k = 0; k < K; ++k) {
      float xv = x[k];
      int32_t q = static_cast<int32_t>(
          std::clamp(std::nearbyint(double(xv) * m[k]), -128.0, 127.0));
      const float *wr = wf.data() + k * N;
      const int8_t *qr = h.q.data() + k * N;
      for (int64_t n = 0; n < N; ++n) {
        y[n] += xv * wr[n];
        acc[n] += q * qr[n];
      }
    }
    for (int64_t n = 0; n < N; ++n) {
      double yq = double(acc[n]) * h.scales[n] * scale;
      signal += double(y[n]) * y[n];
      noise += (y[n] - yq) * (y[n] - yq);
    }
  }
  if (noise <= 0)
    return INFINITY;
  return 10.0 * std::log10(signal / noise);
}

/// Signal over noise power, in dB, of a convolution's output (without
/// bias), estimated on sampled calibration pixels (rows of C input
/// channels, graph-quantize-observe's channels-last view): each tap of the
/// window is a product of a pixel by that tap's filter slice, f32 against
/// the int8 pixel (quantize_linear(x / scale), unsigned or signed) by the
/// int8 filter scaled back; the taps' signals and noises add as if
/// independent. Output channels and rows are capped so that the estimate
/// costs about 2^25 multiply-adds per convolution. A ranking for the
/// accuracy guard, whose trials judge the model itself. NaN without a
/// sample.
double convSqnrDb(const quant::ActivationStats &st, float scale, bool unsignedX,
                  ArrayRef<int64_t> wShape, const quant::ConvWeight &q,
                  int64_t group) {
  const graph::HostTensor &w = q.weight;
  ArrayRef<int8_t> wq = q.values;
  int64_t C = st.channels, O = wShape[0], cPer = wShape[1];
  int64_t taps = 1;
  for (int64_t d = 2; d < static_cast<int64_t>(wShape.size()); ++d)
    taps *= wShape[d];
  int64_t avail = C ? static_cast<int64_t>(st.sample.size()) / C : 0;
  if (avail <= 0 || group <= 0 || C != cPer * group || O % group != 0)
    return NAN;
  int64_t oPer = O / group;
  int64_t step = std::max<int64_t>(1, O / 64);
  int64_t outs = (O + step - 1) / step;
  int64_t rows = std::min<int64_t>(
      avail,
      std::max<int64_t>(8, (int64_t(1) << 25) /
                               std::max<int64_t>(1, outs * cPer * taps)));
  double lo = unsignedX ? 0.0 : -128.0, hi = unsignedX ? 255.0 : 127.0;
  std::vector<float> xq(C);
  double signal = 0, noise = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float *x = st.sample.data() + r * C;
    for (int64_t c = 0; c < C; ++c)
      xq[c] = static_cast<float>(
          std::clamp(std::nearbyint(double(x[c]) / scale), lo, hi));
    for (int64_t o = 0; o < O; o += step) {
      int64_t c0 = (o / oPer) * cPer;
      for (int64_t t = 0; t < taps; ++t) {
        double y = 0;
        int64_t acc = 0;
        for (int64_t c = 0; c < cPer; ++c) {
          int64_t at = (o * cPer + c) * taps + t;
          y += double(x[c0 + c]) * w.f(at);
          acc += static_cast<int64_t>(xq[c0 + c]) * wq[at];
        }
        double yq = double(acc) * scale * q.scales[o];
        signal += y * y;
        noise += (y - yq) * (y - yq);
      }
    }
  }
  if (noise <= 0)
    return INFINITY;
  return 10.0 * std::log10(signal / noise);
}

struct GraphQuantizeStaticPass
    : shardc::impl::GraphQuantizeStaticBase<GraphQuantizeStaticPass> {
  using Base::Base;

  /// Marks `op` (a layer of activation `group`) as left in floating point
  /// by the accuracy guard, for --emit=quant-report.
  static void markKept(Operation *op, int64_t group) {
    Builder b(op->getContext());
    op->setAttr(
        quant::kQuantAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("group", b.getI64IntegerAttr(group)),
             b.getNamedAttr("kept", b.getStringAttr("accuracy guard"))}));
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    std::vector<quant::ActivationGroup> groups = quant::quantizableGroups(func);
    std::vector<quant::ConvGroup> convs = quant::quantizableConvs(func);
    if (groups.empty() && convs.empty())
      return;
    if (stats.empty()) {
      func.emitError("graph-quantize-static needs calibration statistics "
                     "(stats=FILE)");
      return signalPassFailure();
    }
    if (method != "minmax" && method != "percentile" && method != "entropy") {
      func.emitError("graph-quantize-static: method=" + method +
                     ": expected minmax, percentile or entropy");
      return signalPassFailure();
    }
    double fixedAlpha = -1;
    if (smooth != "auto" && smooth != "off" &&
        (StringRef(smooth).getAsDouble(fixedAlpha) || fixedAlpha < 0 ||
         fixedAlpha > 1)) {
      func.emitError("graph-quantize-static: smooth=" + smooth +
                     ": expected auto, off or a number from 0 to 1");
      return signalPassFailure();
    }
    std::vector<quant::ActivationStats> all;
    if (std::optional<std::string> err = quant::readStats(stats, all)) {
      func.emitError(*err);
      return signalPassFailure();
    }
    if (all.size() != groups.size() + convs.size()) {
      func.emitError("calibration statistics do not match the model: ")
          << groups.size() + convs.size() << " activations to quantize, "
          << all.size() << " in " << stats;
      return signalPassFailure();
    }
    llvm::DenseMap<Value, Value> replaced;
    for (auto [i, group] : llvm::enumerate(groups)) {
      int64_t k =
          cast<RankedTensorType>(quant::activationOf(group, replaced).getType())
              .getShape()
              .back();
      if (all[i].channels != k) {
        group.layers.front().emitError("calibration statistics do not match "
                                       "the model: activation ")
            << i << " has " << k << " channels, " << all[i].channels << " in "
            << stats;
        return signalPassFailure();
      }
      if (llvm::is_contained(keep, static_cast<int64_t>(i))) {
        for (graph::LinearOp op : group.layers)
          markKept(op, i);
        continue;
      }
      quantize(group, all[i], i, fixedAlpha, replaced);
    }
    for (auto [j, group] : llvm::enumerate(convs)) {
      int64_t i = groups.size() + j;
      Value x = replaced.lookup(group.activation);
      int64_t k = cast<RankedTensorType>((x ? x : group.activation).getType())
                      .getDimSize(1);
      if (all[i].channels != k) {
        group.convs.front()->emitError("calibration statistics do not match "
                                       "the model: activation ")
            << i << " has " << k << " channels, " << all[i].channels << " in "
            << stats;
        return signalPassFailure();
      }
      if (llvm::is_contained(keep, i)) {
        for (Operation *op : group.convs)
          markKept(op, i);
        continue;
      }
      quantizeConvs(group, all[i], i, replaced);
    }
    quant::attentionProductsInBF16(func);
  }

  /// A group of convolutions on int8 activations: one scale for the
  /// activation (its clipping range over 127, or over 255 unsigned when
  /// the sampled values are never negative: the input of most convolutions
  /// follows a ReLU), each weight symmetric int8 per output channel, and
  /// graph.conv_int8 with the two scales' products and the epilogue.
  void quantizeConvs(quant::ConvGroup &group, const quant::ActivationStats &st,
                     int64_t index, llvm::DenseMap<Value, Value> &replaced) {
    double clip = smoothedMax(st, {});
    if (method != "minmax" && !st.sample.empty()) {
      std::vector<float> v = sampleMagnitudes(st, {});
      clip = method == "percentile" ? percentileOf(std::move(v), percentile)
                                    : entropyThreshold(v);
    }
    if (!(clip > 0) || !std::isfinite(clip))
      clip = 1.0;
    bool unsignedX =
        !st.sample.empty() && llvm::all_of(st.sample, [](float v) {
          return v >= 0;
        });
    float scale = static_cast<float>(clip / (unsignedX ? 255.0 : 127.0));
    Operation *first = group.convs.front();
    OpBuilder b(first);
    Location loc = first->getLoc();
    Value x = replaced.lookup(group.activation);
    if (!x)
      x = group.activation;
    Type f32 = b.getF32Type();
    Value scaled =
        b.create<graph::MulOp>(loc, x, scalar(b, loc, f32, 1.0 / scale));
    Value xq;
    if (unsignedX) {
      Type u8 = b.getIntegerType(8, /*isSigned=*/false);
      xq = b.create<graph::QuantizeLinearOp>(
          loc, cast<RankedTensorType>(scaled.getType()).clone(u8), scaled,
          scalar(b, loc, f32, 1.0), scalar(b, loc, u8, 0),
          b.getI64IntegerAttr(1));
    } else {
      xq = quant::toInt8(b, loc, scaled);
    }
    for (Operation *op : group.convs) {
      b.setInsertionPoint(op);
      std::optional<quant::ConvWeight> w = quant::quantizeConvWeight(b, op);
      if (!w)
        continue;
      SmallVector<float> scales;
      for (float sw : w->scales)
        scales.push_back(scale * sw);
      graph::ConvInt8Op y = quant::convInt8Like(b, op, xq, w->q, scales, 0);
      if (!y)
        continue;
      SmallVector<NamedAttribute> info = {
          b.getNamedAttr("scheme", b.getStringAttr("static")),
          b.getNamedAttr("group", b.getI64IntegerAttr(index)),
          b.getNamedAttr("clip", b.getF32FloatAttr(clip)),
          b.getNamedAttr("method", b.getStringAttr(method))};
      double sqnr = convSqnrDb(
          st, scale, unsignedX,
          cast<RankedTensorType>(op->getOperand(1).getType()).getShape(), *w,
          y.getGroup());
      if (!std::isnan(sqnr))
        info.push_back(b.getNamedAttr(
            "sqnr_db", b.getF32FloatAttr(std::min(sqnr, 999.0))));
      y->setAttr(quant::kQuantAttr, b.getDictionaryAttr(info));
      op->getResult(0).replaceAllUsesWith(y.getResult());
      replaced[op->getResult(0)] = y.getResult();
      op->erase();
    }
  }

  void quantize(quant::ActivationGroup &group, const quant::ActivationStats &st,
                int64_t index, double fixedAlpha,
                llvm::DenseMap<Value, Value> &replaced) {
    std::vector<float> weightMax(st.channels, 0.0f);
    for (const quant::Weight &w : group.weights)
      for (int64_t i = 0; i < w.k; ++i)
        for (int64_t n = 0; n < w.n; ++n)
          weightMax[i] = std::max(weightMax[i], std::fabs(w.at(i, n)));
    double alpha = smooth == "off" ? 0 : fixedAlpha;
    if (smooth == "auto") {
      double best = INFINITY;
      for (int step = 0; step < 20; ++step) {
        double a = step * 0.05;
        double noise =
            outputNoise(st, group.weights, smoothing(st, weightMax, a));
        if (noise < best) {
          best = noise;
          alpha = a;
        }
      }
    }
    std::vector<float> s = smoothing(st, weightMax, alpha);
    double clip = smoothedMax(st, s);
    if (method != "minmax" && !st.sample.empty()) {
      std::vector<float> v = sampleMagnitudes(st, s);
      clip = method == "percentile" ? percentileOf(std::move(v), percentile)
                                    : entropyThreshold(v);
    }
    if (!(clip > 0) || !std::isfinite(clip))
      clip = 1.0;
    float scale = static_cast<float>(clip / 127.0);

    auto first = group.layers.front();
    OpBuilder b(first);
    Location loc = first.getLoc();
    Value x = quant::activationOf(group, replaced);
    Type f32 = b.getF32Type();
    // One map: x * m, rounded half to even and saturated.
    Value m;
    if (s.empty()) {
      m = scalar(b, loc, f32, 1.0 / scale);
    } else {
      std::vector<float> mult(st.channels);
      for (int64_t j = 0; j < st.channels; ++j)
        mult[j] = 1.0f / (s[j] * scale);
      auto mType = RankedTensorType::get({st.channels}, f32);
      m = b.create<graph::ConstantOp>(
          loc, DenseElementsAttr::get(mType, ArrayRef<float>(mult)));
    }
    Value scaled = b.create<graph::MulOp>(loc, x, m);
    Value xq = quant::toInt8(b, loc, scaled);
    for (auto [op, w] : llvm::zip(group.layers, group.weights)) {
      b.setInsertionPoint(op);
      quant::HostInt8 host = quant::quantizeOnHost(w, s);
      double sqnr = sqnrDb(st, s, scale, w, host);
      std::optional<quant::QuantizedWeight> q =
          quant::materialize(b, op.getLoc(), w, host, scale, "int8s");
      if (!q)
        continue;
      graph::LinearInt8Op y =
          quant::replaceByInt8(b, op, xq, *q, Value(), replaced);
      SmallVector<NamedAttribute> info = {
          b.getNamedAttr("scheme", b.getStringAttr("static")),
          b.getNamedAttr("group", b.getI64IntegerAttr(index)),
          b.getNamedAttr("alpha", b.getF32FloatAttr(alpha)),
          b.getNamedAttr("clip", b.getF32FloatAttr(clip)),
          b.getNamedAttr("method", b.getStringAttr(method))};
      if (!std::isnan(sqnr))
        info.push_back(b.getNamedAttr(
            "sqnr_db", b.getF32FloatAttr(std::min(sqnr, 999.0))));
      y->setAttr(quant::kQuantAttr, b.getDictionaryAttr(info));
    }
  }
};

} // namespace
