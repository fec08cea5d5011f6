//===- Runtime.cpp - the shardc runtime C API -----------------------------===//
//
// Implements include/shardc/runtime.h: decodes and checks the program and
// the plan embedded in it, maps and validates the weights file, and opens
// one rank on a device (Device.h): the GPU when the program has CUDA code
// and one is usable, else the CPU code, or the device the caller asked for.
// Binding, running and reading outputs go through the device's buffers.
//
// Pipelined plans (Plan::microbatches M > 1): the user binds and reads
// tensors of M micro-batches (a batched signature's dims[0] times M) and
// one shardc_run calls the rank's run() M times, copying block k of each
// batched input in before call k and block k of each output out after it,
// through full-size host staging buffers. A non-batched input is copied
// into the device once, at bind time, as with M == 1 (which has no staging
// and no extra copy). A run ends by flushing the sends still in flight on
// the rank's communicators.
//
// Dynamic dims (plan v4, docs/dynamic-shapes.md): an input binds at any
// value within [1, bound] of each of its dynamic dims, its data dense at
// that shape at the start of its bound-sized buffer. shardc_run takes each
// dim's value from the bound inputs (they must agree), hands the values to
// the code in sc_rank_ctx::dims (the bounds during init), and the outputs
// then have the run's shape (shardc_output_info, shardc_output's bytes).
// Buffers stay sized for the bounds; input info reports the bounds.
//
//===----------------------------------------------------------------------===//
#include "shardc/runtime.h"

#include "Cpus.h"
#include "Device.h"
#include "Generate.h"
#include "KernelError.h"
#include "RoutingStats.h"
#include "Trace.h"
#include "comm/Comm.h"
#include "cuda/Image.h"
#include "shardc/cpu.h"
#include "shardc/format.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <vector>

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fmt = shardc::format;
using shardc::rt::Device;
using shardc::rt::RankCode;
using shardc::rt::Status;

namespace {

thread_local std::string lastError;

shardc_status fail(shardc_status status, std::string msg) {
  for (char &c : msg)
    if (c == '\n' || c == '\r')
      c = ' ';
  lastError = std::move(msg);
  return status;
}

shardc_status fail(const Status &s) { return fail(s.code, s.message); }

/// Runs a C API body; no exception leaves the C API.
template <typename F> shardc_status guarded(F &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    try {
      lastError = "out of memory";
    } catch (...) {
    }
    return SHARDC_ERROR_RUNTIME;
  } catch (const std::exception &e) {
    try {
      fail(SHARDC_ERROR_RUNTIME, e.what());
    } catch (...) {
    }
    return SHARDC_ERROR_RUNTIME;
  } catch (...) {
    try {
      lastError = "unknown exception";
    } catch (...) {
    }
    return SHARDC_ERROR_RUNTIME;
  }
}

struct Mapping {
  void *base = nullptr;
  size_t size = 0;
  int fd = -1; ///< the mapped file, open while load maps its extents
  void closeFile() {
    if (fd >= 0)
      ::close(fd);
    fd = -1;
  }
  ~Mapping() {
    if (base)
      ::munmap(base, size);
    closeFile();
  }
};

/// A 64-byte aligned host buffer (what the devices hand out, so outputs
/// keep their alignment when they come from staging).
struct Staging {
  char *data = nullptr;
  uint64_t bytes = 0;
  Staging() = default;
  Staging(const Staging &) = delete;
  Staging &operator=(const Staging &) = delete;
  Staging(Staging &&o) noexcept : data(o.data), bytes(o.bytes) {
    o.data = nullptr;
  }
  ~Staging() { std::free(data); }
  bool allocate(uint64_t n) {
    uint64_t size = fmt::alignUp(n ? n : 1);
    if (size < n || size > SIZE_MAX)
      return false;
    data = static_cast<char *>(
        std::aligned_alloc(fmt::kAlign, static_cast<size_t>(size)));
    bytes = n;
    return data != nullptr;
  }
};

} // namespace

struct shardc_model {
  fmt::Plan plan;
  const fmt::RankPlan *rp = nullptr;
  // The rank's place in the world (ABI v3): a one-rank world for now (the
  // MPI and NCCL communicators come with partitioning).
  std::unique_ptr<shardc::rt::Communicator> worldComm;
  sc_comm world;
  std::vector<std::unique_ptr<shardc::rt::Communicator>> axisComms;
  std::vector<sc_comm> axisHandles;
  std::vector<sc_comm *> axisPtrs;
  sc_rank_ctx ctx{};
  Mapping weights;
  /// The rank's section where it has a shared head: the head's and the
  /// tail's pages of `weights` mapped side by side.
  Mapping section;
  // Declared after the mapping: the CPU code reads the weights in place.
  std::unique_ptr<Device> device;
  std::string fallbackReason;
  // What the user binds and reads (userSig: M micro-batches of a batched
  // signature), and with M > 1 the staging buffers of the batched ones
  // (empty for the others).
  std::vector<fmt::TensorSig> inputs, outputs;
  std::vector<Staging> inputStaging, outputStaging;
  std::vector<bool> bound;
  /// Each input's dims as last bound (the plan's for a static model).
  std::vector<std::vector<int64_t>> boundDims;
  /// KV cache inputs bound by shardc_keep_cache: only their cache axis's
  /// dim is given; their other boundDims are those of the run they were
  /// kept from.
  std::vector<bool> kept;
  /// A KV cache output's dense copy (shardc_output), made on request: the
  /// buffer itself is laid out for the bounds.
  mutable std::vector<std::vector<char>> packed;
  /// The value of each dynamic dim (Plan::dims) in the current or last run,
  /// the bounds before the first: what ctx.dims points at.
  std::vector<int64_t> dims;
  bool ran = false;
  // Set while tracing (shardc_set_trace); kept after for shardc_write_trace.
  std::unique_ptr<shardc::rt::TraceSink> trace;
  bool tracing = false;
};

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" const char *shardc_last_error(void) { return lastError.c_str(); }

