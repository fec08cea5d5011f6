//===- EmitCudaHost.cpp - the host side of a CUDA program ------------------===//
//
// For --target=cuda the program writer emits, next to (or instead of) the
// CPU entry points:
//   - cuda_progN_init(): creates the cuBLASLt / cuDNN descriptors;
//   - cuda_progN_run(): in program order, one sc_cu_launch per generated
//     kernel (its source goes to CppArtifacts::cudaSource), one library
//     call per kern.matmul / kern.conv and one sc_cu_* collective per kern
//     collective (NCCL on the model's stream, EmitCollectives.cpp), all on
//     device pointers;
//   - the NVRTC images, embedded with the assembler's .incbin, and the
//     kernel name table.
// Pointers are the same expressions as on the CPU (arena + offset, weights
// + offset, in[i], out[i]); the runtime passes device addresses.
//
//===----------------------------------------------------------------------===//

#include "lib/Target/Common/ScalarEmitter.h"
#include "lib/Target/Cpp/CppEmitter.h"
#include "shardc/Target/Cuda.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::target;

LogicalResult CppEmitter::emitCudaOp(Operation *op) {
  if (isa<kern::AllocOp, kern::WeightOp, kern::ViewOp, func::ReturnOp>(op))
    return success();
  std::string math = options.tf32 ? "SC_MATH_TF32" : "SC_MATH_FP32";
  // The CPU calls' arguments plus the math mode. cuBLASLt's epilogues are
  // ReLU and its GELU, the tanh form: the exact (erf) GELU is refused here,
  // at compile time, rather than approximated (the driver keeps it out of
  // the GEMMs of CUDA programs: graph-fuse-epilogues{erf-gelu=false}).
  if (auto mm = dyn_cast<kern::MatmulOp>(op)) {
    if (mm.getEpilogue() == "gelu")
      return mm.emitError("the CUDA target has no exact (erf) GELU epilogue: "
                          "cuBLASLt's GELU is the tanh approximation");
    return emitLibraryCall(mm, "sc_cu_matmul",
                           {mm.getA(), mm.getB(), mm.getBias(),
                            mm.getResidual(), mm.getY()},
                           matmulExtra(mm) + ", " + math, /*cuda=*/true);
  }
  // Convolution epilogues and channels-last buffers are CPU-only (the
  // driver runs graph-fuse-epilogues{conv-epilogues=false} and no
  // kern-channels-last for programs with CUDA code).
  if (auto conv = dyn_cast<kern::ConvOp>(op)) {
    if (conv.getScales())
      return conv.emitError("the CUDA target has no int8 convolution");
    if (conv.getResidual() || conv.getEpilogue() != "none")
      return conv.emitError("the CUDA target has no convolution epilogue "
                            "(residual or activation)");
    if (conv.getXChannelsLast() || conv.getYChannelsLast())
      return conv.emitError("the CUDA target takes NCHW convolutions only, "
                            "not channels-last buffers");
    return emitLibraryCall(conv, "sc_cu_conv",
                           {conv.getX(), conv.getW(), conv.getBias(),
                            conv.getY()},
                           convExtra(conv) + ", " + math, /*cuda=*/true);
  }
  // The ranks of a group must agree on the transport (NCCL between GPUs,
  // MPI between CPUs), so a program with collectives has one code: with
  // both, a rank without a usable GPU would fall back alone.
  if (kern::isCollective(op)) {
    if (options.cpu)
      return op->emitError("a program with collectives runs the same code on "
                           "every rank: compile it for --target=cuda or "
                           "--target=cpu, not both");
    return emitCollective(op, /*cuda=*/true);
  }
  if (!isa<kern::MapOp, kern::ReduceOp, kern::RuntimeCallOpInterface>(op))
    return op->emitError("the CUDA target cannot emit '")
           << op->getName() << "'";

  std::string name = "shardc_k" + std::to_string(cudaKernels.size());
  // Kernels with the same text share one (NVRTC time grows with the
  // kernels it compiles): the layers of a model, and the rank programs of
  // a partitioned one, which differ only where a rank's slice does (its
  // offsets into a split vocabulary, say). A split program first moves the
  // operands' offsets into the pointers, so that more texts agree (as its
  // CPU code does).
  static constexpr llvm::StringLiteral kPlaceholder = "shardc_k_NAME_";
  FailureOr<cuda::Kernel> kernel = cuda::emitKernel(op, kPlaceholder, split);
  if (failed(kernel))
    return failure();
  auto [it, inserted] =
      cudaKernelsByText.try_emplace(kernel->source, cudaKernels.size());
  unsigned index = it->second;
  if (inserted) {
    std::string &src = kernel->source;
    for (size_t at = src.find(kPlaceholder); at != std::string::npos;
         at = src.find(kPlaceholder, at + name.size()))
      src.replace(at, kPlaceholder.size(), name);
    artifacts.cudaSource += "\n" + kernel->source;
    cudaKernels.push_back(name);
  }
  // A kernel over an empty space is never launched.
  bool empty = kernel->grid[0] == 0 || kernel->grid[1] == 0 ||
               kernel->grid[2] == 0;
  ++artifacts.numCudaKernels;
  if (empty)
    return success();
  std::string ptrs, args;
  for (auto [i, v] : llvm::enumerate(kernel->params)) {
    int64_t offset = kernel->paramOffsets.empty() ? 0 : kernel->paramOffsets[i];
    ptrs += (i ? ", " : "") + std::string("(void *)") +
            (offset ? "(" + ptr(v) + " + " + std::to_string(offset) + ")"
                    : ptr(v));
    args += (i ? ", " : "") + std::string("&p[") + std::to_string(i) + "]";
  }
  if (kernel->params.empty()) {
    ptrs = "0";
    args = "0";
  }
  cudaRun += "  { void *p[] = {" + ptrs + "}; void *a[] = {" + args +
             "}; sc_cu_launch(cu, " + std::to_string(index) + ", " +
             std::to_string(kernel->grid[0]) + ", " +
             std::to_string(kernel->grid[1]) + ", " +
             std::to_string(kernel->grid[2]) + ", " +
             std::to_string(kernel->block) + ", " +
             std::to_string(kernel->sharedBytes) + ", a); }\n";
  return success();
}

void CppEmitter::writeCudaTables(raw_ostream &out) {
  for (auto [i, image] : llvm::enumerate(options.cudaImages)) {
    std::string sym = "shardc_cuda_image" + std::to_string(i);
    out << "__asm__(\".section .rodata\\n.balign 64\\n.globl " << sym
        << "\\n.hidden " << sym << "\\n" << sym << ":\\n.incbin \\\""
        << image.second << "\\\"\\n" << sym << "_end:\\n"
        << ".byte 0\\n.previous\\n\");\n"
        << "extern \"C\" const unsigned char " << sym << "[], " << sym
        << "_end[];\n";
  }
  out << "static const sc_cuda_image cuda_images[] = {";
  for (auto [i, image] : llvm::enumerate(options.cudaImages)) {
    std::string sym = "shardc_cuda_image" + std::to_string(i);
    out << (i ? ", " : "") << "{\"" << image.first << "\", " << sym
        << ", (uint64_t)(" << sym << "_end - " << sym << ")}";
  }
  if (options.cudaImages.empty())
    out << "{0, 0, 0}";
  out << "};\nstatic const char *const cuda_kernels[] = {";
  for (auto [i, name] : llvm::enumerate(cudaKernels))
    out << (i ? ", " : "") << "\"" << name << "\"";
  if (cudaKernels.empty())
    out << "0";
  out << "};\n";
}
