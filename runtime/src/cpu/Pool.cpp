//===- Pool.cpp - N-D MaxPool and AveragePool -----------------------------===//
//
// Per spatial dim and output coordinate, a table lists the input
// coordinates the (dilated) window covers inside the input, and how many it
// covers inside the padded input (for count_include_pad). A window is the
// product of its per-dim lists. Windows that run past the end padding
// (ceil_mode) only count the positions inside the padded input.
//
// Channels-last tensors ([N, spatial..., C] in memory) run on the logical
// [N, C, spatial...] shape with the addressing changed: 2-D pooling in a
// loop over C innermost (contiguous, vectorized), other ranks in the
// generic path. Both visit and accumulate every window as the NCHW paths
// do, so the results are the same.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

using namespace shardc::rt::cpu;

namespace {

constexpr int kMaxSpatial = SC_MAX_RANK - 2;

struct DimTable {
  std::vector<int64_t> first;  // per output coordinate: offset into idx
  std::vector<int64_t> count;  // valid input coordinates
  std::vector<int64_t> padded; // coordinates inside the padded input
  std::vector<int64_t> idx;
};

DimTable makeTable(int64_t in, int64_t out, int64_t kernel, int64_t stride,
                   int64_t dilation, int64_t padBegin, int64_t padEnd) {
  DimTable t;
  t.first.resize(out);
  t.count.resize(out);
  t.padded.resize(out);
  for (int64_t o = 0; o < out; ++o) {
    t.first[o] = (int64_t)t.idx.size();
    int64_t inPad = 0;
    for (int64_t k = 0; k < kernel; ++k) {
      int64_t i = o * stride - padBegin + k * dilation;
      if (i >= -padBegin && i < in + padEnd)
        ++inPad;
      if (i >= 0 && i < in)
        t.idx.push_back(i);
    }
    t.count[o] = (int64_t)t.idx.size() - t.first[o];
    t.padded[o] = inPad;
  }
  return t;
}

// Per output coordinate of a dim whose windows are arithmetic runs (step:
// the dilation): the first valid input coordinate and how many there are.
void runsOf(const DimTable &t, int64_t out, std::vector<int64_t> &lo,
            std::vector<int64_t> &cnt) {
  lo.resize(out);
  cnt.resize(out);
  for (int64_t o = 0; o < out; ++o) {
    cnt[o] = t.count[o];
    lo[o] = cnt[o] ? t.idx[t.first[o]] : 0;
  }
}

// x and y are the logical [N, C, spatial...] shapes; channelsLast: stored
// [N, spatial..., C] (no indices then).
template <class T>
void poolImpl(const sc_desc *x, const T *xp, const sc_desc *y, T *yp,
              int64_t *indices, bool isMax, const std::vector<DimTable> &tabs,
              bool countIncludePad, bool colMajor, bool channelsLast) {
  using Acc = typename Elem<T>::Acc;
  int sd = x->rank - 2;
  const int64_t C = x->dims[1];
  // Element stride between neighbouring spatial positions.
  const int64_t sp = channelsLast ? C : 1;
  int64_t planes = x->dims[0] * x->dims[1];
  int64_t inPlane = prodDims(x, 2, x->rank);
  int64_t outPlane = prodDims(y, 2, y->rank);
  // Strides of the input spatial dims, row-major (for reading) and the
  // index layout (row- or column-major over the spatial dims).
  int64_t rstride[kMaxSpatial], istride[kMaxSpatial];
  {
    int64_t r = 1, c = 1;
    for (int d = sd - 1; d >= 0; --d) {
      rstride[d] = r;
      r *= x->dims[2 + d];
    }
    for (int d = 0; d < sd; ++d) {
      istride[d] = c;
      c *= x->dims[2 + d];
    }
    if (!colMajor)
      for (int d = 0; d < sd; ++d)
        istride[d] = rstride[d];
  }
  int64_t total = planes * outPlane;
#pragma omp parallel for if (total * 4 > kParallelGrain)
  for (int64_t t = 0; t < total; ++t) {
    int64_t p = t / outPlane, q = t % outPlane;
    // Output spatial coordinates of q.
    int64_t oc[kMaxSpatial];
    for (int d = sd - 1; d >= 0; --d) {
      oc[d] = q % y->dims[2 + d];
      q /= y->dims[2 + d];
    }
    const int64_t *lists[kMaxSpatial];
    int64_t lens[kMaxSpatial], pos[kMaxSpatial];
    int64_t windowSize = 1, paddedSize = 1;
    for (int d = 0; d < sd; ++d) {
      const DimTable &tb = tabs[d];
      lists[d] = tb.idx.data() + tb.first[oc[d]];
      lens[d] = tb.count[oc[d]];
      pos[d] = 0;
      windowSize *= lens[d];
      paddedSize *= tb.padded[oc[d]];
    }
    const T *plane =
        channelsLast ? xp + (p / C) * inPlane * C + p % C : xp + p * inPlane;
    Acc best = std::numeric_limits<Acc>::has_infinity
                   ? -std::numeric_limits<Acc>::infinity()
                   : std::numeric_limits<Acc>::lowest();
    int64_t bestIdx = 0;
    bool found = false;
    double sum = 0;
    for (int64_t w = 0; w < windowSize; ++w) {
      int64_t off = 0;
      for (int d = 0; d < sd; ++d)
        off += lists[d][pos[d]] * rstride[d];
      Acc v = load(plane[off * sp]);
      if (isMax) {
        if (!found || beatsMaxNaN(best, v)) {
          best = v;
          found = true;
          if (indices) {
            int64_t io = 0;
            for (int d = 0; d < sd; ++d)
              io += lists[d][pos[d]] * istride[d];
            bestIdx = io;
          }
        }
      } else {
        sum += (double)v;
      }
      for (int d = sd - 1; d >= 0; --d) { // next window position
        if (++pos[d] < lens[d])
          break;
        pos[d] = 0;
      }
    }
    int64_t out = channelsLast ? ((p / C) * outPlane + t % outPlane) * C + p % C
                               : p * outPlane + (t % outPlane);
    if (isMax) {
      yp[out] = store<T>(best);
      if (indices)
        indices[out] = p * inPlane + bestIdx;
    } else {
      int64_t cnt = countIncludePad ? paddedSize : windowSize;
      double r =
          cnt ? sum / (double)cnt : std::numeric_limits<double>::quiet_NaN();
      yp[out] = store<T>((Acc)r);
    }
  }
}

// 2-D (NCHW) fast path: the window of an output row / column is an
// arithmetic run of input coordinates (lo, lo + dil, ..., count of them),
// read from the tables once per row and column, so the element loop has no
// divisions. It visits each window in the generic path's order (rows outer,
// columns inner) and accumulates the same way, so the results are identical.
template <class T>
void pool2d(const sc_desc *x, const T *xp, const sc_desc *y, T *yp,
            int64_t *indices, bool isMax, const std::vector<DimTable> &tabs,
            const int64_t dil[2], bool countIncludePad, bool colMajor) {
  using Acc = typename Elem<T>::Acc;
  const int64_t planes = x->dims[0] * x->dims[1];
  const int64_t H = x->dims[2], W = x->dims[3];
  const int64_t OH = y->dims[2], OW = y->dims[3];
  const int64_t inPlane = H * W, outPlane = OH * OW;
  const int64_t dh = dil[0], dw = dil[1];
  // Per output row / column: first valid input coordinate, how many.
  std::vector<int64_t> hLo, hCnt, wLo, wCnt;
  runsOf(tabs[0], OH, hLo, hCnt);
  runsOf(tabs[1], OW, wLo, wCnt);
  const Acc lowest = std::numeric_limits<Acc>::has_infinity
                         ? -std::numeric_limits<Acc>::infinity()
                         : std::numeric_limits<Acc>::lowest();
  // Index of input (ih, iw) in the indices output's layout.
  const int64_t ihStride = colMajor ? 1 : W, iwStride = colMajor ? H : 1;
  // Work: input reads over all windows, (sum of row counts) x (sum of
  // column counts) per plane. Threads only pay off for large pools.
  int64_t rows = 0, cols = 0;
  for (int64_t o = 0; o < OH; ++o)
    rows += hCnt[o];
  for (int64_t o = 0; o < OW; ++o)
    cols += wCnt[o];
  const int64_t work = planes * std::max<int64_t>(outPlane, rows * cols);
  // Max pooling into float or double without indices: the columns whose
  // windows are full and evenly strided ([interiorA, interiorB)) run with
  // the output column innermost, a branch-free max the compiler
  // vectorizes. The (row, column) visiting order and the NaN-propagating
  // maximum are the scalar loop's, so the results are identical.
  int64_t interiorA = 0, interiorB = 0, sw = 0;
  if constexpr (std::is_same_v<T, Acc>) {
    int64_t full = 0;
    for (int64_t o = 0; o < OW; ++o)
      full = std::max(full, wCnt[o]);
    if (isMax && !indices && full > 0) {
      while (interiorA < OW && wCnt[interiorA] != full)
        ++interiorA;
      interiorB = interiorA + 1;
      if (interiorB < OW && wCnt[interiorB] == full)
        sw = wLo[interiorB] - wLo[interiorA];
      while (interiorB < OW && wCnt[interiorB] == full &&
             wLo[interiorB] - wLo[interiorB - 1] == sw)
        ++interiorB;
      if (interiorA >= OW || sw <= 0)
        interiorA = interiorB = 0; // one column or irregular: scalar only
    }
  }
#pragma omp parallel for schedule(static) if (planes > 1 && work >= (1 << 17))
  for (int64_t p = 0; p < planes; ++p) {
    const T *plane = xp + p * inPlane;
    T *out = yp + p * outPlane;
    int64_t *outIdx = indices ? indices + p * outPlane : nullptr;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t h0 = hLo[oh], hn = hCnt[oh];
      const int64_t hPad = tabs[0].padded[oh];
      const bool vector = interiorB > interiorA && hn > 0;
      if constexpr (std::is_same_v<T, Acc>) {
        if (vector) {
          T *o = out + oh * OW;
          const int64_t wn = wCnt[interiorA], a = interiorA, b = interiorB;
          for (int64_t i = 0; i < hn; ++i) {
            const T *row = plane + (h0 + i * dh) * W + wLo[a];
            for (int64_t j = 0; j < wn; ++j) {
              const T *src = row + j * dw;
              if (i == 0 && j == 0) {
                for (int64_t ow = a; ow < b; ++ow)
                  o[ow] = src[(ow - a) * sw];
              } else {
                for (int64_t ow = a; ow < b; ++ow) {
                  o[ow] = maxNaN(o[ow], src[(ow - a) * sw]);
                }
              }
            }
          }
        }
      }
      for (int64_t ow = 0; ow < OW; ++ow) {
        if (vector && ow >= interiorA && ow < interiorB)
          continue;
        const int64_t w0 = wLo[ow], wn = wCnt[ow];
        const int64_t q = oh * OW + ow;
        if (isMax) {
          Acc best = lowest;
          int64_t bestIdx = 0;
          bool found = false;
          for (int64_t i = 0; i < hn; ++i) {
            const int64_t ih = h0 + i * dh;
            const T *row = plane + ih * W;
            for (int64_t j = 0; j < wn; ++j) {
              const int64_t iw = w0 + j * dw;
              Acc v = load(row[iw]);
              if (!found || beatsMaxNaN(best, v)) {
                best = v;
                found = true;
                bestIdx = ih * ihStride + iw * iwStride;
              }
            }
          }
          out[q] = store<T>(best);
          if (outIdx)
            outIdx[q] = p * inPlane + bestIdx;
        } else {
          double sum = 0;
          for (int64_t i = 0; i < hn; ++i) {
            const T *row = plane + (h0 + i * dh) * W + w0;
            for (int64_t j = 0; j < wn; ++j)
              sum += (double)load(row[j * dw]);
          }
          int64_t cnt = countIncludePad ? hPad * tabs[1].padded[ow] : hn * wn;
          double r = cnt ? sum / (double)cnt
                         : std::numeric_limits<double>::quiet_NaN();
          out[q] = store<T>((Acc)r);
        }
      }
    }
  }
}

