//===- Cublaslt.cpp - sc_cu_matmul_create / run on cuBLASLt ---------------===//
//
// create() plans the call (MatmulPlan.h), builds cuBLASLt's descriptors and
// picks the algorithm once with cublasLtMatmulAlgoGetHeuristic; run() only
// calls cublasLtMatmul, so it can be captured into a CUDA graph.
//
// The operands' addresses are not known at create(), and cuBLASLt's
// heuristic assumes 256-byte aligned pointers unless told otherwise. The
// runtime's buffers (arena slots, weights, staging buffers) are 64-byte
// aligned, so create() promises 16 bytes (what vectorized loads and TMA
// need), less where a batch stride breaks it, and run() checks the promise.
//
//===----------------------------------------------------------------------===//
#include "Context.h"
#include "Libraries.h"
#include "MatmulPlan.h"

#include "Handle.h"
#include "shardc/cuda.h"
#include "shardc/format.h"

#include <algorithm>
#include <memory>
#include <type_traits>

namespace fmt = shardc::format;

namespace shardc::rt::cuda {
namespace {

// What a matmul may use beyond its operands: cuBLASLt's split-K and stream-K
// kernels need scratch; 32 MiB covers its heuristics on Hopper.
constexpr size_t kCublasLtWorkspaceBytes = size_t(32) << 20;
constexpr uint32_t kPromisedAlignment = 16;

// The alignment every batch of a matrix keeps: the base's 16 bytes, unless
// a batch stride (in bytes) has fewer trailing zero bits.
uint32_t alignmentOf(int64_t batchStride, size_t elementBytes) {
  uint64_t bytes = uint64_t(batchStride) * elementBytes;
  uint32_t align = kPromisedAlignment;
  while (bytes && bytes % align)
    align /= 2;
  return align;
}

bool ensureCublasLt(sc_cuda &cu) {
  std::string error;
  if (!cu.cublasLt && !(cu.cublasLt = loadCublasLt(error))) {
    sc_fail("cuBLASLt matmul: %s", error.c_str());
    return false;
  }
  if (!cu.cublasLtHandle) {
    cublasLtHandle_t h = nullptr;
    if (cublasStatus_t s = cu.cublasLt->cublasLtCreate(&h)) {
      sc_fail("cuBLASLt matmul: cublasLtCreate failed: %s",
              cu.cublasLt->statusText(s).c_str());
      return false;
    }
    cu.cublasLtHandle = h;
  }
  return reserveWorkspace(cu, kCublasLtWorkspaceBytes, "cuBLASLt matmul");
}

struct MatmulHandle : Handle {
  sc_cuda *cu = nullptr;
  const CublasLt *lt = nullptr;
  MatmulPlan plan;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo = {};
  float alpha = 1, beta = 0;
  // Promised alignment of cuBLASLt's A, B, C, D and of the bias.
  uint32_t alignA = 0, alignB = 0, alignC = 0, alignD = 0, alignBias = 0;
  const void *boundBias = nullptr;
  size_t elementBytes = 0;
  std::string what; // "matmul a [..] x b [..] -> y [..]" for errors

  ~MatmulHandle() override {
    for (cublasLtMatrixLayout_t l : {a, b, d})
      if (l)
        lt->cublasLtMatrixLayoutDestroy(l);
    if (op)
      lt->cublasLtMatmulDescDestroy(op);
  }

  bool aligned(const void *p, uint32_t align, const char *operand) const {
    if (reinterpret_cast<uintptr_t>(p) % align == 0)
      return true;
    sc_fail("cuBLASLt %s: %s at %p is not %u-byte aligned", what.c_str(),
            operand, p, align);
    return false;
  }

  void run(const void *x, const void *w, const void *bias,
           const void *residual, void *y) {
    if (plan.empty)
      return;
    if (plan.calls.empty())
      return runOne(x, w, bias, residual, y);
    const size_t e = elementBytes;
    auto at = [e](const void *p, int64_t offset) -> const char * {
      return p ? static_cast<const char *>(p) + offset * int64_t(e) : nullptr;
    };
    for (const MatmulOffsets &o : plan.calls)
      runOne(at(x, o.a), at(w, o.b), at(bias, o.bias), at(residual, o.y),
             const_cast<char *>(at(y, o.y)));
  }

