/* The kernel dialect: the kernels (kernels/NAME.cl) are written once, in OpenCL C 1.2, using
 * only what this prelude maps to both compilers. It is put in front of every
 * kernel source at build time (OpenCL C compiler or NVRTC).
 *
 * Rules for kernel authors:
 *  - qualifiers __kernel __global __local __constant, and `restrict` via CO_RESTRICT;
 *  - get_global_id / get_local_id / get_group_id / get_local_size / get_num_groups
 *    / get_global_size, barrier(CLK_LOCAL_MEM_FENCE), the barrier outside
 *    run-time conditions and early loop exits (PoCL computed wrong results
 *    for one inside a branch that every work-item took: box_ring,
 *    2026-11-30); a condition on defines, folded away, is fine;
 *  - __local arrays declared inside the kernel; a pointer into one (a
 *    helper's argument) is declared CO_LOCAL_PTR T *p, never __local T *p;
 *  - local memory sized at launch (beyond CUDA's 48 KiB of static arrays):
 *    one parameter CO_LOCAL_ARG(T, name), the host passing CO_LOCAL(bytes),
 *    and CO_LOCAL_ARG_MEMORY(T, name); first in the kernel's body;
 *  - vector types float2/float4 only through CO_LOAD4 / CO_STORE4 (global
 *    memory), CO_LOAD4_LOCAL / CO_STORE4_LOCAL (local memory) and component
 *    access (.x .y .z .w); no vector arithmetic operators. The address must
 *    be 16-byte aligned (a float4 access on every compiler); uint4 likewise
 *    through CO_LOADU4 / CO_STOREU4 and CO_UINT4 (not in host C); a local
 *    array of them (uint4 a[N], 16-byte aligned) indexed as any array;
 *  - math: fma, fmin, fmax, sqrt, fabs, mad via fma; mul_hi on uint;
 *  - -DCO_FP_STRICT where a kernel must round exactly as host C does.
 * (Cache hints, evict-first and L2-only loads, measured no faster on the
 * H200 and were removed: docs/results/2026-12-01-cleanup.md.) */
#ifndef CO_DIALECT_H
#define CO_DIALECT_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define CO_OPENCL 1
#define CO_RESTRICT restrict
#define CO_INLINE inline
/* p[4i .. 4i+3] as one float4 access. Not vload4/vstore4: NVIDIA's OpenCL
 * compiles those to four scalar accesses (its write bandwidth measured 1.6
 * TB/s through vstore4 against 4.0 through CUDA's float4 stores). */
#define CO_LOAD4(p, i) (((const __global float4 *)(p))[(i)])
#define CO_STORE4(v, p, i) (((__global float4 *)(p))[(i)] = (v))
#define CO_LOAD4_LOCAL(p, i) (((const __local float4 *)(p))[(i)])
#define CO_STORE4_LOCAL(v, p, i) (((__local float4 *)(p))[(i)] = (v))
#define CO_FLOAT4(a, b, c, d) ((float4)((a), (b), (c), (d)))
#define CO_LOADU4(p, i) (((const __global uint4 *)(p))[(i)])
#define CO_STOREU4(v, p, i) (((__global uint4 *)(p))[(i)] = (v))
#define CO_UINT4(a, b, c, d) ((uint4)((a), (b), (c), (d)))
#define CO_LOCAL_PTR __local
#define CO_LOCAL_ARG(T, name) __local T *name
#define CO_LOCAL_ARG_MEMORY(T, name) (void)name
/* -DCO_FP_STRICT: no contraction of a*b+c into fma (OpenCL C allows it by
 * default), so the kernel rounds as host C compiled with -std=c11 does. The
 * CUDA backend passes --fmad=false for the same define. */
#ifdef CO_FP_STRICT
#pragma OPENCL FP_CONTRACT OFF
#endif

#elif defined(__CUDACC_RTC__) || defined(__CUDACC__)
/* NVRTC, with -default-device: functions and namespace-scope variables with
 * no execution space are __device__, so plain helper functions and
 * program-scope __constant tables need no annotation. */
