//===- DnnlContext.h - the runtime's oneDNN engine and streams --*- C++ -*-===//
//
// Private to runtime/src/cpu: the one CPU engine every oneDNN primitive of
// the runtime is created on, and a stream per thread to execute them on
// (models may run on several threads at once). Defined in Dnnl.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_CPU_DNNLCONTEXT_H
#define SHARDC_RUNTIME_CPU_DNNLCONTEXT_H

#include <oneapi/dnnl/dnnl.hpp>

namespace shardc::rt::cpu {

dnnl::engine &cpuEngine();
dnnl::stream &cpuStream();

} // namespace shardc::rt::cpu

#endif // SHARDC_RUNTIME_CPU_DNNLCONTEXT_H