  /// One cuBLASLt call (of the outer calls, if any).
  void runOne(const void *x, const void *w, const void *bias,
              const void *residual, void *y) {
    // C: a bias of y's shape, the residual, or y itself (beta * y).
    const bool fullBias = plan.bias == MatmulPlan::Bias::Full;
    const void *c = fullBias ? bias : plan.residual ? residual : y;
    if (!aligned(w, alignA, "b") || !aligned(x, alignB, "a") ||
        !aligned(c, alignC,
                 fullBias ? "bias" : plan.residual ? "residual" : "y") ||
        !aligned(y, alignD, "y"))
      return;
    if (plan.bias == MatmulPlan::Bias::Row && bias != boundBias) {
      if (!aligned(bias, alignBias, "bias"))
        return;
      // A host-side descriptor update: fine while capturing, and the
      // captured kernel keeps the address (which never changes).
      if (cublasStatus_t s = lt->cublasLtMatmulDescSetAttribute(
              op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias)) {
        sc_fail("cuBLASLt %s: cannot set the bias: %s", what.c_str(),
                lt->statusText(s).c_str());
        return;
      }
      boundBias = bias;
    }
    // cuBLASLt's A is our b and its B our a (MatmulPlan.h).
    if (cublasStatus_t s = lt->cublasLtMatmul(cu->cublasLtHandle, op, &alpha, w,
                                              a, x, b, &beta, c, d, y, d, &algo,
                                              devicePointer(cu->workspace),
                                              cu->workspaceBytes, cu->stream))
      sc_fail("cuBLASLt %s: %s", what.c_str(), lt->statusText(s).c_str());
  }
};

bool dataTypeOf(int32_t dtype, cudaDataType &t) {
  switch (dtype) {
  case fmt::kF32:
    t = CUDA_R_32F;
    return true;
  case fmt::kF16:
    t = CUDA_R_16F;
    return true;
  case fmt::kBF16:
    t = CUDA_R_16BF;
    return true;
  default:
    return false;
  }
}

/// Builds the descriptors and picks the algorithm. False after sc_fail.
bool build(MatmulHandle &h, cudaDataType type, size_t elementBytes, bool tf32,
           int32_t epilogue) {
  const CublasLt &lt = *h.lt;
  const MatmulPlan &p = h.plan;
  h.elementBytes = elementBytes;
  cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
  auto check = [&](const char *step) {
    if (s)
      sc_fail("cuBLASLt %s: %s failed: %s", h.what.c_str(), step,
              lt.statusText(s).c_str());
    return s == CUBLAS_STATUS_SUCCESS;
  };
  // f16 and bf16 accumulate in f32 (scale type f32: alpha, beta are floats).
  const cublasComputeType_t compute =
      tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  s = lt.cublasLtMatmulDescCreate(&h.op, compute, CUDA_R_32F);
  if (!check("cublasLtMatmulDescCreate"))
    return false;
  auto setOp = [&](cublasLtMatmulDescAttributes_t attr, const auto &value) {
    if (!s)
      s = lt.cublasLtMatmulDescSetAttribute(h.op, attr, &value, sizeof value);
  };
  const int32_t opA = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int32_t opB = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  setOp(CUBLASLT_MATMUL_DESC_TRANSA, opA);
  setOp(CUBLASLT_MATMUL_DESC_TRANSB, opB);
  const bool rowBias = p.bias == MatmulPlan::Bias::Row;
  uint32_t ep = CUBLASLT_EPILOGUE_DEFAULT;
  if (epilogue == SC_EPILOGUE_RELU)
    ep = rowBias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  else if (epilogue == SC_EPILOGUE_GELU_TANH)
    ep = rowBias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  else if (rowBias)
    ep = CUBLASLT_EPILOGUE_BIAS;
  setOp(CUBLASLT_MATMUL_DESC_EPILOGUE, ep);
  if (rowBias) {
    // The heuristic reads the bias pointer's alignment from its value; run()
    // sets the real one, which has at least this alignment.
    h.alignBias = alignmentOf(p.biasBatchStride, elementBytes);
    for (const MatmulOffsets &o : p.calls)
      h.alignBias = std::min(h.alignBias, alignmentOf(o.bias, elementBytes));
    const void *promise =
        reinterpret_cast<const void *>(uintptr_t(h.alignBias));
    setOp(CUBLASLT_MATMUL_DESC_BIAS_POINTER, promise);
    if (p.biasBatchStride)
      setOp(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, p.biasBatchStride);
  }
  if (!check("setting the operation's attributes"))
    return false;

  auto layout = [&](const LtMatrix &m, cublasLtMatrixLayout_t &out) {
    if (!s)
      s = lt.cublasLtMatrixLayoutCreate(&out, type, m.rows, m.cols, m.ld);
    if (!s && p.batch > 1) {
      s = lt.cublasLtMatrixLayoutSetAttribute(
          out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &p.batch, sizeof p.batch);
      if (!s)
        s = lt.cublasLtMatrixLayoutSetAttribute(
            out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &m.batchStride,
            sizeof m.batchStride);
    }
  };
  layout(p.a, h.a);
  layout(p.b, h.b);
  layout(p.d, h.d); // C uses D's layout: y, a bias of y's shape, a residual
  if (!check("creating the matrix layouts"))
    return false;

  h.alignA = alignmentOf(p.batch > 1 ? p.a.batchStride : 0, elementBytes);
  h.alignB = alignmentOf(p.batch > 1 ? p.b.batchStride : 0, elementBytes);
  h.alignD = alignmentOf(p.batch > 1 ? p.d.batchStride : 0, elementBytes);
  // The outer calls start at offsets, which every promise must cover.
  for (const MatmulOffsets &o : p.calls) {
    h.alignA = std::min(h.alignA, alignmentOf(o.b, elementBytes));
    h.alignB = std::min(h.alignB, alignmentOf(o.a, elementBytes));
    h.alignD = std::min(h.alignD, alignmentOf(o.y, elementBytes));
  }
  h.alignC = h.alignD;
  if (p.bias == MatmulPlan::Bias::Full)
    for (const MatmulOffsets &o : p.calls)
      h.alignC = std::min(h.alignC, alignmentOf(o.bias, elementBytes));
  cublasLtMatmulPreference_t pref = nullptr;
  s = lt.cublasLtMatmulPreferenceCreate(&pref);
  if (!check("cublasLtMatmulPreferenceCreate"))
    return false;
  std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>,
                  decltype(lt.cublasLtMatmulPreferenceDestroy)>
      prefOwner(pref, lt.cublasLtMatmulPreferenceDestroy);
  auto setPref = [&](cublasLtMatmulPreferenceAttributes_t attr,
                     const auto &value) {
    if (!s)
      s = lt.cublasLtMatmulPreferenceSetAttribute(pref, attr, &value,
                                                  sizeof value);
  };
  const uint64_t workspace = h.cu->workspaceBytes;
  setPref(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, workspace);
  setPref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, h.alignA);
  setPref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, h.alignB);
  setPref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, h.alignC);
  setPref(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, h.alignD);
  if (!check("setting the preferences"))
    return false;
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  s = lt.cublasLtMatmulAlgoGetHeuristic(h.cu->cublasLtHandle, h.op, h.a, h.b,
                                        h.d, h.d, pref, 1, &result, &found);
  if (!s && (found < 1 || result.state))
    s = found < 1 ? CUBLAS_STATUS_NOT_SUPPORTED : result.state;
  if (!check("finding an algorithm"))
    return false;
  h.algo = result.algo;
  return true;
}

} // namespace

