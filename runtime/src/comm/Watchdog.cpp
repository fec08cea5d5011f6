//===- Watchdog.cpp - a time limit on every MPI operation -----------------===//

#include "runtime/src/comm/Watchdog.h"

#include "runtime/src/comm/Comm.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

using namespace shardc::rt;

namespace {

using Clock = std::chrono::steady_clock;

/// What is in flight (one MPI operation at a time per process: the runtime
/// calls MPI from one thread).
struct InFlight {
  std::atomic<const char *> what{nullptr};
  std::atomic<const std::vector<int> *> group{nullptr};
  std::atomic<int64_t> since{0}; ///< Clock ticks
};

InFlight inFlight;
std::vector<RankPlace> world;
int self = -1;
double limit = 600;

/// "stopped", "gone", "running", ... of a process on this host.
std::string processState(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line))
    return "gone";
  size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size())
    return "unknown";
  switch (line[close + 2]) {
  case 'T':
  case 't':
    return "stopped";
  case 'Z':
  case 'X':
    return "gone";
  case 'D':
    return "waiting on I/O";
  default:
    return "running";
  }
}

[[noreturn]] void expire(const char *what, const std::vector<int> &group,
                         double waited) {
  std::string members;
  std::string silent;
  const std::string &here = world[self].host;
  for (int w : group) {
    if (w == self || w < 0 || w >= static_cast<int>(world.size()))
      continue;
    const RankPlace &p = world[w];
    std::string state =
        p.host == here ? processState(p.pid) : "on host " + p.host;
    if (state == "stopped" || state == "gone")
      silent += (silent.empty() ? "" : ", ") + std::string("rank ") +
                std::to_string(w) + " (pid " + std::to_string(p.pid) +
                ") is " + state;
    members += (members.empty() ? "" : ", ") + std::to_string(w) + ": " +
               state;
  }
  std::fprintf(stderr,
               "rank %d: error: %s waited %.0f s (SHARDC_COMM_TIMEOUT=%g) for "
               "its group; %s\n",
               self, what, waited, limit,
               silent.empty()
                   ? ("no peer answered (" + members + ")").c_str()
                   : (silent + "; the job ends").c_str());
  std::fflush(stderr);
  // mpirun ends the other ranks once one exits with a failure.
  std::_Exit(1);
}

void watch() {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const char *what = inFlight.what.load();
    const std::vector<int> *group = inFlight.group.load();
    if (!what || !group)
      continue;
    double waited = std::chrono::duration<double>(
                        Clock::now().time_since_epoch() -
                        Clock::duration(inFlight.since.load()))
                        .count();
    // Still the same operation (a new one resets `since`)?
    if (waited > limit && inFlight.what.load() == what)
      expire(what, *group, waited);
  }
}

} // namespace

bool shardc::rt::commTimeoutSeconds(double &seconds, std::string &error) {
  return secondsFromEnv("SHARDC_COMM_TIMEOUT", 600, seconds, error);
}

void shardc::rt::startWatchdog(std::vector<RankPlace> places, int worldRank,
                               double timeoutSeconds) {
  static std::once_flag once;
  std::call_once(once, [&] {
    world = std::move(places);
    self = worldRank;
    limit = timeoutSeconds;
    std::thread(watch).detach();
  });
}

CommGuard::CommGuard(const char *what, const std::vector<int> &group) {
  inFlight.since.store(Clock::now().time_since_epoch().count());
  inFlight.group.store(&group);
  inFlight.what.store(what);
}

CommGuard::~CommGuard() {
  inFlight.what.store(nullptr);
  inFlight.group.store(nullptr);
}
