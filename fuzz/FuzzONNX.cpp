//===- FuzzONNX.cpp - libFuzzer target: the ONNX importer ----------------===//
//
// bytes -> onnx.ModelProto -> shardc::importONNXModel -> mlir::verify.
//
// The importer reads a path, so each input is written to model.onnx in a
// private folder that also holds data.bin (256 bytes) for tensors whose
// external data names it. Graph inputs with dynamic dims are bound to 2 (as
// --input-shape would), so that the fuzzer gets past the signature; for
// inputs of odd size they stay symbolic instead, bounded by 3 (as
// --max-shape would), which fuzzes the symbolic shape folding too.
//
// Checked beyond "no crash": a failed import gives a one-line error; a
// module the importer returns passes mlir::verify.
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "shardc/Import/ONNX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "onnx/onnx_pb.h"

#include <vector>

using namespace shardc;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  std::vector<uint8_t> data(256);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 37 + 11);
  fuzz::writeBytes(fuzz::privateDir() + "/data.bin", data.data(), data.size());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = fuzz::privateDir() + "/model.onnx";
  fuzz::writeBytes(path, data, size);

  ONNXImportOptions options;
  const bool symbolic = size % 2 == 1;
  onnx::ModelProto model;
  if (size <= static_cast<size_t>(INT32_MAX) &&
      model.ParseFromArray(data, static_cast<int>(size))) {
    for (const auto &in : model.graph().input()) {
      if (!in.type().has_tensor_type() ||
          !in.type().tensor_type().has_shape())
        continue;
      const auto &shape = in.type().tensor_type().shape();
      std::vector<int64_t> dims;
      bool dynamic = false;
      for (const auto &d : shape.dim()) {
        dynamic |= !d.has_dim_value();
        dims.push_back(d.has_dim_value() ? d.dim_value() : symbolic ? 3 : 2);
      }
      if (dynamic && dims.size() <= 8)
        (symbolic ? options.maxShapes : options.inputShapes)[in.name()] = dims;
    }
  }

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  std::string lastDiagnostic;
  mlir::ScopedDiagnosticHandler quiet(&context, [&](mlir::Diagnostic &d) {
    lastDiagnostic = d.str();
    return mlir::success();
  });
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importONNXModel(context, path, options, error);
  if (!module) {
    FUZZ_CHECK(fuzz::oneLine(error), "import failed with error '%s'",
               error.c_str());
    return 0;
  }
  FUZZ_CHECK(mlir::succeeded(mlir::verify(*module)),
             "the imported module fails verification: %s",
             lastDiagnostic.c_str());
  return 0;
}
