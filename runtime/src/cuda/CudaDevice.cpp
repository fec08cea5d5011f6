//===- CudaDevice.cpp - a rank's CUDA code on a GPU -----------------------===//
//
// Opening: the GPU (device `localRank % count`: the rank's index on its node,
// from MPI's shared-memory split, so CUDA_VISIBLE_DEVICES picks it), its
// primary context (the one cuBLASLt and cuDNN, which use the CUDA
// runtime, attach to), a non-blocking stream, the image its architecture
// runs (Image.h), the kernels, and device memory: the arena, the weights
// section uploaded once, and one staging buffer per input and output. Host
// inputs and outputs live in page-locked memory so the copies are
// asynchronous.
//
// Running: the inputs are copied in, the generated run() enqueues the
// model's work, the outputs are copied back, and the host waits. After one
// direct run (a warm-up), run() is captured into a CUDA graph that later
// runs replay: all its pointers (arena, weights, staging buffers,
// workspace) stay put for the life of the model, so the graph stays valid.
// The copies stay outside the graph. A capture that fails (a library call
// that cannot be captured) falls back to enqueueing run() directly from
// then on; SHARDC_CUDA_GRAPHS=0 does so from the start. So does a program
// whose run() waits for the stream itself, which no capture can record:
// expert parallelism's exchanges (sc_cu_moe_dispatch / sc_cu_moe_return)
// read row counts back to the host. They say so on their first call, in the
// warm-up (sc_cuda::hostSyncs), and every later run is enqueued directly.
//
// A rank of a mesh talks to its peers through NCCL (comm/Nccl.h): one
// communicator per mesh axis, made over the host (MPI) communicator of the
// axis before init(), replaces it in the rank context, so the collectives
// of run() go to NCCL on the model's stream and into the graph. Every wait
// for the stream is then polled under the communicators' watch: a lost or
// stuck peer aborts them after SHARDC_NCCL_TIMEOUT seconds instead of
// hanging the rank. With NCCL, a failed capture fails the run (the
// collectives inside the broken capture have aborted the communicators).
//
// Also implements sc_cu_launch and sc_cu_copy of shardc/cuda.h.
//
//===----------------------------------------------------------------------===//
#include "Context.h"
#include "Image.h"

#include "Device.h"
#include "Handle.h"
#include "KernelError.h"
#include "comm/Nccl.h"
#include "shardc/cuda.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace fmt = shardc::format;

namespace shardc::rt::cuda {
namespace {

// cuMemAlloc rejects 0 bytes; the runtime never hands out a null pointer.
constexpr uint64_t kMinDeviceBytes = 256;
// A kernel may use this much dynamic shared memory without opting in.
constexpr uint32_t kDefaultSharedBytes = 48 * 1024;

bool graphsEnabled() {
  const char *env = std::getenv("SHARDC_CUDA_GRAPHS");
  return !(env && std::strcmp(env, "0") == 0);
}

class CudaDevice final : public Device {
public:
  CudaDevice(const Driver &drv, const RankCode &code)
      : cu(drv), code(code), entry(code.program->cuda_ranks[code.rank]) {}
  ~CudaDevice() override;

  Status open();

  const std::string &description() const override { return name; }
  void *input(size_t index) override { return hostInputs[index]; }
  const void *output(size_t index) const override { return hostOutputs[index]; }
  Status run() override;

private:
  sc_cuda cu;
  RankCode code;
  const sc_cuda_entry &entry;
  /// The rank context with this device's stream and communicators.
  sc_rank_ctx ctx{};
  /// The NCCL communicators of the mesh axes and what ctx.comms points at.
  std::vector<std::unique_ptr<Communicator>> comms;
  std::vector<sc_comm> commHandles;
  std::vector<sc_comm *> commPtrs;
  std::string name;
  bool retained = false;
  CUdeviceptr arena = 0, weights = 0;
  std::vector<CUdeviceptr> deviceInputs, deviceOutputs;
  std::vector<void *> hostInputs, hostOutputs;
  // What run() gets: the staging buffers, then a null slot.
  std::vector<void *> inputArgs, outputArgs;
  std::vector<void *> handles;
  CUgraphExec graph = nullptr;
  bool useGraphs = graphsEnabled();
  bool warmedUp = false; // a run succeeded: the next one may be captured

