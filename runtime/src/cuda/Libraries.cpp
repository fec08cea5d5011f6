//===- Libraries.cpp - opening cuBLASLt and cuDNN -------------------------===//
#include "Libraries.h"
#include "DynamicLibrary.h"

#include <memory>
#include <mutex>
#include <vector>

namespace shardc::rt::cuda {

std::string CublasLt::statusText(cublasStatus_t s) const {
  const char *name = cublasLtGetStatusName(s);
  const char *text = cublasLtGetStatusString(s);
  std::string r = name ? name : "cuBLAS status " + std::to_string(s);
  if (text && *text)
    r += std::string(" (") + text + ")";
  return r;
}

std::string Cudnn::statusText(cudnnStatus_t s) const {
  const char *text = cudnnGetErrorString(s);
  return text ? text : "cuDNN status " + std::to_string(s);
}

namespace {

bool resolve(void *lib, const std::string &name, CublasLt &t,
             std::string &error) {
#define SHARDC_RESOLVE(fn)                                                     \
  if (!resolveSymbol(lib, name, #fn, t.fn, error))                             \
    return false;
  SHARDC_CUBLASLT_FUNCTIONS(SHARDC_RESOLVE)
#undef SHARDC_RESOLVE
  return true;
}

bool resolve(void *lib, const std::string &name, Cudnn &t, std::string &error) {
#define SHARDC_RESOLVE(fn)                                                     \
  if (!resolveSymbol(lib, name, #fn, t.fn, error))                             \
    return false;
  SHARDC_CUDNN_FUNCTIONS(SHARDC_RESOLVE)
#undef SHARDC_RESOLVE
  return true;
}

size_t versionOf(const CublasLt &t) { return t.cublasLtGetVersion(); }
size_t versionOf(const Cudnn &t) { return t.cudnnGetVersion(); }

/// Opens the first of `names` that loads, resolves its table and checks
/// that its major version is `major` (versions are major * 10000 + minor *
/// 100 + patch in both libraries).
template <class Table>
std::unique_ptr<Table> open(const std::vector<std::string> &names, size_t major,
                            std::string &error) {
  std::string name;
  void *lib = openFirstLibrary(names, name, error);
  if (!lib)
    return nullptr;
  auto table = std::make_unique<Table>();
  if (!resolve(lib, name, *table, error)) {
    closeLibrary(lib);
    return nullptr;
  }
  size_t version = versionOf(*table);
  if (version / 10000 != major) {
    error = name + " is version " + std::to_string(version / 10000) + "." +
            std::to_string(version / 100 % 100) + "; this runtime needs " +
            std::to_string(major) + ".x";
    closeLibrary(lib);
    return nullptr;
  }
  return table;
}

template <class Table>
const Table *loadOnce(const std::vector<std::string> &names, size_t major,
                      std::string &error) {
  static std::mutex mutex;
  static std::unique_ptr<Table> table;
  std::lock_guard<std::mutex> lock(mutex);
  if (!table)
    table = open<Table>(names, major, error);
  return table.get();
}

} // namespace

const CublasLt *loadCublasLt(std::string &error) {
  return loadOnce<CublasLt>(
      {"libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR), "libcublasLt.so"},
      CUBLAS_VER_MAJOR, error);
}

const Cudnn *loadCudnn(std::string &error) {
  return loadOnce<Cudnn>(
      {"libcudnn.so." + std::to_string(CUDNN_MAJOR), "libcudnn.so"},
      CUDNN_MAJOR, error);
}

} // namespace shardc::rt::cuda
