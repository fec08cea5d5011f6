//===- CallWriter.h - the CUDA kernel of a runtime kernel op ---*- C++ -*-===//
//
// Private to lib/Target/Cuda/Calls: what every family's writer shares. A
// runtime kernel op (RuntimeCallOpInterface) becomes one generated
// __global__ kernel whose parameters are the op's buffers (the ones it reads
// as in0.., then the ones it writes as out0..) and whose body calls a device
// template of the prelude (lib/Target/Cuda/prelude/<family>.cuh)
// specialised to the op: shapes, axes, strides and attributes are baked in
// as constants and template arguments. What the runtime would check at run
// time on static facts the verifiers have checked; what only the CUDA
// kernels cannot take is refused here, as a compile error.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_TARGET_CUDA_CALLS_CALLWRITER_H
#define SHARDC_LIB_TARGET_CUDA_CALLS_CALLWRITER_H

#include "lib/Target/Cuda/Calls.h"

#include "lib/Target/Common/ScalarEmitter.h"

#include "llvm/ADT/DenseMap.h"

#include <string>

namespace shardc::cuda::calls {

using kern::product;

/// An integer literal (long long when it needs 64 bits).
std::string lit(int64_t v);
/// `{a, b, c}` of integer literals ({0} when empty).
std::string braced(llvm::ArrayRef<int64_t> values);
/// `[a, b, c]`, for comments.
std::string dimsText(llvm::ArrayRef<int64_t> dims);
/// The index type of a kernel whose offsets stay below `reach`: 32-bit with
/// headroom for the grid stride.
std::string indexType(int64_t reach);
bool isFloat(mlir::Type t);
/// The element kind of the prelude's templates (sc_elem<E>).
std::string elemKind(mlir::Type t);
int64_t elemBytes(mlir::Type t);
/// The word type that moves elements of `bytes` bytes.
std::string wordType(int64_t bytes);
/// The widest of 16, 8, 4, 2, 1 bytes that divides `bytes`.
int64_t widestWord(int64_t bytes);

inline llvm::ArrayRef<int64_t> shape(mlir::Value v) {
  return llvm::cast<mlir::MemRefType>(v.getType()).getShape();
}
inline mlir::Type elem(mlir::Value v) {
  return llvm::cast<mlir::MemRefType>(v.getType()).getElementType();
}

class CallWriter {
public:
  /// One parameter per buffer operand of `op`: those it reads (in0, ...)
  /// before those it writes (out0, ...), each in operand order.
  CallWriter(kern::RuntimeCallOpInterface op, llvm::StringRef name);
  /// One parameter per buffer of `inputs`, then of `outputs`.
  CallWriter(kern::RuntimeCallOpInterface op, llvm::StringRef name,
             llvm::ArrayRef<mlir::Value> inputs,
             llvm::ArrayRef<mlir::Value> outputs);

  /// The parameter of an operand, or of an optional one (nullptr when
  /// absent).
  std::string param(mlir::OpOperand &operand) const;
  std::string param(mlir::MutableOperandRange optional) const;
  /// The first input parameter holding `v` (the second constructor's).
  std::string inputParam(mlir::Value v) const;

  /// The compile error for an op the CUDA target cannot take.
  mlir::LogicalResult unsupported(const llvm::Twine &why);

  /// 1-D grid-stride launch over `total` items.
  void launchOver(int64_t total, int64_t block = kBlock);
  /// The kernel: `// comment`, the signature (every parameter in order),
  /// `body`; launched as `grid` blocks of `block` threads.
  void finish(int64_t block, int64_t grid, const std::string &comment);

  std::string name;  ///< the kernel's
  std::string decls; ///< file-scope tables before the kernel
  std::string body;  ///< the kernel's statements
  int64_t blockSize = kBlock, gridSize = 1;
  Kernel kernel;

private:
  kern::RuntimeCallOpInterface op;
  llvm::SmallVector<mlir::Value> inputs, outputs;
  /// Parameter names by operand number (first constructor).
  llvm::DenseMap<unsigned, std::string> names;
};

/// The writers, one per op (Gather.cpp, Scatter.cpp, Norms.cpp, Pool.cpp,
/// Selection.cpp, Pad.cpp, Resize.cpp, Matmul.cpp, Attention.cpp, Moe.cpp).
mlir::FailureOr<Kernel> gather(kern::GatherOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> gatherElements(kern::GatherElementsOp op,
                                       llvm::StringRef name);
mlir::FailureOr<Kernel> scatterElements(kern::ScatterElementsOp op,
                                        llvm::StringRef name);
mlir::FailureOr<Kernel> scatterND(kern::ScatterNDOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> softmax(kern::SoftmaxOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> layerNorm(kern::LayerNormOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> pool(kern::PoolOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> argMax(kern::ArgMaxOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> topk(kern::TopKOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> cumsum(kern::CumSumOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> trilu(kern::TriluOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> pad(kern::PadOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> resize(kern::ResizeOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> matmulRef(kern::MatmulRefOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> matmulInteger(kern::MatmulIntegerOp op,
                                      llvm::StringRef name);
mlir::FailureOr<Kernel> qlinearMatmul(kern::QLinearMatmulOp op,
                                      llvm::StringRef name);
mlir::FailureOr<Kernel> attention(kern::AttentionOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> moePlace(kern::MoePlaceOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> moeRoute(kern::MoeRouteOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> moePermute(kern::MoePermuteOp op, llvm::StringRef name);
mlir::FailureOr<Kernel> groupedMatmul(kern::GroupedMatmulOp op,
                                      llvm::StringRef name);
mlir::FailureOr<Kernel> groupedBias(kern::GroupedBiasOp op,
                                    llvm::StringRef name);
mlir::FailureOr<Kernel> moeCombine(kern::MoeCombineOp op, llvm::StringRef name);

} // namespace shardc::cuda::calls

#endif // SHARDC_LIB_TARGET_CUDA_CALLS_CALLWRITER_H
