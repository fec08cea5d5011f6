//===- ExpertExchangeTest.cpp - the expert-parallel exchange's layouts ----===//
//
// planExpertExchange (runtime/src/comm/ExpertExchange.h) for groups of 1 to
// 4 ranks with random, skewed routings: every rank's rows are moved as the
// plan says (the all-to-alls done by hand between the simulated ranks),
// regrouped, and must arrive grouped by local slot, then sender, each row
// at its expert's rank; the return movement must put every row back where
// it left. The entry points sc_moe_dispatch / sc_moe_return run on the
// one-rank (self) communicator; MPI groups are test/Integration's
// expert-parallel.test.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/KernelError.h"
#include "runtime/src/comm/Comm.h"
#include "runtime/src/comm/ExpertExchange.h"
#include "shardc/cpu.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using shardc::rt::ExpertExchange;

/// A row's identity: the rank that routed it and its row there.
struct Tag {
  int rank = -1, row = -1;
  bool operator==(const Tag &o) const { return rank == o.rank && row == o.row; }
};

TEST(ExpertExchange, RowsReachTheirExpertsAndComeBack) {
  std::mt19937 gen(7);
  for (int n = 1; n <= 4; ++n) {
    for (int64_t L = 1; L <= 3; ++L) {
      int64_t slots = n * L;
      // Each rank routes some rows per slot; slot 0 is hot, the last cold.
      std::vector<std::vector<int32_t>> offsets(n);
      std::vector<std::vector<Tag>> rows(n);
      for (int r = 0; r < n; ++r) {
        offsets[r] = {0};
        for (int64_t s = 0; s < slots; ++s) {
          int c = s == 0 ? 7 : s == slots - 1 ? 0 : static_cast<int>(gen() % 4);
          offsets[r].push_back(offsets[r].back() + c);
        }
        for (int i = 0; i < offsets[r].back(); ++i)
          rows[r].push_back({r, i});
      }
      // The counts' all-to-all.
      std::vector<std::vector<int32_t>> sent(n), counts(n);
      for (int r = 0; r < n; ++r)
        ASSERT_FALSE(shardc::rt::slotCounts(offsets[r].data(), n, L, sent[r])
                         .failed());
      for (int r = 0; r < n; ++r)
        for (int q = 0; q < n; ++q)
          for (int64_t e = 0; e < L; ++e)
            counts[r].push_back(sent[q][r * L + e]);
      std::vector<ExpertExchange> plan(n);
      for (int r = 0; r < n; ++r)
        ASSERT_FALSE(shardc::rt::planExpertExchange(offsets[r].data(),
                                                    counts[r].data(), n, L,
                                                    1000, plan[r])
                         .failed());
      // The rows' all-to-all into each rank's staging, then the regroup.
      std::vector<std::vector<Tag>> grouped(n);
      for (int r = 0; r < n; ++r) {
        std::vector<Tag> staged(plan[r].received);
        for (int q = 0; q < n; ++q) {
          ASSERT_EQ(plan[q].sendCounts[r], plan[r].recvCounts[q]);
          for (size_t i = 0; i < plan[r].recvCounts[q]; ++i)
            staged[plan[r].recvOffsets[q] + i] =
                rows[q][plan[q].sendOffsets[r] + i];
        }
        grouped[r].resize(plan[r].received);
        for (const ExpertExchange::Block &b : plan[r].blocks)
          for (size_t i = 0; i < b.rows; ++i)
            grouped[r][b.grouped + i] = staged[b.staged + i];
        // Every row arrived once, under its slot, senders in order.
        const std::vector<int32_t> &go = plan[r].groupedOffsets;
        ASSERT_EQ(go.size(), static_cast<size_t>(L + 1));
        EXPECT_EQ(go[L], static_cast<int32_t>(plan[r].received));
        for (int64_t e = 0; e < L; ++e) {
          int previous = -1;
          for (int32_t i = go[e]; i < go[e + 1]; ++i) {
            Tag t = grouped[r][i];
            ASSERT_GE(t.rank, 0);
            const std::vector<int32_t> &o = offsets[t.rank];
            int64_t slot = r * L + e;
            EXPECT_TRUE(t.row >= o[slot] && t.row < o[slot + 1])
                << "n=" << n << " L=" << L << ": rank " << r << " slot " << e
                << " got row " << t.row << " of rank " << t.rank;
            EXPECT_GE(t.rank, previous);
            previous = t.rank;
          }
        }
      }
      // The return: regroup inversely, all-to-all back.
      std::vector<std::vector<Tag>> back(n);
      for (int r = 0; r < n; ++r)
        back[r].resize(rows[r].size());
      for (int r = 0; r < n; ++r) {
        std::vector<Tag> staged(plan[r].received);
        for (const ExpertExchange::Block &b : plan[r].blocks)
          for (size_t i = 0; i < b.rows; ++i)
            staged[b.staged + i] = grouped[r][b.grouped + i];
        for (int q = 0; q < n; ++q)
          for (size_t i = 0; i < plan[r].recvCounts[q]; ++i)
            back[q][plan[q].sendOffsets[r] + i] =
                staged[plan[r].recvOffsets[q] + i];
      }
      for (int r = 0; r < n; ++r)
        EXPECT_EQ(back[r], rows[r]) << "n=" << n << " L=" << L;
    }
  }
}

