//===- Dnnl.cpp - oneDNN matmul and (de)convolution wrappers --------------===//
//
// oneDNN 2.x C++ API. create() builds the primitive once, on plain row-major
// user layouts described by strides (transposes included), and caches it in
// the handle with memory objects whose data pointers run() rebinds. No
// exception leaves these extern "C" functions: oneDNN errors become
// sc_fail().
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "Handle.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

using namespace shardc::rt::cpu;
using dt = dnnl::memory::data_type;

namespace {

dnnl::engine &cpuEngine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

// One stream per thread: models may run on several threads at once.
dnnl::stream &cpuStream() {
  thread_local dnnl::stream strm(cpuEngine());
  return strm;
}

bool toDnnlType(int32_t dtype, dt &out) {
  switch (dtype) {
  case kF32:
    out = dt::f32;
    return true;
  case kBF16:
    out = dt::bf16;
    return true;
  case kF16:
    out = dt::f16;
    return true;
  default:
    return false;
  }
}

dnnl::memory::dims dimsOf(const sc_desc *d) {
  return dnnl::memory::dims(d->dims, d->dims + d->rank);
}

// Row-major strides of `dims`.
dnnl::memory::dims rowMajor(const dnnl::memory::dims &dims) {
  dnnl::memory::dims st(dims.size(), 1);
  for (int i = (int)dims.size() - 2; i >= 0; --i)
    st[i] = st[i + 1] * dims[i + 1];
  return st;
}

dnnl::memory::desc plainDesc(const dnnl::memory::dims &dims, dt type) {
  return dnnl::memory::desc(dims, type, rowMajor(dims));
}

// A memory object without a buffer; run() binds the user's pointer.
dnnl::memory unbound(const dnnl::memory::desc &md) {
  return dnnl::memory(md, cpuEngine(), nullptr);
}

void bind(dnnl::memory &m, const void *p) {
  m.set_data_handle(const_cast<void *>(p));
}

// A primitive and the memory objects of its arguments.
struct DnnlHandle : shardc::rt::Handle {
  dnnl::primitive prim;
  dnnl::memory src, weights, bias, dst, binary;
  bool hasBias = false, biasIsPostOp = false;
  int binaryArg = 0;
  const char *what = "";

  void run(const void *s, const void *w, const void *b, void *d) {
    try {
      bind(src, s);
      bind(weights, w);
      bind(dst, d);
      std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src},
                                                 {DNNL_ARG_WEIGHTS, weights},
                                                 {DNNL_ARG_DST, dst}};
      if (hasBias && biasIsPostOp) {
        bind(binary, b);
        args.emplace(binaryArg, binary);
      } else if (hasBias) {
        bind(bias, b);
        args.emplace(DNNL_ARG_BIAS, bias);
      }
      prim.execute(cpuStream(), args);
      cpuStream().wait();
    } catch (const dnnl::error &e) {
      sc_fail("oneDNN %s: %s", what, e.what());
    } catch (const std::exception &e) {
      sc_fail("oneDNN %s: %s", what, e.what());
    }
  }
};

std::string dimsStr(const sc_desc *d) {
  std::string s = "[";
  for (int i = 0; i < d->rank; ++i)
    s += (i ? "x" : "") + std::to_string(d->dims[i]);
  return s + "]";
}

} // namespace

