//===- AttentionDnnl.cpp - bf16 attention on oneDNN's bf16 matmuls --------===//
//
// The bf16 form of sc_attention where oneDNN has bf16 matmul kernels (AMX
// on Sapphire Rapids and later, AVX-512 BF16 before): the two products of
// every (batch entry, query block, key block) run as oneDNN matmuls, which
// on AMX multiply several times faster than the fp32 register tiles of
// Attention.cpp (GPT-2-small's attention at 8 x 512: see
// docs/performance.md). What lies between them stays as in Attention.cpp:
// scale, mask and causal limit, the online softmax in fp32 with the
// vectorized row kernels, the output divided by the row sums at the end.
// The weights are rounded to bf16 for the product with the values (fp32
// accumulation), as bf16 flash-attention kernels do. f32 operands take the
// same path when the program asks for bf16 products (an int8 program's
// attention): rounded to bf16 as they are staged, the result stored as f32.
//
// Each thread stages its query block and the keys and values of its current
// batch entry densely (the operands arrive as strided views, and oneDNN's
// AMX kernels take dense ones only). The matmuls are created for one
// thread (a primitive planned for the team but executed inside a parallel
// region runs only thread 0's share) with a user scratchpad, once per shape
// for the life of the process.
//
// Nothing here is cloned per ISA (target_clones): with a multiversioned
// function in the file, clang 19 leaves inline functions of oneDNN's C++
// API unemitted (undefined references in the sanitized build). The row
// loops that matter call VecMath's clones (maxima, exponentials, bf16
// rounding); the products are oneDNN's.
//
//===----------------------------------------------------------------------===//
#include "Attention.h"
#include "Common.h"
#include "DnnlContext.h"
#include "VecMath.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace shardc::rt::cpu {
namespace {

using dt = dnnl::memory::data_type;
using Dims = dnnl::memory::dims;

// Keys per block (the scores of a query block against it stay in L2), and
// the most query rows a block takes.
constexpr int64_t kKeyBlock = 512, kQueryBlock = 128;

bool cpuHasBf16Matmul() {
  static const bool has = [] {
    auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    return (isa & dnnl_cpu_isa_avx512_core_bf16) ==
           dnnl_cpu_isa_avx512_core_bf16;
  }();
  return has;
}

// C [m x n] (fp32, dense) = A [m x k] (bf16, dense) B, where B is [k x n]
// bf16 given as n dense rows of k (`keys`: the scores) or as k dense rows
// of n (the values).
struct Matmul {
  dnnl::memory::desc a, b, c;
  dnnl::matmul prim;
  size_t scratch = 0;
};

const Matmul &matmulFor(int64_t m, int64_t n, int64_t k, bool keys) {
  static std::mutex mu;
  static std::map<std::tuple<int64_t, int64_t, int64_t, bool>,
                  std::unique_ptr<Matmul>>
      cache;
  std::lock_guard<std::mutex> lock(mu);
  auto &slot = cache[{m, n, k, keys}];
  if (!slot) {
    auto mm = std::make_unique<Matmul>();
    mm->a = dnnl::memory::desc({m, k}, dt::bf16, Dims{k, 1});
    mm->b =
        dnnl::memory::desc({k, n}, dt::bf16, keys ? Dims{1, k} : Dims{n, 1});
    mm->c = dnnl::memory::desc({m, n}, dt::f32, Dims{n, 1});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    // Planned for the one thread that runs it (see the file comment).
    ThreadLimit limit(/*serial=*/true);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(mm->a, mm->b, mm->c),
                                    attr, cpuEngine());
    mm->prim = dnnl::matmul(pd);
    mm->scratch = pd.scratchpad_desc().get_size();
    slot = std::move(mm);
  }
  return *slot;
}

// What one thread keeps between its items: two allocations, cut up.
struct Scratch {
  std::vector<BHalf> halves;
  std::vector<float> floats;
  std::vector<uint8_t> pad;    // oneDNN's scratchpad
  BHalf *qb, *kb, *vb, *pb;    // queries, keys, values, weights
  float *sb, *ob, *acc, *mx, *sum, *corr; // scores, P V, the softmax state
  int64_t stagedB = -1, staged = 0;       // keys [0, staged) of stagedB
  Scratch(int64_t BQ, int64_t BK, int64_t T, int64_t D, int64_t E)
      : halves(BQ * D + T * D + T * E + BQ * BK),
        floats(BQ * BK + 2 * BQ * E + 3 * BQ) {
    qb = halves.data();
    kb = qb + BQ * D;
    vb = kb + T * D;
    pb = vb + T * E;
    sb = floats.data();
    ob = sb + BQ * BK;
    acc = ob + BQ * E;
    mx = acc + BQ * E;
    sum = mx + BQ;
    corr = sum + BQ;
  }
};

