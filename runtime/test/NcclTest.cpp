//===- NcclTest.cpp - NCCL communicators (comm/Nccl.h) --------------------===//
//
// Without a GPU: libnccl.so.2 loads through the function table (every
// entry point resolves), a missing library is one line, ncclGetUniqueId
// (which needs no GPU) makes the ids the host communicator hands out,
// SHARDC_NCCL_TIMEOUT is checked, and creating a communicator where no GPU
// is usable fails in one line rather than waiting.
//
// On a GPU (skipped elsewhere, each test says why): a one-rank NCCL
// communicator runs every collective on a stream, captured into a CUDA
// graph and replayed on new inputs; expert parallelism's exchange
// (sc_cu_moe_dispatch / sc_cu_moe_return) over it; and a communicator
// whose second rank never comes is aborted after SHARDC_NCCL_TIMEOUT with
// a line naming it.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/comm/Nccl.h"
#include "runtime/src/KernelError.h"
#include "runtime/src/cuda/Context.h"
#include "runtime/src/cuda/Driver.h"
#include "shardc/cuda.h"
#include "shardc/format.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/stat.h>

using namespace shardc::rt;
namespace fmt = shardc::format;

namespace {

// The toolkit's library directory, from the build (runtime/CMakeLists.txt);
// $SHARDC_LIBNCCL names another NCCL (a GPU machine's, from a Python wheel).
const std::string kLibDir = SHARDC_CUDA_LIBRARY_DIR;
const std::string kNccl = [] {
  const char *env = std::getenv("SHARDC_LIBNCCL");
  return std::string(env && *env ? env : kLibDir + "/libnccl.so.2");
}();

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// Sets an environment variable for the life of the object.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old, had = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had)
      ::setenv(name, saved.c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::string saved;
  bool had = false;
};

const NcclLibrary *realNccl(std::string &error) {
  ScopedEnv env("SHARDC_LIBNCCL", kNccl);
  return loadNccl(error);
}

#define SKIP_WITHOUT_NCCL()                                                    \
  do {                                                                         \
    if (!exists(kNccl))                                                        \
      GTEST_SKIP() << "no " << kNccl;                                          \
  } while (0)

TEST(Nccl, MissingLibraryIsOneLine) {
  ScopedEnv env("SHARDC_LIBNCCL", "/nonexistent/libnccl.so.2");
  std::string error;
  EXPECT_EQ(loadNccl(error), nullptr);
  EXPECT_EQ(error.rfind("no usable NCCL: cannot load "
                        "/nonexistent/libnccl.so.2 (",
                        0),
            0u)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  // Every member of a group hears of it: the one without NCCL fails with
  // its reason, through the same exchange its peers wait in.
  std::unique_ptr<Communicator> self = createSelfComm();
  std::vector<std::unique_ptr<Communicator>> comms;
  Status s = createNcclComms({self.get()}, 0, comms);
  EXPECT_TRUE(s.failed());
  EXPECT_EQ(s.message, error);
  EXPECT_TRUE(comms.empty());
}

TEST(Nccl, TableResolves) {
  SKIP_WITHOUT_NCCL();
  std::string error;
  const NcclLibrary *lib = realNccl(error);
  ASSERT_TRUE(lib) << error;
  std::string version = ncclVersion(*lib);
  EXPECT_EQ(version.rfind("2.", 0), 0u) << version;
  EXPECT_EQ(realNccl(error), lib); // loaded once
}

TEST(Nccl, UniqueIdsComeFromRankZero) {
  SKIP_WITHOUT_NCCL();
  std::string error;
  const NcclLibrary *lib = realNccl(error);
  ASSERT_TRUE(lib) << error;
  std::unique_ptr<Communicator> self = createSelfComm();
  std::vector<char> a, b;
  Status s = exchangeNcclId(lib, "", *self, "mesh axis 0", a);
  ASSERT_FALSE(s.failed()) << s.message;
  s = exchangeNcclId(lib, "", *self, "mesh axis 0", b);
  ASSERT_FALSE(s.failed()) << s.message;
  ASSERT_EQ(a.size(), kNcclIdBytes);
  ASSERT_EQ(b.size(), kNcclIdBytes);
  EXPECT_NE(a, std::vector<char>(kNcclIdBytes, 0));
  EXPECT_NE(a, b); // a fresh id per communicator
  // A member without NCCL fails with its own reason.
  s = exchangeNcclId(nullptr, "no usable NCCL: test", *self, "mesh axis 0", a);
  EXPECT_TRUE(s.failed());
  EXPECT_EQ(s.message, "no usable NCCL: test");
}

/// A host group of two whose rank 1 never shows up for NCCL: the exchange
/// hands rank 0 its own record and a ready peer's.
class LonelyHost final : public Communicator {
public:
  const char *backend() const override { return "test"; }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  Status allGather(const void *send, void *recv, size_t count, int32_t dtype,
                   void *) override {
    size_t bytes = count * fmt::dtypeSize(dtype);
    std::memcpy(recv, send, bytes);
    std::memset(static_cast<char *>(recv) + bytes, 0, bytes);
    return {};
  }
  Status allReduce(const void *, void *, size_t, int32_t, ReduceOp,
                   void *) override {
    return unused();
  }
  Status reduceScatter(const void *, void *, size_t, int32_t, ReduceOp,
                       void *) override {
    return unused();
  }
  Status allToAll(const void *, void *, size_t, int32_t, void *) override {
    return unused();
  }
  Status allToAllV(const void *, const size_t *, const size_t *, void *,
                   const size_t *, const size_t *, int32_t, void *) override {
    return unused();
  }
  Status send(const void *, size_t, int32_t, int, void *) override {
    return unused();
  }
  Status recv(void *, size_t, int32_t, int, void *) override {
    return unused();
  }
  void abort() override {}
  Status splitMesh(const std::vector<int64_t> &,
                   std::vector<std::unique_ptr<Communicator>> &) override {
    return unused();
  }

private:
  static Status unused() { return {SHARDC_ERROR_UNSUPPORTED, "unused"}; }
};

TEST(Nccl, TimeoutVariable) {
  double seconds = 0;
  std::string error;
  {
    // Neither set: 600 s, which a long prefill does not trip.
    ScopedEnv env("SHARDC_NCCL_TIMEOUT", "");
    ScopedEnv common("SHARDC_COMM_TIMEOUT", "");
    EXPECT_TRUE(ncclTimeoutSeconds(seconds, error));
    EXPECT_EQ(seconds, 600);
  }
  {
    // --comm-timeout (SHARDC_COMM_TIMEOUT) bounds NCCL's waits too...
    ScopedEnv env("SHARDC_NCCL_TIMEOUT", "");
    ScopedEnv common("SHARDC_COMM_TIMEOUT", "7");
    EXPECT_TRUE(ncclTimeoutSeconds(seconds, error));
    EXPECT_EQ(seconds, 7);
  }
  {
    // ...unless SHARDC_NCCL_TIMEOUT sets NCCL's own.
    ScopedEnv env("SHARDC_NCCL_TIMEOUT", "2");
    ScopedEnv common("SHARDC_COMM_TIMEOUT", "7");
    EXPECT_TRUE(ncclTimeoutSeconds(seconds, error));
    EXPECT_EQ(seconds, 2);
  }
  {
    ScopedEnv env("SHARDC_NCCL_TIMEOUT", "0.5");
    EXPECT_TRUE(ncclTimeoutSeconds(seconds, error));
    EXPECT_EQ(seconds, 0.5);
  }
  for (const char *bad : {"abc", "0", "-3", "5s", "nan", "inf"}) {
    ScopedEnv env("SHARDC_NCCL_TIMEOUT", bad);
    EXPECT_FALSE(ncclTimeoutSeconds(seconds, error)) << bad;
    EXPECT_EQ(error, std::string("SHARDC_NCCL_TIMEOUT=") + bad +
                         ": expected a number of seconds greater than 0");
    std::unique_ptr<Communicator> self = createSelfComm();
    std::vector<std::unique_ptr<Communicator>> comms;
    Status s = createNcclComms({self.get()}, 0, comms);
    EXPECT_EQ(s.message, error);
  }
}

//===----------------------------------------------------------------------===//
// With and without a GPU
//===----------------------------------------------------------------------===//

/// Device 0's primary context, current, and a stream; `why` when no GPU is
/// usable.
struct Gpu {
  const cuda::Driver *drv = nullptr;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  std::string why;

