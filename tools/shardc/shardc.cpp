//===- shardc.cpp - the shardc compiler driver ------------------------------===//
//
//   shardc model.onnx -o model [--target=cpu] [--input-shape NAME=1x128]
//   shardc model.onnx --emit=graph|kern|cpp [-o out]
//
// Imports the model, runs the pipeline (graph canonicalization, lowering to
// kern, memory and weights planning, C++ generation) and writes the
// requested stage; `exe` (the default) compiles and links the executable and
// writes its `.weights` file next to it.
//
//===----------------------------------------------------------------------===//

#include "Toolchain.h"
#include "Version.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Kern/IR/KernOps.h"
#include "passes/Passes.h"
#include "shardc/Conversion/Passes.h"
#include "shardc/Import/ONNX.h"
#include "shardc/Target/Cpp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Timer.h"
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

enum class Emit { Graph, Kern, Cpp, Exe };
static cl::opt<Emit> emit(
    "emit", cl::desc("Stage to write"), cl::init(Emit::Exe),
    cl::values(
        clEnumValN(Emit::Graph, "graph",
                   "the imported graph dialect (after canonicalization)"),
        clEnumValN(Emit::Kern, "kern",
                   "the bufferized kern program with its memory plan"),
        clEnumValN(Emit::Cpp, "cpp", "the generated C++ of the CPU target"),
        clEnumValN(Emit::Exe, "exe",
                   "the executable and its .weights file (default)")),
    cl::cat(shardcCat));

static cl::opt<std::string> target("target",
                                   cl::desc("Code generation target: cpu"),
                                   cl::init("cpu"), cl::cat(shardcCat));
static cl::opt<std::string> cpu("cpu",
                                cl::desc("-march for the generated CPU code "
                                         "(default native; x86-64-v3 to deploy "
                                         "on other AVX2 machines)"),
                                cl::init("native"), cl::cat(shardcCat));
static cl::opt<std::string>
    saveTemps("save-temps",
              cl::desc("Keep the generated C++ and object file in DIR"),
              cl::value_desc("DIR"), cl::cat(shardcCat));