TEST(ExpertExchange, MoreRowsThanRoomFails) {
  int32_t offsets[3] = {0, 5, 9};
  int32_t counts[2] = {5, 4};
  ExpertExchange x;
  shardc::rt::Status s =
      shardc::rt::planExpertExchange(offsets, counts, 1, 2, 8, x);
  ASSERT_TRUE(s.failed());
  EXPECT_EQ(s.message, "moe_dispatch: 9 rows arrive for this rank's "
                       "experts, room for 8");
  std::vector<int32_t> sent;
  int32_t decreasing[3] = {0, 5, 3};
  EXPECT_TRUE(shardc::rt::slotCounts(decreasing, 1, 2, sent).failed());
}

TEST(ExpertExchange, SelfDispatchGroupsBySlotAndReturns) {
  // One rank, 3 slots: rows [0, 2) slot 0, none for slot 1, [2, 5) slot 2;
  // rows are 2 floats wide. Alone, the dispatch is the identity and the
  // return restores it.
  std::unique_ptr<shardc::rt::Communicator> self = shardc::rt::createSelfComm();
  sc_comm comm{self.get()};
  std::vector<float> rows = {0, 1, 10, 11, 20, 21, 30, 31, 40, 41};
  int32_t offsets[4] = {0, 2, 2, 5};
  std::vector<float> recv(8 * 2, -1.0f);
  int32_t recvOffsets[4], counts[3];
  shardc::rt::clearKernelError();
  sc_moe_dispatch(&comm, rows.data(), offsets, recv.data(), recvOffsets,
                  counts, 3, 2, 8, /*f32*/ 1);
  std::string message;
  ASSERT_FALSE(shardc::rt::takeKernelError(message)) << message;
  EXPECT_EQ(std::vector<int32_t>(recvOffsets, recvOffsets + 4),
            (std::vector<int32_t>{0, 2, 2, 5}));
  EXPECT_EQ(std::vector<int32_t>(counts, counts + 3),
            (std::vector<int32_t>{2, 0, 3}));
  EXPECT_EQ(std::vector<float>(recv.begin(), recv.begin() + 10), rows);
  // The experts' results (rows doubled) go back in place.
  for (float &v : recv)
    v *= 2;
  std::vector<float> out(10, 0.0f);
  sc_moe_return(&comm, recv.data(), counts, offsets, out.data(), 3, 2, 8, 1);
  ASSERT_FALSE(shardc::rt::takeKernelError(message)) << message;
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], 2 * rows[i]);
  // Too little room is a failed run, not a write past recv.
  sc_moe_dispatch(&comm, rows.data(), offsets, recv.data(), recvOffsets,
                  counts, 3, 2, 4, 1);
  ASSERT_TRUE(shardc::rt::takeKernelError(message));
  EXPECT_EQ(message, "moe_dispatch: 5 rows arrive for this rank's experts, "
                     "room for 4");
}

} // namespace