  Gpu() {
    drv = cuda::loadDriver(why);
    int count = 0;
    if (drv && (drv->cuDeviceGetCount(&count) || count < 1)) {
      why = "no CUDA device";
      drv = nullptr;
    }
    if (drv && (drv->cuDeviceGet(&device, 0) ||
                drv->cuDevicePrimaryCtxRetain(&ctx, device) ||
                drv->cuCtxSetCurrent(ctx) ||
                drv->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING))) {
      why = "cannot set up GPU 0";
      drv = nullptr;
    }
  }
  ~Gpu() {
    if (stream)
      drv->cuStreamDestroy(stream);
    if (ctx)
      drv->cuDevicePrimaryCtxRelease(device);
  }
  bool usable() const { return drv != nullptr; }
};

TEST(Nccl, WithoutGpuCreationFailsInOneLine) {
  SKIP_WITHOUT_NCCL();
  {
    Gpu gpu;
    if (gpu.usable())
      GTEST_SKIP() << "a GPU is usable here (NcclGpu tests instead)";
  }
  ScopedEnv lib("SHARDC_LIBNCCL", kNccl);
  ScopedEnv timeout("SHARDC_NCCL_TIMEOUT", "20");
  std::unique_ptr<Communicator> self = createSelfComm();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto start = std::chrono::steady_clock::now();
  Status s = createNcclComms({self.get()}, 3, comms);
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(s.failed());
  EXPECT_EQ(s.message.rfind("NCCL communicator of mesh axis 0 (rank 0 of 1, "
                            "world rank 3): ",
                            0),
            0u)
      << s.message;
  EXPECT_EQ(s.message.find('\n'), std::string::npos) << s.message;
  EXPECT_LT(took.count(), 20.0) << s.message;
  EXPECT_TRUE(comms.empty());
}

