// attention_mma.cuh - sc_attention on tensor cores, for fp16 and bf16
// operands whose head dims are multiples of 16 (up to 128): flash attention
// in the FlashAttention-2 arrangement, on mma.sync m16n8k16 with fp32
// accumulation.
//
// A block of 4 warps owns one (batch, tile of 64 RW queries) at a time
// (grid-strided); each warp owns RW blocks of 16 queries (RW = 2 reads
// each key and value fragment for two products). The query tile is staged
// in shared memory once and kept in registers as a fragments. The keys are
// walked BK at a time through two shared buffers: while the block computes
// on one key and value tile, the next is copied into the other (cp.async
// when VEC: every row contiguous and 16-byte aligned; element by element
// otherwise). Without PREFETCH one buffer is loaded, then computed on. Each warp computes its scores with the key tile as b
// fragments, adds the scale, mask and causal limit in fp32, runs the
// online softmax of its rows inside each quad of lanes (running maximum m
// and sum l of the two rows a lane holds per block), rounds the
// probabilities to E as the a fragments of P V (the score tile's
// accumulator layout is the a layout of the next product) and accumulates
// P V from value fragments read with ldmatrix.trans. The output is acc / l,
// written as E.
//
// The semantics are sc_attention's (attention.cuh): the same strided
// geometry, the causal limit t <= s + T - S, a row with no visible key ends
// 0 / 0 = NaN, T = 0 gives 0. P is rounded to E before its product with V
// (as FlashAttention does); the sum l is taken before the rounding; e^x is
// exp2f(x log2 e). Below sm_80 the CUDA-core kernel runs instead.
#pragma once

// Copies rows [r0, r0 + n) x columns [0, W) of the strided operand at src +
// off (layout lay: row stride lay[NB + 1], column stride lay[NB + 2]) into
// dst with row pitch P, zero beyond `rows`; the block's NT threads share it.
// VEC: 16-byte cp.async copies, to be committed and waited for; otherwise
// element by element, done when the block's next barrier is.
template <int NB, int W, int P, int NT, bool VEC>
static __device__ __forceinline__ void
sc_attn_stage(uint16_t *dst, const uint16_t *__restrict__ src, int64_t off,
              const int64_t *lay, int64_t r0, int64_t rows, int n) {
  const int tid = threadIdx.x;
  if (VEC) {
    constexpr int W8 = W / 8;
    for (int i = tid; i < n * W8; i += NT) {
      const int r = i / W8, c = (i % W8) * 8;
      const bool valid = r0 + r < rows;
      sc_cp_async16(dst + r * P + c,
                    src + off + (valid ? (r0 + r) * lay[NB + 1] + c : 0),
                    valid);
    }
  } else {
    for (int i = tid; i < n * W; i += NT) {
      const int r = i / W, c = i % W;
      dst[r * P + c] =
          r0 + r < rows ? src[off + (r0 + r) * lay[NB + 1] + c * lay[NB + 2]]
                        : uint16_t(0);
    }
  }
}

