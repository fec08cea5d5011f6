//===- shardc/Support/Pages.h - giving back pages of mapped weights -*- C++ -*-===//
//
// The importer maps external weight files read-only (lib/Import/ONNX,
// ExternalFiles) and weight blobs view the mapping. A pass that has read
// such a blob for the last time in a while (graph-convert-precision after
// narrowing it) calls releaseReadOnlyFilePages so that the fp32 original
// does not stay in the compiler's resident set beside its converted copy:
// a 4 GB model compiles in little more than 4 GB. (Slices per rank copy
// nothing: they are views or windows of the mapping, read by the weights
// writer.)
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

} // namespace shardc

#endif // SHARDC_SUPPORT_PAGES_H
