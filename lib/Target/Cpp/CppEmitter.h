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
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shardc::target {

/// Kernels at least this large (iterations) run their outer loop in parallel.
static constexpr int64_t kParallelThreshold = 1 << 15;

/// A program whose statements cost more than this (one per kernel or call,
/// plus one per scalar op of a kernel body) is split: the host compiler's
/// time and memory grow faster than linearly in the size of one function
/// and one translation unit. Each part of about kPartCost becomes its own
/// init and run functions in its own translation unit, after a marker
/// line; the entry points, the CUDA tables and the plan come in the
/// last unit (the marker is kCppUnitMarker, shardc/Target/Cpp.h).
/// Everything before the first marker (the includes) starts
/// every unit; the file as a whole is one valid translation unit too. A
/// split program's kernels take their operands' base offsets in the
/// pointers, identical kernels share one function, and kernels are not
/// inlined into the run functions (a call compiles much faster than a
/// loop). Programs below the bound are written as one unit, unchanged.
static constexpr unsigned kSplitCost = 2048;
static constexpr unsigned kPartCost = 1024;
static constexpr const char *kUnitMarker = kCppUnitMarker;

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

  /// The name of the split program's function with this text (after the
  /// name), defined or declared in the current part.
  std::string splitKernel(const std::string &comment, const std::string &src);
  static unsigned statementCost(mlir::Operation *op);
  /// Ends the current part of a split program.
  void flushPart();

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
  unsigned numArrays = 0, numHandles = 0, numDescs = 0;
  std::optional<unsigned> numInputs; ///< the function's, counted once
  // A split program: its finished parts, the kernels' functions by text,
  // those the current part has declared.
  bool split = false;
  unsigned numParts = 0;
  std::string parts;
  std::map<std::string, std::string> splitKernels;
  std::set<std::string> declaredKernels;
  std::map<std::string, unsigned> cudaKernelsByText; ///< shared CUDA kernels
};

} // namespace shardc::target

#endif // SHARDC_LIB_TARGET_CPP_CPPEMITTER_H
