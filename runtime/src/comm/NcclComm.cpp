//===- NcclComm.cpp - communicators over NCCL -----------------------------===//
//
// libnccl.so.2 through a dlopen'ed function table, the unique id carried by
// the host communicator, and non-blocking communicators whose every wait is
// polled and bounded (Nccl.h).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/comm/Nccl.h"

#include "shardc/format.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#if __has_include(<nccl.h>)
#include "runtime/src/cuda/DynamicLibrary.h"

#include <nccl.h>

#include <map>
#include <mutex>
#define SHARDC_HAVE_NCCL 1
#else
#define SHARDC_HAVE_NCCL 0
#endif

using namespace shardc::rt;
namespace fmt = shardc::format;

bool shardc::rt::ncclTimeoutSeconds(double &seconds, std::string &error) {
  // NCCL's own limit where it is set, else the communicators' common one
  // (--comm-timeout), whose default a long prefill does not trip.
  const char *own = std::getenv("SHARDC_NCCL_TIMEOUT");
  if (own && *own)
    return secondsFromEnv("SHARDC_NCCL_TIMEOUT", 600, seconds, error);
  return secondsFromEnv("SHARDC_COMM_TIMEOUT", 600, seconds, error);
}

namespace {

/// Sleeps between polls: short at first (a collective usually completes in
/// microseconds), then at most a millisecond.
class Backoff {
public:
  void pause() {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    us = us < 1000 ? us * 2 : 1000;
  }

private:
  int us = 20;
};

std::string formatSeconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

} // namespace

#if SHARDC_HAVE_NCCL

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

// X(name): one entry point, named as in <nccl.h>. ncclCommInitRankConfig,
// ncclCommFinalize and ncclGetLastError need NCCL 2.14.
#define SHARDC_NCCL_FUNCTIONS(X)                                               \
  X(ncclGetVersion)                                                            \
  X(ncclGetErrorString)                                                        \
  X(ncclGetLastError)                                                          \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRankConfig)                                                    \
  X(ncclCommGetAsyncError)                                                     \
  X(ncclCommFinalize)                                                          \
  X(ncclCommDestroy)                                                           \
  X(ncclCommAbort)                                                             \
  X(ncclAllReduce)                                                             \
  X(ncclAllGather)                                                             \
  X(ncclReduceScatter)                                                         \
  X(ncclSend)                                                                  \
  X(ncclRecv)                                                                  \
  X(ncclGroupStart)                                                            \
  X(ncclGroupEnd)

struct shardc::rt::NcclLibrary {
#define SHARDC_NCCL_MEMBER(name) decltype(&::name) name = nullptr;
  SHARDC_NCCL_FUNCTIONS(SHARDC_NCCL_MEMBER)
#undef SHARDC_NCCL_MEMBER
  int version = 0;

  /// "remote process exited or there was a network error: NET/Socket ...":
  /// the result's text and, when NCCL kept one, its last error message.
  std::string text(ncclResult_t r, ncclComm_t comm) const {
    const char *s = ncclGetErrorString(r);
    std::string t = s ? s : "NCCL error " + std::to_string(r);
    const char *last = ncclGetLastError(comm);
    if (last && *last) {
      std::string detail(last);
      for (char &c : detail)
        if (c == '\n' || c == '\r')
          c = ' ';
      while (!detail.empty() && detail.back() == ' ')
        detail.pop_back();
      t += ": " + detail;
    }
    return t;
  }
};

