// attention.cuh - scaled dot-product attention (sc_attention,
// runtime/src/cpu/Attention.cpp) on CUDA: flash attention on CUDA cores.
//
// A block of 128 threads owns one (batch, tile of BQ queries) at a time
// (grid-strided). It stages its queries in shared memory, then walks the
// keys BK at a time: the key and value tiles are staged in shared memory
// (converted to A, zero beyond T), the BQ x BK scores are computed into
// shared memory (each thread a BQ/16 x BK/8 register tile, 16 row groups x
// 8 column groups, rows and columns interleaved so that the shared reads
// are conflict-free with the odd row pitches), each warp runs the online
// softmax of its rows (running maximum m and sum l per row, warp shuffles),
// and each thread rescales and accumulates its BQ/16 x DV/8 slice of the
// output in registers. The output is acc / l. The S x T scores exist only
// one BQ x BK tile at a time.
//
// Operands are strided views: geometry g holds the batch dims and, per
// operand, [offset, batch strides, row stride, column stride] in elements
// (the mask's zero strides broadcast). With CAUSAL, query s sees keys
// t <= s + T - S, and a query tile stops at its last visible key. A row
// with no visible key (or only -inf scores) ends 0 / 0 = NaN, as Softmax
// of a row of -inf does (T = 0 gives 0); NaN scores propagate. Statistics and products are
// in A (fp32 for f32 / f16 / bf16, fp64 for f64).
#pragma once

template <int NB> struct sc_attn_geom {
  int64_t dims[NB > 0 ? NB : 1];
  int64_t q[NB + 3], k[NB + 3], v[NB + 3], m[NB + 3], y[NB + 3];
};

// The offsets of batch b's q, k, v, mask and y in their buffers.
template <int NB>
static __device__ __forceinline__ void
sc_attn_offsets(const sc_attn_geom<NB> &g, int64_t b, int64_t &qo, int64_t &ko,
                int64_t &vo, int64_t &mo, int64_t &yo) {
  qo = g.q[0], ko = g.k[0], vo = g.v[0], mo = g.m[0], yo = g.y[0];
#pragma unroll
  for (int i = NB - 1; i >= 0; --i) {
    const int64_t idx = b % g.dims[i];
    b /= g.dims[i];
    qo += idx * g.q[1 + i];
    ko += idx * g.k[1 + i];
    vo += idx * g.v[1 + i];
    mo += idx * g.m[1 + i];
    yo += idx * g.y[1 + i];
  }
}

template <class E, int NB, int D, int DV, int BQ, int BK, bool MASK,
          bool CAUSAL>
