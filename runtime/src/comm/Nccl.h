//===- Nccl.h - communicators over NCCL (GPU ranks) -------------*- C++ -*-===//
//
// The NCCL side of the communicator seam (Comm.h). libnccl.so.2 is opened
// with dlopen, never linked, and its entry points are looked up into a
// table, as the CUDA libraries are (cuda/Libraries.h): an executable that
// never meets a GPU peer (one rank, or no GPU) needs no NCCL at run time.
// <nccl.h> gives the types; without it (a toolkit without NCCL) the
// runtime builds and every creation fails with "no usable NCCL".
//
// One communicator per mesh axis, made over the host communicator of that
// axis (MPI's MPI_Comm_split, MpiComm.cpp): the group's rank 0 makes the
// unique id and the group all-gathers it. Communicators are non-blocking
// (ncclConfig_t.blocking = 0), so no NCCL call waits without a bound: every
// wait (the initialization, a call that returns ncclInProgress, the end of a
// run) polls ncclCommGetAsyncError, and on an asynchronous error, or after
// the NCCL timeout (ncclTimeoutSeconds) without completion, every
// communicator of the rank is aborted (ncclCommAbort) and the wait fails
// with one line naming the communicator and the rank.
//
// Collectives take device pointers and enqueue on the given stream (the
// rank's CUstream), so a run captured into a CUDA graph captures them.
// fp16 and bf16 reduce as ncclFloat16 / ncclBfloat16; data movement
// (all_gather, all_to_all, send, recv) goes by bytes, for any dtype.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_COMM_NCCL_H
#define SHARDC_RUNTIME_COMM_NCCL_H

#include "runtime/src/comm/Comm.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shardc::rt {

/// The NCCL library (its function table, NcclComm.cpp).
struct NcclLibrary;

/// libnccl.so.2 ($SHARDC_LIBNCCL when set), loaded once per process; null
/// with a one-line error ("no usable NCCL: cannot load libnccl.so.2 (...)")
/// when it cannot be loaded or lacks a function. A failure is retried by
/// the next call.
const NcclLibrary *loadNccl(std::string &error);

/// The loaded library's version ("2.28.9").
std::string ncclVersion(const NcclLibrary &lib);

/// Size of an NCCL unique id (NCCL_UNIQUE_ID_BYTES).
constexpr size_t kNcclIdBytes = 128;

/// The unique id of a new communicator over `host`'s group (named `group`
/// in errors): rank 0 makes it (ncclGetUniqueId, which needs no GPU) and
/// every member receives it through host.allGather, with one status byte
/// per member, so that when any member has no usable NCCL (`lib` null, for
/// the reason `why`) or rank 0 could not make an id, every member fails
/// rather than waiting for the others. Every member must call this
/// together.
Status exchangeNcclId(const NcclLibrary *lib, const std::string &why,
                      Communicator &host, const std::string &group,
                      std::vector<char> &id);

/// The NCCL communicators of one GPU rank, one per host communicator in
/// `hosts` (the rank's mesh axes), named "mesh axis I" in errors;
/// `worldRank` is the rank's place in the job. The members of each host
/// group must call this together, with the rank's CUDA context current
/// (NCCL takes its device). On failure `out` is empty and every
/// communicator made so far is aborted.
Status createNcclComms(const std::vector<Communicator *> &hosts, int worldRank,
                       std::vector<std::unique_ptr<Communicator>> &out);

/// Waits until `done()` returns true, polling the communicators in `comms`
/// (from createNcclComms) for asynchronous errors between calls. On an
/// error, or once the NCCL timeout has passed, aborts every
/// communicator of the rank and fails with one line naming `what`, the
/// communicator and the rank.
Status waitWithNccl(const std::vector<std::unique_ptr<Communicator>> &comms,
                    const std::function<bool()> &done, const char *what);

/// The NCCL timeout in seconds: SHARDC_NCCL_TIMEOUT where set, else
/// SHARDC_COMM_TIMEOUT (the executable's --comm-timeout sets it), else 600
/// (a long prefill's collective does not trip it); false with a one-line
/// error when the variable read is anything but a positive number.
bool ncclTimeoutSeconds(double &seconds, std::string &error);

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_COMM_NCCL_H