namespace {

std::unique_ptr<NcclLibrary> openNccl(const std::string &path,
                                      std::string &error) {
  void *lib = cuda::openLibrary(path, error);
  if (!lib) {
    error = "no usable NCCL: " + error;
    return nullptr;
  }
  auto t = std::make_unique<NcclLibrary>();
#define SHARDC_NCCL_RESOLVE(name)                                              \
  if (!cuda::resolveSymbol(lib, path, #name, t->name, error)) {                \
    error = "no usable NCCL: " + error + " (NCCL 2.14 or later is needed)";   \
    cuda::closeLibrary(lib);                                                   \
    return nullptr;                                                            \
  }
  SHARDC_NCCL_FUNCTIONS(SHARDC_NCCL_RESOLVE)
#undef SHARDC_NCCL_RESOLVE
  // Versions are major * 10000 + minor * 100 + patch since NCCL 2.9.
  if (t->ncclGetVersion(&t->version) != ncclSuccess ||
      t->version / 10000 != NCCL_MAJOR || t->version < 21400) {
    error = "no usable NCCL: " + path + " is version " +
            std::to_string(t->version) + "; this runtime needs 2.14 or later";
    cuda::closeLibrary(lib);
    return nullptr;
  }
  return t;
}

} // namespace

const NcclLibrary *shardc::rt::loadNccl(std::string &error) {
  const char *env = std::getenv("SHARDC_LIBNCCL");
  std::string path = env && *env ? env : "libnccl.so.2";
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<NcclLibrary>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<NcclLibrary> &slot = loaded[path];
  if (!slot)
    slot = openNccl(path, error);
  return slot.get();
}

std::string shardc::rt::ncclVersion(const NcclLibrary &lib) {
  return std::to_string(lib.version / 10000) + "." +
         std::to_string(lib.version / 100 % 100) + "." +
         std::to_string(lib.version % 100);
}

Status shardc::rt::exchangeNcclId(const NcclLibrary *lib,
                                  const std::string &why, Communicator &host,
                                  const std::string &group,
                                  std::vector<char> &id) {
  // Per member: a status byte (0 ready, 1 no NCCL, 2 no id), then the id
  // (rank 0's is the one used).
  constexpr size_t kRecord = 1 + kNcclIdBytes;
  enum : char { kReady = 0, kNoNccl = 1, kNoId = 2 };
  std::vector<char> mine(kRecord, 0);
  std::string local = why;
  if (!lib) {
    mine[0] = kNoNccl;
    if (local.empty())
      local = "no usable NCCL";
  } else if (host.rank() == 0) {
    ncclUniqueId uid;
    if (ncclResult_t r = lib->ncclGetUniqueId(&uid)) {
      mine[0] = kNoId;
      local = "no usable NCCL: ncclGetUniqueId failed: " + lib->text(r, nullptr);
    } else {
      static_assert(sizeof uid == kNcclIdBytes, "NCCL_UNIQUE_ID_BYTES");
      std::memcpy(mine.data() + 1, &uid, kNcclIdBytes);
    }
  }
  std::vector<char> all(kRecord * static_cast<size_t>(host.size()));
  if (Status s = host.allGather(mine.data(), all.data(), kRecord, fmt::kU8,
                                nullptr);
      s.failed())
    return {s.code, "cannot exchange the NCCL id of " + group + ": " +
                        s.message};
  if (mine[0] != kReady)
    return {SHARDC_ERROR_UNSUPPORTED, local};
  for (int r = 0; r < host.size(); ++r) {
    char state = all[kRecord * r];
    if (state != kReady)
      return {SHARDC_ERROR_UNSUPPORTED,
              "no usable NCCL on rank " + std::to_string(r) + " of " + group +
                  (state == kNoId ? " (it could not make the unique id)"
                                  : "")};
  }
  id.assign(all.begin() + 1, all.begin() + kRecord);
  return {};
}

//===----------------------------------------------------------------------===//
// Communicators
//===----------------------------------------------------------------------===//

namespace {

class NcclComm;

/// What the communicators of one rank share: an error or a timeout on one
/// aborts them all (the rank cannot go on, and a kernel of another may be
/// waiting for the same lost peer).
struct NcclRank {
  NcclRank(const NcclLibrary &lib, double timeout, int worldRank)
      : lib(lib), timeout(timeout), worldRank(worldRank) {}
  const NcclLibrary &lib;
  double timeout;
  int worldRank;
  std::vector<NcclComm *> comms;

  void abortAll();
  /// Polls until done(); `subject` is the communicator waited on (null: all
  /// of them, as after a run).
  Status wait(const std::function<bool()> &done, const std::string &what,
              const NcclComm *subject);
};

class NcclComm final : public Communicator {
public:
  NcclComm(std::shared_ptr<NcclRank> owner, std::string name, int rank,
           int size)
      : owner(std::move(owner)), lib(this->owner->lib), name(std::move(name)),
        r(rank), n(size) {
    this->owner->comms.push_back(this);
  }
  ~NcclComm() override;

