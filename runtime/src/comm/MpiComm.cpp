//===- MpiComm.cpp - communicators over MPI -------------------------------===//

#include "runtime/src/comm/Mpi.h"
#include "runtime/src/comm/Watchdog.h"

#include "shardc/cpu.h"
#include "shardc/format.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace shardc::rt;
namespace fmt = shardc::format;

namespace {

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, len);
}

/// x combined with y by ReduceOp `Kind` (Sum, Max, Min, Prod); max and min
/// let a NaN on either side win, as the generated reduction kernels do.
template <int Kind, typename T> T combine(T x, T y) {
  return Kind == 0   ? x + y
         : Kind == 1 ? (x != x || x > y ? x : y)
         : Kind == 2 ? (x != x || x < y ? x : y)
                     : x * y;
}

//===----------------------------------------------------------------------===//
// fp16 / bf16 reductions: MPI has no half types; they travel as 16-bit
// words and reduce in float (rounded once per combine, as NCCL does).
//===----------------------------------------------------------------------===//

template <float (*ToF)(uint16_t), uint16_t (*FromF)(float), int Kind>
void halfOp(void *in, void *inout, int *len, MPI_Datatype *) {
  const uint16_t *a = static_cast<const uint16_t *>(in);
  uint16_t *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i)
    b[i] = FromF(combine<Kind>(ToF(a[i]), ToF(b[i])));
}

//===----------------------------------------------------------------------===//
// float / double max and min: MPI_MAX and MPI_MIN do not say what a NaN
// does (Open MPI's `a > b ? a : b` drops it when it comes first), while a
// reduction on one rank propagates it. These ops make a NaN in any rank's
// value the result (combine).
//===----------------------------------------------------------------------===//

template <typename T, int Kind>
void floatOp(void *in, void *inout, int *len, MPI_Datatype *) {
  const T *a = static_cast<const T *>(in);
  T *b = static_cast<T *>(inout);
  for (int i = 0; i < *len; ++i)
    b[i] = combine<Kind>(a[i], b[i]);
}

struct FloatOps {
  MPI_Op op[2][2]; // [float, double][max, min]
};

const FloatOps &floatOps() {
  static FloatOps ops = [] {
    FloatOps f;
    MPI_Op_create(floatOp<float, 1>, 1, &f.op[0][0]);
    MPI_Op_create(floatOp<float, 2>, 1, &f.op[0][1]);
    MPI_Op_create(floatOp<double, 1>, 1, &f.op[1][0]);
    MPI_Op_create(floatOp<double, 2>, 1, &f.op[1][1]);
    return f;
  }();
  return ops;
}

struct HalfOps {
  MPI_Op op[2][4]; // [f16, bf16][sum, max, min, prod]
};

const HalfOps &halfOps() {
  static HalfOps ops = [] {
    HalfOps h;
    MPI_Op_create(halfOp<sc_h2f, sc_f2h, 0>, 1, &h.op[0][0]);
    MPI_Op_create(halfOp<sc_h2f, sc_f2h, 1>, 1, &h.op[0][1]);
    MPI_Op_create(halfOp<sc_h2f, sc_f2h, 2>, 1, &h.op[0][2]);
    MPI_Op_create(halfOp<sc_h2f, sc_f2h, 3>, 1, &h.op[0][3]);
    MPI_Op_create(halfOp<sc_bf2f, sc_f2bf, 0>, 1, &h.op[1][0]);
    MPI_Op_create(halfOp<sc_bf2f, sc_f2bf, 1>, 1, &h.op[1][1]);
    MPI_Op_create(halfOp<sc_bf2f, sc_f2bf, 2>, 1, &h.op[1][2]);
    MPI_Op_create(halfOp<sc_bf2f, sc_f2bf, 3>, 1, &h.op[1][3]);
    return h;
  }();
  return ops;
}

