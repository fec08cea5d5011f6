//===- shardc/format.h - plan and weights file formats ----------*- C++ -*-===//
//
// The binary formats shared by the compiler (writer) and the runtime (reader).
// Header-only, no dependencies beyond the C++ standard library. All integers
// are little-endian.
//
// Plan (embedded in the executable), version 4 (versions 1 to 3 still
// decode: they have none of the fields marked with a later version, which
// take their defaults):
//   char     magic[8] = "SHRDPLAN"
//   u32      version, world_size
//   u64      model_hash           (equal to the weights file's)
//   u32      targets              (mask: 1 = cpu code, 2 = cuda code)
//   u32      batch_items          (v3; reserved, 0, before: 0 when the
//                                  micro-batches split the batch evenly,
//                                  else the user's batch B, which they
//                                  split unevenly: micro-batch k holds
//                                  B / M items, one more for k < B % M,
//                                  padded to per = ceil(B / M) items, and
//                                  a batched tensor's dims[0] is per
//                                  items; only with microbatches > 1)
//   u32      microbatches         (v2; 1..65536, 1 in v1: how many
//   micro-batches
//                                  one run of the model pipelines; each call
//                                  of a rank's generated run() does one)
//   u32      num_dims             (v4; the dynamic dims, symbols 0.., at
//                                  most kMaxPlanDims; 0 for a static model)
//   per dim (v4):
//     u32    name_len; u8 name[name_len]
//     i64    max                  (its bound, 1..kMaxDimBound)
//     u32    min                  (v5; its least value, 0 or 1: 0 for a KV
//                                  cache's past length)
//     u32    num_parts            (v5; 0 for a dim the inputs give, else
//                                  2..kMaxPlanDims: the dim is the sum of
//                                  earlier dims that the inputs give, its
//                                  max and min the sums of theirs)
//     u32    parts[num_parts]     (v5)
//   per rank:
//     u64    arena_bytes, weights_bytes, weights_checksum
//     u32    num_handles, num_kernels, num_inputs, num_outputs
//     u32    stage                (v2; the rank's pipeline stage, 0 in v1)
//     per input, then per output:
//       u32  name_len; u8 name[name_len]
//       i32  dtype (ONNX code); u32 rank; i64 dims[rank]
//       u32  flags                (v2; bit 0 = batched: dims[0] is one
//                                  micro-batch's rows and the tensor the
//                                  user binds or reads has microbatches *
//                                  dims[0] rows, or dims[0] / per *
//                                  batch_items; other bits are 0)
//       u32  num_syms             (v4; 0 (every dim static) or rank)
//       i32  syms[num_syms]       (v4; -1 for a static dim, k for dynamic
//                                  dim k, whose dims[] entry is then its
//                                  max: buffers are sized for the bound)
//       i32  cache_of             (v5; -1, or for an input the output whose
//                                  buffer holds it: a KV cache's past, the
//                                  first entries along cache_axis of the
//                                  output, which is laid out at the
//                                  row-major strides of its bound dims)
//       u32  cache_axis           (v5; 0 when cache_of is -1)
//   u64      checksum             (checksum64 of every byte before it)
//
// Weights file, version 3 (version 2 had 32-byte table entries without the
// shared head; version 1 summed each section in one pass):
//   [0,64)   header: char magic[8] = "SHRDWGTS"; u32 version; u32 world_size;
//            u64 model_hash; u64 file_size; u64 table_offset (= 64);
//            u64 header_checksum (checksum64 of bytes [0,40) and the table);
//            zero padding
//   [64,..)  section table: world_size x {u64 offset, size, checksum,
//            shared_offset, shared_bytes, reserved}
//   then the extents the table points at. Rank r's section (`size` bytes)
//   is its shared head, the file's bytes [shared_offset, shared_offset +
//   shared_bytes), followed by its own tail, [offset, offset + size -
//   shared_bytes). Sections of ranks that run one program hold the weights
//   every rank reads alike in that head, and the file keeps one copy of it
//   for all of them (the tail is shared too where two ranks' sections are
//   the same bytes, as dp replicas' are). Without a head (shared_bytes 0,
//   shared_offset 0) a section is the one extent at `offset`. Every tensor
//   inside a section is 64-byte aligned.
//
// Details both sides rely on:
//   - the plan's world_size is the number of rank records (encodePlan writes
//     plan.ranks.size()); every dtype is a known ONNX code, every dim >= 0,
//     rank <= kMaxRank, names are at most kMaxNameBytes without control
//     characters, input names of a rank are unique, and every tensor's byte
//     size fits in 62 bits, also the user's size of a batched one (times
//     microbatches); a batched tensor has rank >= 1;
//   - dynamic dims (v4): a dim's name is at most kMaxNameBytes without
//     control characters; every dim is in some input of every rank (the
//     runtime learns its value from them); a batched tensor has none. A
//     tensor of the run holds, densely and row-major, its dims at the
//     run's values (TensorSig::withDims) at the start of its bound-sized
//     buffer;
//   - the weights header checksum is checksum64 over the 40 header bytes
//     followed by the world_size * 48 table bytes (one buffer, default seed);
//     header bytes [48,64) are zero, and so is each entry's reserved field;
//   - extents are 64-byte aligned; a section with a head has its head's
//     offset and length and its tail's offset aligned to kShareAlign (so a
//     loader can map head and tail next to each other); two extents are
//     the same (offset and length) or do not overlap, none begins before
//     alignUp(64 + world_size * 48), every gap between them is zero, and
//     file_size is the end of the last one (no trailing padding), or the
//     padded table end if there is none;
//   - a section's table checksum is sectionChecksum of its bytes (checksum64
//     of each 16 MiB chunk, then checksum64 of those sums as little-endian
//     u64s) and equals the plan's weights_checksum for that rank, as its
//     size equals weights_bytes.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FORMAT_H
#define SHARDC_FORMAT_H

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace shardc::format {

constexpr char kPlanMagic[8] = {'S', 'H', 'R', 'D', 'P', 'L', 'A', 'N'};
constexpr char kWeightsMagic[8] = {'S', 'H', 'R', 'D', 'W', 'G', 'T', 'S'};
constexpr uint32_t kPlanVersion = 5;
/// The oldest plan version the decoder still reads.
constexpr uint32_t kPlanVersionMin = 1;
constexpr uint32_t kWeightsVersion = 3;
constexpr uint32_t kTargetCpu = 1;  // target mask bits
constexpr uint32_t kTargetCuda = 2;
constexpr uint64_t kAlign = 64;
constexpr uint64_t kWeightsHeaderBytes = 64;
constexpr uint64_t kSectionEntryBytes = 48;
/// Alignment of a shared head and of the tail that follows it (a multiple of
/// the page size on Linux's 4 KiB and 64 KiB page systems).
constexpr uint64_t kShareAlign = uint64_t(64) << 10;
constexpr uint32_t kMaxRank = 8;

inline uint64_t alignUp(uint64_t v, uint64_t a = kAlign) {
  return (v + a - 1) / a * a;
}

/// A fast 64-bit checksum (four multiply-rotate lanes over 32-byte blocks).
/// Not cryptographic: it catches truncation, bit flips and mixed-up files.
/// Checksum64 computes it over data given in pieces of any sizes (the
/// weights writer streams a section from many buffers); checksum64 is the
/// one-buffer form. Both give the same value for the same bytes.
class Checksum64 {
public:
  explicit Checksum64(uint64_t seed = 0x9E3779B97F4A7C15ull)
      : a(seed + k1 + k2), b(seed + k2), c(seed), d(seed - k1) {}

  void update(const void *data, size_t n) {
    if (n == 0)
      return;
    const unsigned char *p = static_cast<const unsigned char *>(data);
    total += n;
    if (pending) { // complete the partial block first
      size_t take = n < 32 - pending ? n : 32 - pending;
      std::memcpy(buf + pending, p, take);
      pending += take;
      p += take;
      n -= take;
      if (pending < 32)
        return;
      blocks(buf, 32);
      pending = 0;
    }
    size_t whole = n / 32 * 32;
    blocks(p, whole);
    if (n > whole)
      std::memcpy(buf, p + whole, n - whole);
    pending = n - whole;
  }

  /// The checksum of every byte given so far.
  uint64_t finish() const {
    uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
    h ^= static_cast<uint64_t>(total) * k1;
    size_t i = 0;
    for (; i + 8 <= pending; i += 8) {
      uint64_t w;
      std::memcpy(&w, buf + i, 8);
      h = rotl(h ^ round(0, w), 27) * k1 + k2;
    }
    for (; i < pending; ++i)
      h = rotl(h ^ (buf[i] * k1), 11) * k2;
    h ^= h >> 33;
    h *= k2;
    h ^= h >> 29;
    return h;
  }

private:
  static constexpr uint64_t k1 = 0x9E3779B185EBCA87ull,
                            k2 = 0xC2B2AE3D27D4EB4Full;
  static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  static uint64_t round(uint64_t acc, uint64_t w) {
    return rotl(acc + w * k2, 31) * k1;
  }
  /// Folds n (a multiple of 32) bytes into the lanes, kept in locals so
  /// that the bytes, which may alias anything, do not force them to memory.
  void blocks(const unsigned char *p, size_t n) {
    uint64_t la = a, lb = b, lc = c, ld = d;
    for (size_t i = 0; i < n; i += 32) {
      uint64_t w[4];
      std::memcpy(w, p + i, 32);
      la = round(la, w[0]);
      lb = round(lb, w[1]);
      lc = round(lc, w[2]);
      ld = round(ld, w[3]);
    }
    a = la, b = lb, c = lc, d = ld;
  }
  uint64_t a, b, c, d;
  uint64_t total = 0;
  unsigned char buf[32];
  size_t pending = 0;
};

inline uint64_t checksum64(const void *data, size_t n,
                           uint64_t seed = 0x9E3779B97F4A7C15ull) {
  Checksum64 sum(seed);
  sum.update(data, n);
  return sum.finish();
}

//===----------------------------------------------------------------------===//
// Element types (ONNX TensorProto.DataType codes)
//===----------------------------------------------------------------------===//

/// ONNX TensorProto.DataType codes of the element types the runtime knows
/// (in a namespace of their own so users can import just these names).
namespace dtypes {
enum DType : int32_t {
  kF32 = 1,
  kU8 = 2,
  kI8 = 3,
  kU16 = 4,
  kI16 = 5,
  kI32 = 6,
  kI64 = 7,
  kBool = 9,
  kF16 = 10,
  kF64 = 11,
  kU32 = 12,
  kU64 = 13,
  kBF16 = 16,
};
} // namespace dtypes
using namespace dtypes;

/// Size in bytes of one element of an ONNX dtype, or 0 if the runtime does
/// not know it.
inline size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case kU8:
  case kI8:
  case kBool:
    return 1;
  case kU16:
  case kI16:
  case kF16:
  case kBF16:
    return 2;
  case kF32:
  case kI32:
  case kU32:
    return 4;
  case kI64:
  case kU64:
  case kF64:
    return 8;
  default:
    return 0;
  }
}