#define SKIP_WITHOUT_GPU(gpu)                                                  \
  do {                                                                         \
    SKIP_WITHOUT_NCCL();                                                       \
    if (!(gpu).usable())                                                       \
      GTEST_SKIP() << (gpu).why;                                               \
  } while (0)

/// Device memory of `bytes`, freed at the end.
struct DeviceBuffer {
  const cuda::Driver &drv;
  CUdeviceptr p = 0;
  DeviceBuffer(const cuda::Driver &drv, size_t bytes) : drv(drv) {
    drv.cuMemAlloc(&p, bytes);
  }
  ~DeviceBuffer() {
    if (p)
      drv.cuMemFree(p);
  }
  void *ptr() const { return reinterpret_cast<void *>(p); }
};

template <class T> std::vector<T> download(const Gpu &gpu, CUdeviceptr p,
                                           size_t n) {
  std::vector<T> v(n);
  gpu.drv->cuCtxSynchronize();
  EXPECT_EQ(gpu.drv->cuMemcpyDtoHAsync(v.data(), p, n * sizeof(T), nullptr),
            CUDA_SUCCESS);
  gpu.drv->cuCtxSynchronize();
  return v;
}

TEST(NcclGpu, OneRankCollectivesInACapturedGraph) {
  Gpu gpu;
  SKIP_WITHOUT_GPU(gpu);
  ScopedEnv lib("SHARDC_LIBNCCL", kNccl);
  const cuda::Driver &d = *gpu.drv;
  std::unique_ptr<Communicator> self = createSelfComm();
  std::vector<std::unique_ptr<Communicator>> comms;
  Status s = createNcclComms({self.get()}, 0, comms);
  ASSERT_FALSE(s.failed()) << s.message;
  ASSERT_EQ(comms.size(), 1u);
  Communicator &c = *comms[0];
  EXPECT_STREQ(c.backend(), "nccl");
  EXPECT_EQ(c.rank(), 0);
  EXPECT_EQ(c.size(), 1);

  // fp32 (all_reduce in place, all_gather), fp16 bits (reduce_scatter,
  // all_to_all: the byte counts of 2-byte elements), int64 (all_reduce
  // max): on one rank each is the identity, so every output equals its
  // input and a wrong count leaves the 0xff fill visible.
  constexpr size_t n = 1000;
  DeviceBuffer f(d, n * 4), g(d, n * 4), h(d, n * 2), k(d, n * 2), l(d, n * 8),
      m(d, n * 8);
  auto upload = [&](int round) {
    std::vector<float> fv(n);
    std::vector<uint16_t> hv(n);
    std::vector<int64_t> lv(n);
    for (size_t i = 0; i < n; ++i) {
      fv[i] = float(i) * 0.25f + float(round);
      hv[i] = static_cast<uint16_t>(i * 7 + round);
      lv[i] = int64_t(i) * 1000003 - round;
    }
    d.cuMemcpyHtoD(f.p, fv.data(), n * 4);
    d.cuMemcpyHtoD(h.p, hv.data(), n * 2);
    d.cuMemcpyHtoD(l.p, lv.data(), n * 8);
    for (const DeviceBuffer *b : {&g, &k, &m})
      d.cuMemsetD8(b->p, 0xff, b == &g ? n * 4 : b == &k ? n * 2 : n * 8);
    d.cuCtxSynchronize();
  };
  auto enqueue = [&] {
    void *st = gpu.stream;
    Status r = c.allReduce(f.ptr(), f.ptr(), n, fmt::kF32, ReduceOp::Sum, st);
    if (!r.failed())
      r = c.allGather(f.ptr(), g.ptr(), n, fmt::kF32, st);
    if (!r.failed())
      r = c.reduceScatter(h.ptr(), k.ptr(), n, fmt::kF16, ReduceOp::Max, st);
    if (!r.failed())
      r = c.allToAll(h.ptr(), k.ptr(), n, fmt::kBF16, st);
    if (!r.failed())
      r = c.allReduce(l.ptr(), m.ptr(), n, fmt::kI64, ReduceOp::Max, st);
    return r;
  };
  auto check = [&](int round) {
    auto fv = download<float>(gpu, f.p, n), gv = download<float>(gpu, g.p, n);
    auto hv = download<uint16_t>(gpu, h.p, n),
         kv = download<uint16_t>(gpu, k.p, n);
    auto lv = download<int64_t>(gpu, l.p, n),
         mv = download<int64_t>(gpu, m.p, n);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(fv[i], float(i) * 0.25f + float(round)) << round << " " << i;
      ASSERT_EQ(gv[i], fv[i]) << round << " " << i;
      ASSERT_EQ(kv[i], hv[i]) << round << " " << i;
      ASSERT_EQ(mv[i], lv[i]) << round << " " << i;
    }
  };
  auto streamDone = [&] {
    return d.cuStreamQuery(gpu.stream) != CUDA_ERROR_NOT_READY;
  };

  // Direct, then captured and replayed twice on new inputs.
  upload(0);
  ASSERT_FALSE((s = enqueue()).failed()) << s.message;
  ASSERT_FALSE((s = waitWithNccl(comms, streamDone, "the run")).failed())
      << s.message;
  check(0);
  ASSERT_EQ(d.cuStreamBeginCapture(gpu.stream,
                                   CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
            CUDA_SUCCESS);
  s = enqueue();
  CUgraph graph = nullptr;
  ASSERT_EQ(d.cuStreamEndCapture(gpu.stream, &graph), CUDA_SUCCESS);
  ASSERT_FALSE(s.failed()) << s.message;
  CUgraphExec exec = nullptr;
  ASSERT_EQ(d.cuGraphInstantiate(&exec, graph, 0), CUDA_SUCCESS);
  d.cuGraphDestroy(graph);
  for (int round = 1; round <= 2; ++round) {
    upload(round);
    ASSERT_EQ(d.cuGraphLaunch(exec, gpu.stream), CUDA_SUCCESS);
    ASSERT_FALSE((s = waitWithNccl(comms, streamDone, "the run")).failed())
        << s.message;
    check(round);
  }
  d.cuGraphExecDestroy(exec);

  // What NCCL cannot do is refused before it is enqueued.
  s = c.allReduce(f.ptr(), f.ptr(), n, fmt::kI16, ReduceOp::Sum, gpu.stream);
  EXPECT_EQ(s.message, "all_reduce: NCCL cannot reduce dtype 5 (int16)");
  s = c.allReduce(f.ptr(), f.ptr(), n, fmt::kF32, ReduceOp::Sum, nullptr);
  EXPECT_EQ(s.message, "all_reduce: NCCL takes device buffers on a GPU "
                       "stream; CPU ranks communicate through MPI");
  s = c.send(f.ptr(), n, fmt::kF32, 1, gpu.stream);
  EXPECT_EQ(s.message, "cannot send to rank 1 (rank 0 of 1)");
  comms.clear(); // finalized and destroyed
}

