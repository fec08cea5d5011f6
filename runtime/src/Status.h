//===- Status.h - a status with its one-line message ------------*- C++ -*-===//
#ifndef SHARDC_RUNTIME_STATUS_H
#define SHARDC_RUNTIME_STATUS_H

#include "shardc/runtime.h"

#include <string>
#include <utility>

namespace shardc::rt {

/// A status with its one-line message.
struct Status {
  shardc_status code = SHARDC_OK;
  std::string message;

  Status() = default;
  Status(shardc_status code, std::string message)
      : code(code), message(std::move(message)) {}
  bool failed() const { return code != SHARDC_OK; }
};

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_STATUS_H
