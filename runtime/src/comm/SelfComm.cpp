//===- SelfComm.cpp - the one-rank world ----------------------------------===//

#include "runtime/src/comm/Comm.h"

#include "shardc/format.h"

#include <cstring>
#include <string>

using namespace shardc::rt;

namespace {

class SelfComm final : public Communicator {
public:
  const char *backend() const override { return "self"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }

  Status allReduce(const void *send, void *recv, size_t count, int32_t dtype,
                   ReduceOp, void *stream) override {
    return copy("all_reduce", send, recv, count, dtype, stream);
  }
  Status allGather(const void *send, void *recv, size_t count, int32_t dtype,
                   void *stream) override {
    return copy("all_gather", send, recv, count, dtype, stream);
  }
  Status reduceScatter(const void *send, void *recv, size_t count,
                       int32_t dtype, ReduceOp, void *stream) override {
    return copy("reduce_scatter", send, recv, count, dtype, stream);
  }
  Status allToAll(const void *send, void *recv, size_t count, int32_t dtype,
                  void *stream) override {
    return copy("all_to_all", send, recv, count, dtype, stream);
  }
  Status allToAllV(const void *send, const size_t *sendCounts,
                   const size_t *sendOffsets, void *recv,
                   const size_t *recvCounts, const size_t *recvOffsets,
                   int32_t dtype, void *stream) override {
    if (sendCounts[0] != recvCounts[0])
      return {SHARDC_ERROR_INVALID_ARGUMENT,
              "all_to_all_v: sends " + std::to_string(sendCounts[0]) +
                  " elements to itself but receives " +
                  std::to_string(recvCounts[0])};
    size_t size = shardc::format::dtypeSize(dtype);
    return copy("all_to_all_v",
                static_cast<const char *>(send) + sendOffsets[0] * size,
                static_cast<char *>(recv) + recvOffsets[0] * size,
                sendCounts[0], dtype, stream);
  }
  Status send(const void *, size_t, int32_t, int peer, void *) override {
    return noPeer("send to", peer);
  }
  Status recv(void *, size_t, int32_t, int peer, void *) override {
    return noPeer("receive from", peer);
  }
  Status flush() override { return {}; } // no send is ever in flight
  void abort() override {}
  Status splitMesh(const std::vector<int64_t> &shape,
                   std::vector<std::unique_ptr<Communicator>> &axes) override {
    std::vector<int64_t> coord;
    if (Status s = meshCoordinates(shape, 0, 1, coord); s.failed())
      return s;
    axes.clear();
    for (size_t i = 0; i < shape.size(); ++i)
      axes.push_back(createSelfComm());
    return {};
  }

private:
  static Status copy(const char *what, const void *send, void *recv,
                     size_t count, int32_t dtype, void *stream) {
    size_t size = shardc::format::dtypeSize(dtype);
    if (size == 0)
      return {SHARDC_ERROR_INVALID_ARGUMENT,
              std::string(what) + ": unknown dtype " + std::to_string(dtype)};
    if (stream)
      return {SHARDC_ERROR_UNSUPPORTED,
              std::string(what) + " on a GPU stream needs a device "
                                  "communicator (NCCL)"};
    if (count && (!send || !recv))
      return {SHARDC_ERROR_INVALID_ARGUMENT,
              std::string(what) + ": null buffer"};
    if (count && send != recv)
      std::memmove(recv, send, count * size);
    return {};
  }
  static Status noPeer(const char *what, int peer) {
    return {SHARDC_ERROR_INVALID_ARGUMENT,
            std::string("cannot ") + what + " rank " + std::to_string(peer) +
                ": a single-rank run has no peer"};
  }
};

} // namespace

Status shardc::rt::meshCoordinates(const std::vector<int64_t> &shape,
                                   int rank, int size,
                                   std::vector<int64_t> &coord) {
  long long product = 1;
  for (int64_t d : shape) {
    if (d < 1)
      return {SHARDC_ERROR_INVALID_ARGUMENT,
              "mesh axis of size " + std::to_string(d)};
    product *= d;
  }
  if (product != size)
    return {SHARDC_ERROR_INVALID_ARGUMENT,
            "the mesh has " + std::to_string(product) +
                " devices but the job has " + std::to_string(size) +
                " ranks (mpirun -np " + std::to_string(product) + ")"};
  coord.assign(shape.size(), 0);
  int64_t rest = rank;
  for (size_t i = shape.size(); i-- > 0;) {
    coord[i] = rest % shape[i];
    rest /= shape[i];
  }
  return {};
}

std::unique_ptr<Communicator> shardc::rt::createSelfComm() {
  return std::make_unique<SelfComm>();
}

extern "C" int32_t sc_comm_rank(const sc_comm *comm) {
  return comm && comm->impl ? comm->impl->rank() : -1;
}

extern "C" int32_t sc_comm_size(const sc_comm *comm) {
  return comm && comm->impl ? comm->impl->size() : -1;
}

extern "C" void sc_comm_free(sc_comm *comm) {
  if (!comm)
    return;
  delete comm->impl;
  delete comm;
}