inline const char *dtypeName(int32_t dtype) {
  switch (dtype) {
  case kF32:
    return "float32";
  case kU8:
    return "uint8";
  case kI8:
    return "int8";
  case kU16:
    return "uint16";
  case kI16:
    return "int16";
  case kI32:
    return "int32";
  case kI64:
    return "int64";
  case kBool:
    return "bool";
  case kF16:
    return "float16";
  case kF64:
    return "float64";
  case kU32:
    return "uint32";
  case kU64:
    return "uint64";
  case kBF16:
    return "bfloat16";
  default:
    return "unknown";
  }
}

/// "float32 [1,3,224,224]" ("int64 []" for a scalar).
inline std::string formatSig(int32_t dtype, const int64_t *dims, size_t rank) {
  std::string s = dtypeName(dtype);
  s += " [";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      s += ',';
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

constexpr uint32_t kMaxNameBytes = 4096;
constexpr uint32_t kMaxHandles = 1u << 24;
constexpr uint32_t kMaxWorldSize = 1u << 16;
/// Largest byte size of one tensor (and element count) a plan may state.
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 62;
/// Most micro-batches a plan may pipeline per run.
constexpr uint32_t kMaxMicrobatches = 1u << 16;
/// TensorSig flags (plan v2).
constexpr uint32_t kSigBatched = 1;
/// Most dynamic dims a plan may have (v4), and the largest bound of one.
constexpr uint32_t kMaxPlanDims = 64;
constexpr int64_t kMaxDimBound = int64_t(1) << 40;

/// The items each micro-batch's program holds when `microbatches` split a
/// batch of `items` unevenly: ceil(items / microbatches).
inline int64_t itemsPerMicrobatch(uint32_t items, uint32_t microbatches) {
  return (static_cast<int64_t>(items) + microbatches - 1) / microbatches;
}

/// Micro-batch k's real items of `items` over `microbatches`: B / M, one
/// more for the first B % M; returns {first item, count}.
inline std::pair<int64_t, int64_t> microbatchShare(uint32_t items,
                                                   uint32_t microbatches,
                                                   uint32_t k) {
  int64_t base = items / microbatches, extra = items % microbatches;
  int64_t kk = k;
  return {kk * base + std::min(kk, extra), base + (kk < extra ? 1 : 0)};
}

/// A dynamic dim of the model (plan v4): symbol k of the generated code
/// (sc_rank_ctx::dims[k]), whose value in a run is within [min, max]; or
/// (v5, `parts` not empty) the sum of the dims `parts`, which the inputs
/// give (a KV cache's "past + sequence").
struct PlanDim {
  std::string name;
  int64_t max = 1;
  int64_t min = 1;
  std::vector<uint32_t> parts;
};

/// "float32 [batch<=4,seq<=64,768]": formatSig with each dim i that is the
/// dynamic dim syms[i] >= 0 of `planDims` (an empty `syms`: none) shown as
/// its name and bound.
inline std::string formatSig(int32_t dtype, const int64_t *dims, size_t rank,
                             const std::vector<int32_t> &syms,
                             const std::vector<PlanDim> &planDims) {
  std::string s = dtypeName(dtype);
  s += " [";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      s += ',';
    int32_t k = i < syms.size() ? syms[i] : -1;
    if (k >= 0 && static_cast<size_t>(k) < planDims.size())
      s += planDims[k].name + "<=" + std::to_string(planDims[k].max);
    else
      s += std::to_string(dims[i]);
  }
  return s + "]";
}

