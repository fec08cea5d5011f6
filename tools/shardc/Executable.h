//===- Executable.h - code generation and the executable --------*- C++ -*-===//
#ifndef SHARDC_TOOLS_SHARDC_EXECUTABLE_H
#define SHARDC_TOOLS_SHARDC_EXECUTABLE_H

#include "Session.h"

namespace shardc::driver {

/// Generates code for the kern module and writes what --emit asks for:
/// the CUDA C++ (cuda), the C++ (cpp), or the executable and its .weights
/// file (exe: NVRTC images, the host compiler, the weights streamed
/// meanwhile; --save-temps keeps the intermediate files). Returns main's
/// exit status.
int writeExecutable(Session &s, Options &o);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_EXECUTABLE_H
