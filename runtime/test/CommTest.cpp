//===- CommTest.cpp - the communicator seam -------------------------------===//

#include "runtime/src/KernelError.h"
#include "runtime/src/comm/Comm.h"
#include "shardc/cpu.h"

#include <gtest/gtest.h>

#include <vector>

using namespace shardc::rt;

TEST(SelfComm, IsRankZeroOfOne) {
  auto comm = createSelfComm();
  EXPECT_STREQ(comm->backend(), "self");
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  sc_comm handle{comm.get()};
  EXPECT_EQ(sc_comm_rank(&handle), 0);
  EXPECT_EQ(sc_comm_size(&handle), 1);
  EXPECT_EQ(sc_comm_rank(nullptr), -1);
  EXPECT_EQ(sc_comm_size(nullptr), -1);
}

TEST(SelfComm, CollectivesOfOneRankCopy) {
  auto comm = createSelfComm();
  std::vector<float> send = {1.5f, -2, 3, 4}, recv(4, 0);
  ASSERT_FALSE(comm->allReduce(send.data(), recv.data(), 4, 1, ReduceOp::Sum,
                               nullptr)
                   .failed());
  EXPECT_EQ(recv, send);
  std::vector<int64_t> s64 = {7, 8, 9}, r64(3, 0);
  ASSERT_FALSE(comm->allGather(s64.data(), r64.data(), 3, 7, nullptr).failed());
  EXPECT_EQ(r64, s64);
  std::fill(recv.begin(), recv.end(), 0.f);
  ASSERT_FALSE(comm->reduceScatter(send.data(), recv.data(), 4, 1,
                                   ReduceOp::Max, nullptr)
                   .failed());
  EXPECT_EQ(recv, send);
  std::fill(recv.begin(), recv.end(), 0.f);
  ASSERT_FALSE(
      comm->allToAll(send.data(), recv.data(), 4, 1, nullptr).failed());
  EXPECT_EQ(recv, send);
  // In place.
  ASSERT_FALSE(comm->allReduce(send.data(), send.data(), 4, 1, ReduceOp::Min,
                               nullptr)
                   .failed());
  EXPECT_EQ(send[1], -2.f);
}

TEST(SelfComm, RefusesWhatOneRankCannotDo) {
  auto comm = createSelfComm();
  float x = 1, y = 0;
  Status s = comm->send(&x, 1, 1, 1, nullptr);
  EXPECT_EQ(s.code, SHARDC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s.message, "cannot send to rank 1: a single-rank run has no peer");
  s = comm->recv(&y, 1, 1, 0, nullptr);
  EXPECT_EQ(s.message,
            "cannot receive from rank 0: a single-rank run has no peer");
  s = comm->allReduce(&x, &y, 1, 8, ReduceOp::Sum, nullptr); // 8: string
  EXPECT_EQ(s.message, "all_reduce: unknown dtype 8");
  int stream = 0;
  s = comm->allGather(&x, &y, 1, 1, &stream);
  EXPECT_EQ(s.code, SHARDC_ERROR_UNSUPPORTED);
  s = comm->allToAll(nullptr, &y, 1, 1, nullptr);
  EXPECT_EQ(s.message, "all_to_all: null buffer");
  EXPECT_EQ(y, 0.f);
}

/// sc_send / sc_recv (what generated pipeline stages call): the peer is
/// the rank plus an offset, checked against the group before the
/// communicator sees it.
TEST(SelfComm, PointToPointEntryPoints) {
  auto comm = createSelfComm();
  sc_comm handle{comm.get()};
  float x[2] = {1, 2};
  auto failure = [](auto &&call) {
    std::string message;
    EXPECT_TRUE(failedIn(call, message));
    return message;
  };
  EXPECT_EQ(failure([&] { sc_send(&handle, x, 2, 1, 1); }),
            "send to rank 1 of a 1-rank group (rank 0 + offset 1)");
  EXPECT_EQ(failure([&] { sc_recv(&handle, x, 2, 1, -1); }),
            "receive from rank -1 of a 1-rank group (rank 0 - offset 1)");
  EXPECT_EQ(failure([&] { sc_send(&handle, x, 2, 1, -2147483647 - 1); }),
            "send to rank -2147483648 of a 1-rank group (rank 0 - offset "
            "2147483648)");
  // Offset 0 is in the group, and the communicator refuses it.
  EXPECT_EQ(failure([&] { sc_send(&handle, x, 2, 1, 0); }),
            "cannot send to rank 0: a single-rank run has no peer");
  EXPECT_EQ(failure([&] { sc_recv(nullptr, x, 2, 1, 1); }),
            "recv: no communicator");
  EXPECT_EQ(x[1], 2.f);
  // Nothing is ever in flight on one rank.
  EXPECT_FALSE(comm->flush().failed());
}