extern "C" size_t shardc_dtype_size(int32_t dtype) {
  return fmt::dtypeSize(dtype);
}

extern "C" const char *shardc_dtype_name(int32_t dtype) {
  return fmt::dtypeName(dtype);
}

namespace {

/// Checks that the program has exactly the code its plan's target mask
/// lists, with entry points for every rank.
shardc_status checkCode(const shardc_program *program, const fmt::Plan &plan) {
  const uint32_t known = fmt::kTargetCpu | fmt::kTargetCuda;
  if (plan.target == 0 || (plan.target & ~known))
    return fail(SHARDC_ERROR_FORMAT,
                "the plan's target mask is " + std::to_string(plan.target) +
                    "; this runtime runs cpu (1) and cuda (2) code (rebuild "
                    "the model with this shardc)");
  struct Code {
    uint32_t bit;
    const char *name;
    bool present;
    bool (*hasEntry)(const shardc_program *, uint32_t);
  };
  const Code codes[] = {
      {fmt::kTargetCpu, "CPU", program->ranks != nullptr,
       [](const shardc_program *p, uint32_t r) {
         return p->ranks[r].init && p->ranks[r].run;
       }},
      {fmt::kTargetCuda, "CUDA", program->cuda_ranks != nullptr,
       [](const shardc_program *p, uint32_t r) {
         return p->cuda_ranks[r].init && p->cuda_ranks[r].run;
       }},
  };
  for (const Code &c : codes) {
    bool listed = (plan.target & c.bit) != 0;
    if (listed != c.present)
      return fail(SHARDC_ERROR_FORMAT,
                  std::string(listed ? "the plan lists " : "the program has ") +
                      c.name + " code " +
                      (listed ? "the program does not have"
                              : "its plan does not list"));
    for (uint32_t r = 0; listed && r < plan.worldSize; ++r)
      if (!c.hasEntry(program, r))
        return fail(SHARDC_ERROR_FORMAT,
                    std::string("program has no ") + c.name +
                        " entry points for rank " + std::to_string(r));
  }
  std::string error;
  if (program->cuda_ranks &&
      !shardc::rt::cuda::validateCudaCode(*program, error))
    return fail(SHARDC_ERROR_FORMAT, error);
  return SHARDC_OK;
}

shardc_status decodeProgram(const shardc_program *program, fmt::Plan &plan) {
  if (!program)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no program given");
  if (program->abi_version != SC_ABI_VERSION)
    return fail(SHARDC_ERROR_FORMAT,
                "program ABI version " + std::to_string(program->abi_version) +
                    ", this runtime runs " + std::to_string(SC_ABI_VERSION) +
                    " (rebuild the model with this shardc)");
  std::string error;
  if (!fmt::decodePlan(program->plan, program->plan_size, plan, error))
    return fail(SHARDC_ERROR_FORMAT, error);
  if (program->num_ranks != plan.worldSize)
    return fail(SHARDC_ERROR_FORMAT, "program has " +
                                         std::to_string(program->num_ranks) +
                                         " rank entry points, its plan " +
                                         std::to_string(plan.worldSize));
  return checkCode(program, plan);
}

shardc_status mapWeights(const char *path, Mapping &map) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
  // below as not a regular file).
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail(SHARDC_ERROR_IO, std::string("cannot open weights file '") +
                                     path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return fail(SHARDC_ERROR_IO, std::string("cannot read weights file '") +
                                     path + "': " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(
        SHARDC_ERROR_IO,
        std::string("cannot read weights file '") + path + "': " +
            (S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file"));
  }
  map.size = static_cast<size_t>(st.st_size);
  if (map.size == 0) {
    ::close(fd);
    return SHARDC_OK; // validateWeights reports the empty file
  }
  void *base = ::mmap(nullptr, map.size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  if (base == MAP_FAILED) {
    ::close(fd);
    return fail(SHARDC_ERROR_IO, std::string("cannot map weights file '") +
                                     path + "': " + std::strerror(e));
  }
  map.base = base;
  map.fd = fd;
  return SHARDC_OK;
}

/// The section `s` of the mapped weights file `file` as one range of
/// memory in `out`: its shared head's and its tail's pages mapped side by
/// side (no copy; format.h aligns both to kShareAlign), or, where the page
/// size does not divide that, a read-only copy.
shardc_status composeSection(const Mapping &file, const fmt::SectionEntry &s,
                             const char *path, Mapping &out) {
  auto mapFailed = [&](int e) {
    return fail(SHARDC_ERROR_IO, std::string("cannot map weights file '") +
                                     path + "': " + std::strerror(e));
  };
  void *area =
      ::mmap(nullptr, s.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    return mapFailed(errno);
  out.base = area;
  out.size = s.size;
  char *at = static_cast<char *>(area);
  const char *data = static_cast<const char *>(file.base);
  long page = ::sysconf(_SC_PAGESIZE);
  if (page > 0 && fmt::kShareAlign % static_cast<uint64_t>(page) == 0) {
    auto place = [&](char *to, uint64_t n, uint64_t offset) {
      return n == 0 ||
             ::mmap(to, n, PROT_READ, MAP_PRIVATE | MAP_FIXED, file.fd,
                    static_cast<off_t>(offset)) != MAP_FAILED;
    };
    if (!place(at, s.sharedBytes, s.sharedOffset) ||
        !place(at + s.sharedBytes, s.tailBytes(), s.offset))
      return mapFailed(errno);
    return SHARDC_OK;
  }
  if (::mprotect(area, s.size, PROT_READ | PROT_WRITE) != 0)
    return mapFailed(errno);
  std::memcpy(at, data + s.sharedOffset, s.sharedBytes);
  std::memcpy(at + s.sharedBytes, data + s.offset, s.tailBytes());
  if (::mprotect(area, s.size, PROT_READ) != 0)
    return mapFailed(errno);
  return SHARDC_OK;
}

/// Opens the rank on `device`. AUTO prefers the GPU; when it is unusable
/// and the program has CPU code, the reason is kept for
/// shardc_fallback_reason.
shardc_status openDevice(shardc_model &model, const RankCode &code,
                         shardc_device device) {
  const bool hasCpu = model.plan.target & fmt::kTargetCpu;
  const bool hasCuda = model.plan.target & fmt::kTargetCuda;
  Status status;
  switch (device) {
  case SHARDC_DEVICE_CPU:
    if (!hasCpu)
      return fail(SHARDC_ERROR_UNSUPPORTED,
                  "this executable has no CPU code (it was compiled for cuda)");
    status = shardc::rt::openCpuDevice(code, model.device);
    break;
  case SHARDC_DEVICE_CUDA:
    if (!hasCuda)
      return fail(SHARDC_ERROR_UNSUPPORTED,
                  "this executable has no CUDA code (it was compiled for cpu)");
    status = shardc::rt::openCudaDevice(code, model.device);
    break;
  case SHARDC_DEVICE_AUTO:
    if (hasCuda) {
      status = shardc::rt::openCudaDevice(code, model.device);
      if (!status.failed() || !hasCpu)
        break;
      model.fallbackReason = status.message;
    }
    status = shardc::rt::openCpuDevice(code, model.device);
    break;
  default:
    return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                "unknown device " + std::to_string(static_cast<int>(device)));
  }
  return status.failed() ? fail(status) : SHARDC_OK;
}

/// The user's signatures and, for M > 1 micro-batches, the staging buffers
/// of the batched inputs and outputs; every output must then be batched.
shardc_status prepareMicrobatches(shardc_model &model) {
  const uint32_t m = model.plan.microbatches;
  const fmt::RankPlan &rp = *model.rp;
  for (const fmt::TensorSig &s : rp.outputs)
    if (m > 1 && !s.batched)
      return fail(SHARDC_ERROR_FORMAT,
                  "output '" + s.name + "' is not batched but the plan has " +
                      std::to_string(m) + " micro-batches");
  auto stage = [&](const std::vector<fmt::TensorSig> &sigs,
                   std::vector<fmt::TensorSig> &user,
                   std::vector<Staging> &staging,
                   const char *what) -> shardc_status {
    staging.resize(sigs.size());
    for (size_t i = 0; i < sigs.size(); ++i) {
      user.push_back(sigs[i].userSig(m, model.plan.batchItems));
      if (m > 1 && sigs[i].batched && !staging[i].allocate(user[i].bytes()))
        return fail(SHARDC_ERROR_RUNTIME,
                    "cannot allocate " + std::to_string(user[i].bytes()) +
                        " bytes for the " + std::to_string(m) +
                        " micro-batches of " + what + " '" + sigs[i].name +
                        "'");
    }
    return SHARDC_OK;
  };
  if (shardc_status s =
          stage(rp.inputs, model.inputs, model.inputStaging, "input"))
    return s;
  return stage(rp.outputs, model.outputs, model.outputStaging, "output");
}

shardc_status load(const shardc_program *program, const char *weightsPath,
                   int rank, shardc_device device, shardc_model **out) {
  if (!out)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no output model pointer");
  *out = nullptr;
  if (!weightsPath)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no weights path given");
  auto model = std::make_unique<shardc_model>();
  if (shardc_status s = decodeProgram(program, model->plan))
    return s;
  const fmt::Plan &plan = model->plan;
  // The world: from the launcher (mpirun) for a multi-rank program, the
  // self communicator for one rank.
  if (rank == SHARDC_RANK_FROM_LAUNCHER) {
    if (plan.worldSize == 1) {
      model->worldComm = shardc::rt::createSelfComm();
    } else {
      if (!program->world)
        return fail(SHARDC_ERROR_FORMAT,
                    "the program has " + std::to_string(plan.worldSize) +
                        " ranks but no way to reach them (no world "
                        "communicator)");
      std::string message;
      sc_comm *world = nullptr;
      if (shardc::rt::failedIn([&] { world = program->world(); }, message) ||
          !world)
        return fail(SHARDC_ERROR_RUNTIME,
                    message.empty() ? "cannot start MPI" : message);
      model->worldComm.reset(world->impl);
      delete world;
    }
    if (static_cast<uint32_t>(model->worldComm->size()) != plan.worldSize)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "this executable is partitioned for " +
                      std::to_string(plan.worldSize) +
                      " ranks but was started with " +
                      std::to_string(model->worldComm->size()) +
                      " (run it as mpirun -np " +
                      std::to_string(plan.worldSize) + " ...)");
    rank = model->worldComm->rank();
  }
  if (rank < 0 || static_cast<uint32_t>(rank) >= plan.worldSize)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                "rank " + std::to_string(rank) +
                    " is out of range (world size " +
                    std::to_string(plan.worldSize) + ")");
  model->rp = &plan.ranks[rank];

  if (shardc_status s = mapWeights(weightsPath, model->weights))
    return s;
  std::string error;
  if (!fmt::validateWeights(model->weights.base, model->weights.size, plan,
                            error, rank))
    return fail(SHARDC_ERROR_FORMAT, std::string(weightsPath) + ": " + error);
  // A one-rank world has the self communicator. A rank of a larger one
  // named explicitly loads (the plan and its section are checked) without
  // communicators: only a launcher gives it peers.
  if (!model->worldComm && plan.worldSize == 1)
    model->worldComm = shardc::rt::createSelfComm();
  if (program->num_mesh_axes > 16 ||
      (program->num_mesh_axes && !program->mesh_shape))
    return fail(SHARDC_ERROR_FORMAT,
                "the program's mesh has " +
                    std::to_string(program->num_mesh_axes) +
                    " axes and no valid shape");
  if (model->worldComm)
    model->world.impl = model->worldComm.get();
  if (model->worldComm && program->num_mesh_axes) {
    std::vector<int64_t> shape(program->mesh_shape,
                               program->mesh_shape + program->num_mesh_axes);
    if (shardc::rt::Status st =
            model->worldComm->splitMesh(shape, model->axisComms);
        st.failed())
      return fail(SHARDC_ERROR_FORMAT, "the program's mesh: " + st.message);
    for (auto &c : model->axisComms)
      model->axisHandles.push_back(sc_comm{c.get()});
    for (sc_comm &h : model->axisHandles)
      model->axisPtrs.push_back(&h);
  }
  model->ctx.rank = rank;
  model->ctx.world_size = static_cast<int32_t>(plan.worldSize);
  model->ctx.num_axes = static_cast<int32_t>(model->axisPtrs.size());
  model->ctx.comms = model->axisPtrs.empty() ? nullptr : model->axisPtrs.data();
  model->ctx.world = model->worldComm ? &model->world : nullptr;
  model->ctx.stream = nullptr;
  model->dims = plan.dimBounds();
  model->ctx.dims = model->dims.empty() ? nullptr : model->dims.data();
  model->ctx.num_dims = static_cast<int32_t>(model->dims.size());
  RankCode code;
  code.program = program;
  code.rank = rank;
  code.localRank = model->worldComm ? model->worldComm->localRank() : 0;
  code.ctx = &model->ctx;
  code.plan = model->rp;
  fmt::SectionEntry section = fmt::weightsSection(model->weights.base, rank);
  code.weights =
      static_cast<const char *>(model->weights.base) + section.offset;
  if (section.sharedBytes) {
    if (shardc_status s = composeSection(model->weights, section, weightsPath,
                                         model->section))
      return s;
    code.weights = static_cast<const char *>(model->section.base);
  }
  model->weights.closeFile(); // the mappings keep the file's pages

  if (shardc_status s = prepareMicrobatches(*model))
    return s;
  if (shardc_status s = openDevice(*model, code, device))
    return s;
  model->bound.assign(model->rp->inputs.size(), false);
  model->kept.assign(model->rp->inputs.size(), false);
  model->packed.resize(model->rp->outputs.size());
  for (const fmt::TensorSig &s : model->inputs)
    model->boundDims.push_back(s.dims);
  *out = model.release();
  return SHARDC_OK;
}

const fmt::TensorSig *findInput(const shardc_model *m, const char *name,
                                size_t &index) {
  for (size_t i = 0; i < m->inputs.size(); ++i)
    if (m->inputs[i].name == name) {
      index = i;
      return &m->inputs[i];
    }
  return nullptr;
}

void fillInfo(const fmt::TensorSig &s, shardc_tensor_info *info) {
  info->name = s.name.c_str();
  info->dtype = s.dtype;
  info->rank = static_cast<int32_t>(s.dims.size());
  info->dims = s.dims.data();
  info->bytes = static_cast<size_t>(s.bytes());
}

} // namespace

extern "C" shardc_status shardc_load(const shardc_program *program,
                                     const char *weights_path, int rank,
                                     shardc_model **out) {
  return shardc_load_on(program, weights_path, rank, SHARDC_DEVICE_AUTO, out);
}

extern "C" shardc_status shardc_load_on(const shardc_program *program,
                                        const char *weights_path, int rank,
                                        shardc_device device,
                                        shardc_model **out) {
  return guarded(
      [&] { return load(program, weights_path, rank, device, out); });
}

extern "C" void shardc_free(shardc_model *model) { delete model; }

extern "C" const char *shardc_device_description(const shardc_model *model) {
  return model ? model->device->description().c_str() : "";
}

extern "C" const char *shardc_fallback_reason(const shardc_model *model) {
  return model ? model->fallbackReason.c_str() : "";
}

extern "C" int shardc_rank(const shardc_model *model) {
  return model ? model->ctx.rank : -1;
}

extern "C" int shardc_world_size(const shardc_program *program) {
  int worldSize = -1;
  guarded([&] {
    fmt::Plan plan;
    shardc_status s = decodeProgram(program, plan);
    if (s == SHARDC_OK)
      worldSize = static_cast<int>(plan.worldSize);
    return s;
  });
  return worldSize;
}

extern "C" int shardc_num_inputs(const shardc_model *model) {
  return model ? static_cast<int>(model->rp->inputs.size()) : 0;
}

extern "C" int shardc_num_outputs(const shardc_model *model) {
  return model ? static_cast<int>(model->rp->outputs.size()) : 0;
}

namespace {
/// Refuses input or output index `index` of `count` in one line.
shardc_status checkIndex(const char *kind, int index, size_t count) {
  if (index >= 0 && static_cast<size_t>(index) < count)
    return SHARDC_OK;
  return fail(SHARDC_ERROR_INVALID_ARGUMENT,
              std::string(kind) + " index " + std::to_string(index) +
                  " is out of range (" + std::to_string(count) + " " + kind +
                  "s)");
}
} // namespace

extern "C" shardc_status shardc_input_info(const shardc_model *model, int index,
                                           shardc_tensor_info *info) {
  return guarded([&]() -> shardc_status {
    if (!model || !info)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or info given");
    if (shardc_status s = checkIndex("input", index, model->rp->inputs.size()))
      return s;
    fillInfo(model->inputs[index], info);
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_output_info(const shardc_model *model,
                                            int index,
                                            shardc_tensor_info *info) {
  return guarded([&]() -> shardc_status {
    if (!model || !info)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or info given");
    if (shardc_status s =
            checkIndex("output", index, model->rp->outputs.size()))
      return s;
    fillInfo(model->outputs[index], info);
    return SHARDC_OK;
  });
}

namespace {
/// Copies a tensor of `dims` held densely at `fromDims` (row-major) into a
/// buffer laid out at `toDims` (each >= dims): a KV cache's past into its
/// output's buffer, laid out for the bounds, and back.
void copyDims(const char *from, const std::vector<int64_t> &dims,
              const std::vector<int64_t> &fromDims, char *to,
              const std::vector<int64_t> &toDims, size_t elem) {
  if (dims.empty()) {
    std::memcpy(to, from, elem);
    return;
  }
  size_t last = dims.size() - 1;
  int64_t rows = 1;
  for (size_t d = 0; d < last; ++d)
    rows *= dims[d];
  size_t row = static_cast<size_t>(dims[last]) * elem;
  for (int64_t r = 0; r < rows && row; ++r) {
    // Row r's offsets: its index over dims[0..last) at each layout's
    // row-major strides.
    int64_t rest = r, f = 0, t = 0, fs = fromDims[last], ts = toDims[last];
    for (size_t d = last; d-- > 0;) {
      int64_t i = rest % dims[d];
      rest /= dims[d];
      f += i * fs;
      t += i * ts;
      fs *= fromDims[d];
      ts *= toDims[d];
    }
    std::memcpy(to + t * elem, from + f * elem, row);
  }
}
} // namespace

extern "C" shardc_status shardc_input_cache(const shardc_model *model,
                                            int index, int64_t *output,
                                            int64_t *axis) {
  return guarded([&]() -> shardc_status {
    if (!model || !output || !axis)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or result pointer");
    if (shardc_status s = checkIndex("input", index, model->rp->inputs.size()))
      return s;
    const fmt::TensorSig &s = model->rp->inputs[index];
    *output = s.cacheOf;
    *axis = s.cacheOf < 0 ? -1 : static_cast<int64_t>(s.cacheAxis);
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_keep_cache(shardc_model *model, int64_t past) {
  return guarded([&]() -> shardc_status {
    if (!model)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model given");
    bool any = false;
    for (size_t i = 0; i < model->inputs.size(); ++i) {
      const fmt::TensorSig &s = model->rp->inputs[i];
      if (s.cacheOf < 0)
        continue;
      any = true;
      // What the output holds: the last run's present (nothing before one).
      std::vector<int64_t> held = model->outputs[s.cacheOf].dims;
      int64_t length = model->ran ? held[s.cacheAxis] : 0;
      if (past < 0 || past > length)
        return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                    "shardc_keep_cache: past " + std::to_string(past) +
                        " is not within the " + std::to_string(length) +
                        " entries the cache of input '" + s.name + "' holds");
      held[s.cacheAxis] = past;
      model->boundDims[i] = held;
      model->kept[i] = true;
      model->bound[i] = true;
    }
    if (!any)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "shardc_keep_cache: the model has no KV cache inputs "
                  "(compile a decoder exported with past_key_values)");
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_bind_input(shardc_model *model,
                                           const char *name, int32_t dtype,
                                           int32_t rank, const int64_t *dims,
                                           const void *data, size_t bytes) {
  return guarded([&]() -> shardc_status {
    if (!model || !name)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "no model or input name given");
    size_t index = 0;
    const fmt::TensorSig *sig = findInput(model, name, index);
    if (!sig) {
      std::string names;
      for (const fmt::TensorSig &s : model->inputs)
        names += (names.empty() ? "'" : ", '") + s.name + "'";
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("no input named '") + name +
                      "'; the inputs are " + (names.empty() ? "none" : names));
    }
    if (rank < 0 || (rank > 0 && !dims))
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("input '") + name + "': bad rank or dims");
    const std::vector<fmt::PlanDim> &planDims = model->plan.dims;
    bool same =
        dtype == sig->dtype && static_cast<size_t>(rank) == sig->dims.size();
    for (int32_t i = 0; same && i < rank; ++i)
      same = sig->sym(i) >= 0 || dims[i] == sig->dims[i];
    if (!same)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("input '") + name + "': expected " +
                      sig->str(planDims) + ", got " +
                      fmt::formatSig(dtype, dims, static_cast<size_t>(rank)));
    // Dynamic dims: within their bounds, and one value for each.
    for (int32_t i = 0; i < rank; ++i) {
      int32_t k = sig->sym(i);
      if (k < 0)
        continue;
      const fmt::PlanDim &d = planDims[k];
      std::string what = std::string("input '") + name + "': dim " +
                         std::to_string(i) + " ('" + d.name + "') is " +
                         std::to_string(dims[i]);
      if (dims[i] < d.min)
        return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                    what + "; it takes " + std::to_string(d.min) + " to " +
                        std::to_string(d.max));
      if (dims[i] > d.max)
        return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                    what + ", beyond its bound " + std::to_string(d.max));
      for (int32_t j = 0; j < i; ++j)
        if (sig->sym(j) == k && dims[j] != dims[i])
          return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                      what + " but dim " + std::to_string(j) + " gives " +
                          std::to_string(dims[j]));
    }
    fmt::TensorSig given = *sig;
    given.dims.assign(dims, dims + rank);
    if (bytes != given.bytes())
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("input '") + name + "': expected " +
                      std::to_string(given.bytes()) + " bytes of data for " +
                      given.str() + ", got " + std::to_string(bytes));
    if (bytes && !data)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("input '") + name + "': no data given");
    Staging &staging = model->inputStaging[index];
    if (sig->cacheOf >= 0) {
      // A KV cache's past: into its output's buffer, at its strides.
      const fmt::TensorSig &out = model->rp->outputs[sig->cacheOf];
      copyDims(static_cast<const char *>(data), given.dims, given.dims,
               // The output buffer is the device's; the program reads the
               // past from it.
               const_cast<char *>(static_cast<const char *>(
                   model->device->output(sig->cacheOf))),
               out.dims, fmt::dtypeSize(sig->dtype));
      model->kept[index] = false;
    } else if (bytes) {
      std::memcpy(staging.data ? staging.data : model->device->input(index),
                  data, bytes);
    }
    model->bound[index] = true;
    model->boundDims[index] = std::move(given.dims);
    return SHARDC_OK;
  });
}

