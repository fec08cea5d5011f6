// attention_mma.cuh - sc_attention on tensor cores, for fp16 and bf16
// operands whose head dims are multiples of 16 (up to 128): flash attention
// in the FlashAttention-2 arrangement, on mma.sync m16n8k16 with fp32
// accumulation.
//
// A block of 4 warps owns one (batch, tile of 64 queries) at a time
// (grid-strided); each warp owns 16 of the queries. The query tile is
// staged in shared memory once and kept in registers as a fragments. The
// keys are walked 64 at a time: the key and value tiles are copied into
// shared memory as stored (16-byte vectors when VEC: every row contiguous
// and 16-byte aligned), each warp computes its 16 x 64 scores with the key
// tile as b fragments, adds the scale, mask and causal limit in fp32, runs
// the online softmax of its rows inside each quad of lanes (the two rows a
// lane holds, running maximum m and sum l), rounds the probabilities to E
// as the a fragments of P V (the score tile's accumulator layout is the a
// layout of the next product) and accumulates P V from value fragments
// read with ldmatrix.trans. The output is acc / l, written as E.
//
// The semantics are sc_attention's (attention.cuh): the same strided
// geometry, the causal limit t <= s + T - S, a row with no visible key ends
// 0 / 0 = NaN, T = 0 gives 0. P is rounded to E before its product with V
// (as FlashAttention does); the sum l is taken before the rounding; e^x is
// exp2f(x log2 e). Below
// sm_80 the CUDA-core kernel runs instead.
#pragma once

// Copies rows [r0, r0 + n) x columns [0, W) of the strided operand at src +
// off (layout lay: row stride lay[NB + 1], column stride lay[NB + 2]) into
// dst with row pitch P, zero beyond `rows`; the block's NT threads share it.
template <int NB, int W, int P, int NT, bool VEC>
static __device__ __forceinline__ void
sc_attn_stage(uint16_t *dst, const uint16_t *__restrict__ src, int64_t off,
              const int64_t *lay, int64_t r0, int64_t rows, int n) {
  const int tid = threadIdx.x;
  if (VEC) {
    constexpr int W8 = W / 8;
    for (int i = tid; i < n * W8; i += NT) {
      const int r = i / W8, c = (i % W8) * 8;
      uint4 x = {0, 0, 0, 0};
      if (r0 + r < rows)
        x = *reinterpret_cast<const uint4 *>(src + off +
                                             (r0 + r) * lay[NB + 1] + c);
      *reinterpret_cast<uint4 *>(dst + r * P + c) = x;
    }
  } else {
    for (int i = tid; i < n * W; i += NT) {
      const int r = i / W, c = i % W;
      dst[r * P + c] = r0 + r < rows
                           ? src[off + (r0 + r) * lay[NB + 1] + c * lay[NB + 2]]
                           : uint16_t(0);
    }
  }
}

template <class E, int NB, int D, int DV, bool MASK, bool CAUSAL, bool VEC>
static __device__ __forceinline__ void
sc_attention_mma(const uint16_t *__restrict__ q, const uint16_t *__restrict__ k,
                 const uint16_t *__restrict__ v,
                 const uint16_t *__restrict__ mask, uint16_t *__restrict__ y,
                 const sc_attn_geom<NB> &g, int64_t batch, int64_t S, int64_t T,
                 float scale) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  sc_attention<E, NB, D, DV, 16, 16, MASK, CAUSAL>(q, k, v, mask, y, g, batch,
                                                   S, T, scale);
#else
  static_assert(D % 16 == 0 && DV % 16 == 0 && D <= 128 && DV <= 128,
                "head dims");
  constexpr int NT = 128, BQ = 64, BK = 64;
  // Row pitches padded by 8 elements: 16-byte aligned rows whose 32-bit
  // fragment reads (and ldmatrix's 8 rows) fall in distinct banks.
  constexpr int PD = D + 8, PV = DV + 8;
  __shared__ __align__(16) uint16_t qks[BQ * PD]; // queries, then keys
  __shared__ __align__(16) uint16_t vs[BK * PV];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int gid = lane / 4, tig = lane % 4;
  const float ninf = sc_limits<float>::lowest();
  const float kLog2e = 1.44269504f; // e^x as 2^(x log2 e): one MUFU op
  const E *tag = nullptr;
  const int64_t qTiles = (S + BQ - 1) / BQ;
  auto pack = [](float lo, float hi) {
    return (uint32_t)sc_elem<E>::store(lo) | (uint32_t)sc_elem<E>::store(hi)
                                                 << 16;
  };
  auto word = [](const uint16_t *p) {
    return *reinterpret_cast<const uint32_t *>(p);
  };
  for (int64_t tile = blockIdx.x; tile < batch * qTiles; tile += gridDim.x) {
    const int64_t b = tile / qTiles, q0 = (tile % qTiles) * BQ;
    int64_t qo = g.q[0], ko = g.k[0], vo = g.v[0], mo = g.m[0], yo = g.y[0];
    int64_t rem = b;
#pragma unroll
    for (int i = NB - 1; i >= 0; --i) {
      const int64_t idx = rem % g.dims[i];
      rem /= g.dims[i];
      qo += idx * g.q[1 + i];
      ko += idx * g.k[1 + i];
      vo += idx * g.v[1 + i];
      mo += idx * g.m[1 + i];
      yo += idx * g.y[1 + i];
    }
    sc_attn_stage<NB, D, PD, NT, VEC>(qks, q, qo, g.q, q0, S, BQ);
    __syncthreads();
    // This warp's 16 queries as a fragments, one per 16 head dims.
    uint32_t qf[D / 16][4];
    {
      const uint16_t *base = qks + (warp * 16 + gid) * PD + tig * 2;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        qf[kk][0] = word(base + kk * 16);
        qf[kk][1] = word(base + 8 * PD + kk * 16);
        qf[kk][2] = word(base + kk * 16 + 8);
        qf[kk][3] = word(base + 8 * PD + kk * 16 + 8);
      }
    }
    float acc[DV / 8][4];
