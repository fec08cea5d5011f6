//===- Executable.cpp - code generation and the executable ----------------===//
//
// The last phase of a compile: the generated C++ (and CUDA C++, compiled
// by NVRTC into images the C++ embeds by path), then the host compiler's
// build of the executable, which runs while this process streams the
// weights file beside it.
//
//===----------------------------------------------------------------------===//
#include "Executable.h"

#include "Toolchain.h"
#include "shardc/Target/Cpp.h"
#include "shardc/Target/Cuda.h"
#include "shardc/format.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"

#include <thread>

using namespace llvm;

namespace shardc::driver {

int writeExecutable(Session &s, Options &o) {
  std::string error;
  std::string source;
  llvm::raw_string_ostream sourceStream(source);
  CppArtifacts artifacts;
  // Where the executable's intermediate files go: a temporary (or
  // --save-temps) directory. The NVRTC images are named before the C++ is
  // written, which embeds them by path.
  SmallString<128> dir;
  auto removeTemps = [&](ArrayRef<std::string> files) {
    if (!o.saveTemps.empty() || dir.empty())
      return;
    for (const std::string &f : files)
      sys::fs::remove(f);
    sys::fs::remove(dir);
  };
  std::string stem = sys::path::stem(o.outputFile).str();
  bool linked = o.emit == Emit::Exe || o.emit == Emit::Lib;
  if (linked) {
    if (!o.saveTemps.empty()) {
      dir = o.saveTemps;
      if (std::error_code ec = sys::fs::create_directories(dir))
        return fatal("cannot create '" + o.saveTemps + "': " + ec.message());
      sys::fs::make_absolute(dir);
    } else if (std::error_code ec =
                   createDirectoryRemovedOnSignal(dir)) { // Toolchain.h
      return fatal("cannot create a temporary directory: " + ec.message());
    }
    if (o.program.cuda) {
      if (StringRef(dir).find_first_of("\"\\\n") != StringRef::npos)
        return fatal("the build directory '" + dir.str().str() +
                     "' has a quote, backslash or newline in its name");
      for (const std::string &arch : o.nvrtc.archs)
        o.program.cudaImages.push_back(
            {arch, (dir + "/" + stem + "." + arch +
                    (StringRef(arch).starts_with("sm_") ? ".cubin" : ".ptx"))
                       .str()});
    }
  }

  if (failed(emitCpp(*s.module, sourceStream, artifacts, o.program)))
    return fatal(s.diagnostic.empty() ? o.inputFile + ": code generation failed"
                                    : s.diagnostic);
  sourceStream.flush();
  s.stage(o.program.cuda ? "CUDA C++ and host C++ generated" : "C++ generated");
  if (o.verbose && artifacts.flopsPerStep > 0)
    errs() << llvm::format("shardc: %.1f MFLOP per step (%u kernels and "
                           "library calls): ",
                           artifacts.flopsPerStep / 1e6,
                           artifacts.numKernels + artifacts.numLibraryCalls)
           << (artifacts.spinCount
                   ? "GOMP_SPINCOUNT=" + std::to_string(artifacts.spinCount) +
                         " (long steps)"
                   : std::string("libgomp's default wait"))
           << "\n";
  if (o.emit == Emit::Cuda)
    return s.writeText([&](raw_ostream &os) { os << artifacts.cudaSource; });
  if (o.emit == Emit::Cpp)
    return s.writeText([&](raw_ostream &os) { os << source; });

  std::vector<std::string> temps;
  if (o.program.cuda) {
    std::vector<cuda::Image> images;
    bool cached = false;
    if (failed(cuda::compile(artifacts.cudaSource, o.nvrtc, images,
                                     error, cached))) {
      removeTemps(temps);
      return fatal(o.inputFile + ": " + error);
    }
    std::string imageIds;
    for (auto [i, image] : llvm::enumerate(images)) {
      const std::string &path = o.program.cudaImages[i].second;
      std::error_code ec;
      raw_fd_ostream os(path, ec);
      if (ec)
        return fatal("cannot write '" + path + "': " + ec.message());
      os.write(image.data.data(), image.data.size());
      temps.push_back(path);
      imageIds += std::to_string(format::checksum64(
                      image.data.data(), image.data.size())) +
                  " ";
    }
    // The C++ names the images by path only: let their contents reach the
    // compiler cache's key.
    source += "static const char shardc_cuda_image_ids[] "
              "__attribute__((used)) = \"" + imageIds + "\";\n";
    s.stage(("NVRTC " + std::to_string(images.size()) + " images" +
           (cached ? " (cached)" : ""))
              .c_str());
  }

  std::string cppPath = (dir + "/" + stem + ".cpp").str();
  std::string objPath = (dir + "/" + stem + ".o").str();
  {
    std::error_code ec;
    raw_fd_ostream os(cppPath, ec);
    if (ec)
      return fatal("cannot write '" + cppPath + "': " + ec.message());
    os << source;
  }
  ToolchainOptions tc;
  tc.cpu = o.cpu;
  tc.verbose = o.verbose;
  tc.mpi = artifacts.sections.size() > 1;
  tc.shared = o.emit == Emit::Lib;
  // ./model beside model.weights; a library model.so beside model.weights.
  std::string weightsPath = o.outputFile;
  if (tc.shared && StringRef(weightsPath).ends_with(".so"))
    weightsPath.resize(weightsPath.size() - 3);
  weightsPath += ".weights";
  // The host compiler (its own processes) runs while this process streams
  // the weights file from the module's weight data (alive until here): the
  // one stage that does not touch weights hides behind the ones that do.
  bool built = false;
  std::string buildError;
  double builtAt = 0;
  std::thread builder([&] {
    built = buildExecutable(cppPath, objPath, o.outputFile, tc,
                                    buildError);
    builtAt = TimeRecord::getCurrentTime().getWallTime();
  });
  bool wrote = writeWeightsFile(
      weightsPath, artifacts.modelHash, artifacts.sections, error,
      s.context.isMultithreadingEnabled() ? 0 : 1);
  double wroteAt = TimeRecord::getCurrentTime().getWallTime();
  builder.join();
  temps.push_back(cppPath);
  temps.push_back(objPath);
  removeTemps(temps);
  if (!built) {
    sys::fs::remove(weightsPath); // no output without its executable
    return fatal(buildError);
  }
  if (!wrote)
    return fatal(error);
  // The file's size: a shared head or identical sections stored once.
  uint64_t weightsBytes = 0;
  (void)sys::fs::file_size(weightsPath, weightsBytes);
  if (s.progress) {
    std::pair<double, const char *> done[] = {
        {wroteAt, "weights written"}, {builtAt, "compiled and linked"}};
    if (builtAt < wroteAt)
      std::swap(done[0], done[1]);
    for (auto &[at, name] : done)
      errs() << llvm::format("shardc: %-28s %8.1f ms\n", name,
                       s.elapsedMs(at));
  }
  if (s.progress)
    errs() << "shardc: wrote " << o.outputFile << " ("
           << (o.program.cpu ? artifacts.numKernels : artifacts.numCudaKernels)
           << " generated kernels, " << artifacts.numLibraryCalls
           << " library calls, arena " << artifacts.arenaBytes << " B) and "
           << weightsPath << " (" << weightsBytes << " B)\n";
  return 0;
}

} // namespace shardc::driver
