//===- ConvPlan.cpp - an ONNX (de)convolution as cuDNN descriptors --------===//
#include "ConvPlan.h"

#include <algorithm>
#include <climits>

namespace shardc::rt::cuda {
namespace {

std::string dimsOf(const sc_desc &d) {
  std::string s = "[";
  for (int i = 0; i < d.rank; ++i)
    s += (i ? "," : "") + std::to_string(d.dims[i]);
  return s + "]";
}

int64_t numel(const sc_desc &d) {
  int64_t n = 1;
  for (int i = 0; i < d.rank; ++i)
    n *= d.dims[i];
  return n;
}

} // namespace

bool planConv(const sc_desc &x, const sc_desc &w, const sc_desc *bias,
              const sc_desc &y, const int64_t *strides,
              const int64_t *dilations, const int64_t *pads, int64_t group,
              bool transposed, ConvPlan &plan, std::string &error) {
  plan = ConvPlan();
  plan.transposed = transposed;
  const int sd = x.rank - 2;
  const std::string shapes =
      "x " + dimsOf(x) + " * w " + dimsOf(w) + " -> y " + dimsOf(y);
  if (sd < 1 || sd > 3 || w.rank != x.rank || y.rank != x.rank) {
    error = shapes + ": need x, w, y of one rank, 3 to 5";
    return false;
  }
  const int64_t g = group > 0 ? group : 1;
  // In = the channels the filter reads, Out = those it writes.
  const int64_t in = transposed ? y.dims[1] : x.dims[1];
  const int64_t out = transposed ? x.dims[1] : y.dims[1];
  const int64_t filterOut = w.dims[0], filterIn = w.dims[1];
  if (x.dims[0] != y.dims[0] || filterOut != out || filterIn * g != in ||
      out % g) {
    error = shapes + " (group " + std::to_string(g) +
            "): the batch or channel dims do not match";
    return false;
  }
  if (bias && numel(*bias) != y.dims[1]) {
    error = shapes + ": bias " + dimsOf(*bias) + " is not one value per " +
            "output channel";
    return false;
  }
  plan.outChannels = static_cast<int>(y.dims[1]);
  if (numel(y) == 0) {
    plan.empty = true;
    return true;
  }
  if (numel(x) == 0 || numel(w) == 0) {
    error = shapes + ": empty input";
    return false;
  }

  // A 1-D convolution runs as a 2-D one of height 1.
  const int lift = sd == 1 ? 1 : 0;
  plan.nbDims = x.rank + lift;
  auto fill = [&](const sc_desc &d, int *dims) {
    dims[0] = static_cast<int>(d.dims[0]);
    dims[1] = static_cast<int>(d.dims[1]);
    dims[2] = 1;
    for (int i = 0; i < sd; ++i)
      dims[2 + lift + i] = static_cast<int>(d.dims[2 + i]);
  };
  for (const sc_desc *d : {&x, &w, &y})
    for (int i = 0; i < d->rank; ++i)
      if (d->dims[i] > INT_MAX) {
        error = shapes + ": dims beyond cuDNN's int range";
        return false;
      }
  fill(x, plan.x);
  fill(w, plan.w);
  fill(y, plan.y);
  plan.groups = static_cast<int>(g);
  plan.pads[0] = 0;
  plan.strides[0] = plan.dilations[0] = 1;
  for (int i = 0; i < sd; ++i) {
    const int64_t s = strides ? strides[i] : 1;
    const int64_t d = dilations ? dilations[i] : 1;
    const int64_t begin = pads ? pads[i] : 0, end = pads ? pads[sd + i] : 0;
    if (s < 1 || d < 1 || begin < 0 || s > INT_MAX || d > INT_MAX ||
        begin > INT_MAX) {
      error = shapes + ": bad stride, dilation or pad on spatial dim " +
              std::to_string(i);
      return false;
    }
    // cuDNN's forward relation, from the larger tensor to the smaller:
    // small = (large + 2 * begin - span) / stride + 1.
    const int64_t span = (w.dims[2 + i] - 1) * d + 1;
    const int64_t large = transposed ? y.dims[2 + i] : x.dims[2 + i];
    const int64_t small = transposed ? x.dims[2 + i] : y.dims[2 + i];
    const int64_t padded = large + 2 * begin - span;
    bool fits = padded >= 0 && padded / s + 1 == small;
    int64_t pad = begin;
    if (!fits && transposed && begin != end) {
      // y[o] = full[o + begin - pad] where full pads both ends by the
      // smaller pad: (small - 1) * stride + span - 2 * pad elements, of
      // which y must fit in the window after the crop.
      const int64_t smaller = std::min(begin, end);
      const int64_t full = (small - 1) * s + span - 2 * smaller;
      const int64_t crop = begin - smaller;
      if (full >= crop + large && full <= INT_MAX) {
        if (!plan.cropped)
          std::copy(plan.y, plan.y + plan.nbDims, plan.full);
        plan.cropped = true;
        plan.full[2 + lift + i] = static_cast<int>(full);
        plan.crop[2 + lift + i] = static_cast<int>(crop);
        pad = smaller;
        fits = true;
      }
    }
    if (!fits) {
      error = shapes + ": cuDNN pads both ends of a dim by the same amount; " +
              "pads " + std::to_string(begin) + " and " + std::to_string(end) +
              " of spatial dim " + std::to_string(i) + " do not fit that";
      return false;
    }
    plan.pads[lift + i] = static_cast<int>(pad);
    plan.strides[lift + i] = static_cast<int>(s);
    plan.dilations[lift + i] = static_cast<int>(d);
  }
  return true;
}

} // namespace shardc::rt::cuda
