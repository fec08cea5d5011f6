//===- Session.cpp - one compile: the context, the module, its stages -----===//
#include "Session.h"

#include "dialects/Kern/IR/KernOps.h"
#include "shardc/Import/ONNX.h"
#include "shardc/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;

namespace shardc::driver {

static mlir::DialectRegistry allDialects() {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  return registry;
}

Session::Session(const Options &options)
    : options(options), context(allDialects()),
      progress(options.verbose || sys::Process::StandardErrHasColors()),
      start(TimeRecord::getCurrentTime().getWallTime()) {
  context.printOpOnDiagnostic(false);
  // Pass diagnostics: one line, "FILE: node 'NAME': message".
  handler = std::make_unique<mlir::ScopedDiagnosticHandler>(
      &context, [this](mlir::Diagnostic &d) {
        // Remarks (what a pass decided: pruning) with -v.
        if (d.getSeverity() == mlir::DiagnosticSeverity::Remark &&
            this->options.verbose)
          llvm::errs() << "shardc: " << d.str() << "\n";
        if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
          return mlir::success();
        std::string where = this->options.inputFile;
        if (auto name = dyn_cast<mlir::NameLoc>(d.getLocation()))
          where += ": node '" + name.getName().str() + "'";
        if (diagnostic.empty())
          diagnostic = where + ": " + d.str();
        return mlir::success();
      });
}

double Session::elapsedMs(double wallTime) const {
  return (wallTime - start) * 1000;
}

void Session::stage(StringRef name) const {
  if (progress)
    errs() << format("shardc: %-28s %8.1f ms\n", name.str().c_str(),
                     elapsedMs(TimeRecord::getCurrentTime().getWallTime()));
}

bool Session::load() {
  const std::string &file = options.inputFile;
  if (!StringRef(file).ends_with(".mlir")) {
    std::string error, bounds;
    ONNXImportOptions import = options.import;
    import.boundsNote = &bounds;
    module = importONNXModel(context, file, import, error);
    if (!module && !bounds.empty() && error.find("dim") != std::string::npos)
      error += " (with default bounds " + bounds +
               " for the dims their names give; --max-shape INPUT=DIMS sets "
               "others)";
    if (!module)
      return fatal(error), false;
    if (!bounds.empty())
      errs() << "shardc: warning: " << file
             << ": dynamic dims bounded by their names: " << bounds
             << " (--max-shape INPUT=DIMS bounds them, --input-shape fixes "
                "them)\n";
    stage("imported");
    return true;
  }
  // A .mlir input is an earlier stage's output: the graph as imported (or
  // hand-written), or planned kern IR (e.g. a module of rank programs).
  std::string parseError;
  {
    mlir::ScopedDiagnosticHandler h(&context, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error &&
          parseError.empty()) {
        parseError = d.str();
        if (auto loc = dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
          parseError = std::to_string(loc.getLine()) + ":" +
                       std::to_string(loc.getColumn()) + ": " + parseError;
      }
      return mlir::success();
    });
    mlir::ParserConfig config(&context);
    module = mlir::parseSourceFile<mlir::ModuleOp>(file, config);
  }
  if (!module)
    return fatal(file + ":" +
                 (parseError.empty() ? std::string(" cannot parse")
                                     : parseError)),
           false;
  module->walk([&](mlir::Operation *op) {
    kernInput |= isa<kern::KernDialect>(op->getDialect());
  });
  if (kernInput &&
      (options.emit == Emit::Import || options.emit == Emit::Graph))
    return fatal(file + ": the input is kern IR; --emit=import and "
                        "--emit=graph need a graph input"),
           false;
  if (kernInput && options.fusionReport)
    return fatal(file + ": --fusion-report needs a graph input"), false;
  stage(kernInput ? "parsed kern" : "imported");
  return true;
}

bool Session::run(mlir::ModuleOp target,
                  function_ref<void(mlir::PassManager &)> populate,
                  StringRef what) {
  mlir::PassManager pm(&context);
  if (failed(mlir::applyPassManagerCLOptions(pm)))
    return false;
  populate(pm);
  if (succeeded(pm.run(target)))
    return true;
  fatal(diagnostic.empty() ? options.inputFile + ": " + what.str() + " failed"
                           : diagnostic);
  return false;
}

int Session::writeText(function_ref<void(raw_ostream &)> print) const {
  std::string errorMessage;
  auto output = mlir::openOutputFile(options.outputFile, &errorMessage);
  if (!output)
    return fatal(errorMessage);
  print(output->os());
  output->keep();
  return 0;
}

int Session::writeModule() {
  mlir::OpPrintingFlags flags;
  if (!options.printWeights)
    flags.elideLargeResourceString(64);
  return writeText([&](raw_ostream &os) {
    module->print(os, flags);
    os << "\n";
  });
}

} // namespace shardc::driver
