//===- Collectives.cpp - the collectives of CUDA code ---------------------===//
//
// The sc_cu_* collectives of shardc/cuda.h: the arguments of the CPU entry
// points (comm/Collectives.cpp) with device buffers, enqueued on the
// model's stream. The communicator is the rank's NCCL communicator of the
// mesh axis (CudaDevice.cpp puts them in the rank context). Errors become
// sc_fail messages.
//
// Expert parallelism's exchanges (sc_cu_moe_dispatch, sc_cu_moe_return)
// follow the CPU entry points (comm/ExpertExchange.cpp) with the same
// bookkeeping (comm/ExpertExchange.h), planned on the host: the row counts
// come back from the GPU (a wait for the stream, under NCCL's watch), the
// rows move by a grouped NCCL send/recv into a staging buffer of the
// context, and device-to-device copies on the stream regroup them. Because
// they wait for the stream, a program that calls them is never captured
// into a CUDA graph (sc_cuda::hostSyncs).
//
//===----------------------------------------------------------------------===//
#include "Context.h"

#include "comm/Comm.h"
#include "comm/ExpertExchange.h"
#include "shardc/cuda.h"
#include "shardc/format.h"

#include <algorithm>

using shardc::rt::Communicator;
using shardc::rt::ExpertExchange;
using shardc::rt::ReduceOp;
using shardc::rt::Status;
using namespace shardc::rt::cuda;

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

//===----------------------------------------------------------------------===//
// Expert parallelism
//===----------------------------------------------------------------------===//

namespace {

/// One exchange's state on the host: the communicator, the shape of the
/// group and the errors, named after the entry point (`what`).
struct Exchange {
  sc_cuda &cu;
  const char *what;
  Communicator *comm = nullptr;
  int n = 1;
  int64_t L = 1;
  size_t rowBytes = 0;

  Exchange(sc_cuda &cu, sc_comm *c, const char *what, uint64_t localSlots,
           uint64_t width, int32_t dtype)
      : cu(cu), what(what), L(static_cast<int64_t>(localSlots)),
        rowBytes(static_cast<size_t>(width) *
                 shardc::format::dtypeSize(dtype)) {
    // Set before anything can fail: this run() waits for the stream, so
    // the device must not capture it (CudaDevice.cpp).
    cu.hostSyncs = true;
    if (!c || !c->impl) {
      sc_fail("%s: no communicator", what);
      return;
    }
    comm = c->impl;
    n = comm->size();
  }

  /// False after sc_fail with the failure's message.
  bool ok(const Status &s) const {
    if (s.failed())
      sc_fail("%s", s.message.c_str());
    return !s.failed();
  }
  bool ok(CUresult r, const char *step) const {
    if (r)
      sc_fail("%s: CUDA error %s: %s", what, step, cu.drv.errorText(r).c_str());
    return r == CUDA_SUCCESS;
  }
  /// Waits for the stream (under NCCL's watch).
  bool wait(const char *step) const {
    CUresult r;
    return ok(synchronizeStream(cu, what, r)) && ok(r, step);
  }

  /// cu.expertHost with room for `ints`. Growing it first waits for the
  /// stream: a copy queued by the previous exchange may still read it.
  int32_t *host(size_t ints) {
    if (ints <= cu.expertHostInts)
      return cu.expertHost;
    if (!wait("before growing the host buffer"))
      return nullptr;
    if (cu.expertHost)
      cu.drv.cuMemFreeHost(cu.expertHost);
    cu.expertHost = nullptr;
    cu.expertHostInts = 0;
    void *p = nullptr;
    if (!ok(cu.drv.cuMemAllocHost(&p, ints * sizeof(int32_t)),
            "allocating page-locked memory for the row counts"))
      return nullptr;
    cu.expertHost = static_cast<int32_t *>(p);
    cu.expertHostInts = ints;
    return cu.expertHost;
  }

  /// cu.expertStaging with room for `bytes`; call right after wait(), so
  /// that nothing queued uses the old buffer. Null after sc_fail.
  void *staging(size_t bytes) {
    bytes = std::max<size_t>(bytes, 256); // cuMemAlloc rejects 0 bytes
    if (!growDeviceBuffer(cu, cu.expertStaging, cu.expertStagingBytes, bytes,
                          what, "staging buffer"))
      return nullptr;
    return devicePointer(cu.expertStaging);
  }

  /// Copies `ints` int32 from the device to `dst` (page-locked) on the
  /// stream.
  bool download(int32_t *dst, const int32_t *src, size_t ints,
                const char *step) const {
    return ok(cu.drv.cuMemcpyDtoHAsync(dst, deviceAddress(src),
                                       ints * sizeof(int32_t), cu.stream),
              step);
  }

