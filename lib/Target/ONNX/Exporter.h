//===- Exporter.h - graph ops to ONNX nodes, shared state ------*- C++ -*-===//
//
// One Exporter writes one function into a GraphProto: names for values
// (a graph output keeps its output's name, other values their op's
// location), initializers for constants (one per graph.constant, shared by
// its users), and nodes. Each op family registers how its ops become nodes
// (Export*.cpp), as the importer registers its handlers per family.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_TARGET_ONNX_EXPORTER_H
#define SHARDC_LIB_TARGET_ONNX_EXPORTER_H

#include "shardc/Target/ONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <string>
#include <vector>

namespace shardc::onnxexport {

/// ONNX's element type code of an MLIR element type (0: none).
int32_t onnxType(mlir::Type type);

class Exporter {
public:
  Exporter(onnx::GraphProto &graph, const ONNXExportOptions &options)
      : graph(graph), options(options) {}

  /// The name of operand `v` (a constant becomes its initializer on first
  /// use).
  std::string in(mlir::Value v);
  /// The name result `v` is written under.
  std::string out(mlir::Value v);
  /// A fresh name for an intermediate of `op`.
  std::string tmp(mlir::Operation *op, llvm::StringRef hint);

  /// Appends a node of `type` for `op` (named after op's location).
  onnx::NodeProto &node(mlir::Operation *op, llvm::StringRef type,
                        llvm::ArrayRef<std::string> inputs,
                        llvm::ArrayRef<std::string> outputs);
  /// A node with one fresh output; returns the output's name.
  std::string value(mlir::Operation *op, llvm::StringRef type,
                    llvm::ArrayRef<std::string> inputs,
                    onnx::NodeProto **made = nullptr);

  /// `op`'s result `i` is `name`, computed by the nodes just written: the
  /// last node writes it under the result's name (or an Identity copies
  /// it).
  void result(mlir::Operation *op, const std::string &name, unsigned i = 0);

  /// Initializers made by the exporter.
  std::string ints(llvm::ArrayRef<int64_t> v, mlir::Operation *op,
                   llvm::StringRef hint);
  std::string int64Scalar(int64_t v, mlir::Operation *op, llvm::StringRef hint);
  /// A 0-D (or, with `dims`, filled) tensor of element type `elem`.
  std::string scalar(double v, mlir::Type elem, mlir::Operation *op,
                     llvm::StringRef hint, llvm::ArrayRef<int64_t> dims = {});
  std::string floats(llvm::ArrayRef<float> v, mlir::Operation *op,
                     llvm::StringRef hint);
  /// `name` cast to `to` when `from` differs.
  std::string castTo(mlir::Operation *op, const std::string &name,
                     mlir::Type from, mlir::Type to);

  /// Emits the function: inputs, nodes, outputs. False after a diagnostic.
  mlir::LogicalResult run(mlir::func::FuncOp func);

  onnx::GraphProto &graph;
  const ONNXExportOptions &options;

private:
  std::string unique(std::string base);
  mlir::LogicalResult checkWritten(mlir::func::FuncOp func);
  std::string initializer(mlir::Operation *constant);
  onnx::TensorProto &newInitializer(const std::string &name, int32_t type,
                                    llvm::ArrayRef<int64_t> dims);
  void storeBytes(onnx::TensorProto &t, std::string bytes);

  llvm::DenseMap<mlir::Value, std::string> names;
  /// The op being exported (names the constants that have no name).
  mlir::Operation *current = nullptr;
  llvm::StringSet<> used;
  std::vector<std::pair<std::string, std::string>> identities;
  int64_t externalOffset = 0;
  std::unique_ptr<llvm::raw_fd_ostream> dataFile;
};

// Attribute helpers.
void attr(onnx::NodeProto &n, llvm::StringRef name, int64_t v);
void attrFloat(onnx::NodeProto &n, llvm::StringRef name, float v);
void attr(onnx::NodeProto &n, llvm::StringRef name, llvm::ArrayRef<int64_t> v);
void attr(onnx::NodeProto &n, llvm::StringRef name, llvm::StringRef v);
/// A one-element tensor attribute (ConstantOfShape's value).
void attrTensor(onnx::NodeProto &n, llvm::StringRef name, double v,
                mlir::Type elem);
/// `n` copies of `v` as stored elements of `elem`.
std::string scalarBytes(double v, mlir::Type elem, int64_t n);

/// How an op becomes nodes; failure after a diagnostic on the op.
using ExportFn =
    std::function<mlir::LogicalResult(Exporter &, mlir::Operation *)>;
using ExportMap = llvm::StringMap<ExportFn>;

void registerElementwiseExports(ExportMap &map);
void registerShapeExports(ExportMap &map);
void registerMathExports(ExportMap &map);
void registerContractionExports(ExportMap &map);
void registerQuantExports(ExportMap &map);

/// The activation of a fused epilogue (`none`, `relu`, `gelu`,
/// `gelu_tanh`, `hard_swish`) applied to `x`; false for another name.
bool activation(Exporter &e, mlir::Operation *op, llvm::StringRef act,
                std::string &x, mlir::Type elem);
/// GELU of `x`: exact (erf) or the tanh approximation, decomposed (opset
/// 17 has no Gelu).
std::string gelu(Exporter &e, mlir::Operation *op, const std::string &x,
                 bool tanh, mlir::Type elem);

/// graph.linear's epilogue after the product `y` (bias, activation,
/// residual), the last node writing op's result.
mlir::LogicalResult linearEpilogue(Exporter &e, mlir::Operation *op,
                                   std::string y, mlir::Value bias,
                                   llvm::StringRef act, mlir::Value residual);
/// A Conv (or ConvTranspose) node of `op`'s spatial attributes.
std::string convNode(Exporter &e, mlir::Operation *op, llvm::StringRef type,
                     const std::string &x, const std::string &w,
                     llvm::ArrayRef<int64_t> weightShape, mlir::Value bias);
/// graph.fused_conv's epilogue after the convolution `y` (residual, then
/// activation), the last node writing op's result.
mlir::LogicalResult convEpilogue(Exporter &e, mlir::Operation *op,
                                 std::string y, mlir::Value residual,
                                 llvm::StringRef act);

} // namespace shardc::onnxexport

#endif // SHARDC_LIB_TARGET_ONNX_EXPORTER_H