struct TensorSig {
  std::string name;
  int32_t dtype = 0;
  /// The dims; a dynamic dim's entry is its bound (Plan::dims[k].max).
  std::vector<int64_t> dims;
  /// dims[0] is one micro-batch's rows; the user's tensor has
  /// Plan::microbatches times as many (userSig).
  bool batched = false;
  /// Plan v4: empty when every dim is static, else one entry per dim: -1
  /// for a static dim, k >= 0 for the plan's dynamic dim k.
  std::vector<int32_t> syms;
  /// Plan v5, inputs: the output whose buffer holds this input (a KV
  /// cache's past, its first entries along `cacheAxis`), or -1.
  int32_t cacheOf = -1;
  uint32_t cacheAxis = 0;

  /// The dynamic dim that dim `i` is, or -1.
  int32_t sym(size_t i) const { return i < syms.size() ? syms[i] : -1; }
  /// Whether any dim is dynamic.
  bool dynamic() const {
    for (int32_t k : syms)
      if (k >= 0)
        return true;
    return false;
  }
  /// The signature of a run in which dynamic dim k is `values[k]` (every
  /// dynamic dim must have one): its dims at those values.
  TensorSig withDims(const std::vector<int64_t> &values) const {
    TensorSig s = *this;
    for (size_t i = 0; i < s.dims.size(); ++i)
      if (int32_t k = sym(i); k >= 0)
        s.dims[i] = values[static_cast<size_t>(k)];
    return s;
  }

  uint64_t numElements() const {
    uint64_t n = 1;
    for (int64_t d : dims)
      n *= static_cast<uint64_t>(d);
    return n;
  }
  uint64_t bytes() const { return numElements() * dtypeSize(dtype); }
  /// "float32 [1,128,768]" (dynamic dims at their bounds).
  std::string str() const { return formatSig(dtype, dims.data(), dims.size()); }
  /// "float32 [batch<=4,seq<=64,768]": dynamic dims by name and bound.
  std::string str(const std::vector<PlanDim> &planDims) const {
    return formatSig(dtype, dims.data(), dims.size(), syms, planDims);
  }
  /// The tensor the user binds or reads when a run pipelines
  /// `microbatches` micro-batches: dims[0] scaled for a batched one (to
  /// `batchItems` items of dims[0] / per rows each when they split the
  /// batch unevenly, see Plan::batchItems).
  TensorSig userSig(uint32_t microbatches, uint32_t batchItems = 0) const {
    TensorSig s = *this;
    if (batched && !s.dims.empty()) {
      if (batchItems)
        s.dims[0] = s.dims[0] / itemsPerMicrobatch(batchItems, microbatches) *
                    static_cast<int64_t>(batchItems);
      else
        s.dims[0] *= static_cast<int64_t>(microbatches);
    }
    return s;
  }
};

struct RankPlan {
  uint64_t arenaBytes = 0, weightsBytes = 0, weightsChecksum = 0;
  uint32_t numHandles = 0, numKernels = 0;
  /// The rank's pipeline stage (trace labels, --info).
  uint32_t stage = 0;
  std::vector<TensorSig> inputs, outputs;
};

struct Plan {
  uint32_t version = kPlanVersion, worldSize = 1;
  uint64_t modelHash = 0;
  uint32_t target = kTargetCpu;
  /// Micro-batches per run (the runtime calls each rank's run() this many
  /// times per shardc_run).
  uint32_t microbatches = 1;
  /// 0, or the batch B the micro-batches split unevenly (v3): the user's
  /// batched tensors have B items, micro-batch k holds microbatchShare's
  /// and its program itemsPerMicrobatch (the rest copies of its last).
  uint32_t batchItems = 0;
  /// The dynamic dims (v4), symbol k at index k; empty for a static model.
  std::vector<PlanDim> dims;
  std::vector<RankPlan> ranks;

  /// Every dynamic dim at its bound (the values a plan's dims[] hold).
  std::vector<int64_t> dimBounds() const {
    std::vector<int64_t> v;
    for (const PlanDim &d : dims)
      v.push_back(d.max);
    return v;
  }
};

namespace detail {

inline uint32_t loadU32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

inline uint64_t loadU64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

inline void storeU32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}

inline void storeU64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}

struct Writer {
  std::vector<uint8_t> buf;
  void bytes(const void *p, size_t n) {
    const uint8_t *c = static_cast<const uint8_t *>(p);
    buf.insert(buf.end(), c, c + n);
  }
  void u32(uint32_t v) {
    uint8_t b[4];
    storeU32(b, v);
    bytes(b, 4);
  }
  void u64(uint64_t v) {
    uint8_t b[8];
    storeU64(b, v);
    bytes(b, 8);
  }
};

/// Bounds-checked little-endian reads; every read fails instead of running
/// past the end.
struct Reader {
  const uint8_t *p;
  size_t n, pos = 0;
  Reader(const uint8_t *p, size_t n) : p(p), n(n) {}
  size_t remaining() const { return n - pos; }
  bool u32(uint32_t &v) {
    if (remaining() < 4)
      return false;
    v = loadU32(p + pos);
    pos += 4;
    return true;
  }
  bool u64(uint64_t &v) {
    if (remaining() < 8)
      return false;
    v = loadU64(p + pos);
    pos += 8;
    return true;
  }
  bool bytes(size_t len, const uint8_t *&out) {
    if (remaining() < len)
      return false;
    out = p + pos;
    pos += len;
    return true;
  }
};

inline std::string hex64(uint64_t v) {
  char buf[19] = "0x";
  const char *digits = "0123456789abcdef";
  for (int i = 0; i < 16; ++i)
    buf[2 + i] = digits[(v >> (60 - 4 * i)) & 15];
  buf[18] = 0;
  return buf;
}

