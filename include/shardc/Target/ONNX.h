//===- ONNX.h - the graph dialect back to ONNX ------------------*- C++ -*-===//
//
// `shardc --emit=onnx`: the optimized single-rank graph (after fusion,
// quantization and pruning) written as an ONNX model that any ONNX runtime
// runs, so that a quantized or pruned model can be checked independently.
// Quantized ops become QDQ form (DequantizeLinear of the int8 weights and
// activations around float products), fused ops their standard ONNX
// decomposition, at opset 17.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TARGET_ONNX_H
#define SHARDC_TARGET_ONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace shardc {

struct ONNXExportOptions {
  /// Written as the model's producer_version.
  std::string producerVersion;
  /// When the initializers hold more than `inlineLimit` bytes, those of at
  /// least 1 KiB go to this file (ONNX external data), recorded by
  /// `dataLocation` (its name relative to the model). Empty: every
  /// initializer inline, and a model past protobuf's 2 GiB is refused.
  std::string dataPath;
  std::string dataLocation;
  int64_t inlineLimit = int64_t(1) << 30;
};

/// Writes `module`'s `@main` (graph dialect, one rank) as an ONNX model to
/// `os`. Fails with a diagnostic on the first op that has no ONNX form (a
/// partitioned gather, what opset 17 lacks) or on weights that are absent.
mlir::LogicalResult exportONNX(mlir::ModuleOp module, llvm::raw_ostream &os,
                               const ONNXExportOptions &options);

} // namespace shardc

#endif // SHARDC_TARGET_ONNX_H
