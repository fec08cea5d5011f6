//===- CppEmitter.h - the program writer ------------------------*- C++ -*-===//
//
// Writes one C++ translation unit per model: the CPU kernels and entry
// points (EmitCpp.cpp), the runtime kernel calls (EmitCalls.cpp), the host
// side of the CUDA entry points (EmitCudaHost.cpp), the embedded plan and
// the program table.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_TARGET_CPP_CPPEMITTER_H
#define SHARDC_LIB_TARGET_CPP_CPPEMITTER_H

#include "shardc/Target/Cpp.h"
#include "shardc/format.h"

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
/// line; the entry points, the CUDA tables and the plan come in a last
/// unit of their own, or in the unit of a program's one part (the marker
/// is kCppUnitMarker, shardc/Target/Cpp.h).
/// Everything before the first marker (the includes) starts
/// every unit; the file as a whole is one valid translation unit too. A
/// split program's kernels take their operands' base offsets in the
/// pointers, identical kernels share one function, and kernels are not
/// inlined into the run functions (a call compiles much faster than a
/// loop). Programs below the bound are written as one unit, unchanged.
static constexpr unsigned kSplitCost = 2048;
static constexpr unsigned kPartCost = 1024;
static constexpr const char *kUnitMarker = kCppUnitMarker;

/// One program of a module: its function and the ranks it serves.
struct RankProgram {
  mlir::func::FuncOp func;
  llvm::SmallVector<int64_t> ranks;
};

/// The module's programs: the functions with `kern.ranks`, which must serve
/// every rank of 0..N-1 once, or else `@main` serving rank 0. Fails with a
/// diagnostic.
mlir::FailureOr<llvm::SmallVector<RankProgram>>
collectPrograms(mlir::ModuleOp module);

class CppEmitter {
public:
  CppEmitter(CppArtifacts &artifacts, const ProgramOptions &options)
      : artifacts(artifacts), options(options) {}

  /// Writes the module's programs, the rank table and the plan
  /// (EmitProgram.cpp).
  mlir::LogicalResult emit(mlir::ModuleOp module, mlir::raw_ostream &os);

private:
  /// Emits program `index` (its parts, entry points, weights section and
  /// rank records); `forceSplit` puts its code in parts of its own.
  mlir::LogicalResult emitProgram(const RankProgram &program, unsigned index,
                                  bool forceSplit);
  /// One op of a program serving `ranks`: its CUDA and CPU forms, or, when
  /// its attributes differ per rank (kern.per_rank), each rank's forms
  /// under a switch on the rank where they differ (EmitProgram.cpp).
  mlir::LogicalResult emitStatement(mlir::Operation &op,
                                    llvm::ArrayRef<int64_t> ranks);
  /// The CPU form of one op of a program (EmitCpp.cpp).
  mlir::LogicalResult emitCpuOp(mlir::Operation &op);
  /// A kern collective as a runtime call (EmitCollectives.cpp): of the CPU
  /// code, or of the CUDA code (on the model's stream).
  mlir::LogicalResult emitCollective(mlir::Operation *op, bool cuda = false);
  mlir::LogicalResult emitKernel(mlir::Operation *op, mlir::ValueRange inputs,
                           mlir::ValueRange outputs, mlir::ArrayRef<int64_t> shape,
                           mlir::ArrayAttr layouts, mlir::ArrayRef<int64_t> reduceDims,
                           mlir::StringRef kind, mlir::Block &body);
  /// A runtime kernel call (EmitCalls.cpp).
  mlir::LogicalResult emitRuntimeCall(kern::RuntimeCallOpInterface op);
  mlir::LogicalResult emitMatmul(kern::MatmulOp op);
  mlir::LogicalResult emitMatmulInt8(kern::MatmulInt8Op op);
  mlir::LogicalResult emitConv(kern::ConvOp op);
  mlir::LogicalResult emitLibraryCall(mlir::Operation *op,
                                      mlir::StringRef prefix,
                                      mlir::ArrayRef<mlir::Value> operands,
                                      const std::string &extra, bool cuda);
  static std::string epilogueCode(llvm::StringRef epilogue);
  std::string matmulExtra(kern::MatmulOp op);
  std::string convWindow(kern::ConvOp op);
  std::string convExtra(kern::ConvOp op);
  /// The CUDA form of `op`: a launch of a generated kernel, or a cuBLASLt /
  /// cuDNN call.
  mlir::LogicalResult emitCudaOp(mlir::Operation *op);
  /// The CUDA images and kernel names of the whole module.
  void writeCudaTables(mlir::raw_ostream &out);

  /// The name of the split program's function with this text (after the
  /// name), defined or declared in the current part.
  std::string splitKernel(const std::string &comment, const std::string &src);
  static unsigned statementCost(mlir::Operation *op);
  /// Ends the current part of a split program.
  void flushPart();

  std::string ptr(mlir::Value buffer);
  /// `&dN`, the descriptor of `buffer`: a file-scope constant, or with
  /// dynamic dims (unless `atBound`) a local of the run function being
  /// written, declared before the statement that needs it.
  mlir::FailureOr<std::string> desc(mlir::Operation *op, mlir::Value buffer,
                                    bool atBound = false);
  /// A file-scope `static const TYPE aN[]` of `items` (one per text in a
  /// part).
  std::string constArray(llvm::StringRef elementType,
                         const std::string &items);
  std::string i64Array(mlir::ArrayRef<int64_t> values);

  mlir::func::FuncOp func; ///< the program being emitted
  CppArtifacts &artifacts;
  const ProgramOptions &options;
  std::string decls, init, run;
  std::string cudaInit, cudaRun;
  std::vector<std::string> cudaKernels;
  unsigned numCudaHandles = 0;
  std::map<std::string, std::string> descNames, arrayNames;
  /// The run function's local descriptors (dynamic dims) by their text.
  std::map<std::string, std::string> localDescs;
  /// Where desc() declares them: `run`, or while a statement is written
  /// once per rank (a switch on the rank, emitStatement) a string put
  /// before the switch, so that a later statement sees them too.
  std::string *localDescSink = nullptr;
  /// `const int64_t s0 = ctx->dims[0];` for each symbol of the program
  /// (kern.dims), at the start of each of its run functions.
  std::string symbols;
  unsigned numArrays = 0, numHandles = 0, numDescs = 0;
  std::optional<unsigned> numInputs; ///< the function's, counted once
  // A split program: its finished parts, the kernels' functions by text,
  // those the current part has declared.
  bool split = false;
  unsigned numParts = 0;
  std::string parts;
  std::map<std::string, std::string> splitKernels;
  /// An unsplit program's kernels by their text (after the name): an
  /// identical kernel (a layer's, the same in every layer) is called, not
  /// written again.
  std::map<std::string, std::string> kernelsByText;
  std::set<std::string> declaredKernels;
  std::map<std::string, unsigned> cudaKernelsByText; ///< shared CUDA kernels
  // The whole module: declarations of the parts' entry points, every
  // program's entry points, the rank records and their programs, and what
  // the model hash covers.
  std::string partDecls, entries, identity;
  std::vector<format::RankPlan> rankRecords;
  /// The plan's dims that are sums of the symbols (a KV cache's past +
  /// sequence), after the symbols: each one's parts.
  std::vector<std::vector<uint32_t>> sumDims;
  std::vector<unsigned> rankPrograms;
};

} // namespace shardc::target

#endif // SHARDC_LIB_TARGET_CPP_CPPEMITTER_H
