//===- Toolchain.h - host compiler and linker invocation -------*- C++ -*-===//
#ifndef SHARDC_TOOLS_SHARDC_TOOLCHAIN_H
#define SHARDC_TOOLS_SHARDC_TOOLCHAIN_H

#include "llvm/ADT/SmallVector.h"

#include <string>
#include <system_error>

namespace shardc {

struct ToolchainOptions {
  std::string cpu = "native"; ///< -march value
  bool verbose = false;       ///< print the commands
  /// Host compilers run at once for a split program (0: SHARDC_JOBS, else
  /// the number of hardware threads).
  unsigned jobs = 0;
  /// A multi-rank program: link the MPI communicator and MPI.
  bool mpi = false;
  /// A shared library exporting the runtime's C API (shardc/runtime.h)
  /// and `shardc_model_program` instead of an executable with main().
  bool shared = false;
};

/// Where the runtime that generated code links against lives.
struct RuntimeLayout {
  std::string libDir;     ///< libshardc_rt.a, libshardc_main.a, tools
  std::string includeDir; ///< shardc/cpu.h and the other headers
};

/// Finds the runtime: SHARDC_RUNTIME_LIB_DIR and SHARDC_RUNTIME_INCLUDE_DIR
/// when set; else an installed layout relative to this executable
/// (BIN/../lib/shardc and BIN/../include, what `cmake --install` writes);
/// else the build and source trees this shardc was built in. False, with a
/// one-line `error`, when none of them holds libshardc_rt.a.
bool findRuntime(RuntimeLayout &layout, std::string &error);

/// Compiles `source` (C++) and links it with the runtime into the
/// executable (or, with `options.shared`, the shared library) `output`. Uses
/// $CXX (default c++) and ccache when present. A source split into translation
/// units (lines starting with the C++ target's unit marker) is compiled unit by
/// unit, in parallel, next to `object`; those files and the compilers' logs are
/// removed afterwards. The compilers run in their own process groups with
/// TMPDIR set to the object's directory, and are killed if shardc is
/// interrupted.
bool buildExecutable(const std::string &source, const std::string &object,
                     const std::string &output,
                     const ToolchainOptions &options, std::string &error);

/// A new unique temporary directory ("shardc-PID-XXXXXX" in TMPDIR, mode
/// 0700) for the driver's intermediate files (not for --save-temps). On
/// SIGINT, SIGTERM or SIGHUP shardc kills the host compiler processes,
/// then removes the files in it (a flat directory) and it, then lets the
/// signal take its course. It is registered before it is created, so that
/// no signal finds it unregistered.
std::error_code createDirectoryRemovedOnSignal(llvm::SmallVectorImpl<char> &dir);

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_TOOLCHAIN_H
