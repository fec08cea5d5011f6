//===- DynamicLibrary.cpp - dlopen/dlsym with one-line errors -------------===//
#include "DynamicLibrary.h"

#include <dlfcn.h>

namespace shardc::rt::cuda {

void *openLibrary(const std::string &name, std::string &error) {
  // RTLD_LOCAL: the libraries' symbols stay out of the global namespace, so
  // they cannot interpose on anything the executable links.
  void *lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = ::dlerror();
    error = "cannot load " + name + " (" + (why ? why : "unknown error") + ")";
  }
  return lib;
}

void closeLibrary(void *lib) { ::dlclose(lib); }

void *openFirstLibrary(const std::vector<std::string> &names,
                       std::string &loaded, std::string &error) {
  std::string first;
  for (const std::string &name : names) {
    std::string e;
    if (void *lib = openLibrary(name, e)) {
      loaded = name;
      return lib;
    }
    if (first.empty())
      first = e;
  }
  error = first;
  return nullptr;
}

bool resolveSymbolAddress(void *lib, const std::string &libName,
                          const char *symbol, void *&address,
                          std::string &error) {
  ::dlerror();
  address = ::dlsym(lib, symbol);
  if (!address) {
    error = libName + " has no " + symbol;
    return false;
  }
  return true;
}

} // namespace shardc::rt::cuda
