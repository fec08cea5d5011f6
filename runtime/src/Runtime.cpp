//===- Runtime.cpp - the shardc runtime C API -----------------------------===//
//
// Implements include/shardc/runtime.h: decodes the plan embedded in the
// program, maps and validates the weights file, allocates the arena and the
// input/output buffers, and calls the generated init/run entry points of one
// rank. Also implements sc_fail and sc_handle_free of shardc/cpu.h.
//
// Kernel errors: sc_fail records the first message of a load or run in a
// process-wide slot (kernels call it from OpenMP threads, which carry no
// model); shardc_load and shardc_run clear it before calling generated code
// and turn a recorded message into their status. Loads and runs of different
// models on different threads at the same time share that slot.
//
//===----------------------------------------------------------------------===//
#include "shardc/runtime.h"

#include "runtime/src/Handle.h"
#include "shardc/cpu.h"
#include "shardc/format.h"

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fmt = shardc::format;

namespace {

thread_local std::string lastError;

shardc_status fail(shardc_status status, std::string msg) {
  for (char &c : msg)
    if (c == '\n' || c == '\r')
      c = ' ';
  lastError = std::move(msg);
  return status;
}

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

//===----------------------------------------------------------------------===//
// Kernel failures (sc_fail)
//===----------------------------------------------------------------------===//

std::mutex kernelErrorMutex;
std::atomic<bool> kernelFailed{false};
std::string kernelError;

void clearKernelError() {
  std::lock_guard<std::mutex> lock(kernelErrorMutex);
  kernelFailed.store(false);
  kernelError.clear();
}

bool takeKernelError(std::string &msg) {
  if (!kernelFailed.load())
    return false;
  std::lock_guard<std::mutex> lock(kernelErrorMutex);
  msg = kernelError;
  kernelFailed.store(false);
  kernelError.clear();
  return true;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

struct AlignedBuffer {
  void *ptr = nullptr;
  size_t bytes = 0;

  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  AlignedBuffer(AlignedBuffer &&o) noexcept : ptr(o.ptr), bytes(o.bytes) {
    o.ptr = nullptr;
  }
  ~AlignedBuffer() { std::free(ptr); }

  /// At least 64 bytes, rounded up to 64, zeroed.
  bool allocate(uint64_t n) {
    uint64_t size = fmt::alignUp(n < fmt::kAlign ? fmt::kAlign : n);
    if (size < n || size > SIZE_MAX)
      return false;
    ptr = std::aligned_alloc(fmt::kAlign, static_cast<size_t>(size));
    if (!ptr)
      return false;
    std::memset(ptr, 0, static_cast<size_t>(size));
    bytes = static_cast<size_t>(n);
    return true;
  }
};

struct Mapping {
  void *base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base)
      ::munmap(base, size);
  }
};

} // namespace

struct shardc_model {
  const shardc_program *program = nullptr;
  fmt::Plan plan;
  int rank = 0;
  const fmt::RankPlan *rp = nullptr;
  Mapping weights;
  const char *section = nullptr;
  AlignedBuffer arena;
  std::vector<AlignedBuffer> inputs, outputs;
  std::vector<void *> inputPtrs, outputPtrs;
  std::vector<bool> bound;
  std::vector<void *> handles;
  bool ran = false;

  ~shardc_model() {
    for (void *h : handles)
      if (h)
        sc_handle_free(h);
  }
};

//===----------------------------------------------------------------------===//
// sc_fail / sc_handle_free
//===----------------------------------------------------------------------===//

extern "C" void sc_fail(const char *fmtStr, ...) {
  if (kernelFailed.load())
    return;
  char buf[1024];
  va_list args;
  va_start(args, fmtStr);
  std::vsnprintf(buf, sizeof buf, fmtStr ? fmtStr : "kernel failed", args);
  va_end(args);
  for (char *c = buf; *c; ++c)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  std::lock_guard<std::mutex> lock(kernelErrorMutex);
  if (kernelFailed.load())
    return;
  kernelError = buf;
  kernelFailed.store(true);
}

extern "C" void sc_handle_free(void *handle) {
  delete static_cast<shardc::rt::Handle *>(handle);
}

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
  if (program->num_ranks != plan.worldSize || !program->ranks)
    return fail(SHARDC_ERROR_FORMAT, "program has " +
                                         std::to_string(program->num_ranks) +
                                         " rank entry points, its plan " +
                                         std::to_string(plan.worldSize));
  return SHARDC_OK;
}