void run(const Matmul &mm, const void *a, const void *b, float *c, Scratch &w) {
  if (w.pad.size() < mm.scratch)
    w.pad.resize(mm.scratch);
  dnnl::engine &eng = cpuEngine();
  dnnl::memory ma(mm.a, eng, const_cast<void *>(a)),
      mb(mm.b, eng, const_cast<void *>(b)), mc(mm.c, eng, c),
      mp(dnnl::memory::desc({(int64_t)mm.scratch}, dt::u8, Dims{1}), eng,
         w.pad.data());
  mm.prim.execute(cpuStream(), {{DNNL_ARG_SRC, ma},
                                {DNNL_ARG_WEIGHTS, mb},
                                {DNNL_ARG_DST, mc},
                                {DNNL_ARG_SCRATCHPAD, mp}});
}

// El: the operands' element type, bf16 or f32 (rounded to bf16 as staged).
template <class El> struct Problem {
  int32_t nb;
  const int64_t *dims;
  const El *q, *k, *v, *mask;
  AttentionOperand ql, kl, vl, ml, yl;
  El *y;
  float sc;
  bool causal;
  int64_t S, T, D, E, BQ, BK, qBlocks;
};

// Copies `cols` elements of a strided row into a dense bf16 one (f32
// elements rounded to nearest even).
inline __attribute__((always_inline)) void
gatherRow(const BHalf *src, int64_t cs, int64_t cols, BHalf *dst) {
  if (cs == 1)
    std::copy(src, src + cols, dst);
  else
    for (int64_t j = 0; j < cols; ++j)
      dst[j] = src[j * cs];
}
inline __attribute__((always_inline)) void
gatherRow(const float *src, int64_t cs, int64_t cols, BHalf *dst) {
  if (cs == 1) {
    narrowBF16(src, dst, cols);
    return;
  }
  for (int64_t j = 0; j < cols; ++j)
    dst[j] = store<BHalf>(src[j * cs]);
}

