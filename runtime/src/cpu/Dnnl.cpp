//===- Dnnl.cpp - oneDNN matmul and (de)convolution wrappers --------------===//
//
// oneDNN 2.x C++ API. create() builds the primitive once and caches it in
// the handle with memory objects whose data pointers run() rebinds. No
// exception leaves these extern "C" functions: oneDNN errors become
// sc_fail().
//
// Matmul runs on the plain row-major user layouts, described by strides
// (transposes included). (De)convolution lets oneDNN choose its layouts
// (format_tag::any: channels-last or blocked ones such as nhwc / nChw16c and
// Acdb64a / OIhw16i16o, for which it has its fast kernels; on plain NCHW it
// falls back to im2col GEMM or reference code). run() reorders the plain
// user src into the chosen layout and the result back, through buffers the
// handle owns, where the layouts differ. The weights go through a reorder
// too, done once and kept when they lie in memory no one can write (the
// read-only mapping of the weights file), and done on every run otherwise
// (weights that are graph inputs or computed). Pointwise convolutions keep
// the plain src and dst: they are GEMMs on it. A src or dst the caller
// stores channels-last (nwc / nhwc / ndhwc) is given to oneDNN as it is:
// its fast kernels take it, and it needs no reorder.
//
// A GEMM whose shapes vary per run within bounds (sc_dnnl_matmul_dyn_*)
// is a cache of the same matmul handles by the run's dims
// (MatmulShapeCache), least recently used evicted; its handles share the
// packed copies of a read-only B (PackShare).
//
// The convolution's residual and activation are oneDNN post-ops, a sum
// (onto the destination, which run() first fills with the residual) and an
// eltwise. The convolution's arguments are listed once, at create(), as the
// C API's array of memory objects: run() only rebinds their pointers.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "DnnlContext.h"
#include "Gemv.h"
#include "Handle.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

using namespace shardc::rt::cpu;
using dt = dnnl::memory::data_type;

dnnl::engine &shardc::rt::cpu::cpuEngine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream &shardc::rt::cpu::cpuStream() {
  thread_local dnnl::stream strm(cpuEngine());
  return strm;
}

