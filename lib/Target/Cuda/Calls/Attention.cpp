//===- Attention.cpp - kern.attention on CUDA (prelude attention.cuh) -----===//
//
// A flash-attention kernel: a block per tile of queries walks the keys in
// steps, both in shared memory, with an online softmax in fp32; on tensor
// cores for fp16 and bf16 head dims of multiples of 16. The kernel
// takes one parameter per distinct buffer (q, k and v are often one packed
// buffer) and the operands' layouts as a constant struct.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;
using target::floatLiteral;

// Tuning switches for measuring the tensor-core kernel's variants
// (bench/bench_gpu.py --attention-flags); hidden, as LLVM's codegen knobs.
static llvm::cl::opt<int> warpRowsFlag(
    "cuda-attention-warp-rows", llvm::cl::Hidden, llvm::cl::init(0),
    llvm::cl::desc("Queries per warp of the tensor-core attention: 16 (the "
                   "default), or 32 for head dims up to 64"));
static llvm::cl::opt<bool> prefetchFlag(
    "cuda-attention-prefetch", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("Double-buffer the tensor-core attention's key and value "
                   "tiles"));

FailureOr<Kernel> calls::attention(kern::AttentionOp op, StringRef name) {
  Value q = op.getQ(), k = op.getK(), v = op.getV(), m = op.getMask();
  SmallVector<Value> inputs;
  for (Value in : {q, k, v, m})
    if (in && !llvm::is_contained(inputs, in))
      inputs.push_back(in);
  CallWriter w(op, name, inputs, {op.getY()});
  Type t = elem(q);
  int64_t nb = op.getNumBatchDims();
  ArrayRef<int64_t> dims = op.getDims();
  int64_t batch = product(dims.take_front(nb)), S = dims[nb], T = dims[nb + 1],
          D = dims[nb + 2], E = dims[nb + 3];
  if (D < 1 || E < 1)
    return w.unsupported("empty head dims");
  std::optional<ArrayRef<int64_t>> maskLayout = op.getMaskLayout();
  std::string geom = "  // batch dims; q, k, v, mask, y: [offset, batch "
                     "strides, row stride, column stride]\n"
                     "  const sc_attn_geom<" +
                     std::to_string(nb) + "> g = {" +
                     braced(dims.take_front(nb)) + ", " +
                     braced(op.getQLayout()) + ", " + braced(op.getKLayout()) +
                     ", " + braced(op.getVLayout()) + ", " +
                     braced(maskLayout.value_or(ArrayRef<int64_t>())) + ", " +
                     braced(op.getYLayout()) + "};\n";
  bool causal = op.getCausal();
  std::string args = "(" + w.inputParam(q) + ", " + w.inputParam(k) + ", " +
                     w.inputParam(v) + ", " +
                     (m ? w.inputParam(m) : "nullptr") + ", out0, g, " +
                     lit(batch) + ", " + lit(S) + ", " + lit(T) + ", " +
                     floatLiteral(op.getScale().convertToFloat(),
                                  Float32Type::get(op.getContext())) +
                     ");\n";
  std::string what = "attention of " + std::to_string(batch) + " x [" +
                     std::to_string(S) + ", " + std::to_string(D) +
                     "] queries over " + std::to_string(T) + " keys, " +
                     std::to_string(E) + " values" +
                     (causal ? ", causal" : "") + (m ? ", masked" : "");

  // fp16 and bf16 with head dims of whole m16n8k16 steps: tensor cores
  // (attention_mma.cuh), a block of 16 queries per warp; key steps of 64,
  // halved until the two key-and-value buffers and the query tile fit 48
  // KiB. Rows move as 16-byte cp.async copies when every q, k and v row is
  // contiguous and starts at a multiple of 8 elements. On the H200 at
  // 8 x 12 x 512 x 64 (docs/performance.md): 0.056 ms; two blocks per warp
  // (--cuda-attention-warp-rows=32, head dims up to 64) 0.064 ms, one
  // buffer instead of two 0.057 ms.
  if ((t.isF16() || t.isBF16()) && D % 16 == 0 && E % 16 == 0 && D <= 128 &&
      E <= 128) {
    auto rowsAligned = [&](ArrayRef<int64_t> layout) {
      return layout.back() == 1 &&
             llvm::all_of(layout.drop_back(),
                          [](int64_t x) { return x % 8 == 0; });
    };
    bool vec = rowsAligned(op.getQLayout()) && rowsAligned(op.getKLayout()) &&
               rowsAligned(op.getVLayout());
    int64_t rw = warpRowsFlag == 32 && D <= 64 && E <= 64 ? 2 : 1;
    int64_t bq = 64 * rw;
    bool prefetch = prefetchFlag;
    auto smem = [&](int64_t bk) {
      int64_t kv = bk * (D + 8 + E + 8);
      return 2 * (kv + std::max(kv, bq * (D + 8)));
    };
    int64_t bk = 64;
    while (bk > 16 && smem(bk) > 48 * 1024)
      bk /= 2;
    w.body = geom + "  sc_attention_mma<" + elemKind(t) + ", " +
             std::to_string(nb) + ", " + lit(D) + ", " + lit(E) + ", " +
             lit(rw) + ", " + lit(bk) + ", " + (prefetch ? "true" : "false") +
             ", " + (m ? "true" : "false") + ", " +
             (causal ? "true" : "false") + ", " + (vec ? "true" : "false") +
             ">" + args;
    int64_t tiles = batch * ceilDiv(S, bq);
    w.finish(128, std::max<int64_t>(1, std::min(tiles, kMaxGrid)),
             what + "; tensor cores, " + std::to_string(bq) +
                 "-query tiles, " + std::to_string(bk) + "-key steps" +
                 (vec ? ", cp.async rows" : ""));
    return w.kernel;
  }

  // Tiles: the smallest that cover S and T, shrunk (keys first, down to
  // 16) until the static shared memory fits in 48 KiB.
  int64_t a = elemBytes(t) == 8 ? 8 : 4;
  auto bytes = [&](int64_t bq, int64_t bk) {
    return a * (bq * (D + 1) + bk * (D + 1) + bk * E + bq * (bk + 1) + 3 * bq);
  };
  int64_t BQ = 16, BK = 8;
  while (BQ < 64 && BQ < S)
    BQ *= 2;
  while (BK < 64 && BK < T)
    BK *= 2;
  while (bytes(BQ, BK) > 48 * 1024) {
    if (BK > 16)
      BK /= 2;
    else if (BQ > 16)
      BQ /= 2;
    else if (BK > 8)
      BK /= 2;
    else
      return w.unsupported("head dims " + Twine(D) + " and " + Twine(E) +
                           " do not fit the shared-memory tiles");
  }
  w.body = geom + "  sc_attention<" + elemKind(t) + ", " + std::to_string(nb) +
           ", " + lit(D) + ", " + lit(E) + ", " + lit(BQ) + ", " + lit(BK) +
           ", " + (m ? "true" : "false") + ", " + (causal ? "true" : "false") +
           ">" + args;
  int64_t tiles = batch * ceilDiv(S, BQ);
  w.finish(128, std::max<int64_t>(1, std::min(tiles, kMaxGrid)),
           what + "; " + std::to_string(BQ) + "-query tiles, " +
               std::to_string(BK) + "-key steps");
  return w.kernel;
}
