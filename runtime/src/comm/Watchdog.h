//===- Watchdog.h - a time limit on every MPI operation ---------*- C++ -*-===//
//
// A rank that stops (SIGSTOP, a debugger, a machine that hangs) does not
// fail: its peers wait in their next collective forever, and Open MPI's
// error manager, which ends the job when a rank dies, sees nothing. The
// watchdog ends such a job.
//
// Every MPI operation of MpiComm runs inside a CommGuard, which records the
// operation, its group (world ranks) and when it started. A thread of the
// process looks once every 200 ms; an operation in flight for longer than
// the time limit prints one line naming the operation, the group and, for
// each member on this host, its state read from /proc (the silent rank is
// the one that is stopped, or gone), then exits the process with status 1,
// after which mpirun ends the whole job (as it does for a dead rank).
// Members on other hosts are named by host.
//
// The limit is SHARDC_COMM_TIMEOUT in seconds (the executable's
// --comm-timeout sets it), default 600: a long prefill's collectives do not
// come near it. The watchdog only reads memory and /proc, never calls MPI,
// so it needs no thread support from MPI.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_COMM_WATCHDOG_H
#define SHARDC_RUNTIME_COMM_WATCHDOG_H

#include <string>
#include <vector>

namespace shardc::rt {

/// One rank of the world: where it runs.
struct RankPlace {
  std::string host;
  int pid = 0;
};

/// SHARDC_COMM_TIMEOUT in seconds (default 600); false with a one-line
/// error when it is not a positive number.
bool commTimeoutSeconds(double &seconds, std::string &error);

/// Starts the watchdog for this process (once; later calls do nothing):
/// `places` are the world's ranks, `worldRank` this one's.
void startWatchdog(std::vector<RankPlace> places, int worldRank,
                   double timeoutSeconds);

/// Marks an MPI operation in flight (`what`: "all_reduce", ...; `group`:
/// the world ranks that take part, alive for the guard's lifetime).
class CommGuard {
public:
  CommGuard(const char *what, const std::vector<int> &group);
  ~CommGuard();
  CommGuard(const CommGuard &) = delete;
  CommGuard &operator=(const CommGuard &) = delete;
};

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_COMM_WATCHDOG_H