void releaseCublasLt(sc_cuda &cu) {
  if (cu.cublasLtHandle)
    cu.cublasLt->cublasLtDestroy(cu.cublasLtHandle);
  cu.cublasLtHandle = nullptr;
}

} // namespace shardc::rt::cuda

using namespace shardc::rt::cuda;

extern "C" void *sc_cu_matmul_create(sc_cuda *cu, const sc_desc *a,
                                     const sc_desc *b, const sc_desc *bias,
                                     const sc_desc *residual, const sc_desc *y,
                                     int32_t trans_a, int32_t trans_b,
                                     float alpha, float beta, int32_t epilogue,
                                     int32_t math) {
  auto h = std::make_unique<MatmulHandle>();
  h->cu = cu;
  h->what = "matmul " + describe(a) + (trans_a ? "^T" : "") + " x " +
            describe(b) + (trans_b ? "^T" : "") + " -> " + describe(y);
  const char *what = h->what.c_str();
  cudaDataType type;
  if (!dataTypeOf(y->dtype, type) || a->dtype != y->dtype ||
      b->dtype != y->dtype || (bias && bias->dtype != y->dtype) ||
      (residual && residual->dtype != y->dtype)) {
    sc_fail("cuBLASLt %s: needs a, b, y%s%s of one type of float32, float16, "
            "bfloat16",
            what, bias ? ", bias" : "", residual ? ", residual" : "");
    return nullptr;
  }
  if (epilogue == SC_EPILOGUE_GELU) {
    // cuBLASLt's GELU epilogues compute the tanh approximation; the exact
    // (erf) form is not one of them, and we do not substitute it silently.
    sc_fail("cuBLASLt %s: epilogue gelu (erf) has no cuBLASLt form (its "
            "GELU is the tanh approximation)",
            what);
    return nullptr;
  }
  if (epilogue != SC_EPILOGUE_NONE && epilogue != SC_EPILOGUE_RELU &&
      epilogue != SC_EPILOGUE_GELU_TANH) {
    sc_fail("cuBLASLt %s: unknown epilogue %d", what, epilogue);
    return nullptr;
  }
  // cuBLASLt adds C before its epilogue; our residual comes after ours.
  if (residual && epilogue != SC_EPILOGUE_NONE) {
    sc_fail("cuBLASLt %s: a residual comes only without an epilogue", what);
    return nullptr;
  }
  if (residual && beta != 0) {
    sc_fail("cuBLASLt %s: cannot accumulate (beta %g) with a residual", what,
            beta);
    return nullptr;
  }
  if (math != SC_MATH_FP32 && math != SC_MATH_TF32) {
    sc_fail("cuBLASLt %s: unknown math mode %d", what, math);
    return nullptr;
  }
  std::string error;
  if (!planMatmul(*a, *b, bias, residual, *y, trans_a != 0, trans_b != 0,
                  h->plan, error)) {
    sc_fail("cuBLASLt matmul: %s", error.c_str());
    return nullptr;
  }
  // cuBLASLt computes epilogue(alpha * op(A) op(B) + beta * C + bias): the
  // epilogue comes after beta * y, ours before.
  if (beta != 0 && epilogue != SC_EPILOGUE_NONE) {
    sc_fail("cuBLASLt %s: cannot accumulate (beta %g) after an epilogue", what,
            beta);
    return nullptr;
  }
  if (beta != 0 && h->plan.bias == MatmulPlan::Bias::Full) {
    sc_fail("cuBLASLt %s: cannot accumulate (beta %g) with a bias of y's "
            "shape",
            what, beta);
    return nullptr;
  }
  h->alpha = alpha;
  h->beta =
      h->plan.bias == MatmulPlan::Bias::Full || h->plan.residual ? 1.0f : beta;
  if (h->plan.empty)
    return static_cast<shardc::rt::Handle *>(h.release());
  if (!ensureCublasLt(*cu))
    return nullptr;
  h->lt = cu->cublasLt;
  bool tf32 = y->dtype == shardc::format::kF32 && math == SC_MATH_TF32;
  if (!build(*h, type, shardc::format::dtypeSize(y->dtype), tf32, epilogue))
    return nullptr;
  return static_cast<shardc::rt::Handle *>(h.release());
}

extern "C" void sc_cu_matmul_run(sc_cuda *, void *h, const void *a,
                                 const void *b, const void *bias,
                                 const void *residual, void *y) {
  if (!h) {
    sc_fail("cuBLASLt matmul: run without a handle");
    return;
  }
  static_cast<MatmulHandle *>(static_cast<shardc::rt::Handle *>(h))
      ->run(a, b, bias, residual, y);
}
