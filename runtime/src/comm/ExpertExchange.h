//===- ExpertExchange.h - the layouts of an expert-parallel exchange -*- C++ -*-===//
//
// kern.moe_dispatch and kern.moe_return (shardc/cpu.h: sc_moe_dispatch)
// move rows between the ranks of a group that holds S = n * L expert slots,
// L per rank. The sender's rows are grouped by global slot (kern.moe_route's
// offsets), so the rows for rank j are one contiguous block. They arrive
// in sender order (rank 0's rows for its L slots, then rank 1's, ...) in a
// staging buffer and are regrouped by local slot, then sender, so that each
// slot's rows are contiguous for the grouped GEMM. This is the host-side
// bookkeeping both the CPU and the CUDA entry points share: counts, offsets
// and the block moves between the two layouts. All counts are rows.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_COMM_EXPERTEXCHANGE_H
#define SHARDC_RUNTIME_COMM_EXPERTEXCHANGE_H

#include "runtime/src/Status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardc::rt {

class Communicator;

struct ExpertExchange {
  int n = 1;       ///< ranks in the group
  int64_t L = 1;   ///< slots per rank
  /// Per peer: the rows this rank sends (from the grouped-by-slot input)
  /// and receives (into the staging buffer, in sender order).
  std::vector<size_t> sendCounts, sendOffsets, recvCounts, recvOffsets;
  /// A block of rows from one sender for one local slot: where it sits in
  /// the staging buffer and in the regrouped one.
  struct Block {
    size_t staged, grouped, rows;
  };
  std::vector<Block> blocks;
  std::vector<int32_t> groupedOffsets; ///< L + 1 (recv_offsets)
  size_t received = 0;                 ///< rows this rank receives
};

/// Counts this rank sends, L per peer (the all-to-all before the rows):
/// out[q * L + e] = rows of global slot q * L + e. Fails on offsets that
/// are not non-decreasing from 0.
Status slotCounts(const int32_t *offsets, int n, int64_t L,
                  std::vector<int32_t> &out);

/// The exchange given this rank's `offsets` (S + 1) and `recvCounts` (n * L:
/// at q * L + e, the rows rank q sends for local slot e). Fails, naming the
/// numbers, when more than `capacity` rows would arrive or a count is
/// negative.
Status planExpertExchange(const int32_t *offsets, const int32_t *recvCounts,
                          int n, int64_t L, size_t capacity,
                          ExpertExchange &x);

/// The rows' variable-size all-to-all (`width` elements of `dtype` each):
/// the dispatch's, from the rows grouped by slot into the staging buffer in
/// sender order, or with `back` the return's, the other way. `stream` is
/// the GPU stream (null on the CPU).
Status moveRows(Communicator &c, const ExpertExchange &x, const void *from,
                void *to, uint64_t width, int32_t dtype, bool back,
                void *stream);

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_COMM_EXPERTEXCHANGE_H