// One output pixel of the channels-last path: its C channels over its
// window (rows h0 + i * dh, i < hn; columns w0 + j * dw, j < wn) of the
// [H, W, C] image, into o. best, sum: C accumulators each, for max (used
// unless T is its own accumulator) and average; the loops over the
// channels are contiguous and vectorize. cnt: the average's divisor.
template <class T>
inline void poolPixel(const T *__restrict image, int64_t W, int64_t C,
                      int64_t h0, int64_t hn, int64_t dh, int64_t w0,
                      int64_t wn, int64_t dw, bool isMax, int64_t cnt,
                      T *__restrict o, typename Elem<T>::Acc *__restrict best,
                      double *__restrict sum) {
  using Acc = typename Elem<T>::Acc;
  auto at = [&](int64_t i, int64_t j) {
    return image + ((h0 + i * dh) * W + w0 + j * dw) * C;
  };
  if (isMax) {
    // Max into o itself where T is its own accumulator.
    Acc *__restrict b;
    if constexpr (std::is_same_v<T, Acc>)
      b = o;
    else
      b = best;
    if (hn == 0 || wn == 0) {
      const Acc lowest = std::numeric_limits<Acc>::has_infinity
                             ? -std::numeric_limits<Acc>::infinity()
                             : std::numeric_limits<Acc>::lowest();
      for (int64_t c = 0; c < C; ++c)
        b[c] = lowest;
    } else if (hn * wn == 1) {
      const T *__restrict first = at(0, 0);
      for (int64_t c = 0; c < C; ++c)
        b[c] = load(first[c]);
    } else {
      // The first two window positions at once (the first, then `>`): no
      // copy that the next pass would have to read back.
      const T *__restrict first = at(0, 0);
      const T *__restrict second = wn > 1 ? at(0, 1) : at(1, 0);
      for (int64_t c = 0; c < C; ++c) {
        const Acc u = load(first[c]), v = load(second[c]);
        b[c] = maxNaN(u, v);
      }
      for (int64_t i = 0; i < hn; ++i)
        for (int64_t j = i == 0 ? (wn > 1 ? 2 : 1) : (i == 1 && wn == 1);
             j < wn; ++j) {
          const T *__restrict src = at(i, j);
          for (int64_t c = 0; c < C; ++c) {
            b[c] = maxNaN(b[c], load(src[c]));
          }
        }
    }
    if constexpr (!std::is_same_v<T, Acc>)
      for (int64_t c = 0; c < C; ++c)
        o[c] = store<T>(b[c]);
    return;
  }
  double *__restrict s = sum;
  for (int64_t c = 0; c < C; ++c)
    s[c] = 0;
  for (int64_t i = 0; i < hn; ++i)
    for (int64_t j = 0; j < wn; ++j) {
      const T *__restrict src = at(i, j);
      for (int64_t c = 0; c < C; ++c)
        s[c] += (double)load(src[c]);
    }
  if (!cnt) {
    for (int64_t c = 0; c < C; ++c)
      o[c] = store<T>((Acc)std::numeric_limits<double>::quiet_NaN());
    return;
  }
  for (int64_t c = 0; c < C; ++c)
    o[c] = store<T>((Acc)(s[c] / (double)cnt));
}

