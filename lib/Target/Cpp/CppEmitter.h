//===- CppEmitter.h - the program writer ------------------------*- C++ -*-===//
//
// Writes one C++ translation unit per model: the CPU kernels and entry
// points (EmitCpp.cpp), the host side of the CUDA entry points
// (EmitCudaHost.cpp), the embedded plan and the program table.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_TARGET_CPP_CPPEMITTER_H
#define SHARDC_LIB_TARGET_CPP_CPPEMITTER_H

#include "shardc/Target/Cpp.h"

#include "dialects/Kern/IR/KernOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <string>
#include <vector>

namespace shardc::target {

/// Kernels at least this large (iterations) run their outer loop in parallel.
static constexpr int64_t kParallelThreshold = 1 << 15;

class CppEmitter {
public:
  CppEmitter(mlir::func::FuncOp func, CppArtifacts &artifacts,
             const ProgramOptions &options)
      : func(func), artifacts(artifacts), options(options) {}

  mlir::LogicalResult emit(mlir::raw_ostream &os);

private:
  mlir::LogicalResult emitKernel(mlir::Operation *op, mlir::ValueRange inputs,
                           mlir::ValueRange outputs, mlir::ArrayRef<int64_t> shape,
                           mlir::ArrayAttr layouts, mlir::ArrayRef<int64_t> reduceDims,
                           mlir::StringRef kind, mlir::Block &body);
  mlir::LogicalResult emitCall(kern::CallOp op);
  mlir::LogicalResult emitMatmul(kern::MatmulOp op);
  mlir::LogicalResult emitConv(kern::ConvOp op);
  mlir::LogicalResult emitLibraryCall(mlir::Operation *op,
                                      mlir::StringRef prefix,
                                      mlir::ArrayRef<mlir::Value> operands,
                                      const std::string &extra, bool cuda);
  static std::string epilogueCode(llvm::StringRef epilogue);
  std::string matmulExtra(kern::MatmulOp op);
  std::string convExtra(kern::ConvOp op);
  /// The CUDA form of `op`: a launch of a generated kernel, or a cuBLASLt /
  /// cuDNN call.
  mlir::LogicalResult emitCudaOp(mlir::Operation *op);
  void writeCudaProgram(mlir::raw_ostream &out);

  std::string ptr(mlir::Value buffer);
  mlir::FailureOr<std::string> desc(mlir::Operation *op, mlir::Value buffer);
  std::string i64Array(mlir::ArrayRef<int64_t> values);

  mlir::func::FuncOp func;
  CppArtifacts &artifacts;
  const ProgramOptions &options;
  std::string decls, init, run;
  std::string cudaInit, cudaRun;
  std::vector<std::string> cudaKernels;
  unsigned numCudaHandles = 0;
  std::map<std::string, std::string> descNames;
  unsigned numArrays = 0, numHandles = 0;
};

} // namespace shardc::target

#endif // SHARDC_LIB_TARGET_CPP_CPPEMITTER_H
