//===- ExpertExchange.cpp - sc_moe_dispatch, sc_moe_return ----------------===//
//
// The CPU entry points of expert parallelism (shardc/cpu.h) over the axis'
// communicator: the counts by allToAll, the rows by allToAllV (MPI_Alltoallv
// on CPU ranks), then a regrouping by local slot (ExpertExchange.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/comm/ExpertExchange.h"
#include "runtime/src/comm/Comm.h"

#include "shardc/cpu.h"
#include "shardc/format.h"

#include <cstring>
#include <string>

using namespace shardc::rt;

Status shardc::rt::slotCounts(const int32_t *offsets, int n, int64_t L,
                              std::vector<int32_t> &out) {
  int64_t slots = n * L;
  out.assign(static_cast<size_t>(slots), 0);
  if (offsets[0] != 0)
    return {SHARDC_ERROR_INVALID_ARGUMENT,
            "moe_dispatch: the first row offset is " +
                std::to_string(offsets[0]) + ", not 0"};
  for (int64_t s = 0; s < slots; ++s) {
    if (offsets[s + 1] < offsets[s])
      return {SHARDC_ERROR_INVALID_ARGUMENT,
              "moe_dispatch: the row offsets decrease at expert slot " +
                  std::to_string(s)};
    out[static_cast<size_t>(s)] = offsets[s + 1] - offsets[s];
  }
  return {};
}

Status shardc::rt::planExpertExchange(const int32_t *offsets,
                                      const int32_t *recvCounts, int n,
                                      int64_t L, size_t capacity,
                                      ExpertExchange &x) {
  x = ExpertExchange();
  x.n = n;
  x.L = L;
  x.sendCounts.resize(n);
  x.sendOffsets.resize(n);
  x.recvCounts.assign(n, 0);
  x.recvOffsets.resize(n);
  for (int q = 0; q < n; ++q) {
    x.sendOffsets[q] = static_cast<size_t>(offsets[q * L]);
    x.sendCounts[q] = static_cast<size_t>(offsets[(q + 1) * L] - offsets[q * L]);
    for (int64_t e = 0; e < L; ++e) {
      int32_t c = recvCounts[q * L + e];
      if (c < 0)
        return {SHARDC_ERROR_RUNTIME,
                "moe_dispatch: rank " + std::to_string(q) + " announced " +
                    std::to_string(c) + " rows"};
      x.recvCounts[q] += static_cast<size_t>(c);
    }
    x.recvOffsets[q] = x.received;
    x.received += x.recvCounts[q];
  }
  if (x.received > capacity)
    return {SHARDC_ERROR_RUNTIME,
            "moe_dispatch: " + std::to_string(x.received) +
                " rows arrive for this rank's experts, room for " +
                std::to_string(capacity)};
  // Regrouped: slot-major, then sender.
  x.groupedOffsets.assign(static_cast<size_t>(L + 1), 0);
  // Rank q's rows for slot e follow its rows for the slots before e: a
  // cursor per sender walks its staged rows as the slots go by.
  std::vector<size_t> staged(x.recvOffsets);
  size_t at = 0;
  for (int64_t e = 0; e < L; ++e) {
    x.groupedOffsets[e] = static_cast<int32_t>(at);
    for (int q = 0; q < n; ++q) {
      size_t rows = static_cast<size_t>(recvCounts[q * L + e]);
      if (rows)
        x.blocks.push_back({staged[q], at, rows});
      staged[q] += rows;
      at += rows;
    }
  }
  x.groupedOffsets[L] = static_cast<int32_t>(at);
  return {};
}

Status shardc::rt::moveRows(Communicator &c, const ExpertExchange &x,
                            const void *from, void *to, uint64_t width,
                            int32_t dtype, bool back, void *stream) {
  auto elements = [&](const std::vector<size_t> &rows) {
    std::vector<size_t> out(rows);
    for (size_t &v : out)
      v *= width;
    return out;
  };
  std::vector<size_t> sendCounts = elements(x.sendCounts),
                      sendOffsets = elements(x.sendOffsets),
                      recvCounts = elements(x.recvCounts),
                      recvOffsets = elements(x.recvOffsets);
  if (back) // what arrived from q goes back to q
    return c.allToAllV(from, recvCounts.data(), recvOffsets.data(), to,
                       sendCounts.data(), sendOffsets.data(), dtype, stream);
  return c.allToAllV(from, sendCounts.data(), sendOffsets.data(), to,
                     recvCounts.data(), recvOffsets.data(), dtype, stream);
}

namespace {

bool fail(const Status &s) {
  if (s.failed())
    sc_fail("%s", s.message.c_str());
  return s.failed();
}

/// A staging buffer of at least `bytes` (kept between calls).
char *staging(size_t bytes) {
  thread_local std::vector<char> buffer;
  if (buffer.size() < bytes)
    buffer.resize(bytes);
  return buffer.data();
}

} // namespace

extern "C" void sc_moe_dispatch(sc_comm *comm, const void *rows,
                                const int32_t *offsets, void *recv,
                                int32_t *recv_offsets, int32_t *recv_counts,
                                uint64_t local_slots, uint64_t width,
                                uint64_t capacity, int32_t dtype) {
  if (!comm || !comm->impl) {
    sc_fail("moe_dispatch: no communicator");
    return;
  }
  Communicator &c = *comm->impl;
  int n = c.size();
  auto L = static_cast<int64_t>(local_slots);
  size_t size = shardc::format::dtypeSize(dtype);
  std::vector<int32_t> counts;
  ExpertExchange x;
  if (fail(slotCounts(offsets, n, L, counts)) ||
      fail(c.allToAll(counts.data(), recv_counts, static_cast<size_t>(L),
                      shardc::format::kI32, nullptr)) ||
      fail(planExpertExchange(offsets, recv_counts, n, L, capacity, x)))
    return;
  size_t rowBytes = width * size;
  char *stage = staging(x.received * rowBytes);
  if (fail(moveRows(c, x, rows, stage, width, dtype, false, nullptr)))
    return;
  auto *out = static_cast<char *>(recv);
  for (const ExpertExchange::Block &b : x.blocks)
    std::memcpy(out + b.grouped * rowBytes, stage + b.staged * rowBytes,
                b.rows * rowBytes);
  std::memcpy(recv_offsets, x.groupedOffsets.data(),
              x.groupedOffsets.size() * sizeof(int32_t));
}

extern "C" void sc_moe_return(sc_comm *comm, const void *recv,
                              const int32_t *recv_counts,
                              const int32_t *offsets, void *rows,
                              uint64_t local_slots, uint64_t width,
                              uint64_t capacity, int32_t dtype) {
  if (!comm || !comm->impl) {
    sc_fail("moe_return: no communicator");
    return;
  }
  Communicator &c = *comm->impl;
  auto L = static_cast<int64_t>(local_slots);
  size_t size = shardc::format::dtypeSize(dtype);
  ExpertExchange x;
  if (fail(planExpertExchange(offsets, recv_counts, c.size(), L, capacity, x)))
    return;
  size_t rowBytes = width * size;
  char *stage = staging(x.received * rowBytes);
  auto *in = static_cast<const char *>(recv);
  for (const ExpertExchange::Block &b : x.blocks)
    std::memcpy(stage + b.staged * rowBytes, in + b.grouped * rowBytes,
                b.rows * rowBytes);
  fail(moveRows(c, x, stage, rows, width, dtype, true, nullptr));
}