namespace {

// Small primitives run on one OpenMP thread: below about half a million
// multiply-adds, forking and joining a team costs more than the second
// thread saves (the small CNN of bench/bench_cpu.py: 0.08 ms with two
// threads per primitive, 0.04 ms with one). The limit applies when the
// primitive is created (oneDNN's JIT kernels plan for the thread count they
// see then) and around every run.
constexpr int64_t kSerialMacs = int64_t(1) << 19;

// Products of at least this many multiply-adds run in row blocks
// (DnnlHandle::blocks) when their rows fold into one 2-D product.
constexpr int64_t kRowBlockMacs = int64_t(1) << 24;

// How many row blocks a product of `rows` rows and `macs` multiply-adds runs
// in: about eight per thread of at least 32 rows each, a count that divides
// the rows (every block is the same primitive); 0 for one primitive over all
// rows (a small product, one thread, no such count, or
// SHARDC_GEMM_ROW_BLOCKS=0 in the environment).
//
// Why: one oneDNN primitive splits its rows evenly among the team, so when
// another process shares a core, the thread that shares it sets the pace
// and its partner waits at the end. Blocks that the team claims one at a
// time (schedule(dynamic)), each a single-threaded primitive (oneDNN runs
// sequentially inside a parallel region), let the thread with a core to
// itself do more of them: all-MiniLM-L6-v2 in fp32 at 8 x 128 on 2 threads
// beside one busy process, 378 ms in one primitive per product and 280 ms
// in blocks, and a tie when quiet (docs/performance.md, "Claimed row
// blocks"). ONNX Runtime's MLAS splits its GEMMs into tiles its pool claims
// the same way.
int64_t rowBlocks(int64_t rows, int64_t macs) {
  static const bool enabled = [] {
    const char *v = std::getenv("SHARDC_GEMM_ROW_BLOCKS");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  int threads = omp_get_max_threads();
  if (!enabled || threads < 2 || macs < kRowBlockMacs)
    return 0;
  for (int64_t n = 8 * int64_t(threads); n >= 2 * int64_t(threads); --n)
    if (rows % n == 0 && rows / n >= 32)
      return n;
  return 0;
}

int64_t elementsOf(const sc_desc *d) {
  int64_t n = 1;
  for (int i = 0; i < d->rank; ++i)
    n *= d->dims[i];
  return n;
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
  // int8 products (kern.matmul of int8 x int8 into int32).
  case kI8:
    out = dt::s8;
    return true;
  case kU8:
    out = dt::u8;
    return true;
  case kI32:
    out = dt::s32;
    return true;
  default:
    return false;
  }
}

// The eltwise post-op of an SC_EPILOGUE_* code (undef for none); false for
// an unknown code.
bool epilogueAlgorithm(int32_t epilogue, dnnl::algorithm &out) {
  switch (epilogue) {
  case SC_EPILOGUE_NONE:
    out = dnnl::algorithm::undef;
    return true;
  case SC_EPILOGUE_RELU:
    out = dnnl::algorithm::eltwise_relu;
    return true;
  case SC_EPILOGUE_GELU_TANH:
    out = dnnl::algorithm::eltwise_gelu_tanh;
    return true;
  case SC_EPILOGUE_GELU:
    out = dnnl::algorithm::eltwise_gelu_erf;
    return true;
  case SC_EPILOGUE_HARDSWISH:
    out = dnnl::algorithm::eltwise_hardswish;
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

// A primitive's arguments as the C API takes them, listed once: the memory
// objects in it keep their identity and only get new pointers (bind()), so
// running needs none of the map and vector primitive::execute() builds on
// every call.
using ExecArgs = std::vector<dnnl_exec_arg_t>;

dnnl_exec_arg_t arg(int kind, const dnnl::memory &m) { return {kind, m.get()}; }

void execute(const dnnl::primitive &p, dnnl::stream &strm,
             const ExecArgs &args) {
  dnnl::error::wrap_c_api(dnnl_primitive_execute(p.get(), strm.get(),
                                                 (int)args.size(), args.data()),
                          "could not execute a primitive");
}

bool inReadOnlyMemory(const void *p, size_t bytes);

// Drops the whole pages inside [p, p + bytes) from the process's resident
// set (madvise MADV_DONTNEED); only for read-only file mappings.
void releasePages(const void *p, size_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || !p)
    return;
  uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  uintptr_t first = (lo + page - 1) / page * page, last = hi / page * page;
  if (last > first)
    madvise(reinterpret_cast<void *>(first), last - first, MADV_DONTNEED);
}

// Packed weights shared by the primitives of one shape cache
// (MatmulShapeCache): one packed copy per user pointer and packed layout,
// however many shapes of A run on it. Held weakly: a copy lives while a
// primitive that runs on it does, so eviction frees it with its last user.
struct PackShare {
  struct Entry {
    const void *from;
    dnnl::memory::desc md;
    std::weak_ptr<dnnl::memory> mem;
  };
  std::vector<Entry> entries;

  std::shared_ptr<dnnl::memory> find(const void *w,
                                     const dnnl::memory::desc &md) {
    for (const Entry &e : entries)
      if (e.from == w && e.md == md)
        if (std::shared_ptr<dnnl::memory> m = e.mem.lock())
          return m;
    return nullptr;
  }
  void add(const void *w, const dnnl::memory::desc &md,
           const std::shared_ptr<dnnl::memory> &mem) {
    entries.erase(
        std::remove_if(entries.begin(), entries.end(),
                       [](const Entry &e) { return e.mem.expired(); }),
        entries.end());
    entries.push_back({w, md, mem});
  }
};

// A matmul primitive and the memory objects of its arguments. Its weights
// (B) are taken in the caller's plain layout; when the first B it runs on
// lies in read-only memory (the mapped weights file), a second primitive
// whose weights layout oneDNN chooses (format any: its blocked packing) is
// made and B is reordered into it once, as ONNX Runtime pre-packs its
// GEMM weights; the packed copy serves every later run on that pointer,
// and the plain pages are dropped from the resident set.
struct DnnlHandle : shardc::rt::Handle {
  dnnl::primitive prim;
  dnnl::memory src, weights, bias, dst, binary, residual;
  bool hasBias = false, biasIsPostOp = false, hasResidual = false;
  bool serial = false; // small: one OpenMP thread (kSerialMacs)
  bool empty = false;  // y has no elements: no primitive, nothing to run
  int binaryArg = 0, residualArg = 0;
  const char *what = "";
  // ReLU epilogue: applied after the primitive (reluInPlace), not as a
  // post-op, whose NaN and -Inf handling is not IEEE.
  bool reluAfter = false;
  int32_t dstType = 0;
  int64_t dstElems = 0;
  // What the packed primitive is made from (kept from create()).
  std::optional<dnnl::matmul::desc> anyDesc;
  dnnl::primitive_attr attr;
  dnnl::memory::desc plainWeights;
  // The packed primitive, its weights and the user pointer they hold.
  dnnl::primitive packedPrim;
  dnnl::memory packed;
  const void *packedFrom = nullptr;
  bool packTried = false;
  // Inside a shape cache: where packed copies of B are shared with the
  // cache's other primitives, and this one's share (`packed` is its memory).
  PackShare *packShare = nullptr;
  std::shared_ptr<dnnl::memory> packedOwner;
  ExecArgs args, packedArgs;

  // A decode step's product (Gemv.h): fp32 or bf16, at most kGemvRows rows of a
  // plain A, no scale or accumulation, a bias over the columns only (set
  // at create: gemvRows > 0). When tryPack's layout is panels the kernel
  // reads (gemvNB > 0), run() takes the kernel instead of the primitive,
  // then the activation (an eltwise primitive in place on y, the post-op
  // the primitive would apply) and the residual.
  int64_t gemvRows = 0, gemvK = 0, gemvN = 0, gemvKpad = 0, gemvNB = 0;
  bool gemvBF16 = false; // bf16 operands (else fp32)
  dnnl::algorithm gemvActKind = dnnl::algorithm::undef;
  dnnl::primitive gemvAct;
  dnnl::memory gemvY;
  ExecArgs gemvActArgs;

  // Row blocks (rowBlocks): the primitive is made for `blockRows` rows and
  // runs `blocks` times, on rows claimed by the team one block at a time.
  // The arguments cut by rows (rowArgs: the source, the destination, the
  // residual, int8's row scales) get a memory object per thread; the
  // others are shared, bound before the team starts. A primitive that runs
  // on several threads at once cannot use the scratchpad it owns (oneDNN's
  // default): these are made with a user scratchpad, one per thread.
  int64_t blocks = 0, blockRows = 0;
  enum RowBase { kSrcRows, kDstRows, kResidualRows, kRowScaleRows };
  struct RowArg {
    int kind;     // the argument (DNNL_ARG_*)
    RowBase base; // which of run()'s pointers it is cut from
    size_t rowBytes;
    const dnnl::memory *shared; // the handle's memory object for it
  };
  std::vector<RowArg> rowArgs;
  struct ThreadArgs {
    std::vector<dnnl::memory> mem; // one per rowArgs entry
    dnnl::memory scratchpad, packedScratchpad;
    ExecArgs args, packedArgs;
  };
  dnnl::memory::desc scratchpadMd, packedScratchpadMd;
  std::vector<ThreadArgs> perThread;
  bool perThreadPacked = false;
  const void *rowScalePtr = nullptr; // int8's row scales for this run

  // Makes the row-block form, the primitive's descriptors being a block's
  // already; `rowScale` is int8's per-row scale argument (or null).
  void setRowBlocks(int64_t n, int64_t rows, size_t srcRowBytes,
                    size_t dstRowBytes, int rowScaleArg,
                    const dnnl::memory *rowScale) {
    blocks = n;
    blockRows = rows / n;
    rowArgs = {{DNNL_ARG_SRC, kSrcRows, srcRowBytes, &src},
               {DNNL_ARG_DST, kDstRows, dstRowBytes, &dst}};
    if (hasResidual)
      rowArgs.push_back({residualArg, kResidualRows, dstRowBytes, &residual});
    if (rowScale)
      rowArgs.push_back({rowScaleArg, kRowScaleRows, sizeof(float), rowScale});
  }

  // Per-thread argument lists for a team of `threads` (after tryPack).
  void prepareThreads(int threads) {
    bool packedNow = packedFrom != nullptr;
    if ((int)perThread.size() >= threads && perThreadPacked == packedNow)
      return;
    perThread.assign(threads, {});
    perThreadPacked = packedNow;
    for (ThreadArgs &t : perThread) {
      t.args = args;
      if (packedNow)
        t.packedArgs = packedArgs;
      auto addScratchpad = [](dnnl::memory &m, const dnnl::memory::desc &md,
                              ExecArgs &list) {
        if (md.get_size() == 0)
          return;
        m = dnnl::memory(md, cpuEngine());
        list.push_back(arg(DNNL_ARG_SCRATCHPAD, m));
      };
      addScratchpad(t.scratchpad, scratchpadMd, t.args);
      if (packedNow)
        addScratchpad(t.packedScratchpad, packedScratchpadMd, t.packedArgs);
      for (const RowArg &ra : rowArgs) {
        t.mem.push_back(unbound(ra.shared->get_desc()));
        for (ExecArgs *list : {&t.args, &t.packedArgs})
          for (dnnl_exec_arg_t &a : *list)
            if (a.arg == ra.kind)
              a.memory = t.mem.back().get();
      }
    }
  }

  // The blocks, claimed one at a time by the team; the shared arguments
  // are bound. Errors inside the team are reported after it.
  void runBlocks(bool usePacked, const void *s, const void *r, void *d) {
    prepareThreads(omp_get_max_threads());
    const void *bases[] = {s, d, r, rowScalePtr}; // by RowBase
    std::string error;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      int me = omp_get_thread_num();
      if (me >= (int)perThread.size()) { // the team is at most the maximum
#pragma omp critical(shardc_dnnl_row_blocks)
        error = "a team larger than omp_get_max_threads()";
        continue;
      }
      ThreadArgs &t = perThread[me];
      for (size_t i = 0; i < rowArgs.size(); ++i)
        bind(t.mem[i], static_cast<const char *>(bases[rowArgs[i].base]) +
                           blk * blockRows * rowArgs[i].rowBytes);
      try {
        execute(usePacked ? packedPrim : prim, cpuStream(),
                usePacked ? t.packedArgs : t.args);
        cpuStream().wait();
      } catch (const std::exception &e) {
#pragma omp critical(shardc_dnnl_row_blocks)
        error = e.what();
      }
    }
    if (!error.empty())
      throw std::runtime_error(error);
  }

  // The GEMM epilogue's post-ops after what `po` holds: the bias as a
  // binary add (`postOpBias`, when it goes in as one), the activation of
  // `epilogue` (`act`; ReLU runs after the primitive instead, see
  // reluAfter), the residual (`residual`, y's layout). Sets the flags and
  // argument indices; addEpilogueArgs binds their memory objects.
  void appendEpilogue(dnnl::post_ops &po,
                      const dnnl::memory::desc *postOpBias,
                      dnnl::algorithm act, int32_t epilogue, const sc_desc *y,
                      const dnnl::memory::desc *residualMd) {
    if (postOpBias) {
      po.append_binary(dnnl::algorithm::binary_add, *postOpBias);
      binaryArg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(po.len() - 1) | DNNL_ARG_SRC_1;
    }
    if (epilogue == SC_EPILOGUE_RELU) {
      reluAfter = true;
      dstType = y->dtype;
      dstElems = elementsOf(y);
    } else if (act != dnnl::algorithm::undef) {
      // HardSwish as x * min(max(alpha x + beta, 0), 1), alpha 1/6 and beta
      // 1/2: oneDNN 2.x ignores them, 3.x reads them.
      bool hs = act == dnnl::algorithm::eltwise_hardswish;
      po.append_eltwise(1.0f, act, hs ? 1.0f / 6 : 0.0f, hs ? 0.5f : 0.0f);
    }
    if (residualMd) {
      po.append_binary(dnnl::algorithm::binary_add, *residualMd);
      residualArg =
          DNNL_ARG_ATTR_MULTIPLE_POST_OP(po.len() - 1) | DNNL_ARG_SRC_1;
    }
  }
  void addEpilogueArgs(const dnnl::memory::desc *postOpBias,
                       const dnnl::memory::desc *residualMd) {
    if (postOpBias) {
      binary = unbound(*postOpBias);
      args.push_back(arg(binaryArg, binary));
    }
    if (residualMd) {
      residual = unbound(*residualMd);
      args.push_back(arg(residualArg, residual));
    }
  }

  // At the first run: packs B when it is read-only and oneDNN would lay it
  // out differently.
  void tryPack(const void *w) {
    packTried = true;
    if (!anyDesc || !inReadOnlyMemory(w, plainWeights.get_size()))
      return;
    ThreadLimit one(blocks != 0); // a block's primitive runs on one thread
    dnnl::matmul::primitive_desc pd(*anyDesc, attr, cpuEngine());
    dnnl::memory::desc md = pd.weights_desc();
    if (md == plainWeights)
      return;
    packedScratchpadMd = pd.scratchpad_desc();
    // In a shape cache, another shape's primitive may have packed this B
    // into this layout already.
    std::shared_ptr<dnnl::memory> mem =
        packShare ? packShare->find(w, md) : nullptr;
    if (!mem) {
      mem = std::make_shared<dnnl::memory>(md, cpuEngine());
      dnnl::memory user = unbound(plainWeights);
      bind(user, w);
      dnnl::reorder(user, *mem).execute(cpuStream(), user, *mem);
      cpuStream().wait();
      if (packShare)
        packShare->add(w, md, mem);
      // The plain pages are read no more: give them back (a read-only file
      // mapping, so a later read would fault them in again from the file),
      // keeping a rank's resident weights at one copy.
      releasePages(w, plainWeights.get_size());
    }
    packedOwner = mem;
    packed = *mem;
    packedPrim = dnnl::matmul(pd);
    packedFrom = w;
    packedArgs = args;
    for (dnnl_exec_arg_t &a : packedArgs)
      if (a.arg == DNNL_ARG_WEIGHTS)
        a.memory = packed.get();
    if (gemvRows)
      setUpGemv(md);
  }

  // The panels of Gemv.h when `md` is oneDNN's [K, N] in panels of nb
  // columns (BA16a64b and its kin: blocks of kb rows by nb columns, the
  // row blocks of a panel in turn, the panels in turn), unless
  // SHARDC_GEMV=0 in the environment.
  void setUpGemv(const dnnl::memory::desc &md) {
    static const bool enabled = [] {
      const char *v = std::getenv("SHARDC_GEMV");
      return !(v && std::strcmp(v, "0") == 0);
    }();
    const dnnl_memory_desc_t &d = md.data;
    const dnnl_blocking_desc_t &blk = d.format_desc.blocking;
    // fp32: blocks {kb a, nb b}; bf16: {kb a, nb b, 2 a} (pairs of rows,
    // a row block of 2 kb rows).
    const int pairs = gemvBF16 ? 2 : 1;
    if (!enabled || d.ndims != 2 || d.format_kind != dnnl_blocked ||
        d.data_type != (gemvBF16 ? dnnl_bf16 : dnnl_f32) || d.offset0 != 0 ||
        d.extra.flags != 0 || blk.inner_nblks != 1 + pairs ||
        blk.inner_idxs[0] != 0 || blk.inner_idxs[1] != 1 ||
        (gemvBF16 && (blk.inner_idxs[2] != 0 || blk.inner_blks[2] != 2)))
      return;
    int64_t kb = blk.inner_blks[0] * pairs, nb = blk.inner_blks[1];
    int64_t kpad = d.padded_dims[0];
    if (!gemvPanelWidth(nb) || d.dims[0] != gemvK || d.dims[1] != gemvN ||
        kpad % kb || blk.strides[0] != kb * nb || blk.strides[1] != kpad * nb)
      return;
    if (gemvActKind != dnnl::algorithm::undef) {
      bool hs = gemvActKind == dnnl::algorithm::eltwise_hardswish;
      dnnl::memory::desc ymd = dst.get_desc();
      dnnl::eltwise_forward::primitive_desc pd(
          dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference,
                                      gemvActKind, ymd, hs ? 1.0f / 6 : 0.0f,
                                      hs ? 0.5f : 0.0f),
          cpuEngine());
      gemvAct = dnnl::eltwise_forward(pd);
      gemvY = unbound(ymd);
      gemvActArgs = {arg(DNNL_ARG_SRC, gemvY), arg(DNNL_ARG_DST, gemvY)};
    }
    gemvKpad = kpad;
    gemvNB = nb;
  }

