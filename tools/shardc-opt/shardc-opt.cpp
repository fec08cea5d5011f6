//===- shardc-opt.cpp - run shardc passes on .mlir files --------------------===//
//
// MlirOptMain with the shardc dialects and passes, plus the upstream dialects
// and passes that shardc's pipeline uses (func, arith, math, the generic
// transforms).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Kern/IR/KernOps.h"
#include "passes/Passes.h"
#include "shardc/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  shardc::registerConversionPasses();
  shardc::registerShardcPasses();
  mlir::DialectRegistry registry;
  registry.insert<shardc::graph::GraphDialect, shardc::kern::KernDialect,
                  mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "shardc optimizer driver\n", registry));
}