/// Reads one signature of a plan of `version` whose runs pipeline
/// `microbatches` micro-batches and whose dynamic dims are `planDims`.
inline bool readSig(Reader &r, TensorSig &sig, std::string &error,
                    uint32_t version, uint32_t microbatches,
                    uint32_t batchItems, const std::vector<PlanDim> &planDims) {
  uint32_t nameLen = 0, rank = 0, dtype = 0;
  const uint8_t *name = nullptr;
  if (!r.u32(nameLen) || nameLen > kMaxNameBytes || !r.bytes(nameLen, name)) {
    error = "plan is corrupt (bad tensor name length)";
    return false;
  }
  sig.name.assign(reinterpret_cast<const char *>(name), nameLen);
  for (char c : sig.name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      error = "plan is corrupt (a tensor name has control characters)";
      return false;
    }
  if (!r.u32(dtype) || !r.u32(rank)) {
    error = "plan is corrupt (truncated signature of '" + sig.name + "')";
    return false;
  }
  sig.dtype = static_cast<int32_t>(dtype);
  if (dtypeSize(sig.dtype) == 0) {
    error = "plan is corrupt (tensor '" + sig.name + "' has unknown dtype " +
            std::to_string(sig.dtype) + ")";
    return false;
  }
  if (rank > kMaxRank) {
    error = "plan is corrupt (tensor '" + sig.name + "' has rank " +
            std::to_string(rank) + ", at most " + std::to_string(kMaxRank) +
            ")";
    return false;
  }
  sig.dims.assign(rank, 0);
  uint64_t count = 1;
  for (uint32_t i = 0; i < rank; ++i) {
    uint64_t d = 0;
    if (!r.u64(d) || static_cast<int64_t>(d) < 0) {
      error = "plan is corrupt (bad dims of tensor '" + sig.name + "')";
      return false;
    }
    sig.dims[i] = static_cast<int64_t>(d);
    if (d != 0 && count > kMaxTensorBytes / d) {
      error = "plan is corrupt (tensor '" + sig.name + "' is too large)";
      return false;
    }
    count *= d;
  }
  if (count > kMaxTensorBytes / dtypeSize(sig.dtype)) {
    error = "plan is corrupt (tensor '" + sig.name + "' is too large)";
    return false;
  }
  if (version < 2)
    return true;
  uint32_t flags = 0;
  if (!r.u32(flags)) {
    error = "plan is corrupt (truncated signature of '" + sig.name + "')";
    return false;
  }
  if (flags & ~kSigBatched) {
    error = "plan is corrupt (tensor '" + sig.name + "' has unknown flags " +
            std::to_string(flags) + ")";
    return false;
  }
  sig.batched = flags & kSigBatched;
  if (sig.batched && rank == 0) {
    error = "plan is corrupt (scalar tensor '" + sig.name + "' is batched)";
    return false;
  }
  // The user's tensor has microbatches times dims[0] rows: that product
  // must fit too (a zero-sized dim elsewhere keeps `count` at 0).
  if (sig.batched &&
      (count > kMaxTensorBytes / dtypeSize(sig.dtype) / microbatches ||
       static_cast<uint64_t>(sig.dims[0]) >
           static_cast<uint64_t>(INT64_MAX) / microbatches)) {
    error = "plan is corrupt (tensor '" + sig.name + "' is too large for " +
            std::to_string(microbatches) + " micro-batches)";
    return false;
  }
  if (sig.batched && batchItems &&
      sig.dims[0] % itemsPerMicrobatch(batchItems, microbatches) != 0) {
    error = "plan is corrupt (tensor '" + sig.name + "' has " +
            std::to_string(sig.dims[0]) + " rows for " +
            std::to_string(itemsPerMicrobatch(batchItems, microbatches)) +
            " items per micro-batch)";
    return false;
  }
  if (version < 4)
    return true;
  uint32_t numSyms = 0;
  if (!r.u32(numSyms)) {
    error = "plan is corrupt (truncated signature of '" + sig.name + "')";
    return false;
  }
  if (numSyms != 0 && numSyms != rank) {
    error = "plan is corrupt (tensor '" + sig.name + "' has " +
            std::to_string(numSyms) + " dynamic dim entries for rank " +
            std::to_string(rank) + ")";
    return false;
  }
  sig.syms.assign(numSyms, -1);
  for (uint32_t i = 0; i < numSyms; ++i) {
    uint32_t k = 0;
    if (!r.u32(k)) {
      error = "plan is corrupt (truncated signature of '" + sig.name + "')";
      return false;
    }
    sig.syms[i] = static_cast<int32_t>(k);
    if (sig.syms[i] < -1 ||
        (sig.syms[i] >= 0 && static_cast<size_t>(k) >= planDims.size())) {
      error = "plan is corrupt (tensor '" + sig.name + "' dim " +
              std::to_string(i) + " is dynamic dim " +
              std::to_string(sig.syms[i]) + " of " +
              std::to_string(planDims.size()) + ")";
      return false;
    }
    if (sig.syms[i] >= 0 && sig.dims[i] != planDims[k].max) {
      error = "plan is corrupt (tensor '" + sig.name + "' dim " +
              std::to_string(i) + " is " + std::to_string(sig.dims[i]) +
              " but its dynamic dim '" + planDims[k].name + "' is bounded by " +
              std::to_string(planDims[k].max) + ")";
      return false;
    }
  }
  if (sig.batched && sig.dynamic()) {
    error =
        "plan is corrupt (batched tensor '" + sig.name + "' has dynamic dims)";
    return false;
  }
  if (version >= 5) {
    uint32_t of = 0;
    if (!r.u32(of) || !r.u32(sig.cacheAxis)) {
      error = "plan is corrupt (truncated signature of '" + sig.name + "')";
      return false;
    }
    sig.cacheOf = static_cast<int32_t>(of);
    if (sig.cacheOf < -1 || (sig.cacheOf == -1 && sig.cacheAxis != 0)) {
      error = "plan is corrupt (tensor '" + sig.name + "' has a bad cache)";
      return false;
    }
  }
  return true;
}

/// A KV cache input `in` held by output `out` (plan v5): the same type and
/// dims but along the axis, where the input is a dim the inputs give with a
/// least value of 0 and the output the sum of it and others.
inline bool checkCache(const TensorSig &in, const TensorSig &out,
                       const std::vector<PlanDim> &planDims) {
  size_t a = in.cacheAxis;
  if (in.dtype != out.dtype || in.dims.size() != out.dims.size() ||
      a >= in.dims.size() || in.batched || out.batched)
    return false;
  for (size_t d = 0; d < in.dims.size(); ++d)
    if (d != a && (in.dims[d] != out.dims[d] || in.sym(d) != out.sym(d)))
      return false;
  int32_t p = in.sym(a), t = out.sym(a);
  if (p < 0 || t < 0)
    return false;
  const PlanDim &past = planDims[p], &total = planDims[t];
  return past.parts.empty() && past.min == 0 &&
         std::count(total.parts.begin(), total.parts.end(),
                    static_cast<uint32_t>(p)) == 1;
}