#define CO_CUDA 1
#define __kernel extern "C" __global__
#define __global
#define __local __shared__
#define CO_LOCAL_PTR /* a generic pointer: __shared__ qualifies variables only */
/* The block's dynamic shared memory; the parameter receives its size. */
#define CO_LOCAL_ARG(T, name) const unsigned name##_bytes_
#define CO_LOCAL_ARG_MEMORY(T, name)                                                       \
    extern __shared__ __align__(16) unsigned char co_dynamic_local_[];                    \
    T *const name = (T *)co_dynamic_local_;                                                \
    (void)name##_bytes_
#define __constant const
#define __private
#define restrict __restrict__
#define CO_RESTRICT __restrict__
#define CO_INLINE __device__ __forceinline__
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
/* __syncthreads orders both shared and global memory within the block,
 * which covers both OpenCL fence flags. */
#define barrier(flags) __syncthreads()
#define mem_fence(flags) __threadfence_block()

/* OpenCL's scalar type names; ulong/long are 64-bit in OpenCL. */
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long long ulong;

__device__ __forceinline__ unsigned co_dim_(uint3 v, unsigned d) {
    return d == 0 ? v.x : (d == 1 ? v.y : v.z);
}
__device__ __forceinline__ unsigned co_dim3_(dim3 v, unsigned d) {
    return d == 0 ? v.x : (d == 1 ? v.y : v.z);
}
#define get_local_id(d) ((size_t)co_dim_(threadIdx, (d)))
#define get_group_id(d) ((size_t)co_dim_(blockIdx, (d)))
#define get_local_size(d) ((size_t)co_dim3_(blockDim, (d)))
#define get_num_groups(d) ((size_t)co_dim3_(gridDim, (d)))
#define get_global_id(d) (get_group_id(d) * get_local_size(d) + get_local_id(d))
#define get_global_size(d) (get_num_groups(d) * get_local_size(d))

/* OpenCL's vload4/vstore4 take an element offset in units of the vector.
 * CUDA's float4 accesses need 16-byte alignment (OpenCL's vload4 does not). */
#define CO_LOAD4(p, i) (*(const float4 *)((p) + 4 * (size_t)(i)))
#define CO_STORE4(v, p, i) (*(float4 *)((p) + 4 * (size_t)(i)) = (v))
#define CO_LOAD4_LOCAL CO_LOAD4
#define CO_STORE4_LOCAL CO_STORE4
#define CO_FLOAT4(a, b, c, d) make_float4((a), (b), (c), (d))
#define CO_LOADU4(p, i) (*(const uint4 *)((p) + 4 * (size_t)(i)))
#define CO_STOREU4(v, p, i) (*(uint4 *)((p) + 4 * (size_t)(i)) = (v))
#define CO_UINT4(a, b, c, d) make_uint4((a), (b), (c), (d))

/* OpenCL built-ins that CUDA lacks or spells differently (float versions;
 * fma, fmin, fmax, sqrt, fabs, min, max have float overloads in CUDA). */