extern "C" void *sc_dnnl_matmul_create(const sc_desc *a, const sc_desc *b,
                                       const sc_desc *bias, const sc_desc *y,
                                       int32_t trans_a, int32_t trans_b,
                                       float alpha, float beta) {
  int r = a->rank;
  if (r < 2 || b->rank != r || y->rank != r || (bias && bias->rank != r)) {
    sc_fail("oneDNN matmul: ranks a %d, b %d, y %d%s (need equal, >= 2)", r,
            b->rank, y->rank, bias ? ", bias differs" : "");
    return nullptr;
  }
  dt ta, tb, ty, tbias = dt::f32;
  if (!toDnnlType(a->dtype, ta) || !toDnnlType(b->dtype, tb) ||
      !toDnnlType(y->dtype, ty) || (bias && !toDnnlType(bias->dtype, tbias))) {
    sc_fail("oneDNN matmul: unsupported dtypes %s x %s -> %s",
            dtypeName(a->dtype), dtypeName(b->dtype), dtypeName(y->dtype));
    return nullptr;
  }
  try {
    // Logical [.., M, K] and [.., K, N]; a transpose swaps the strides.
    auto logical = [](const sc_desc *d, bool trans, dt type) {
      dnnl::memory::dims dims = dimsOf(d), st = rowMajor(dims);
      if (trans) {
        size_t n = dims.size();
        std::swap(dims[n - 1], dims[n - 2]);
        std::swap(st[n - 1], st[n - 2]);
      }
      return dnnl::memory::desc(dims, type, st);
    };
    auto amd = logical(a, trans_a != 0, ta);
    auto bmd = logical(b, trans_b != 0, tb);
    auto ymd = plainDesc(dimsOf(y), ty);
    auto h = std::make_unique<DnnlHandle>();
    h->what = "matmul";
    h->hasBias = bias != nullptr;
    // With alpha != 1 the bias goes in as a binary post-op after the scaled
    // product, so that alpha does not scale it.
    h->biasIsPostOp = h->hasBias && alpha != 1.0f;
    dnnl::memory::desc biasMd;
    if (bias)
      biasMd = plainDesc(dimsOf(bias), tbias);
    dnnl::primitive_attr attr;
    if (alpha != 1.0f)
      attr.set_output_scales(0, {alpha});
    dnnl::post_ops po;
    if (beta != 0.0f)
      po.append_sum(beta);
    if (h->biasIsPostOp) {
      po.append_binary(dnnl::algorithm::binary_add, biasMd);
      h->binaryArg =
          DNNL_ARG_ATTR_MULTIPLE_POST_OP(po.len() - 1) | DNNL_ARG_SRC_1;
    }
    attr.set_post_ops(po);
    dnnl::matmul::desc d = bias && !h->biasIsPostOp
                               ? dnnl::matmul::desc(amd, bmd, biasMd, ymd)
                               : dnnl::matmul::desc(amd, bmd, ymd);
    dnnl::matmul::primitive_desc pd(d, attr, cpuEngine());
    h->prim = dnnl::matmul(pd);
    h->src = unbound(amd);
    h->weights = unbound(bmd);
    h->dst = unbound(ymd);
    if (bias)
      (h->biasIsPostOp ? h->binary : h->bias) = unbound(biasMd);
    return h.release();
  } catch (const std::exception &e) {
    sc_fail("oneDNN: matmul %s x %s -> %s (trans %d %d): %s",
            dimsStr(a).c_str(), dimsStr(b).c_str(), dimsStr(y).c_str(), trans_a,
            trans_b, e.what());
    return nullptr;
  }
}

extern "C" void sc_dnnl_matmul_run(void *h, const void *a, const void *b,
                                   const void *bias, void *y) {
  if (!h) {
    sc_fail("oneDNN matmul: run without a primitive");
    return;
  }
  static_cast<DnnlHandle *>(h)->run(a, b, bias, y);
}

