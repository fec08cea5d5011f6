// normalize.cuh - Softmax, LogSoftmax and LayerNormalization
// (runtime/src/cpu/Normalize.cpp on CUDA).
//
// Row kernels (the normalized elements are contiguous: softmax along the
// last axis, every layer norm): W threads per row of N elements, a group of
// W <= 32 lanes of a warp (several rows per block) or a whole block
// (W = blockDim.x > 32, one row per block). Thread `lane` owns the chunks
// of V consecutive elements at (c * W + lane) * V, c < C, read and written
// as one vector each; it keeps them in registers between the passes when
// C * V <= 32, else it reads them again. Rows are grid-strided; a warp
// keeps looping while any of its groups has a row (the shuffles need every
// lane), the others idle along (`active`).
//
// Statistics are in A: fp32 for f32 / f16 / bf16, fp64 for f64. The CPU
// kernels sum in double, so the last bits can differ; NaN and infinity
// behave the same (the maximum ignores NaN, a NaN or +inf in a row makes the
// row's softmax NaN).
#pragma once

// The loop over this thread's rows `r` (W threads per row); `lane` is the
// thread's place in its row, `active` whether r is a row.
#define SC_ROW_LOOP_BEGIN(W)                                                   \
  const int lane = threadIdx.x % W;                                            \
  const int per = W <= 32 ? blockDim.x / W : 1; /* rows per block */          \
  const int group = W <= 32 ? threadIdx.x / W : 0;                             \
  const int inWarp = W < 32 ? (threadIdx.x & 31) / W : 0;                      \
  const int64_t step = (int64_t)gridDim.x * per;                               \
  for (int64_t r = (int64_t)blockIdx.x * per + group; r - inWarp < rows;       \
       r += step) {                                                            \
    const bool active = r < rows;

// ---- softmax -------------------------------------------------------------

template <class E, int N, int W, int V, bool LOG>
static __device__ __forceinline__ void
sc_softmax_rows(const typename sc_elem<E>::S *__restrict__ x,
                typename sc_elem<E>::S *__restrict__ y, int64_t rows) {
  typedef typename sc_elem<E>::A A;
  constexpr int C = (N + W * V - 1) / (W * V);
  constexpr bool CACHE = C * V <= 32;
  __shared__ A part[W > 32 ? W / 32 : 1];
  SC_ROW_LOOP_BEGIN(W)
    const typename sc_elem<E>::S *xr = x + r * N;
    typename sc_elem<E>::S *yr = y + r * N;
    A mx = sc_limits<A>::lowest();
    if (CACHE) {
      A v[CACHE ? C * V : 1];
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int i = (c * W + lane) * V;
        if (active && i < N) {
          sc_load_vec<E, V>(xr + i, v + c * V);
#pragma unroll
          for (int k = 0; k < V; ++k)
            mx = sc_fmax(mx, v[c * V + k]);
        }
      }
      mx = sc_row_reduce<W>(mx, sc_max_op(), part);
      A sum = 0;
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int i = (c * W + lane) * V;
        if (active && i < N) {
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const A d = v[c * V + k] - mx;
            const A e = sc_exp(d);
            sum += e;
            v[c * V + k] = LOG ? d : e;
          }
        }
      }
      sum = sc_row_reduce<W>(sum, sc_sum_op(), part);
      const A ls = LOG ? sc_log(sum) : sum;
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int i = (c * W + lane) * V;
        if (active && i < N) {
#pragma unroll
          for (int k = 0; k < V; ++k)
            v[c * V + k] = LOG ? v[c * V + k] - ls : v[c * V + k] / ls;
          sc_store_vec<E, V>(yr + i, v + c * V);
        }
      }
    } else {
      A v[V];
      for (int i = lane * V; active && i < N; i += W * V) {
        sc_load_vec<E, V>(xr + i, v);
#pragma unroll
        for (int k = 0; k < V; ++k)
          mx = sc_fmax(mx, v[k]);
      }
      mx = sc_row_reduce<W>(mx, sc_max_op(), part);
      A sum = 0;
      for (int i = lane * V; active && i < N; i += W * V) {
        sc_load_vec<E, V>(xr + i, v);
#pragma unroll
        for (int k = 0; k < V; ++k)
          sum += sc_exp(v[k] - mx);
      }
      sum = sc_row_reduce<W>(sum, sc_sum_op(), part);
      const A ls = LOG ? sc_log(sum) : sum;
      for (int i = lane * V; active && i < N; i += W * V) {
        sc_load_vec<E, V>(xr + i, v);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const A d = v[k] - mx;
          v[k] = LOG ? d - ls : sc_exp(d) / ls;
        }
        sc_store_vec<E, V>(yr + i, v);
      }
    }
  }
}

