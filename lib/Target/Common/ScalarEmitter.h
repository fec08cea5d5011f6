//===- ScalarEmitter.h - C expressions for kernel bodies --------*- C++ -*-===//
//
// Prints the `arith` / `math` scalar body of a kern.map or kern.reduce as C
// statements. The CPU target prints it into OpenMP loops; the CUDA target
// prints the same statements into a thread's body.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_LIB_TARGET_COMMON_SCALAREMITTER_H
#define SHARDC_LIB_TARGET_COMMON_SCALAREMITTER_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace shardc::target {

/// The C type of a body value (fp16 and bf16 compute in float).
std::string scalarCType(mlir::Type t);
/// The C type of a buffer element.
std::string storageCType(mlir::Type elem);
/// The ONNX dtype code of a buffer element, or -1.
int onnxDType(mlir::Type elem);
/// A body value read from storage expression `ref` of element type `elem`.
std::string loadExpr(mlir::Type elem, const std::string &ref);
/// The storage form of body value `value` for element type `elem`.
std::string storeExpr(mlir::Type elem, const std::string &value);
/// A C literal of `value` in the C type of `t`.
std::string floatLiteral(double value, mlir::Type t);

/// The accumulator of a kern.reduce of `kind` (sum, mean, max, min) over
/// elements of type `elem`: its C type and initial value.
struct ReduceForm {
  std::string accType, init;
};
ReduceForm reduceForm(llvm::StringRef kind, mlir::Type elem);
/// The accumulator after taking in `v` (NaN wins max and min, as in ONNX).
std::string reduceCombine(llvm::StringRef kind, mlir::Type elem,
                          const std::string &acc, const std::string &v);

/// Prints every op of `body` except the terminator as `T vN = expr;`
/// statements. `names` must hold the block arguments; it receives every
/// result. `indexName(d)` names the loop index of iteration dim d.
mlir::LogicalResult
emitScalarOps(mlir::Block &body, llvm::DenseMap<mlir::Value, std::string> &names,
              llvm::raw_ostream &os, llvm::StringRef indent,
              const std::function<std::string(int64_t)> &indexName,
              unsigned &counter);

} // namespace shardc::target

#endif // SHARDC_LIB_TARGET_COMMON_SCALAREMITTER_H