  Status init(const std::vector<char> &id);

  const char *backend() const override { return "nccl"; }
  int rank() const override { return r; }
  int size() const override { return n; }

  Status allReduce(const void *send, void *recv, size_t count, int32_t dtype,
                   ReduceOp op, void *stream) override {
    ncclDataType_t t;
    ncclRedOp_t o;
    if (Status s = reduction("all_reduce", stream, dtype, op, t, o);
        s.failed())
      return s;
    return settle("all_reduce",
                  lib.ncclAllReduce(send, recv, count, t, o, comm,
                                    static_cast<cudaStream_t>(stream)));
  }
  Status allGather(const void *send, void *recv, size_t count, int32_t dtype,
                   void *stream) override {
    size_t bytes;
    if (Status s = movement("all_gather", stream, count, dtype, bytes);
        s.failed())
      return s;
    return settle("all_gather",
                  lib.ncclAllGather(send, recv, bytes, ncclUint8, comm,
                                    static_cast<cudaStream_t>(stream)));
  }
  Status reduceScatter(const void *send, void *recv, size_t count,
                       int32_t dtype, ReduceOp op, void *stream) override {
    ncclDataType_t t;
    ncclRedOp_t o;
    if (Status s = reduction("reduce_scatter", stream, dtype, op, t, o);
        s.failed())
      return s;
    return settle("reduce_scatter",
                  lib.ncclReduceScatter(send, recv, count, t, o, comm,
                                        static_cast<cudaStream_t>(stream)));
  }
  /// Grouped send/recv with every member (ncclAlltoAll is newer than 2.14).
  Status allToAll(const void *send, void *recv, size_t count, int32_t dtype,
                  void *stream) override {
    size_t bytes;
    if (Status s = movement("all_to_all", stream, count, dtype, bytes);
        s.failed())
      return s;
    if (count && send == recv)
      return invalid("all_to_all: the buffers must not be the same");
    auto *in = static_cast<const char *>(send);
    auto *out = static_cast<char *>(recv);
    auto st = static_cast<cudaStream_t>(stream);
    ncclResult_t res = lib.ncclGroupStart();
    if (res != ncclSuccess)
      return settle("all_to_all", res);
    for (int p = 0; p < n && res == ncclSuccess; ++p) {
      res = lib.ncclSend(in + p * bytes, bytes, ncclUint8, p, comm, st);
      if (res == ncclSuccess)
        res = lib.ncclRecv(out + p * bytes, bytes, ncclUint8, p, comm, st);
    }
    ncclResult_t end = lib.ncclGroupEnd(); // always close the group
    return settle("all_to_all", res == ncclSuccess ? end : res);
  }
  /// Grouped send/recv of each peer's share (counts on the host).
  Status allToAllV(const void *send, const size_t *sendCounts,
                   const size_t *sendOffsets, void *recv,
                   const size_t *recvCounts, const size_t *recvOffsets,
                   int32_t dtype, void *stream) override {
    size_t size;
    if (Status s = movement("all_to_all_v", stream, 1, dtype, size);
        s.failed())
      return s;
    auto *in = static_cast<const char *>(send);
    auto *out = static_cast<char *>(recv);
    auto st = static_cast<cudaStream_t>(stream);
    ncclResult_t res = lib.ncclGroupStart();
    if (res != ncclSuccess)
      return settle("all_to_all_v", res);
    for (int p = 0; p < n && res == ncclSuccess; ++p) {
      if (sendCounts[p])
        res = lib.ncclSend(in + sendOffsets[p] * size, sendCounts[p] * size,
                           ncclUint8, p, comm, st);
      if (res == ncclSuccess && recvCounts[p])
        res = lib.ncclRecv(out + recvOffsets[p] * size, recvCounts[p] * size,
                           ncclUint8, p, comm, st);
    }
    ncclResult_t end = lib.ncclGroupEnd(); // always close the group
    return settle("all_to_all_v", res == ncclSuccess ? end : res);
  }
  Status send(const void *buf, size_t count, int32_t dtype, int peer,
              void *stream) override {
    size_t bytes;
    if (Status s = movement("send", stream, count, dtype, bytes); s.failed())
      return s;
    if (Status s = checkPeer("send to", peer); s.failed())
      return s;
    return settle("send", lib.ncclSend(buf, bytes, ncclUint8, peer, comm,
                                       static_cast<cudaStream_t>(stream)));
  }
  Status recv(void *buf, size_t count, int32_t dtype, int peer,
              void *stream) override {
    size_t bytes;
    if (Status s = movement("recv", stream, count, dtype, bytes); s.failed())
      return s;
    if (Status s = checkPeer("receive from", peer); s.failed())
      return s;
    return settle("recv", lib.ncclRecv(buf, bytes, ncclUint8, peer, comm,
                                       static_cast<cudaStream_t>(stream)));
  }
  /// Sends are enqueued on the model's stream and complete with it: the
  /// device waits for the stream (polling NCCL, waitWithNccl) at the end of
  /// every run, so nothing is left to wait for here.
  Status flush() override { return {}; }
  void abort() override { owner->abortAll(); }
  Status splitMesh(const std::vector<int64_t> &,
                   std::vector<std::unique_ptr<Communicator>> &) override {
    return {SHARDC_ERROR_UNSUPPORTED,
            "an NCCL communicator is not split: make one per mesh axis over "
            "the host communicators"};
  }