shardc_status mapWeights(const char *path, Mapping &map) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
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
  ::close(fd);
  if (base == MAP_FAILED)
    return fail(SHARDC_ERROR_IO, std::string("cannot map weights file '") +
                                     path + "': " + std::strerror(e));
  map.base = base;
  return SHARDC_OK;
}

shardc_status load(const shardc_program *program, const char *weightsPath,
                   int rank, shardc_model **out) {
  if (!out)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no output model pointer");
  *out = nullptr;
  if (!weightsPath)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no weights path given");
  auto model = std::make_unique<shardc_model>();
  if (shardc_status s = decodeProgram(program, model->plan))
    return s;
  const fmt::Plan &plan = model->plan;
  if (rank < 0 || static_cast<uint32_t>(rank) >= plan.worldSize)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                "rank " + std::to_string(rank) +
                    " is out of range (world size " +
                    std::to_string(plan.worldSize) + ")");
  if (plan.target != fmt::kTargetCpu)
    return fail(SHARDC_ERROR_UNSUPPORTED, "the program targets device kind " +
                                              std::to_string(plan.target) +
                                              ", this runtime runs cpu (1)");
  const sc_rank_entry &entry = program->ranks[rank];
  if (!entry.init || !entry.run)
    return fail(SHARDC_ERROR_FORMAT,
                "program has no entry points for rank " + std::to_string(rank));
  model->program = program;
  model->rank = rank;
  model->rp = &plan.ranks[rank];
  const fmt::RankPlan &rp = *model->rp;

  if (shardc_status s = mapWeights(weightsPath, model->weights))
    return s;
  std::string error;
  if (!fmt::validateWeights(model->weights.base, model->weights.size, plan,
                            error, rank))
    return fail(SHARDC_ERROR_FORMAT, std::string(weightsPath) + ": " + error);
  model->section = static_cast<const char *>(model->weights.base) +
                   fmt::weightsSectionOffset(model->weights.base, rank);

  auto alloc = [&](AlignedBuffer &buf, uint64_t bytes,
                   const std::string &what) {
    if (buf.allocate(bytes))
      return true;
    fail(SHARDC_ERROR_RUNTIME,
         "cannot allocate " + std::to_string(bytes) + " bytes for " + what);
    return false;
  };
  if (!alloc(model->arena, rp.arenaBytes, "the arena"))
    return SHARDC_ERROR_RUNTIME;
  model->inputs.resize(rp.inputs.size());
  model->outputs.resize(rp.outputs.size());
  for (size_t i = 0; i < rp.inputs.size(); ++i) {
    if (!alloc(model->inputs[i], rp.inputs[i].bytes(),
               "input '" + rp.inputs[i].name + "'"))
      return SHARDC_ERROR_RUNTIME;
    model->inputPtrs.push_back(model->inputs[i].ptr);
  }
  for (size_t i = 0; i < rp.outputs.size(); ++i) {
    if (!alloc(model->outputs[i], rp.outputs[i].bytes(),
               "output '" + rp.outputs[i].name + "'"))
      return SHARDC_ERROR_RUNTIME;
    model->outputPtrs.push_back(model->outputs[i].ptr);
  }
  // Never hand generated code a null array, even when a list is empty.
  model->inputPtrs.push_back(nullptr);
  model->outputPtrs.push_back(nullptr);
  model->bound.assign(rp.inputs.size(), false);
  model->handles.assign(rp.numHandles + 1, nullptr);

  clearKernelError();
  int rc = entry.init(model->handles.data());
  std::string kernelMsg;
  bool failed = takeKernelError(kernelMsg);
  if (rc != 0 || failed) {
    if (kernelMsg.empty())
      kernelMsg = "initialization failed (code " + std::to_string(rc) + ")";
    return fail(SHARDC_ERROR_UNSUPPORTED, kernelMsg);
  }
  *out = model.release();
  return SHARDC_OK;
}

const fmt::TensorSig *findInput(const shardc_model *m, const char *name,
                                size_t &index) {
  for (size_t i = 0; i < m->rp->inputs.size(); ++i)
    if (m->rp->inputs[i].name == name) {
      index = i;
      return &m->rp->inputs[i];
    }
  return nullptr;
}

void fillInfo(const fmt::TensorSig &s, const AlignedBuffer &buf,
              shardc_tensor_info *info) {
  info->name = s.name.c_str();
  info->dtype = s.dtype;
  info->rank = static_cast<int32_t>(s.dims.size());
  info->dims = s.dims.data();
  info->bytes = buf.bytes;
}

} // namespace

