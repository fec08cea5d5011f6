//===- FuzzLoader.h - a program shell for the loader targets ----*- C++ -*-===//
//
// What generated code gives the runtime (shardc_program: plan bytes and CPU
// entry points), with entry points that do nothing, so the plan and weights
// targets drive the real loader (decode, map, validate, device buffers,
// binding, run, outputs) on fuzzed files.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_FUZZ_FUZZLOADER_H
#define SHARDC_FUZZ_FUZZLOADER_H

#include "FuzzUtil.h"

#include "shardc/cpu.h"
#include "shardc/format.h"
#include "shardc/runtime.h"

#include <vector>

namespace shardc::fuzz {

inline int noopInit(const sc_rank_ctx *, void **) { return 0; }
inline void noopRun(const sc_rank_ctx *, void **, char *, const char *,
                    void *const *,
                    void *const *) {}

/// Owns what a shardc_program points at.
struct ProgramShell {
  std::vector<uint8_t> plan;
  std::vector<sc_rank_entry> entries;
  shardc_program program{};

  ProgramShell(std::vector<uint8_t> planBytes, uint32_t numRanks)
      : plan(std::move(planBytes)), entries(numRanks, {noopInit, noopRun}) {
    program.abi_version = SC_ABI_VERSION;
    program.num_ranks = numRanks;
    program.plan = plan.data();
    program.plan_size = plan.size();
    program.ranks = entries.data();
  }
};

/// Loads `rank` of `shell` with the weights file at `path` on the CPU; when
/// it loads, binds every input (zeros), runs and reads every output.
/// Returns the load status; errors must be one line.
inline shardc_status loadAndRun(const ProgramShell &shell,
                                const std::string &path, int rank) {
  shardc_model *m = nullptr;
  shardc_status s =
      shardc_load_on(&shell.program, path.c_str(), rank, SHARDC_DEVICE_CPU, &m);
  if (s != SHARDC_OK) {
    FUZZ_CHECK(m == nullptr, "failed load returned a model");
    FUZZ_CHECK(oneLine(shardc_last_error()), "load error '%s'",
               shardc_last_error());
    return s;
  }
  std::vector<uint8_t> zeros;
  for (int i = 0; i < shardc_num_inputs(m); ++i) {
    shardc_tensor_info info;
    FUZZ_CHECK(shardc_input_info(m, i, &info) == SHARDC_OK, "input_info %d", i);
    zeros.assign(info.bytes, 0);
    FUZZ_CHECK(shardc_bind_input(m, info.name, info.dtype, info.rank,
                                 info.dims, zeros.data(),
                                 info.bytes) == SHARDC_OK,
               "binding input %d as described failed: %s", i,
               shardc_last_error());
    // A wrong byte count is refused with one line.
    FUZZ_CHECK(shardc_bind_input(m, info.name, info.dtype, info.rank,
                                 info.dims, zeros.data(),
                                 info.bytes + 1) != SHARDC_OK &&
                   oneLine(shardc_last_error()),
               "wrong input size accepted");
  }
  FUZZ_CHECK(shardc_input_info(m, shardc_num_inputs(m), nullptr) != SHARDC_OK,
             "input_info past the end");
  FUZZ_CHECK(shardc_run(m) == SHARDC_OK, "run failed: %s", shardc_last_error());
  for (int i = 0; i < shardc_num_outputs(m); ++i) {
    shardc_tensor_info info;
    const void *data = nullptr;
    size_t bytes = 0;
    FUZZ_CHECK(shardc_output_info(m, i, &info) == SHARDC_OK, "output_info");
    FUZZ_CHECK(shardc_output(m, i, &data, &bytes) == SHARDC_OK &&
                   bytes == info.bytes,
               "output %d: %zu bytes, info says %zu", i, bytes, info.bytes);
    // Touch the first and last byte: the buffer must be as large as stated.
    if (bytes) {
      volatile uint8_t a = static_cast<const uint8_t *>(data)[0];
      volatile uint8_t b = static_cast<const uint8_t *>(data)[bytes - 1];
      (void)a;
      (void)b;
    }
  }
  shardc_free(m);
  return SHARDC_OK;
}

} // namespace shardc::fuzz

#endif // SHARDC_FUZZ_FUZZLOADER_H
