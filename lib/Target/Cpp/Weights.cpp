//===- Weights.cpp - the weights file writer -------------------------------===//
//
// Streams the sections into the file without assembling them: the header,
// then every piece (a view of a weight's data) cut into chunks of at most
// kChunk bytes and written with pwrite at its final offset, in file order
// (by several threads that take the chunks in turn when asked to). The
// file is sized first, so the zero padding between tensors and sections is
// never written. The checksums were computed while the sections were
// described (EmitProgram.cpp).
//
//===----------------------------------------------------------------------===//

#include "shardc/Target/Cpp.h"

#include "shardc/format.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

using namespace shardc;

namespace {
/// Bytes per pwrite: large enough for sequential throughput, small enough
/// to spread a few big tensors over the threads.
constexpr uint64_t kChunk = 8 << 20;
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
  std::vector<uint64_t> sizes, checksums;
  for (const WeightsSection &s : sections) {
    sizes.push_back(s.size);
    checksums.push_back(s.checksum);
  }
  format::WeightsLayout layout;
  std::vector<uint8_t> header =
      format::encodeWeightsHeader(modelHash, sizes, checksums, layout);

  std::vector<Chunk> chunks;
  chunks.push_back({0, reinterpret_cast<const char *>(header.data()),
                    header.size()});
  for (size_t i = 0; i < sections.size(); ++i)
    for (const WeightsSection::Piece &p : sections[i].pieces)
      for (uint64_t at = 0; at < p.size; at += kChunk)
        chunks.push_back({layout.offsets[i] + p.offset + at, p.data + at,
                          std::min(kChunk, p.size - at)});
  auto fail = [&](int err) {
    error = "cannot write '" + path + "': " + std::strerror(err);
    return false;
  };
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  0666);
  if (fd < 0)
    return fail(errno);
  // Sized first: the gaps read as zeros without being written.
  if (::ftruncate(fd, static_cast<off_t>(layout.fileSize)) != 0) {
    int err = errno;
    ::close(fd);
    return fail(err);
  }

  std::atomic<size_t> next{0};
  std::atomic<int> firstError{0};
  auto work = [&] {
    for (size_t i; !firstError.load() && (i = next++) < chunks.size();) {
      const Chunk &c = chunks[i];
      for (uint64_t done = 0; done < c.size;) {
        ssize_t n = ::pwrite(fd, c.data + done, c.size - done,
                             static_cast<off_t>(c.offset + done));
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          int expected = 0;
          firstError.compare_exchange_strong(expected, n < 0 ? errno : EIO);
          return;
        }
        done += n;
      }
    }
  };
  if (threads == 0)
    threads = kDefaultThreads;
  threads = static_cast<unsigned>(std::min<size_t>(
      {threads, kMaxThreads, chunks.size()}));
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