// 2-D channels-last fast path (no indices). x and y are the logical [N, C,
// H, W] shapes; memory holds [N, H, W, C]. Each output pixel's channels are
// computed together, the window visited in the NCHW paths' order (rows
// outer, columns inner) with the channels innermost: max propagates NaN
// (maxNaN, as pool2d), average
// sums in double and divides once. So every channel gets exactly what the
// NCHW paths give on the transposed tensor.
template <class T>
void pool2dChannelsLast(const sc_desc *x, const T *xp, const sc_desc *y, T *yp,
                        bool isMax, const std::vector<DimTable> &tabs,
                        const int64_t dil[2], bool countIncludePad) {
  using Acc = typename Elem<T>::Acc;
  const int64_t N = x->dims[0], C = x->dims[1];
  const int64_t H = x->dims[2], W = x->dims[3];
  const int64_t OH = y->dims[2], OW = y->dims[3];
  const int64_t dh = dil[0], dw = dil[1];
  std::vector<int64_t> hLo, hCnt, wLo, wCnt;
  runsOf(tabs[0], OH, hLo, hCnt);
  runsOf(tabs[1], OW, wLo, wCnt);
  // The work and threshold of pool2d.
  int64_t rows = 0, cols = 0;
  for (int64_t o = 0; o < OH; ++o)
    rows += hCnt[o];
  for (int64_t o = 0; o < OW; ++o)
    cols += wCnt[o];
  const int64_t work = N * C * std::max<int64_t>(OH * OW, rows * cols);
  const int64_t tasks = N * OH; // one output row of one image each
  // Output row t, with a thread's accumulators (poolPixel).
  auto row = [&](int64_t t, Acc *best, double *sum) {
    const int64_t n = t / OH, oh = t % OH;
    const int64_t h0 = hLo[oh], hn = hCnt[oh];
    const T *image = xp + n * H * W * C;
    T *out = yp + t * OW * C;
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t cnt = countIncludePad
                              ? tabs[0].padded[oh] * tabs[1].padded[ow]
                              : hn * wCnt[ow];
      poolPixel(image, W, C, h0, hn, dh, wLo[ow], wCnt[ow], dw, isMax, cnt,
                out + ow * C, best, sum);
    }
  };
  // Accumulators of one thread.
  const int64_t nBest = isMax && !std::is_same_v<T, Acc> ? C : 0;
  const int64_t nSum = isMax ? 0 : C;
  if (tasks > 1 && work >= (1 << 17)) {
#pragma omp parallel
    {
      std::vector<Acc> best(nBest);
      std::vector<double> sum(nSum);
#pragma omp for schedule(static)
      for (int64_t t = 0; t < tasks; ++t)
        row(t, best.data(), sum.data());
    }
  } else {
    std::vector<Acc> best(nBest);
    std::vector<double> sum(nSum);
    for (int64_t t = 0; t < tasks; ++t)
      row(t, best.data(), sum.data());
  }
}

} // namespace