template <class E, int NB, int D, int DV, int RW, int BK, bool PREFETCH,
          bool MASK, bool CAUSAL, bool VEC>
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
  static_assert(D % 16 == 0 && DV % 16 == 0 && D <= 128 && DV <= 128 &&
                    BK % 16 == 0 && (RW == 1 || RW == 2),
                "head dims and tiles");
  constexpr int NT = 128, BQ = 64 * RW;
  // Row pitches padded by 8 elements: 16-byte aligned rows whose 32-bit
  // fragment reads (and ldmatrix's 8 rows) fall in distinct banks. Two
  // key-and-value buffers of KV elements; the queries are staged in the
  // second before the first keys arrive there.
  constexpr int PD = D + 8, PV = DV + 8, KV = BK * (PD + PV);
  constexpr int QS = BQ * PD > KV ? BQ * PD : KV;
  __shared__ __align__(16) uint16_t smem[KV + QS];
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
    int64_t qo, ko, vo, mo, yo;
    sc_attn_offsets(g, b, qo, ko, vo, mo, yo);
    int64_t tEnd = T;
    if (CAUSAL) {
      tEnd = q0 + BQ - 1 + T - S + 1;
      tEnd = tEnd < 0 ? 0 : tEnd > T ? T : tEnd;
    }
    // The key and value tile at t0 into buffer i.
    auto stageKv = [&](int i, int64_t t0) {
      uint16_t *buf = smem + i * KV;
      sc_attn_stage<NB, D, PD, NT, VEC>(buf, k, ko, g.k, t0, T, BK);
      sc_attn_stage<NB, DV, PV, NT, VEC>(buf + BK * PD, v, vo, g.v, t0, T,
                                         BK);
    };
    sc_attn_stage<NB, D, PD, NT, VEC>(smem + KV, q, qo, g.q, q0, S, BQ);
    if (tEnd > 0)
      stageKv(0, 0);
    if (VEC) {
      sc_cp_async_commit();
      sc_cp_async_wait<0>();
    }
    __syncthreads();
    // This warp's RW blocks of 16 queries as a fragments, one per 16 head
    // dims; rows[r][h] is row gid + 8 h of block r.
    uint32_t qf[RW][D / 16][4];
    int64_t rows[RW][2];
#pragma unroll
    for (int r = 0; r < RW; ++r) {
      const int row = (warp * RW + r) * 16 + gid;
      rows[r][0] = q0 + row;
      rows[r][1] = q0 + row + 8;
      const uint16_t *base = smem + KV + row * PD + tig * 2;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        qf[r][kk][0] = word(base + kk * 16);
        qf[r][kk][1] = word(base + 8 * PD + kk * 16);
        qf[r][kk][2] = word(base + kk * 16 + 8);
        qf[r][kk][3] = word(base + 8 * PD + kk * 16 + 8);
      }
    }
    float acc[RW][DV / 8][4];
    // Running maximum and sum of each row a lane holds.
    float rowM[RW][2], rowL[RW][2];
#pragma unroll
    for (int r = 0; r < RW; ++r) {
      rowM[r][0] = rowM[r][1] = ninf;
      rowL[r][0] = rowL[r][1] = 0;
#pragma unroll
      for (int n = 0; n < DV / 8; ++n)
        acc[r][n][0] = acc[r][n][1] = acc[r][n][2] = acc[r][n][3] = 0;
    }
    __syncthreads(); // the second buffer's keys overwrite the queries
    int cur = 0;
    for (int64_t t0 = 0; t0 < tEnd; t0 += BK, cur ^= PREFETCH) {
      // Prefetch the next tile into the other buffer, then wait for this
      // one (its copies are the older group). Without PREFETCH, one
      // buffer: this tile's copies (the first's are in place already).
      const bool next = PREFETCH && t0 + BK < tEnd;
      if (next)
        stageKv(cur ^ 1, t0 + BK);
      if (!PREFETCH && t0 > 0)
        stageKv(0, t0);
      if (VEC) {
        sc_cp_async_commit();
        if (next)
          sc_cp_async_wait<1>();
        else
          sc_cp_async_wait<0>();
      }
      __syncthreads();
      const uint16_t *ks = smem + cur * KV, *vs = ks + BK * PD;
      // Scores: s[r][j] is columns t0 + 8 j .. + 7 of block r, as mma's
      // accumulator; each key fragment serves the RW blocks.
      float s[RW][BK / 8][4];
#pragma unroll
      for (int j = 0; j < BK / 8; ++j) {
#pragma unroll
        for (int r = 0; r < RW; ++r)
          s[r][j][0] = s[r][j][1] = s[r][j][2] = s[r][j][3] = 0;
        const uint16_t *kr = ks + (j * 8 + gid) * PD + tig * 2;
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
          const uint32_t b0 = word(kr + kk * 16), b1 = word(kr + kk * 16 + 8);
#pragma unroll
          for (int r = 0; r < RW; ++r)
            sc_mma_16816(s[r][j], qf[r][kk], b0, b1, tag);
        }
      }
      // Scale, mask, limits; then the online softmax of each row.