  // y = act(x W + bias) + residual by Gemv.h's kernel (bf16: the residual
  // added before the one rounding; the activation, on the rounded y).
  void runGemv(const void *s, const void *b, const void *r, void *d) {
    if (gemvBF16) {
      gemvPanelsBF16(gemvRows, gemvK, gemvKpad, gemvN, gemvNB,
                     static_cast<const BHalf *>(s),
                     static_cast<const BHalf *>(packed.get_data_handle()),
                     hasBias ? static_cast<const BHalf *>(b) : nullptr,
                     hasResidual ? static_cast<const BHalf *>(r) : nullptr,
                     static_cast<BHalf *>(d));
      if (gemvAct) {
        bind(gemvY, d);
        execute(gemvAct, cpuStream(), gemvActArgs);
        cpuStream().wait();
      }
      return;
    }
    auto *y = static_cast<float *>(d);
    gemvPanelsF32(gemvRows, gemvK, gemvKpad, gemvN, gemvNB,
                  static_cast<const float *>(s),
                  static_cast<const float *>(packed.get_data_handle()),
                  hasBias ? static_cast<const float *>(b) : nullptr, y);
    if (gemvAct) {
      bind(gemvY, d);
      execute(gemvAct, cpuStream(), gemvActArgs);
      cpuStream().wait();
    }
    if (hasResidual) {
      const auto *res = static_cast<const float *>(r);
      for (int64_t i = 0; i < gemvRows * gemvN; ++i)
        y[i] += res[i];
    }
  }

  void run(const void *s, const void *w, const void *b, const void *r,
           void *d) {
    if (empty)
      return;
    ThreadLimit limit(serial);
    try {
      if (!packTried)
        tryPack(w);
      bind(src, s);
      bind(weights, w);
      bind(dst, d);
      if (hasBias)
        bind(biasIsPostOp ? binary : bias, b);
      if (hasResidual)
        bind(residual, r);
      bool usePacked = packedFrom && w == packedFrom;
      if (usePacked && gemvNB)
        runGemv(s, b, r, d);
      else if (blocks)
        runBlocks(usePacked, s, r, d);
      else if (usePacked)
        execute(packedPrim, cpuStream(), packedArgs);
      else
        execute(prim, cpuStream(), args);
      cpuStream().wait();
      if (reluAfter)
        reluInPlace(d, dstType, dstElems);
    } catch (const dnnl::error &e) {
      sc_fail("oneDNN %s: %s", what, e.what());
    } catch (const std::exception &e) {
      sc_fail("oneDNN %s: %s", what, e.what());
    }
  }
};

// Whether [p, p + bytes) lies entirely in mappings without write permission
// (/proc/self/maps), so that its contents cannot change while it stays
// mapped. False when that cannot be told.
bool inReadOnlyMemory(const void *p, size_t bytes) {
  if (!p || !bytes)
    return false;
  uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes, at = lo;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (at < hi && std::getline(maps, line)) {
    unsigned long long b = 0, e = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %4s", &b, &e, perms) != 3)
      continue;
    if (e <= at)
      continue;
    if (b > at || perms[1] != '-')
      return false; // a hole, or writable
    at = e;
  }
  return at >= hi;
}

// A (de)convolution on the layouts oneDNN chose, with the reorders from and
// to the user layouts where those differ.
struct ConvHandle : shardc::rt::Handle {
  dnnl::primitive prim;
  // What the primitive reads and writes: the user's buffers where the
  // layouts agree (rebound each run), else buffers owned by the handle.
  dnnl::memory src, weights, bias, dst;
  // The user's buffers behind a reorder (rebound each run).
  dnnl::memory userSrc, userWeights, userDst, userResidual;
  dnnl::reorder srcIn, weightsIn, dstOut, residualIn;
  // The arguments of prim and of the reorders, over the objects above.
  ExecArgs convArgs, srcInArgs, weightsInArgs, dstOutArgs, residualInArgs;
  bool reorderSrc = false, reorderWeights = false, reorderDst = false;
  bool hasBias = false, hasResidual = false;
  bool serial = false; // small: one OpenMP thread (kSerialMacs)
  size_t weightBytes = 0, dstBytes = 0;
  // The user weights pointer whose reorder the handle keeps (read-only
  // memory only), and the last pointer checked for being read-only.
  const void *keptWeights = nullptr, *checkedWeights = nullptr;
  bool checkedReadOnly = false;
  const char *what = "";
  bool empty = false; // y has no elements: no primitive, nothing to run
  bool reluAfter = false; // as DnnlHandle's
  int32_t dstType = 0;
  int64_t dstElems = 0;
  // int8: the source zero point (its value held here), and the output
  // scales: oneDNN 2's int8 convolution adds the bias before scaling, so
  // run() passes it the bias divided by the scales.
  dnnl::memory zeroPoint;
  int32_t zeroPointValue = 0;
  std::vector<float> outScales, scaledBias;
  // Dynamic int8: the activation's scale (a binary multiply post-op on a
  // one-element tensor) and the bias (a binary add after it) bound at each
  // run; the zero point's type (u8 or i8).
  bool dynamic = false, unsignedSrc = false;
  dnnl::memory runScale, runBias;
  // The bias is a binary add post-op after the scales (dynamic, or a scale
  // below 1e-30, whose bias / scale would overflow), bound at each run.
  bool biasAfter = false;

  void run(const void *s, const void *w, const void *b, const void *r, void *d,
           const float *xScale = nullptr, const void *xZero = nullptr) {
    if (empty)
      return;
    if (dynamic && (!xScale || !xZero)) {
      sc_fail("oneDNN %s: run without the activation's scale and zero point",
              what);
      return;
    }
    if (hasResidual && !r) {
      sc_fail("oneDNN %s: run without the residual it was created with", what);
      return;
    }
    ThreadLimit limit(serial);
    try {
      dnnl::stream &strm = cpuStream();
      if (reorderWeights && w != keptWeights) {
        if (w != checkedWeights) {
          checkedWeights = w;
          checkedReadOnly = inReadOnlyMemory(w, weightBytes);
        }
        bind(userWeights, w);
        execute(weightsIn, strm, weightsInArgs);
        keptWeights = checkedReadOnly ? w : nullptr;
      } else if (!reorderWeights) {
        bind(weights, w);
      }
      if (reorderSrc) {
        bind(userSrc, s);
        execute(srcIn, strm, srcInArgs);
      } else {
        bind(src, s);
      }
      bind(reorderDst ? userDst : dst, d);
      if (dynamic) {
        bind(runScale, xScale);
        zeroPointValue = unsignedSrc ? *static_cast<const uint8_t *>(xZero)
                                     : *static_cast<const int8_t *>(xZero);
      }
      if (biasAfter) {
        if (hasBias)
          bind(runBias, b);
      } else if (hasBias && !outScales.empty()) {
        const float *bf = static_cast<const float *>(b);
        for (size_t c = 0; c < scaledBias.size(); ++c)
          scaledBias[c] = bf[c] / outScales[outScales.size() == 1 ? 0 : c];
        bind(bias, scaledBias.data());
      } else if (hasBias) {
        bind(bias, b);
      }
      // The sum post-op adds the convolution onto what dst holds.
      if (hasResidual && reorderDst) {
        bind(userResidual, r);
        execute(residualIn, strm, residualInArgs);
      } else if (hasResidual && r != d) {
        std::memcpy(d, r, dstBytes);
      }
      execute(prim, strm, convArgs);
      if (reorderDst)
        execute(dstOut, strm, dstOutArgs);
      strm.wait();
      if (reluAfter)
        reluInPlace(d, dstType, dstElems);
    } catch (const dnnl::error &e) {
      keptWeights = nullptr;
      sc_fail("oneDNN %s: %s", what, e.what());
    } catch (const std::exception &e) {
      keptWeights = nullptr;
      sc_fail("oneDNN %s: %s", what, e.what());
    }
  }
};

