//===- Session.h - one compile: the context, the module, its stages -*- C++ -*-===//
//
// What the driver's phases share: the MLIR context, the module being
// compiled, the first error a pass reported (as one line naming the file and
// the node), the stage timer behind -v, and the writers of textual output.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TOOLS_SHARDC_SESSION_H
#define SHARDC_TOOLS_SHARDC_SESSION_H

#include "Options.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <string>

namespace shardc::driver {

class Session {
public:
  explicit Session(const Options &options);

  const Options &options;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The input was kern IR (a .mlir of planned rank programs): it goes
  /// straight to code generation.
  bool kernInput = false;
  /// The first error a pass reported: "FILE: node 'NAME': message".
  std::string diagnostic;
  /// Progress lines (-v, or stderr is a terminal).
  bool progress = false;

  /// Imports the ONNX model, or parses a .mlir input. False after fatal().
  bool load();
  /// Prints "shardc: NAME  <ms since start>" when showing progress.
  void stage(llvm::StringRef name) const;
  double elapsedMs(double wallTime) const;
  /// Runs the passes `populate` adds on `target` (default: the module),
  /// with MLIR's pass-manager flags. False after fatal() with the pass's
  /// diagnostic, else "FILE: WHAT failed".
  bool run(mlir::ModuleOp target,
           llvm::function_ref<void(mlir::PassManager &)> populate,
           llvm::StringRef what);
  bool run(llvm::function_ref<void(mlir::PassManager &)> populate,
           llvm::StringRef what) {
    return run(*module, populate, what);
  }
  /// Writes to -o (or stdout); returns main's exit status.
  int writeText(llvm::function_ref<void(llvm::raw_ostream &)> print) const;
  /// The module as text, ending in a newline as mlir-opt's output does.
  int writeModule();

private:
  double start;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;
};

} // namespace shardc::driver

#endif // SHARDC_TOOLS_SHARDC_SESSION_H