  /// "NCCL communicator of mesh axis 0 (rank 1 of 2, world rank 1)".
  std::string describe() const {
    return "NCCL communicator of " + name + " (rank " + std::to_string(r) +
           " of " + std::to_string(n) + ", world rank " +
           std::to_string(owner->worldRank) + ")";
  }
  /// ncclCommGetAsyncError: ncclSuccess, ncclInProgress or the error.
  ncclResult_t state() const {
    ncclResult_t async = ncclSuccess;
    ncclResult_t res = lib.ncclCommGetAsyncError(comm, &async);
    return res != ncclSuccess ? res : async;
  }
  bool live() const { return comm != nullptr; }
  NcclRank &watch() const { return *owner; }
  Status failure(const std::string &what, ncclResult_t res) const {
    return {SHARDC_ERROR_RUNTIME,
            describe() + ": " + what + ": " + lib.text(res, comm)};
  }
  /// ncclCommAbort, once.
  void abortNow() {
    if (comm)
      lib.ncclCommAbort(comm);
    comm = nullptr;
    aborted = true;
  }

private:
  /// Waits out an ncclInProgress; an error aborts the rank's communicators.
  Status settle(const std::string &what, ncclResult_t res) {
    if (res == ncclInProgress && comm) {
      if (Status s = owner->wait(
              [&] { return state() != ncclInProgress; }, what, this);
          s.failed())
        return s;
      res = state();
    }
    if (res == ncclSuccess)
      return {};
    Status s = failure(what, res);
    owner->abortAll();
    return s;
  }
  Status usable(const char *what, void *stream) const {
    if (!comm)
      return {SHARDC_ERROR_RUNTIME,
              describe() + ": " + what +
                  (aborted ? ": the communicator was aborted after an "
                             "earlier failure"
                           : ": the communicator is not initialized")};
    if (!stream)
      return {SHARDC_ERROR_UNSUPPORTED,
              std::string(what) + ": NCCL takes device buffers on a GPU "
                                  "stream; CPU ranks communicate through MPI"};
    return {};
  }
  Status movement(const char *what, void *stream, size_t count, int32_t dtype,
                  size_t &bytes) const {
    if (Status s = usable(what, stream); s.failed())
      return s;
    size_t size = fmt::dtypeSize(dtype);
    if (size == 0)
      return invalid(std::string(what) + ": unknown dtype " +
                     std::to_string(dtype));
    bytes = count * size;
    return {};
  }
  Status reduction(const char *what, void *stream, int32_t dtype, ReduceOp op,
                   ncclDataType_t &t, ncclRedOp_t &o) const {
    if (Status s = usable(what, stream); s.failed())
      return s;
    // ncclMax and ncclMin do not promise NaN propagation
    // (docs/gpu-validation.md lists it among what a GPU session checks).
    o = op == ReduceOp::Sum   ? ncclSum
        : op == ReduceOp::Max ? ncclMax
        : op == ReduceOp::Min ? ncclMin
                              : ncclProd;
    switch (dtype) {
    case fmt::kF32: t = ncclFloat32; return {};
    case fmt::kF64: t = ncclFloat64; return {};
    case fmt::kF16: t = ncclFloat16; return {};
    case fmt::kBF16: t = ncclBfloat16; return {};
    case fmt::kI8: t = ncclInt8; return {};
    case fmt::kU8: t = ncclUint8; return {};
    case fmt::kI32: t = ncclInt32; return {};
    case fmt::kU32: t = ncclUint32; return {};
    case fmt::kI64: t = ncclInt64; return {};
    case fmt::kU64: t = ncclUint64; return {};
    case fmt::kBool:
      // 0 / 1 bytes: max is or, min (and prod) is and.
      if (op == ReduceOp::Sum)
        return invalid(std::string(what) + ": no sum of booleans");
      t = ncclUint8;
      return {};
    default:
      return invalid(std::string(what) + ": NCCL cannot reduce dtype " +
                     std::to_string(dtype) + " (" + fmt::dtypeName(dtype) +
                     ")");
    }
  }
  Status checkPeer(const char *what, int peer) const {
    if (peer < 0 || peer >= n || peer == r)
      return invalid(std::string("cannot ") + what + " rank " +
                     std::to_string(peer) + " (rank " + std::to_string(r) +
                     " of " + std::to_string(n) + ")");
    return {};
  }
  static Status invalid(std::string message) {
    return {SHARDC_ERROR_INVALID_ARGUMENT, std::move(message)};
  }

