//===- Trace.h - a rank's timeline for --trace ------------------*- C++ -*-===//
//
// What shardc_set_trace records and shardc_write_trace writes as Chrome
// trace-event JSON (chrome://tracing, Perfetto): one "X" (complete) event
// per micro-batch of a run, around the device's run, and one per
// communicator operation (recv: the time spent waiting; send: the copy and
// the non-blocking post; flush: waiting for the sends still in flight;
// the collectives), with the bytes moved and, point to point, the peer's
// world rank. Times come from std::chrono::steady_clock, which is one clock
// for every process of a host.
//
// Recording is cheap: two clock reads and an append to a vector reserved
// up front; nothing is formatted or written until shardc_write_trace. The
// runtime owns one sink per model and gives it to the model's
// communicators (Communicator::setTrace); a null sink records nothing.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_TRACE_H
#define SHARDC_RUNTIME_TRACE_H

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace shardc::rt {

struct TraceEvent {
  const char *name;      ///< a string literal: "recv", "microbatch", ...
  const char *category;  ///< "compute" or "comm"
  int64_t start, end;    ///< steady_clock nanoseconds
  int64_t bytes = -1;    ///< args.bytes, or none when negative
  int32_t peer = -1;     ///< args.peer (a world rank), or none when negative
  int32_t index = -1;    ///< "microbatch <index>" when >= 0
};

class TraceSink {
public:
  TraceSink() { events.reserve(16384); }

  static int64_t now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void add(const TraceEvent &e) { events.push_back(e); }
  void clear() { events.clear(); }
  const std::vector<TraceEvent> &all() const { return events; }

  /// The earliest start, or INT64_MAX without events.
  int64_t earliest() const;
  /// This rank's events as comma-separated JSON objects (no brackets):
  /// the process metadata naming the track `label`, then every event as
  /// pid `pid`, tid 0, in microseconds after `origin` (nanoseconds).
  std::string json(int pid, const std::string &label, int64_t origin) const;

private:
  std::vector<TraceEvent> events;
};

/// Records one "comm" event for its lifetime (nothing with a null sink).
class TraceScope {
public:
  TraceScope(TraceSink *sink, const char *name, int64_t bytes, int peer = -1)
      : sink(sink), name(name), bytes(bytes), peer(peer),
        start(sink ? TraceSink::now() : 0) {}
  ~TraceScope() {
    if (sink)
      sink->add({name, "comm", start, TraceSink::now(), bytes, peer, -1});
  }
  TraceScope(const TraceScope &) = delete;
  TraceScope &operator=(const TraceScope &) = delete;

private:
  TraceSink *sink;
  const char *name;
  int64_t bytes;
  int peer;
  int64_t start;
};

/// The whole file: {"traceEvents":[<fragments joined by commas>], ...}.
std::string traceDocument(const std::vector<std::string> &fragments);

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_TRACE_H