extern "C" void *sc_dnnl_conv_create(const sc_desc *x, const sc_desc *w,
                                     const sc_desc *bias, const sc_desc *y,
                                     const int64_t *strides,
                                     const int64_t *dilations,
                                     const int64_t *pads, int64_t group,
                                     int32_t transposed) {
  const char *what = transposed ? "deconvolution" : "convolution";
  int sd = x->rank - 2;
  if (sd < 1 || sd > 3 || w->rank != x->rank || y->rank != x->rank) {
    sc_fail("oneDNN %s: ranks x %d, w %d, y %d (need 3 to 5, equal)", what,
            x->rank, w->rank, y->rank);
    return nullptr;
  }
  dt tx, tw, ty, tbias = dt::f32;
  if (!toDnnlType(x->dtype, tx) || !toDnnlType(w->dtype, tw) ||
      !toDnnlType(y->dtype, ty) || (bias && !toDnnlType(bias->dtype, tbias))) {
    sc_fail("oneDNN %s: unsupported dtypes %s, %s -> %s", what,
            dtypeName(x->dtype), dtypeName(w->dtype), dtypeName(y->dtype));
    return nullptr;
  }
  int64_t g = group > 0 ? group : 1;
  int64_t ic = x->dims[1], oc = y->dims[1];
  if (ic % g || oc % g) {
    sc_fail("oneDNN %s: channels %lld -> %lld not divisible by group %lld",
            what, (long long)ic, (long long)oc, (long long)g);
    return nullptr;
  }
  try {
    // Logical weights {[g,] OC/g, IC/g, k...} over the ONNX layout:
    // Conv [OC, IC/g, k...] (row-major), ConvTranspose [IC, OC/g, k...].
    dnnl::memory::dims kdims(w->dims + 2, w->dims + w->rank);
    int64_t ksize = 1;
    for (int64_t k : kdims)
      ksize *= k;
    dnnl::memory::dims wd, ws;
    if (g > 1) {
      wd = {g, oc / g, ic / g};
      ws = transposed ? dnnl::memory::dims{(ic / g) * (oc / g) * ksize, ksize,
                                           (oc / g) * ksize}
                      : dnnl::memory::dims{(oc / g) * (ic / g) * ksize,
                                           (ic / g) * ksize, ksize};
    } else {
      wd = {oc, ic};
      ws = transposed ? dnnl::memory::dims{ksize, oc * ksize}
                      : dnnl::memory::dims{ic * ksize, ksize};
    }
    dnnl::memory::dims kst = rowMajor(kdims);
    wd.insert(wd.end(), kdims.begin(), kdims.end());
    ws.insert(ws.end(), kst.begin(), kst.end());
    dnnl::memory::desc wmd(wd, tw, ws);
    auto xmd = plainDesc(dimsOf(x), tx);
    auto ymd = plainDesc(dimsOf(y), ty);
    dnnl::memory::desc bmd;
    if (bias)
      bmd = plainDesc({oc}, tbias);
    dnnl::memory::dims st(sd), dil(sd), pl(sd), pr(sd);
    for (int i = 0; i < sd; ++i) {
      st[i] = strides ? strides[i] : 1;
      int64_t d = dilations ? dilations[i] : 1;
      dil[i] = d - 1;
      pl[i] = pads ? pads[i] : 0;
      int64_t span = (kdims[i] - 1) * d + 1;
      int64_t in = x->dims[2 + i], out = y->dims[2 + i];
      // ConvTranspose: the end padding that gives exactly y's size (it
      // absorbs output_padding, and may be negative).
      if (transposed) {
        pr[i] = (in - 1) * st[i] + span - pl[i] - out;
        continue;
      }
      // Conv: the given end padding when consistent with y's size, else the
      // one that is (it only drops what floor() discards).
      pr[i] = pads ? pads[sd + i] : 0;
      int64_t full = in + pl[i] + pr[i] - span;
      if (full < 0 || full / st[i] + 1 != out)
        pr[i] = (out - 1) * st[i] + span - in - pl[i];
    }
    auto h = std::make_unique<DnnlHandle>();
    h->what = what;
    h->hasBias = bias != nullptr;
    auto prop = dnnl::prop_kind::forward_inference;
    if (transposed) {
      dnnl::deconvolution_forward::desc d(prop,
                                          dnnl::algorithm::deconvolution_direct,
                                          xmd, wmd, bmd, ymd, st, dil, pl, pr);
      dnnl::deconvolution_forward::primitive_desc pd(d, cpuEngine());
      h->prim = dnnl::deconvolution_forward(pd);
    } else {
      dnnl::convolution_forward::desc d(prop,
                                        dnnl::algorithm::convolution_direct,
                                        xmd, wmd, bmd, ymd, st, dil, pl, pr);
      dnnl::convolution_forward::primitive_desc pd(d, cpuEngine());
      h->prim = dnnl::convolution_forward(pd);
    }
    h->src = unbound(xmd);
    h->weights = unbound(wmd);
    h->dst = unbound(ymd);
    if (bias)
      h->bias = unbound(bmd);
    return h.release();
  } catch (const std::exception &e) {
    sc_fail("oneDNN: %s %s * %s -> %s (group %lld): %s", what,
            dimsStr(x).c_str(), dimsStr(w).c_str(), dimsStr(y).c_str(),
            (long long)g, e.what());
    return nullptr;
  }
}

extern "C" void sc_dnnl_conv_run(void *h, const void *x, const void *w,
                                 const void *bias, void *y) {
  if (!h) {
    sc_fail("oneDNN convolution: run without a primitive");
    return;
  }
  static_cast<DnnlHandle *>(h)->run(x, w, bias, y);
}