  std::shared_ptr<NcclRank> owner;
  const NcclLibrary &lib;
  std::string name;
  int r, n;
  ncclComm_t comm = nullptr;
  bool aborted = false;
};

void NcclRank::abortAll() {
  for (NcclComm *c : comms)
    c->abortNow();
}

Status NcclRank::wait(const std::function<bool()> &done,
                      const std::string &what, const NcclComm *subject) {
  auto start = std::chrono::steady_clock::now();
  Backoff backoff;
  for (;;) {
    if (done())
      return {};
    for (NcclComm *c : comms) {
      if (!c->live())
        continue;
      ncclResult_t st = c->state();
      if (st != ncclSuccess && st != ncclInProgress) {
        Status s = c->failure(what, st);
        abortAll();
        return s;
      }
    }
    std::chrono::duration<double> waited =
        std::chrono::steady_clock::now() - start;
    if (waited.count() > timeout) {
      std::string who;
      if (subject) {
        who = subject->describe();
      } else {
        for (NcclComm *c : comms)
          who += (who.empty() ? "" : "; ") + c->describe();
        if (who.empty())
          who = "world rank " + std::to_string(worldRank);
      }
      abortAll();
      return {SHARDC_ERROR_RUNTIME,
              who + ": " + what + " did not finish within " +
                  formatSeconds(timeout) +
                  " s (--comm-timeout, SHARDC_NCCL_TIMEOUT): a peer is gone or stuck; "
                  "communicators aborted"};
    }
    backoff.pause();
  }
}

Status NcclComm::init(const std::vector<char> &id) {
  ncclUniqueId uid;
  std::memcpy(&uid, id.data(), sizeof uid);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0; // every wait is ours, polled and bounded
  ncclResult_t res = lib.ncclCommInitRankConfig(&comm, n, uid, r, &config);
  if (res != ncclSuccess && res != ncclInProgress) {
    Status s = failure("cannot create it", res);
    abortNow();
    return s;
  }
  if (!comm)
    return failure("cannot create it", ncclInternalError);
  if (Status s = owner->wait([&] { return state() != ncclInProgress; },
                             "initialization", this);
      s.failed())
    return s;
  if (ncclResult_t st = state()) {
    Status s = failure("cannot create it", st);
    abortNow();
    return s;
  }
  return {};
}

NcclComm::~NcclComm() {
  if (comm) {
    // Finalize (non-blocking: polled) flushes what is queued; then free. A
    // finalization that fails or times out aborts instead.
    ncclResult_t res = lib.ncclCommFinalize(comm);
    bool clean =
        (res == ncclSuccess || res == ncclInProgress) &&
        !owner
             ->wait([&] { return !comm || state() != ncclInProgress; },
                    "finalization", this)
             .failed() &&
        comm && state() == ncclSuccess;
    if (comm) {
      if (clean)
        lib.ncclCommDestroy(comm);
      else
        lib.ncclCommAbort(comm);
    }
    comm = nullptr;
  }
  auto &list = owner->comms;
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i] == this) {
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
}

} // namespace