/// The MPI datatype of an ONNX dtype (half types as 16-bit words).
bool mpiType(int32_t dtype, MPI_Datatype &t) {
  switch (dtype) {
  case fmt::kF32: t = MPI_FLOAT; return true;
  case fmt::kF64: t = MPI_DOUBLE; return true;
  case fmt::kI8: t = MPI_INT8_T; return true;
  case fmt::kU8: t = MPI_UINT8_T; return true;
  case fmt::kBool: t = MPI_UINT8_T; return true;
  case fmt::kI16: t = MPI_INT16_T; return true;
  case fmt::kU16: t = MPI_UINT16_T; return true;
  case fmt::kF16: t = MPI_UINT16_T; return true;
  case fmt::kBF16: t = MPI_UINT16_T; return true;
  case fmt::kI32: t = MPI_INT32_T; return true;
  case fmt::kU32: t = MPI_UINT32_T; return true;
  case fmt::kI64: t = MPI_INT64_T; return true;
  case fmt::kU64: t = MPI_UINT64_T; return true;
  default: return false;
  }
}

class MpiComm final : public Communicator {
public:
  explicit MpiComm(MPI_Comm comm) : comm(comm) {
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    // The world rank of each member, for trace events.
    MPI_Group group, worldGroup;
    worldRanks.resize(n);
    std::vector<int> mine(n);
    for (int i = 0; i < n; ++i)
      mine[i] = i;
    if (MPI_Comm_group(comm, &group) == MPI_SUCCESS &&
        MPI_Comm_group(MPI_COMM_WORLD, &worldGroup) == MPI_SUCCESS) {
      MPI_Group_translate_ranks(group, n, mine.data(), worldGroup,
                                worldRanks.data());
      MPI_Group_free(&group);
      MPI_Group_free(&worldGroup);
    } else {
      worldRanks = mine;
    }
  }
  ~MpiComm() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
      return;
    // Sends still in flight (a run that failed before its flush): MPI
    // keeps them going; their buffers are left to it rather than freed
    // under it.
    for (Pending &p : pending) {
      int done = 0;
      if (MPI_Test(&p.request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
          !done) {
        if (p.request != MPI_REQUEST_NULL)
          MPI_Request_free(&p.request);
        p.buffer.data.release();
      }
    }
    MPI_Comm_free(&comm);
  }