// One (batch entry, query block) item.
template <class El> void item(const Problem<El> &p, Scratch &w, int64_t it) {
  const float ninf = -std::numeric_limits<float>::infinity();
  const int64_t S = p.S, T = p.T, D = p.D, E = p.E, BK = p.BK;
  int64_t b = it / p.qBlocks, s0 = (it % p.qBlocks) * p.BQ;
  int64_t rows = std::min(p.BQ, S - s0);
  if (b != w.stagedB) {
    w.stagedB = b;
    w.staged = 0;
  }
  const BatchOffsets o =
      batchOffsets(p.nb, p.dims, b, p.ql, p.kl, p.vl, p.mask, p.ml, p.yl);
  const int64_t qo = o.q, ko = o.k, vo = o.v, mo = o.mask, yo = o.y;
  for (int64_t r = 0; r < rows; ++r) {
    gatherRow(p.q + qo + (s0 + r) * p.ql.rs, p.ql.cs, D, w.qb + r * D);
    w.mx[r] = ninf;
    w.sum[r] = 0;
  }
  std::fill(w.acc, w.acc + rows * E, 0.0f);
  int64_t tEnd = T;
  if (p.causal)
    tEnd = std::clamp<int64_t>(s0 + rows - 1 + T - S + 1, 0, T);
  for (int64_t t0 = 0; t0 < tEnd; t0 += BK) {
    const int64_t n = std::min(BK, tEnd - t0);
    for (; w.staged < t0 + n; ++w.staged) {
      int64_t t = w.staged;
      gatherRow(p.k + ko + t * p.kl.rs, p.kl.cs, D, w.kb + t * D);
      gatherRow(p.v + vo + t * p.vl.rs, p.vl.cs, E, w.vb + t * E);
    }
    float *sb = w.sb;
    run(matmulFor(rows, n, D, /*keys=*/true), w.qb, w.kb + t0 * D, sb, w);
    for (int64_t r = 0; r < rows; ++r) {
      float *pr = sb + r * n;
      int64_t s = s0 + r;
      int64_t lim = n;
      if (p.causal)
        lim = std::clamp<int64_t>(s + T - S - t0 + 1, 0, n);
      if (p.mask) {
        const El *mr = p.mask + mo + s * p.ml.rs + t0 * p.ml.cs;
        for (int64_t j = 0; j < lim; ++j)
          pr[j] = pr[j] * p.sc + load(mr[j * p.ml.cs]);
      } else {
        for (int64_t j = 0; j < lim; ++j)
          pr[j] *= p.sc;
      }
      float mNew = std::max(w.mx[r], rowMaxF32(pr, lim));
      if (mNew == ninf) {
        // Nothing visible yet: every weight is 0.
        std::fill(pr, pr + n, 0.0f);
        w.corr[r] = 1;
      } else {
        w.corr[r] = std::exp(w.mx[r] - mNew);
        w.mx[r] = mNew;
        float l = expSumF32(pr, lim, mNew);
        std::fill(pr + lim, pr + n, 0.0f);
        w.sum[r] = w.sum[r] * w.corr[r] + l;
      }
      narrowBF16(pr, w.pb + r * n, n);
    }
    run(matmulFor(rows, E, n, /*keys=*/false), w.pb, w.vb + t0 * E, w.ob, w);
    for (int64_t r = 0; r < rows; ++r) {
      float *ar = w.acc + r * E;
      const float *orow = w.ob + r * E, c = w.corr[r];
      for (int64_t e = 0; e < E; ++e)
        ar[e] = ar[e] * c + orow[e];
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    El *yr = p.y + yo + (s0 + r) * p.yl.rs;
    const float *ar = w.acc + r * E;
    // No visible key: 0 / 0, NaN as Softmax of a row of -inf.
    const float l = w.sum[r];
    for (int64_t e = 0; e < E; ++e)
      yr[e * p.yl.cs] = store<El>(ar[e] / l);
  }
}

template <class El>
bool attentionDnnl(int32_t nb, const int64_t *dims, const El *q,
                   AttentionOperand ql, const El *k, AttentionOperand kl,
                   const El *v, AttentionOperand vl, const El *mask,
                   AttentionOperand ml, El *y, AttentionOperand yl, float scale,
                   bool causal) {
  int64_t batch = 1;
  for (int32_t i = 0; i < nb; ++i)
    batch *= dims[i];
  const int64_t S = dims[nb], T = dims[nb + 1], D = dims[nb + 2],
                E = dims[nb + 3];
  // A call per block costs a few microseconds: worth it from about 16
  // queries against 64 keys.
  if (!cpuHasBf16Matmul() || batch == 0 || S < 16 || T < 64 || D < 16 || E < 16)
    return false;
  const int threads = omp_get_max_threads();
  int64_t BQ = std::min(kQueryBlock, S);
  while (BQ > 32 && batch * ((S + BQ - 1) / BQ) < 2 * threads)
    BQ /= 2;
  Problem<El> p{nb,
                dims,
                q,
                k,
                v,
                mask,
                ql,
                kl,
                vl,
                ml,
                yl,
                y,
                scale,
                causal,
                S,
                T,
                D,
                E,
                BQ,
                std::min(kKeyBlock, T),
                (S + BQ - 1) / BQ};
  const int64_t items = batch * p.qBlocks;
  bool failed = false;
  std::string error;
#pragma omp parallel if (items > 1)
  {
    Scratch w(BQ, p.BK, T, D, E);
    // An exception may not leave a loop's iteration: each item catches its
    // own (oneDNN throws when a matmul cannot be created).
    auto guarded = [&](int64_t it) {
      try {
        item(p, w, it);
      } catch (const std::exception &e) {
#pragma omp critical(shardc_attention_dnnl)
        if (!failed) {
          failed = true;
          error = e.what();
        }
      }
    };
    // As in Attention.cpp: an entry's items, claimed together, share a
    // staging without `causal`; causal items grow along the queries and
    // are claimed one at a time.
    if (causal) {
#pragma omp for schedule(dynamic, 1)
      for (int64_t it = 0; it < items; ++it)
        guarded(it);
    } else {
#pragma omp for schedule(dynamic, p.qBlocks)
      for (int64_t it = 0; it < items; ++it)
        guarded(it);
    }
  }
  if (failed)
    sc_fail("sc_attention: oneDNN bf16 matmul: %s", error.c_str());
  return true;
}

} // namespace

bool attentionBF16Dnnl(int32_t nb, const int64_t *dims, const BHalf *q,
                       AttentionOperand ql, const BHalf *k, AttentionOperand kl,
                       const BHalf *v, AttentionOperand vl, const BHalf *mask,
                       AttentionOperand ml, BHalf *y, AttentionOperand yl,
                       float scale, bool causal) {
  return attentionDnnl(nb, dims, q, ql, k, kl, v, vl, mask, ml, y, yl, scale,
                       causal);
}

bool attentionF32ByBF16Dnnl(int32_t nb, const int64_t *dims, const float *q,
                            AttentionOperand ql, const float *k,
                            AttentionOperand kl, const float *v,
                            AttentionOperand vl, const float *mask,
                            AttentionOperand ml, float *y, AttentionOperand yl,
                            float scale, bool causal) {
  return attentionDnnl(nb, dims, q, ql, k, kl, v, vl, mask, ml, y, yl, scale,
                       causal);
}

} // namespace shardc::rt::cpu
