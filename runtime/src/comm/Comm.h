//===- Comm.h - the communicator seam ---------------------------*- C++ -*-===//
//
// A communicator is a group of ranks that run collectives together: the
// world, or the ranks along one mesh axis. Generated code reaches it
// through the rank context (sc_rank_ctx in shardc/cpu.h: one `sc_comm` per
// mesh axis plus the world), never through a transport directly, so the
// same program runs over MPI on CPU ranks and NCCL on GPUs. This follows
// IREE's HAL channel (runtime/src/iree/hal/channel.h: rank and count, a
// group made by splitting a parent, collectives recorded against it) and its
// NCCL channel (hal/drivers/cuda/nccl_channel.h).
//
// Implementations:
//   - SelfComm (this folder): the one-rank world of an unpartitioned run;
//     every collective is a copy.
//   - MPI (CPU ranks) and NCCL (GPUs, opened with dlopen, the unique id sent
//     over MPI) come with partitioning.
//
// Buffers are host pointers on the CPU; on a GPU they are device pointers
// and `stream` is the rank's CUstream, on which the operation is enqueued
// (inside the captured CUDA graph). Counts are elements of `dtype` (ONNX
// codes). Failures are a Status whose message names the operation and, for
// a lost peer, the peer's rank.
//
// Point to point (pipeline stages): send may return before the data has
// left (MPI copies it and posts a non-blocking send, so that a stage goes
// on with its next micro-batch); flush waits for every send still in
// flight, and the runtime calls it at the end of each run. recv blocks
// until the data is there. Messages between two ranks arrive in the order
// they were sent.
//
// Tracing: with a TraceSink set (setTrace), an implementation records one
// event per operation (Trace.h).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_COMM_COMM_H
#define SHARDC_RUNTIME_COMM_COMM_H

#include "runtime/src/Status.h"
#include "runtime/src/Trace.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shardc::rt {

/// Max and min of floating-point values propagate NaN (as a kernel on one
/// rank does: a NaN anywhere in the group gives NaN), which MPI_MAX and
/// ncclMax do not promise.
enum class ReduceOp { Sum, Max, Min, Prod };

class Communicator {
public:
  virtual ~Communicator() = default;
  /// "self", "mpi", "nccl".
  virtual const char *backend() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// This rank's index among the group's ranks on its node (MPI's
  /// shared-memory split): the GPU a rank takes is its local rank, not its
  /// rank modulo the node's GPUs (which clashes when nodes hold different
  /// numbers of ranks).
  virtual int localRank() const { return rank(); }

  /// recv = op over the group of every rank's send (count elements each);
  /// send == recv is allowed.
  virtual Status allReduce(const void *send, void *recv, size_t count,
                           int32_t dtype, ReduceOp op, void *stream) = 0;
  /// recv (size() * count elements) = every rank's send, in rank order.
  virtual Status allGather(const void *send, void *recv, size_t count,
                           int32_t dtype, void *stream) = 0;
  /// recv (count elements) = block rank() of the op over every rank's send
  /// (size() * count elements).
  virtual Status reduceScatter(const void *send, void *recv, size_t count,
                               int32_t dtype, ReduceOp op, void *stream) = 0;
  /// Block j of send (count elements per peer) goes to rank j; block i of
  /// recv comes from rank i.
  virtual Status allToAll(const void *send, void *recv, size_t count,
                          int32_t dtype, void *stream) = 0;
  /// The variable-size form (expert parallelism): sendCounts[j] elements
  /// from send + sendOffsets[j] go to rank j, and recvCounts[i] elements
  /// from rank i land at recv + recvOffsets[i] (size() entries each; the
  /// counts must match what the peers send). On a GPU the counts are host
  /// arrays and the buffers device memory.
  virtual Status allToAllV(const void *send, const size_t *sendCounts,
                           const size_t *sendOffsets, void *recv,
                           const size_t *recvCounts,
                           const size_t *recvOffsets, int32_t dtype,
                           void *stream) = 0;
  /// Point to point, for pipeline stages.
  virtual Status send(const void *buf, size_t count, int32_t dtype, int peer,
                      void *stream) = 0;
  virtual Status recv(void *buf, size_t count, int32_t dtype, int peer,
                      void *stream) = 0;
  /// Waits until every send made so far has completed (MPI: waits on the
  /// pending non-blocking sends). An implementation whose sends complete
  /// before they return has nothing to wait for.
  virtual Status flush() { return {}; }
  /// Gives up on every pending operation after a failure elsewhere, so that
  /// no rank waits forever (ncclCommAbort; MPI_Abort ends the job).
  virtual void abort() = 0;

  /// The communicators along each axis of a mesh of `shape` over this
  /// group (whose size must be the product of `shape`; ranks are numbered
  /// row-major over the mesh): axis i groups the ranks that differ from
  /// this one only in coordinate i, ordered by that coordinate. The error
  /// names the mismatch ("the mesh has 4 devices but the job has 2 ranks").
  virtual Status splitMesh(const std::vector<int64_t> &shape,
                           std::vector<std::unique_ptr<Communicator>> &axes) = 0;

  /// Where operations are recorded (null: nowhere). The sink must outlive
  /// the communicator's use of it.
  void setTrace(TraceSink *sink) { trace = sink; }

protected:
  TraceSink *trace = nullptr;
};

/// The size check and row-major coordinates shared by the implementations
/// of splitMesh: fails unless `shape` has `size` devices.
Status meshCoordinates(const std::vector<int64_t> &shape, int rank, int size,
                       std::vector<int64_t> &coord);

/// A time limit from environment variable `name` in seconds (`dflt` when
/// unset or empty); false with a one-line error naming the variable when
/// it is not a number of seconds greater than 0 (the communicators'
/// SHARDC_COMM_TIMEOUT and SHARDC_NCCL_TIMEOUT).
bool secondsFromEnv(const char *name, double dflt, double &seconds,
                    std::string &error);

/// The ReduceOp of a generated code's SC_REDUCE_* kind; an unknown kind is
/// an sc_fail naming `what` (shared by the CPU and CUDA entry points).
bool reduceOpOf(int32_t kind, ReduceOp &op, const char *what);

/// The peer of sc_send / sc_recv (`what`: "send to", "receive from"): this
/// rank + `offset` in `comm`'s group; outside the group it is an sc_fail
/// naming it ("send to rank 2 of a 2-rank group (rank 1 + offset 1)").
bool peerOf(const Communicator &comm, int32_t offset, const char *what,
            int &peer);

/// The world of a single-rank run: rank 0 of 1, collectives copy send to
/// recv (host memory only), and there is no peer to send to.
std::unique_ptr<Communicator> createSelfComm();

} // namespace shardc::rt

/// What generated code holds (sc_comm in shardc/cpu.h).
struct sc_comm {
  shardc::rt::Communicator *impl = nullptr;
};

#endif // SHARDC_RUNTIME_COMM_COMM_H
