//===- Collectives.cpp - the collectives generated code calls -------------===//
//
// The C entry points of shardc/cpu.h over the Communicator of an sc_comm:
// errors become sc_fail messages (the first one fails the run). Also the
// communicators' shared helpers (secondsFromEnv).
//
//===----------------------------------------------------------------------===//

#include "runtime/src/comm/Comm.h"

#include "shardc/cpu.h"

#include <cstdlib>
#include <string>

using namespace shardc::rt;

namespace {

bool usable(const sc_comm *comm, const char *what) {
  if (comm && comm->impl)
    return true;
  sc_fail("%s: no communicator", what);
  return false;
}

void report(const Status &s) {
  if (s.failed())
    sc_fail("%s", s.message.c_str());
}

} // namespace

bool shardc::rt::secondsFromEnv(const char *name, double dflt,
                                double &seconds, std::string &error) {
  seconds = dflt;
  const char *env = std::getenv(name);
  if (!env || !*env)
    return true;
  char *end = nullptr;
  double v = std::strtod(env, &end);
  if (*end || !(v > 0) || v > 1e9) {
    error = std::string(name) + "=" + env +
            ": expected a number of seconds greater than 0";
    return false;
  }
  seconds = v;
  return true;
}

bool shardc::rt::reduceOpOf(int32_t kind, ReduceOp &op, const char *what) {
  switch (kind) {
  case SC_REDUCE_SUM: op = ReduceOp::Sum; return true;
  case SC_REDUCE_MAX: op = ReduceOp::Max; return true;
  case SC_REDUCE_MIN: op = ReduceOp::Min; return true;
  case SC_REDUCE_PROD: op = ReduceOp::Prod; return true;
  default: sc_fail("%s: unknown reduction %d", what, kind); return false;
  }
}

bool shardc::rt::peerOf(const Communicator &comm, int32_t offset,
                        const char *what, int &peer) {
  long long p = static_cast<long long>(comm.rank()) + offset;
  if (p >= 0 && p < comm.size()) {
    peer = static_cast<int>(p);
    return true;
  }
  long long magnitude = offset < 0 ? -static_cast<long long>(offset) : offset;
  sc_fail("%s rank %lld of a %d-rank group (rank %d %c offset %lld)", what, p,
          comm.size(), comm.rank(), offset < 0 ? '-' : '+', magnitude);
  return false;
}

extern "C" sc_comm *sc_ctx_comm(const sc_rank_ctx *ctx, int32_t axis) {
  if (!ctx || axis < 0 || axis >= ctx->num_axes || !ctx->comms) {
    sc_fail("the program needs mesh axis %d but the rank has %d (was it "
            "started with mpirun?)",
            axis, ctx ? ctx->num_axes : 0);
    return nullptr;
  }
  return ctx->comms[axis];
}

extern "C" void sc_all_reduce(sc_comm *comm, const void *in, void *out,
                              uint64_t count, int32_t dtype, int32_t kind) {
  ReduceOp op;
  if (usable(comm, "all_reduce") && reduceOpOf(kind, op, "all_reduce"))
    report(comm->impl->allReduce(in, out, count, dtype, op, nullptr));
}

extern "C" void sc_all_gather(sc_comm *comm, const void *in, void *out,
                              uint64_t count, int32_t dtype) {
  if (usable(comm, "all_gather"))
    report(comm->impl->allGather(in, out, count, dtype, nullptr));
}

extern "C" void sc_reduce_scatter(sc_comm *comm, const void *in, void *out,
                                  uint64_t count, int32_t dtype,
                                  int32_t kind) {
  ReduceOp op;
  if (usable(comm, "reduce_scatter") && reduceOpOf(kind, op, "reduce_scatter"))
    report(comm->impl->reduceScatter(in, out, count, dtype, op, nullptr));
}

extern "C" void sc_all_to_all(sc_comm *comm, const void *in, void *out,
                              uint64_t count, int32_t dtype) {
  if (usable(comm, "all_to_all"))
    report(comm->impl->allToAll(in, out, count, dtype, nullptr));
}

extern "C" void sc_send(sc_comm *comm, const void *buf, uint64_t count,
                        int32_t dtype, int32_t offset) {
  int peer;
  if (usable(comm, "send") && peerOf(*comm->impl, offset, "send to", peer))
    report(comm->impl->send(buf, count, dtype, peer, nullptr));
}

extern "C" void sc_recv(sc_comm *comm, void *buf, uint64_t count,
                        int32_t dtype, int32_t offset) {
  int peer;
  if (usable(comm, "recv") && peerOf(*comm->impl, offset, "receive from", peer))
    report(comm->impl->recv(buf, count, dtype, peer, nullptr));
}
