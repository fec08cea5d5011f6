//===- Cudnn.cpp - sc_cu_conv_create / run on cuDNN's legacy API ----------===//
//
// create() plans the descriptors (ConvPlan.h), picks the algorithm once
// with cuDNN's heuristic (cudnnGetConvolution*Algorithm_v7) and grows the
// shared workspace to what it needs; run() only enqueues the convolution
// (cudnnConvolutionForward, or cudnnConvolutionBackwardData for a
// transposed one) and the bias (cudnnAddTensor), so it can be captured
// into a CUDA graph.
//
// Math: fp32 data runs on FMA kernels, or tensor cores in TF32 when asked
// (SC_MATH_TF32); fp16 and bf16 data run on tensor cores, accumulating in
// fp32 (the convolution's compute type is always float).
//
//===----------------------------------------------------------------------===//
#include "Context.h"
#include "ConvPlan.h"
#include "Libraries.h"

#include "Handle.h"
#include "shardc/cuda.h"
#include "shardc/format.h"

#include <memory>

namespace fmt = shardc::format;

namespace shardc::rt::cuda {
namespace {

// Algorithms that need more scratch than this are passed over.
constexpr size_t kMaxConvWorkspaceBytes = size_t(256) << 20;

bool ensureCudnn(sc_cuda &cu) {
  std::string error;
  if (!cu.cudnn && !(cu.cudnn = loadCudnn(error))) {
    sc_fail("cuDNN convolution: %s", error.c_str());
    return false;
  }
  if (!cu.cudnnHandle) {
    cudnnHandle_t h = nullptr;
    if (cudnnStatus_t s = cu.cudnn->cudnnCreate(&h)) {
      sc_fail("cuDNN convolution: cudnnCreate failed: %s",
              cu.cudnn->statusText(s).c_str());
      return false;
    }
    if (cudnnStatus_t s = cu.cudnn->cudnnSetStream(h, cu.stream)) {
      sc_fail("cuDNN convolution: cudnnSetStream failed: %s",
              cu.cudnn->statusText(s).c_str());
      cu.cudnn->cudnnDestroy(h);
      return false;
    }
    cu.cudnnHandle = h;
  }
  return true;
}

struct ConvHandle : Handle {
  sc_cuda *cu = nullptr;
  const Cudnn *dnn = nullptr;
  ConvPlan plan;
  cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr, biasDesc = nullptr;
  // plan.cropped: yDesc is the full output in `scratch`, cropDesc y's
  // window of it (y's dims, the full output's strides, at cropOffset
  // bytes), outDesc y itself.
  cudnnTensorDescriptor_t cropDesc = nullptr, outDesc = nullptr;
  CUdeviceptr scratch = 0;
  size_t scratchBytes = 0, cropOffset = 0;
  cudnnFilterDescriptor_t wDesc = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t forwardAlgo =
      CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnConvolutionBwdDataAlgo_t backwardAlgo =
      CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
  std::string what;

  ~ConvHandle() override {
    for (cudnnTensorDescriptor_t t : {xDesc, yDesc, biasDesc, cropDesc, outDesc})
      if (t)
        dnn->cudnnDestroyTensorDescriptor(t);
    if (scratch)
      cu->drv.cuMemFree(scratch);
    if (wDesc)
      dnn->cudnnDestroyFilterDescriptor(wDesc);
    if (conv)
      dnn->cudnnDestroyConvolutionDescriptor(conv);
  }