// The logical oneDNN dims [N, C, spatial...] of a tensor stored as the
// descriptor says: channels-last descriptors give [N, spatial..., C].
dnnl::memory::dims logicalDims(const sc_desc *d, bool channelsLast) {
  if (!channelsLast)
    return dimsOf(d);
  sc_desc l = channelsFirst(d);
  return dimsOf(&l);
}

// The channels-last layout of `dims` (logical [N, C, spatial...]).
dnnl::memory::desc channelsLastDesc(const dnnl::memory::dims &dims, dt type) {
  using tag = dnnl::memory::format_tag;
  tag t = dims.size() == 3   ? tag::nwc
          : dims.size() == 4 ? tag::nhwc
                             : tag::ndhwc;
  return dnnl::memory::desc(dims, type, t);
}

bool sameShape(const sc_desc *a, const sc_desc *b) {
  bool same = a->dtype == b->dtype && a->rank == b->rank;
  for (int i = 0; same && i < a->rank; ++i)
    same = a->dims[i] == b->dims[i];
  return same;
}

std::string dimsStr(const sc_desc *d) {
  std::string s = "[";
  for (int i = 0; i < d->rank; ++i)
    s += (i ? "x" : "") + std::to_string(d->dims[i]);
  return s + "]";
}

} // namespace

extern "C" void *sc_dnnl_matmul_create(const sc_desc *a, const sc_desc *b,
                                       const sc_desc *bias,
                                       const sc_desc *residual,
                                       const sc_desc *y, int32_t trans_a,
                                       int32_t trans_b, float alpha, float beta,
                                       int32_t epilogue) {
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
  dnnl::algorithm act;
  if (!epilogueAlgorithm(epilogue, act)) {
    sc_fail("oneDNN matmul: unknown epilogue %d", epilogue);
    return nullptr;
  }
  if (residual) {
    if (!sameShape(residual, y)) {
      sc_fail("oneDNN matmul: residual %s %s is not y's %s %s",
              dtypeName(residual->dtype), dimsStr(residual).c_str(),
              dtypeName(y->dtype), dimsStr(y).c_str());
      return nullptr;
    }
    if (epilogue != SC_EPILOGUE_NONE) {
      sc_fail("oneDNN matmul: a residual comes only without an epilogue");
      return nullptr;
    }
  }
  if (beta != 0.0f && (epilogue != SC_EPILOGUE_NONE || residual)) {
    sc_fail("oneDNN matmul: cannot accumulate (beta %g) with an epilogue or "
            "a residual",
            beta);
    return nullptr;
  }
  // Zero-size tensors are legal ONNX; oneDNN 2.x divides by zero setting up
  // an empty product, so an empty result gets no primitive at all.
  if (elementsOf(y) == 0) {
    auto h = std::make_unique<DnnlHandle>();
    h->what = "matmul";
    h->empty = true;
    return h.release();
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
    // Row blocks (rowBlocks) when A's batch dims fold into its rows: A not
    // transposed, one B for every batch, a bias over the columns only.
    int64_t k = a->dims[r - 1], n = y->dims[r - 1];
    int64_t rows = elementsOf(y) / n;
    auto onlyLastDim = [](const sc_desc *d, int keep) {
      for (int i = 0; i + keep < d->rank; ++i)
        if (d->dims[i] != 1)
          return false;
      return true;
    };
    bool folds =
        !trans_a && onlyLastDim(b, 2) && (!bias || onlyLastDim(bias, 1));
    int64_t blocks = folds ? rowBlocks(rows, rows * k * n) : 0;
    // The batch dims fold into the rows even without blocks: one 2-D
    // product, whose weights oneDNN packs (tryPack). A [1, 1, K] x
    // [1, K, N] product (a decode step's lm_head) read plain row-major
    // weights at half the speed of packed ones (12.3 against 6.3 ms for
    // GPT-2's 768 x 50257 on 2 threads).
    bool fold = blocks || (folds && a->rank > 2);
    if (fold) {
      dnnl::memory::dims bDims = {b->dims[r - 2], b->dims[r - 1]};
      dnnl::memory::dims bStrides = rowMajor(bDims);
      if (trans_b) {
        std::swap(bDims[0], bDims[1]);
        std::swap(bStrides[0], bStrides[1]);
      }
      int64_t made = blocks ? rows / blocks : rows;
      amd = plainDesc({made, k}, ta);
      bmd = dnnl::memory::desc(bDims, tb, bStrides);
      ymd = plainDesc({made, n}, ty);
    }
    auto h = std::make_unique<DnnlHandle>();
    h->what = "matmul";
    h->hasBias = bias != nullptr;
    h->hasResidual = residual != nullptr;
    // With alpha != 1 the bias goes in as a binary post-op after the scaled
    // product, so that alpha does not scale it.
    h->biasIsPostOp = h->hasBias && alpha != 1.0f;
    dnnl::memory::desc biasMd;
    if (bias)
      biasMd = fold ? plainDesc({1, bias->dims[r - 1]}, tbias)
                    : plainDesc(dimsOf(bias), tbias);
    dnnl::primitive_attr attr;
    if (blocks) // see DnnlHandle::blocks
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (alpha != 1.0f)
      attr.set_output_scales(0, {alpha});
    // Post-ops in the order of the formula: accumulation (only without
    // epilogue and residual, where the order does not matter), the bias
    // when alpha must not scale it, the activation, the residual.
    dnnl::post_ops po;
    if (beta != 0.0f)
      po.append_sum(beta);
    const dnnl::memory::desc *postOpBias = h->biasIsPostOp ? &biasMd : nullptr;
    const dnnl::memory::desc *residualMd = residual ? &ymd : nullptr;
    h->appendEpilogue(po, postOpBias, act, epilogue, y, residualMd);
    attr.set_post_ops(po);
    dnnl::matmul::desc d = bias && !h->biasIsPostOp
                               ? dnnl::matmul::desc(amd, bmd, biasMd, ymd)
                               : dnnl::matmul::desc(amd, bmd, ymd);
    int64_t inner = a->dims[a->rank - (trans_a ? 2 : 1)];
    h->serial = elementsOf(y) * inner < kSerialMacs;
    // A block's primitive is made for one thread, as it runs.
    ThreadLimit limit(h->serial || blocks);
    dnnl::matmul::primitive_desc pd(d, attr, cpuEngine());
    h->prim = dnnl::matmul(pd);
    h->scratchpadMd = pd.scratchpad_desc();
    h->src = unbound(amd);
    h->weights = unbound(bmd);
    h->dst = unbound(ymd);
    h->args = {arg(DNNL_ARG_SRC, h->src), arg(DNNL_ARG_WEIGHTS, h->weights),
               arg(DNNL_ARG_DST, h->dst)};
    if (bias && !h->biasIsPostOp) {
      h->bias = unbound(biasMd);
      h->args.push_back(arg(DNNL_ARG_BIAS, h->bias));
    }
    h->addEpilogueArgs(postOpBias, residualMd);
    if (blocks)
      h->setRowBlocks(blocks, rows, amd.get_size() / (rows / blocks),
                      ymd.get_size() / (rows / blocks), 0, nullptr);
    // A decode step's product (DnnlHandle::gemvRows): A plain (folded or
    // 2-D, not transposed), f32 or bf16 throughout, at most kGemvRows rows.
    bool sameType = (ta == dt::f32 || ta == dt::bf16) && tb == ta && ty == ta;
    if ((fold || r == 2) && !trans_a && !blocks && rows <= kGemvRows &&
        alpha == 1.0f && beta == 0.0f && sameType &&
        (!bias ||
         (tbias == ta && onlyLastDim(bias, 1) && bias->dims[r - 1] == n)) &&
        (!residual || residual->dtype == y->dtype)) {
      h->gemvBF16 = ta == dt::bf16;
      h->gemvRows = rows;
      h->gemvK = k;
      h->gemvN = n;
      if (epilogue != SC_EPILOGUE_RELU) // ReLU runs after (reluAfter)
        h->gemvActKind = act;
    }
    // The packed variant (DnnlHandle::tryPack), for f32, bf16 and int8 weights
    // (int8's packed layout carries the compensation an s8 source needs).
    h->plainWeights = bmd;
    h->attr = attr;
    if (tb == dt::f32 || tb == dt::bf16 || tb == dt::s8) {
      dnnl::memory::desc anyB(bmd.dims(), tb, dnnl::memory::format_tag::any);
      h->anyDesc = bias && !h->biasIsPostOp
                       ? dnnl::matmul::desc(amd, anyB, biasMd, ymd)
                       : dnnl::matmul::desc(amd, anyB, ymd);
    }
    return h.release();
  } catch (const std::exception &e) {
    sc_fail("oneDNN: matmul %s x %s -> %s (trans %d %d, epilogue %d%s): %s",
            dimsStr(a).c_str(), dimsStr(b).c_str(), dimsStr(y).c_str(), trans_a,
            trans_b, epilogue, residual ? ", residual" : "", e.what());
    return nullptr;
  }
}

