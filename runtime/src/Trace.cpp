//===- Trace.cpp - Chrome trace-event JSON of a rank's timeline -----------===//

#include "Trace.h"

#include <climits>
#include <cstdio>

using namespace shardc::rt;

namespace {

/// The label as a JSON string body (it is made by the runtime, but escape
/// anyway).
std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

/// Nanoseconds as microseconds with three decimals.
void appendMicros(std::string &out, int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld",
                static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  out += buf;
}

} // namespace

int64_t TraceSink::earliest() const {
  int64_t first = INT64_MAX;
  for (const TraceEvent &e : events)
    first = e.start < first ? e.start : first;
  return first;
}

std::string TraceSink::json(int pid, const std::string &label,
                            int64_t origin) const {
  const std::string p = std::to_string(pid);
  std::string out;
  out.reserve(160 + events.size() * 120);
  out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + p +
         ",\"tid\":0,\"args\":{\"name\":\"" + escape(label) + "\"}},\n";
  out += "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + p +
         ",\"tid\":0,\"args\":{\"sort_index\":" + p + "}}";
  for (const TraceEvent &e : events) {
    out += ",\n{\"name\":\"";
    out += e.name;
    if (e.index >= 0)
      out += " " + std::to_string(e.index);
    out += "\",\"cat\":\"";
    out += e.category;
    out += "\",\"ph\":\"X\",\"ts\":";
    // A clock that went backwards across processes (it does not on one
    // host) would still give no negative time.
    appendMicros(out, e.start > origin ? e.start - origin : 0);
    out += ",\"dur\":";
    appendMicros(out, e.end > e.start ? e.end - e.start : 0);
    out += ",\"pid\":" + p + ",\"tid\":0";
    if (e.bytes >= 0 || e.peer >= 0) {
      out += ",\"args\":{";
      if (e.bytes >= 0)
        out += "\"bytes\":" + std::to_string(e.bytes);
      if (e.peer >= 0)
        out += std::string(e.bytes >= 0 ? "," : "") +
               "\"peer\":" + std::to_string(e.peer);
      out += "}";
    }
    out += "}";
  }
  return out;
}

std::string shardc::rt::traceDocument(
    const std::vector<std::string> &fragments) {
  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  for (const std::string &f : fragments) {
    if (f.empty())
      continue;
    if (!first)
      out += ",\n";
    out += f;
    first = false;
  }
  out += "\n],\"displayTimeUnit\":\"ms\"}\n";
  return out;
}
