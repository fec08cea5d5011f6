//===- KernelError.cpp - sc_fail and sc_handle_free -----------------------===//
#include "KernelError.h"
#include "Handle.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace {

std::mutex kernelErrorMutex;
std::atomic<bool> kernelFailed{false};
std::string kernelError;

} // namespace

namespace shardc::rt {

void clearKernelError() {
  std::lock_guard<std::mutex> lock(kernelErrorMutex);
  kernelFailed.store(false);
  kernelError.clear();
}

bool takeKernelError(std::string &message) {
  if (!kernelFailed.load())
    return false;
  std::lock_guard<std::mutex> lock(kernelErrorMutex);
  message = kernelError;
  kernelFailed.store(false);
  kernelError.clear();
  return true;
}

} // namespace shardc::rt

extern "C" void sc_fail(const char *fmtStr, ...) {
  if (kernelFailed.load())
    return;
  char buf[1024];
  va_list args;
  va_start(args, fmtStr);
  std::vsnprintf(buf, sizeof buf, fmtStr ? fmtStr : "kernel failed", args);
  va_end(args);
  for (char *c = buf; *c; ++c)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  std::lock_guard<std::mutex> lock(kernelErrorMutex);
  if (kernelFailed.load())
    return;
  kernelError = buf;
  kernelFailed.store(true);
}

extern "C" void sc_handle_free(void *handle) {
  delete static_cast<shardc::rt::Handle *>(handle);
}