  void run(const void *x, const void *w, const void *bias, void *y) {
    if (plan.empty)
      return;
    // alpha and beta are floats for float, half and bfloat16 data.
    const float one = 1, zero = 0;
    void *ws = devicePointer(cu->workspace);
    void *full = plan.cropped ? devicePointer(scratch) : y;
    cudnnStatus_t s =
        plan.transposed
            ? dnn->cudnnConvolutionBackwardData(
                  cu->cudnnHandle, &one, wDesc, w, xDesc, x, conv, backwardAlgo,
                  ws, cu->workspaceBytes, &zero, yDesc, full)
            : dnn->cudnnConvolutionForward(cu->cudnnHandle, &one, xDesc, x,
                                           wDesc, w, conv, forwardAlgo, ws,
                                           cu->workspaceBytes, &zero, yDesc, y);
    if (!s && plan.cropped)
      s = dnn->cudnnTransformTensor(
          cu->cudnnHandle, &one, cropDesc,
          static_cast<const char *>(full) + cropOffset, &zero, outDesc, y);
    if (!s && biasDesc)
      s = dnn->cudnnAddTensor(cu->cudnnHandle, &one, biasDesc, bias, &one,
                              plan.cropped ? outDesc : yDesc, y);
    if (s)
      sc_fail("cuDNN %s: %s", what.c_str(), dnn->statusText(s).c_str());
  }
};

bool dataTypeOf(int32_t dtype, cudnnDataType_t &t) {
  switch (dtype) {
  case fmt::kF32:
    t = CUDNN_DATA_FLOAT;
    return true;
  case fmt::kF16:
    t = CUDNN_DATA_HALF;
    return true;
  case fmt::kBF16:
    t = CUDNN_DATA_BFLOAT16;
    return true;
  default:
    return false;
  }
}

/// Packed NCHW strides of `dims`.
void packedStrides(const int *dims, int n, int *strides) {
  strides[n - 1] = 1;
  for (int i = n - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
}

/// Picks the first algorithm of the heuristic's ranking that runs in the
/// math mode asked for and within the workspace cap, and grows the shared
/// workspace to it. `Perf` is the forward or backward-data result type.
template <class Perf, class WorkspaceSize>
bool pickAlgorithm(ConvHandle &h, const Perf *perf, int found, bool fmaOnly,
                   WorkspaceSize workspaceSize, decltype(Perf::algo) &algo) {
  const Cudnn &dnn = *h.dnn;
  for (int i = 0; i < found; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS)
      continue;
    // The heuristic pairs each algorithm with the math mode it needs; in
    // fp32 mode the descriptor stays on FMA, and an algorithm that cannot
    // run so fails the workspace query below.
    if (!fmaOnly && dnn.cudnnSetConvolutionMathType(h.conv, perf[i].mathType) !=
                        CUDNN_STATUS_SUCCESS)
      continue;
    size_t bytes = 0;
    if (workspaceSize(perf[i].algo, bytes) != CUDNN_STATUS_SUCCESS ||
        bytes > kMaxConvWorkspaceBytes)
      continue;
    if (!reserveWorkspace(*h.cu, bytes, "cuDNN convolution"))
      return false;
    algo = perf[i].algo;
    return true;
  }
  sc_fail("cuDNN %s: no algorithm runs it", h.what.c_str());
  return false;
}

/// Builds the descriptors and picks the algorithm. False after sc_fail.
bool build(ConvHandle &h, cudnnDataType_t type, bool hasBias, int32_t math,
           bool fp32) {
  const Cudnn &dnn = *h.dnn;
  const ConvPlan &p = h.plan;
  const size_t elementBytes = type == CUDNN_DATA_FLOAT ? 4 : 2;
  cudnnStatus_t s = CUDNN_STATUS_SUCCESS;
  auto check = [&](const char *step) {
    if (s)
      sc_fail("cuDNN %s: %s failed: %s", h.what.c_str(), step,
              dnn.statusText(s).c_str());
    return s == CUDNN_STATUS_SUCCESS;
  };
  auto tensor = [&](const int *dims, cudnnTensorDescriptor_t &desc) {
    int strides[5];
    packedStrides(dims, p.nbDims, strides);
    if (!s)
      s = dnn.cudnnCreateTensorDescriptor(&desc);
    if (!s)
      s = dnn.cudnnSetTensorNdDescriptor(desc, type, p.nbDims, dims, strides);
  };
  tensor(p.x, h.xDesc);
  tensor(p.cropped ? p.full : p.y, h.yDesc);
  if (p.cropped) {
    tensor(p.y, h.outDesc);
    int fullStrides[5];
    packedStrides(p.full, p.nbDims, fullStrides);
    size_t offset = 0, elements = 1;
    for (int i = 0; i < p.nbDims; ++i) {
      offset += size_t(p.crop[i]) * size_t(fullStrides[i]);
      elements *= size_t(p.full[i]);
    }
    h.cropOffset = offset * elementBytes;
    if (!s)
      s = dnn.cudnnCreateTensorDescriptor(&h.cropDesc);
    if (!s)
      s = dnn.cudnnSetTensorNdDescriptor(h.cropDesc, type, p.nbDims, p.y,
                                         fullStrides);
    if (!s && !growDeviceBuffer(*h.cu, h.scratch, h.scratchBytes,
                                elements * elementBytes, h.what.c_str(),
                                "cropped output"))
      return false;
  }
  if (hasBias) {
    // One value per output channel, broadcast over batch and space.
    int dims[5] = {1, p.outChannels, 1, 1, 1};
    tensor(dims, h.biasDesc);
  }
  if (!s)
    s = dnn.cudnnCreateFilterDescriptor(&h.wDesc);
  if (!s)
    s = dnn.cudnnSetFilterNdDescriptor(h.wDesc, type, CUDNN_TENSOR_NCHW,
                                       p.nbDims, p.w);
  if (!s)
    s = dnn.cudnnCreateConvolutionDescriptor(&h.conv);
  if (!s)
    s = dnn.cudnnSetConvolutionNdDescriptor(
        h.conv, p.nbDims - 2, p.pads, p.strides, p.dilations,
        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  if (!s)
    s = dnn.cudnnSetConvolutionGroupCount(h.conv, p.groups);
  const bool fmaOnly = fp32 && math == SC_MATH_FP32;
  if (!s)
    s = dnn.cudnnSetConvolutionMathType(h.conv, fmaOnly ? CUDNN_FMA_MATH
                                                        : CUDNN_TENSOR_OP_MATH);
  if (!check("creating the descriptors"))
    return false;

  cudnnHandle_t handle = h.cu->cudnnHandle;
  int found = 0;
  if (p.transposed) {
    cudnnConvolutionBwdDataAlgoPerf_t
        perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    s = dnn.cudnnGetConvolutionBackwardDataAlgorithm_v7(
        handle, h.wDesc, h.xDesc, h.conv, h.yDesc,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf);
    if (!check("cudnnGetConvolutionBackwardDataAlgorithm_v7"))
      return false;
    return pickAlgorithm(
        h, perf, found, fmaOnly,
        [&](cudnnConvolutionBwdDataAlgo_t algo, size_t &bytes) {
          return dnn.cudnnGetConvolutionBackwardDataWorkspaceSize(
              handle, h.wDesc, h.xDesc, h.conv, h.yDesc, algo, &bytes);
        },
        h.backwardAlgo);
  }
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  s = dnn.cudnnGetConvolutionForwardAlgorithm_v7(
      handle, h.xDesc, h.wDesc, h.conv, h.yDesc,
      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf);
  if (!check("cudnnGetConvolutionForwardAlgorithm_v7"))
    return false;
  return pickAlgorithm(
      h, perf, found, fmaOnly,
      [&](cudnnConvolutionFwdAlgo_t algo, size_t &bytes) {
        return dnn.cudnnGetConvolutionForwardWorkspaceSize(
            handle, h.xDesc, h.wDesc, h.conv, h.yDesc, algo, &bytes);
      },
      h.forwardAlgo);
}

} // namespace

void releaseCudnn(sc_cuda &cu) {
  if (cu.cudnnHandle)
    cu.cudnn->cudnnDestroy(cu.cudnnHandle);
  cu.cudnnHandle = nullptr;
}

} // namespace shardc::rt::cuda

using namespace shardc::rt::cuda;

extern "C" void *sc_cu_conv_create(sc_cuda *cu, const sc_desc *x,
                                   const sc_desc *w, const sc_desc *bias,
                                   const sc_desc *y, const int64_t *strides,
                                   const int64_t *dilations,
                                   const int64_t *pads, int64_t group,
                                   int32_t transposed, int32_t math) {
  auto h = std::make_unique<ConvHandle>();
  h->cu = cu;
  h->what =
      std::string(transposed ? "transposed convolution " : "convolution ") +
      describe(x) + " * " + describe(w) + " -> " + describe(y);
  cudnnDataType_t type;
  if (!dataTypeOf(y->dtype, type) || x->dtype != y->dtype ||
      w->dtype != y->dtype || (bias && bias->dtype != y->dtype)) {
    sc_fail("cuDNN %s: needs x, w, y%s of one type of float32, float16, "
            "bfloat16",
            h->what.c_str(), bias ? " and bias" : "");
    return nullptr;
  }
  if (math != SC_MATH_FP32 && math != SC_MATH_TF32) {
    sc_fail("cuDNN %s: unknown math mode %d", h->what.c_str(), math);
    return nullptr;
  }
  std::string error;
  if (!planConv(*x, *w, bias, *y, strides, dilations, pads, group,
                transposed != 0, h->plan, error)) {
    sc_fail("cuDNN %s: %s",
            transposed ? "transposed convolution" : "convolution",
            error.c_str());
    return nullptr;
  }
  if (h->plan.empty)
    return static_cast<shardc::rt::Handle *>(h.release());
  if (!ensureCudnn(*cu))
    return nullptr;
  h->dnn = cu->cudnn;
  if (!build(*h, type, bias != nullptr, math, y->dtype == shardc::format::kF32))
    return nullptr;
  return static_cast<shardc::rt::Handle *>(h.release());
}

extern "C" void sc_cu_conv_run(sc_cuda *, void *h, const void *x, const void *w,
                               const void *bias, void *y) {
  if (!h) {
    sc_fail("cuDNN convolution: run without a handle");
    return;
  }
  static_cast<ConvHandle *>(static_cast<shardc::rt::Handle *>(h))
      ->run(x, w, bias, y);
}
