//===- Device.h - one rank's code loaded on a device ------------*- C++ -*-===//
//
// The C API (Runtime.cpp) validates the program and the weights, then opens
// the rank on a device: the CPU (CpuDevice.cpp) or a GPU (cuda/). A device
// owns the buffers of the run and the library state init() created; inputs
// are bound into, and outputs read from, host buffers it owns.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_DEVICE_H
#define SHARDC_RUNTIME_DEVICE_H

#include "shardc/cpu.h"
#include "shardc/format.h"
#include "shardc/runtime.h"

#include "Status.h"

#include <memory>
#include <string>

namespace shardc::rt {

/// What a device loads: the rank's entry points in `program`, its plan and
/// its weights section (host memory, `plan->weightsBytes` bytes).
struct RankCode {
  const shardc_program *program = nullptr;
  int rank = 0;
  /// The rank's index on its node (Communicator::localRank): its GPU.
  int localRank = 0;
  /// Where the rank runs (its communicators); a device that has a stream
  /// passes a copy with `stream` set.
  const sc_rank_ctx *ctx = nullptr;
  const format::RankPlan *plan = nullptr;
  const char *weights = nullptr;
};

class Device {
public:
  virtual ~Device() = default;
  /// "cpu", "cuda: NVIDIA H100 80GB HBM3 (sm_90, cubin sm_90)".
  virtual const std::string &description() const = 0;
  /// Host buffers of input / output `index`, the plan's byte size each.
  virtual void *input(size_t index) = 0;
  virtual const void *output(size_t index) const = 0;
  /// Runs the rank once: reads the inputs, writes the outputs.
  virtual Status run() = 0;
};

/// Open `code` on the CPU / on a GPU, calling the generated init(). On
/// failure `out` stays empty.
Status openCpuDevice(const RankCode &code, std::unique_ptr<Device> &out);
Status openCudaDevice(const RankCode &code, std::unique_ptr<Device> &out);

} // namespace shardc::rt

#endif // SHARDC_RUNTIME_DEVICE_H
