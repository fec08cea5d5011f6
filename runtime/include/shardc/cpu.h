/*===- shardc/cpu.h - the header of generated CPU code -------------------===*
 *
 * The only header the generated C++ includes. It stays small on purpose:
 * every model compile parses it. It declares
 *   - the program ABI the generated code implements (shardc_program),
 *   - the element conversions the generated loops use (fp16, bf16),
 *   - the runtime's CPU kernels (runtime/src/cpu) and oneDNN wrappers.
 *
 * Kernel ABI: tensors are passed as a descriptor (`sc_desc`: ONNX dtype code,
 * rank, dims; dense row-major) plus a data pointer. Optional tensors are
 * passed as (NULL, NULL). Kernels report bad data (an index out of range)
 * through sc_fail(); the runtime turns that into a failed run.
 *===----------------------------------------------------------------------===*/
#ifndef SHARDC_CPU_H
#define SHARDC_CPU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Vector forms of the libm functions kernel bodies call (glibc's libmvec,
 * x86-64, glibc 2.35 and later: every one below, each within 4 ulp), so
 * that a `#pragma omp simd` loop calling them vectorizes instead of
 * calling the scalar function per element. glibc's <math.h> declares them
 * only under -ffast-math, which generated code does not use. */
#if defined(_OPENMP) && defined(__x86_64__) && defined(__GLIBC__) && \
    !defined(__clang__) && !defined(__CUDACC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define SC_LIBMVEC(name)                                                     \
  _Pragma("omp declare simd notinbranch") float name##f(float) __THROW;     \
  _Pragma("omp declare simd notinbranch") double name(double) __THROW;
#define SC_LIBMVEC2(name)                                                    \
  _Pragma("omp declare simd notinbranch") float name##f(float, float)       \
      __THROW;                                                               \
  _Pragma("omp declare simd notinbranch") double name(double, double) __THROW;
SC_LIBMVEC(exp)
SC_LIBMVEC(log)
SC_LIBMVEC(tanh)
SC_LIBMVEC(erf)
SC_LIBMVEC(sin)
SC_LIBMVEC(cos)
SC_LIBMVEC2(pow)
#undef SC_LIBMVEC
#undef SC_LIBMVEC2
#endif

#define SC_ABI_VERSION 4

/* Marks a generated entry point (a program's or a part's init and run):
   straight-line library and kernel calls, which the host compiler need not
   optimize. At -O2 they took a quarter of a large program's host compile;
   the kernels they call keep their own optimization. */
#if defined(__clang__)
#define SC_ENTRY __attribute__((optnone, noinline))
#elif defined(__GNUC__)
#define SC_ENTRY __attribute__((optimize("O0"), noinline))
#else
#define SC_ENTRY
#endif
#define SC_MAX_RANK 8

typedef struct sc_desc {
  int32_t dtype; /* ONNX TensorProto.DataType code */
  int32_t rank;
  int64_t dims[SC_MAX_RANK];
} sc_desc;

/* A communicator: a group of ranks that run collectives together
 * (runtime/src/comm/Comm.h). Opaque to generated code. */
typedef struct sc_comm sc_comm;

/* What a rank's code knows about where it runs (program ABI v4). `comms`
 * has one communicator per mesh axis (axis i: the ranks that differ from
 * this one only along axis i); `world` spans every rank. `stream` is the
 * rank's CUDA stream (a CUstream) on a GPU and NULL on the CPU. `dims` has
 * this run's value of each of the plan's dynamic dims (symbol k of the
 * generated code is dims[k], within [1, its bound]); NULL and 0 when the
 * program has none. */
typedef struct sc_rank_ctx {
  int32_t rank;
  int32_t world_size;
  int32_t num_axes;
  sc_comm *const *comms;
  sc_comm *world;
  void *stream;
  const int64_t *dims;
  int32_t num_dims;
} sc_rank_ctx;

/* Generated entry points of one rank. `handles` has plan.num_handles slots
 * for library state created by init (oneDNN primitives) and freed by the
 * runtime with sc_handle_free. `arena` is plan.arena_bytes, 64-byte aligned;
 * `weights` is the rank's mapped weights section. Ranks that run the same
 * program share its entry points and tell themselves apart by `ctx`. */
typedef int (*sc_init_fn)(const sc_rank_ctx *ctx, void **handles);
typedef void (*sc_run_fn)(const sc_rank_ctx *ctx, void **handles, char *arena,
                          const char *weights, void *const *inputs,
                          void *const *outputs);
typedef struct sc_rank_entry {
  sc_init_fn init;
  sc_run_fn run;
} sc_rank_entry;

/* The CUDA code of one rank (runtime/include/shardc/cuda.h). The same
 * signature as the CPU entry, but every pointer is a device pointer: the
 * runtime's device arena, the uploaded weights section and device staging
 * buffers for the inputs and outputs. run() only enqueues work on the
 * model's stream (the runtime captures it into a CUDA graph). */
typedef struct sc_cuda sc_cuda;
typedef int (*sc_cuda_init_fn)(const sc_rank_ctx *ctx, sc_cuda *cu,
                               void **handles);
typedef void (*sc_cuda_run_fn)(const sc_rank_ctx *ctx, sc_cuda *cu,
                               void **handles, char *arena,
                               const char *weights, void *const *inputs,
                               void *const *outputs);
typedef struct sc_cuda_entry {
  sc_cuda_init_fn init;
  sc_cuda_run_fn run;
} sc_cuda_entry;

/* One NVRTC output: arch "sm_80" / "sm_90" (cubin) or "compute_90" (PTX,
 * NUL-terminated, JIT-compiled by the driver on newer GPUs). */
typedef struct sc_cuda_image {
  const char *arch;
  const unsigned char *data;
  uint64_t size;
} sc_cuda_image;

/* The program ABI. A program carries CPU code, CUDA code or both (the plan's
 * target mask says which); both use the same plan and weights. */
/* Multi-rank programs reach the other ranks through MPI: `world` is
 * sc_mpi_world (libshardc_rt_mpi.a, linked only into them); single-rank
 * programs have none and need no MPI. */
typedef sc_comm *(*sc_world_fn)(void);

struct shardc_program {
  uint32_t abi_version; /* SC_ABI_VERSION */
  uint32_t num_ranks;   /* entries per table: one per rank of the plan */
  const unsigned char *plan;
  uint64_t plan_size;
  const sc_rank_entry *ranks;       /* CPU entries, NULL without CPU code */
  const sc_cuda_entry *cuda_ranks;  /* CUDA entries, NULL without CUDA code */
  uint32_t num_cuda_images;
  const sc_cuda_image *cuda_images;
  uint32_t num_cuda_kernels;        /* kernel names in the images, indexed */
  const char *const *cuda_kernels;  /* by sc_cu_launch */
  /* The device mesh (row-major rank numbering; its product is num_ranks):
   * sc_rank_ctx.comms has one communicator per axis. 0 axes: no mesh. */
  uint32_t num_mesh_axes;
  const int64_t *mesh_shape;
  sc_world_fn world;                /* NULL for a single rank */
};

/* The rank and size of a communicator (-1 for NULL). */
int32_t sc_comm_rank(const sc_comm *comm);
int32_t sc_comm_size(const sc_comm *comm);
/* The MPI world of a multi-rank program (NULL after sc_fail), and its
 * release. */
sc_comm *sc_mpi_world(void);
void sc_comm_free(sc_comm *comm);

/* ---- collectives (kern.all_reduce, ...; runtime/src/comm) ----
 * On the communicator of mesh axis `axis` (sc_ctx_comm); host buffers on
 * the CPU. Counts are elements of `dtype` (ONNX codes). Failures go through
 * sc_fail. */
#define SC_REDUCE_SUM 0
#define SC_REDUCE_MAX 1
#define SC_REDUCE_MIN 2
#define SC_REDUCE_PROD 3
/* ctx->comms[axis], or NULL after sc_fail when the rank has no such axis. */
sc_comm *sc_ctx_comm(const sc_rank_ctx *ctx, int32_t axis);
/* out = in combined over the group (in == out allowed). */
void sc_all_reduce(sc_comm *comm, const void *in, void *out, uint64_t count,
                   int32_t dtype, int32_t kind);
/* out = every rank's `count` elements of in, in rank order. */
void sc_all_gather(sc_comm *comm, const void *in, void *out, uint64_t count,
                   int32_t dtype);
/* out (`count` elements) = block `rank` of in (group size blocks of count)
 * combined over the group. */
void sc_reduce_scatter(sc_comm *comm, const void *in, void *out,
                       uint64_t count, int32_t dtype, int32_t kind);
/* Block j (`count` elements) of in goes to rank j; block i of out came from
 * rank i. */
void sc_all_to_all(sc_comm *comm, const void *in, void *out, uint64_t count,
                   int32_t dtype);
/* Point to point between pipeline stages (dist.send / dist.recv): the peer
 * is this rank + `offset` in the communicator's group (a peer outside it is
 * an sc_fail naming it). sc_send may return before the data has left: the
 * runtime copies `buf` (so the arena may be reused at once) and waits for
 * every send at the end of the run. sc_recv returns when `buf` holds the
 * data. Messages from one rank to another arrive in the order sent. */
void sc_send(sc_comm *comm, const void *buf, uint64_t count, int32_t dtype,
             int32_t offset);
void sc_recv(sc_comm *comm, void *buf, uint64_t count, int32_t dtype,
             int32_t offset);

/* Expert parallelism (kern.moe_dispatch / kern.moe_return; dist.moe).
 * The group of n ranks holds S = n * L expert slots, rank j the slots
 * [j * L, (j + 1) * L). sc_moe_dispatch sends the rows of `rows` ([P,
 * width], grouped by slot; `offsets` i32 [S + 1] from sc_moe_route) to the
 * ranks holding their slots: the counts by an all-to-all, then the rows by
 * a variable-size all-to-all. Arrivals are grouped by local slot, then by
 * sender: `recv` ([capacity, width]; more rows fail the run),
 * `recv_offsets` i32 [L + 1], `recv_counts` i32 [n * L] (at q * L + e: the
 * rows rank q sent for local slot e). sc_moe_return sends rows laid out as
 * `recv` (the experts' results) back: row i of `rows` is the result of row
 * i of the dispatch's input. `width` is in elements of `dtype`. */
void sc_moe_dispatch(sc_comm *comm, const void *rows, const int32_t *offsets,
                     void *recv, int32_t *recv_offsets, int32_t *recv_counts,
                     uint64_t local_slots, uint64_t width, uint64_t capacity,
                     int32_t dtype);
void sc_moe_return(sc_comm *comm, const void *recv,
                   const int32_t *recv_counts, const int32_t *offsets,
                   void *rows, uint64_t local_slots, uint64_t width,
                   uint64_t capacity, int32_t dtype);

/* Errors from kernels and library wrappers (printf-style, first one wins). */
void sc_fail(const char *fmt, ...);
void sc_handle_free(void *handle);

/* ---- element conversions (round to nearest even) ---- */
static inline float sc_bits2f(uint32_t u) { union { uint32_t u; float f; } v; v.u = u; return v.f; }
static inline uint32_t sc_f2bits(float f) { union { uint32_t u; float f; } v; v.f = f; return v.u; }
static inline float sc_bf2f(uint16_t h) { return sc_bits2f((uint32_t)h << 16); }
static inline uint16_t sc_f2bf(float f) {
  uint32_t u = sc_f2bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static inline float sc_h2f(uint16_t h) {
  uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return sc_bits2f(s | 0x7f800000u | (m << 13));
  if (e == 0) { float r = (float)m * 5.9604644775390625e-8f; return s ? -r : r; }
  return sc_bits2f(s | ((e + 112u) << 23) | (m << 13));
}
static inline uint16_t sc_f2h(float f) {
  uint32_t u = sc_f2bits(f), s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(s | 0x7e00u);
  if (a >= 0x477ff000u) return (uint16_t)(s | 0x7c00u); /* rounds to inf */
  if (a < 0x38800000u) { /* subnormal or zero */
    float r = sc_bits2f(a) * 16777216.0f; /* scale by 2^24 */
    return (uint16_t)(s | (uint32_t)nearbyintf(r));
  }
  uint32_t r = a + 0xc8000fffu + ((a >> 13) & 1u); /* rebias exponent, RNE */
  return (uint16_t)(s | (r >> 13));
}

/* ---- runtime CPU kernels (runtime/src/cpu) ----
 * In every kernel the output has the dtype of the (first) input unless the
 * comment says otherwise; output descriptors are given where the output
 * shape does not follow from the inputs. Each kernel is called by one kern
 * op (dialects/Kern/IR/Kern*Ops.td), which lists these arguments in this
 * order (its getRuntimeArgs) and whose verifier checks what the kernel
 * assumes. */

/* Row normalizations: kern.softmax, kern.layer_norm (KernNormOps.td). */

/* Softmax (or log-softmax) along `axis` of x. f32, f64, f16, bf16. */
void sc_softmax(const sc_desc *x, const void *xp, void *y, int64_t axis,
                int32_t is_log);
/* Layer normalization over axes [axis, rank). scale and bias (nullable) have
 * the full normalized shape. mean and inv_std (nullable) are float32 with
 * x's shape cut to [0, axis). f32, f64, f16, bf16. */
void sc_layer_norm(const sc_desc *x, const void *xp, const void *scale,
                   const void *bias, void *y, float *mean, float *inv_std,
                   int64_t axis, float epsilon);
/* Indexing and scans: kern.gather, kern.topk, kern.arg_max, kern.cumsum,
 * kern.trilu (KernSelectionOps.td). */
/* ONNX Gather along axis; idx is int32 or int64, negative wraps; out of range
 * calls sc_fail. Any dtype (copied by element size). */
void sc_gather(const sc_desc *data, const void *dp, const sc_desc *idx,
               const void *ip, void *y, int64_t axis);
/* Gather from rows [offset, offset + n) of a table of `rows` rows along axis
 * (a vocab-parallel lookup): indices are checked against [-rows, rows) with
 * sc_gather's message and wrap by `rows`; one outside the part gives a row
 * of zeros. */
void sc_gather_part(const sc_desc *data, const void *dp, const sc_desc *idx,
                    const void *ip, void *y, int64_t axis, int64_t rows,
                    int64_t offset);
/* TopK along axis; values have x's dtype, indices int64. Ties: lower index
 * first. sorted=0 may still sort. */
void sc_topk(const sc_desc *x, const void *xp, void *values, int64_t *indices,
             int64_t axis, int64_t k, int32_t largest, int32_t sorted);
/* ArgMax along axis into int64 (keepdims does not change the data). */
void sc_arg_max(const sc_desc *x, const void *xp, int64_t *y, int64_t axis,
                int32_t select_last_index);
/* Cumulative sum along axis. f32, f64, i32, i64, u32, u64. */
void sc_cumsum(const sc_desc *x, const void *xp, void *y, int64_t axis,
               int32_t exclusive, int32_t reverse);
/* Keep the upper (or lower) triangle of the last two dims, offset by k;
 * zero elsewhere. Any dtype. */
void sc_trilu(const sc_desc *x, const void *xp, void *y, int32_t upper,
              int64_t k);
/* Element gathers and scatters: kern.gather_elements, kern.scatter_elements,
 * kern.scatter_nd (KernScatterOps.td). idx is int32 or int64; negative
 * indices count from the end of their dim; one out of range calls sc_fail
 * (before anything is written). Any dtype (copied by element size) for the
 * gather and for SC_SCATTER_NONE; the reductions take numeric dtypes (max and
 * min propagate NaN). */
#define SC_SCATTER_NONE 0
#define SC_SCATTER_ADD 1
#define SC_SCATTER_MUL 2
#define SC_SCATTER_MAX 3
#define SC_SCATTER_MIN 4
/* y[i] = data[i with i[axis] = idx[i]]; y has idx's shape. */
void sc_gather_elements(const sc_desc *data, const void *dp,
                        const sc_desc *idx, const void *ip, void *y,
                        int64_t axis);
/* y[i with i[axis] = idx[i]] op= updates[i] in place, in row-major order of
 * idx (updates has idx's shape). */
void sc_scatter_elements(const sc_desc *y, void *yp, const sc_desc *idx,
                         const void *ip, const void *updates, int64_t axis,
                         int32_t reduction);
/* y[idx[j, :]] op= updates[j] in place, slices in order of j: idx is
 * [j..., k], updates [j..., y dims k...]. */
void sc_scatter_nd(const sc_desc *y, void *yp, const sc_desc *idx,
                   const void *ip, const void *updates, int32_t reduction);
/* Mixture of experts: kern.moe_route, moe_permute, grouped_matmul,
 * moe_combine (KernMoeOps.td; runtime/src/cpu/Moe.cpp). */
/* ids [T, K] (int32 or int64) in [0, experts): offsets[e] (int32, experts
 * + 1 of them) is the first row of expert e in the permuted matrix, and
 * slots[t * K + k] the row of choice (t, k); within an expert, rows follow
 * the choices' order. An id out of range fails the run. */
void sc_moe_route(const sc_desc *ids, const void *ip, int64_t experts,
                  int32_t *offsets, int32_t *slots);
/* rows[slots[t * K + k]] = x[t] (x [T, H], rows [T * K, H], any dtype). */
/* Expert load balancing: slots[t, k] = table[e * max_copies + t mod
 * copies[e]] for e = ids[t, k] (ids i32 or i64 [T, K]; slots i32). */
void sc_moe_place(const sc_desc *ids, const void *ip, int64_t experts,
                  int64_t max_copies, const int64_t *copies,
                  const int64_t *table, int32_t *slots);
void sc_moe_permute(const sc_desc *x, const void *xp, const sc_desc *rows,
                    const int32_t *slots, void *rp);
/* y[offsets[e]:offsets[e + 1]] = a[same rows] x b[e] for every expert e:
 * a [P, Kd], b [E, Kd, N], y [P, N] of one dtype (f32, f16, bf16), by
 * oneDNN with the row count given at run time. Rows past offsets[E] are
 * not written. */
void sc_grouped_matmul(const sc_desc *a, const void *ap, const sc_desc *b,
                       const void *bp, const int32_t *offsets, void *yp);
/* y[offsets[e]:offsets[e + 1]] += bias[e] for every expert e: bias [E, N],
 * y [P, N] of one dtype (f32, f16, bf16; added in f32). Rows past
 * offsets[E] are left as they are. */
void sc_grouped_bias(const sc_desc *bias, const void *bp,
                     const int32_t *offsets, const sc_desc *y, void *yp);
/* y[t] = sum over k in order of weights[t, k] * rows[slots[t * K + k]]
 * (rows [P, H], weights [T, K], y [T, H]; one float dtype, summed in f32
 * for f16 / bf16). */
void sc_moe_combine(const sc_desc *rows, const void *rp, const sc_desc *w,
                    const void *wp, const int32_t *slots, void *yp);
/* Windows and resampling: kern.pad, kern.pool, kern.resize
 * (KernSpatialOps.td). */
/* Pad with pads[0..rank) before and pads[rank..2*rank) after each dim
 * (negative crops). mode: 0 constant (value: one element of x's dtype, or
 * NULL for zero), 1 reflect, 2 edge, 3 wrap. y gives the output shape. */
void sc_pad(const sc_desc *x, const void *xp, const sc_desc *y, void *yp,
            const int64_t *pads, int32_t mode, const void *value);
/* N-D pooling over the dims after N, C. kind: 0 max, 1 average. kernel,
 * strides, dilations have rank-2 entries, pads 2*(rank-2) (begins, ends).
 * y gives the output shape (ceil_mode already applied). indices (nullable,
 * int64, max only): flat index into x, row-major, or column-major over the
 * spatial dims when storage_order is 1. Average excludes padding unless
 * count_include_pad. channels_last = 1: x and y are stored channels-last,
 * their descriptors giving the physical dims [N, spatial..., C] (kernel,
 * strides, dilations and pads stay per spatial dim); no indices then.
 * f32, f64, f16. */
void sc_pool(const sc_desc *x, const void *xp, const sc_desc *y, void *yp,
             int64_t *indices, int32_t kind, const int64_t *kernel,
             const int64_t *strides, const int64_t *dilations,
             const int64_t *pads, int32_t count_include_pad,
             int32_t storage_order, int32_t channels_last);
/* ONNX Resize to y's shape. scales has rank entries (output/input per dim as
 * given by the model). mode: 0 nearest, 1 linear, 2 cubic.
 * coord: 0 half_pixel, 1 asymmetric, 2 pytorch_half_pixel, 3 align_corners,
 * 4 tf_half_pixel_for_nearest, 5 half_pixel_symmetric.
 * nearest: 0 round_prefer_floor, 1 round_prefer_ceil, 2 floor, 3 ceil.
 * f32, f64, f16, u8, i8. */
void sc_resize(const sc_desc *x, const void *xp, const sc_desc *y, void *yp,
               const float *scales, int32_t mode, int32_t coord,
               int32_t nearest, float cubic_a, int32_t exclude_outside,
               float extrapolation_value, int32_t antialias);
/* Products: kern.einsum, kern.matmul_ref, kern.matmul_integer,
 * kern.qlinear_matmul (KernContractionOps.td). */
/* Einsum over n inputs (explicit or implicit output, "..." allowed). */
void sc_einsum(const char *equation, int32_t n, const sc_desc *const *xs,
               const void *const *xps, const sc_desc *y, void *yp);
/* ONNX MatMul (numpy broadcasting, 1-D operands) for dtypes oneDNN does not
 * take: f64 and integers. */
void sc_matmul_ref(const sc_desc *a, const void *ap, const sc_desc *b,
                   const void *bp, const sc_desc *y, void *yp);
/* MatMulInteger: (a - a_zp) x (b - b_zp) in int32. a, b: u8 or i8;
 * zero points scalar or per-row (a) / per-column (b), same dtype as a / b. */
void sc_matmul_integer(const sc_desc *a, const void *ap, const sc_desc *b,
                       const void *bp, const sc_desc *azp, const void *azpp,
                       const sc_desc *bzp, const void *bzpp, const sc_desc *y,
                       int32_t *yp);
/* QLinearMatMul: requantized (u8 or i8, the output zero point's dtype). */
void sc_qlinear_matmul(const sc_desc *a, const void *ap, const sc_desc *as,
                       const void *asp, const sc_desc *azp, const void *azpp,
                       const sc_desc *b, const void *bp, const sc_desc *bs,
                       const void *bsp, const sc_desc *bzp, const void *bzpp,
                       const sc_desc *ys, const void *ysp, const sc_desc *yzp,
                       const void *yzpp, const sc_desc *y, void *yp);
/* Fused attention: kern.attention (KernAttentionOps.td). */
/* Scaled dot-product attention y = softmax(q k^T * scale + mask) v, the
 * softmax over the keys. dims: the nb batch dims, then S, T, D, E (q is
 * [batch, S, D], k [batch, T, D], v [batch, T, E], mask [batch, S, T], y
 * [batch, S, E]). Each operand is a base pointer and a layout [offset, nb
 * batch strides, row stride, column stride] in elements, so q, k and v can
 * be views of one packed buffer and y can be written in another order; zero
 * strides broadcast (the mask). mask (nullable, layout ignored then) has q's
 * dtype and is added to the scaled scores; with causal, query s sees the
 * keys t <= s + T - S only. Computes in fp32 with an online softmax over
 * key blocks: the S x T scores are never stored. A query that sees no key
 * (or only -inf scores) gets NaN, as Softmax gives. f32, f16, bf16 (on a
 * CPU with bf16 matmul kernels, bf16's products run on oneDNN with the
 * softmax weights rounded to bf16). flags: SC_ATTENTION_CAUSAL, and
 * SC_ATTENTION_BF16_PRODUCTS, which lets f32 operands take the bf16 path
 * (rounded to bf16 as they are read; an int8 program's attention) where
 * the CPU has those kernels. */
#define SC_ATTENTION_CAUSAL 1
#define SC_ATTENTION_BF16_PRODUCTS 2
void sc_attention(int32_t dtype, int32_t nb, const int64_t *dims, const void *q,
                  const int64_t *q_layout, const void *k,
                  const int64_t *k_layout, const void *v,
                  const int64_t *v_layout, const void *mask,
                  const int64_t *mask_layout, void *y, const int64_t *y_layout,
                  float scale, int32_t flags);

/* ---- oneDNN (runtime/src/cpu/Dnnl.cpp) ----
 * create() runs at load time and returns NULL after sc_fail() when oneDNN
 * cannot take the configuration; run() executes the cached primitive. */

/* Epilogues (activations) of the GEMM and convolution wrappers. A GEMM
 * applies it to alpha * op(a) x op(b) + bias, before the residual (shared
 * by sc_dnnl_matmul_create and sc_cu_matmul_create); a convolution to
 * conv + bias + residual (sc_dnnl_conv_create). */
#define SC_EPILOGUE_NONE 0
#define SC_EPILOGUE_RELU 1
#define SC_EPILOGUE_GELU_TANH 2 /* 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) */
#define SC_EPILOGUE_GELU 3      /* exact: 0.5x(1 + erf(x / sqrt(2))) */
#define SC_EPILOGUE_HARDSWISH 4 /* x * min(max(x + 3, 0), 6) / 6; oneDNN only */

/* y = epilogue(alpha * op(a) x op(b) + bias) + residual + beta * y. a, b, y
 * have the same rank (>= 2; batch dims broadcast where 1); op transposes the
 * last two dims. bias (nullable) has y's rank with dims 1 or equal.
 * residual (nullable) has y's shape and dtype and comes only with epilogue
 * SC_EPILOGUE_NONE; beta != 0 comes only without epilogue and residual.
 * f32 (f16, bf16 where oneDNN has kernels). */
void *sc_dnnl_matmul_create(const sc_desc *a, const sc_desc *b,
                            const sc_desc *bias, const sc_desc *residual,
                            const sc_desc *y, int32_t trans_a, int32_t trans_b,
                            float alpha, float beta, int32_t epilogue);
void sc_dnnl_matmul_run(void *h, const void *a, const void *b,
                        const void *bias, const void *residual, void *y);
/* The same GEMM when its shapes vary per run within bounds (bounded dynamic
 * dims, docs/dynamic-shapes.md): create() takes the descriptors at the
 * bounds and the same configuration, fails like sc_dnnl_matmul_create when
 * oneDNN cannot take it, and returns a cache of primitives by shape. run()
 * takes this run's descriptors (each dim at most its bound at create; the
 * same ranks) and pointers; it creates a shape's primitive the first time
 * it sees the shape and keeps at most SHARDC_DNNL_SHAPES (default 8) shapes,
 * evicting the least recently used. A packed read-only b is packed once per
 * shape of b, not per shape of a. Freed by sc_handle_free. */
void *sc_dnnl_matmul_dyn_create(const sc_desc *a, const sc_desc *b,
                                const sc_desc *bias, const sc_desc *residual,
                                const sc_desc *y, int32_t trans_a,
                                int32_t trans_b, float alpha, float beta,
                                int32_t epilogue);
void sc_dnnl_matmul_dyn_run(void *h, const sc_desc *a, const sc_desc *b,
                            const sc_desc *bias, const sc_desc *residual,
                            const sc_desc *y, const void *a_ptr,
                            const void *b_ptr, const void *bias_ptr,
                            const void *residual_ptr, void *y_ptr);
/* graph.linear_int8 (kern.matmul_int8): y = epilogue((a x b) * a_scale *
 * b_scale + bias) + residual. a int8 or uint8 [.., M, K], b int8 [1.., K, N] (packed
 * once when read-only), y f32 [.., M, N]; a_scale (nullable) f32 [.., M, 1]
 * (per row; null when a's per-tensor scale is folded into b_scale),
 * b_scale f32 [N] (per column), bias (nullable) f32 [1.., 1, N], residual
 * (nullable) y's shape, only with SC_EPILOGUE_NONE. One oneDNN int8 matmul
 * (VNNI, AMX): the column scales are its output scales, the rest its
 * post-ops. */
void *sc_dnnl_matmul_int8_create(const sc_desc *a, const sc_desc *b,
                                 const sc_desc *a_scale, const sc_desc *b_scale,
                                 const sc_desc *bias, const sc_desc *residual,
                                 const sc_desc *y, int32_t epilogue);
void sc_dnnl_matmul_int8_run(void *h, const void *a, const void *b,
                             const void *a_scale, const void *b_scale,
                             const void *bias, const void *residual, void *y);
/* N-D (1-3 spatial) grouped convolution or, with transposed=1, deconvolution
 * (ONNX ConvTranspose weight layout C_in x C_out/group x k...). pads: begins
 * then ends; dilations are ONNX's (1 = dense). y gives the output shape.
 * y = epilogue(conv(x, w) + bias + residual): epilogue is an SC_EPILOGUE_*
 * code; residual (nullable) has y's descriptor and layout, and run() may
 * pass y itself as the residual (accumulate in place). channels_last: bit 0
 * = x, bit 1 = y (and residual) are stored channels-last, their descriptors
 * then giving the physical dims [N, spatial..., C]; clear = [N, C,
 * spatial...]. Deconvolution takes channels_last 0 only. */
void *sc_dnnl_conv_create(const sc_desc *x, const sc_desc *w,
                          const sc_desc *bias, const sc_desc *residual,
                          const sc_desc *y, const int64_t *strides,
                          const int64_t *dilations, const int64_t *pads,
                          int64_t group, int32_t transposed, int32_t epilogue,
                          int32_t channels_last);
void sc_dnnl_conv_run(void *h, const void *x, const void *w, const void *bias,
                      const void *residual, void *y);
/* The int8 convolution (not transposed): x u8 or i8 with zero point
 * x_zero_point (per tensor; the padding holds it, as real zero), w i8
 * symmetric, y = epilogue(scales[c] * sum((x - x_zero_point) w) + bias[c]
 * + residual) in f32 with f32 bias; scales (num_scales: one per output
 * channel, or 1 for all) are fixed at creation, as oneDNN's int8
 * convolutions need them. The rest as sc_dnnl_conv_create's. */
void *sc_dnnl_conv_int8_create(const sc_desc *x, const sc_desc *w,
                               const sc_desc *bias, const sc_desc *residual,
                               const sc_desc *y, const int64_t *strides,
                               const int64_t *dilations, const int64_t *pads,
                               int64_t group, int32_t epilogue,
                               int32_t channels_last, const float *scales,
                               int64_t num_scales, int32_t x_zero_point);
void sc_dnnl_conv_int8_run(void *h, const void *x, const void *w,
                           const void *bias, const void *residual, void *y);
/* The int8 convolution of an activation quantized at run time
 * (DynamicQuantizeLinear's): y = epilogue(x_scale * scales[c] *
 * sum((x - x_zero_point) w) + bias[c] + residual), x_scale (f32) and
 * x_zero_point (x's type) read at each run; scales are the weight's,
 * fixed at creation. The rest as sc_dnnl_conv_int8_create's. */
void *sc_dnnl_conv_int8_dynamic_create(
    const sc_desc *x, const sc_desc *w, const sc_desc *bias,
    const sc_desc *residual, const sc_desc *y, const sc_desc *x_scale,
    const sc_desc *x_zero, const int64_t *strides, const int64_t *dilations,
    const int64_t *pads, int64_t group, int32_t epilogue, int32_t channels_last,
    const float *scales, int64_t num_scales);
void sc_dnnl_conv_int8_dynamic_run(void *h, const void *x, const void *w,
                                   const void *bias, const void *residual,
                                   void *y, const float *x_scale,
                                   const void *x_zero_point);

#ifdef __cplusplus
}
#endif
#endif /* SHARDC_CPU_H */