/// Reads a name of at most kMaxNameBytes without control characters; false
/// with "plan is corrupt (bad <what> name length)" or "(a <what> name has
/// control characters)".
inline bool readName(Reader &r, std::string &name, const char *what,
                     std::string &error) {
  uint32_t len = 0;
  const uint8_t *bytes = nullptr;
  if (!r.u32(len) || len > kMaxNameBytes || !r.bytes(len, bytes)) {
    error = std::string("plan is corrupt (bad ") + what + " name length)";
    return false;
  }
  name.assign(reinterpret_cast<const char *>(bytes), len);
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      error = std::string("plan is corrupt (a ") + what +
              " name has control characters)";
      return false;
    }
  return true;
}

/// Reads the dynamic dims table of a v4 plan.
inline bool readDims(Reader &r, std::vector<PlanDim> &dims, uint32_t version,
                     std::string &error) {
  uint32_t n = 0;
  if (!r.u32(n)) {
    error = "plan is corrupt (truncated dynamic dims)";
    return false;
  }
  if (n > kMaxPlanDims) {
    error = "plan is corrupt (" + std::to_string(n) +
            " dynamic dims, at most " + std::to_string(kMaxPlanDims) + ")";
    return false;
  }
  dims.resize(n);
  for (uint32_t k = 0; k < n; ++k) {
    PlanDim &d = dims[k];
    uint64_t max = 0;
    if (!readName(r, d.name, "dynamic dim", error))
      return false;
    if (!r.u64(max)) {
      error = "plan is corrupt (truncated dynamic dim '" + d.name + "')";
      return false;
    }
    d.max = static_cast<int64_t>(max);
    if (d.max < 1 || d.max > kMaxDimBound) {
      error = "plan is corrupt (dynamic dim '" + d.name + "' has bound " +
              std::to_string(d.max) + ", expected 1 to " +
              std::to_string(kMaxDimBound) + ")";
      return false;
    }
    for (uint32_t j = 0; j < k; ++j)
      if (dims[j].name == d.name) {
        error = "plan is corrupt (duplicate dynamic dim '" + d.name + "')";
        return false;
      }
    if (version < 5)
      continue;
    uint32_t min = 0, numParts = 0;
    if (!r.u32(min) || !r.u32(numParts) || min > 1 || numParts == 1 ||
        numParts > k) {
      error = "plan is corrupt (dynamic dim '" + d.name +
              "' has a bad least value or parts)";
      return false;
    }
    d.min = min;
    int64_t sum = 0, least = 0;
    for (uint32_t j = 0; j < numParts; ++j) {
      uint32_t part = 0;
      if (!r.u32(part) || part >= k || !dims[part].parts.empty() ||
          std::count(d.parts.begin(), d.parts.end(), part)) {
        error = "plan is corrupt (dynamic dim '" + d.name + "' has a bad part)";
        return false;
      }
      d.parts.push_back(part);
      sum += dims[part].max;
      least += dims[part].min;
    }
    if (numParts && (d.max != sum || d.min != std::min<int64_t>(least, 1))) {
      error = "plan is corrupt (dynamic dim '" + d.name +
              "' is not bounded by the sum of its parts)";
      return false;
    }
  }
  return true;
}

inline void writeSig(Writer &w, const TensorSig &sig, uint32_t version) {
  w.u32(static_cast<uint32_t>(sig.name.size()));
  w.bytes(sig.name.data(), sig.name.size());
  w.u32(static_cast<uint32_t>(sig.dtype));
  w.u32(static_cast<uint32_t>(sig.dims.size()));
  for (int64_t d : sig.dims)
    w.u64(static_cast<uint64_t>(d));
  if (version >= 2)
    w.u32(sig.batched ? kSigBatched : 0);
  if (version >= 4) {
    w.u32(static_cast<uint32_t>(sig.syms.size()));
    for (int32_t k : sig.syms)
      w.u32(static_cast<uint32_t>(k));
  }
  if (version >= 5) {
    w.u32(static_cast<uint32_t>(sig.cacheOf));
    w.u32(sig.cacheAxis);
  }
}

} // namespace detail

/// Serializes `plan`; the world size written is plan.ranks.size(). A plan
/// is written in the layout of its version: without the fields of later
/// versions (v2: microbatches, stage, flags; v3: batch_items; v4: the
/// dynamic dims and each signature's syms), which are then dropped.
inline std::vector<uint8_t> encodePlan(const Plan &plan) {
  const bool v2 = plan.version != 1;
  detail::Writer w;
  w.bytes(kPlanMagic, 8);
  w.u32(plan.version);
  w.u32(static_cast<uint32_t>(plan.ranks.size()));
  w.u64(plan.modelHash);
  w.u32(plan.target);
  w.u32(plan.version >= 3 ? plan.batchItems : 0);
  if (v2)
    w.u32(plan.microbatches);
  if (plan.version >= 4) {
    w.u32(static_cast<uint32_t>(plan.dims.size()));
    for (const PlanDim &d : plan.dims) {
      w.u32(static_cast<uint32_t>(d.name.size()));
      w.bytes(d.name.data(), d.name.size());
      w.u64(static_cast<uint64_t>(d.max));
      if (plan.version >= 5) {
        w.u32(static_cast<uint32_t>(d.min));
        w.u32(static_cast<uint32_t>(d.parts.size()));
        for (uint32_t k : d.parts)
          w.u32(k);
      }
    }
  }
  for (const RankPlan &r : plan.ranks) {
    w.u64(r.arenaBytes);
    w.u64(r.weightsBytes);
    w.u64(r.weightsChecksum);
    w.u32(r.numHandles);
    w.u32(r.numKernels);
    w.u32(static_cast<uint32_t>(r.inputs.size()));
    w.u32(static_cast<uint32_t>(r.outputs.size()));
    if (v2)
      w.u32(r.stage);
    for (const TensorSig &s : r.inputs)
      detail::writeSig(w, s, plan.version);
    for (const TensorSig &s : r.outputs)
      detail::writeSig(w, s, plan.version);
  }
  w.u64(checksum64(w.buf.data(), w.buf.size()));
  return std::move(w.buf);
}

