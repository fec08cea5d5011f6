//===- Handle.h - library state owned by a loaded model ---------*- C++ -*-===//
//
// Every handle a generated init() stores (oneDNN primitives and the like)
// starts with this header, so the runtime frees it without knowing its type.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_HANDLE_H
#define SHARDC_RUNTIME_HANDLE_H

namespace shardc::rt {

struct Handle {
  virtual ~Handle() = default;
};

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_HANDLE_H