extern "C" void sc_dnnl_matmul_run(void *h, const void *a, const void *b,
                                   const void *bias, const void *residual,
                                   void *y) {
  if (!h) {
    sc_fail("oneDNN matmul: run without a primitive");
    return;
  }
  static_cast<DnnlHandle *>(h)->run(a, b, bias, residual, y);
}

namespace {
// How many shapes a MatmulShapeCache keeps: SHARDC_DNNL_SHAPES, a positive
// integer, read when the cache is created (8 when unset or not one).
constexpr size_t kDefaultShapes = 8;

size_t shapeCapacity() {
  const char *v = std::getenv("SHARDC_DNNL_SHAPES");
  if (!v || !*v)
    return kDefaultShapes;
  char *end = nullptr;
  errno = 0;
  long long n = std::strtoll(v, &end, 10);
  if (errno || *end || n < 1 || n > (1 << 20))
    return kDefaultShapes;
  return size_t(n);
}

// sc_dnnl_matmul_dyn_create's handle: the configuration, the descriptors at
// the bounds, and the primitives made so far (DnnlHandles of
// sc_dnnl_matmul_create, row blocks and packing included), by the run's
// dims, least recently used last. The primitives of one cache share packed
// copies of a read-only B (PackShare).
struct MatmulShapeCache : shardc::rt::Handle {
  sc_desc a{}, b{}, bias{}, residual{}, y{};
  bool hasBias = false, hasResidual = false;
  int32_t transA = 0, transB = 0, epilogue = 0;
  float alpha = 1, beta = 0;
  size_t capacity = kDefaultShapes;
  PackShare packs; // before the entries: it outlives their primitives
  struct Entry {
    std::vector<int64_t> key;
    std::unique_ptr<DnnlHandle> handle;
  };
  std::list<Entry> lru; // most recently used first
  std::map<std::vector<int64_t>, std::list<Entry>::iterator> index;
  std::vector<int64_t> key; // this run's, reused

  // Checks one run descriptor against its bound (sc_fail and false when it
  // does not fit) and appends its dims to `key`.
  bool admit(const char *name, const sc_desc *bound, const sc_desc *d) {
    if (!d) {
      sc_fail("oneDNN matmul: run without a descriptor of %s", name);
      return false;
    }
    if (d->dtype != bound->dtype || d->rank != bound->rank) {
      sc_fail("oneDNN matmul: run's %s is %s of rank %d, created as %s of "
              "rank %d",
              name, dtypeName(d->dtype), d->rank, dtypeName(bound->dtype),
              bound->rank);
      return false;
    }
    for (int i = 0; i < d->rank; ++i) {
      // Within [1, bound]; a dim bound at 0 (an empty tensor) stays 0.
      int64_t lo = std::min<int64_t>(1, bound->dims[i]);
      if (d->dims[i] < lo || d->dims[i] > bound->dims[i]) {
        sc_fail("oneDNN matmul: run's %s %s: dim %d is %lld, outside [%lld, "
                "%lld] (its bound %s)",
                name, dimsStr(d).c_str(), i, (long long)d->dims[i],
                (long long)lo, (long long)bound->dims[i],
                dimsStr(bound).c_str());
        return false;
      }
      key.push_back(d->dims[i]);
    }
    return true;
  }

  // This run's primitive: the cached one, or a new one (then cached,
  // evicting the least recently used at capacity); null after sc_fail.
  DnnlHandle *lookup(const sc_desc *da, const sc_desc *db, const sc_desc *dbias,
                     const sc_desc *dres, const sc_desc *dy) {
    if (!lru.empty() && lru.front().key == key)
      return lru.front().handle.get();
    auto found = index.find(key);
    if (found != index.end()) {
      lru.splice(lru.begin(), lru, found->second);
      return lru.front().handle.get();
    }
    std::unique_ptr<DnnlHandle> h(
        static_cast<DnnlHandle *>(sc_dnnl_matmul_create(
            da, db, dbias, dres, dy, transA, transB, alpha, beta, epilogue)));
    if (!h)
      return nullptr;
    h->packShare = &packs;
    while (lru.size() >= capacity) {
      index.erase(lru.back().key);
      lru.pop_back();
    }
    lru.push_front({key, std::move(h)});
    index.emplace(key, lru.begin());
    return lru.front().handle.get();
  }
};
} // namespace

extern "C" void *sc_dnnl_matmul_dyn_create(const sc_desc *a, const sc_desc *b,
                                           const sc_desc *bias,
                                           const sc_desc *residual,
                                           const sc_desc *y, int32_t trans_a,
                                           int32_t trans_b, float alpha,
                                           float beta, int32_t epilogue) {
  for (const sc_desc *d : {a, b, bias, residual, y})
    if (d && (d->rank < 0 || d->rank > SC_MAX_RANK)) {
      sc_fail("oneDNN matmul: rank %d (at most %d)", d->rank, SC_MAX_RANK);
      return nullptr;
    }
  // The primitive at the bounds: the configuration's errors surface here,
  // at load time, and it serves the runs at the bounds.
  std::unique_ptr<DnnlHandle> first(
      static_cast<DnnlHandle *>(sc_dnnl_matmul_create(
          a, b, bias, residual, y, trans_a, trans_b, alpha, beta, epilogue)));
  if (!first)
    return nullptr;
  try {
    auto c = std::make_unique<MatmulShapeCache>();
    c->a = *a;
    c->b = *b;
    c->y = *y;
    c->hasBias = bias != nullptr;
    c->hasResidual = residual != nullptr;
    if (bias)
      c->bias = *bias;
    if (residual)
      c->residual = *residual;
    c->transA = trans_a;
    c->transB = trans_b;
    c->alpha = alpha;
    c->beta = beta;
    c->epilogue = epilogue;
    c->capacity = shapeCapacity();
    c->key.reserve(5 * SC_MAX_RANK);
    for (const sc_desc *d : {a, b, bias, residual, y})
      if (d)
        c->key.insert(c->key.end(), d->dims, d->dims + d->rank);
    first->packShare = &c->packs;
    c->lru.push_front({c->key, std::move(first)});
    c->index.emplace(c->key, c->lru.begin());
    return c.release();
  } catch (const std::exception &e) {
    sc_fail("oneDNN matmul: %s", e.what());
    return nullptr;
  }
}

extern "C" void sc_dnnl_matmul_dyn_run(void *h, const sc_desc *a,
                                       const sc_desc *b, const sc_desc *bias,
                                       const sc_desc *residual,
                                       const sc_desc *y, const void *a_ptr,
                                       const void *b_ptr, const void *bias_ptr,
                                       const void *residual_ptr, void *y_ptr) {
  if (!h) {
    sc_fail("oneDNN matmul: run without a primitive");
    return;
  }
  auto *c = static_cast<MatmulShapeCache *>(h);
  if ((bias != nullptr) != c->hasBias ||
      (residual != nullptr) != c->hasResidual) {
    sc_fail("oneDNN matmul: run %s a bias and %s a residual, created %s a "
            "bias and %s a residual",
            bias ? "with" : "without", residual ? "with" : "without",
            c->hasBias ? "with" : "without",
            c->hasResidual ? "with" : "without");
    return;
  }
  c->key.clear();
  if (!c->admit("a", &c->a, a) || !c->admit("b", &c->b, b) ||
      (bias && !c->admit("bias", &c->bias, bias)) ||
      (residual && !c->admit("residual", &c->residual, residual)) ||
      !c->admit("y", &c->y, y))
    return;
  DnnlHandle *p = nullptr;
  try {
    p = c->lookup(a, b, bias, residual, y);
  } catch (const std::exception &e) { // allocation in the cache
    sc_fail("oneDNN matmul: %s", e.what());
    return;
  }
  if (p)
    p->run(a_ptr, b_ptr, bias_ptr, residual_ptr, y_ptr);
}

namespace shardc::rt::cpu {
// For the tests (runtime/test/KernelsTest.cpp declares it): whether a
// sc_dnnl_matmul_create handle runs Gemv.h's kernel (after its first run).
bool dnnlMatmulRunsGemv(const void *h) {
  return static_cast<const DnnlHandle *>(h)->gemvNB > 0;
}

// For the tests (runtime/test/KernelsTest.cpp declares it): what a
// sc_dnnl_matmul_dyn_create handle holds: the shapes cached, those of their
// primitives that run on a packed B, and the distinct packed copies (and
// their bytes) behind them.
void dnnlMatmulDynStats(const void *h, int64_t *shapes, int64_t *packedShapes,
                        int64_t *packedCopies, int64_t *packedBytes) {
  const auto *c = static_cast<const MatmulShapeCache *>(h);
  std::vector<const void *> seen;
  *shapes = (int64_t)c->lru.size();
  *packedShapes = *packedCopies = *packedBytes = 0;
  for (const MatmulShapeCache::Entry &e : c->lru) {
    if (!e.handle->packedFrom)
      continue;
    ++*packedShapes;
    const void *buf = e.handle->packedOwner.get();
    if (std::find(seen.begin(), seen.end(), buf) != seen.end())
      continue;
    seen.push_back(buf);
    ++*packedCopies;
    *packedBytes += (int64_t)e.handle->packed.get_desc().get_size();
  }
}
} // namespace shardc::rt::cpu

