//===- Toolchain.h - host compiler and linker invocation -------*- C++ -*-===//
#ifndef SHARDC_TOOLS_SHARDC_TOOLCHAIN_H
#define SHARDC_TOOLS_SHARDC_TOOLCHAIN_H

#include <string>

namespace shardc {

struct ToolchainOptions {
  std::string cpu = "native"; ///< -march value
  bool verbose = false;       ///< print the commands
};

/// Compiles `source` (C++) and links it with the runtime into the
/// executable `output`. Uses $CXX (default c++) and ccache when present.
bool buildExecutable(const std::string &source, const std::string &object,
                        const std::string &output,
                        const ToolchainOptions &options, std::string &error);

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_TOOLCHAIN_H
