// elem.cuh - what the runtime-kernel families share: element kinds, vector
// loads and block reductions.
//
// The runtime kernel ops' kernels (lib/Target/Cuda/Calls) are CUDA forms of
// the CPU runtime kernels (runtime/src/cpu). As there, a kernel is a template
// over an element kind E: sc_elem<E>::S is how an element is stored and
// sc_elem<E>::A the type arithmetic runs in (float for fp16 / bf16, which are
// stored as raw uint16_t, so they are told apart from uint16 by the tags
// sc_f16 and sc_bf16).
//
// Every buffer a kernel gets (an arena slot, a weight, an I/O staging
// buffer) is at least 64-byte aligned, so rows whose byte length is a
// multiple of 16 can be moved as 16-byte vectors.
#pragma once

struct sc_f16 {};
struct sc_bf16 {};

template <class E> struct sc_elem {
  typedef E S;
  typedef E A;
  static __device__ __forceinline__ A load(S v) { return v; }
  static __device__ __forceinline__ S store(A v) { return v; }
};
template <> struct sc_elem<sc_f16> {
  typedef uint16_t S;
  typedef float A;
  static __device__ __forceinline__ float load(uint16_t v) { return sc_h2f(v); }
  static __device__ __forceinline__ uint16_t store(float v) { return sc_f2h(v); }
};
template <> struct sc_elem<sc_bf16> {
  typedef uint16_t S;
  typedef float A;
  static __device__ __forceinline__ float load(uint16_t v) { return sc_bf2f(v); }
  static __device__ __forceinline__ uint16_t store(float v) { return sc_f2bf(v); }
};

// NaN test that is false for integers (and survives: no fast-math).
template <class A> static __device__ __forceinline__ bool sc_isnan(A v) {
  return v != v;
}

static __device__ __forceinline__ float sc_fmax(float a, float b) { return fmaxf(a, b); }
static __device__ __forceinline__ double sc_fmax(double a, double b) { return fmax(a, b); }
static __device__ __forceinline__ float sc_exp(float a) { return expf(a); }
static __device__ __forceinline__ double sc_exp(double a) { return exp(a); }
static __device__ __forceinline__ float sc_log(float a) { return logf(a); }
static __device__ __forceinline__ double sc_log(double a) { return log(a); }
static __device__ __forceinline__ float sc_sqrt(float a) { return sqrtf(a); }
static __device__ __forceinline__ double sc_sqrt(double a) { return sqrt(a); }

// The lowest value of A: -inf for floats (std::numeric_limits' choice in
// the CPU kernels: has_infinity ? -infinity : lowest).
template <class A> struct sc_limits;
template <> struct sc_limits<float> {
  static __device__ __forceinline__ float lowest() { return -INFINITY; }
};
template <> struct sc_limits<double> {
  static __device__ __forceinline__ double lowest() { return -(double)INFINITY; }
};
template <> struct sc_limits<int8_t> {
  static __device__ __forceinline__ int8_t lowest() { return -128; }
  static __device__ __forceinline__ int8_t highest() { return 127; }
};
template <> struct sc_limits<uint8_t> {
  static __device__ __forceinline__ uint8_t lowest() { return 0; }
  static __device__ __forceinline__ uint8_t highest() { return 255; }
};
template <> struct sc_limits<int16_t> {
  static __device__ __forceinline__ int16_t lowest() { return -32768; }
  static __device__ __forceinline__ int16_t highest() { return 32767; }
};
template <> struct sc_limits<uint16_t> {
  static __device__ __forceinline__ uint16_t lowest() { return 0; }
  static __device__ __forceinline__ uint16_t highest() { return 65535; }
};
template <> struct sc_limits<int32_t> {
  static __device__ __forceinline__ int32_t lowest() { return -2147483647 - 1; }
  static __device__ __forceinline__ int32_t highest() { return 2147483647; }
};
template <> struct sc_limits<uint32_t> {
  static __device__ __forceinline__ uint32_t lowest() { return 0; }
  static __device__ __forceinline__ uint32_t highest() { return 4294967295u; }
};
template <> struct sc_limits<int64_t> {
  static __device__ __forceinline__ int64_t lowest() { return INT64_MIN; }
  static __device__ __forceinline__ int64_t highest() { return 9223372036854775807LL; }
};
template <> struct sc_limits<uint64_t> {
  static __device__ __forceinline__ uint64_t lowest() { return 0; }
  static __device__ __forceinline__ uint64_t highest() { return 18446744073709551615ull; }
};

// V consecutive elements as one aligned load / store.
template <class S, int V> struct alignas(sizeof(S) * V) sc_vec {
  S v[V];
};
template <class E, int V>
static __device__ __forceinline__ void
sc_load_vec(const typename sc_elem<E>::S *p, typename sc_elem<E>::A *out) {
  typedef typename sc_elem<E>::S S;
  const sc_vec<S, V> t = *reinterpret_cast<const sc_vec<S, V> *>(p);
#pragma unroll
  for (int i = 0; i < V; ++i)
    out[i] = sc_elem<E>::load(t.v[i]);
}
template <class E, int V>
static __device__ __forceinline__ void
sc_store_vec(typename sc_elem<E>::S *p, const typename sc_elem<E>::A *in) {
  typedef typename sc_elem<E>::S S;
  sc_vec<S, V> t;
#pragma unroll
  for (int i = 0; i < V; ++i)
    t.v[i] = sc_elem<E>::store(in[i]);
  *reinterpret_cast<sc_vec<S, V> *>(p) = t;
}

struct sc_sum_op {
  template <class A> __device__ __forceinline__ A operator()(A a, A b) const {
    return a + b;
  }
};
// Maximum ignoring NaN (fmax), which is what std::max(max, v) gives in the
// CPU kernels as long as the running maximum starts at -inf.
struct sc_max_op {
  template <class A> __device__ __forceinline__ A operator()(A a, A b) const {
    return sc_fmax(a, b);
  }
};

// The reduction of v over W threads, in every one of them: aligned groups
// of W <= 32 lanes of a warp (every lane of the warp must call it), or the
// whole block (W = blockDim.x > 32; `part` has W / 32 slots). A block
// reduction synchronizes the block twice (part can be reused at once).
template <int W, class A, class F>
static __device__ __forceinline__ A sc_row_reduce(A v, F f, A *part) {
#pragma unroll
  for (int m = (W < 32 ? W : 32) / 2; m > 0; m /= 2)
    v = f(v, sc_shfl_xor(v, m));
  if (W > 32) {
    if ((threadIdx.x & 31) == 0)
      part[threadIdx.x >> 5] = v;
    __syncthreads();
    v = part[0];
#pragma unroll
    for (int i = 1; i < W / 32; ++i)
      v = f(v, part[i]);
    __syncthreads();
  }
  return v;
}

// Unsigned integers of 1, 2, 4, 8 and 16 bytes: elements moved by size.
template <int B> struct sc_word;
template <> struct sc_word<1> { typedef uint8_t T; };
template <> struct sc_word<2> { typedef uint16_t T; };
template <> struct sc_word<4> { typedef uint32_t T; };
template <> struct sc_word<8> { typedef uint64_t T; };
template <> struct sc_word<16> { typedef uint4 T; };
