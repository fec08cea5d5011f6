//===- MpiComm.cpp - communicators over MPI -------------------------------===//

#include "runtime/src/comm/Mpi.h"

#include "shardc/cpu.h"
#include "shardc/format.h"

#include <mpi.h>

#include <cstdlib>
#include <mutex>
#include <string>

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

//===----------------------------------------------------------------------===//
// fp16 / bf16 reductions: MPI has no half types; they travel as 16-bit
// words and reduce in float (rounded once per combine, as NCCL does).
//===----------------------------------------------------------------------===//

template <float (*ToF)(uint16_t), uint16_t (*FromF)(float), int Kind>
void halfOp(void *in, void *inout, int *len, MPI_Datatype *) {
  const uint16_t *a = static_cast<const uint16_t *>(in);
  uint16_t *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = ToF(a[i]), y = ToF(b[i]);
    float r = Kind == 0 ? x + y
              : Kind == 1 ? (x != x || x > y ? x : y)  // NaN wins
                          : (x != x || x < y ? x : y);
    b[i] = FromF(r);
  }
}

struct HalfOps {
  MPI_Op op[2][3]; // [f16, bf16][sum, max, min]
};

const HalfOps &halfOps() {
  static HalfOps ops = [] {
    HalfOps h;
    MPI_Op_create(halfOp<sc_h2f, sc_f2h, 0>, 1, &h.op[0][0]);
    MPI_Op_create(halfOp<sc_h2f, sc_f2h, 1>, 1, &h.op[0][1]);
    MPI_Op_create(halfOp<sc_h2f, sc_f2h, 2>, 1, &h.op[0][2]);
    MPI_Op_create(halfOp<sc_bf2f, sc_f2bf, 0>, 1, &h.op[1][0]);
    MPI_Op_create(halfOp<sc_bf2f, sc_f2bf, 1>, 1, &h.op[1][1]);
    MPI_Op_create(halfOp<sc_bf2f, sc_f2bf, 2>, 1, &h.op[1][2]);
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
  }
  ~MpiComm() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Comm_free(&comm);
  }

  const char *backend() const override { return "mpi"; }
  int rank() const override { return r; }
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
  Status send(const void *buf, size_t count, int32_t dtype, int peer,
              void *stream) override {
    return call("send", count, dtype, nullptr, stream,
                [&](MPI_Datatype t, MPI_Op) {
                  return MPI_Send(buf, static_cast<int>(count), t, peer, kTag,
                                  comm);
                },
                "send to", peer);
  }
  Status recv(void *buf, size_t count, int32_t dtype, int peer,
              void *stream) override {
    return call("recv", count, dtype, nullptr, stream,
                [&](MPI_Datatype t, MPI_Op) {
                  MPI_Status status;
                  return MPI_Recv(buf, static_cast<int>(count), t, peer, kTag,
                                  comm, &status);
                },
                "receive from", peer);
  }
  void abort() override { MPI_Abort(comm, 1); }
  Status splitMesh(const std::vector<int64_t> &shape,
                   std::vector<std::unique_ptr<Communicator>> &axes) override;

private:
  static constexpr int kTag = 7;

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
    o = k == 0 ? MPI_SUM : k == 1 ? MPI_MAX : MPI_MIN;
    return {};
  }
  /// Checks the call (prepare), then makes it with the datatype and op and
  /// turns MPI's code into a Status (check).
  /// `peer` (point to point) is checked after the rest, as a receiver of
  /// the call would.
  template <typename Fn>
  Status call(const char *what, size_t elements, int32_t dtype,
              const ReduceOp *op, void *stream, Fn &&fn,
              const char *peerWhat = nullptr, int peer = 0) const {
    MPI_Datatype t;
    MPI_Op o = MPI_OP_NULL;
    if (Status s = prepare(what, elements, dtype, op, stream, t, o);
        s.failed())
      return s;
    if (peerWhat)
      if (Status s = checkPeer(peerWhat, peer); s.failed())
        return s;
    return check(what, fn(t, o));
  }
  Status checkPeer(const char *what, int peer) const {
    if (peer < 0 || peer >= n || peer == r)
      return {SHARDC_ERROR_INVALID_ARGUMENT,
              std::string("cannot ") + what + " rank " +
                  std::to_string(peer) + " (rank " + std::to_string(r) +
                  " of " + std::to_string(n) + ")"};
    return {};
  }
  Status check(const char *what, int code) const {
    if (code == MPI_SUCCESS)
      return {};
    return {SHARDC_ERROR_RUNTIME, std::string(what) + " on rank " +
                                      std::to_string(r) + " of " +
                                      std::to_string(n) + ": " +
                                      mpiError(code)};
  }

  MPI_Comm comm;
  int r = 0, n = 1;
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