__device__ __forceinline__ float mad(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ float clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
__device__ __forceinline__ int clamp(int x, int lo, int hi) { return min(max(x, lo), hi); }
__device__ __forceinline__ uint clamp(uint x, uint lo, uint hi) { return min(max(x, lo), hi); }
__device__ __forceinline__ float mix(float a, float b, float t) { return fmaf(t, b - a, a); }
__device__ __forceinline__ float native_sqrt(float x) { return __fsqrt_rn(x); }
__device__ __forceinline__ float native_rsqrt(float x) { return rsqrtf(x); }
__device__ __forceinline__ float native_recip(float x) { return __frcp_rn(x); }
__device__ __forceinline__ float native_divide(float a, float b) { return __fdividef(a, b); }
__device__ __forceinline__ float native_exp(float x) { return __expf(x); }
__device__ __forceinline__ float native_log(float x) { return __logf(x); }
__device__ __forceinline__ float native_sin(float x) { return __sinf(x); }
__device__ __forceinline__ float native_cos(float x) { return __cosf(x); }
__device__ __forceinline__ float native_powr(float x, float y) { return __powf(x, y); }
__device__ __forceinline__ uint mul_hi(uint a, uint b) { return __umulhi(a, b); }
__device__ __forceinline__ float as_float(uint x) { return __uint_as_float(x); }
__device__ __forceinline__ float as_float(int x) { return __int_as_float(x); }
__device__ __forceinline__ uint as_uint(float x) { return __float_as_uint(x); }
__device__ __forceinline__ int as_int(float x) { return __float_as_int(x); }

/* OpenCL 1.2 32-bit atomics on global or local memory. OpenCL kernels pass
 * volatile pointers; CUDA's atomics take plain ones. */
#define CO_ATOMIC_(name, cuda, T)                                                      \
    __device__ __forceinline__ T name(volatile T *p, T v) { return cuda((T *)p, v); }
#define CO_ATOMICS_(T)                                                                 \
    CO_ATOMIC_(atomic_add, atomicAdd, T)                                               \
    CO_ATOMIC_(atomic_sub, atomicSub, T)                                               \
    CO_ATOMIC_(atomic_xchg, atomicExch, T)                                             \
    CO_ATOMIC_(atomic_min, atomicMin, T)                                               \
    CO_ATOMIC_(atomic_max, atomicMax, T)                                               \
    CO_ATOMIC_(atomic_and, atomicAnd, T)                                               \
    CO_ATOMIC_(atomic_or, atomicOr, T)                                                 \
    CO_ATOMIC_(atomic_xor, atomicXor, T)                                               \
    __device__ __forceinline__ T atomic_inc(volatile T *p) { return atomicAdd((T *)p, (T)1); } \
    __device__ __forceinline__ T atomic_dec(volatile T *p) { return atomicSub((T *)p, (T)1); } \
    __device__ __forceinline__ T atomic_cmpxchg(volatile T *p, T cmp, T v) {           \
        return atomicCAS((T *)p, cmp, v);                                              \
    }
CO_ATOMICS_(int)
CO_ATOMICS_(uint)
#undef CO_ATOMICS_
#undef CO_ATOMIC_

#elif defined(CO_HOST_C)
/* Host C: a kernel file #included into a C file of the library (with
 * kernels/ on the include path and CO_HOST_C defined) gives the c and omp
 * variants the very code the devices run, one work-item per call: the
 * caller sets co_host_id[] before each call. Only kernels without __local
 * memory or barriers can run so; get_local_id and friends are left
 * undefined to make a misuse a compile error. tgmath.h gives fma, sqrt, ...
 * their float versions on float arguments, as in OpenCL C. */
#include <stddef.h>
#include <tgmath.h>
#define CO_HOST 1
#define __kernel static
#define __global
#define __constant const
#define __private
#define CO_RESTRICT restrict
#define CO_INLINE static inline
#define CO_LOCAL_PTR
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef struct { float x, y; } float2;
typedef struct { float x, y, z, w; } float4;
extern _Thread_local size_t co_host_id[3];
#define get_global_id(d) (co_host_id[(d)])
#define CO_FLOAT4(a, b, c, d) ((float4){(a), (b), (c), (d)})
#define CO_LOAD4(p, i) CO_FLOAT4((p)[4 * (i)], (p)[4 * (i) + 1], (p)[4 * (i) + 2], (p)[4 * (i) + 3])
#define CO_STORE4(v, p, i) \
    ((p)[4 * (i)] = (v).x, (p)[4 * (i) + 1] = (v).y, (p)[4 * (i) + 2] = (v).z, (p)[4 * (i) + 3] = (v).w)
#define CO_LOAD4_LOCAL CO_LOAD4
#define CO_STORE4_LOCAL CO_STORE4
static inline float mad(float a, float b, float c) { return fmaf(a, b, c); }
static inline float clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
static inline float mix(float a, float b, float t) { return fmaf(t, b - a, a); }
static inline float native_sqrt(float x) { return sqrtf(x); }
static inline float native_rsqrt(float x) { return 1.0f / sqrtf(x); }
static inline float native_recip(float x) { return 1.0f / x; }
static inline float native_divide(float a, float b) { return a / b; }

#else
#error "kernels/dialect.h: compile with an OpenCL C compiler, NVRTC, or as C with CO_HOST_C"
#endif

#endif