static __device__ __forceinline__ void
sc_attention(const typename sc_elem<E>::S *__restrict__ q,
             const typename sc_elem<E>::S *__restrict__ k,
             const typename sc_elem<E>::S *__restrict__ v,
             const typename sc_elem<E>::S *__restrict__ mask,
             typename sc_elem<E>::S *__restrict__ y, const sc_attn_geom<NB> &g,
             int64_t batch, int64_t S, int64_t T, float scale) {
  typedef typename sc_elem<E>::A A;
  constexpr int NT = 128, RG = 16, CG = 8;
  constexpr int RI = BQ / RG, CI = BK / CG, CJ = (DV + CG - 1) / CG;
  static_assert(BQ % RG == 0 && BK % CG == 0, "tile sizes");
  __shared__ A qs[BQ][D + 1];
  __shared__ A ks[BK][D + 1];
  __shared__ A vs[BK][DV];
  __shared__ A ps[BQ][BK + 1];
  __shared__ A rowM[BQ], rowL[BQ], rowC[BQ];
  const int tid = threadIdx.x, rg = tid / CG, cg = tid % CG;
  const int warp = tid / 32, lane = tid % 32;
  const A ninf = sc_limits<A>::lowest();
  const int64_t qTiles = (S + BQ - 1) / BQ;
  for (int64_t tile = blockIdx.x; tile < batch * qTiles; tile += gridDim.x) {
    const int64_t b = tile / qTiles, q0 = (tile % qTiles) * BQ;
    int64_t qo, ko, vo, mo, yo;
    sc_attn_offsets(g, b, qo, ko, vo, mo, yo);
    for (int i = tid; i < BQ * D; i += NT) {
      const int r = i / D, d = i % D;
      qs[r][d] = q0 + r < S ? sc_elem<E>::load(q[qo + (q0 + r) * g.q[NB + 1] +
                                                 d * g.q[NB + 2]])
                            : A(0);
    }
    for (int i = tid; i < BQ; i += NT) {
      rowM[i] = ninf;
      rowL[i] = 0;
    }
    A acc[RI][CJ];
#pragma unroll
    for (int i = 0; i < RI; ++i)
#pragma unroll
      for (int j = 0; j < CJ; ++j)
        acc[i][j] = 0;
    int64_t tEnd = T;
    if (CAUSAL) {
      tEnd = q0 + BQ - 1 + T - S + 1;
      tEnd = tEnd < 0 ? 0 : tEnd > T ? T : tEnd;
    }
    __syncthreads();
    for (int64_t t0 = 0; t0 < tEnd; t0 += BK) {
      // Stage the key and value tiles.
      for (int i = tid; i < BK * D; i += NT) {
        const int c = i / D, d = i % D;
        ks[c][d] = t0 + c < T ? sc_elem<E>::load(k[ko + (t0 + c) * g.k[NB + 1] +
                                                   d * g.k[NB + 2]])
                              : A(0);
      }
      for (int i = tid; i < BK * DV; i += NT) {
        const int c = i / DV, e = i % DV;
        vs[c][e] = t0 + c < T ? sc_elem<E>::load(v[vo + (t0 + c) * g.v[NB + 1] +
                                                   e * g.v[NB + 2]])
                              : A(0);
      }
      __syncthreads();
      // Scores: rows rg + RG * i, columns cg + CG * j.
      A s[RI][CI];
#pragma unroll
      for (int i = 0; i < RI; ++i)
#pragma unroll
        for (int j = 0; j < CI; ++j)
          s[i][j] = 0;
      for (int d = 0; d < D; ++d) {
        A qv[RI], kv[CI];
#pragma unroll
        for (int i = 0; i < RI; ++i)
          qv[i] = qs[rg + RG * i][d];
#pragma unroll
        for (int j = 0; j < CI; ++j)
          kv[j] = ks[cg + CG * j][d];
#pragma unroll
        for (int i = 0; i < RI; ++i)
#pragma unroll
          for (int j = 0; j < CI; ++j)
            s[i][j] += qv[i] * kv[j];
      }
#pragma unroll
      for (int i = 0; i < RI; ++i) {
        const int r = rg + RG * i;
        const int64_t sq = q0 + r;
#pragma unroll
        for (int j = 0; j < CI; ++j) {
          const int c = cg + CG * j;
          const int64_t t = t0 + c;
          A x = s[i][j] * (A)scale;
          if (MASK && sq < S && t < T)
            x += sc_elem<E>::load(
                mask[mo + sq * g.m[NB + 1] + t * g.m[NB + 2]]);
          if (t >= T || (CAUSAL && t > sq + T - S))
            x = ninf;
          ps[r][c] = x;
        }
      }
      __syncthreads();
      // Online softmax, a warp per row.
      for (int r = warp; r < BQ; r += NT / 32) {
        A mx = ninf;
        for (int c = lane; c < BK; c += 32)
          mx = sc_fmax(mx, ps[r][c]);
        mx = sc_row_reduce<32>(mx, sc_max_op(), (A *)nullptr);
        const A mOld = rowM[r], mNew = sc_fmax(mOld, mx);
        const bool none = mNew == ninf; // nothing visible yet: weights 0
        A sum = 0;
        for (int c = lane; c < BK; c += 32) {
          const A p = none ? A(0) : sc_exp(ps[r][c] - mNew);
          ps[r][c] = p;
          sum += p;
        }
        sum = sc_row_reduce<32>(sum, sc_sum_op(), (A *)nullptr);
        if (lane == 0) {
          const A corr = none ? A(1) : sc_exp(mOld - mNew);
          rowC[r] = corr;
          rowL[r] = rowL[r] * corr + sum;
          rowM[r] = mNew;
        }
      }
      __syncthreads();
      // acc = acc * corr + P V.
#pragma unroll
      for (int i = 0; i < RI; ++i) {
        const A corr = rowC[rg + RG * i];
#pragma unroll
        for (int j = 0; j < CJ; ++j)
          acc[i][j] *= corr;
      }
      for (int c = 0; c < BK; ++c) {
        A pv[RI];
#pragma unroll
        for (int i = 0; i < RI; ++i)
          pv[i] = ps[rg + RG * i][c];
#pragma unroll
        for (int j = 0; j < CJ; ++j) {
          const int e = cg + CG * j;
          const A x = e < DV ? vs[c][e] : A(0);
#pragma unroll
          for (int i = 0; i < RI; ++i)
            acc[i][j] += pv[i] * x;
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < RI; ++i) {
      const int r = rg + RG * i;
      if (q0 + r >= S)
        continue;
      const A l = rowL[r];
      // No keys at all (T = 0): the product with v sums nothing.
      const bool empty = T == 0;
#pragma unroll
      for (int j = 0; j < CJ; ++j) {
        const int e = cg + CG * j;
        if (e < DV)
          y[yo + (q0 + r) * g.y[NB + 1] + e * g.y[NB + 2]] =
              sc_elem<E>::store(empty ? A(0) : acc[i][j] / l);
      }
    }
    __syncthreads(); // rowL / qs are rewritten by the next tile
  }
}
