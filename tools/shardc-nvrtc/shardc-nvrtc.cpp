//===- shardc-nvrtc.cpp - compile many generated CUDA programs at once -----===//
//
//   shardc-nvrtc [--cuda-arch=sm_80,sm_90] [--batch=N] a.cu b.cu ...
//
// Checks that CUDA programs written by `shardc --emit=cuda` compile with
// NVRTC, exactly as the driver compiles them (same prelude, same options),
// but many programs per NVRTC invocation: each program's kernels are
// renamed apart (shardc_kN -> shardc_fF_kN) and placed after a #line
// directive, so an error still names the original file and line. CI uses
// it to compile every kernel of the conformance suites and the model tests
// without paying NVRTC's start-up per model.
//
//===----------------------------------------------------------------------===//

#include "shardc/Target/Cuda.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::list<std::string> files(cl::Positional, cl::desc("<file.cu>..."),
                                   cl::OneOrMore);
static cl::list<std::string>
    archs("cuda-arch", cl::desc("NVRTC targets (default sm_80,sm_90)"),
          cl::CommaSeparated);
static cl::opt<unsigned> batch("batch",
                               cl::desc("Programs per NVRTC compile"),
                               cl::init(400));
static cl::opt<std::string> cacheDir("cache-dir",
                                     cl::desc("NVRTC result cache ('' = none)"),
                                     cl::init(""));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "shardc-nvrtc: compile generated CUDA programs\n");
  shardc::cuda::CompileOptions options;
  options.archs = archs.empty() ? std::vector<std::string>{"sm_80", "sm_90"}
                                : std::vector<std::string>(archs.begin(), archs.end());
  options.cacheDir = cacheDir;
  std::string prologue = shardc::cuda::programPrologue();
  TimeRecord start = TimeRecord::getCurrentTime();
  size_t kernels = 0, images = 0;
  for (size_t first = 0; first < files.size(); first += batch) {
    std::string source = prologue;
    size_t last = std::min<size_t>(files.size(), first + batch);
    for (size_t f = first; f < last; ++f) {
      auto buffer = MemoryBuffer::getFile(files[f]);
      if (!buffer) {
        errs() << "shardc-nvrtc: error: cannot read '" << files[f]
               << "': " << buffer.getError().message() << "\n";
        return 1;
      }
      StringRef text = (*buffer)->getBuffer();
      if (!text.consume_front(prologue)) {
        errs() << "shardc-nvrtc: error: '" << files[f]
               << "' is not a program written by shardc --emit=cuda\n";
        return 1;
      }
      std::string renamed;
      std::string prefix = "shardc_f" + std::to_string(f) + "_k";
      for (size_t pos = 0;;) {
        size_t hit = text.find("shardc_k", pos);
        renamed += text.slice(pos, hit).str();
        if (hit == StringRef::npos)
          break;
        renamed += prefix;
        pos = hit + strlen("shardc_k");
        ++kernels;
      }
      source += "#line 2 \"" + files[f] + "\"\n" + renamed + "\n";
    }
    std::vector<shardc::cuda::Image> out;
    std::string error;
    bool cached = false;
    if (failed(shardc::cuda::compile(source, options, out, error, cached))) {
      errs() << "shardc-nvrtc: error: " << error << "\n";
      return 1;
    }
    images += out.size();
  }
  TimeRecord now = TimeRecord::getCurrentTime();
  outs() << "shardc-nvrtc: " << files.size() << " programs, " << kernels
         << " kernels, " << images << " images ("
         << llvm::join(options.archs, ", ") << "): ok in "
         << format("%.1f", now.getWallTime() - start.getWallTime()) << " s\n";
  return 0;
}