  const char *backend() const override { return "mpi"; }
  int rank() const override { return r; }
  int localRank() const override {
    if (local < 0) {
      MPI_Comm node;
      local = r;
      if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL,
                              &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
      }
    }
    return local;
  }
  int size() const override { return n; }
  MPI_Comm handle() const { return comm; }

  Status allReduce(const void *send, void *recv, size_t count, int32_t dtype,
                   ReduceOp op, void *stream) override {
    return call("all_reduce", count, dtype, &op, stream,
                [&](MPI_Datatype t, MPI_Op o) {
                  return MPI_Allreduce(send == recv ? MPI_IN_PLACE : send,
                                       recv, static_cast<int>(count), t, o,
                                       comm);
                });
  }
  Status allGather(const void *send, void *recv, size_t count, int32_t dtype,
                   void *stream) override {
    return call("all_gather", count * n, dtype, nullptr, stream,
                [&](MPI_Datatype t, MPI_Op) {
                  return MPI_Allgather(send, static_cast<int>(count), t, recv,
                                       static_cast<int>(count), t, comm);
                });
  }
  Status reduceScatter(const void *send, void *recv, size_t count,
                       int32_t dtype, ReduceOp op, void *stream) override {
    return call("reduce_scatter", count * n, dtype, &op, stream,
                [&](MPI_Datatype t, MPI_Op o) {
                  return MPI_Reduce_scatter_block(
                      send, recv, static_cast<int>(count), t, o, comm);
                });
  }
  Status allToAll(const void *send, void *recv, size_t count, int32_t dtype,
                  void *stream) override {
    return call("all_to_all", count * n, dtype, nullptr, stream,
                [&](MPI_Datatype t, MPI_Op) {
                  return MPI_Alltoall(send, static_cast<int>(count), t, recv,
                                      static_cast<int>(count), t, comm);
                });
  }
  Status allToAllV(const void *send, const size_t *sendCounts,
                   const size_t *sendOffsets, void *recv,
                   const size_t *recvCounts, const size_t *recvOffsets,
                   int32_t dtype, void *stream) override {
    // MPI's counts and displacements are ints: the largest end decides.
    size_t most = 0;
    std::vector<int> sc(n), sd(n), rc(n), rd(n);
    for (int i = 0; i < n; ++i) {
      most = std::max({most, sendOffsets[i] + sendCounts[i],
                       recvOffsets[i] + recvCounts[i]});
      sc[i] = static_cast<int>(sendCounts[i]);
      sd[i] = static_cast<int>(sendOffsets[i]);
      rc[i] = static_cast<int>(recvCounts[i]);
      rd[i] = static_cast<int>(recvOffsets[i]);
    }
    return call("all_to_all_v", most, dtype, nullptr, stream,
                [&](MPI_Datatype t, MPI_Op) {
                  return MPI_Alltoallv(send, sc.data(), sd.data(), t, recv,
                                       rc.data(), rd.data(), t, comm);
                });
  }
  /// Non-blocking: `buf` is copied into a staging buffer of the
  /// communicator's (the caller's arena is reused by the next micro-batch)
  /// and posted with MPI_Isend; finished sends give their buffers back
  /// here and in flush().
  Status send(const void *buf, size_t count, int32_t dtype, int peer,
              void *stream) override {
    size_t bytes = count * fmt::dtypeSize(dtype);
    return call("send", count, dtype, nullptr, stream,
                [&](MPI_Datatype t, MPI_Op) {
                  if (int code = reclaim(false); code != MPI_SUCCESS)
                    return code;
                  Pending p;
                  p.buffer = takeBuffer(bytes);
                  if (bytes)
                    std::memcpy(p.buffer.data.get(), buf, bytes);
                  p.bytes = bytes;
                  p.peer = peer;
                  int code = MPI_Isend(p.buffer.data.get(),
                                       static_cast<int>(count), t, peer, kTag,
                                       comm, &p.request);
                  if (code != MPI_SUCCESS) {
                    spare.push_back(std::move(p.buffer));
                    return code;
                  }
                  pending.push_back(std::move(p));
                  return MPI_SUCCESS;
                },
                "send to", peer);
  }
  Status recv(void *buf, size_t count, int32_t dtype, int peer,
              void *stream) override {
    MPI_Status status;
    Status s = call("recv", count, dtype, nullptr, stream,
                    [&](MPI_Datatype t, MPI_Op) {
                      return MPI_Recv(buf, static_cast<int>(count), t, peer,
                                      kTag, comm, &status);
                    },
                    "receive from", peer);
    if (s.failed())
      return s;
    MPI_Datatype t;
    mpiType(dtype, t);
    int got = 0;
    if (MPI_Get_count(&status, t, &got) == MPI_SUCCESS &&
        static_cast<size_t>(got) != count)
      return {SHARDC_ERROR_RUNTIME,
              "recv on rank " + std::to_string(r) + " of " +
                  std::to_string(n) + ": rank " + std::to_string(peer) +
                  " sent " + std::to_string(got) + " elements, " +
                  std::to_string(count) + " expected"};
    return {};
  }
  Status flush() override {
    if (pending.empty())
      return {};
    int64_t bytes = 0;
    for (const Pending &p : pending)
      bytes += static_cast<int64_t>(p.bytes);
    TraceScope scope(trace, "flush", bytes);
    CommGuard guard("flush", worldRanks);
    return check("flush", reclaim(true));
  }
  void abort() override { MPI_Abort(comm, 1); }
  Status splitMesh(const std::vector<int64_t> &shape,
                   std::vector<std::unique_ptr<Communicator>> &axes) override;