Status shardc::rt::createNcclComms(
    const std::vector<Communicator *> &hosts, int worldRank,
    std::vector<std::unique_ptr<Communicator>> &out) {
  out.clear();
  std::string error;
  double timeout = 0;
  if (!ncclTimeoutSeconds(timeout, error))
    return {SHARDC_ERROR_INVALID_ARGUMENT, error};
  // A rank without NCCL still takes part in the first id exchange, so that
  // its peers learn it and fail too.
  const NcclLibrary *lib = loadNccl(error);
  std::shared_ptr<NcclRank> owner =
      lib ? std::make_shared<NcclRank>(*lib, timeout, worldRank) : nullptr;
  std::vector<std::unique_ptr<Communicator>> made;
  for (size_t axis = 0; axis < hosts.size(); ++axis) {
    std::string name = "mesh axis " + std::to_string(axis);
    std::vector<char> id;
    if (Status s = exchangeNcclId(lib, error, *hosts[axis], name, id);
        s.failed()) {
      if (owner)
        owner->abortAll();
      return s;
    }
    auto comm = std::make_unique<NcclComm>(owner, name, hosts[axis]->rank(),
                                           hosts[axis]->size());
    if (Status s = comm->init(id); s.failed()) {
      owner->abortAll();
      return s;
    }
    made.push_back(std::move(comm));
  }
  out = std::move(made);
  return {};
}

Status shardc::rt::waitWithNccl(
    const std::vector<std::unique_ptr<Communicator>> &comms,
    const std::function<bool()> &done, const char *what) {
  // Any communicator of the rank leads to the watch they share.
  for (const auto &c : comms)
    if (auto *nccl = dynamic_cast<NcclComm *>(c.get()))
      return nccl->watch().wait(done, what, nullptr);
  Backoff backoff;
  while (!done())
    backoff.pause();
  return {};
}

#else // !SHARDC_HAVE_NCCL

struct shardc::rt::NcclLibrary {};

const NcclLibrary *shardc::rt::loadNccl(std::string &error) {
  error = "no usable NCCL: this runtime was built without nccl.h";
  return nullptr;
}

std::string shardc::rt::ncclVersion(const NcclLibrary &) { return ""; }

Status shardc::rt::exchangeNcclId(const NcclLibrary *, const std::string &why,
                                  Communicator &host, const std::string &group,
                                  std::vector<char> &) {
  // Take part in the exchange all the same, so that no peer waits.
  std::vector<char> mine(1 + kNcclIdBytes, 1),
      all(mine.size() * static_cast<size_t>(host.size()));
  host.allGather(mine.data(), all.data(), mine.size(), fmt::kU8, nullptr);
  return {SHARDC_ERROR_UNSUPPORTED,
          why.empty() ? "no usable NCCL for " + group : why};
}

Status shardc::rt::createNcclComms(
    const std::vector<Communicator *> &hosts, int,
    std::vector<std::unique_ptr<Communicator>> &out) {
  out.clear();
  std::string error;
  loadNccl(error);
  // The first exchange tells every peer, and fails.
  std::vector<char> id;
  return hosts.empty()
             ? Status()
             : exchangeNcclId(nullptr, error, *hosts[0], "mesh axis 0", id);
}

Status shardc::rt::waitWithNccl(
    const std::vector<std::unique_ptr<Communicator>> &,
    const std::function<bool()> &done, const char *) {
  Backoff backoff;
  while (!done())
    backoff.pause();
  return {};
}

#endif // SHARDC_HAVE_NCCL