/// sc_cu_moe_dispatch and sc_cu_moe_return on a one-rank group, as the
/// device calls them (an sc_cuda with the stream and the communicators).
/// One rank holds every slot, so the rows arrive in their own order: the
/// dispatch copies them through, the counts are the offsets' differences,
/// and the return brings the experts' results back row for row. Two
/// rounds with different counts (an empty slot in each) reuse the
/// buffers; more rows than `capacity` and decreasing offsets fail the run.
TEST(NcclGpu, OneRankExpertExchange) {
  Gpu gpu;
  SKIP_WITHOUT_GPU(gpu);
  ScopedEnv lib("SHARDC_LIBNCCL", kNccl);
  const cuda::Driver &d = *gpu.drv;
  std::unique_ptr<Communicator> self = createSelfComm();
  std::vector<std::unique_ptr<Communicator>> comms;
  Status s = createNcclComms({self.get()}, 0, comms);
  ASSERT_FALSE(s.failed()) << s.message;
  sc_cuda cu(d);
  cu.ctx = gpu.ctx;
  cu.stream = gpu.stream;
  cu.ncclComms = &comms;
  sc_comm handle{comms[0].get()};

  constexpr size_t L = 3, width = 5, capacity = 8;
  DeviceBuffer rows(d, capacity * width * 4), offsets(d, (L + 1) * 4),
      recv(d, capacity * width * 4), recvOffsets(d, (L + 1) * 4),
      recvCounts(d, L * 4), back(d, capacity * width * 4);
  auto rowsOf = [&](size_t n, float base) {
    std::vector<float> v(n * width);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = base + float(i) * 0.5f;
    return v;
  };
  auto fail = [&](auto &&call) {
    std::string message;
    EXPECT_TRUE(failedIn(call, message));
    return message;
  };
  std::vector<std::vector<int32_t>> rounds = {{0, 2, 2, 7}, {0, 4, 5, 5}};
  for (size_t round = 0; round < rounds.size(); ++round) {
    const std::vector<int32_t> &off = rounds[round];
    size_t n = static_cast<size_t>(off[L]);
    std::vector<float> in = rowsOf(n, float(round)), out = rowsOf(n, -3.f);
    d.cuMemcpyHtoD(rows.p, in.data(), in.size() * 4);
    d.cuMemcpyHtoD(offsets.p, off.data(), off.size() * 4);
    for (const DeviceBuffer *b : {&recv, &recvOffsets, &recvCounts, &back})
      d.cuMemsetD8(b->p, 0xff,
                   b == &recvOffsets  ? (L + 1) * 4
                   : b == &recvCounts ? L * 4
                                      : capacity * width * 4);
    d.cuCtxSynchronize();
    std::string message;
    ASSERT_FALSE(failedIn(
        [&] {
          sc_cu_moe_dispatch(&cu, &handle, rows.ptr(),
                             static_cast<const int32_t *>(offsets.ptr()),
                             recv.ptr(),
                             static_cast<int32_t *>(recvOffsets.ptr()),
                             static_cast<int32_t *>(recvCounts.ptr()), L, width,
                             capacity, fmt::kF32);
        },
        message))
        << message;
    EXPECT_TRUE(cu.hostSyncs); // the device will not capture this run
    EXPECT_EQ(download<float>(gpu, recv.p, in.size()), in) << round;
    EXPECT_EQ(download<int32_t>(gpu, recvOffsets.p, L + 1), off) << round;
    std::vector<int32_t> counts;
    for (size_t e = 0; e < L; ++e)
      counts.push_back(off[e + 1] - off[e]);
    EXPECT_EQ(download<int32_t>(gpu, recvCounts.p, L), counts) << round;

    // The experts' results, laid out as `recv`, go back to their rows.
    d.cuMemcpyHtoD(recv.p, out.data(), out.size() * 4);
    ASSERT_FALSE(failedIn(
        [&] {
          sc_cu_moe_return(&cu, &handle, recv.ptr(),
                           static_cast<const int32_t *>(recvCounts.ptr()),
                           static_cast<const int32_t *>(offsets.ptr()),
                           back.ptr(), L, width, capacity, fmt::kF32);
        },
        message))
        << message;
    EXPECT_EQ(download<float>(gpu, back.p, out.size()), out) << round;
  }

  auto dispatch = [&](size_t room) {
    sc_cu_moe_dispatch(
        &cu, &handle, rows.ptr(), static_cast<const int32_t *>(offsets.ptr()),
        recv.ptr(), static_cast<int32_t *>(recvOffsets.ptr()),
        static_cast<int32_t *>(recvCounts.ptr()), L, width, room, fmt::kF32);
  };
  EXPECT_EQ(fail([&] { dispatch(4); }),
            "moe_dispatch: 5 rows arrive for this rank's experts, room for 4");
  std::vector<int32_t> bad = {0, 3, 1, 4};
  d.cuMemcpyHtoD(offsets.p, bad.data(), bad.size() * 4);
  EXPECT_EQ(fail([&] { dispatch(capacity); }),
            "moe_dispatch: the row offsets decrease at expert slot 1");
  EXPECT_EQ(fail([&] {
              sc_cu_moe_return(&cu, nullptr, recv.ptr(), nullptr, nullptr,
                               back.ptr(), L, width, capacity, fmt::kF32);
            }),
            "moe_return: no communicator");
  CUresult r;
  EXPECT_FALSE(cuda::synchronizeStream(cu, "the test", r).failed());
  EXPECT_EQ(r, CUDA_SUCCESS);
  cuda::releaseExpertBuffers(cu);
  comms.clear();
}

TEST(NcclGpu, AMissingPeerIsAbortedAfterTheTimeout) {
  Gpu gpu;
  SKIP_WITHOUT_GPU(gpu);
  ScopedEnv lib("SHARDC_LIBNCCL", kNccl);
  ScopedEnv timeout("SHARDC_NCCL_TIMEOUT", "2");
  LonelyHost host;
  std::vector<std::unique_ptr<Communicator>> comms;
  auto start = std::chrono::steady_clock::now();
  Status s = createNcclComms({&host}, 5, comms);
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(s.failed());
  EXPECT_EQ(s.message,
            "NCCL communicator of mesh axis 0 (rank 0 of 2, world rank 5): "
            "initialization did not finish within 2 s (--comm-timeout, "
            "SHARDC_NCCL_TIMEOUT): "
            "a peer is gone or stuck; communicators aborted");
  EXPECT_GE(took.count(), 2.0);
  EXPECT_LT(took.count(), 30.0);
  EXPECT_TRUE(comms.empty());
}

} // namespace
