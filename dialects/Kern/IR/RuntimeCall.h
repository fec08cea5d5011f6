//===- RuntimeCall.h - C arguments of a runtime kernel call ----*- C++ -*-===//
//
// What RuntimeCallOpInterface::getRuntimeArgs lists: one entry per C
// argument of a runtime kernel (runtime/include/shardc/cpu.h), in the terms
// the generated code passes them (sc_desc descriptors, data pointers,
// literals, static arrays). The emitters print each entry; the ops decide
// the order.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_DIALECTS_KERN_IR_RUNTIMECALL_H
#define SHARDC_DIALECTS_KERN_IR_RUNTIMECALL_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace shardc::kern {

struct RuntimeArg {
  enum class Kind {
    Desc,     ///< `const sc_desc *` of a buffer (0 when absent)
    Ptr,      ///< the data pointer of a buffer (0 when absent)
    DType,    ///< `int32_t`: the ONNX dtype code of a buffer's elements
    DescList, ///< `const sc_desc *const[]` of buffers
    PtrList,  ///< `const void *const[]` of buffers
    I32,      ///< an `int32_t` literal
    I64,      ///< an `int64_t` literal
    F32,      ///< a `float` literal
    I64Array, ///< a static `const int64_t[]`
    F32Array, ///< a static `const float[]`
    String,   ///< a C string literal
  };
  Kind kind;
  /// One buffer (Desc, Ptr, DType; null when absent) or several (lists).
  llvm::SmallVector<mlir::Value, 1> buffers;
  int64_t integer = 0;
  float real = 0;
  llvm::SmallVector<int64_t> integers;
  llvm::SmallVector<float> reals;
  std::string text;

  static RuntimeArg desc(mlir::Value v) { return {Kind::Desc, {v}}; }
  static RuntimeArg ptr(mlir::Value v) { return {Kind::Ptr, {v}}; }
  /// A null pointer.
  static RuntimeArg null() { return ptr(mlir::Value()); }
  static RuntimeArg dtype(mlir::Value v) { return {Kind::DType, {v}}; }
  static RuntimeArg descs(mlir::ValueRange vs) {
    return {Kind::DescList, {vs.begin(), vs.end()}};
  }
  static RuntimeArg ptrs(mlir::ValueRange vs) {
    return {Kind::PtrList, {vs.begin(), vs.end()}};
  }
  static RuntimeArg i32(int64_t v) {
    RuntimeArg a{Kind::I32};
    a.integer = v;
    return a;
  }
  static RuntimeArg i64(int64_t v) {
    RuntimeArg a{Kind::I64};
    a.integer = v;
    return a;
  }
  static RuntimeArg f32(float v) {
    RuntimeArg a{Kind::F32};
    a.real = v;
    return a;
  }
  /// `attr` names the op's attribute the values come from, when it may
  /// have a symbolic mirror (kern.sym, SymbolicShapes.h): the emitters then
  /// print the mirror's values, read at run time.
  static RuntimeArg i64s(llvm::ArrayRef<int64_t> v, llvm::StringRef attr = {}) {
    RuntimeArg a{Kind::I64Array};
    a.integers.assign(v.begin(), v.end());
    a.text = attr.str();
    return a;
  }
  static RuntimeArg f32s(llvm::ArrayRef<float> v) {
    RuntimeArg a{Kind::F32Array};
    a.reals.assign(v.begin(), v.end());
    return a;
  }
  static RuntimeArg string(llvm::StringRef s) {
    RuntimeArg a{Kind::String};
    a.text = s.str();
    return a;
  }
};

} // namespace shardc::kern

#endif // SHARDC_DIALECTS_KERN_IR_RUNTIMECALL_H
