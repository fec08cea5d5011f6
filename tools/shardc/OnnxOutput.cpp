//===- OnnxOutput.cpp - --emit=onnx ---------------------------------------===//

#include "OnnxOutput.h"

#include "Version.h"
#include "shardc/Target/ONNX.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

namespace shardc::driver {

int writeONNX(Session &s, const Options &o) {
  ONNXExportOptions options;
  options.producerVersion = SHARDC_VERSION;
  if (o.outputFile != "-") {
    options.dataPath = o.outputFile + ".data";
    options.dataLocation = llvm::sys::path::filename(options.dataPath).str();
  }
  options.inlineLimit = o.onnxInlineLimit;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (mlir::failed(exportONNX(*s.module, os, options)))
    return fatal(s.diagnostic.empty() ? o.inputFile + ": --emit=onnx failed"
                                      : s.diagnostic);
  std::string error;
  auto output = mlir::openOutputFile(o.outputFile, &error);
  if (!output)
    return fatal(error);
  output->os() << bytes;
  output->keep();
  s.stage("written as ONNX");
  return 0;
}

} // namespace shardc::driver
