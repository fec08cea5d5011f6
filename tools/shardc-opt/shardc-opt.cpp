//===- shardc-opt.cpp - run shardc passes on .mlir files --------------------===//
//
// MlirOptMain with what shardc::registerAllDialects / registerAllPasses name
// (lib/Pipelines/InitAll.cpp): the shardc dialects, passes and named
// pipelines, and the upstream dialects and generic transforms the pipeline
// uses.
//
//===----------------------------------------------------------------------===//

#include "shardc/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  shardc::registerAllPasses();
  mlir::DialectRegistry registry;
  shardc::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "shardc optimizer driver\n", registry));
}
