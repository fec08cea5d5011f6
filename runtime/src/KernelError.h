//===- KernelError.h - sc_fail and calls into generated code ----*- C++ -*-===//
//
// Kernels and library wrappers report failures through sc_fail
// (shardc/cpu.h), from any thread (OpenMP workers carry no model). The first
// message of a load or run is kept in a process-wide slot; loads and runs of
// different models on different threads at the same time share that slot.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_KERNELERROR_H
#define SHARDC_RUNTIME_KERNELERROR_H

#include "shardc/cpu.h"

#include <exception>
#include <string>

namespace shardc::rt {

void clearKernelError();
/// The recorded message, if any, and clears the slot.
bool takeKernelError(std::string &message);

/// Calls generated code (an init or run entry) with a clear slot; true with
/// the first sc_fail message (or an escaping exception's) in `message` if
/// it failed.
template <class F> bool failedIn(F &&call, std::string &message) {
  clearKernelError();
  try {
    call();
  } catch (const std::exception &e) {
    sc_fail("%s", e.what());
  } catch (...) {
    sc_fail("unknown exception in a kernel");
  }
  return takeKernelError(message);
}

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_KERNELERROR_H
