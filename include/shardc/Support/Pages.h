//===- shardc/Support/Pages.h - giving back pages of mapped weights -*- C++ -*-===//
//
// The importer maps external weight files read-only (lib/Import/ONNX,
// ExternalFiles) and weight blobs view the mapping. A pass that has read
// such a blob for the last time in a while (graph-convert-precision after
// narrowing it, the compile-time slicer after cutting it per rank) calls
// releaseReadOnlyFilePages so that the fp32 original does not stay in the
// compiler's resident set beside its converted or sliced copy: a 4 GB model
// compiles in little more than 4 GB.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_SUPPORT_PAGES_H
#define SHARDC_SUPPORT_PAGES_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <sys/mman.h>
#include <unistd.h>

namespace shardc {

/// Drops the whole pages of [data, data + size) from the process's resident
/// set when the range lies inside one non-writable file mapping (per
/// /proc/self/maps): MADV_DONTNEED there loses nothing (the page cache keeps
/// the pages and a later read maps the same bytes again). Heap and other
/// writable memory is left alone. Returns whether pages were released.
inline bool releaseReadOnlyFilePages(const void *data, size_t size) {
  long page = ::sysconf(_SC_PAGESIZE);
  uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  uintptr_t end = begin + size;
  uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (page <= 0 || size == 0 || first >= last)
    return false;
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return false;
  bool inside = false;
  char *line = nullptr; // whole lines, however long the mapped file's path
  size_t capacity = 0;
  while (::getline(&line, &capacity, maps) > 0) {
    unsigned long lo, hi, inode;
    char perms[8];
    unsigned long long offset;
    char dev[32];
    if (std::sscanf(line, "%lx-%lx %7s %llx %31s %lu", &lo, &hi, perms,
                    &offset, dev, &inode) != 6)
      continue;
    if (begin >= lo && end <= hi) {
      inside = inode != 0 && perms[0] == 'r' && perms[1] == '-';
      break;
    }
  }
  std::free(line);
  std::fclose(maps);
  return inside && ::madvise(reinterpret_cast<void *>(first), last - first,
                             MADV_DONTNEED) == 0;
}

/// Memory for a weight written once (a sliced or re-aligned copy), 64-byte
/// aligned; null when out of memory; free with std::free. Fresh memory
/// costs a fault per page, so from `hugeFrom` bytes on it is advised to
/// come in 2 MiB pages (its last page then holds up to 2 MiB more than it
/// needs); a smaller one keeps 4 KiB pages.
inline void *allocateWeightBytes(size_t bytes,
                                 size_t hugeFrom = size_t(32) << 20) {
  constexpr size_t kHuge = size_t(2) << 20;
  if (bytes < hugeFrom || bytes < kHuge)
    return std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  size_t size = (bytes + kHuge - 1) / kHuge * kHuge;
  void *data = std::aligned_alloc(kHuge, size);
  if (data)
    (void)::madvise(data, size, MADV_HUGEPAGE);
  return data;
}

} // namespace shardc

#endif // SHARDC_SUPPORT_PAGES_H
