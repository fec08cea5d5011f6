//===- Moe.cpp - kern.moe_place, route, permute, grouped_matmul, combine --===//
//
// Prelude moe.cuh. The place is a thread per choice over the placement's
// tables, baked in as static arrays; the route is one block (its counting
// sort is stable, as the CPU's); the permute and combine a thread per word
// / element; the grouped GEMM 64x64 tiles of y over all P rows, each block
// finding its experts in the offsets at run time.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Cuda/Calls/CallWriter.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace shardc;
using namespace shardc::cuda;
using namespace shardc::cuda::calls;
using target::storageCType;

/// The route's shared offsets (4 bytes an expert) stay well inside the
/// 48 KiB of static shared memory.
constexpr int64_t kMaxRouteExperts = 4096;

/// `static __device__ const int32_t <name>[] = {...};`, 16 values a line.
static std::string staticTable(const std::string &name,
                               ArrayRef<int64_t> values) {
  std::string s = "static __device__ const int32_t " + name + "[] = {";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i % 16 ? ", " : (i ? ",\n  " : "\n  ")) + lit(v);
  return s + "};\n";
}

FailureOr<Kernel> calls::moePlace(kern::MoePlaceOp op, StringRef name) {
  CallWriter w(op, name);
  Value ids = op.getIds();
  ArrayRef<int64_t> is = shape(ids), copies = op.getCopies(),
                    table = op.getTable();
  int64_t total = product(is), experts = copies.size(),
          most = op.getMaxCopies();
  // The slots are i32 (the verifier bounds copies by max_copies).
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (llvm::any_of(table, [](int64_t s) { return s > kMax; }))
    return w.unsupported("a slot past 2^31 - 1");
  std::string what = "place " + std::to_string(total) + " choices of " +
                     std::to_string(experts) + " experts, up to " +
                     std::to_string(most) + " copies an expert";
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  w.decls = "// placement of " + w.name + ": copies of each expert; slots, " +
            std::to_string(most) + " an expert\n" +
            staticTable(w.name + "_copies", copies) +
            staticTable(w.name + "_table", table);
  std::string I = indexType(total);
  w.launchOver(total);
  w.body = "  sc_moe_place<" + storageCType(elem(ids)) + ", " + I + ">(" +
           w.param(op.getIdsMutable()) + ", " + w.name + "_copies, " + w.name +
           "_table, " + w.param(op.getSlotsMutable()) + ", " + lit(experts) +
           ", " + lit(most) + ", " + lit(is[1]) + ", " + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize, what);
  return w.kernel;
}

FailureOr<Kernel> calls::moeRoute(kern::MoeRouteOp op, StringRef name) {
  CallWriter w(op, name);
  Value ids = op.getIds();
  int64_t experts = op.getNumExperts(), p = product(shape(ids));
  if (experts > kMaxRouteExperts)
    return w.unsupported("more than " + std::to_string(kMaxRouteExperts) +
                         " experts");
  if (p > std::numeric_limits<int32_t>::max())
    return w.unsupported("more than 2^31 - 1 choices");
  // A warp per expert up to 32 warps; the block also runs the second pass
  // over the choices.
  int64_t block = std::clamp<int64_t>(32 * experts, 128, 1024);
  w.body = "  sc_moe_route<" + storageCType(elem(ids)) + ", " + lit(experts) +
           ">(" + w.param(op.getIdsMutable()) + ", " +
           w.param(op.getOffsetsMutable()) + ", " +
           w.param(op.getSlotsMutable()) + ", " + lit(p) + ");\n";
  // One block even for no choices: the offsets are still written.
  w.finish(block, 1,
           "route " + std::to_string(p) + " choices to " +
               std::to_string(experts) + " experts, one block");
  return w.kernel;
}

