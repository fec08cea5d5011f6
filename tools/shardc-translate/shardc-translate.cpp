//===- shardc-translate.cpp - kern to C++ or CUDA
//---------------------------===//
//
// MlirTranslateMain with shardc's code generators, so that emitter tests
// start from hand-written kern IR:
//
//   shardc-translate --kern-to-cpp  planned.mlir [--target=cpu|cuda|cuda,cpu]
//                    [--tf32] [--weights-file=model.weights]
//   shardc-translate --kern-to-cuda planned.mlir
//   shardc-translate --graph-to-onnx graph.mlir -o model.onnx
//
// The input is a planned kern module (what `shardc --emit=kern` prints, or
// the output of `shardc-opt --shardc-kern-pipeline`): `--kern-to-cpp`
// writes what `shardc --emit=cpp` writes (the programs, the rank table and
// the plan), and with --weights-file also the weights file with every
// rank's section; `--kern-to-cuda` writes the CUDA C++ of `--emit=cuda`.
// `--graph-to-onnx` writes a graph-dialect module (`shardc --emit=graph`)
// as the ONNX model of `--emit=onnx`.
//
//===----------------------------------------------------------------------===//

#include "shardc/InitAll.h"
#include "shardc/Pipelines/Pipelines.h"
#include "shardc/Target/Cpp.h"
#include "shardc/Target/ONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

static llvm::cl::opt<std::string>
    target("target",
           llvm::cl::desc("Code the program holds: cpu, cuda or cuda,cpu "
                          "(--kern-to-cpp)"),
           llvm::cl::init("cpu"));
static llvm::cl::opt<bool>
    tf32("tf32", llvm::cl::desc("fp32 GEMMs and convolutions may use TF32 "
                                "on CUDA (--precision=tf32)"),
         llvm::cl::init(false));
static llvm::cl::opt<std::string> weightsFile(
    "weights-file",
    llvm::cl::desc("Also write the weights file (every rank's section)"),
    llvm::cl::value_desc("path"), llvm::cl::init(""));

static LogicalResult translate(ModuleOp module, raw_ostream &os, bool cuda) {
  shardc::ProgramOptions options;
  shardc::TargetSet targets;
  std::string error;
  if (!shardc::parseTargets(cuda ? "cuda" : target.getValue(), targets,
                            error))
    return module.emitError("--target=") << target << ": " << error;
  options.cpu = targets.cpu;
  options.cuda = targets.cuda;
  options.tf32 = tf32;
  std::string source;
  llvm::raw_string_ostream sourceStream(source);
  shardc::CppArtifacts artifacts;
  if (failed(shardc::emitCpp(module, sourceStream, artifacts, options)))
    return failure();
  if (!weightsFile.empty()) {
    if (!shardc::writeWeightsFile(weightsFile, artifacts.modelHash,
                                  artifacts.sections, error))
      return module.emitError(error);
  }
  os << (cuda ? artifacts.cudaSource : source);
  return success();
}

int main(int argc, char **argv) {
  auto registerDialects = [](DialectRegistry &registry) {
    shardc::registerAllDialects(registry);
  };
  TranslateFromMLIRRegistration toCpp(
      "kern-to-cpp",
      "A planned kern module to C++ (CPU code and the CUDA host side), as "
      "shardc --emit=cpp",
      [](ModuleOp module, raw_ostream &os) {
        return translate(module, os, /*cuda=*/false);
      },
      registerDialects);
  TranslateFromMLIRRegistration toCuda(
      "kern-to-cuda",
      "A planned kern module to CUDA C++ kernels, as shardc --emit=cuda",
      [](ModuleOp module, raw_ostream &os) {
        return translate(module, os, /*cuda=*/true);
      },
      registerDialects);
  TranslateFromMLIRRegistration toOnnx(
      "graph-to-onnx",
      "A one-rank graph-dialect module to an ONNX model, as shardc "
      "--emit=onnx",
      [](ModuleOp module, raw_ostream &os) {
        return shardc::exportONNX(module, os, shardc::ONNXExportOptions());
      },
      registerDialects);
  return failed(mlirTranslateMain(argc, argv, "shardc translation driver\n"));
}
