//===- Collectives.cpp - the collectives of CUDA code ---------------------===//
//
// The sc_cu_* collectives of shardc/cuda.h: the arguments of the CPU entry
// points (comm/Collectives.cpp) with device buffers, enqueued on the
// model's stream. The communicator is the rank's NCCL communicator of the
// mesh axis (CudaDevice.cpp puts them in the rank context). Errors become
// sc_fail messages.
//
//===----------------------------------------------------------------------===//
#include "Context.h"

#include "comm/Comm.h"
#include "shardc/cuda.h"

using shardc::rt::Communicator;
using shardc::rt::ReduceOp;
using shardc::rt::Status;

namespace {

/// Runs `call` on the communicator with the model's stream.
template <class F>
void onStream(sc_cuda *cu, sc_comm *comm, const char *what, F &&call) {
  if (!comm || !comm->impl) {
    sc_fail("%s: no communicator", what);
    return;
  }
  Status s = call(*comm->impl, static_cast<void *>(cu->stream));
  if (s.failed())
    sc_fail("%s", s.message.c_str());
}

} // namespace

extern "C" void sc_cu_all_reduce(sc_cuda *cu, sc_comm *comm, const void *in,
                                 void *out, uint64_t count, int32_t dtype,
                                 int32_t kind) {
  ReduceOp op;
  if (shardc::rt::reduceOpOf(kind, op, "all_reduce"))
    onStream(cu, comm, "all_reduce", [&](Communicator &c, void *stream) {
      return c.allReduce(in, out, count, dtype, op, stream);
    });
}

extern "C" void sc_cu_all_gather(sc_cuda *cu, sc_comm *comm, const void *in,
                                 void *out, uint64_t count, int32_t dtype) {
  onStream(cu, comm, "all_gather", [&](Communicator &c, void *stream) {
    return c.allGather(in, out, count, dtype, stream);
  });
}

extern "C" void sc_cu_reduce_scatter(sc_cuda *cu, sc_comm *comm,
                                     const void *in, void *out,
                                     uint64_t count, int32_t dtype,
                                     int32_t kind) {
  ReduceOp op;
  if (shardc::rt::reduceOpOf(kind, op, "reduce_scatter"))
    onStream(cu, comm, "reduce_scatter", [&](Communicator &c, void *stream) {
      return c.reduceScatter(in, out, count, dtype, op, stream);
    });
}

extern "C" void sc_cu_all_to_all(sc_cuda *cu, sc_comm *comm, const void *in,
                                 void *out, uint64_t count, int32_t dtype) {
  onStream(cu, comm, "all_to_all", [&](Communicator &c, void *stream) {
    return c.allToAll(in, out, count, dtype, stream);
  });
}

extern "C" void sc_cu_send(sc_cuda *cu, sc_comm *comm, const void *buf,
                           uint64_t count, int32_t dtype, int32_t offset) {
  onStream(cu, comm, "send", [&](Communicator &c, void *stream) -> Status {
    int peer;
    if (!shardc::rt::peerOf(c, offset, "send to", peer))
      return {}; // peerOf reported it
    return c.send(buf, count, dtype, peer, stream);
  });
}

extern "C" void sc_cu_recv(sc_cuda *cu, sc_comm *comm, void *buf,
                           uint64_t count, int32_t dtype, int32_t offset) {
  onStream(cu, comm, "recv", [&](Communicator &c, void *stream) -> Status {
    int peer;
    if (!shardc::rt::peerOf(c, offset, "receive from", peer))
      return {};
    return c.recv(buf, count, dtype, peer, stream);
  });
}
