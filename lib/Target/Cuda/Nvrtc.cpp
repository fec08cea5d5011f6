//===- Nvrtc.cpp - CUDA C++ to cubin / PTX, in process ---------------------===//
//
// All kernels of a model form one NVRTC program, compiled once per
// architecture (the architectures in parallel). libnvrtc is opened with
// dlopen so that a compiler without the CUDA toolkit still serves
// --target=cpu. Results are cached by a hash of everything that decides
// them: the source, the prelude, the options and the NVRTC version.
//
//===----------------------------------------------------------------------===//

#include "shardc/Target/Cuda.h"

#include "shardc/format.h"

#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace shardc;

namespace {

/// The prelude headers, embedded at build time (EmbedPrelude.cmake).
struct PreludeFile {
  const char *name;
  const char *text;
};
const PreludeFile kPrelude[] = {
#include "lib/Target/Cuda/Prelude.inc"
};

#ifndef SHARDC_CUDA_INCLUDE_DIR
#define SHARDC_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

/// The NVRTC entry points shardc uses.
struct Nvrtc {
  decltype(&nvrtcVersion) version = nullptr;
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) logSize = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubinSize = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcGetPTXSize) ptxSize = nullptr;
  decltype(&nvrtcGetPTX) ptx = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcGetErrorString) errorString = nullptr;
  int major = 0, minor = 0;
  std::string error; ///< why it could not be loaded

  static const Nvrtc &get() {
    static Nvrtc api = load();
    return api;
  }

private:
  static Nvrtc load() {
    Nvrtc api;
    void *lib = nullptr;
    std::string tried;
    for (const char *name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        break;
      tried = dlerror();
    }
    if (!lib) {
      api.error = "cannot load NVRTC (" + tried + ")";
      return api;
    }
    bool ok = true;
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn && ok) {
        api.error = std::string("NVRTC lacks ") + name;
        ok = false;
      }
    };
    sym(api.version, "nvrtcVersion");
    sym(api.create, "nvrtcCreateProgram");
    sym(api.compile, "nvrtcCompileProgram");
    sym(api.logSize, "nvrtcGetProgramLogSize");
    sym(api.log, "nvrtcGetProgramLog");
    sym(api.cubinSize, "nvrtcGetCUBINSize");
    sym(api.cubin, "nvrtcGetCUBIN");
    sym(api.ptxSize, "nvrtcGetPTXSize");
    sym(api.ptx, "nvrtcGetPTX");
    sym(api.destroy, "nvrtcDestroyProgram");
    sym(api.errorString, "nvrtcGetErrorString");
    if (ok)
      api.version(&api.major, &api.minor);
    return api;
  }
};

std::string cudaIncludeDir() {
  const char *env = std::getenv("SHARDC_CUDA_INCLUDE_DIR");
  return env && *env ? env : SHARDC_CUDA_INCLUDE_DIR;
}

std::vector<std::string> optionsFor(const std::string &arch) {
  return {"-arch=" + arch, "-std=c++17", "-I" + cudaIncludeDir(),
          "-default-device"};
}

/// Compiles for one architecture; fills `image` or `error`.
bool compileOne(const Nvrtc &api, const std::string &source,
                const std::string &arch, cuda::Image &image,
                std::string &error) {
  std::vector<const char *> headers, names;
  for (const PreludeFile &f : kPrelude) {
    headers.push_back(f.text);
    names.push_back(f.name);
  }
  nvrtcProgram prog;
  nvrtcResult r = api.create(&prog, source.c_str(), "model.cu",
                             static_cast<int>(headers.size()), headers.data(),
                             names.data());
  if (r != NVRTC_SUCCESS) {
    error = std::string("nvrtcCreateProgram: ") + api.errorString(r);
    return false;
  }
  std::vector<std::string> opts = optionsFor(arch);
  std::vector<const char *> optPtrs;
  for (const std::string &o : opts)
    optPtrs.push_back(o.c_str());
  r = api.compile(prog, static_cast<int>(optPtrs.size()), optPtrs.data());
  if (r != NVRTC_SUCCESS) {
    size_t n = 0;
    api.logSize(prog, &n);
    std::string log(n, '\0');
    api.log(prog, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
      log.pop_back();
    error = "NVRTC failed for " + arch + ": " + api.errorString(r) + "\n" + log;
    api.destroy(&prog);
    return false;
  }
  size_t size = 0;
  bool ptx = arch.rfind("compute_", 0) == 0;
  (ptx ? api.ptxSize : api.cubinSize)(prog, &size);
  image.arch = arch;
  image.data.resize(size);
  (ptx ? api.ptx : api.cubin)(prog, image.data.data());
  api.destroy(&prog);
  return true;
}

std::string cacheKey(const Nvrtc &api, const std::string &source,
                     const std::string &arch) {
  std::string identity = std::to_string(api.major) + "." +
                         std::to_string(api.minor) + "\n";
  for (const std::string &o : optionsFor(arch))
    identity += o + "\n";
  for (const PreludeFile &f : kPrelude)
    identity += std::string(f.name) + "\n" + f.text + "\n";
  identity += source;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(
                    format::checksum64(identity.data(), identity.size())));
  return std::string(buf) + "." + arch;
}

bool readFile(const std::string &path, std::vector<char> &data) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  data.assign(s.begin(), s.end());
  return !data.empty();
}

/// Best effort: a cache that cannot be written only costs time.
void writeCacheFile(const std::string &dir, const std::string &key,
                    const std::vector<char> &data) {
  for (size_t pos = 1; pos <= dir.size(); ++pos)
    if (pos == dir.size() || dir[pos] == '/')
      ::mkdir(dir.substr(0, pos).c_str(), 0755);
  std::string tmp = dir + "/." + key + "." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out)
      return;
  }
  std::rename(tmp.c_str(), (dir + "/nvrtc-" + key).c_str());
}

} // namespace

std::string cuda::programPrologue() {
  return "#include \"shardc_cuda.cuh\"\n";
}

std::string cuda::defaultCacheDir() {
  if (const char *d = std::getenv("SHARDC_CACHE_DIR"))
    return d;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/shardc";
  if (const char *h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/shardc";
  return "";
}

LogicalResult cuda::compile(const std::string &source,
                            const CompileOptions &options,
                            std::vector<Image> &images, std::string &error,
                            bool &cached) {
  const Nvrtc &api = Nvrtc::get();
  if (!api.error.empty()) {
    error = "--target=cuda needs NVRTC: " + api.error;
    return failure();
  }
  size_t n = options.archs.size();
  images.assign(n, Image());
  std::vector<std::string> errors(n), keys(n);
  std::vector<bool> hit(n, false);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = cacheKey(api, source, options.archs[i]);
    if (!options.cacheDir.empty() &&
        readFile(options.cacheDir + "/nvrtc-" + keys[i], images[i].data)) {
      images[i].arch = options.archs[i];
      hit[i] = true;
    }
  }
  std::vector<std::thread> workers;
  std::vector<char> ok(n, 1);
  for (size_t i = 0; i < n; ++i)
    if (!hit[i])
      workers.emplace_back([&, i] {
        ok[i] = compileOne(api, source, options.archs[i], images[i], errors[i]);
      });
  for (std::thread &t : workers)
    t.join();
  cached = true;
  for (size_t i = 0; i < n; ++i) {
    if (!ok[i]) {
      error = errors[i];
      return failure();
    }
    if (!hit[i]) {
      cached = false;
      if (!options.cacheDir.empty())
        writeCacheFile(options.cacheDir, keys[i], images[i].data);
    }
  }
  return success();
}