extern "C" shardc_status shardc_load(const shardc_program *program,
                                     const char *weights_path, int rank,
                                     shardc_model **out) {
  return guarded([&] { return load(program, weights_path, rank, out); });
}

extern "C" void shardc_free(shardc_model *model) { delete model; }

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

extern "C" shardc_status shardc_input_info(const shardc_model *model, int index,
                                           shardc_tensor_info *info) {
  return guarded([&]() -> shardc_status {
    if (!model || !info)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or info given");
    if (index < 0 || static_cast<size_t>(index) >= model->rp->inputs.size())
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "input index " + std::to_string(index) +
                      " is out of range (" +
                      std::to_string(model->rp->inputs.size()) + " inputs)");
    fillInfo(model->rp->inputs[index], model->inputs[index], info);
    return SHARDC_OK;
  });
}

extern "C" shardc_status shardc_output_info(const shardc_model *model,
                                            int index,
                                            shardc_tensor_info *info) {
  return guarded([&]() -> shardc_status {
    if (!model || !info)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or info given");
    if (index < 0 || static_cast<size_t>(index) >= model->rp->outputs.size())
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "output index " + std::to_string(index) +
                      " is out of range (" +
                      std::to_string(model->rp->outputs.size()) + " outputs)");
    fillInfo(model->rp->outputs[index], model->outputs[index], info);
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
      for (const fmt::TensorSig &s : model->rp->inputs)
        names += (names.empty() ? "'" : ", '") + s.name + "'";
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("no input named '") + name +
                      "'; the inputs are " + (names.empty() ? "none" : names));
    }
    if (rank < 0 || (rank > 0 && !dims))
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("input '") + name + "': bad rank or dims");
    bool same =
        dtype == sig->dtype && static_cast<size_t>(rank) == sig->dims.size();
    for (int32_t i = 0; same && i < rank; ++i)
      same = dims[i] == sig->dims[i];
    if (!same)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("input '") + name + "': expected " + sig->str() +
                      ", got " +
                      fmt::formatSig(dtype, dims, static_cast<size_t>(rank)));
    if (bytes != sig->bytes())
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("input '") + name + "': expected " +
                      std::to_string(sig->bytes()) + " bytes of data for " +
                      sig->str() + ", got " + std::to_string(bytes));
    if (bytes && !data)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  std::string("input '") + name + "': no data given");
    if (bytes)
      std::memcpy(model->inputs[index].ptr, data, bytes);
    model->bound[index] = true;
    return SHARDC_OK;
  });
}

namespace {
shardc_status run(shardc_model *model) {
  if (!model)
    return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model given");
  for (size_t i = 0; i < model->bound.size(); ++i)
    if (!model->bound[i])
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "input '" + model->rp->inputs[i].name + "' is not bound");
  model->ran = false;
  clearKernelError();
  try {
    model->program->ranks[model->rank].run(
        model->handles.data(), static_cast<char *>(model->arena.ptr),
        model->section, model->inputPtrs.data(), model->outputPtrs.data());
  } catch (const std::exception &e) {
    sc_fail("%s", e.what());
  } catch (...) {
    sc_fail("unknown exception in a kernel");
  }
  std::string msg;
  if (takeKernelError(msg))
    return fail(SHARDC_ERROR_RUNTIME, msg);
  model->ran = true;
  return SHARDC_OK;
}
} // namespace

extern "C" shardc_status shardc_run(shardc_model *model) {
  return guarded([&] { return run(model); });
}

extern "C" shardc_status shardc_output(const shardc_model *model, int index,
                                       const void **data, size_t *bytes) {
  return guarded([&]() -> shardc_status {
    if (!model || !data || !bytes)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT, "no model or result pointer");
    if (index < 0 || static_cast<size_t>(index) >= model->rp->outputs.size())
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "output index " + std::to_string(index) +
                      " is out of range (" +
                      std::to_string(model->rp->outputs.size()) + " outputs)");
    if (!model->ran)
      return fail(SHARDC_ERROR_INVALID_ARGUMENT,
                  "no output yet: the model has not run successfully");
    *data = model->outputs[index].ptr;
    *bytes = model->outputs[index].bytes;
    return SHARDC_OK;
  });
}

extern "C" void shardc_set_threads(int threads) {
  if (threads > 0)
    omp_set_num_threads(threads);
}