namespace {
/// Micro-batch `k` of the run: the batched inputs' block k in, the device's
/// run (a "microbatch k" trace event), the outputs' block k out.
Status runMicrobatch(shardc_model &model, uint32_t k) {
  const fmt::RankPlan &rp = *model.rp;
  const fmt::Plan &plan = model.plan;
  // Even micro-batches are consecutive blocks; a batch they do not divide
  // (Plan::batchItems) gives block k its share of the items, padded to
  // `per` with copies of its last item (of the batch's last for an empty
  // share), and only the share's rows of each output are read back.
  int64_t per = 0, first = 0, count = 0;
  if (plan.batchItems) {
    per = fmt::itemsPerMicrobatch(plan.batchItems, plan.microbatches);
    std::tie(first, count) =
        fmt::microbatchShare(plan.batchItems, plan.microbatches, k);
  }
  for (size_t i = 0; i < rp.inputs.size(); ++i)
    if (const char *all = model.inputStaging[i].data) {
      uint64_t block = rp.inputs[i].bytes();
      char *to = static_cast<char *>(model.device->input(i));
      if (!per) {
        std::memcpy(to, all + k * block, block);
        continue;
      }
      uint64_t item = block / static_cast<uint64_t>(per);
      std::memcpy(to, all + first * item, count * item);
      int64_t last = count ? first + count - 1 : plan.batchItems - 1;
      for (int64_t j = count; j < per; ++j)
        std::memcpy(to + j * item, all + last * item, item);
    }
  shardc::rt::TraceSink *trace = model.tracing ? model.trace.get() : nullptr;
  int64_t start = trace ? shardc::rt::TraceSink::now() : 0;
  Status s = model.device->run();
  if (trace)
    trace->add({"microbatch", "compute", start, shardc::rt::TraceSink::now(),
                -1, -1, static_cast<int32_t>(k)});
  if (s.failed())
    return s;
  for (size_t i = 0; i < rp.outputs.size(); ++i)
    if (char *all = model.outputStaging[i].data) {
      uint64_t block = rp.outputs[i].bytes();
      const char *from = static_cast<const char *>(model.device->output(i));
      if (!per) {
        std::memcpy(all + k * block, from, block);
        continue;
      }
      uint64_t item = block / static_cast<uint64_t>(per);
      std::memcpy(all + first * item, from, count * item);
    }
  return {};
}

/// The value of each dynamic dim in the next run, from the bound inputs:
/// the first (in input order) that has the dim gives it, and every other
/// must agree.
shardc_status runDims(const shardc_model &model, std::vector<int64_t> &values) {
  const std::vector<fmt::PlanDim> &planDims = model.plan.dims;
  values.assign(planDims.size(), 0);
  std::vector<size_t> from(planDims.size(), 0);
  std::vector<bool> known(planDims.size(), false);
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    const fmt::TensorSig &s = model.inputs[i];
    for (size_t d = 0; d < s.dims.size(); ++d) {
      int32_t k = s.sym(d);
      // A sum is checked below; a kept cache gives only its length.
      if (k < 0 || !planDims[k].parts.empty() ||
          (model.kept[i] && d != s.cacheAxis))
        continue;
      int64_t v = model.boundDims[i][d];
      if (!known[k]) {
        values[k] = v;
        from[k] = i;
        known[k] = true;
      } else if (values[k] != v) {
        return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                    "input '" + s.name + "': dim " + std::to_string(d) + " ('" +
                        planDims[k].name + "') is " + std::to_string(v) +
                        " but input '" + model.inputs[from[k]].name +
                        "' gives " + std::to_string(values[k]));
      }
    }
  }
  // Sums of dims (a KV cache's past + sequence) and the inputs that have
  // them; a kept cache's other dims are those it was kept from.
  for (size_t k = 0; k < planDims.size(); ++k)
    for (uint32_t part : planDims[k].parts)
      values[k] += values[part];
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    const fmt::TensorSig &s = model.inputs[i];
    for (size_t d = 0; d < s.dims.size(); ++d) {
      int32_t k = s.sym(d);
      if (k < 0)
        continue;
      int64_t v = model.boundDims[i][d];
      if (model.kept[i] && d != s.cacheAxis) {
        if (model.boundDims[i][s.cacheAxis] > 0 && v != values[k])
          return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                      "input '" + s.name + "': the kept cache has dim " +
                          std::to_string(d) + " ('" + planDims[k].name + "') " +
                          std::to_string(v) + " but this run's is " +
                          std::to_string(values[k]));
        continue;
      }
      if (!planDims[k].parts.empty() && v != values[k])
        return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                    "input '" + s.name + "': dim " + std::to_string(d) + " ('" +
                        planDims[k].name + "') is " + std::to_string(v) +
                        " but the dims it sums give " +
                        std::to_string(values[k]));
    }
  }
  return SHARDC_OK;
}

