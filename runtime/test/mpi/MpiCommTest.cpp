//===- MpiCommTest.cpp - communicators over MPI, under mpirun -------------===//
//
//   mpirun -np 2 shardc-mpi-tests      (and -np 4: the 2x2 mesh cases)
//
// Every rank runs every test; expected values are computed from the ranks'
// known contributions, not by the code under test.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/comm/Mpi.h"
#include "shardc/cpu.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

using namespace shardc::rt;

namespace {

Communicator &world() {
  static std::unique_ptr<Communicator> w = [] {
    std::unique_ptr<Communicator> c;
    Status s = createMpiWorld(c);
    if (s.failed()) {
      fprintf(stderr, "%s\n", s.message.c_str());
      std::exit(1);
    }
    return c;
  }();
  return *w;
}

// Rank r contributes v_r[i] = (r + 1) * (i + 1) (and -(...) at odd i).
double contribution(int r, int i) {
  double v = (r + 1) * (i + 1);
  return i % 2 ? -v : v;
}

template <typename T>
void checkAllReduce(int32_t dtype, ReduceOp op) {
  Communicator &w = world();
  int n = w.size();
  std::vector<T> send(6), recv(6);
  for (int i = 0; i < 6; ++i)
    send[i] = static_cast<T>(contribution(w.rank(), i));
  ASSERT_FALSE(w.allReduce(send.data(), recv.data(), 6, dtype, op, nullptr)
                   .failed());
  for (int i = 0; i < 6; ++i) {
    double expect = contribution(0, i);
    for (int r = 1; r < n; ++r) {
      double v = contribution(r, i);
      expect = op == ReduceOp::Sum    ? expect + v
               : op == ReduceOp::Max  ? std::max(expect, v)
               : op == ReduceOp::Min  ? std::min(expect, v)
                                      : expect * v;
    }
    EXPECT_EQ(static_cast<double>(recv[i]), static_cast<double>(static_cast<T>(expect)))
        << "element " << i;
  }
}

} // namespace

TEST(MpiComm, World) {
  Communicator &w = world();
  EXPECT_STREQ(w.backend(), "mpi");
  EXPECT_GE(w.size(), 2);
  EXPECT_LT(w.rank(), w.size());
  sc_comm handle{&w};
  EXPECT_EQ(sc_comm_size(&handle), w.size());
}

TEST(MpiComm, AllReduceEveryTypeAndOp) {
  for (ReduceOp op :
       {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod}) {
    checkAllReduce<float>(1, op);
    checkAllReduce<double>(11, op);
    checkAllReduce<int32_t>(6, op);
    checkAllReduce<int64_t>(7, op);
    checkAllReduce<int8_t>(3, op);
  }
}

TEST(MpiComm, AllReduceHalfTypesInFloat) {
  Communicator &w = world();
  int n = w.size();
  // fp16 and bf16 hold these small integers exactly, as do their sums.
  for (int32_t dtype : {10, 16}) {
    bool bf = dtype == 16;
    std::vector<uint16_t> send(4), recv(4);
    for (int i = 0; i < 4; ++i) {
      float v = static_cast<float>(contribution(w.rank(), i));
      send[i] = bf ? sc_f2bf(v) : sc_f2h(v);
    }
    ASSERT_FALSE(w.allReduce(send.data(), recv.data(), 4, dtype,
                             ReduceOp::Sum, nullptr)
                     .failed());
    for (int i = 0; i < 4; ++i) {
      double expect = 0;
      for (int r = 0; r < n; ++r)
        expect += contribution(r, i);
      EXPECT_EQ(bf ? sc_bf2f(recv[i]) : sc_h2f(recv[i]), expect);
    }
  }
  // NaN wins max.
  std::vector<uint16_t> v = {sc_f2h(w.rank() == 0 ? NAN : 1.0f)};
  ASSERT_FALSE(
      w.allReduce(v.data(), v.data(), 1, 10, ReduceOp::Max, nullptr).failed());
  EXPECT_TRUE(std::isnan(sc_h2f(v[0])));
}

// Max and min of f32 and f64 propagate a NaN from any rank, first or last
// in the reduction order, as a kernel on one rank does (MPI_MAX would keep
// the other operand when the NaN comes first).
TEST(MpiComm, MaxMinPropagateNaN) {
  Communicator &w = world();
  int n = w.size();
  for (int nanRank : {0, n - 1}) {
    for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
      std::vector<float> f = {w.rank() == nanRank ? NAN : 1.0f * w.rank(),
                              2.0f * w.rank()};
      ASSERT_FALSE(
          w.allReduce(f.data(), f.data(), 2, 1, op, nullptr).failed());
      EXPECT_TRUE(std::isnan(f[0])) << "NaN on rank " << nanRank;
      EXPECT_EQ(f[1], op == ReduceOp::Max ? 2.0f * (n - 1) : 0.0f);
      std::vector<double> d = {w.rank() == nanRank ? NAN : -1.0 * w.rank()};
      ASSERT_FALSE(
          w.allReduce(d.data(), d.data(), 1, 11, op, nullptr).failed());
      EXPECT_TRUE(std::isnan(d[0])) << "NaN on rank " << nanRank;
    }
  }
}

