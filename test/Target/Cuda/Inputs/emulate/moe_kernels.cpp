// moe.cuh's kernels on the host emulation against the CPU runtime
// (runtime/src/cpu/Moe.cpp, sc_grouped_matmul), below the model level
// (emulate_moe_kernels.py builds and runs this). A model's output cannot
// show the route's order within an expert (any order gives the same sums),
// so offsets and slots are compared here, bit for bit, for random ids; ids
// out of range must get slot -1 and the others the CPU's route of the ids
// without them. The grouped GEMM gets offsets[E] < P, whose rows after must
// stay as they were, and bf16. Launches as Calls/Moe.cpp makes them, at
// most 3 blocks (the grid strides). Prints a line per case.
//
// kern.moe_place runs as the kernels Calls/Moe.cpp wrote for
// Inputs/moe_place.mlir (SC_PLACE_KERNELS, its --kern-to-cuda), placement
// tables baked in: shardc_k0 and shardc_k1 place, shardc_k2 routes k1's
// slots.
#include "shardc_cuda.cuh"
#include SC_PLACE_KERNELS

#include <random>
#include <string>

namespace shardc::rt {
bool takeKernelError(std::string &message); // runtime/src/KernelError.h
}

static int failures = 0;
static std::mt19937 rng(11);

// A case's line; a CPU kernel's failure (sc_fail) fails it too.
static void report(const std::string &what, bool ok) {
  std::string error;
  if (shardc::rt::takeKernelError(error)) {
    std::printf("%s: CPU kernel failed: %s\n", what.c_str(), error.c_str());
    ++failures;
    return;
  }
  std::printf("%s: %s\n", what.c_str(), ok ? "ok" : "MISMATCH");
  failures += !ok;
}

static sc_desc desc(int32_t dtype, std::initializer_list<int64_t> dims) {
  sc_desc d{};
  d.dtype = dtype;
  for (int64_t v : dims)
    d.dims[d.rank++] = v;
  return d;
}

// T tokens of K choices over NE experts; with probability `bad` an id is out
// of range, with `skew` all valid ids go to expert NE / 2.
template <class Ix, int NE>
static void routeCase(int64_t t, int64_t k, double bad, bool skew) {
  int64_t p = t * k;
  std::vector<Ix> ids(p), valid;
  std::uniform_real_distribution<double> u(0, 1);
  for (Ix &v : ids) {
    v = skew ? NE / 2 : (Ix)(rng() % NE);
    if (u(rng) < bad)
      v = rng() % 2 ? (Ix)(-1 - (Ix)(rng() % 3)) : (Ix)(NE + rng() % 3);
    if (v >= 0 && v < NE)
      valid.push_back(v);
  }
  std::vector<int32_t> off(NE + 1, 0x5a5a5a5a), slots(p, 0x5a5a5a5a);
  emu_launch(1, std::clamp(32 * NE, 128, 1024), [&] {
    sc_moe_route<Ix, NE>(ids.data(), off.data(), slots.data(), (int)p);
  });
  // The CPU's route of the valid choices, in their order.
  std::vector<int32_t> wantOff(NE + 1), wantValid(valid.size());
  sc_desc d = desc(sizeof(Ix) == 8 ? 7 : 6, {(int64_t)valid.size(), 1});
  sc_moe_route(&d, valid.data(), NE, wantOff.data(), wantValid.data());
  std::vector<int32_t> want(p, -1);
  for (int64_t j = 0, n = 0; j < p; ++j)
    if (ids[j] >= 0 && ids[j] < NE)
      want[j] = wantValid[n++];
  report("route " + std::to_string(t) + "x" + std::to_string(k) + " i" +
             std::to_string(8 * sizeof(Ix)) + " to " + std::to_string(NE) +
             (bad > 0 ? ", ids out of range" : "") + (skew ? ", skewed" : ""),
         off == wantOff && slots == want);
}

// Bits of the element type E's storage from a float, and back.
template <class E> struct Elem;
template <> struct Elem<float> {
  typedef float S;
  static S of(float v) { return v; }
  static float f(S v) { return v; }
  static constexpr const char *name = "f32";
};
template <> struct Elem<sc_f16> {
  typedef uint16_t S;
  static S of(float v) { return sc_f2h(v); }
  static float f(S v) { return sc_h2f(v); }
  static constexpr const char *name = "f16";
};
template <> struct Elem<sc_bf16> {
  typedef uint16_t S;
  static S of(float v) { return sc_f2bf(v); }
  static float f(S v) { return sc_bf2f(v); }
  static constexpr const char *name = "bf16";
};