// Softmax along an axis with `inner` > 1 elements after it: one thread per
// (outer, inner) column, which walks its n elements at stride inner
// (neighbouring threads read neighbouring columns).
template <class E, bool LOG, class I>
static __device__ __forceinline__ void
sc_softmax_cols(const typename sc_elem<E>::S *__restrict__ x,
                typename sc_elem<E>::S *__restrict__ y, I outer, I n,
                I inner) {
  typedef typename sc_elem<E>::A A;
  const I total = outer * inner;
  for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (I)gridDim.x * blockDim.x) {
    const I base = (t / inner) * n * inner + t % inner;
    A mx = sc_limits<A>::lowest();
    for (I a = 0; a < n; ++a)
      mx = sc_fmax(mx, sc_elem<E>::load(x[base + a * inner]));
    A sum = 0;
    for (I a = 0; a < n; ++a)
      sum += sc_exp(sc_elem<E>::load(x[base + a * inner]) - mx);
    const A ls = LOG ? sc_log(sum) : sum;
    for (I a = 0; a < n; ++a) {
      const A d = sc_elem<E>::load(x[base + a * inner]) - mx;
      y[base + a * inner] = sc_elem<E>::store(LOG ? d - ls : sc_exp(d) / ls);
    }
  }
}

// ---- layer normalization -------------------------------------------------

// Rows of N elements: y = (x - mean) * inv_std * scale (+ bias), with
// inv_std = 1 / sqrt(var + eps) and the variance taken around the mean (two
// passes). mean and inv_std (nullable) get one float per row.
template <class E, int N, int W, int V, bool BIAS>
static __device__ __forceinline__ void
sc_layer_norm_rows(const typename sc_elem<E>::S *__restrict__ x,
                   const typename sc_elem<E>::S *__restrict__ scale,
                   const typename sc_elem<E>::S *__restrict__ bias,
                   typename sc_elem<E>::S *__restrict__ y,
                   float *__restrict__ mean, float *__restrict__ inv_std,
                   int64_t rows, typename sc_elem<E>::A eps) {
  typedef typename sc_elem<E>::A A;
  constexpr int C = (N + W * V - 1) / (W * V);
  constexpr bool CACHE = C * V <= 32;
  __shared__ A part[W > 32 ? W / 32 : 1];
  SC_ROW_LOOP_BEGIN(W)
    const typename sc_elem<E>::S *xr = x + r * N;
    typename sc_elem<E>::S *yr = y + r * N;
    A v[CACHE ? C * V : V], s[V], b[V];
    A sum = 0;
    if (CACHE) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int i = (c * W + lane) * V;
        if (active && i < N) {
          sc_load_vec<E, V>(xr + i, v + c * V);
#pragma unroll
          for (int k = 0; k < V; ++k)
            sum += v[c * V + k];
        }
      }
    } else {
      for (int i = lane * V; active && i < N; i += W * V) {
        sc_load_vec<E, V>(xr + i, v);
#pragma unroll
        for (int k = 0; k < V; ++k)
          sum += v[k];
      }
    }
    const A m = sc_row_reduce<W>(sum, sc_sum_op(), part) / (A)N;
    A sq = 0;
    if (CACHE) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int i = (c * W + lane) * V;
        if (active && i < N) {
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const A d = v[c * V + k] - m;
            sq += d * d;
          }
        }
      }
    } else {
      for (int i = lane * V; active && i < N; i += W * V) {
        sc_load_vec<E, V>(xr + i, v);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const A d = v[k] - m;
          sq += d * d;
        }
      }
    }
    const A var = sc_row_reduce<W>(sq, sc_sum_op(), part) / (A)N;
    const A inv = (A)1 / sc_sqrt(var + eps);
    if (CACHE) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int i = (c * W + lane) * V;
        if (active && i < N) {
          sc_load_vec<E, V>(scale + i, s);
          if (BIAS)
            sc_load_vec<E, V>(bias + i, b);
#pragma unroll
          for (int k = 0; k < V; ++k) {
            A o = (v[c * V + k] - m) * inv;
            o = o * s[k];
            if (BIAS)
              o = o + b[k];
            v[c * V + k] = o;
          }
          sc_store_vec<E, V>(yr + i, v + c * V);
        }
      }
    } else {
      for (int i = lane * V; active && i < N; i += W * V) {
        sc_load_vec<E, V>(xr + i, v);
        sc_load_vec<E, V>(scale + i, s);
        if (BIAS)
          sc_load_vec<E, V>(bias + i, b);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          A o = (v[k] - m) * inv;
          o = o * s[k];
          if (BIAS)
            o = o + b[k];
          v[k] = o;
        }
        sc_store_vec<E, V>(yr + i, v);
      }
    }
    if (active && lane == 0) {
      if (mean)
        mean[r] = (float)m;
      if (inv_std)
        inv_std[r] = (float)inv;
    }
  }
}