static cl::opt<bool> verbose("v", cl::desc("Print each stage with its time "
                                           "and the host compiler commands"),
                             cl::init(false), cl::cat(shardcCat));

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

  if (target != "cpu")
    return fatal("--target=" + target + ": only 'cpu' is available in this build");
  if (emit == Emit::Exe && outputFile == "-")
    return fatal("an executable needs -o FILE");

  mlir::DialectRegistry registry;
  registry.insert<shardc::graph::GraphDialect, shardc::kern::KernDialect,
                  mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect>();
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  bool progress = verbose || sys::Process::StandardErrHasColors();
  TimeRecord start = TimeRecord::getCurrentTime();
  auto stage = [&](StringRef name) {
    if (!progress)
      return;
    TimeRecord now = TimeRecord::getCurrentTime();
    errs() << format("shardc: %-28s %8.1f ms\n", name.str().c_str(),
                     (now.getWallTime() - start.getWallTime()) * 1000);
  };

  std::string error;
  auto module = shardc::importONNXModel(context, inputFile, options, error);
  if (!module)
    return fatal(error);
  stage("imported");

  // Pass diagnostics: one line, "FILE: node 'NAME': message".
  std::string diagnostic;
  mlir::ScopedDiagnosticHandler diagHandler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
      return mlir::success();
    std::string where = inputFile;
    if (auto name = dyn_cast<mlir::NameLoc>(d.getLocation()))
      where += ": node '" + name.getName().str() + "'";
    if (diagnostic.empty())
      diagnostic = where + ": " + d.str();
    return mlir::success();
  });
  auto runPipeline = [&](auto populate, StringRef what) {
    mlir::PassManager pm(&context);
    if (failed(mlir::applyPassManagerCLOptions(pm)))
      return false;
    populate(pm);
    if (succeeded(pm.run(*module)))
      return true;
    fatal(diagnostic.empty() ? inputFile + ": " + what.str() + " failed"
                             : diagnostic);
    return false;
  };

  if (!runPipeline(
          [](mlir::PassManager &pm) {
            if (!noCanonicalize) {
              pm.addPass(mlir::createCanonicalizerPass());
              pm.addPass(mlir::createCSEPass());
            }
          },
          "graph pipeline"))
    return 1;
  stage("graph optimized");

  mlir::OpPrintingFlags flags;
  if (!printWeights)
    flags.elideLargeResourceString(64);
  auto writeText = [&](auto print) {
    std::string errorMessage;
    auto output = mlir::openOutputFile(outputFile, &errorMessage);
    if (!output)
      return fatal(errorMessage);
    print(output->os());
    output->keep();
    return 0;
  };
  if (emit == Emit::Graph)
    return writeText([&](raw_ostream &os) { module->print(os, flags); });

  if (!runPipeline(
          [](mlir::PassManager &pm) {
            pm.addPass(shardc::createConvertGraphToKern());
            pm.addNestedPass<mlir::func::FuncOp>(shardc::createKernPlanWeights());
            pm.addNestedPass<mlir::func::FuncOp>(shardc::createKernPlanMemory());
          },
          "kern lowering"))
    return 1;
  stage("lowered to kern, planned");
  if (emit == Emit::Kern)
    return writeText([&](raw_ostream &os) { module->print(os, flags); });

  std::string source;
  llvm::raw_string_ostream sourceStream(source);
  shardc::CppArtifacts artifacts;
  if (failed(shardc::emitCpp(*module, sourceStream, artifacts)))
    return fatal(diagnostic.empty() ? inputFile + ": C++ generation failed"
                                    : diagnostic);
  sourceStream.flush();
  stage("C++ generated");
  if (emit == Emit::Cpp)
    return writeText([&](raw_ostream &os) { os << source; });

  // The executable: source and object in a temporary (or --save-temps) dir.
  SmallString<128> outDir(outputFile.getValue());
  sys::path::remove_filename(outDir);
  if (!outDir.empty() && !sys::fs::is_directory(outDir))
    return fatal("cannot write '" + outputFile + "': directory '" +
                 outDir.str().str() + "' does not exist");
  SmallString<128> dir;
  if (!saveTemps.empty()) {
    dir = saveTemps;
    if (std::error_code ec = sys::fs::create_directories(dir))
      return fatal("cannot create '" + saveTemps + "': " + ec.message());
  } else if (std::error_code ec =
                 sys::fs::createUniqueDirectory("shardc", dir)) {
    return fatal("cannot create a temporary directory: " + ec.message());
  }
  std::string stem = sys::path::stem(outputFile).str();
  std::string cppPath = (dir + "/" + stem + ".cpp").str();
  std::string objPath = (dir + "/" + stem + ".o").str();
  {
    std::error_code ec;
    raw_fd_ostream os(cppPath, ec);
    if (ec)
      return fatal("cannot write '" + cppPath + "': " + ec.message());
    os << source;
  }
  shardc::ToolchainOptions tc;
  tc.cpu = cpu;
  tc.verbose = verbose;
  bool built = shardc::buildCpuExecutable(cppPath, objPath, outputFile, tc, error);
  if (saveTemps.empty()) {
    sys::fs::remove(cppPath);
    sys::fs::remove(objPath);
    sys::fs::remove(dir);
  }
  if (!built)
    return fatal(error);
  stage("compiled and linked");
  std::string weightsPath = outputFile + ".weights";
  if (!shardc::writeWeightsFile(weightsPath, artifacts.modelHash,
                                {&artifacts.weights}, error))
    return fatal(error);
  if (progress)
    errs() << "shardc: wrote " << outputFile << " (" << artifacts.numKernels
           << " generated kernels, " << artifacts.numLibraryCalls
           << " library calls, arena " << artifacts.arenaBytes << " B) and "
           << weightsPath << " (" << artifacts.weights.size() << " B)\n";
  return 0;
}