// y [P, N] over experts of the given row counts (the rows after theirs,
// up to P, belong to none): within tol of the largest |y| of the CPU's f32
// GEMM on the same values (oneDNN's fp16 GEMM needs an ISA the host may
// lack), and the rows after offsets[E] left as they were.
template <class E>
static void gemmCase(int64_t p, int64_t kd, int64_t n,
                     std::vector<int32_t> counts, float tol) {
  typedef typename Elem<E>::S S;
  int64_t experts = counts.size();
  std::vector<int32_t> off(experts + 1, 0);
  for (int64_t e = 0; e < experts; ++e)
    off[e + 1] = off[e] + counts[e];
  std::normal_distribution<float> z(0, 1);
  std::vector<S> a(p * kd), b(experts * kd * n), got(p * n, Elem<E>::of(1e4f));
  std::vector<float> af(a.size()), bf(b.size()), want(p * n);
  for (size_t i = 0; i < a.size(); ++i)
    af[i] = Elem<E>::f(a[i] = Elem<E>::of(z(rng)));
  for (size_t i = 0; i < b.size(); ++i)
    bf[i] = Elem<E>::f(b[i] = Elem<E>::of(z(rng)));
  int64_t tiles = (p + 63) / 64 * ((n + 63) / 64);
  emu_launch(std::min<int64_t>(tiles, 3), 256, [&] {
    sc_grouped_matmul<E>(a.data(), b.data(), off.data(), got.data(),
                         (int)experts, p, kd, n);
  });
  sc_desc ad = desc(1, {p, kd}), bd = desc(1, {experts, kd, n});
  sc_grouped_matmul(&ad, af.data(), &bd, bf.data(), off.data(), want.data());
  float scale = 0, err = 0;
  int64_t rows = off[experts];
  for (int64_t i = 0; i < rows * n; ++i) {
    float w = Elem<E>::f(Elem<E>::of(want[i]));
    scale = std::max(scale, std::fabs(w));
    err = std::max(err, std::fabs(w - Elem<E>::f(got[i])));
  }
  bool tail = std::all_of(got.begin() + rows * n, got.end(),
                          [](S v) { return v == Elem<E>::of(1e4f); });
  std::string list;
  for (int32_t c : counts)
    list += (list.empty() ? "" : ",") + std::to_string(c);
  report(std::string("grouped matmul ") + Elem<E>::name + " " +
             std::to_string(p) + "x" + std::to_string(kd) + "x" +
             std::to_string(n) + " rows " + list + " of " + std::to_string(p),
         tail && err <= tol * scale);
}

// Choices with an id out of range (slot -1): permute leaves no row for
// them and combine adds nothing, i.e. the CPU's result with their weights
// 0 (and any valid row): bit for bit but for the sign of zeros.
static void skippedChoices() {
  const int64_t t = 50, k = 2, h = 12, NE = 4, p = t * k;
  std::vector<int64_t> ids(p);
  std::vector<float> x(t * h), w(p), rows(p * h, 0.0f), cpuRows(p * h);
  std::normal_distribution<float> z(0, 1);
  for (float &v : x)
    v = z(rng);
  for (float &v : w)
    v = z(rng);
  int64_t skipped = 0;
  for (int64_t j = 0; j < p; ++j) {
    ids[j] = j % 7 != 3 ? (int64_t)(rng() % NE)
             : j % 3    ? NE + j % 2
                        : -1 - j % 2;
    skipped += j % 7 == 3;
  }
  std::vector<int32_t> off(NE + 1), slots(p);
  std::vector<float> y(t * h), want(t * h);
  emu_launch(1, 128, [&] {
    sc_moe_route<int64_t, NE>(ids.data(), off.data(), slots.data(), (int)p);
  });
  emu_launch(3, 256, [&] {
    sc_moe_permute<float, int>(x.data(), slots.data(), rows.data(), k, h,
                               p * h);
  });
  emu_launch(3, 256, [&] {
    sc_moe_combine<float, int>(rows.data(), w.data(), slots.data(), y.data(), k,
                               h, t * h);
  });
  // The CPU with the skipped choices weighted 0 on row 0 (what permute
  // wrote there is the CPU's too: only valid slots are rows).
  std::vector<int32_t> cpuSlots = slots;
  std::vector<float> cpuW = w;
  for (int64_t j = 0; j < p; ++j)
    if (cpuSlots[j] < 0)
      cpuSlots[j] = 0, cpuW[j] = 0.0f;
  sc_desc rd = desc(1, {p, h}), wd = desc(1, {t, k});
  std::fill(cpuRows.begin(), cpuRows.end(), 0.0f);
  for (int64_t j = 0; j < p; ++j)
    if (slots[j] >= 0)
      std::copy_n(&x[(j / k) * h], h, &cpuRows[slots[j] * h]);
  sc_moe_combine(&rd, cpuRows.data(), &wd, cpuW.data(), cpuSlots.data(),
                 want.data());
  bool ok = off[NE] == p - skipped && rows == cpuRows;
  for (int64_t i = 0; i < t * h; ++i)
    ok = ok && y[i] == want[i];
  report("ids out of range through permute and combine", ok);
}