// Every rank of this test runs on one host: its local rank is its rank.
TEST(MpiComm, LocalRankOnOneNode) {
  Communicator &w = world();
  EXPECT_EQ(w.localRank(), w.rank());
}

TEST(MpiComm, InPlaceAllReduce) {
  Communicator &w = world();
  std::vector<float> x(3, static_cast<float>(w.rank() + 1));
  ASSERT_FALSE(
      w.allReduce(x.data(), x.data(), 3, 1, ReduceOp::Sum, nullptr).failed());
  float n = static_cast<float>(w.size());
  EXPECT_EQ(x[2], n * (n + 1) / 2);
}

TEST(MpiComm, AllGatherReduceScatterAllToAll) {
  Communicator &w = world();
  int n = w.size(), r = w.rank();
  // all_gather: rank r sends [r, 10r]; everyone gets them in rank order.
  std::vector<int64_t> mine = {r, 10 * r}, all(2 * n);
  ASSERT_FALSE(w.allGather(mine.data(), all.data(), 2, 7, nullptr).failed());
  for (int j = 0; j < n; ++j) {
    EXPECT_EQ(all[2 * j], j);
    EXPECT_EQ(all[2 * j + 1], 10 * j);
  }
  // reduce_scatter: send[k] = r + k; block r of the sum is
  // sum_j (j + r*2 + i) over ranks j, for i in the block of 2.
  std::vector<float> send(2 * n), block(2);
  for (int k = 0; k < 2 * n; ++k)
    send[k] = static_cast<float>(r + k);
  ASSERT_FALSE(w.reduceScatter(send.data(), block.data(), 2, 1, ReduceOp::Sum,
                               nullptr)
                   .failed());
  for (int i = 0; i < 2; ++i) {
    float expect = 0;
    for (int j = 0; j < n; ++j)
      expect += static_cast<float>(j + 2 * r + i);
    EXPECT_EQ(block[i], expect);
  }
  // all_to_all: block k of rank r's send is 100r + k; block j received is
  // 100j + r.
  std::vector<int32_t> out(n), in(n);
  for (int k = 0; k < n; ++k)
    out[k] = 100 * r + k;
  ASSERT_FALSE(w.allToAll(out.data(), in.data(), 1, 6, nullptr).failed());
  for (int j = 0; j < n; ++j)
    EXPECT_EQ(in[j], 100 * j + r);
}

TEST(MpiComm, SendRecvRing) {
  Communicator &w = world();
  int n = w.size(), r = w.rank();
  // Even ranks send first, odd ranks receive first: no deadlock with
  // blocking calls for any n >= 2.
  double out = r * 1.5, in = -1;
  int next = (r + 1) % n, prev = (r + n - 1) % n;
  if (r % 2 == 0) {
    ASSERT_FALSE(w.send(&out, 1, 11, next, nullptr).failed());
    ASSERT_FALSE(w.recv(&in, 1, 11, prev, nullptr).failed());
  } else {
    ASSERT_FALSE(w.recv(&in, 1, 11, prev, nullptr).failed());
    ASSERT_FALSE(w.send(&out, 1, 11, next, nullptr).failed());
  }
  EXPECT_EQ(in, prev * 1.5);
}

TEST(MpiComm, RefusesBadCalls) {
  Communicator &w = world();
  float x = 1;
  Status s = w.send(&x, 1, 1, w.rank(), nullptr);
  EXPECT_EQ(s.code, SHARDC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s.message, "cannot send to rank " + std::to_string(w.rank()) +
                           " (rank " + std::to_string(w.rank()) + " of " +
                           std::to_string(w.size()) + ")");
  s = w.allReduce(&x, &x, 1, 8, ReduceOp::Sum, nullptr);
  EXPECT_EQ(s.message, "all_reduce: unsupported dtype 8 (unknown)");
  int stream = 0;
  s = w.allGather(&x, &x, 1, 1, &stream);
  EXPECT_EQ(s.code, SHARDC_ERROR_UNSUPPORTED);
  uint8_t b = 1;
  s = w.allReduce(&b, &b, 1, 9, ReduceOp::Sum, nullptr);
  EXPECT_EQ(s.message, "all_reduce: no sum of booleans");
  std::vector<std::unique_ptr<Communicator>> axes;
  s = w.splitMesh({w.size() + 1}, axes);
  EXPECT_EQ(s.message, "the mesh has " + std::to_string(w.size() + 1) +
                           " devices but the job has " +
                           std::to_string(w.size()) + " ranks (mpirun -np " +
                           std::to_string(w.size() + 1) + ")");
}