extern "C" void sc_pool(const sc_desc *x, const void *xp, const sc_desc *y,
                        void *yp, int64_t *indices, int32_t kind,
                        const int64_t *kernel, const int64_t *strides,
                        const int64_t *dilations, const int64_t *pads,
                        int32_t count_include_pad, int32_t storage_order,
                        int32_t channels_last) {
  int sd = x->rank - 2;
  if (sd < 1 || y->rank != x->rank) {
    sc_fail("Pool: input rank %d, output rank %d (need N, C and spatial dims)",
            x->rank, y->rank);
    return;
  }
  bool isMax = kind == 0;
  if (channels_last && isMax && indices) {
    sc_fail("MaxPool: no indices output with channels-last tensors");
    return;
  }
  // From here on x and y are the logical shapes.
  sc_desc lx, ly;
  if (channels_last) {
    lx = channelsFirst(x);
    ly = channelsFirst(y);
    x = &lx;
    y = &ly;
  }
  std::vector<DimTable> tabs;
  for (int d = 0; d < sd; ++d) {
    int64_t dil = dilations ? dilations[d] : 1;
    int64_t st = strides ? strides[d] : 1;
    int64_t pb = pads ? pads[d] : 0, pe = pads ? pads[sd + d] : 0;
    tabs.push_back(
        makeTable(x->dims[2 + d], y->dims[2 + d], kernel[d], st, dil, pb, pe));
  }
  auto run = [&](auto t) {
    using T = decltype(t);
    if (sd == 2) {
      int64_t dil[2] = {dilations ? dilations[0] : 1,
                        dilations ? dilations[1] : 1};
      if (channels_last) {
        pool2dChannelsLast(x, static_cast<const T *>(xp), y,
                           static_cast<T *>(yp), isMax, tabs, dil,
                           count_include_pad != 0);
        return;
      }
      pool2d(x, static_cast<const T *>(xp), y, static_cast<T *>(yp),
             isMax ? indices : nullptr, isMax, tabs, dil,
             count_include_pad != 0, storage_order == 1);
      return;
    }
    poolImpl(x, static_cast<const T *>(xp), y, static_cast<T *>(yp),
             isMax ? indices : nullptr, isMax, tabs, count_include_pad != 0,
             storage_order == 1, channels_last != 0);
  };
  if (x->dtype == kBool || !dispatchNumeric(x->dtype, run))
    sc_fail("%s: unsupported dtype %s", isMax ? "MaxPool" : "AveragePool",
            dtypeName(x->dtype));
}