/// With several ranks, every rank must run at the same dynamic dims (each
/// sets ctx->dims from the inputs it bound, and the collectives move the
/// run's counts): the largest and smallest value of each dim over the
/// world must be this rank's. Every rank takes part, also one whose own
/// inputs were refused (`refused`, its status), so that each learns a
/// disagreement alike and fails, and none waits in a collective for the
/// others.
shardc_status agreeDims(shardc_model &model, const std::vector<int64_t> &dims,
                        shardc_status refused) {
  shardc::rt::Communicator *world = model.worldComm.get();
  // NCCL reduces device memory; dynamic dims reach the CPU target only.
  if (model.plan.dims.empty() || !world || world->size() < 2 ||
      std::strcmp(world->backend(), "nccl") == 0)
    return refused;
  // The dims, then whether this rank refused its inputs.
  std::vector<int64_t> most(dims);
  most.resize(model.plan.dims.size(), 0);
  most.push_back(refused != SHARDC_OK);
  std::vector<int64_t> least(most);
  for (auto [values, op] : {std::pair{&most, shardc::rt::ReduceOp::Max},
                            std::pair{&least, shardc::rt::ReduceOp::Min}})
    if (Status s = world->allReduce(values->data(), values->data(),
                                    values->size(), fmt::kI64, op, nullptr);
        s.failed())
      return fail(s);
  if (refused != SHARDC_OK)
    return refused;
  if (most.back())
    return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                "another rank's inputs were refused (its message says why)");
  for (size_t k = 0; k < dims.size(); ++k)
    if (most[k] != least[k])
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "dim '" + model.plan.dims[k].name + "' is " +
                      std::to_string(dims[k]) + " on rank " +
                      std::to_string(world->rank()) +
                      " but the ranks bound from " + std::to_string(least[k]) +
                      " to " + std::to_string(most[k]) +
                      ": every rank must bind inputs of the same shape");
  return SHARDC_OK;
}

