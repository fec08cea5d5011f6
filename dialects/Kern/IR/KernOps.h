//===- KernOps.h - kern dialect --------------------------------*- C++ -*-===//
#ifndef SHARDC_DIALECTS_KERN_IR_KERNOPS_H
#define SHARDC_DIALECTS_KERN_IR_KERNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Kern/IR/RuntimeCall.h"
#include "dialects/Kern/IR/SymbolicShapes.h"

#include "dialects/Kern/IR/KernDialect.h.inc"
#include "dialects/Kern/IR/KernInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/Kern/IR/KernOps.h.inc"

namespace shardc::kern {

/// The scalar type a kernel body uses for elements of `t`: signless for
/// integers (arith's rule), unchanged otherwise.
mlir::Type bodyType(mlir::Type elementType);

/// Bytes one element of `t` takes in a buffer (i1 takes a byte).
int64_t elementBytes(mlir::Type t);
/// Bytes of a buffer.
inline int64_t bufferBytes(mlir::MemRefType t) {
  return t.getNumElements() * elementBytes(t.getElementType());
}

/// The ranks a program serves: a `func.func` attribute (DenseI64ArrayAttr).
/// A module whose functions carry it holds one program per distinct code;
/// together they serve ranks 0..N-1, each once.
inline constexpr llvm::StringLiteral kRanksAttr = "kern.ranks";

/// The attributes of an op of a merged program (kern-merge-ranks) that
/// differ between its ranks: a DictionaryAttr from the attribute's name to
/// an ArrayAttr of one value per slot of the function's `kern.ranks`. The op
/// itself holds slot 0's values.
inline constexpr llvm::StringLiteral kPerRankAttr = "kern.per_rank";

/// While alive, `root` and the ops nested in it hold the attributes of one
/// slot of their `kern.per_rank` (code generation writes a rank's statement
/// or weights section from them); the destructor puts slot 0's back.
class RankSlot {
public:
  RankSlot(mlir::Operation *root, unsigned slot);
  ~RankSlot();
  RankSlot(const RankSlot &) = delete;
  RankSlot &operator=(const RankSlot &) = delete;

  /// Whether `root` or an op nested in it has per-rank attributes.
  static bool varies(mlir::Operation *root);

private:
  llvm::SmallVector<std::pair<mlir::Operation *, mlir::DictionaryAttr>> saved;
};

/// Alignment in bytes of arena buffers and of weights within a section. The
/// runtime's file format (runtime/include/shardc/format.h, kAlign) must
/// agree; the C++ emitter checks it at compile time.
constexpr int64_t kBufferAlignment = 64;
inline int64_t alignUp(int64_t v, int64_t a = kBufferAlignment) {
  return (v + a - 1) / a * a;
}

/// A program that serves several ranks (`kern.ranks`) places the weights
/// all its ranks read alike first, in this many bytes (a multiple of
/// kSharedWeightsAlignment; a `func.func` integer attribute): the weights
/// file stores them once for all the program's ranks (format.h's shared
/// head, whose alignment, kShareAlign, must agree).
inline constexpr llvm::StringLiteral kWeightsSharedBytesAttr =
    "kern.weights_shared_bytes";
constexpr int64_t kSharedWeightsAlignment = int64_t(64) << 10;

/// Row-major strides (in elements) of a static shape.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Channels-last dims and back: [N, C, spatial...] <-> [N, spatial..., C]
/// (kern.conv's x_channels_last / y_channels_last, kern-channels-last).
llvm::SmallVector<int64_t> channelsLastDims(llvm::ArrayRef<int64_t> logical);
llvm::SmallVector<int64_t> channelsFirstDims(llvm::ArrayRef<int64_t> physical);

/// An axis in [-rank, rank) (or [-rank, rank] with `inclusive`) made
/// non-negative; none when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                     bool inclusive = false);

/// The product of some dims.
int64_t product(llvm::ArrayRef<int64_t> dims);

/// numpy matmul shapes of a x b into y (kern.matmul_ref, matmul_integer,
/// qlinear_matmul; runtime/src/cpu/MatMulRef.cpp: mmShape): batch of
/// M x K times K x N, the broadcast batch dims and each operand's matrix
/// stride per batch dim (0 where it broadcasts).
struct MatmulShape {
  int64_t M = 1, K = 1, N = 1, batch = 1, aBatches = 1, bBatches = 1;
  llvm::SmallVector<int64_t> batchDims, aStrides, bStrides;
};
/// The shapes of a x b into y, or why they do not multiply.
llvm::FailureOr<MatmulShape> matmulShape(llvm::ArrayRef<int64_t> a,
                                         llvm::ArrayRef<int64_t> b,
                                         llvm::ArrayRef<int64_t> y,
                                         std::string &why);

/// How a zero point or scale of `numElements` elements indexes a matmul
/// operand (prelude matmul.cuh: sc_per_index): 1 one value, 2 one per row
/// (column), 3 one per row (column) of every one of `matrices`; none
/// otherwise.
std::optional<int> perIndexMode(int64_t numElements, int64_t per,
                                int64_t matrices);

/// A call on a mesh axis' communicator (KernCollectiveOps.td and the
/// expert-parallel exchanges of KernMoeOps.td): every rank of the group
/// must make it, in the same order.
inline bool isCollective(mlir::Operation *op) {
  return llvm::isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp,
                   SendOp, RecvOp, MoeDispatchOp, MoeReturnOp>(op);
}

} // namespace shardc::kern

#endif // SHARDC_DIALECTS_KERN_IR_KERNOPS_H
