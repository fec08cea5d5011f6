//===- DynamicLibrary.h - dlopen/dlsym with one-line errors -----*- C++ -*-===//
//
// The CUDA libraries are opened at run time, never linked (Driver.h). A
// library that loaded stays loaded for the life of the process: the
// runtime keeps pointers into it in process-wide tables.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CUDA_DYNAMICLIBRARY_H
#define SHARDC_RUNTIME_CUDA_DYNAMICLIBRARY_H

#include <string>
#include <vector>

namespace shardc::rt::cuda {

/// dlopen(name); on failure null and "cannot load NAME (dlerror)".
void *openLibrary(const std::string &name, std::string &error);

/// dlclose of a library whose tables were not kept.
void closeLibrary(void *lib);

/// The first of `names` that opens (the SONAME of the toolkit's major
/// version, then the unversioned development link); on failure null and the
/// error of the first name.
void *openFirstLibrary(const std::vector<std::string> &names,
                       std::string &loaded, std::string &error);

/// dlsym(lib, symbol); on failure false and "LIB has no SYMBOL".
bool resolveSymbolAddress(void *lib, const std::string &libName,
                          const char *symbol, void *&address,
                          std::string &error);

/// resolveSymbolAddress into a typed function pointer.
template <class Fn>
bool resolveSymbol(void *lib, const std::string &libName, const char *symbol,
                   Fn &fn, std::string &error) {
  void *address = nullptr;
  if (!resolveSymbolAddress(lib, libName, symbol, address, error))
    return false;
  fn = reinterpret_cast<Fn>(address);
  return true;
}

} // namespace shardc::rt::cuda

#endif // SHARDC_RUNTIME_CUDA_DYNAMICLIBRARY_H
