//===- CpuDevice.cpp - a rank's CPU code ----------------------------------===//
//
// The generated CPU entry points run on host buffers: a 64-byte aligned
// arena and input/output buffers, and the weights section read in place
// from the mapped weights file.
//
//===----------------------------------------------------------------------===//
#include "Device.h"
#include "KernelError.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace fmt = shardc::format;

namespace shardc::rt {
namespace {

struct AlignedBuffer {
  void *ptr = nullptr;

  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  AlignedBuffer(AlignedBuffer &&o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
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
    return true;
  }
};

class CpuDevice final : public Device {
public:
  explicit CpuDevice(const RankCode &code) : code(code) {}
  ~CpuDevice() override {
    for (void *h : handles)
      if (h)
        sc_handle_free(h);
  }

  Status open();

  const std::string &description() const override { return name; }
  void *input(size_t index) override { return inputs[index].ptr; }
  const void *output(size_t index) const override { return outputs[index].ptr; }

  Status run() override {
    std::string message;
    if (failedIn(
            [&] {
              code.program->ranks[code.rank].run(
                  code.ctx, handles.data(), static_cast<char *>(arena.ptr), code.weights,
                  inputPtrs.data(), outputPtrs.data());
            },
            message))
      return {SHARDC_ERROR_RUNTIME, message};
    return {};
  }

private:
  RankCode code;
  const std::string name = "cpu";
  AlignedBuffer arena;
  std::vector<AlignedBuffer> inputs, outputs;
  std::vector<void *> inputPtrs, outputPtrs;
  std::vector<void *> handles;
};

Status CpuDevice::open() {
  const fmt::RankPlan &rp = *code.plan;
  Status status;
  auto alloc = [&](AlignedBuffer &buf, uint64_t bytes,
                   const std::string &what) {
    if (buf.allocate(bytes))
      return true;
    status = {SHARDC_ERROR_RUNTIME, "cannot allocate " + std::to_string(bytes) +
                                        " bytes for " + what};
    return false;
  };
  if (!alloc(arena, rp.arenaBytes, "the arena"))
    return status;
  inputs.resize(rp.inputs.size());
  outputs.resize(rp.outputs.size());
  for (size_t i = 0; i < rp.inputs.size(); ++i) {
    if (!alloc(inputs[i], rp.inputs[i].bytes(),
               "input '" + rp.inputs[i].name + "'"))
      return status;
    inputPtrs.push_back(inputs[i].ptr);
  }
  for (size_t i = 0; i < rp.outputs.size(); ++i) {
    if (!alloc(outputs[i], rp.outputs[i].bytes(),
               "output '" + rp.outputs[i].name + "'"))
      return status;
    outputPtrs.push_back(outputs[i].ptr);
  }
  // Never hand generated code a null array, even when a list is empty.
  inputPtrs.push_back(nullptr);
  outputPtrs.push_back(nullptr);
  handles.assign(rp.numHandles + 1, nullptr);

  int rc = 0;
  std::string message;
  bool failed = failedIn(
      [&] { rc = code.program->ranks[code.rank].init(code.ctx, handles.data()); },
      message);
  if (rc != 0 || failed) {
    if (message.empty())
      message = "initialization failed (code " + std::to_string(rc) + ")";
    return {SHARDC_ERROR_UNSUPPORTED, message};
  }
  return {};
}

} // namespace

Status openCpuDevice(const RankCode &code, std::unique_ptr<Device> &out) {
  auto device = std::make_unique<CpuDevice>(code);
  Status status = device->open();
  if (!status.failed())
    out = std::move(device);
  return status;
}

} // namespace shardc::rt
