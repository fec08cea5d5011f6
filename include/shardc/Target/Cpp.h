//===- Cpp.h - the C++ (CPU) target -----------------------------*- C++ -*-===//
//
// Turns a planned kern module (after kern-plan-memory and kern-plan-weights)
// into the rank's weights section, the plan and one C++ translation unit
// that implements `shardc_model_program` (runtime/include/shardc/cpu.h):
// the program writer of both targets.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_TARGET_CPP_H
#define SHARDC_TARGET_CPP_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace shardc {

/// What the program holds.
struct ProgramOptions {
  bool cpu = true;   ///< CPU code (kernels in C++ with OpenMP, oneDNN)
  bool cuda = false; ///< CUDA code (host side here, kernels in cudaSource)
  bool tf32 = false; ///< fp32 GEMMs and convolutions may use TF32 on CUDA
  /// The NVRTC images to embed: architecture and file path (read by the
  /// assembler when the C++ is compiled, so they may be written later).
  std::vector<std::pair<std::string, std::string>> cudaImages;
  /// Estimated FLOPs of one run of a one-rank program (shardc::estimateFlops
  /// summed; 0 when unknown: several ranks, dynamic dims). With the steps
  /// the program takes, it picks the executable's OpenMP wait (see
  /// kLongStepFlops in EmitProgram.cpp).
  double flops = 0;
};

/// One rank's weights section, described rather than copied: the bytes at
/// each offset are views of the module's weight data (dense_resource blobs,
/// which view the model file; dense attributes), valid while the module and
/// its context live. Gaps are zero.
struct WeightsSection {
  struct Piece {
    uint64_t offset = 0;
    const char *data = nullptr;
    uint64_t size = 0;
  };
  std::vector<Piece> pieces; ///< by offset, not overlapping
  uint64_t size = 0;         ///< bytes, a multiple of 64
  uint64_t checksum = 0;     ///< format::sectionChecksum of its bytes
  /// Bytes made by the writer (booleans, splats) that pieces view.
  std::vector<std::shared_ptr<const std::vector<char>>> owned;
  /// The section's first `sharedBytes` bytes (a multiple of
  /// format::kShareAlign; no piece crosses them) are the same in every
  /// section with the same non-zero `sharedKey`: the file stores them once.
  uint64_t sharedBytes = 0;
  uint64_t sharedKey = 0;
  /// Sections with the same non-zero `key` are the same bytes (the ranks of
  /// one program with the same weight data): the file stores them once.
  uint64_t key = 0;
};

/// What the C++ target produced besides the source.
struct CppArtifacts {
  /// The weights section of each rank (ranks of one program share theirs).
  std::vector<WeightsSection> sections;
  unsigned numPrograms = 0;
  uint64_t modelHash = 0;
  unsigned numKernels = 0;   ///< generated kernels
  unsigned numLibraryCalls = 0;
  uint64_t arenaBytes = 0; ///< the largest rank's
  std::string cudaSource; ///< the CUDA program (with ProgramOptions::cuda)
  unsigned numCudaKernels = 0;
  /// Keys handed out to the sections' extents (WeightsSection::key).
  uint64_t numWeightsKeys = 0;
  /// ProgramOptions::flops over the kernels and library calls (0: unknown),
  /// and the GOMP_SPINCOUNT the executable starts with (0: libgomp's own).
  double flopsPerStep = 0;
  unsigned spinCount = 0;
};

/// A line starting with this begins a translation unit of a split program
/// (lib/Target/Cpp/CppEmitter.h): the driver compiles each unit, with the
/// text before the first marker, on its own.
inline constexpr const char kCppUnitMarker[] = "// shardc: translation unit";

/// Builds the weights sections and writes the C++ source for a planned kern
/// module: every program (a func.func with `kern.ranks`, or `@main` for
/// world size 1), the rank table and the plan; CPU code, the host side of
/// CUDA code, or both. Fails with a diagnostic on the module.
mlir::LogicalResult emitCpp(mlir::ModuleOp module, llvm::raw_ostream &os,
                            CppArtifacts &artifacts,
                            const ProgramOptions &options = {});

/// Writes a weights file holding one section per rank (format.h), each
/// shared head and each distinct section once, streamed from the sections'
/// pieces with large writes on `threads` threads (0: the default, one); the
/// file's bytes do not depend on the thread count.
bool writeWeightsFile(const std::string &path, uint64_t modelHash,
                      const std::vector<WeightsSection> &sections,
                      std::string &error, unsigned threads = 0);

} // namespace shardc

#endif // SHARDC_TARGET_CPP_H
