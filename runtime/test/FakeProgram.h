//===- FakeProgram.h - a hand-written program for loader tests --*- C++ -*-===//
//
// What generated code provides (a plan, init and run), written by hand:
//   inputs  x: float32 [2,3], ids: int64 [4]
//   outputs y: float32 [2,3] = x + w (w: six floats of the weights section)
//           z: int64 [4]     = ids * 2; a negative id fails the run via
//                              sc_fail from an OpenMP thread
// init stores one counted handle. It exercises the real loader: plan decode,
// weights mapping and validation, buffers, handles, sc_fail.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_TEST_FAKEPROGRAM_H
#define SHARDC_RUNTIME_TEST_FAKEPROGRAM_H

#include "runtime/src/Handle.h"
#include "shardc/cpu.h"
#include "shardc/format.h"

#include <atomic>
#include <cstring>
#include <vector>

namespace shardc::testing {

constexpr uint64_t kFakeModelHash = 0x5eedc0de12345678ull;

inline std::atomic<int> &liveHandles() {
  static std::atomic<int> n{0};
  return n;
}

struct CountedHandle : rt::Handle {
  CountedHandle() { ++liveHandles(); }
  ~CountedHandle() override { --liveHandles(); }
};

/// The rank's weights section: six floats, 0.5, 1.0, ..., 3.0.
inline std::vector<uint8_t> fakeSection() {
  std::vector<uint8_t> bytes(6 * sizeof(float));
  for (int i = 0; i < 6; ++i) {
    float v = 0.5f * static_cast<float>(i + 1);
    std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
  }
  return bytes;
}

inline format::Plan fakePlan() {
  std::vector<uint8_t> section = fakeSection();
  format::Plan plan;
  plan.modelHash = kFakeModelHash;
  format::RankPlan r;
  r.arenaBytes = 256;
  r.weightsBytes = section.size();
  r.weightsChecksum = format::checksum64(section.data(), section.size());
  r.numHandles = 1;
  r.numKernels = 2;
  r.inputs = {{"x", 1, {2, 3}}, {"ids", 7, {4}}};
  r.outputs = {{"y", 1, {2, 3}}, {"z", 7, {4}}};
  plan.ranks.push_back(r);
  return plan;
}

/// A whole weights file for `plan` with the given sections.
inline std::vector<uint8_t>
buildWeightsFile(uint64_t modelHash,
                 const std::vector<std::vector<uint8_t>> &sections) {
  std::vector<uint64_t> sizes, sums;
  for (const auto &s : sections) {
    sizes.push_back(s.size());
    sums.push_back(format::checksum64(s.data(), s.size()));
  }
  format::WeightsLayout layout;
  std::vector<uint8_t> file =
      format::encodeWeightsHeader(modelHash, sizes, sums, layout);
  file.resize(layout.fileSize, 0);
  for (size_t i = 0; i < sections.size(); ++i)
    if (!sections[i].empty())
      std::memcpy(file.data() + layout.offsets[i], sections[i].data(),
                  sections[i].size());
  return file;
}

inline std::vector<uint8_t> fakeWeightsFile() {
  return buildWeightsFile(kFakeModelHash, {fakeSection()});
}

inline int fakeInit(void **handles) {
  handles[0] = static_cast<rt::Handle *>(new CountedHandle);
  return 0;
}

inline int fakeFailingInit(void **handles) {
  handles[0] = static_cast<rt::Handle *>(new CountedHandle);
  sc_fail("oneDNN cannot run convolution with %d groups", 3);
  return 1;
}

inline void fakeRun(void **handles, char *arena, const char *weights,
                    void *const *inputs, void *const *outputs) {
  const float *x = static_cast<const float *>(inputs[0]);
  const float *w = reinterpret_cast<const float *>(weights);
  const int64_t *ids = static_cast<const int64_t *>(inputs[1]);
  float *tmp = reinterpret_cast<float *>(arena); // exercise the arena
  for (int i = 0; i < 6; ++i)
    tmp[i] = x[i] + w[i];
  std::memcpy(outputs[0], tmp, 6 * sizeof(float));
  int64_t *z = static_cast<int64_t *>(outputs[1]);
#pragma omp parallel for
  for (int i = 0; i < 4; ++i) {
    if (ids[i] < 0)
      sc_fail("gather: index %lld is out of range [0, %d)",
              static_cast<long long>(ids[i]), 100);
    z[i] = ids[i] * 2;
  }
}

/// A program over its own plan bytes; not copyable (the program points into
/// it).
struct FakeProgram {
  std::vector<uint8_t> planBytes;
  sc_rank_entry entry;
  shardc_program program;

  explicit FakeProgram(bool failingInit = false,
                       const format::Plan &plan = fakePlan()) {
    planBytes = format::encodePlan(plan);
    entry.init = failingInit ? fakeFailingInit : fakeInit;
    entry.run = fakeRun;
    program.abi_version = SC_ABI_VERSION;
    program.num_ranks = static_cast<uint32_t>(plan.ranks.size());
    program.plan = planBytes.data();
    program.plan_size = planBytes.size();
    program.ranks = &entry;
  }
  FakeProgram(const FakeProgram &) = delete;
  FakeProgram &operator=(const FakeProgram &) = delete;
};

} // namespace shardc::testing

#endif // SHARDC_RUNTIME_TEST_FAKEPROGRAM_H
