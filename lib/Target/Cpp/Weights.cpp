//===- Weights.cpp - the weights file writer
//-------------------------------===//
//
// Streams the sections into the file without assembling them: the header,
// then each shared head and each distinct section's tail once (format.h),
// in rank order. Every piece (a view of a weight's data, or of one row of a
// window) is cut into chunks of at most kChunk bytes and written with
// pwritev at its final offset (chunks that follow each other in the file
// together), in file order (by several threads that take the chunks in turn
// when asked to). The file is sized first, so the zero padding between
// tensors and extents is never written. The checksums were computed while
// the sections were described (EmitProgram.cpp).
//
//===----------------------------------------------------------------------===//

#include "shardc/Target/Cpp.h"

#include "shardc/format.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

using namespace shardc;

namespace {
/// Bytes per pwrite: large enough for sequential throughput, small enough
/// to spread a few big tensors over the threads.
constexpr uint64_t kChunk = 8 << 20;
/// Parts of one pwritev (IOV_MAX is 1024 on Linux).
constexpr size_t kMaxIov = 1024;
/// More writer threads than this does not help a disk.
constexpr unsigned kMaxThreads = 4;
/// The default: one writer. Buffered writes into one file serialize on its
/// inode lock (tmpfs and ext4): on the 4.3 GB benchmark two threads took
/// the same wall time as one and 50% more system time.
constexpr unsigned kDefaultThreads = 1;

struct Chunk {
  uint64_t offset;
  const char *data;
  uint64_t size;
};
} // namespace

bool shardc::writeWeightsFile(const std::string &path, uint64_t modelHash,
                              const std::vector<WeightsSection> &sections,
                              std::string &error, unsigned threads) {
  // The extents: each shared head, and each distinct section's tail, once,
  // in rank order.
  std::vector<format::SectionEntry> entries(sections.size());
  std::vector<Chunk> chunks;
  uint64_t cursor = format::weightsDataOffset(sections.size());
  uint64_t fileSize = cursor;
  std::map<uint64_t, uint64_t> heads, tails; // key -> offset
  auto place = [&](const WeightsSection &s, uint64_t from, uint64_t to,
                   uint64_t align) {
    uint64_t at = format::alignUp(cursor, align);
    for (const WeightsSection::Piece &p : s.pieces) {
      if (p.offset + p.size <= from || p.offset >= to)
        continue;
      for (uint64_t done = 0; done < p.size; done += kChunk)
        chunks.push_back({at + p.offset - from + done, p.data + done,
                          std::min(kChunk, p.size - done)});
    }
    cursor = at + (to - from);
    fileSize = std::max(fileSize, cursor);
    return at;
  };
  for (size_t r = 0; r < sections.size(); ++r) {
    const WeightsSection &s = sections[r];
    format::SectionEntry &e = entries[r];
    e.size = s.size;
    e.checksum = s.checksum;
    e.sharedBytes = s.sharedBytes;
    const uint64_t head = s.sharedBytes;
    for (const WeightsSection::Piece &p : s.pieces)
      if (p.offset < head && p.offset + p.size > head) {
        error = "cannot write '" + path + "': a weight of rank " +
                std::to_string(r) + " crosses its section's shared head";
        return false;
      }
    const uint64_t align = head ? format::kShareAlign : format::kAlign;
    if (head) {
      auto [it, fresh] = heads.try_emplace(s.sharedKey, 0);
      if (fresh || !s.sharedKey)
        it->second = place(s, 0, head, align);
      e.sharedOffset = it->second;
    }
    if (s.size == head) {
      e.offset = head ? e.sharedOffset : format::alignUp(cursor, align);
      continue;
    }
    auto [it, fresh] = tails.try_emplace(s.key, 0);
    if (fresh || !s.key)
      it->second = place(s, head, s.size, align);
    e.offset = it->second;
  }
  std::vector<uint8_t> header =
      format::encodeWeightsHeader(modelHash, entries, fileSize);
  chunks.insert(
      chunks.begin(),
      {0, reinterpret_cast<const char *>(header.data()), header.size()});
  // `place` only moves forward: the chunks are in file order.
  auto fail = [&](int err) {
    error = "cannot write '" + path + "': " + std::strerror(err);
    return false;
  };
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  0666);
  if (fd < 0)
    return fail(errno);
  // Sized first: the gaps read as zeros without being written.
  if (::ftruncate(fd, static_cast<off_t>(fileSize)) != 0) {
    int err = errno;
    ::close(fd);
    return fail(err);
  }

  // Chunks that follow each other in the file (the rows of a window, many
  // small tensors) go in one pwritev, up to kChunk bytes and kMaxIov parts.
  std::vector<size_t> batches; // where each batch begins in `chunks`
  for (size_t i = 0, bytes = 0; i < chunks.size(); ++i) {
    bool follows = i > 0 && chunks[i - 1].offset + chunks[i - 1].size ==
                                chunks[i].offset;
    if (!follows || bytes + chunks[i].size > kChunk ||
        i - batches.back() >= kMaxIov) {
      batches.push_back(i);
      bytes = 0;
    }
    bytes += chunks[i].size;
  }
  batches.push_back(chunks.size());

  std::atomic<size_t> next{0};
  std::atomic<int> firstError{0};
  auto work = [&] {
    std::vector<iovec> iov;
    for (size_t b; !firstError.load() && (b = next++) + 1 < batches.size();) {
      iov.clear();
      for (size_t i = batches[b]; i < batches[b + 1]; ++i)
        iov.push_back({const_cast<char *>(chunks[i].data), chunks[i].size});
      uint64_t at = chunks[batches[b]].offset;
      for (size_t first = 0; first < iov.size();) {
        ssize_t n = ::pwritev(fd, iov.data() + first,
                              static_cast<int>(iov.size() - first),
                              static_cast<off_t>(at));
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          int expected = 0;
          firstError.compare_exchange_strong(expected, n < 0 ? errno : EIO);
          return;
        }
        // A short write: on from where it stopped.
        at += n;
        for (uint64_t left = n; left > 0;) {
          if (left >= iov[first].iov_len) {
            left -= iov[first].iov_len;
            ++first;
          } else {
            iov[first].iov_base = static_cast<char *>(iov[first].iov_base) + left;
            iov[first].iov_len -= left;
            left = 0;
          }
        }
      }
    }
  };
  if (threads == 0)
    threads = kDefaultThreads;
  threads = static_cast<unsigned>(std::min<size_t>(
      {threads, kMaxThreads, batches.size() - 1}));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();
  int err = firstError.load();
  if (::close(fd) != 0 && !err)
    err = errno;
  if (err)
    return fail(err);
  return true;
}
