//===- ONNX.h - ONNX protobuf to graph dialect ----------------*- C++ -*-===//
#ifndef SHARDC_IMPORT_ONNX_H
#define SHARDC_IMPORT_ONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace shardc {

struct ONNXImportOptions {
  /// Static shapes for graph inputs with dynamic dims: name -> dims.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Bounds of graph inputs whose dynamic dims stay dynamic (--max-shape):
  /// name -> the largest dims. Each distinct dim_param becomes one symbol
  /// (inputs that share 'seq' share it, and an input without a bound of its
  /// own takes the bounds of the symbols it names); a dim without a name
  /// gets its own symbol. docs/dynamic-shapes.md.
  std::map<std::string, std::vector<int64_t>> maxShapes;
  /// Graph inputs fixed to a compile-time value: name -> .npy or .pb file.
  std::map<std::string, std::string> constInputs;
  /// Shape-only import (--emit=plan): initializers stored as external data
  /// are not opened; they become constants with a type and no data
  /// (graph::isShapeOnly), enough to plan a model whose weights are absent
  /// or too large for this machine. Their declarations are still checked.
  bool shapesOnly = false;
  /// With none of inputShapes, maxShapes and constInputs (the driver sets
  /// it when the command line has no --input-shape, --max-shape or
  /// --const-input): when every dynamic dim of the inputs has a name that
  /// says what it is, a batch is fixed at kDefaultBatchBound (1: a static
  /// dim, so every later stage takes it) and a sequence or past length
  /// stays dynamic with the bound kDefaultSeqBound, and `boundsNote`, if
  /// given, receives "'batch_size' fixed at 1, 'sequence_length' at 512"
  /// for a warning. Otherwise the dims are refused as without it.
  bool defaultBounds = false;
  std::string *boundsNote = nullptr;
};

/// The default bounds of dims whose names contain "batch" (batch_size) and
/// of those whose names contain "seq", "len", "token", "past", "context" or
/// "step" (sequence_length, past_sequence_length, num_tokens): one request
/// of a model's usual context. A name matches the first rule it can.
inline constexpr int64_t kDefaultBatchBound = 1;
inline constexpr int64_t kDefaultSeqBound = 512;

/// Imports an ONNX model file into a module holding `func.func @main` in the
/// graph dialect. On failure returns null and sets `error` to one line that
/// names the file, the node and what is wrong.
mlir::OwningOpRef<mlir::ModuleOp>
importONNXModel(mlir::MLIRContext &context, const std::string &path,
                const ONNXImportOptions &options, std::string &error);

/// Parses "1x128" into dims; false on a malformed spec.
bool parseShapeSpec(const std::string &spec, std::vector<int64_t> &dims);

} // namespace shardc

#endif // SHARDC_IMPORT_ONNX_H
