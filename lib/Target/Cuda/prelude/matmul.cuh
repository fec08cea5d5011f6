// matmul.cuh - reference MatMul (f64, integers), MatMulInteger and
// QLinearMatMul (runtime/src/cpu/MatMulRef.cpp on CUDA).
//
// numpy matmul: y[t, i, j] = sum_k a[am, i, k] * b[bm, k, j] for output
// batch t, whose matrices of a and b (am, bm) follow from broadcasting (a
// 1-D operand was made a row or a column by the compiler). 16 x 16 output
// tiles, one per block of 256 threads, stage 16-wide slices of k in shared
// memory; each thread sums its k in order, in the CPU kernel's accumulator
// (double for floats without fused multiply-adds, uint64_t / uint32_t
// wrapping for integers), so the results are the CPU's bit for bit.
#pragma once

template <int RB> struct sc_mm_geom {
  // Per batch dim of y: its size and the strides (in matrices) of a's and
  // b's matrices, 0 where that operand broadcasts.
  int64_t od[RB > 0 ? RB : 1], astr[RB > 0 ? RB : 1], bstr[RB > 0 ? RB : 1];
};

static __device__ __forceinline__ double sc_mm_madd(double acc, double a,
                                                    double b) {
  return __dadd_rn(acc, __dmul_rn(a, b));
}
static __device__ __forceinline__ uint64_t sc_mm_madd(uint64_t acc, uint64_t a,
                                                      uint64_t b) {
  return acc + a * b;
}
static __device__ __forceinline__ uint32_t sc_mm_madd(uint32_t acc, uint32_t a,
                                                      uint32_t b) {
  return acc + a * b;
}

// la(am, i, k) and lb(bm, k, j) give the factors in Acc; out(t, am, bm, i,
// j, acc) stores one result.
template <class Acc, int RB, class LA, class LB, class OUT>
static __device__ __forceinline__ void
sc_mm_tiles(const LA &la, const LB &lb, const OUT &out,
            const sc_mm_geom<RB> &g, int64_t batch, int64_t M, int64_t K,
            int64_t N) {
  __shared__ Acc as[16][16], bs[16][17];
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  const int64_t tm = (M + 15) / 16, tn = (N + 15) / 16, tiles = batch * tm * tn;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t t = tile / (tm * tn), rem = tile % (tm * tn);
    const int64_t i = (rem / tn) * 16 + ty, j = (rem % tn) * 16 + tx;
    int64_t am = 0, bm = 0, br = t;
#pragma unroll
    for (int d = RB - 1; d >= 0; --d) {
      const int64_t c = br % g.od[d];
      br /= g.od[d];
      am += c * g.astr[d];
      bm += c * g.bstr[d];
    }
    Acc acc = 0;
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      // Out-of-range factors are staged as 0 but never summed.
      as[ty][tx] = i < M && k0 + tx < K ? la(am, i, k0 + tx) : Acc(0);
      bs[ty][tx] = k0 + ty < K && j < N ? lb(bm, k0 + ty, j) : Acc(0);
      __syncthreads();
      const int kn = K - k0 < 16 ? (int)(K - k0) : 16;
      for (int kk = 0; kk < kn; ++kk)
        acc = sc_mm_madd(acc, as[ty][kk], bs[kk][tx]);
      __syncthreads();
    }
    if (i < M && j < N)
      out(t, am, bm, i, j, acc);
  }
}

// ---- MatMul on f64 and integers ---------------------------------------------

template <class A> struct sc_mm_ref_acc { typedef uint64_t T; };
template <> struct sc_mm_ref_acc<float> { typedef double T; };
template <> struct sc_mm_ref_acc<double> { typedef double T; };

template <class E> struct sc_mm_ref_load {
  typedef typename sc_mm_ref_acc<typename sc_elem<E>::A>::T Acc;
  const typename sc_elem<E>::S *p;
  int64_t rows, cols; // of one matrix
  __device__ __forceinline__ Acc operator()(int64_t m, int64_t r,
                                            int64_t c) const {
    return (Acc)sc_elem<E>::load(p[(m * rows + r) * cols + c]);
  }
};
template <class E> struct sc_mm_ref_out {
  typedef typename sc_mm_ref_acc<typename sc_elem<E>::A>::T Acc;
  typename sc_elem<E>::S *p;
  int64_t M, N;
  __device__ __forceinline__ void operator()(int64_t t, int64_t, int64_t,
                                             int64_t i, int64_t j,
                                             Acc acc) const {
    p[(t * M + i) * N + j] =
        sc_elem<E>::store((typename sc_elem<E>::A)acc);
  }
};

template <class E, int RB>
static __device__ __forceinline__ void
sc_matmul_ref(const typename sc_elem<E>::S *__restrict__ a,
              const typename sc_elem<E>::S *__restrict__ b,
              typename sc_elem<E>::S *__restrict__ y, const sc_mm_geom<RB> &g,
              int64_t batch, int64_t M, int64_t K, int64_t N) {
  typedef typename sc_mm_ref_acc<typename sc_elem<E>::A>::T Acc;
  sc_mm_tiles<Acc>(sc_mm_ref_load<E>{a, M, K}, sc_mm_ref_load<E>{b, K, N},
                   sc_mm_ref_out<E>{y, M, N}, g, batch, M, K, N);
}

// ---- quantized ----------------------------------------------------------------