#pragma unroll
    for (int n = 0; n < DV / 8; ++n)
      acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0;
    // Rows gid and gid + 8 of the warp's 16: running maximum and sum.
    float rowM[2] = {ninf, ninf}, rowL[2] = {0, 0};
    const int64_t rows[2] = {q0 + warp * 16 + gid, q0 + warp * 16 + gid + 8};
    int64_t tEnd = T;
    if (CAUSAL) {
      tEnd = q0 + BQ - 1 + T - S + 1;
      tEnd = tEnd < 0 ? 0 : tEnd > T ? T : tEnd;
    }
    __syncthreads(); // the key tiles overwrite the queries
    for (int64_t t0 = 0; t0 < tEnd; t0 += BK) {
      sc_attn_stage<NB, D, PD, NT, VEC>(qks, k, ko, g.k, t0, T, BK);
      sc_attn_stage<NB, DV, PV, NT, VEC>(vs, v, vo, g.v, t0, T, BK);
      __syncthreads();
      // Scores: s[j] is columns t0 + 8 j .. + 7, as mma's accumulator.
      float s[BK / 8][4];
#pragma unroll
      for (int j = 0; j < BK / 8; ++j) {
        s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0;
        const uint16_t *kr = qks + (j * 8 + gid) * PD + tig * 2;
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk)
          sc_mma_16816(s[j], qf[kk], word(kr + kk * 16), word(kr + kk * 16 + 8),
                       tag);
      }
      // Scale, mask, limits; then the online softmax of rows gid, gid + 8.
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t sq = rows[h];
        float mx = ninf;
#pragma unroll
        for (int j = 0; j < BK / 8; ++j)
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            const int64_t t = t0 + j * 8 + tig * 2 + c;
            float x = s[j][2 * h + c] * scale;
            if (MASK && sq < S && t < T)
              x += sc_elem<E>::load(
                  mask[mo + sq * g.m[NB + 1] + t * g.m[NB + 2]]);
            if (t >= T || (CAUSAL && t > sq + T - S))
              x = ninf;
            s[j][2 * h + c] = x;
            mx = sc_fmax(mx, x);
          }
        mx = sc_fmax(mx, sc_shfl_xor(mx, 1));
        mx = sc_fmax(mx, sc_shfl_xor(mx, 2));
        const float mNew = sc_fmax(rowM[h], mx);
        const bool none = mNew == ninf; // nothing visible yet: weights 0
        float sum = 0;
#pragma unroll
        for (int j = 0; j < BK / 8; ++j)
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            const float p =
                none ? 0.f : exp2f((s[j][2 * h + c] - mNew) * kLog2e);
            s[j][2 * h + c] = p;
            sum += p;
          }
        sum += sc_shfl_xor(sum, 1);
        sum += sc_shfl_xor(sum, 2);
        const float corr = none ? 1.f : exp2f((rowM[h] - mNew) * kLog2e);
        rowL[h] = rowL[h] * corr + sum;
        rowM[h] = mNew;
#pragma unroll
        for (int n = 0; n < DV / 8; ++n) {
          acc[n][2 * h] *= corr;
          acc[n][2 * h + 1] *= corr;
        }
      }
      // acc += P V, 16 keys per step.
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        const uint32_t a[4] = {pack(s[2 * kk][0], s[2 * kk][1]),
                               pack(s[2 * kk][2], s[2 * kk][3]),
                               pack(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                               pack(s[2 * kk + 1][2], s[2 * kk + 1][3])};
        const uint16_t *vr =
            vs + (kk * 16 + (lane & 15)) * PV + (lane >> 4) * 8;
#pragma unroll
        for (int n = 0; n < DV / 16; ++n) {
          uint32_t bv[4];
          sc_ldsm_x4_trans(bv, vr + n * 16);
          sc_mma_16816(acc[2 * n], a, bv[0], bv[1], tag);
          sc_mma_16816(acc[2 * n + 1], a, bv[2], bv[3], tag);
        }
      }
      __syncthreads();
    }
    // No keys at all (T = 0): the product with v sums nothing.
    const bool empty = T == 0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (rows[h] >= S)
        continue;
      uint16_t *yr = y + yo + rows[h] * g.y[NB + 1];
#pragma unroll
      for (int n = 0; n < DV / 8; ++n)
#pragma unroll
        for (int c = 0; c < 2; ++c)
          yr[(n * 8 + tig * 2 + c) * g.y[NB + 2]] =
              sc_elem<E>::store(empty ? 0.f : acc[n][2 * h + c] / rowL[h]);
    }
    __syncthreads(); // the next tile's queries overwrite the keys
  }
#endif
}