FailureOr<Kernel> calls::moePermute(kern::MoePermuteOp op, StringRef name) {
  CallWriter w(op, name);
  ArrayRef<int64_t> xs = shape(op.getX()), rs = shape(op.getRows());
  int64_t k = xs[0] ? rs[0] / xs[0] : 0;
  int64_t rowBytes = xs[1] * elemBytes(elem(op.getX()));
  int64_t wb = widestWord(rowBytes), row = rowBytes / wb;
  int64_t total = rs[0] * row;
  std::string what = "permute " + dimsText(xs) + " into " + dimsText(rs);
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  std::string word = wordType(wb), I = indexType(total);
  w.launchOver(total);
  w.body = "  // rows of " + std::to_string(rowBytes) + " bytes as " +
           std::to_string(row) + " words of " + std::to_string(wb) + "\n" +
           "  sc_moe_permute<" + word + ", " + I + ">(reinterpret_cast<const " +
           word + " *>(" + w.param(op.getXMutable()) + "), " +
           w.param(op.getSlotsMutable()) + ", reinterpret_cast<" + word +
           " *>(" + w.param(op.getRowsMutable()) + "), " + lit(k) + ", " +
           lit(row) + ", " + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize, what);
  return w.kernel;
}

FailureOr<Kernel> calls::groupedMatmul(kern::GroupedMatmulOp op,
                                       StringRef name) {
  CallWriter w(op, name);
  ArrayRef<int64_t> as = shape(op.getA()), bs = shape(op.getB());
  int64_t p = as[0], kd = as[1], experts = bs[0], n = bs[2];
  int64_t tiles = ceilDiv(p, 64) * ceilDiv(n, 64);
  std::string what =
      "grouped matmul " + dimsText(as) + " x " + dimsText(bs) + ", 64x64 tiles";
  w.body = "  sc_grouped_matmul<" + elemKind(elem(op.getA())) + ">(" +
           w.param(op.getAMutable()) + ", " + w.param(op.getBMutable()) + ", " +
           w.param(op.getOffsetsMutable()) + ", " + w.param(op.getYMutable()) +
           ", " + lit(experts) + ", " + lit(p) + ", " + lit(kd) + ", " +
           lit(n) + ");\n";
  w.finish(256, std::min(tiles, kMaxGrid), what);
  return w.kernel;
}

FailureOr<Kernel> calls::groupedBias(kern::GroupedBiasOp op, StringRef name) {
  CallWriter w(op, name);
  ArrayRef<int64_t> bs = shape(op.getBias()), ys = shape(op.getY());
  int64_t experts = bs[0], n = bs[1], total = ys[0] * n;
  std::string what = "grouped bias " + dimsText(bs) + " into " + dimsText(ys);
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  std::string I = indexType(total);
  w.launchOver(total);
  w.body = "  sc_grouped_bias<" + elemKind(elem(op.getBias())) + ", " + I +
           ">(" + w.param(op.getBiasMutable()) + ", " +
           w.param(op.getOffsetsMutable()) + ", " + w.param(op.getYMutable()) +
           ", " + lit(experts) + ", " + lit(n) + ", " + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize, what);
  return w.kernel;
}

FailureOr<Kernel> calls::moeCombine(kern::MoeCombineOp op, StringRef name) {
  CallWriter w(op, name);
  ArrayRef<int64_t> rs = shape(op.getRows()), ws = shape(op.getWeights());
  int64_t h = rs[1], k = ws[1], total = ws[0] * h;
  std::string what = "combine " + dimsText(rs) + " by " + dimsText(ws);
  if (total == 0) {
    w.finish(32, 0, what + " (empty)");
    return w.kernel;
  }
  std::string I = indexType(std::max({total, rs[0] * h, ws[0] * k}));
  w.launchOver(total);
  w.body = "  sc_moe_combine<" + elemKind(elem(op.getRows())) + ", " + I +
           ">(" + w.param(op.getRowsMutable()) + ", " +
           w.param(op.getWeightsMutable()) + ", " +
           w.param(op.getSlotsMutable()) + ", " + w.param(op.getYMutable()) +
           ", " + lit(k) + ", " + lit(h) + ", " + lit(total) + ");\n";
  w.finish(w.blockSize, w.gridSize, what);
  return w.kernel;
}
