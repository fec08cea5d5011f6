//===- Toolchain.cpp - host compiler and linker invocation -----------------===//

#include "Toolchain.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

#ifndef SHARDC_RUNTIME_LIB_DIR
#error "SHARDC_RUNTIME_LIB_DIR must be defined"
#endif

static std::string envOr(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return v && *v ? v : fallback;
}

/// Runs `args`; on failure returns false with the command's output.
static bool run(ArrayRef<std::string> args, bool verbose, std::string &error) {
  ErrorOr<std::string> program = sys::findProgramByName(args[0]);
  if (!program) {
    error = "cannot find '" + args[0] + "' on PATH (set CXX to the C++ compiler)";
    return false;
  }
  SmallVector<StringRef> argv;
  for (const std::string &a : args)
    argv.push_back(a);
  if (verbose) {
    for (const std::string &a : args)
      errs() << a << " ";
    errs() << "\n";
  }
  SmallString<128> log;
  sys::fs::createTemporaryFile("shardc-cc", "log", log);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string msg;
  int rc = sys::ExecuteAndWait(*program, argv, std::nullopt, redirects, 0, 0,
                               &msg);
  auto buffer = MemoryBuffer::getFile(log);
  sys::fs::remove(log);
  if (rc == 0)
    return true;
  // One line: the first diagnostic of the log (the whole log with -v).
  error = "'" + args[0] + "' failed (" +
          (msg.empty() ? "exit " + std::to_string(rc) : msg) + ")";
  if (buffer) {
    StringRef log = (*buffer)->getBuffer();
    if (verbose)
      errs() << log;
    SmallVector<StringRef> lines;
    log.split(lines, '\n', -1, false);
    StringRef first = lines.empty() ? StringRef() : lines.front();
    for (StringRef line : lines)
      if (line.contains("error")) {
        first = line;
        break;
      }
    if (!first.empty())
      error += ": " + first.trim().str() + (verbose ? "" : " (-v shows the whole log)");
  }
  return false;
}

bool shardc::buildExecutable(const std::string &source,
                                const std::string &object,
                                const std::string &output,
                                const ToolchainOptions &options,
                                std::string &error) {
  std::string cxx = envOr("CXX", "c++");
  std::string libDir = envOr("SHARDC_RUNTIME_LIB_DIR", SHARDC_RUNTIME_LIB_DIR);
  std::string incDir = envOr("SHARDC_RUNTIME_INCLUDE_DIR", SHARDC_RUNTIME_INCLUDE_DIR);
  std::vector<std::string> compile;
  if (sys::findProgramByName("ccache") && !std::getenv("SHARDC_NO_CCACHE"))
    compile.push_back("ccache");
  compile.insert(compile.end(),
                 {cxx, "-std=c++17", "-O2", "-fopenmp", "-fno-math-errno",
                  "-march=" + options.cpu, "-w", "-I" + incDir, "-c", source,
                  "-o", object});
  if (!run(compile, options.verbose, error))
    return false;
  std::vector<std::string> link{cxx,
                                object,
                                "-o",
                                output,
                                libDir + "/libshardc_main.a",
                                libDir + "/libshardc_rt.a",
                                "-ldnnl",
                                "-fopenmp",
                                "-lpthread",
                                "-lm"};
  return run(link, options.verbose, error);
}