  /// Copies blocks of rows on the stream: from the staging layout to the
  /// grouped one (`toGrouped`) or back.
  bool regroup(const ExpertExchange &x, const void *from, void *to,
               bool toGrouped) const {
    CUdeviceptr src = deviceAddress(from), dst = deviceAddress(to);
    for (const ExpertExchange::Block &b : x.blocks) {
      size_t in = toGrouped ? b.staged : b.grouped;
      size_t out = toGrouped ? b.grouped : b.staged;
      if (!ok(cu.drv.cuMemcpyDtoDAsync(dst + out * rowBytes,
                                       src + in * rowBytes, b.rows * rowBytes,
                                       cu.stream),
              "regrouping the rows"))
        return false;
    }
    return true;
  }
};

} // namespace

extern "C" void sc_cu_moe_dispatch(sc_cuda *cu, sc_comm *comm, const void *rows,
                                   const int32_t *offsets, void *recv,
                                   int32_t *recv_offsets, int32_t *recv_counts,
                                   uint64_t local_slots, uint64_t width,
                                   uint64_t capacity, int32_t dtype) {
  Exchange e(*cu, comm, "moe_dispatch", local_slots, width, dtype);
  if (!e.comm)
    return;
  size_t slots = static_cast<size_t>(e.n * e.L);
  // Host layout: offsets (S + 1), the counts sent (S), the counts received
  // (S), the regrouped offsets (L + 1).
  int32_t *h = e.host(3 * slots + static_cast<size_t>(e.L) + 2);
  if (!h)
    return;
  int32_t *hostOffsets = h, *sent = h + slots + 1, *received = sent + slots,
          *grouped = received + slots;
  if (!e.download(hostOffsets, offsets, slots + 1, "reading the row offsets") ||
      !e.wait("reading the row offsets"))
    return;
  std::vector<int32_t> counts;
  if (!e.ok(shardc::rt::slotCounts(hostOffsets, e.n, e.L, counts)))
    return;
  // The counts go out from the staging buffer, which also takes the rows:
  // room for the most rows that may arrive (`capacity`), so that it is
  // allocated once.
  void *stage = e.staging(std::max(static_cast<size_t>(capacity) * e.rowBytes,
                                   slots * sizeof(int32_t)));
  if (!stage)
    return;
  std::copy(counts.begin(), counts.end(), sent);
  ExpertExchange x;
  if (!e.ok(cu->drv.cuMemcpyHtoDAsync(deviceAddress(stage), sent,
                                      slots * sizeof(int32_t), cu->stream),
            "sending the row counts") ||
      !e.ok(e.comm->allToAll(stage, recv_counts, static_cast<size_t>(e.L),
                             shardc::format::kI32, cu->stream)) ||
      !e.download(received, recv_counts, slots, "reading the row counts") ||
      !e.wait("exchanging the row counts") ||
      !e.ok(shardc::rt::planExpertExchange(hostOffsets, received, e.n, e.L,
                                           static_cast<size_t>(capacity), x)))
    return;
  if (!e.ok(shardc::rt::moveRows(*e.comm, x, rows, stage, width, dtype, false,
                                 cu->stream)) ||
      !e.regroup(x, stage, recv, true))
    return;
  std::copy(x.groupedOffsets.begin(), x.groupedOffsets.end(), grouped);
  e.ok(cu->drv.cuMemcpyHtoDAsync(deviceAddress(recv_offsets), grouped,
                                 x.groupedOffsets.size() * sizeof(int32_t),
                                 cu->stream),
       "writing the regrouped offsets");
}

extern "C" void sc_cu_moe_return(sc_cuda *cu, sc_comm *comm, const void *recv,
                                 const int32_t *recv_counts,
                                 const int32_t *offsets, void *rows,
                                 uint64_t local_slots, uint64_t width,
                                 uint64_t capacity, int32_t dtype) {
  Exchange e(*cu, comm, "moe_return", local_slots, width, dtype);
  if (!e.comm)
    return;
  size_t slots = static_cast<size_t>(e.n * e.L);
  int32_t *h = e.host(2 * slots + 1);
  ExpertExchange x;
  if (!h || !e.download(h, offsets, slots + 1, "reading the row offsets") ||
      !e.download(h + slots + 1, recv_counts, slots,
                  "reading the row counts") ||
      !e.wait("reading the row counts") ||
      !e.ok(shardc::rt::planExpertExchange(h, h + slots + 1, e.n, e.L,
                                           static_cast<size_t>(capacity), x)))
    return;
  void *stage = e.staging(static_cast<size_t>(capacity) * e.rowBytes);
  // The dispatch's movement reversed.
  if (stage && e.regroup(x, recv, stage, false))
    e.ok(shardc::rt::moveRows(*e.comm, x, stage, rows, width, dtype, true,
                              cu->stream));
}

namespace shardc::rt::cuda {

void releaseExpertBuffers(sc_cuda &cu) {
  if (cu.expertStaging)
    cu.drv.cuMemFree(cu.expertStaging);
  if (cu.expertHost)
    cu.drv.cuMemFreeHost(cu.expertHost);
  cu.expertStaging = 0;
  cu.expertStagingBytes = 0;
  cu.expertHost = nullptr;
  cu.expertHostInts = 0;
}

} // namespace shardc::rt::cuda