shardc_status run(shardc_model *model) {
  if (!model)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model given");
  // An unbound input still takes part in the agreement below: the other
  // ranks would wait in it for this one.
  shardc_status bound = SHARDC_OK;
  for (size_t i = 0; i < model->bound.size() && bound == SHARDC_OK; ++i)
    if (!model->bound[i])
      bound = fail(SHARDC_ERROR_INVALID_ARGUMENT,
                   "input '" + model->rp->inputs[i].name + "' is not bound");
  std::vector<int64_t> dims;
  if (bound == SHARDC_OK)
    bound = runDims(*model, dims);
  if (shardc_status s = agreeDims(*model, dims, bound))
    return s;
  // In place: ctx.dims and the output infos' dims point into these.
  std::copy(dims.begin(), dims.end(), model->dims.begin());
  model->ran = false;
  for (uint32_t k = 0; k < model->plan.microbatches; ++k)
    if (Status s = runMicrobatch(*model, k); s.failed())
      return fail(s);
  // Sends still in flight (pipeline stages) finish before the run does.
  for (auto &c : model->axisComms)
    if (Status s = c->flush(); s.failed())
      return fail(s);
  if (model->worldComm)
    if (Status s = model->worldComm->flush(); s.failed())
      return fail(s);
  // The outputs have the run's shape.
  for (size_t i = 0; i < model->outputs.size(); ++i)
    if (const fmt::TensorSig &s = model->rp->outputs[i]; s.dynamic()) {
      fmt::TensorSig now = s.withDims(model->dims);
      std::copy(now.dims.begin(), now.dims.end(),
                model->outputs[i].dims.begin());
    }
  model->ran = true;
  return SHARDC_OK;
}
} // namespace