private:
  /// Point-to-point messages: one tag, so that MPI's order per (source,
  /// tag, communicator) is the order of the sends.
  static constexpr int kTag = 7;

  struct Buffer {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
  };
  struct Pending {
    MPI_Request request = MPI_REQUEST_NULL;
    Buffer buffer;
    size_t bytes = 0;
    int peer = 0;
  };

  /// A staging buffer of at least `bytes`: a free one large enough, else a
  /// new one.
  Buffer takeBuffer(size_t bytes) {
    for (size_t i = 0; i < spare.size(); ++i)
      if (spare[i].capacity >= bytes) {
        Buffer b = std::move(spare[i]);
        spare[i] = std::move(spare.back());
        spare.pop_back();
        return b;
      }
    Buffer b;
    b.capacity = bytes ? bytes : 1;
    b.data.reset(new char[b.capacity]);
    return b;
  }
  /// Moves the buffers of finished sends to the free list; with `wait`,
  /// waits for every pending send first. Returns the first MPI error.
  int reclaim(bool wait) {
    int result = MPI_SUCCESS;
    for (size_t i = 0; i < pending.size();) {
      int done = 0;
      int code = wait ? MPI_Wait(&pending[i].request, MPI_STATUS_IGNORE)
                      : MPI_Test(&pending[i].request, &done,
                                 MPI_STATUS_IGNORE);
      if (code != MPI_SUCCESS) {
        if (result == MPI_SUCCESS)
          result = code;
        ++i;
        if (wait)
          continue;
        break;
      }
      if (!wait && !done) {
        ++i;
        continue;
      }
      spare.push_back(std::move(pending[i].buffer));
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return result;
  }

  /// The datatype and op of a call, or why it cannot be made. `op` is null
  /// for data movement.
  Status prepare(const char *what, size_t elements, int32_t dtype,
                 const ReduceOp *op, void *stream, MPI_Datatype &t,
                 MPI_Op &o) const {
    if (stream)
      return {SHARDC_ERROR_UNSUPPORTED,
              std::string(what) + ": MPI takes host buffers; GPU ranks "
                                  "communicate through NCCL"};
    if (!mpiType(dtype, t))
      return {SHARDC_ERROR_INVALID_ARGUMENT,
              std::string(what) + ": unsupported dtype " +
                  std::to_string(dtype) + " (" + fmt::dtypeName(dtype) +
                  ")"};
    // MPI counts are ints.
    if (elements > static_cast<size_t>(INT32_MAX))
      return {SHARDC_ERROR_UNSUPPORTED,
              std::string(what) + ": " + std::to_string(elements) +
                  " elements exceed MPI's int counts"};
    if (!op)
      return {};
    int k = static_cast<int>(*op);
    if (dtype == fmt::kF16 || dtype == fmt::kBF16) {
      o = halfOps().op[dtype == fmt::kBF16][k];
      return {};
    }
    if (dtype == fmt::kBool) {
      if (*op == ReduceOp::Sum)
        return {SHARDC_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": no sum of booleans"};
      o = *op == ReduceOp::Max ? MPI_LOR : MPI_LAND;
      return {};
    }
    bool isFloat = dtype == fmt::kF32 || dtype == fmt::kF64;
    if (isFloat && (*op == ReduceOp::Max || *op == ReduceOp::Min)) {
      o = floatOps().op[dtype == fmt::kF64][*op == ReduceOp::Min];
      return {};
    }
    o = k == 0 ? MPI_SUM : k == 1 ? MPI_MAX : k == 2 ? MPI_MIN : MPI_PROD;
    return {};
  }
  /// Checks the call (prepare), then makes it with the datatype and op and
  /// turns MPI's code into a Status (check).
  /// `peer` (point to point) is checked after the rest, as a receiver of
  /// the call would.
  /// The call is recorded in the trace (bytes: the larger buffer; peer:
  /// its world rank).
  template <typename Fn>
  Status call(const char *what, size_t elements, int32_t dtype,
              const ReduceOp *op, void *stream, Fn &&fn,
              const char *peerWhat = nullptr, int peer = 0) {
    MPI_Datatype t;
    MPI_Op o = MPI_OP_NULL;
    if (Status s = prepare(what, elements, dtype, op, stream, t, o);
        s.failed())
      return s;
    if (peerWhat)
      if (Status s = checkPeer(peerWhat, peer); s.failed())
        return s;
    TraceScope scope(trace, what,
                     static_cast<int64_t>(elements * fmt::dtypeSize(dtype)),
                     peerWhat ? worldRanks[peer] : -1);
    CommGuard guard(what, worldRanks);
    return check(what, fn(t, o), peerWhat ? peer : -1);
  }
  Status checkPeer(const char *what, int peer) const {
    if (peer < 0 || peer >= n || peer == r)
      return {SHARDC_ERROR_INVALID_ARGUMENT,
              std::string("cannot ") + what + " rank " +
                  std::to_string(peer) + " (rank " + std::to_string(r) +
                  " of " + std::to_string(n) + ")"};
    return {};
  }
  /// "recv on rank 1 of 2 (from rank 0): MPI_ERR_...": the peer is named
  /// for point to point.
  Status check(const char *what, int code, int peer = -1) const {
    if (code == MPI_SUCCESS)
      return {};
    std::string with;
    if (peer >= 0)
      with = std::string(" (") + (std::strcmp(what, "recv") ? "to" : "from") +
             " rank " + std::to_string(peer) + ")";
    return {SHARDC_ERROR_RUNTIME, std::string(what) + " on rank " +
                                      std::to_string(r) + " of " +
                                      std::to_string(n) + with + ": " +
                                      mpiError(code)};
  }

  MPI_Comm comm;
  int r = 0, n = 1;
  mutable int local = -1; ///< localRank(), once asked
  std::vector<int> worldRanks;
  std::vector<Pending> pending;
  std::vector<Buffer> spare; ///< staging buffers of finished sends
};

void finalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

} // namespace

Status shardc::rt::createMpiWorld(std::unique_ptr<Communicator> &out) {
  static std::once_flag once;
  static int initError = MPI_SUCCESS;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized)
      return;
    int provided = 0;
    initError = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED,
                                &provided);
    if (initError == MPI_SUCCESS)
      std::atexit(finalizeAtExit);
  });
  if (initError != MPI_SUCCESS)
    return {SHARDC_ERROR_RUNTIME,
            "cannot initialize MPI: " + mpiError(initError)};
  MPI_Comm world;
  int code = MPI_Comm_dup(MPI_COMM_WORLD, &world);
  if (code != MPI_SUCCESS)
    return {SHARDC_ERROR_RUNTIME,
            "cannot duplicate MPI_COMM_WORLD: " + mpiError(code)};
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  int size = 1, rank = 0;
  MPI_Comm_size(world, &size);
  MPI_Comm_rank(world, &rank);
  if (size > 1) {
    // Where every rank runs, for the watchdog's report of a silent one.
    double timeout = 0;
    std::string error;
    if (!commTimeoutSeconds(timeout, error)) {
      MPI_Comm_free(&world);
      return {SHARDC_ERROR_INVALID_ARGUMENT, error};
    }
    constexpr int kHost = 256;
    char host[kHost] = {};
    gethostname(host, kHost - 1);
    std::vector<char> hosts(static_cast<size_t>(size) * kHost);
    std::vector<int> pids(size);
    int pid = static_cast<int>(getpid());
    if (MPI_Allgather(host, kHost, MPI_CHAR, hosts.data(), kHost, MPI_CHAR,
                      world) == MPI_SUCCESS &&
        MPI_Allgather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, world) ==
            MPI_SUCCESS) {
      std::vector<RankPlace> places(size);
      for (int i = 0; i < size; ++i)
        places[i] = {std::string(hosts.data() + static_cast<size_t>(i) * kHost),
                     pids[i]};
      startWatchdog(std::move(places), rank, timeout);
    }
  }
  out = std::make_unique<MpiComm>(world);
  return {};
}

Status MpiComm::splitMesh(
    const std::vector<int64_t> &shape,
    std::vector<std::unique_ptr<Communicator>> &axes) {
  std::vector<int64_t> coord;
  if (Status s = meshCoordinates(shape, r, n, coord); s.failed())
    return s;
  axes.clear();
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    // Color: the linear index with this axis' coordinate zeroed.
    int64_t color = 0;
    for (size_t i = 0; i < shape.size(); ++i)
      color = color * shape[i] + (i == axis ? 0 : coord[i]);
    MPI_Comm sub;
    int code = MPI_Comm_split(comm, static_cast<int>(color),
                              static_cast<int>(coord[axis]), &sub);
    if (code != MPI_SUCCESS)
      return {SHARDC_ERROR_RUNTIME, "cannot split mesh axis " +
                                        std::to_string(axis) + ": " +
                                        mpiError(code)};
    MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
    axes.push_back(std::make_unique<MpiComm>(sub));
  }
  return {};
}

/// For generated multi-rank programs (shardc_program.world): the MPI world,
/// owned by the caller (sc_comm_free).
extern "C" sc_comm *sc_mpi_world(void) {
  std::unique_ptr<Communicator> world;
  Status s = createMpiWorld(world);
  if (s.failed()) {
    sc_fail("%s", s.message.c_str());
    return nullptr;
  }
  return new sc_comm{world.release()};
}