  Status gpuError(const std::string &what, CUresult r) const {
    return {SHARDC_ERROR_UNSUPPORTED, "no usable GPU: " + what + " on '" +
                                          cu.gpuName +
                                          "': " + cu.drv.errorText(r)};
  }
  Status runError(const std::string &what, CUresult r) const {
    return {SHARDC_ERROR_RUNTIME,
            "CUDA error " + what + ": " + cu.drv.errorText(r)};
  }
  Status allocate(CUdeviceptr &p, uint64_t bytes, const std::string &what);
  Status allocateHost(void *&p, uint64_t bytes, const std::string &what);
  Status loadModule(const sc_cuda_image &image);
  /// The NCCL communicators of the rank's mesh axes, into ctx.comms.
  Status openComms();
  /// Enqueues the generated run(); true with the message if it failed.
  bool enqueueRun(std::string &message);
  /// Captures run() into `graph`; false with the reason if that fails.
  bool capture(std::string &why);
};

Status CudaDevice::allocate(CUdeviceptr &p, uint64_t bytes,
                            const std::string &what) {
  uint64_t n = bytes < kMinDeviceBytes ? kMinDeviceBytes : bytes;
  if (CUresult r = cu.drv.cuMemAlloc(&p, static_cast<size_t>(n)))
    return {SHARDC_ERROR_RUNTIME, "cannot allocate " + std::to_string(bytes) +
                                      " bytes of GPU memory for " + what +
                                      " on '" + cu.gpuName +
                                      "': " + cu.drv.errorText(r)};
  return {};
}

Status CudaDevice::allocateHost(void *&p, uint64_t bytes,
                                const std::string &what) {
  size_t n = static_cast<size_t>(bytes < fmt::kAlign ? fmt::kAlign : bytes);
  if (CUresult r = cu.drv.cuMemAllocHost(&p, n))
    return {SHARDC_ERROR_RUNTIME, "cannot allocate " + std::to_string(bytes) +
                                      " bytes of page-locked memory for " +
                                      what + ": " + cu.drv.errorText(r)};
  std::memset(p, 0, n);
  return {};
}

Status CudaDevice::loadModule(const sc_cuda_image &image) {
  // The JIT's log says why PTX did not compile (for a cubin it stays empty).
  char log[2048] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof log))};
  if (CUresult r = cu.drv.cuModuleLoadDataEx(&cu.module, image.data, 2, options,
                                             values)) {
    std::string why(log, strnlen(log, sizeof log));
    why = why.substr(0, why.find('\n'));
    Status s =
        gpuError(std::string("cannot load the ") + image.arch + " code", r);
    if (!why.empty())
      s.message += ": " + why;
    return s;
  }
  const shardc_program &p = *code.program;
  cu.kernels.resize(p.num_cuda_kernels);
  cu.kernelNames.assign(p.cuda_kernels, p.cuda_kernels + p.num_cuda_kernels);
  cu.kernelSharedBytes.assign(p.num_cuda_kernels, kDefaultSharedBytes);
  for (uint32_t i = 0; i < p.num_cuda_kernels; ++i)
    if (CUresult r = cu.drv.cuModuleGetFunction(&cu.kernels[i], cu.module,
                                                p.cuda_kernels[i]))
      return {SHARDC_ERROR_FORMAT, std::string("the program's ") + image.arch +
                                       " code has no kernel '" +
                                       p.cuda_kernels[i] +
                                       "': " + cu.drv.errorText(r)};
  return {};
}

Status CudaDevice::openComms() {
  if (ctx.num_axes <= 0)
    return {};
  std::vector<Communicator *> hosts;
  for (int32_t i = 0; i < ctx.num_axes; ++i) {
    if (!ctx.comms || !ctx.comms[i] || !ctx.comms[i]->impl)
      return {SHARDC_ERROR_RUNTIME, "mesh axis " + std::to_string(i) +
                                        " has no host communicator"};
    hosts.push_back(ctx.comms[i]->impl);
  }
  if (Status s = createNcclComms(hosts, code.rank, comms); s.failed())
    return s;
  for (auto &c : comms)
    commHandles.push_back(sc_comm{c.get()});
  for (sc_comm &h : commHandles)
    commPtrs.push_back(&h);
  ctx.comms = commPtrs.data();
  cu.ncclComms = &comms;
  return {};
}

