//===- shardc.cpp - the shardc compiler driver ------------------------------===//
//
//   shardc model.onnx --emit=graph [-o out.mlir] [--input-shape NAME=1x128]
//
// Imports the model, runs the graph pipeline and writes the requested stage.
//
//===----------------------------------------------------------------------===//

#include "Version.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "shardc/Import/ONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory shardcCat("shardc options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::Required, cl::cat(shardcCat));
static cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' for stdout)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(shardcCat));

enum class Emit { Graph };
static cl::opt<Emit> emit(
    "emit", cl::desc("Stage to write"), cl::init(Emit::Graph),
    cl::values(clEnumValN(Emit::Graph, "graph",
                          "the imported graph dialect (after canonicalization)")),
    cl::cat(shardcCat));

static cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Static shape of a graph input: NAME=1x128 (repeatable, "
                         "or comma separated)"),
                cl::value_desc("NAME=DIMS"), cl::CommaSeparated,
                cl::cat(shardcCat));
static cl::list<std::string>
    constInputs("const-input",
                cl::desc("Fix a graph input to the tensor in FILE (.npy or .pb); "
                         "needed where an input determines a shape"),
                cl::value_desc("NAME=FILE"), cl::cat(shardcCat));
static cl::opt<bool> printWeights(
    "print-weights",
    cl::desc("Print weight blobs in full (default: elide those over 64 bytes)"),
    cl::init(false), cl::cat(shardcCat));
static cl::opt<bool> noCanonicalize("no-canonicalize",
                                    cl::desc("Skip the graph canonicalization"),
                                    cl::init(false), cl::cat(shardcCat));

static int fatal(const std::string &msg) {
  errs() << "shardc: error: " << msg << "\n";
  return 1;
}

static bool splitBinding(const std::string &arg, std::string &name,
                         std::string &value) {
  size_t eq = arg.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return false;
  name = arg.substr(0, eq);
  value = arg.substr(eq + 1);
  return true;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "shardc " << SHARDC_VERSION << " (MLIR " << LLVM_VERSION_STRING
       << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "shardc: compile an ONNX model for one or many devices\n\n"
      "  shardc model.onnx --emit=graph -o model.mlir --input-shape ids=1x128\n");

  shardc::ONNXImportOptions options;
  for (const std::string &arg : inputShapes) {
    std::string name, spec;
    std::vector<int64_t> dims;
    if (!splitBinding(arg, name, spec) || !shardc::parseShapeSpec(spec, dims))
      return fatal("--input-shape '" + arg + "': expected NAME=DIMS, e.g. ids=1x128");
    options.inputShapes[name] = dims;
  }
  for (const std::string &arg : constInputs) {
    std::string name, file;
    if (!splitBinding(arg, name, file))
      return fatal("--const-input '" + arg + "': expected NAME=FILE");
    options.constInputs[name] = file;
  }

  mlir::DialectRegistry registry;
  registry.insert<shardc::graph::GraphDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  std::string error;
  auto module = shardc::importONNXModel(context, inputFile, options, error);
  if (!module)
    return fatal(error);

  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  mlir::PassManager pm(&context);
  if (failed(mlir::applyPassManagerCLOptions(pm)))
    return fatal("invalid pass manager options");
  if (!noCanonicalize) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  if (failed(pm.run(*module)))
    return fatal(inputFile + ": graph pipeline failed");

  std::string errorMessage;
  auto output = mlir::openOutputFile(outputFile, &errorMessage);
  if (!output)
    return fatal(errorMessage);
  mlir::OpPrintingFlags flags;
  if (!printWeights)
    flags.elideLargeResourceString(64);
  module->print(output->os(), flags);
  output->keep();
  return 0;
}
