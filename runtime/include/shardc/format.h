//===- shardc/format.h - plan and weights file formats ----------*- C++ -*-===//
//
// The binary formats shared by the compiler (writer) and the runtime (reader).
// Header-only, no dependencies beyond the C++ standard library. All integers
// are little-endian.
//
// Plan (embedded in the executable), version 1:
//   char     magic[8] = "SHRDPLAN"
//   u32      version, world_size
//   u64      model_hash           (equal to the weights file's)
//   u32      target               (1 = cpu)
//   u32      reserved             (0)
//   per rank:
//     u64    arena_bytes, weights_bytes, weights_checksum
//     u32    num_handles, num_kernels, num_inputs, num_outputs
//     per input, then per output:
//       u32  name_len; u8 name[name_len]
//       i32  dtype (ONNX code); u32 rank; i64 dims[rank]
//   u64      checksum             (checksum64 of every byte before it)
//
// Weights file, version 1:
//   [0,64)   header: char magic[8] = "SHRDWGTS"; u32 version; u32 world_size;
//            u64 model_hash; u64 file_size; u64 table_offset (= 64);
//            u64 header_checksum (checksum64 of bytes [0,40) and the table);
//            zero padding
//   [64,..)  section table: world_size x {u64 offset, size, checksum, reserved}
//   sections, one per rank, each at a 64-byte aligned offset; every tensor
//   inside a section is 64-byte aligned too.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FORMAT_H
#define SHARDC_FORMAT_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace shardc::format {

constexpr char kPlanMagic[8] = {'S', 'H', 'R', 'D', 'P', 'L', 'A', 'N'};
constexpr char kWeightsMagic[8] = {'S', 'H', 'R', 'D', 'W', 'G', 'T', 'S'};
constexpr uint32_t kPlanVersion = 1;
constexpr uint32_t kWeightsVersion = 1;
constexpr uint32_t kTargetCpu = 1;
constexpr uint64_t kAlign = 64;
constexpr uint64_t kWeightsHeaderBytes = 64;
constexpr uint64_t kSectionEntryBytes = 32;
constexpr uint32_t kMaxRank = 8;

inline uint64_t alignUp(uint64_t v, uint64_t a = kAlign) {
  return (v + a - 1) / a * a;
}

/// A fast 64-bit checksum (four multiply-rotate lanes over 32-byte blocks).
/// Not cryptographic: it catches truncation, bit flips and mixed-up files.
inline uint64_t checksum64(const void *data, size_t n,
                           uint64_t seed = 0x9E3779B97F4A7C15ull) {
  constexpr uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full;
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto round = [&](uint64_t acc, uint64_t w) {
    return rotl(acc + w * k2, 31) * k1;
  };
  const unsigned char *p = static_cast<const unsigned char *>(data);
  uint64_t a = seed + k1 + k2, b = seed + k2, c = seed, d = seed - k1;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    a = round(a, w[0]);
    b = round(b, w[1]);
    c = round(c, w[2]);
    d = round(d, w[3]);
  }
  uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
  h ^= static_cast<uint64_t>(n) * k1;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = rotl(h ^ round(0, w), 27) * k1 + k2;
  }
  for (; i < n; ++i)
    h = rotl(h ^ (p[i] * k1), 11) * k2;
  h ^= h >> 33;
  h *= k2;
  h ^= h >> 29;
  return h;
}

} // namespace shardc::format

#endif // SHARDC_FORMAT_H