Status CudaDevice::open() {
  const Driver &d = cu.drv;
  int count = 0;
  if (CUresult r = d.cuDeviceGetCount(&count))
    return {SHARDC_ERROR_UNSUPPORTED,
            "no usable GPU: cuDeviceGetCount failed: " + d.errorText(r)};
  if (count <= 0)
    return {SHARDC_ERROR_UNSUPPORTED, "no usable GPU: no CUDA device found"};
  if (CUresult r = d.cuDeviceGet(&cu.device, code.localRank % count))
    return {SHARDC_ERROR_UNSUPPORTED,
            "no usable GPU: cuDeviceGet failed: " + d.errorText(r)};
  char gpuName[256] = {};
  int major = 0, minor = 0;
  CUresult r = d.cuDeviceGetName(gpuName, sizeof gpuName - 1, cu.device);
  cu.gpuName = gpuName;
  if (!r)
    r = d.cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cu.device);
  if (!r)
    r = d.cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cu.device);
  if (r)
    return gpuError("cannot query the GPU", r);
  std::string error;
  const sc_cuda_image *image =
      chooseImage(*code.program, major, minor, cu.gpuName, error);
  if (!image)
    return {SHARDC_ERROR_UNSUPPORTED, "no usable GPU: " + error};
  bool ptx = false;
  int version = 0;
  parseArch(image->arch, ptx, version);
  name = "cuda: " + cu.gpuName + " (sm_" + std::to_string(major * 10 + minor) +
         (ptx ? ", PTX " : ", cubin ") + image->arch + ")";

  if ((r = d.cuDevicePrimaryCtxRetain(&cu.ctx, cu.device)))
    return gpuError("cannot create a context", r);
  retained = true;
  if ((r = d.cuCtxSetCurrent(cu.ctx)))
    return gpuError("cannot make the context current", r);
  if ((r = d.cuStreamCreate(&cu.stream, CU_STREAM_NON_BLOCKING)))
    return gpuError("cannot create a stream", r);
  if (code.ctx)
    ctx = *code.ctx;
  ctx.stream = cu.stream;
  Status s = loadModule(*image);
  if (s.failed())
    return s;

  const fmt::RankPlan &rp = *code.plan;
  if ((s = allocate(arena, rp.arenaBytes, "the arena")).failed())
    return s;
  // Zeroed like the CPU arena, so both codes see the same initial bytes.
  if ((r = d.cuMemsetD8(arena, 0, static_cast<size_t>(rp.arenaBytes))))
    return runError("clearing the arena", r);
  if ((s = allocate(weights, rp.weightsBytes, "the weights")).failed())
    return s;
  if (rp.weightsBytes &&
      (r = d.cuMemcpyHtoD(weights, code.weights,
                          static_cast<size_t>(rp.weightsBytes))))
    return runError("uploading the weights", r);
  auto stage = [&](const std::vector<fmt::TensorSig> &sigs, const char *kind,
                   std::vector<CUdeviceptr> &dev, std::vector<void *> &host,
                   std::vector<void *> &args) {
    dev.assign(sigs.size(), 0);
    host.assign(sigs.size(), nullptr);
    for (size_t i = 0; i < sigs.size(); ++i) {
      std::string what = std::string(kind) + " '" + sigs[i].name + "'";
      Status st = allocate(dev[i], sigs[i].bytes(), what);
      if (st.failed())
        return st;
      st = allocateHost(host[i], sigs[i].bytes(), what);
      if (st.failed())
        return st;
      args.push_back(devicePointer(dev[i]));
    }
    // Never hand generated code a null array, even when a list is empty.
    args.push_back(nullptr);
    return Status();
  };
  if ((s = stage(rp.inputs, "input", deviceInputs, hostInputs, inputArgs))
          .failed() ||
      (s = stage(rp.outputs, "output", deviceOutputs, hostOutputs, outputArgs))
          .failed())
    return s;
  handles.assign(rp.numHandles + 1, nullptr);
  // Last before init(): a rank that failed to get this far never joins.
  if ((s = openComms()).failed())
    return s;

  int rc = 0;
  std::string message;
  bool failed =
      failedIn([&] { rc = entry.init(&ctx, &cu, handles.data()); }, message);
  if (rc != 0 || failed) {
    if (message.empty())
      message = "initialization failed (code " + std::to_string(rc) + ")";
    return {SHARDC_ERROR_UNSUPPORTED, message};
  }
  // The memset and the upload went to the legacy stream, which the model's
  // non-blocking stream does not wait for, and the libraries may have
  // queued setup work in init(): wait for all of it once.
  if ((r = d.cuCtxSynchronize()))
    return runError("setting up the model", r);
  return {};
}

bool CudaDevice::enqueueRun(std::string &message) {
  return failedIn(
      [&] {
        entry.run(&ctx, &cu, handles.data(),
                  static_cast<char *>(devicePointer(arena)),
                  static_cast<const char *>(devicePointer(weights)),
                  inputArgs.data(), outputArgs.data());
      },
      message);
}