/// Parses and checks a plan (version 4, or 1 to 3 with the later fields
/// at their defaults). On failure returns false with a one-line `error` and
/// leaves `out` unchanged.
inline bool decodePlan(const void *data, size_t size, Plan &out,
                       std::string &error) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  if (!p && size)
    size = 0;
  if (size < 8) {
    error = "plan is truncated (" + std::to_string(size) + " bytes)";
    return false;
  }
  if (std::memcmp(p, kPlanMagic, 8) != 0) {
    error = "not a shardc plan (bad magic)";
    return false;
  }
  if (size < 12) {
    error = "plan is truncated (" + std::to_string(size) + " bytes)";
    return false;
  }
  uint32_t version = detail::loadU32(p + 8);
  if (version < kPlanVersionMin || version > kPlanVersion) {
    error = "plan version " + std::to_string(version) +
            ", this runtime reads " + std::to_string(kPlanVersionMin) +
            " to " + std::to_string(kPlanVersion);
    return false;
  }
  const bool v2 = version >= 2, v4 = version >= 4;
  // v4 adds num_dims to the header and num_syms to each signature.
  const size_t kHeader = (v2 ? 36 : 32) + (v4 ? 4 : 0),
               kRankRecord = v2 ? 44 : 40,
               kMinSig = (v2 ? 16 : 12) + (v4 ? 4 : 0) + (version >= 5 ? 8 : 0);
  if (size < kHeader + 8) {
    error = "plan is truncated (" + std::to_string(size) + " bytes)";
    return false;
  }
  if (checksum64(p, size - 8) != detail::loadU64(p + size - 8)) {
    error = "plan is corrupt or truncated (checksum mismatch)";
    return false;
  }

  Plan plan;
  detail::Reader r(p, size - 8);
  r.pos = 8;
  uint32_t batchItems = 0;
  r.u32(plan.version);
  r.u32(plan.worldSize);
  r.u64(plan.modelHash);
  r.u32(plan.target);
  r.u32(batchItems);
  if (version < 3 && batchItems != 0) {
    error = "plan is corrupt (reserved header field is not 0)";
    return false;
  }
  if (v2) {
    r.u32(plan.microbatches);
    if (plan.microbatches == 0 || plan.microbatches > kMaxMicrobatches) {
      error = "plan is corrupt (" + std::to_string(plan.microbatches) +
              " micro-batches, expected 1 to " +
              std::to_string(kMaxMicrobatches) + ")";
      return false;
    }
  }
  // An uneven split needs micro-batches, and at least one item.
  if (batchItems != 0 && plan.microbatches < 2) {
    error = "plan is corrupt (a batch of " + std::to_string(batchItems) +
            " items without micro-batches)";
    return false;
  }
  plan.batchItems = batchItems;
  if (v4 && !detail::readDims(r, plan.dims, version, error))
    return false;
  if (plan.worldSize == 0 || plan.worldSize > kMaxWorldSize ||
      plan.worldSize > r.remaining() / kRankRecord) {
    error =
        "plan is corrupt (world size " + std::to_string(plan.worldSize) + ")";
    return false;
  }
  plan.ranks.resize(plan.worldSize);
  for (uint32_t i = 0; i < plan.worldSize; ++i) {
    RankPlan &rank = plan.ranks[i];
    uint32_t numInputs = 0, numOutputs = 0;
    if (!r.u64(rank.arenaBytes) || !r.u64(rank.weightsBytes) ||
        !r.u64(rank.weightsChecksum) || !r.u32(rank.numHandles) ||
        !r.u32(rank.numKernels) || !r.u32(numInputs) || !r.u32(numOutputs) ||
        (v2 && !r.u32(rank.stage))) {
      error = "plan is corrupt (truncated rank " + std::to_string(i) + ")";
      return false;
    }
    if (rank.numHandles > kMaxHandles) {
      error = "plan is corrupt (rank " + std::to_string(i) + " has " +
              std::to_string(rank.numHandles) + " handles)";
      return false;
    }
    if (rank.stage >= plan.worldSize) {
      error = "plan is corrupt (rank " + std::to_string(i) + " is in stage " +
              std::to_string(rank.stage) + " of a " +
              std::to_string(plan.worldSize) + "-rank world)";
      return false;
    }
    if (numInputs > r.remaining() / kMinSig ||
        numOutputs > r.remaining() / kMinSig ||
        numInputs + uint64_t(numOutputs) > r.remaining() / kMinSig) {
      error = "plan is corrupt (rank " + std::to_string(i) +
              " has too many inputs or outputs)";
      return false;
    }
    rank.inputs.resize(numInputs);
    rank.outputs.resize(numOutputs);
    for (TensorSig &s : rank.inputs)
      if (!detail::readSig(r, s, error, version, plan.microbatches,
                           plan.batchItems, plan.dims))
        return false;
    for (TensorSig &s : rank.outputs)
      if (!detail::readSig(r, s, error, version, plan.microbatches,
                           plan.batchItems, plan.dims))
        return false;
    for (size_t a = 0; a < rank.inputs.size(); ++a)
      for (size_t b = a + 1; b < rank.inputs.size(); ++b)
        if (rank.inputs[a].name == rank.inputs[b].name) {
          error =
              "plan is corrupt (duplicate input '" + rank.inputs[a].name + "')";
          return false;
        }
    for (const TensorSig &s : rank.outputs)
      if (s.cacheOf != -1) {
        error = "plan is corrupt (output '" + s.name + "' has a cache)";
        return false;
      }
    for (const TensorSig &s : rank.inputs)
      if (s.cacheOf != -1 &&
          (static_cast<size_t>(s.cacheOf) >= rank.outputs.size() ||
           !detail::checkCache(s, rank.outputs[s.cacheOf], plan.dims))) {
        error = "plan is corrupt (input '" + s.name +
                "' is not a cache its output can hold)";
        return false;
      }
    // The runtime learns each dynamic dim's value from the inputs (a sum's
    // from its parts).
    std::vector<bool> given(plan.dims.size(), false);
    for (const TensorSig &s : rank.inputs)
      for (int32_t k : s.syms)
        if (k >= 0)
          given[static_cast<size_t>(k)] = true;
    for (size_t k = 0; k < given.size(); ++k)
      if (!given[k] && plan.dims[k].parts.empty()) {
        error = "plan is corrupt (dynamic dim '" + plan.dims[k].name +
                "' is in no input of rank " + std::to_string(i) + ")";
        return false;
      }
  }
  if (r.remaining() != 0) {
    error = "plan is corrupt (" + std::to_string(r.remaining()) +
            " unexpected trailing bytes)";
    return false;
  }
  out = std::move(plan);
  return true;
}

//===----------------------------------------------------------------------===//
// Weights file
//===----------------------------------------------------------------------===//

/// A rank's entry in the weights file's section table.
struct SectionEntry {
  uint64_t offset = 0;       ///< where its own tail starts
  uint64_t size = 0;         ///< the section's bytes, its head included
  uint64_t checksum = 0;     ///< sectionChecksum of the section's bytes
  uint64_t sharedOffset = 0; ///< where its shared head starts (0: no head)
  uint64_t sharedBytes = 0;  ///< the head's length (0: no head)
  uint64_t tailBytes() const { return size - sharedBytes; }
};

/// Where the first extent may begin: the padded end of the section table.
inline uint64_t weightsDataOffset(uint64_t worldSize) {
  return alignUp(kWeightsHeaderBytes + worldSize * kSectionEntryBytes);
}