extern "C" shardc_status shardc_run(shardc_model *model) {
  shardc::rt::routingStartRun();
  return guarded([&] { return run(model); });
}

extern "C" shardc_status shardc_set_routing_stats(int enable) {
  shardc::rt::routingEnable(enable != 0);
  return SHARDC_OK;
}

extern "C" shardc_status shardc_write_routing_stats(const char *path) {
  return guarded([&]() -> shardc_status {
    if (!path || !*path)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no file name given");
    shardc::rt::Status s = shardc::rt::routingWrite(path);
    if (s.failed())
      return fail(s.code, s.message);
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_output(const shardc_model *model, int index,
                                       const void **data, size_t *bytes) {
  return guarded([&]() -> shardc_status {
    if (!model || !data || !bytes)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or result pointer");
    if (shardc_status s =
            checkIndex("output", index, model->rp->outputs.size()))
      return s;
    if (!model->ran)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "no output yet: the model has not run successfully");
    const Staging &staging = model->outputStaging[index];
    *data = staging.data ? staging.data : model->device->output(index);
    *bytes = static_cast<size_t>(model->outputs[index].bytes());
    for (const fmt::TensorSig &in : model->rp->inputs)
      if (in.cacheOf == index) {
        // A KV cache: its dense copy.
        const fmt::TensorSig &now = model->outputs[index];
        std::vector<char> &dense = model->packed[index];
        dense.resize(*bytes);
        copyDims(static_cast<const char *>(*data), now.dims,
                 model->rp->outputs[index].dims, dense.data(), now.dims,
                 fmt::dtypeSize(now.dtype));
        *data = dense.data();
        break;
      }
    return SHARDC_OK;
  });
}

//===----------------------------------------------------------------------===//
// Trace
//===----------------------------------------------------------------------===//

namespace {

/// Points the model's communicators at its sink while tracing, else at
/// none.
void attachTrace(shardc_model &model, bool on) {
  shardc::rt::TraceSink *sink = on ? model.trace.get() : nullptr;
  for (auto &c : model.axisComms)
    c->setTrace(sink);
  if (model.worldComm)
    model.worldComm->setTrace(sink);
}

shardc_status writeTrace(shardc_model &model, const char *path) {
  using shardc::rt::TraceSink;
  const TraceSink empty;
  const TraceSink &sink = model.trace ? *model.trace : empty;
  shardc::rt::Communicator *world = model.worldComm.get();
  const bool gather = world && world->size() > 1;
  // Gathering the trace is not part of it.
  attachTrace(model, false);
  struct Reattach {
    shardc_model &m;
    ~Reattach() { attachTrace(m, m.tracing); }
  } reattach{model};

  // Every rank's times count from the earliest event of any rank.
  int64_t origin = sink.earliest();
  if (gather)
    if (Status s = world->allReduce(&origin, &origin, 1, fmt::kI64,
                                    shardc::rt::ReduceOp::Min, nullptr);
        s.failed())
      return fail(s.code, "cannot gather the trace: " + s.message);
  if (origin == INT64_MAX)
    origin = 0;
  const int rank = model.ctx.rank;
  std::string mine =
      sink.json(rank,
                "rank " + std::to_string(rank) + " (stage " +
                    std::to_string(model.rp->stage) + ")",
                origin);
  std::vector<std::string> fragments;
  if (gather) {
    // The sizes, then every rank's text padded to the longest.
    const size_t n = static_cast<size_t>(world->size());
    uint64_t length = mine.size();
    std::vector<uint64_t> lengths(n);
    if (Status s = world->allGather(&length, lengths.data(), 1, fmt::kU64,
                                    nullptr);
        s.failed())
      return fail(s.code, "cannot gather the trace: " + s.message);
    uint64_t longest = 0;
    for (uint64_t l : lengths)
      longest = l > longest ? l : longest;
    if (longest > static_cast<uint64_t>(INT32_MAX) / n)
      return fail(SHARDC_ERROR_UNSUPPORTED,
                  "the trace is too large to gather (" +
                      std::to_string(longest) + " bytes on one rank)");
    mine.resize(static_cast<size_t>(longest), ' ');
    std::vector<char> all(static_cast<size_t>(longest) * n);
    if (Status s = world->allGather(mine.data(), all.data(), longest,
                                    fmt::kU8, nullptr);
        s.failed())
      return fail(s.code, "cannot gather the trace: " + s.message);
    if (world->rank() != 0)
      return SHARDC_OK; // world rank 0 writes the file
    for (size_t j = 0; j < n; ++j)
      fragments.emplace_back(all.data() + j * longest,
                             static_cast<size_t>(lengths[j]));
  } else {
    fragments.push_back(std::move(mine));
  }
  std::string text = shardc::rt::traceDocument(fragments);
  std::FILE *f = std::fopen(path, "wb");
  if (!f)
    return fail(SHARDC_ERROR_IO, std::string("cannot write trace file '") +
                                     path + "': " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int e = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok)
    return fail(SHARDC_ERROR_IO, std::string("cannot write trace file '") +
                                     path + "': " + std::strerror(e ? e : errno));
  return SHARDC_OK;
}

} // namespace

extern "C" shardc_status shardc_barrier(shardc_model *model) {
  return guarded([&]() -> shardc_status {
    if (!model)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model given");
    shardc::rt::Communicator *world = model->worldComm.get();
    if (!world || world->size() == 1)
      return SHARDC_OK;
    int32_t token = 0;
    if (Status s = world->allReduce(&token, &token, 1, fmt::kI32,
                                    shardc::rt::ReduceOp::Sum, nullptr);
        s.failed())
      return fail(s.code, "barrier: " + s.message);
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_broadcast(shardc_model *model, int root,
                                          void *data, size_t bytes) {
  return guarded([&]() -> shardc_status {
    if (!model || (bytes && !data))
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or data given");
    shardc::rt::Communicator *world = model->worldComm.get();
    int size = world ? world->size() : 1;
    if (root < 0 || root >= size)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "broadcast from rank " + std::to_string(root) + " of " +
                      std::to_string(size));
    if (size == 1 || bytes == 0)
      return SHARDC_OK;
    // A sum in which every other rank adds zeros: the root's bytes, exactly
    // (the communicators have no broadcast of their own).
    if (world->rank() != root)
      std::memset(data, 0, bytes);
    if (Status s = world->allReduce(data, data, bytes, fmt::kU8,
                                    shardc::rt::ReduceOp::Sum, nullptr);
        s.failed())
      return fail(s.code, "broadcast: " + s.message);
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_generate(shardc_model *model,
                                         const shardc_generate_options *o,
                                         const int64_t *prompt, int64_t batch,
                                         int64_t length, const int64_t *mask,
                                         int64_t *ids) {
  return guarded([&]() -> shardc_status {
    if (!model || !o || !prompt || !ids)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "no model, options, prompt or ids given");
    if (batch < 1 || length < 1 || o->tokens < 1 || o->top_k < 0 ||
        !(o->temperature >= 0) || !(o->top_p > 0 && o->top_p <= 1) ||
        batch > (int64_t(1) << 24) || length > (int64_t(1) << 24) ||
        o->tokens > (int64_t(1) << 24))
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "generate: batch " + std::to_string(batch) + ", length " +
                      std::to_string(length) + ", tokens " +
                      std::to_string(o->tokens) +
                      " (each at least 1), temperature >= 0, top_k >= 0 and "
                      "top_p in (0, 1] needed");
    shardc::rt::GenerateOptions g;
    g.tokens = o->tokens;
    g.temperature = o->temperature;
    g.topK = o->top_k;
    g.topP = o->top_p;
    g.seed = o->seed;
    if (o->has_eos_id)
      g.eosId = o->eos_id;
    if (o->prompt_lengths)
      g.promptLengths.assign(o->prompt_lengths, o->prompt_lengths + batch);
    g.sampler = o->sampler;
    auto tensor = [&](const int64_t *data) {
      shardc::io::Tensor t;
      t.dtype = SHARDC_INT64;
      t.dims = {batch, length};
      t.data.resize(size_t(batch * length) * sizeof(int64_t));
      std::memcpy(t.data.data(), data, t.data.size());
      return t;
    };
    shardc::io::Tensor p = tensor(prompt), m, out;
    if (mask)
      m = tensor(mask);
    std::string error;
    if (!shardc::rt::generate(model, g, p, mask ? &m : nullptr, out, error))
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, error);
    std::memcpy(ids, out.data.data(), out.data.size());
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_set_trace(shardc_model *model, int enable) {
  return guarded([&]() -> shardc_status {
    if (!model)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model given");
    if (enable) {
      if (model->trace)
        model->trace->clear();
      else
        model->trace = std::make_unique<shardc::rt::TraceSink>();
    }
    model->tracing = enable != 0;
    attachTrace(*model, model->tracing);
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_write_trace(shardc_model *model,
                                            const char *path) {
  return guarded([&]() -> shardc_status {
    if (!model || !path)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or path given");
    return writeTrace(*model, path);
  });
}

extern "C" void shardc_set_threads(int threads) {
  if (threads > 0)
    omp_set_num_threads(threads);
}

extern "C" int shardc_default_threads(void) {
  std::string why;
  return shardc::rt::placeThisRank(why);
}