namespace {
// graph.linear_int8's primitive: DnnlHandle's run, with the row and column
// scales bound first.
struct Int8MatmulHandle : DnnlHandle {
  dnnl::memory rowScale, colScale;
  // What the primitive is made of, to make it again with constant scales.
  dnnl::memory::desc amd, bmd, ymd;
  dnnl::post_ops postOps;
  dnnl::memory::dim columns = 0;
  bool scalesTried = false;

  // At the first run: column scales in read-only memory (the weights file)
  // cannot change, so the primitive is made again with them as constants,
  // which oneDNN 2.6 runs on its VNNI brgemm kernels (runtime scales keep
  // its older jit GEMM: 1.5 against 2.0 ms for a 1024 x 384 x 1536
  // product on 2 threads). Before tryPack, which packs for this primitive.
  void constantScales(const void *bScale) {
    scalesTried = true;
    if (!inReadOnlyMemory(bScale, columns * sizeof(float)))
      return;
    const float *v = static_cast<const float *>(bScale);
    dnnl::primitive_attr constant;
    constant.set_output_scales(1 << 2, std::vector<float>(v, v + columns));
    constant.set_post_ops(postOps);
    if (blocks)
      constant.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    ThreadLimit one(blocks != 0); // a block's primitive runs on one thread
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, ymd),
                                    constant, cpuEngine());
    prim = dnnl::matmul(pd);
    scratchpadMd = pd.scratchpad_desc();
    attr = constant;
    args.erase(std::remove_if(args.begin(), args.end(),
                              [](const dnnl_exec_arg_t &a) {
                                return a.arg == DNNL_ARG_ATTR_OUTPUT_SCALES;
                              }),
               args.end());
  }
};
} // namespace

extern "C" void *sc_dnnl_matmul_int8_create(
    const sc_desc *a, const sc_desc *b, const sc_desc *a_scale,
    const sc_desc *b_scale, const sc_desc *bias, const sc_desc *residual,
    const sc_desc *y, int32_t epilogue) {
  int r = a->rank;
  if (r < 2 || b->rank != r || y->rank != r ||
      (a_scale && a_scale->rank != r) || b_scale->rank != 1 ||
      (bias && bias->rank != r) || (residual && !sameShape(residual, y))) {
    sc_fail("oneDNN int8 matmul: ranks a %d, b %d, y %d, a_scale %d, "
            "b_scale %d (need equal >= 2, b_scale 1)%s",
            r, b->rank, y->rank, a_scale ? a_scale->rank : r, b_scale->rank,
            residual && !sameShape(residual, y) ? ", residual not y's" : "");
    return nullptr;
  }
  if ((a->dtype != kI8 && a->dtype != kU8) || b->dtype != kI8 ||
      y->dtype != kF32 ||
      (a_scale && a_scale->dtype != kF32) || b_scale->dtype != kF32 ||
      (bias && bias->dtype != kF32) || (residual && residual->dtype != kF32)) {
    sc_fail("oneDNN int8 matmul: dtypes %s x %s -> %s (need int8 or uint8 "
            "x int8 -> float32, float32 scales, bias and residual)",
            dtypeName(a->dtype), dtypeName(b->dtype), dtypeName(y->dtype));
    return nullptr;
  }
  dnnl::algorithm act;
  if (!epilogueAlgorithm(epilogue, act) || epilogue == SC_EPILOGUE_HARDSWISH ||
      (residual && epilogue != SC_EPILOGUE_NONE)) {
    sc_fail("oneDNN int8 matmul: epilogue %d%s", epilogue,
            residual ? " with a residual" : "");
    return nullptr;
  }
  auto h = std::make_unique<Int8MatmulHandle>();
  h->what = "int8 matmul";
  if (elementsOf(y) == 0) { // see sc_dnnl_matmul_create
    h->empty = true;
    return h.release();
  }
  try {
    // Every buffer is row-major, so the batch dims fold into the rows: one
    // [1, rows, K] x [1, K, N] product, which oneDNN 2.6 runs on its JIT
    // GEMM (a batch of 8 against one broadcast weight, or the row scales
    // as a [rows, 1] tensor, would take its reference kernel).
    dnnl::memory::dim k = a->dims[r - 1], n = y->dims[r - 1];
    dnnl::memory::dim rows = elementsOf(y) / n;
    // Row blocks (rowBlocks): the primitive is a block's.
    int64_t blocks = rowBlocks(rows, rows * k * n);
    dnnl::memory::dim made = blocks ? rows / blocks : rows;
    auto amd = plainDesc({1, made, k}, a->dtype == kU8 ? dt::u8 : dt::s8);
    auto bmd = plainDesc({1, k, n}, dt::s8);
    auto ymd = plainDesc({1, made, n}, dt::f32);
    auto rowMd = plainDesc({1, made, 1}, dt::f32);
    dnnl::memory::desc biasMd;
    if (bias)
      biasMd = plainDesc({1, 1, n}, dt::f32);
    dnnl::primitive_attr attr;
    // The column scales are the output scales (per column: the last dim);
    // the row scales (when a is scaled per row), bias, activation and
    // residual follow as post-ops.
    attr.set_output_scales(1 << 2, {DNNL_RUNTIME_F32_VAL});
    if (blocks) // see DnnlHandle::blocks
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops po;
    if (a_scale)
      po.append_binary(dnnl::algorithm::binary_mul, rowMd);
    int rowArg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(po.len() - 1) | DNNL_ARG_SRC_1;
    h->hasBias = bias != nullptr;
    h->biasIsPostOp = true;
    h->hasResidual = residual != nullptr;
    const dnnl::memory::desc *postOpBias = bias ? &biasMd : nullptr;
    const dnnl::memory::desc *residualMd = residual ? &ymd : nullptr;
    h->appendEpilogue(po, postOpBias, act, epilogue, y, residualMd);
    attr.set_post_ops(po);
    h->serial = elementsOf(y) * a->dims[r - 1] < kSerialMacs;
    ThreadLimit limit(h->serial || blocks); // a block's: one thread
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, ymd), attr,
                                    cpuEngine());
    h->prim = dnnl::matmul(pd);
    h->scratchpadMd = pd.scratchpad_desc();
    h->src = unbound(amd);
    h->weights = unbound(bmd);
    h->dst = unbound(ymd);
    h->colScale = unbound(plainDesc({n}, dt::f32));
    h->args = {arg(DNNL_ARG_SRC, h->src), arg(DNNL_ARG_WEIGHTS, h->weights),
               arg(DNNL_ARG_DST, h->dst),
               arg(DNNL_ARG_ATTR_OUTPUT_SCALES, h->colScale)};
    if (a_scale) {
      h->rowScale = unbound(rowMd);
      h->args.push_back(arg(rowArg, h->rowScale));
    }
    h->addEpilogueArgs(postOpBias, residualMd);
    if (blocks)
      h->setRowBlocks(blocks, rows, k, n * sizeof(float), rowArg,
                      a_scale ? &h->rowScale : nullptr);
    // Packed weights (DnnlHandle::tryPack): oneDNN's int8 layout, which
    // carries the compensation for the signed source.
    h->plainWeights = bmd;
    h->attr = attr;
    dnnl::memory::desc anyB(bmd.dims(), dt::s8, dnnl::memory::format_tag::any);
    h->anyDesc = dnnl::matmul::desc(amd, anyB, ymd);
    h->amd = amd;
    h->bmd = bmd;
    h->ymd = ymd;
    h->postOps = po;
    h->columns = n;
    return h.release();
  } catch (const std::exception &e) {
    sc_fail("oneDNN: int8 matmul %s x %s -> %s (epilogue %d%s): %s",
            dimsStr(a).c_str(), dimsStr(b).c_str(), dimsStr(y).c_str(),
            epilogue, residual ? ", residual" : "", e.what());
    return nullptr;
  }
}

extern "C" void sc_dnnl_matmul_int8_run(void *h, const void *a, const void *b,
                                        const void *a_scale,
                                        const void *b_scale, const void *bias,
                                        const void *residual, void *y) {
  if (!h) {
    sc_fail("oneDNN int8 matmul: run without a primitive");
    return;
  }
  auto *handle = static_cast<Int8MatmulHandle *>(h);
  if (!handle->empty) {
    if (!handle->scalesTried) {
      try {
        handle->constantScales(b_scale);
      } catch (const std::exception &e) {
        sc_fail("oneDNN int8 matmul: %s", e.what());
        return;
      }
    }
    if (a_scale)
      bind(handle->rowScale, a_scale);
    handle->rowScalePtr = a_scale;
    bind(handle->colScale, b_scale);
  }
  handle->run(a, b, bias, residual, y);
}