/// Builds the header and section table (zero-padded to a multiple of 64)
/// of a file of `fileSize` bytes whose extents `entries` describe (one per
/// rank). The writer then writes the extents, zero-filling the gaps.
inline std::vector<uint8_t>
encodeWeightsHeader(uint64_t modelHash,
                    const std::vector<SectionEntry> &entries,
                    uint64_t fileSize) {
  const uint64_t n = entries.size();
  const uint64_t tableEnd = kWeightsHeaderBytes + n * kSectionEntryBytes;
  std::vector<uint8_t> buf(alignUp(tableEnd), 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t *e = buf.data() + kWeightsHeaderBytes + i * kSectionEntryBytes;
    detail::storeU64(e, entries[i].offset);
    detail::storeU64(e + 8, entries[i].size);
    detail::storeU64(e + 16, entries[i].checksum);
    detail::storeU64(e + 24, entries[i].sharedOffset);
    detail::storeU64(e + 32, entries[i].sharedBytes);
    detail::storeU64(e + 40, 0);
  }
  std::memcpy(buf.data(), kWeightsMagic, 8);
  detail::storeU32(buf.data() + 8, kWeightsVersion);
  detail::storeU32(buf.data() + 12, static_cast<uint32_t>(n));
  detail::storeU64(buf.data() + 16, modelHash);
  detail::storeU64(buf.data() + 24, fileSize);
  detail::storeU64(buf.data() + 32, kWeightsHeaderBytes);
  std::vector<uint8_t> summed(buf.begin(), buf.begin() + 40);
  summed.insert(summed.end(), buf.begin() + kWeightsHeaderBytes,
                buf.begin() + tableEnd);
  detail::storeU64(buf.data() + 40, checksum64(summed.data(), summed.size()));
  return buf;
}

/// The layout of sections without shared heads, one after another.
struct WeightsLayout {
  std::vector<uint64_t> offsets; ///< where section i starts (64-aligned)
  uint64_t fileSize = 0;         ///< total file size
};

/// Header and table for sections of `sizes` bytes with `checksums`, each
/// its own extent, in rank order: section i goes at layout.offsets[i].
inline std::vector<uint8_t>
encodeWeightsHeader(uint64_t modelHash, const std::vector<uint64_t> &sizes,
                    const std::vector<uint64_t> &checksums,
                    WeightsLayout &layout) {
  std::vector<SectionEntry> entries(sizes.size());
  uint64_t off = weightsDataOffset(sizes.size());
  layout.offsets.assign(sizes.size(), 0);
  layout.fileSize = off;
  for (size_t i = 0; i < sizes.size(); ++i) {
    entries[i].offset = layout.offsets[i] = off;
    entries[i].size = sizes[i];
    entries[i].checksum = i < checksums.size() ? checksums[i] : 0;
    layout.fileSize = off + sizes[i];
    off = alignUp(off + sizes[i]);
  }
  return encodeWeightsHeader(modelHash, entries, layout.fileSize);
}

namespace detail {
inline bool allZero(const uint8_t *p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (p[i])
      return false;
  return true;
}
} // namespace detail

/// A weights section is checksummed in chunks of this many bytes, each on
/// its own, so that the writer and the loader spread it over threads.
constexpr uint64_t kChecksumChunk = uint64_t(16) << 20;

/// The checksum of a weights section whose chunks (kChecksumChunk bytes,
/// the last one shorter) have checksum64s `sums`: checksum64 of the sums
/// as little-endian u64s.
inline uint64_t combineChunkSums(const std::vector<uint64_t> &sums) {
  std::vector<uint8_t> bytes(sums.size() * 8);
  for (size_t i = 0; i < sums.size(); ++i)
    detail::storeU64(bytes.data() + 8 * i, sums[i]);
  return checksum64(bytes.data(), bytes.size());
}

/// The checksum of a weights section of `n` bytes whose chunk `i` (bytes
/// [i * kChecksumChunk, min(n, (i + 1) * kChecksumChunk)) ) has checksum64
/// `chunkSum(i)`: checksum64 of the chunks' sums as little-endian u64s. The
/// chunks are summed on up to `threads` threads (0: one per hardware
/// thread); the value does not depend on the count.
template <typename ChunkSum>
uint64_t chunkedChecksum(uint64_t n, ChunkSum chunkSum, unsigned threads) {
  uint64_t chunks = (n + kChecksumChunk - 1) / kChecksumChunk;
  if (!threads)
    threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<uint64_t> sums(chunks);
  std::atomic<uint64_t> next{0};
  auto work = [&] {
    for (uint64_t i; (i = next++) < chunks;)
      sums[i] = chunkSum(i);
  };
  std::vector<std::thread> helpers;
  for (uint64_t t = 1; t < threads && t < chunks; ++t)
    helpers.emplace_back(work);
  work();
  for (std::thread &t : helpers)
    t.join();
  return combineChunkSums(sums);
}

/// The checksum of the weights section [data, data + n) (chunkedChecksum).
inline uint64_t sectionChecksum(const void *data, uint64_t n,
                                unsigned threads = 1) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  return chunkedChecksum(
      n,
      [&](uint64_t i) {
        uint64_t at = i * kChecksumChunk;
        return checksum64(p + at, std::min(kChecksumChunk, n - at));
      },
      threads);
}

/// The checksum of the section `s` of the mapped weights file `file`: its
/// head's bytes, then its tail's, summed as one section.
inline uint64_t sectionChecksum(const uint8_t *file, const SectionEntry &s,
                                unsigned threads = 1) {
  return chunkedChecksum(
      s.size,
      [&](uint64_t i) {
        uint64_t begin = i * kChecksumChunk,
                 stop = std::min(s.size, begin + kChecksumChunk);
        Checksum64 sum;
        if (begin < s.sharedBytes)
          sum.update(file + s.sharedOffset + begin,
                     std::min(stop, s.sharedBytes) - begin);
        if (stop > s.sharedBytes) {
          uint64_t from = std::max(begin, s.sharedBytes);
          sum.update(file + s.offset + (from - s.sharedBytes), stop - from);
        }
        return sum.finish();
      },
      threads);
}

/// Rank `rank`'s entry of the section table of a weights file (one that
/// validateWeights accepted, or at least its table).
inline SectionEntry weightsSection(const void *data, uint32_t rank) {
  const uint8_t *e = static_cast<const uint8_t *>(data) + kWeightsHeaderBytes +
                     rank * kSectionEntryBytes;
  SectionEntry s;
  s.offset = detail::loadU64(e);
  s.size = detail::loadU64(e + 8);
  s.checksum = detail::loadU64(e + 16);
  s.sharedOffset = detail::loadU64(e + 24);
  s.sharedBytes = detail::loadU64(e + 32);
  return s;
}