bool CudaDevice::capture(std::string &why) {
  const Driver &d = cu.drv;
  // THREAD_LOCAL: only this thread's unsafe calls (allocations, synchronous
  // copies) break the capture; other threads may use CUDA meanwhile.
  if (CUresult r = d.cuStreamBeginCapture(cu.stream,
                                          CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)) {
    why = "cannot begin: " + d.errorText(r);
    return false;
  }
  // A failure here may be the capture's own (a call that cannot be
  // captured); the direct run that follows reports any other.
  bool failed = enqueueRun(why);
  CUgraph captured = nullptr;
  CUresult r = d.cuStreamEndCapture(cu.stream, &captured);
  if (!failed && r)
    why = d.errorText(r);
  if (!failed && !r && captured) {
    if (CUresult ri = d.cuGraphInstantiate(&graph, captured, 0)) {
      why = "cannot instantiate: " + d.errorText(ri);
      graph = nullptr;
    }
  }
  if (captured)
    d.cuGraphDestroy(captured); // the executable graph does not need it
  return graph != nullptr;
}

Status CudaDevice::run() {
  const Driver &d = cu.drv;
  const fmt::RankPlan &rp = *code.plan;
  // The calling thread may not be the one that loaded the model.
  if (CUresult r = d.cuCtxSetCurrent(cu.ctx))
    return runError("making the context current", r);
  Status status;
  // Nothing may still use the host buffers once run() returns, even after
  // a failure: wait for what was queued.
  auto finish = [&] {
    CUresult r;
    Status waited = synchronizeStream(cu, "the run", r);
    if (waited.failed() && !status.failed())
      status = waited;
    else if (r && !status.failed())
      status = runError("while running", r);
    return status;
  };
  for (size_t i = 0; i < rp.inputs.size(); ++i) {
    size_t bytes = static_cast<size_t>(rp.inputs[i].bytes());
    if (!bytes)
      continue;
    if (CUresult r = d.cuMemcpyHtoDAsync(deviceInputs[i], hostInputs[i], bytes,
                                         cu.stream)) {
      status =
          runError("copying input '" + rp.inputs[i].name + "' to the GPU", r);
      return finish();
    }
  }

  // The first run is enqueued directly: it loads lazily loaded kernels and
  // lets the libraries make their one-time allocations, which a capture
  // cannot record. The second captures the graph the later ones replay,
  // unless the first found that run() waits for the stream (hostSyncs).
  if (!graph && useGraphs && warmedUp && cu.hostSyncs)
    useGraphs = false;
  if (!graph && useGraphs && warmedUp) {
    std::string why;
    if (!capture(why)) {
      useGraphs = false; // for good: run() is enqueued directly from now on
      if (!comms.empty()) {
        status = {SHARDC_ERROR_RUNTIME,
                  "cannot capture the run into a CUDA graph" +
                      (why.empty() ? std::string() : ": " + why) +
                      " (SHARDC_CUDA_GRAPHS=0 runs without graphs)"};
        return finish();
      }
    }
  }
  std::string message;
  bool failed = false;
  if (graph) {
    if (CUresult r = d.cuGraphLaunch(graph, cu.stream)) {
      message = "CUDA error launching the graph: " + d.errorText(r);
      failed = true;
    }
  } else {
    failed = enqueueRun(message);
  }
  if (failed) {
    status = {SHARDC_ERROR_RUNTIME, message};
    return finish();
  }

  for (size_t i = 0; i < rp.outputs.size(); ++i) {
    size_t bytes = static_cast<size_t>(rp.outputs[i].bytes());
    if (!bytes)
      continue;
    if (CUresult r = d.cuMemcpyDtoHAsync(hostOutputs[i], deviceOutputs[i],
                                         bytes, cu.stream)) {
      status = runError(
          "copying output '" + rp.outputs[i].name + "' from the GPU", r);
      break;
    }
  }
  finish();
  warmedUp = warmedUp || !status.failed();
  return status;
}

CudaDevice::~CudaDevice() {
  const Driver &d = cu.drv;
  if (cu.ctx)
    d.cuCtxSetCurrent(cu.ctx);
  if (cu.stream) {
    CUresult ignored;
    synchronizeStream(cu, "unloading the model", ignored);
  }
  // The graph, then the communicators, the wrappers' handles, then the
  // libraries they were created with, then memory, the module and the
  // stream, then the context.
  if (graph)
    d.cuGraphExecDestroy(graph);
  cu.ncclComms = nullptr;
  commPtrs.clear();
  commHandles.clear();
  comms.clear();
  for (void *h : handles)
    if (h)
      sc_handle_free(h);
  releaseCublasLt(cu);
  releaseCudnn(cu);
  releaseExpertBuffers(cu);
  for (CUdeviceptr p : {cu.workspace, arena, weights})
    if (p)
      d.cuMemFree(p);
  for (const auto *list : {&deviceInputs, &deviceOutputs})
    for (CUdeviceptr p : *list)
      if (p)
        d.cuMemFree(p);
  for (const auto *list : {&hostInputs, &hostOutputs})
    for (void *p : *list)
      if (p)
        d.cuMemFreeHost(p);
  if (cu.module)
    d.cuModuleUnload(cu.module);
  if (cu.stream)
    d.cuStreamDestroy(cu.stream);
  if (retained)
    d.cuDevicePrimaryCtxRelease(cu.device);
}

} // namespace