// A zero point or scale: MODE 0 absent, 1 one value, 2 one per row (or
// column), 3 one per row of every matrix of the operand.
template <int MODE>
static __device__ __forceinline__ int64_t sc_per_index(int64_t matrix,
                                                       int64_t i, int64_t per) {
  return MODE == 1 ? 0 : MODE == 2 ? i : matrix * per + i;
}

// (x - zero point) in uint32_t, x and its zero point int8 or uint8.
template <class X, class Z, int ZMODE> struct sc_mm_q_load {
  const X *p;
  const Z *zp;
  int64_t rows, cols, per;
  bool zpRow; // the zero point follows the row index (a), else the column (b)
  __device__ __forceinline__ uint32_t operator()(int64_t m, int64_t r,
                                                 int64_t c) const {
    int32_t z = 0;
    if (ZMODE != 0)
      z = (int32_t)zp[sc_per_index<ZMODE>(m, zpRow ? r : c, per)];
    return (uint32_t)((int32_t)p[(m * rows + r) * cols + c] - z);
  }
};

struct sc_mm_int_out {
  int32_t *p;
  int64_t M, N;
  __device__ __forceinline__ void operator()(int64_t t, int64_t, int64_t,
                                             int64_t i, int64_t j,
                                             uint32_t acc) const {
    p[(t * M + i) * N + j] = (int32_t)acc;
  }
};

// MatMulInteger: AZ / BZ modes of the zero points (0: none).
template <class XA, class ZA, int AZ, class XB, class ZB, int BZ, int RB>
static __device__ __forceinline__ void
sc_matmul_integer(const XA *__restrict__ a, const XB *__restrict__ b,
                  const ZA *__restrict__ azp, const ZB *__restrict__ bzp,
                  int32_t *__restrict__ y, const sc_mm_geom<RB> &g,
                  int64_t batch, int64_t M, int64_t K, int64_t N) {
  sc_mm_tiles<uint32_t>(sc_mm_q_load<XA, ZA, AZ>{a, azp, M, K, M, true},
                        sc_mm_q_load<XB, ZB, BZ>{b, bzp, K, N, N, false},
                        sc_mm_int_out{y, M, N}, g, batch, M, K, N);
}

// A scale as float (scales are f32, f16, bf16 or f64).
template <class E, int MODE>
static __device__ __forceinline__ float
sc_scale_at(const typename sc_elem<E>::S *p, int64_t matrix, int64_t i,
            int64_t per) {
  return (float)sc_elem<E>::load(p[sc_per_index<MODE>(matrix, i, per)]);
}
// Rounds to the precision of the scales' type (numpy computes fp16 scale
// arithmetic in fp16).
template <class E> static __device__ __forceinline__ float sc_round_to(float v) {
  return v;
}
template <> __device__ __forceinline__ float sc_round_to<sc_f16>(float v) {
  return sc_h2f(sc_f2h(v));
}
template <> __device__ __forceinline__ float sc_round_to<sc_bf16>(float v) {
  return sc_bf2f(sc_f2bf(v));
}

// Requantization of QLinearMatMul: y = clamp(rint(acc * m + y_zp)) with
// m = round(round(a_scale * b_scale) / y_scale) in the scales' precision.
template <class SA, int SAM, class SB, int SBM, class SY, int SYM, class Y,
          int YZM>
struct sc_mm_qlinear_out {
  const typename sc_elem<SA>::S *sa;
  const typename sc_elem<SB>::S *sb;
  const typename sc_elem<SY>::S *sy;
  const Y *yzp;
  Y *p;
  int64_t M, N;
  __device__ __forceinline__ void operator()(int64_t t, int64_t am, int64_t bm,
                                             int64_t i, int64_t j,
                                             uint32_t acc) const {
    const float ysc = sc_scale_at<SY, SYM>(sy, t, i, M);
    const double zp = YZM != 0 ? (double)yzp[sc_per_index<YZM>(t, i, M)] : 0.0;
    float m = sc_round_to<SA>(__fmul_rn(sc_scale_at<SA, SAM>(sa, am, i, M),
                                        sc_scale_at<SB, SBM>(sb, bm, j, N)));
    m = sc_round_to<SA>(m / ysc);
    double v = rint(__dadd_rn(__dmul_rn((double)(int32_t)acc, (double)m), zp));
    const double lo = (double)sc_limits<Y>::lowest(),
                 hi = (double)sc_limits<Y>::highest();
    v = v < lo ? lo : hi < v ? hi : v;
    p[(t * M + i) * N + j] = (Y)v;
  }
};

template <class XA, class ZA, int AZ, class SA, int SAM, class XB, class ZB,
          int BZ, class SB, int SBM, class SY, int SYM, class Y, int YZM,
          int RB>
static __device__ __forceinline__ void
sc_qlinear_matmul(const XA *__restrict__ a, const typename sc_elem<SA>::S *sa,
                  const ZA *__restrict__ azp, const XB *__restrict__ b,
                  const typename sc_elem<SB>::S *sb, const ZB *__restrict__ bzp,
                  const typename sc_elem<SY>::S *sy, const Y *__restrict__ yzp,
                  Y *__restrict__ y, const sc_mm_geom<RB> &g, int64_t batch,
                  int64_t M, int64_t K, int64_t N) {
  sc_mm_tiles<uint32_t>(
      sc_mm_q_load<XA, ZA, AZ>{a, azp, M, K, M, true},
      sc_mm_q_load<XB, ZB, BZ>{b, bzp, K, N, N, false},
      sc_mm_qlinear_out<SA, SAM, SB, SBM, SY, SYM, Y, YZM>{sa, sb, sy, yzp, y,
                                                           M, N},
      g, batch, M, K, N);
}