#pragma unroll
      for (int r = 0; r < RW; ++r)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t sq = rows[r][h];
          float mx = ninf;
#pragma unroll
          for (int j = 0; j < BK / 8; ++j)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
              const int64_t t = t0 + j * 8 + tig * 2 + c;
              float x = s[r][j][2 * h + c] * scale;
              if (MASK && sq < S && t < T)
                x += sc_elem<E>::load(
                    mask[mo + sq * g.m[NB + 1] + t * g.m[NB + 2]]);
              if (t >= T || (CAUSAL && t > sq + T - S))
                x = ninf;
              s[r][j][2 * h + c] = x;
              mx = sc_fmax(mx, x);
            }
          mx = sc_fmax(mx, sc_shfl_xor(mx, 1));
          mx = sc_fmax(mx, sc_shfl_xor(mx, 2));
          const float mNew = sc_fmax(rowM[r][h], mx);
          const bool none = mNew == ninf; // nothing visible yet: weights 0
          float sum = 0;
#pragma unroll
          for (int j = 0; j < BK / 8; ++j)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
              const float p =
                  none ? 0.f : exp2f((s[r][j][2 * h + c] - mNew) * kLog2e);
              s[r][j][2 * h + c] = p;
              sum += p;
            }
          sum += sc_shfl_xor(sum, 1);
          sum += sc_shfl_xor(sum, 2);
          const float corr =
              none ? 1.f : exp2f((rowM[r][h] - mNew) * kLog2e);
          rowL[r][h] = rowL[r][h] * corr + sum;
          rowM[r][h] = mNew;
#pragma unroll
          for (int n = 0; n < DV / 8; ++n) {
            acc[r][n][2 * h] *= corr;
            acc[r][n][2 * h + 1] *= corr;
          }
        }
      // acc += P V, 16 keys per step; each value fragment serves the RW
      // blocks.
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        uint32_t a[RW][4];
#pragma unroll
        for (int r = 0; r < RW; ++r) {
          a[r][0] = pack(s[r][2 * kk][0], s[r][2 * kk][1]);
          a[r][1] = pack(s[r][2 * kk][2], s[r][2 * kk][3]);
          a[r][2] = pack(s[r][2 * kk + 1][0], s[r][2 * kk + 1][1]);
          a[r][3] = pack(s[r][2 * kk + 1][2], s[r][2 * kk + 1][3]);
        }
        const uint16_t *vr =
            vs + (kk * 16 + (lane & 15)) * PV + (lane >> 4) * 8;
#pragma unroll
        for (int n = 0; n < DV / 16; ++n) {
          uint32_t bv[4];
          sc_ldsm_x4_trans(bv, vr + n * 16);
#pragma unroll
          for (int r = 0; r < RW; ++r) {
            sc_mma_16816(acc[r][2 * n], a[r], bv[0], bv[1], tag);
            sc_mma_16816(acc[r][2 * n + 1], a[r], bv[2], bv[3], tag);
          }
        }
      }
      __syncthreads(); // the next prefetch overwrites this buffer
    }
    // No keys at all (T = 0): the product with v sums nothing.
    const bool empty = T == 0;
#pragma unroll
    for (int r = 0; r < RW; ++r)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (rows[r][h] >= S)
          continue;
        uint16_t *yr = y + yo + rows[r][h] * g.y[NB + 1];
#pragma unroll
        for (int n = 0; n < DV / 8; ++n)
#pragma unroll
          for (int c = 0; c < 2; ++c)
            yr[(n * 8 + tig * 2 + c) * g.y[NB + 2]] = sc_elem<E>::store(
                empty ? 0.f : acc[r][n][2 * h + c] / rowL[r][h]);
      }
    __syncthreads(); // the next tile's queries overwrite the keys
  }
#endif
}
