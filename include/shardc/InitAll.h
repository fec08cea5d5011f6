//===- InitAll.h - every dialect and pass shardc uses -----------*- C++ -*-===//
//
// One place that names the dialects and passes of the compiler, for the
// driver, shardc-opt and shardc-translate (mlir/InitAllDialects.h, narrowed
// to what shardc uses: a unit that registers every upstream dialect takes a
// minute to compile).
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_INITALL_H
#define SHARDC_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace shardc {

/// graph, dist, kern, and the upstream dialects the pipeline produces: func,
/// arith, math.
void registerAllDialects(mlir::DialectRegistry &registry);

/// shardc's passes by area, the conversion, the named pipelines, and the
/// upstream generic transforms (canonicalize, cse, ...).
void registerAllPasses();

} // namespace shardc

#endif // SHARDC_INITALL_H