TEST(MpiComm, MeshAxes) {
  Communicator &w = world();
  if (w.size() != 4)
    GTEST_SKIP() << "the 2x2 mesh needs mpirun -np 4";
  std::vector<std::unique_ptr<Communicator>> axes;
  ASSERT_FALSE(w.splitMesh({2, 2}, axes).failed());
  ASSERT_EQ(axes.size(), 2u);
  int r = w.rank(), row = r / 2, col = r % 2;
  EXPECT_EQ(axes[0]->size(), 2);
  EXPECT_EQ(axes[0]->rank(), row);
  EXPECT_EQ(axes[1]->rank(), col);
  // Along axis 0 (same column): ranks col and 2 + col.
  int64_t v = r, sum = 0;
  ASSERT_FALSE(
      axes[0]->allReduce(&v, &sum, 1, 7, ReduceOp::Sum, nullptr).failed());
  EXPECT_EQ(sum, col + (2 + col));
  // Along axis 1 (same row): ranks 2*row and 2*row + 1.
  ASSERT_FALSE(
      axes[1]->allReduce(&v, &sum, 1, 7, ReduceOp::Sum, nullptr).failed());
  EXPECT_EQ(sum, 2 * row + (2 * row + 1));
}

/// Non-blocking sends: rank 0 posts eight messages to rank 1, large enough
/// for MPI's rendezvous protocol, before rank 1 receives any (a blocking
/// send would wait for the receive and never reach the barrier), and
/// overwrites its buffer right after each send (the staged copy is what
/// travels). Rank 1 gets them in order; rank 0's flush then completes them.
/// Both sides record trace events.
TEST(MpiComm, SendsInFlightKeepOrderAndTheirData) {
  Communicator &w = world();
  const int r = w.rank();
  constexpr int kMessages = 8;
  const size_t big = 1 << 18; // floats: 1 MiB
  TraceSink sink;
  w.setTrace(&sink);
  std::vector<float> buf(big);
  auto value = [](int msg, size_t i) {
    return static_cast<float>(msg * 1000 + static_cast<int>(i % 997));
  };
  auto size = [&](int msg) { return msg % 2 ? big : size_t(3 + msg); };
  if (r == 0) {
    for (int msg = 0; msg < kMessages; ++msg) {
      for (size_t i = 0; i < size(msg); ++i)
        buf[i] = value(msg, i);
      ASSERT_FALSE(w.send(buf.data(), size(msg), 1, 1, nullptr).failed());
      std::fill(buf.begin(), buf.end(), -1.f);
    }
  }
  // Every rank reaches the barrier; rank 1 has not received yet. Bounded:
  // a send that blocked would keep rank 0 from it.
  MPI_Request barrier;
  MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (int done = 0; !done;) {
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    if (!done && std::chrono::steady_clock::now() > deadline) {
      fprintf(stderr, "rank %d: the barrier after the sends did not complete "
                      "within 30 s: send blocked\n", r);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  if (r == 1) {
    for (int msg = 0; msg < kMessages; ++msg) {
      std::fill(buf.begin(), buf.end(), 0.f);
      ASSERT_FALSE(w.recv(buf.data(), size(msg), 1, 0, nullptr).failed());
      size_t wrong = 0;
      for (size_t i = 0; i < size(msg); ++i)
        wrong += buf[i] != value(msg, i);
      EXPECT_EQ(wrong, 0u) << "message " << msg;
    }
    // A size that differs from the sender's is an error naming both.
    if (w.size() > 2) {
      float small[2];
      Status s = w.recv(small, 2, 1, 2, nullptr);
      EXPECT_EQ(s.message, "recv on rank 1 of " + std::to_string(w.size()) +
                               ": rank 2 sent 1 elements, 2 expected");
    }
  }
  if (r == 2) {
    float one = 1;
    ASSERT_FALSE(w.send(&one, 1, 1, 1, nullptr).failed());
  }
  ASSERT_FALSE(w.flush().failed());
  w.setTrace(nullptr);
  // What was recorded: rank 0 sent to world rank 1 (and flushed), rank 1
  // received from world rank 0.
  int sends = 0, recvs = 0, flushes = 0;
  for (const TraceEvent &e : sink.all()) {
    EXPECT_STREQ(e.category, "comm");
    EXPECT_LE(e.start, e.end);
    std::string name = e.name;
    if (name == "send" && r == 0) {
      EXPECT_EQ(e.peer, 1);
      EXPECT_EQ(e.bytes, static_cast<int64_t>(4 * size(sends)));
      ++sends;
    } else if (name == "recv" && r == 1 && recvs < kMessages) {
      EXPECT_EQ(e.peer, 0);
      EXPECT_EQ(e.bytes, static_cast<int64_t>(4 * size(recvs)));
      ++recvs;
    } else if (name == "flush") {
      ++flushes;
    }
  }
  EXPECT_EQ(sends, r == 0 ? kMessages : 0);
  EXPECT_EQ(recvs, r == 1 ? kMessages : 0);
  EXPECT_LE(flushes, 1);
  // Every rank is done before the next test sends again.
  MPI_Barrier(MPI_COMM_WORLD);
}
