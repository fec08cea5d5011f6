//===- FakeProgram.h - a hand-written program for loader tests --*- C++ -*-===//
//
// What generated code provides (a plan, init and run), written by hand:
//   inputs  x: float32 [2,3], ids: int64 [4]
//   outputs y: float32 [2,3] = x + w (w: six floats of the weights section)
//           z: int64 [4]     = ids * 2; a negative id fails the run via
//                              sc_fail from an OpenMP thread (CPU code only)
// init stores one counted handle. It exercises the real loader: plan decode,
// weights mapping and validation, buffers, handles, sc_fail.
//
// FakeDynamicProgram (CPU code only) has dynamic dims batch <= 2, seq <= 4
// (plan v4):
//   inputs  ids: int64 [batch,seq], mask: float32 [batch,seq],
//           bias: float32 [seq,3]
//   outputs y: float32 [batch,seq] = ids * mask + w[s] + bias[s,0]
//           seen: int64 [2]         = ctx->dims (batch, seq)
//           rows: float32 [seq]     = bias[s,0] + bias[s,1] + bias[s,2]
// each dense at the run's shape; init records the dims it was given.
//
// The program carries the code its plan's target mask lists: the CPU
// entries, and CUDA entries over a PTX image of two kernels (hand-written
// PTX for compute_80, checked with ptxas for sm_80, sm_90 and sm_100), so
// on a machine with a GPU the same program runs there.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_RUNTIME_TEST_FAKEPROGRAM_H
#define SHARDC_RUNTIME_TEST_FAKEPROGRAM_H

#include "runtime/src/Handle.h"
#include "shardc/cpu.h"
#include "shardc/cuda.h"
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

inline format::Plan fakePlan(uint32_t targets = format::kTargetCpu) {
  std::vector<uint8_t> section = fakeSection();
  format::Plan plan;
  plan.modelHash = kFakeModelHash;
  plan.target = targets;
  format::RankPlan r;
  r.arenaBytes = 256;
  r.weightsBytes = section.size();
  r.weightsChecksum = format::sectionChecksum(section.data(), section.size());
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
    sums.push_back(format::sectionChecksum(s.data(), s.size()));
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

inline int fakeInit(const sc_rank_ctx *ctx, void **handles) {
  // ABI v3: the rank context names the rank; a one-rank world has its
  // self communicator. ABI v4: a program without dynamic dims gets none.
  if (!ctx || ctx->rank < 0 || ctx->rank >= ctx->world_size ||
      (ctx->world_size == 1) != (sc_comm_size(ctx->world) == 1) || ctx->dims ||
      ctx->num_dims != 0) {
    sc_fail("bad rank context");
    return 1;
  }
  handles[0] = static_cast<rt::Handle *>(new CountedHandle);
  return 0;
}

inline int fakeFailingInit(const sc_rank_ctx *ctx, void **handles) {
  handles[0] = static_cast<rt::Handle *>(new CountedHandle);
  sc_fail("oneDNN cannot run convolution with %d groups", 3);
  return 1;
}

inline void fakeRun(const sc_rank_ctx *ctx, void **handles, char *arena,
                    const char *weights,
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

// fake_add(x, w, y, n): y = x + w; fake_twice(ids, z, n): z = ids * 2.
inline const char kFakePtx[] = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry fake_add(.param .u64 x, .param .u64 w, .param .u64 y,
                         .param .u32 n)
{
  .reg .pred %p;
  .reg .f32 %f<4>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [w];
  ld.param.u64 %rd3, [y];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.s32 %p, %r2, %r1;
  @%p bra DONE;
  mul.wide.s32 %rd4, %r2, 4;
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd7], %f3;
DONE:
  ret;
}
.visible .entry fake_twice(.param .u64 ids, .param .u64 z, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<7>;
  ld.param.u64 %rd1, [ids];
  ld.param.u64 %rd2, [z];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.s32 %p, %r2, %r1;
  @%p bra DONE;
  mul.wide.s32 %rd3, %r2, 8;
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.u64 %rd6, [%rd4];
  shl.b64 %rd6, %rd6, 1;
  st.global.u64 [%rd5], %rd6;
DONE:
  ret;
}
)";

inline const char *const kFakeKernels[] = {"fake_add", "fake_twice"};

inline int fakeCudaInit(const sc_rank_ctx *, sc_cuda *, void **handles) {
  handles[0] = static_cast<rt::Handle *>(new CountedHandle);
  return 0;
}

// y = x + w by way of the arena (kernel, then a copy), z = ids * 2.
inline void fakeCudaRun(const sc_rank_ctx *, sc_cuda *cu, void **, char *arena,
                        const char *weights,
                        void *const *inputs, void *const *outputs) {
  const void *x = inputs[0], *ids = inputs[1];
  const void *w = weights;
  void *tmp = arena, *z = outputs[1];
  int32_t six = 6, four = 4;
  void *addArgs[] = {&x, &w, &tmp, &six};
  sc_cu_launch(cu, 0, 1, 1, 1, 32, 0, addArgs);
  sc_cu_copy(cu, outputs[0], arena, 6 * sizeof(float));
  void *twiceArgs[] = {&ids, &z, &four};
  sc_cu_launch(cu, 1, 1, 1, 1, 32, 0, twiceArgs);
}

