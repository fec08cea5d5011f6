//===- OnnxOutput.h - --emit=onnx ------------------------------*- C++ -*-===//
//
// The optimized one-rank graph (fused, quantized, pruned) written as an
// ONNX model (include/shardc/Target/ONNX.h), so that ONNX Runtime or any
// other runtime checks what shardc's simplification did to the model.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_ONNXOUTPUT_H
#define SHARDC_TOOLS_SHARDC_ONNXOUTPUT_H

#include "Options.h"
#include "Session.h"

namespace shardc::driver {

/// Writes the session's module to -o (or stdout; weights past 1 GiB then
/// need a file, for FILE.data beside it). The exit status.
int writeONNX(Session &s, const Options &o);

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_ONNXOUTPUT_H
