//===- QuantReport.h - what quantization did, for --emit=quant-report -*- C++
//-*-===//
//
// Every linear layer and convolution of the quantized graph (after the
// graph pipeline), in program order: its ONNX node, its shape and share of
// the layers' FLOPs, and the int8 passes' decision (the graph.quant attribute: the
// scheme, SmoothQuant's alpha, the activation's clipping range and the
// layer's SQNR on calibration rows) or why it stayed in floating point;
// and an SVG bar chart of the SQNRs.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_QUANTREPORT_H
#define SHARDC_TOOLS_SHARDC_QUANTREPORT_H

#include "Options.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace shardc {

/// The report of `module`'s @main; `svgPath` (may be empty) names the
/// chart written beside it.
void printQuantReport(llvm::raw_ostream &os, llvm::StringRef model,
                      mlir::ModuleOp module, llvm::StringRef svgPath);

/// The SQNR bar chart (empty without a static layer).
std::string quantSvg(mlir::ModuleOp module);

namespace driver {
/// --emit=quant-report: the report to -o (or stdout), its SQNR chart
/// beside a named output (OUT minus its extension, ".sqnr.svg"). The exit
/// status.
int writeQuantReport(const Options &o, mlir::ModuleOp module);
} // namespace driver

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_QUANTREPORT_H