Status synchronizeStream(sc_cuda &cu, const char *what, CUresult &r) {
  r = CUDA_SUCCESS;
  if (cu.ncclComms && !cu.ncclComms->empty())
    if (Status s = waitWithNccl(
            *cu.ncclComms,
            [&] {
              return cu.drv.cuStreamQuery(cu.stream) != CUDA_ERROR_NOT_READY;
            },
            what);
        s.failed())
      return s;
  r = cu.drv.cuStreamSynchronize(cu.stream);
  return {};
}

bool growDeviceBuffer(sc_cuda &cu, CUdeviceptr &buffer, size_t &capacity,
                      size_t bytes, const char *what, const char *kind) {
  if (bytes <= capacity)
    return true;
  if (buffer)
    cu.drv.cuMemFree(buffer);
  buffer = 0;
  capacity = 0;
  if (CUresult r = cu.drv.cuMemAlloc(&buffer, bytes)) {
    buffer = 0;
    sc_fail("%s: cannot allocate a %zu-byte %s on '%s': %s", what, bytes, kind,
            cu.gpuName.c_str(), cu.drv.errorText(r).c_str());
    return false;
  }
  capacity = bytes;
  return true;
}

bool reserveWorkspace(sc_cuda &cu, size_t bytes, const char *what) {
  return growDeviceBuffer(cu, cu.workspace, cu.workspaceBytes, bytes, what,
                          "workspace");
}

} // namespace shardc::rt::cuda

namespace shardc::rt {

Status openCudaDevice(const RankCode &code, std::unique_ptr<Device> &out) {
  std::string error;
  const cuda::Driver *drv = cuda::loadDriver(error);
  if (!drv)
    return {SHARDC_ERROR_UNSUPPORTED, error};
  auto device = std::make_unique<cuda::CudaDevice>(*drv, code);
  Status status = device->open();
  if (!status.failed())
    out = std::move(device);
  return status;
}

} // namespace shardc::rt

using shardc::rt::cuda::deviceAddress;

extern "C" void sc_cu_launch(sc_cuda *cu, uint32_t kernel, uint32_t grid_x,
                             uint32_t grid_y, uint32_t grid_z, uint32_t block,
                             uint32_t shared_bytes, void **args) {
  if (kernel >= cu->kernels.size()) {
    sc_fail("CUDA launch of kernel %u: the program has %zu kernels", kernel,
            cu->kernels.size());
    return;
  }
  if (grid_x == 0 || grid_y == 0 || grid_z == 0)
    return; // an empty iteration space
  const char *name = cu->kernelNames[kernel];
  CUfunction f = cu->kernels[kernel];
  if (shared_bytes > cu->kernelSharedBytes[kernel]) {
    if (CUresult r = cu->drv.cuFuncSetAttribute(
            f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            static_cast<int>(shared_bytes))) {
      sc_fail("CUDA kernel '%s' cannot use %u bytes of shared memory on '%s': "
              "%s",
              name, shared_bytes, cu->gpuName.c_str(),
              cu->drv.errorText(r).c_str());
      return;
    }
    cu->kernelSharedBytes[kernel] = shared_bytes;
  }
  if (CUresult r =
          cu->drv.cuLaunchKernel(f, grid_x, grid_y, grid_z, block, 1, 1,
                                 shared_bytes, cu->stream, args, nullptr))
    sc_fail("CUDA kernel '%s' (grid %u x %u x %u, block %u, %u bytes shared): "
            "%s",
            name, grid_x, grid_y, grid_z, block, shared_bytes,
            cu->drv.errorText(r).c_str());
}

extern "C" void sc_cu_copy(sc_cuda *cu, void *dst, const void *src,
                           uint64_t bytes) {
  if (bytes == 0)
    return;
  if (CUresult r =
          cu->drv.cuMemcpyDtoDAsync(deviceAddress(dst), deviceAddress(src),
                                    static_cast<size_t>(bytes), cu->stream))
    sc_fail("CUDA copy of %llu bytes: %s",
            static_cast<unsigned long long>(bytes),
            cu->drv.errorText(r).c_str());
}