/// Checks a mapped weights file against the plan. Every section's table
/// entry and every extent is checked; the section bytes are checksummed for
/// every rank, or only for `rank` when it is >= 0, on `threads` threads (0:
/// one per hardware thread). On failure returns false with a one-line
/// `error`.
inline bool validateWeights(const void *data, size_t size, const Plan &plan,
                            std::string &error, int rank = -1,
                            unsigned threads = 0) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  if (!p)
    size = 0;
  auto fail = [&](const std::string &msg) {
    error = msg;
    return false;
  };
  if (size < kWeightsHeaderBytes)
    return fail("weights file is truncated (" + std::to_string(size) +
                " bytes, the header alone is " +
                std::to_string(kWeightsHeaderBytes) + ")");
  if (std::memcmp(p, kWeightsMagic, 8) != 0)
    return fail("not a shardc weights file (bad magic)");
  uint32_t version = detail::loadU32(p + 8);
  if (version != kWeightsVersion)
    return fail("weights version " + std::to_string(version) +
                ", this runtime reads " + std::to_string(kWeightsVersion));
  uint32_t worldSize = detail::loadU32(p + 12);
  if (worldSize != plan.ranks.size())
    return fail("weights file is for world size " + std::to_string(worldSize) +
                ", the program has " + std::to_string(plan.ranks.size()));
  uint64_t modelHash = detail::loadU64(p + 16);
  if (modelHash != plan.modelHash)
    return fail("weights file belongs to another model (model hash " +
                detail::hex64(modelHash) + ", the program's is " +
                detail::hex64(plan.modelHash) + ")");
  uint64_t fileSize = detail::loadU64(p + 24);
  if (fileSize != size)
    return fail("weights file is " + std::to_string(size) +
                " bytes, its header says " + std::to_string(fileSize) +
                " (truncated or damaged file)");
  if (detail::loadU64(p + 32) != kWeightsHeaderBytes)
    return fail("weights header is corrupt (table offset " +
                std::to_string(detail::loadU64(p + 32)) + ")");
  const uint64_t tableEnd =
      kWeightsHeaderBytes + uint64_t(worldSize) * kSectionEntryBytes;
  if (tableEnd > size)
    return fail("weights file is truncated (section table ends at " +
                std::to_string(tableEnd) + ", file is " + std::to_string(size) +
                " bytes)");
  std::vector<uint8_t> summed(p, p + 40);
  summed.insert(summed.end(), p + kWeightsHeaderBytes, p + tableEnd);
  if (checksum64(summed.data(), summed.size()) != detail::loadU64(p + 40) ||
      !detail::allZero(p + 48, kWeightsHeaderBytes - 48))
    return fail("weights header is corrupt (checksum mismatch)");

  struct Extent {
    uint64_t offset, bytes;
    uint32_t section;
  };
  std::vector<Extent> extents;
  for (uint32_t i = 0; i < worldSize; ++i) {
    const uint8_t *e = p + kWeightsHeaderBytes + i * kSectionEntryBytes;
    SectionEntry s = weightsSection(p, i);
    std::string what = "weights section " + std::to_string(i);
    if (detail::loadU64(e + 40) != 0)
      return fail(what + " is corrupt (reserved field is not 0)");
    if (s.sharedBytes > s.size || (s.sharedBytes == 0 && s.sharedOffset != 0))
      return fail(what + " is corrupt (a shared head of " +
                  std::to_string(s.sharedBytes) + " bytes at " +
                  std::to_string(s.sharedOffset) + " in a section of " +
                  std::to_string(s.size) + ")");
    const uint64_t align = s.sharedBytes ? kShareAlign : kAlign;
    if (s.offset % align != 0 || s.sharedOffset % align != 0 ||
        s.sharedBytes % align != 0)
      return fail(what + " is misaligned (offset " + std::to_string(s.offset) +
                  ", shared head at " + std::to_string(s.sharedOffset) +
                  " of " + std::to_string(s.sharedBytes) + " bytes)");
    for (int head = 0; head <= (s.sharedBytes ? 1 : 0); ++head) {
      uint64_t off = head ? s.sharedOffset : s.offset,
               n = head ? s.sharedBytes : s.tailBytes();
      if (off < tableEnd)
        return fail(what + " overlaps the section table (offset " +
                    std::to_string(off) + ")");
      if (off > size || n > size - off)
        return fail(what + " (offset " + std::to_string(off) + ", " +
                    std::to_string(n) + " bytes) runs past the end of the " +
                    std::to_string(size) + "-byte file");
      if (n)
        extents.push_back({off, n, i});
    }
    if (s.size != plan.ranks[i].weightsBytes)
      return fail(what + " is " + std::to_string(s.size) +
                  " bytes, the program expects " +
                  std::to_string(plan.ranks[i].weightsBytes));
    if (s.checksum != plan.ranks[i].weightsChecksum)
      return fail(what + " has checksum " + detail::hex64(s.checksum) +
                  ", the program expects " +
                  detail::hex64(plan.ranks[i].weightsChecksum) +
                  " (weights from another build?)");
  }
  // Extents are shared whole or not at all, and only zeros lie between.
  std::stable_sort(
      extents.begin(), extents.end(), [](const Extent &a, const Extent &b) {
        return a.offset != b.offset ? a.offset < b.offset : a.bytes < b.bytes;
      });
  uint64_t prevOffset = 0, prevEnd = tableEnd;
  for (size_t k = 0; k < extents.size(); ++k) {
    const Extent &x = extents[k];
    if (k && x.offset == prevOffset && x.offset + x.bytes == prevEnd)
      continue; // the same extent, shared
    std::string what = "weights section " + std::to_string(x.section);
    if (x.offset < prevEnd)
      return fail(what + " overlaps another (offset " +
                  std::to_string(x.offset) + ")");
    if (!detail::allZero(p + prevEnd, x.offset - prevEnd))
      return fail("weights file is corrupt (non-zero padding before " + what +
                  ")");
    prevOffset = x.offset;
    prevEnd = x.offset + x.bytes;
  }
  if (size < prevEnd || size - prevEnd >= kAlign ||
      !detail::allZero(p + prevEnd, size - prevEnd))
    return fail("weights file is corrupt (" + std::to_string(size - prevEnd) +
                " unexpected trailing bytes)");
  for (uint32_t i = 0; i < worldSize; ++i) {
    SectionEntry s = weightsSection(p, i);
    if ((rank < 0 || uint32_t(rank) == i) &&
        sectionChecksum(p, s, threads) != s.checksum)
      return fail("weights section " + std::to_string(i) +
                  " is corrupt (checksum mismatch)");
  }
  return true;
}

/// Offset of rank `rank`'s own extent (its tail) in a weights file
/// validateWeights accepted: the whole section when it has no shared head.
inline uint64_t weightsSectionOffset(const void *data, uint32_t rank) {
  return weightsSection(data, rank).offset;
}

} // namespace shardc::format

#endif // SHARDC_FORMAT_H