inline format::Plan fakeDynamicPlan() {
  format::Plan plan = fakePlan();
  plan.dims = {{"batch", 2}, {"seq", 4}};
  format::RankPlan &r = plan.ranks[0];
  r.inputs = {{"ids", format::kI64, {2, 4}, false, {0, 1}},
              {"mask", format::kF32, {2, 4}, false, {0, 1}},
              {"bias", format::kF32, {4, 3}, false, {1, -1}}};
  r.outputs = {{"y", format::kF32, {2, 4}, false, {0, 1}},
               {"seen", format::kI64, {2}},
               {"rows", format::kF32, {4}, false, {1}}};
  return plan;
}

/// The dims the last init of a dynamic program was given.
inline std::vector<int64_t> &fakeInitDims() {
  static std::vector<int64_t> dims;
  return dims;
}

inline int fakeDynamicInit(const sc_rank_ctx *ctx, void **handles) {
  if (!ctx || !ctx->dims || ctx->num_dims != 2) {
    sc_fail("bad rank context");
    return 1;
  }
  fakeInitDims().assign(ctx->dims, ctx->dims + ctx->num_dims);
  handles[0] = static_cast<rt::Handle *>(new CountedHandle);
  return 0;
}

inline void fakeDynamicRun(const sc_rank_ctx *ctx, void **, char *,
                           const char *weights, void *const *inputs,
                           void *const *outputs) {
  if (!ctx->dims || ctx->num_dims != 2)
    sc_fail("bad rank context");
  const int64_t b = ctx->dims[0], s = ctx->dims[1];
  const int64_t *ids = static_cast<const int64_t *>(inputs[0]);
  const float *mask = static_cast<const float *>(inputs[1]);
  const float *bias = static_cast<const float *>(inputs[2]);
  const float *w = reinterpret_cast<const float *>(weights);
  float *y = static_cast<float *>(outputs[0]);
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < s; ++j)
      y[i * s + j] = static_cast<float>(ids[i * s + j]) * mask[i * s + j] +
                     w[j] + bias[j * 3];
  std::memcpy(outputs[1], ctx->dims, 2 * sizeof(int64_t));
  float *rows = static_cast<float *>(outputs[2]);
  for (int64_t j = 0; j < s; ++j)
    rows[j] = bias[j * 3] + bias[j * 3 + 1] + bias[j * 3 + 2];
}

/// A program over its own plan bytes, with the code the plan's target mask
/// lists; not copyable (the program points into it).
struct FakeProgram {
  std::vector<uint8_t> planBytes;
  sc_rank_entry entry;
  sc_cuda_entry cudaEntry;
  sc_cuda_image image;
  shardc_program program{};

  explicit FakeProgram(bool failingInit = false,
                       const format::Plan &plan = fakePlan()) {
    planBytes = format::encodePlan(plan);
    entry.init = failingInit ? fakeFailingInit : fakeInit;
    entry.run = fakeRun;
    cudaEntry.init = fakeCudaInit;
    cudaEntry.run = fakeCudaRun;
    image.arch = "compute_80";
    image.data = reinterpret_cast<const unsigned char *>(kFakePtx);
    image.size = sizeof kFakePtx; // with the NUL
    const bool cpu = plan.target & format::kTargetCpu;
    const bool cuda = plan.target & format::kTargetCuda;
    program.abi_version = SC_ABI_VERSION;
    program.num_ranks = static_cast<uint32_t>(plan.ranks.size());
    program.plan = planBytes.data();
    program.plan_size = planBytes.size();
    program.ranks = cpu ? &entry : nullptr;
    program.cuda_ranks = cuda ? &cudaEntry : nullptr;
    program.num_cuda_images = cuda ? 1 : 0;
    program.cuda_images = cuda ? &image : nullptr;
    program.num_cuda_kernels = cuda ? 2 : 0;
    program.cuda_kernels = cuda ? kFakeKernels : nullptr;
  }
  FakeProgram(const FakeProgram &) = delete;
  FakeProgram &operator=(const FakeProgram &) = delete;
};

/// The program of fakeDynamicPlan (CPU code), or of a variant of it.
struct FakeDynamicProgram : FakeProgram {
  explicit FakeDynamicProgram(const format::Plan &plan = fakeDynamicPlan())
      : FakeProgram(false, plan) {
    entry.init = fakeDynamicInit;
    entry.run = fakeDynamicRun;
  }
};

} // namespace shardc::testing

#endif // SHARDC_RUNTIME_TEST_FAKEPROGRAM_H
