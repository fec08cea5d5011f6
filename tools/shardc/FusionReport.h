//===- FusionReport.h - what fusion did, for --fusion-report ----*- C++ -*-===//
#ifndef SHARDC_TOOLS_SHARDC_FUSIONREPORT_H
#define SHARDC_TOOLS_SHARDC_FUSIONREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>

namespace shardc {

/// Graph ops per kind ("matmul", "layer_norm", ...) of @main.
std::map<std::string, unsigned> countGraphOps(mlir::ModuleOp module);

/// The kernels of a kern program.
struct KernelStats {
  unsigned generated = 0; ///< kern.map and kern.reduce
  unsigned library = 0;   ///< kern.matmul, kern.conv, runtime kernels
  uint64_t bytes = 0;     ///< every operand buffer read or written, summed
  /// Kernels per layer, the layer named after the op's location (the first
  /// path component that ends in a number, e.g. "/blocks.3" or
  /// "/model/layers.11"); "" collects the ops outside any layer.
  std::map<std::string, unsigned> perLayer;
  std::map<std::string, std::string> layerKernels; ///< short names, in order
};
KernelStats kernelStats(mlir::ModuleOp kernModule);

void printFusionReport(llvm::raw_ostream &os,
                       const std::map<std::string, unsigned> &graphBefore,
                       const std::map<std::string, unsigned> &graphAfter,
                       const KernelStats &before, const KernelStats &after);

} // namespace shardc

#endif // SHARDC_TOOLS_SHARDC_FUSIONREPORT_H