namespace {

// The int8 form's output scales and source zero point (oneDNN's int8
// convolutions take them fixed at creation only).
struct ConvInt8 {
  const float *scales;
  int64_t numScales;
  int32_t zeroPoint;
  /// The activation's scale and zero point come with each run
  /// (sc_dnnl_conv_int8_dynamic_run); `scales` are the weight's.
  bool dynamic = false;
};

// sc_dnnl_conv_create, and with `int8` sc_dnnl_conv_int8_create.
void *createConv(const sc_desc *x, const sc_desc *w, const sc_desc *bias,
                 const sc_desc *residual, const sc_desc *y,
                 const int64_t *strides, const int64_t *dilations,
                 const int64_t *pads, int64_t group, int32_t transposed,
                 int32_t epilogue, int32_t channels_last,
                 const ConvInt8 *int8) {
  const char *what = int8         ? "int8 convolution"
                     : transposed ? "deconvolution"
                                  : "convolution";
  int sd = x->rank - 2;
  if (sd < 1 || sd > 3 || w->rank != x->rank || y->rank != x->rank) {
    sc_fail("oneDNN %s: ranks x %d, w %d, y %d (need 3 to 5, equal)", what,
            x->rank, w->rank, y->rank);
    return nullptr;
  }
  if ((channels_last & ~3) || (transposed && channels_last)) {
    sc_fail("oneDNN %s: channels_last %d (bits 0 and 1; 0 when transposed)",
            what, channels_last);
    return nullptr;
  }
  dt tx, tw, ty, tbias = dt::f32;
  if (!toDnnlType(x->dtype, tx) || !toDnnlType(w->dtype, tw) ||
      !toDnnlType(y->dtype, ty) || (bias && !toDnnlType(bias->dtype, tbias))) {
    sc_fail("oneDNN %s: unsupported dtypes %s, %s -> %s", what,
            dtypeName(x->dtype), dtypeName(w->dtype), dtypeName(y->dtype));
    return nullptr;
  }
  if (int8 &&
      (transposed || (x->dtype != kU8 && x->dtype != kI8) || w->dtype != kI8 ||
       y->dtype != kF32 || (bias && bias->dtype != kF32) || !int8->scales)) {
    sc_fail("oneDNN %s: takes u8 or i8 x, i8 w, f32 scales, bias and y (got "
            "%s, %s%s -> %s%s)",
            what, dtypeName(x->dtype), dtypeName(w->dtype),
            bias ? ", bias" : "", dtypeName(y->dtype),
            int8->scales ? "" : ", no scales");
    return nullptr;
  }
  dnnl::algorithm act;
  if (!epilogueAlgorithm(epilogue, act)) {
    sc_fail("oneDNN %s: unknown epilogue %d", what, epilogue);
    return nullptr;
  }
  if (residual && !sameShape(residual, y)) {
    sc_fail("oneDNN %s: residual %s %s is not y's %s %s", what,
            dtypeName(residual->dtype), dimsStr(residual).c_str(),
            dtypeName(y->dtype), dimsStr(y).c_str());
    return nullptr;
  }
  bool xLast = channels_last & 1, yLast = channels_last & 2;
  dnnl::memory::dims xd = logicalDims(x, xLast), yd = logicalDims(y, yLast);
  int64_t g = group > 0 ? group : 1;
  int64_t ic = xd[1], oc = yd[1];
  if (ic % g || oc % g) {
    sc_fail("oneDNN %s: channels %lld -> %lld not divisible by group %lld",
            what, (long long)ic, (long long)oc, (long long)g);
    return nullptr;
  }
  if (int8 && int8->numScales != oc && int8->numScales != 1) {
    sc_fail("oneDNN %s: %lld scales for %lld output channels", what,
            (long long)int8->numScales, (long long)oc);
    return nullptr;
  }
  for (int64_t c = 0; int8 && c < int8->numScales; ++c)
    if (!std::isfinite(int8->scales[c]) || int8->scales[c] <= 0) {
      sc_fail("oneDNN %s: scale %g of output channel %lld (need > 0)", what,
              (double)int8->scales[c], (long long)c);
      return nullptr;
    }
  if (elementsOf(y) == 0) { // see sc_dnnl_matmul_create
    auto h = std::make_unique<ConvHandle>();
    h->what = what;
    h->empty = true;
    return h.release();
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
    auto xmd = xLast ? channelsLastDesc(xd, tx) : plainDesc(xd, tx);
    auto ymd = yLast ? channelsLastDesc(yd, ty) : plainDesc(yd, ty);
    // A dynamic int8 convolution adds its bias after the run-time scale (a
    // post-op): the primitive itself has none. So does a static one with
    // a scale that run()'s bias / scale would overflow (a channel of
    // near-zero weights).
    bool dynamic = int8 && int8->dynamic;
    bool biasAfter = dynamic;
    if (int8 && bias)
      for (int64_t i = 0; i < int8->numScales; ++i)
        biasAfter = biasAfter || !(std::fabs(int8->scales[i]) >= 1e-30f);
    dnnl::memory::desc bmd;
    if (bias && !biasAfter)
      bmd = plainDesc({oc}, tbias);
    dnnl::memory::dims st(sd), dil(sd), pl(sd), pr(sd);
    for (int i = 0; i < sd; ++i) {
      st[i] = strides ? strides[i] : 1;
      int64_t d = dilations ? dilations[i] : 1;
      dil[i] = d - 1;
      pl[i] = pads ? pads[i] : 0;
      int64_t span = (kdims[i] - 1) * d + 1;
      int64_t in = xd[2 + i], out = yd[2 + i];
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
    auto h = std::make_unique<ConvHandle>();
    h->what = what;
    h->hasBias = bias != nullptr;
    h->hasResidual = residual != nullptr;
    if (epilogue == SC_EPILOGUE_RELU) { // see DnnlHandle::reluAfter
      act = dnnl::algorithm::undef;
      h->reluAfter = true;
      h->dstType = y->dtype;
      h->dstElems = elementsOf(y);
    }
    // oneDNN picks the weights layout, and the src and dst ones but for a
    // pointwise convolution (1x1 kernel, stride 1, no padding, one group)
    // on plain operands: on the plain layout that one is a GEMM, which
    // oneDNN runs as such, for less than the two reorders of the
    // activations a blocked layout costs. Channels-last operands keep
    // their layout (oneDNN's fast kernels take it). The bias stays plain.
    bool pointwise = !transposed && g == 1 && channels_last == 0 && !int8;
    for (int i = 0; i < sd; ++i)
      pointwise = pointwise && kdims[i] == 1 && st[i] == 1 && pl[i] == 0 &&
                  pr[i] == 0;
    auto anyOf = [](const dnnl::memory::desc &md) {
      return dnnl::memory::desc(md.dims(), md.data_type(),
                                dnnl::memory::format_tag::any);
    };
    auto ioOf = [&](const dnnl::memory::desc &md, bool last) {
      return pointwise || last ? md : anyOf(md);
    };
    // y = act(conv + bias + residual): the sum post-op adds the residual
    // that run() puts into dst first, the eltwise one applies act. A
    // dynamic int8 convolution first multiplies by the activation's scale
    // and adds the bias (binary post-ops on tensors bound at each run:
    // oneDNN 2.6's int8 convolutions take no run-time output scales).
    dnnl::primitive_attr attr;
    dnnl::post_ops po;
    dnnl::memory::desc scaleMd, biasAddMd;
    if (dynamic) {
      scaleMd = plainDesc(dnnl::memory::dims(yd.size(), 1), dt::f32);
      po.append_binary(dnnl::algorithm::binary_mul, scaleMd);
    }
    if (biasAfter && bias) {
      dnnl::memory::dims bd(yd.size(), 1);
      bd[1] = oc;
      biasAddMd = plainDesc(bd, dt::f32);
      po.append_binary(dnnl::algorithm::binary_add, biasAddMd);
    }
    if (residual)
      po.append_sum(1.0f);
    if (act != dnnl::algorithm::undef)
      po.append_eltwise(1.0f, act, 0.0f, 0.0f);
    attr.set_post_ops(po);
    // int8: the int32 sums plus the bias, times the output scales (one per
    // output channel: mask bit 1 of [N, C, ...]; oneDNN's int8
    // convolutions take no run-time scales), the source's zero point subtracted
    // by oneDNN (also at the padding, which so reads as real zero; given at run
    // time, which its AMX kernels take).
    if (int8) {
      h->outScales.assign(int8->scales, int8->scales + int8->numScales);
      h->scaledBias.resize(bias && !biasAfter ? oc : 0);
      h->biasAfter = biasAfter;
      attr.set_output_scales(int8->numScales == 1 ? 0 : 2, h->outScales);
      h->dynamic = dynamic;
      h->unsignedSrc = x->dtype == kU8;
      if (int8->zeroPoint || dynamic) {
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        h->zeroPointValue = int8->zeroPoint;
        h->zeroPoint = dnnl::memory(plainDesc({1}, dt::s32), cpuEngine(),
                                    &h->zeroPointValue);
      }
    }
    auto prop = dnnl::prop_kind::forward_inference;
    dnnl::memory::desc psrc, pw, pdst;
    // Multiply-adds: every output (input, when transposed) times one
    // filter's worth of weights.
    int64_t perFilter = elementsOf(w) / std::max<int64_t>(1, w->dims[0]);
    h->serial = elementsOf(transposed ? x : y) * perFilter < kSerialMacs;
    ThreadLimit limit(h->serial);
    if (transposed) {
      dnnl::deconvolution_forward::desc d(
          prop, dnnl::algorithm::deconvolution_direct, ioOf(xmd, xLast),
          anyOf(wmd), bmd, ioOf(ymd, yLast), st, dil, pl, pr);
      dnnl::deconvolution_forward::primitive_desc pd(d, attr, cpuEngine());
      h->prim = dnnl::deconvolution_forward(pd);
      psrc = pd.src_desc();
      pw = pd.weights_desc();
      pdst = pd.dst_desc();
    } else {
      dnnl::convolution_forward::desc d(
          prop, dnnl::algorithm::convolution_direct, ioOf(xmd, xLast),
          anyOf(wmd), bmd, ioOf(ymd, yLast), st, dil, pl, pr);
      dnnl::convolution_forward::primitive_desc pd(d, attr, cpuEngine());
      h->prim = dnnl::convolution_forward(pd);
      psrc = pd.src_desc();
      pw = pd.weights_desc();
      pdst = pd.dst_desc();
    }
    // An argument whose chosen layout is the user's reads the user's buffer;
    // any other gets a buffer of its own and a reorder.
    auto setUp = [](const dnnl::memory::desc &user,
                    const dnnl::memory::desc &chosen, bool in,
                    dnnl::memory &mem, dnnl::memory &userMem, dnnl::reorder &re,
                    ExecArgs &reArgs) {
      if (chosen == user) {
        mem = unbound(user);
        return false;
      }
      mem = dnnl::memory(chosen, cpuEngine());
      userMem = unbound(user);
      re = in ? dnnl::reorder(userMem, mem) : dnnl::reorder(mem, userMem);
      reArgs = {arg(DNNL_ARG_FROM, in ? userMem : mem),
                arg(DNNL_ARG_TO, in ? mem : userMem)};
      return true;
    };
    h->reorderSrc =
        setUp(xmd, psrc, true, h->src, h->userSrc, h->srcIn, h->srcInArgs);
    h->reorderWeights = setUp(wmd, pw, true, h->weights, h->userWeights,
                              h->weightsIn, h->weightsInArgs);
    h->reorderDst =
        setUp(ymd, pdst, false, h->dst, h->userDst, h->dstOut, h->dstOutArgs);
    if (residual && h->reorderDst) {
      h->userResidual = unbound(ymd);
      h->residualIn = dnnl::reorder(h->userResidual, h->dst);
      h->residualInArgs = {arg(DNNL_ARG_FROM, h->userResidual),
                           arg(DNNL_ARG_TO, h->dst)};
    }
    h->weightBytes = wmd.get_size();
    h->dstBytes = ymd.get_size();
    h->convArgs = {arg(DNNL_ARG_SRC, h->src), arg(DNNL_ARG_WEIGHTS, h->weights),
                   arg(DNNL_ARG_DST, h->dst)};
    if (bias && !biasAfter) {
      h->bias = unbound(bmd);
      h->convArgs.push_back(arg(DNNL_ARG_BIAS, h->bias));
    }
    if (dynamic) {
      h->runScale = unbound(scaleMd);
      h->convArgs.push_back(
          arg(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, h->runScale));
    }
    if (biasAfter && bias) {
      h->runBias = unbound(biasAddMd);
      h->convArgs.push_back(
          arg(DNNL_ARG_ATTR_MULTIPLE_POST_OP(dynamic ? 1 : 0) | DNNL_ARG_SRC_1,
              h->runBias));
    }
    if (int8 && (int8->zeroPoint || dynamic))
      h->convArgs.push_back(
          arg(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, h->zeroPoint));
    return h.release();
  } catch (const std::exception &e) {
    sc_fail("oneDNN: %s %s * %s -> %s (group %lld, epilogue %d%s, "
            "channels_last %d): %s",
            what, dimsStr(x).c_str(), dimsStr(w).c_str(), dimsStr(y).c_str(),
            (long long)g, epilogue, residual ? ", residual" : "", channels_last,
            e.what());
    return nullptr;
  }
}

} // namespace

extern "C" void *
sc_dnnl_conv_create(const sc_desc *x, const sc_desc *w, const sc_desc *bias,
                    const sc_desc *residual, const sc_desc *y,
                    const int64_t *strides, const int64_t *dilations,
                    const int64_t *pads, int64_t group, int32_t transposed,
                    int32_t epilogue, int32_t channels_last) {
  return createConv(x, w, bias, residual, y, strides, dilations, pads, group,
                    transposed, epilogue, channels_last, nullptr);
}

extern "C" void sc_dnnl_conv_run(void *h, const void *x, const void *w,
                                 const void *bias, const void *residual,
                                 void *y) {
  if (!h) {
    sc_fail("oneDNN convolution: run without a primitive");
    return;
  }
  static_cast<ConvHandle *>(h)->run(x, w, bias, residual, y);
}

extern "C" void *sc_dnnl_conv_int8_create(
    const sc_desc *x, const sc_desc *w, const sc_desc *bias,
    const sc_desc *residual, const sc_desc *y, const int64_t *strides,
    const int64_t *dilations, const int64_t *pads, int64_t group,
    int32_t epilogue, int32_t channels_last, const float *scales,
    int64_t num_scales, int32_t x_zero_point) {
  ConvInt8 int8{scales, num_scales, x_zero_point};
  return createConv(x, w, bias, residual, y, strides, dilations, pads, group,
                    /*transposed=*/0, epilogue, channels_last, &int8);
}

extern "C" void *sc_dnnl_conv_int8_dynamic_create(
    const sc_desc *x, const sc_desc *w, const sc_desc *bias,
    const sc_desc *residual, const sc_desc *y, const sc_desc *x_scale,
    const sc_desc *x_zero, const int64_t *strides, const int64_t *dilations,
    const int64_t *pads, int64_t group, int32_t epilogue, int32_t channels_last,
    const float *scales, int64_t num_scales) {
  if (!x_scale || !x_zero || x_scale->dtype != kF32 ||
      elementsOf(x_scale) != 1 || x_zero->dtype != x->dtype ||
      elementsOf(x_zero) != 1) {
    sc_fail("oneDNN int8 convolution: the run-time scale must be one "
            "float32 and the zero point one of x's type");
    return nullptr;
  }
  ConvInt8 int8{scales, num_scales, 0, /*dynamic=*/true};
  return createConv(x, w, bias, residual, y, strides, dilations, pads, group,
                    /*transposed=*/0, epilogue, channels_last, &int8);
}

extern "C" void sc_dnnl_conv_int8_dynamic_run(void *h, const void *x,
                                              const void *w, const void *bias,
                                              const void *residual, void *y,
                                              const float *x_scale,
                                              const void *x_zero_point) {
  if (!h) {
    sc_fail("oneDNN int8 convolution: run without a primitive");
    return;
  }
  static_cast<ConvHandle *>(h)->run(x, w, bias, residual, y, x_scale,
                                    x_zero_point);
}

extern "C" void sc_dnnl_conv_int8_run(void *h, const void *x, const void *w,
                                      const void *bias, const void *residual,
                                      void *y) {
  if (!h) {
    sc_fail("oneDNN int8 convolution: run without a primitive");
    return;
  }
  static_cast<ConvHandle *>(h)->run(x, w, bias, residual, y);
}

// Grouped GEMM of the mixture-of-experts kernels (kern.grouped_matmul): one
// oneDNN matmul with the row count M left to run time (DNNL_RUNTIME_DIM_VAL),
// created once per (dtype, Kd, N) and executed once per expert on its rows.
extern "C" void sc_grouped_matmul(const sc_desc *a, const void *ap,
                                  const sc_desc *b, const void *bp,
                                  const int32_t *offsets, void *yp) {
  int64_t p = a->dims[0], kd = a->dims[1], experts = b->dims[0],
          n = b->dims[2];
  dt type;
  if (!toDnnlType(a->dtype, type) || b->dtype != a->dtype) {
    sc_fail("grouped matmul: unsupported dtypes %s x %s",
            dtypeName(a->dtype), dtypeName(b->dtype));
    return;
  }
  if (!groupOffsetsOk("grouped matmul", offsets, experts, p))
    return;
  size_t eb = dtypeSize(a->dtype);
  try {
    static std::mutex mu;
    static std::map<std::tuple<int32_t, int64_t, int64_t>, dnnl::matmul>
        cache;
    dnnl::matmul prim;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto key = std::make_tuple(a->dtype, kd, n);
      auto it = cache.find(key);
      if (it == cache.end()) {
        dnnl::memory::dim m = DNNL_RUNTIME_DIM_VAL;
        dnnl::memory::desc amd({m, kd}, type, {kd, 1});
        dnnl::memory::desc bmd({kd, n}, type, {n, 1});
        dnnl::memory::desc ymd({m, n}, type, {n, 1});
        dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, ymd),
                                        cpuEngine());
        it = cache.emplace(key, dnnl::matmul(pd)).first;
      }
      prim = it->second;
    }
    auto *a8 = static_cast<char *>(const_cast<void *>(ap));
    auto *b8 = static_cast<char *>(const_cast<void *>(bp));
    auto *y8 = static_cast<char *>(yp);
    for (int64_t e = 0; e < experts; ++e) {
      int64_t m = offsets[e + 1] - offsets[e];
      if (m == 0)
        continue;
      ThreadLimit limit(m * kd * n < kSerialMacs);
      dnnl::memory am({{m, kd}, type, {kd, 1}}, cpuEngine(),
                      a8 + offsets[e] * kd * eb);
      dnnl::memory bm({{kd, n}, type, {n, 1}}, cpuEngine(),
                      b8 + e * kd * n * eb);
      dnnl::memory ym({{m, n}, type, {n, 1}}, cpuEngine(),
                      y8 + offsets[e] * n * eb);
      prim.execute(cpuStream(), {{DNNL_ARG_SRC, am},
                                 {DNNL_ARG_WEIGHTS, bm},
                                 {DNNL_ARG_DST, ym}});
      cpuStream().wait();
    }
  } catch (const std::exception &e) {
    sc_fail("oneDNN: grouped matmul [%lld, %lld] x %lld x [%lld, %lld]: %s",
            (long long)p, (long long)kd, (long long)experts, (long long)kd,
            (long long)n, e.what());
  }
}
