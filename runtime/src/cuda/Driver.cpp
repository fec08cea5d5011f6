//===- Driver.cpp - opening libcuda.so.1 ----------------------------------===//
//
// dlopen + dlsym of the driver's entry points (Driver.h). The stub
// libcuda.so under the toolkit's lib/stubs is never opened: it loads, but
// every call fails, so it would turn "no GPU" into a confusing error.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "DynamicLibrary.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

namespace shardc::rt::cuda {

std::string Driver::errorText(CUresult r) const {
  // The stub cannot name its own error.
  if (r == CUDA_ERROR_STUB_LIBRARY)
    return "CUDA_ERROR_STUB_LIBRARY (the libcuda found is the toolkit's stub, "
           "not the NVIDIA driver's)";
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(static_cast<int>(r));
  std::string s = name;
  if (cuGetErrorString(r, &text) == CUDA_SUCCESS && text)
    s += std::string(" (") + text + ")";
  return s;
}

namespace {

std::unique_ptr<Driver> openDriver(const std::string &path,
                                   std::string &error) {
  void *lib = openLibrary(path, error);
  if (!lib) {
    error = "no usable GPU: " + error;
    return nullptr;
  }
  auto drv = std::make_unique<Driver>();
  // Two steps so that `name` is macro-expanded (cuMemAlloc -> cuMemAlloc_v2)
  // before it is stringized.
#define SHARDC_CUDA_DRIVER_RESOLVE_NAMED(name)                                 \
  if (!resolveSymbol(lib, path, #name, drv->name, error)) {                    \
    error = "no usable GPU: " + error + " (the NVIDIA driver is too old)";     \
    closeLibrary(lib);                                                         \
    return nullptr;                                                            \
  }
#define SHARDC_CUDA_DRIVER_RESOLVE(name) SHARDC_CUDA_DRIVER_RESOLVE_NAMED(name)
  SHARDC_CUDA_DRIVER_FUNCTIONS(SHARDC_CUDA_DRIVER_RESOLVE)
#undef SHARDC_CUDA_DRIVER_RESOLVE
#undef SHARDC_CUDA_DRIVER_RESOLVE_NAMED
  // The library stays open after a failed cuInit: the driver may have
  // started threads that unloading it would pull the code from under.
  if (CUresult r = drv->cuInit(0)) {
    error = "no usable GPU: cuInit failed: " + drv->errorText(r);
    return nullptr;
  }
  return drv;
}

} // namespace

const Driver *loadDriver(std::string &error) {
  const char *env = std::getenv("SHARDC_LIBCUDA");
  std::string path = env && *env ? env : "libcuda.so.1";
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Driver>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Driver> &slot = loaded[path];
  if (!slot)
    slot = openDriver(path, error);
  return slot.get();
}

} // namespace shardc::rt::cuda