// The CPU's sc_moe_place of [T, K] ids over a placement, with -1 where an
// id is outside [0, experts) (the CPU fails the run on those: it places
// them as expert 0 here and the -1 is written after).
template <class Ix>
static std::vector<int32_t> cpuPlace(const std::vector<Ix> &ids, int64_t k,
                                     const std::vector<int64_t> &copies,
                                     const std::vector<int64_t> &table) {
  int64_t experts = copies.size(), most = table.size() / experts;
  std::vector<Ix> valid(ids);
  for (Ix &e : valid)
    e = e >= 0 && e < experts ? e : 0;
  std::vector<int32_t> slots(ids.size());
  sc_desc d = desc(sizeof(Ix) == 8 ? 7 : 6, {(int64_t)ids.size() / k, k});
  sc_moe_place(&d, valid.data(), experts, most, copies.data(), table.data(),
               slots.data());
  for (size_t j = 0; j < ids.size(); ++j)
    if (ids[j] < 0 || ids[j] >= experts)
      slots[j] = -1;
  return slots;
}

// Ids in [0, experts), and with probability `bad` one of the out-of-range
// values given.
template <class Ix>
static std::vector<Ix> placeIds(int64_t p, int64_t experts, double bad,
                                std::vector<Ix> outside) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Ix> ids(p);
  for (Ix &v : ids)
    v = u(rng) < bad ? outside[rng() % outside.size()] : (Ix)(rng() % experts);
  return ids;
}

static void placeKernels() {
  // Inputs/moe_place.mlir's first placement: [37, 3] i64 ids, 3 experts
  // with 2, 1, 3 copies.
  std::vector<int64_t> ids64 = placeIds<int64_t>(
      37 * 3, 3, 0.1, {-1, -3, 3, 5, int64_t(1) << 40, INT64_MIN});
  std::vector<int32_t> got64(ids64.size(), 0x5a5a5a5a);
  emu_launch(1, 128, [&] { shardc_k0(ids64.data(), got64.data()); });
  report("place 37x3 i64 of 3 experts on 6 slots, ids out of range",
         got64 == cpuPlace<int64_t>(ids64, 3, {2, 1, 3},
                                    {0, 3, -1, 1, -1, -1, 2, 4, 5}));
  // The second: [300, 4] i32 ids, 5 experts on 11 slots; 5 blocks, 3 run.
  std::vector<int64_t> copies = {1, 4, 2, 1, 3},
                       table = {7,  -1, -1, -1, 0,  9,  3, 10, 1, 5,
                                -1, -1, 8,  -1, -1, -1, 2, 6,  4, -1};
  std::vector<int32_t> ids32 =
      placeIds<int32_t>(300 * 4, 5, 0.05, {-1, 5, 7, INT32_MIN, INT32_MAX});
  std::vector<int32_t> got32(ids32.size(), 0x5a5a5a5a);
  emu_launch(3, 256, [&] { shardc_k1(ids32.data(), got32.data()); });
  std::vector<int32_t> want32 = cpuPlace<int32_t>(ids32, 4, copies, table);
  report("place 300x4 i32 of 5 experts on 11 slots, ids out of range",
         got32 == want32);
  // Then the route by slot: the choices placed -1 get no row, the others
  // the CPU's route of their slots.
  std::vector<int32_t> off(12, 0x5a5a5a5a), rows(ids32.size(), 0x5a5a5a5a);
  emu_launch(1, 352, [&] { shardc_k2(got32.data(), off.data(), rows.data()); });
  std::vector<int32_t> placed, wantOff(12);
  for (int32_t s : want32)
    if (s >= 0)
      placed.push_back(s);
  std::vector<int32_t> wantPlaced(placed.size()), wantRows(ids32.size(), -1);
  sc_desc d = desc(6, {(int64_t)placed.size(), 1});
  sc_moe_route(&d, placed.data(), 11, wantOff.data(), wantPlaced.data());
  for (size_t j = 0, n = 0; j < ids32.size(); ++j)
    if (want32[j] >= 0)
      wantRows[j] = wantPlaced[n++];
  report("route of the placed slots, dropped choices without a row",
         off == wantOff && rows == wantRows && off[11] < (int32_t)ids32.size());
}

int main() {
  routeCase<int64_t, 8>(0, 2, 0, false);
  routeCase<int64_t, 8>(1, 2, 0, false);
  routeCase<int64_t, 8>(300, 2, 0, false);
  routeCase<int64_t, 8>(250, 2, 0, true);
  routeCase<int32_t, 3>(77, 3, 0.05, false);
  routeCase<int64_t, 1>(50, 1, 0, false);
  routeCase<int32_t, 160>(600, 4, 0.02, false);
  // Tiles of 64 rows: a tile straddling three experts, experts without rows
  // (first, middle, last), one over two tiles, rows past offsets[E].
  gemmCase<float>(150, 37, 70, {0, 70, 5, 0, 40, 0}, 1e-5f);
  gemmCase<sc_f16>(150, 37, 70, {0, 70, 5, 0, 40, 0}, 2e-3f);
  gemmCase<sc_bf16>(130, 20, 9, {64, 1, 65}, 1.6e-2f);
  skippedChoices();
  placeKernels();
  return failures ? 1 : 0;
}
