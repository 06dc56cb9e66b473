/* Micro-kernels for `coalesce peak` (src/core/peak.c): the device's
 * streaming bandwidth, FMA throughput and launch latency.
 *
 * Bandwidth: loops over float4 elements (grid-stride on GPUs, a block per
 * work-item on CPUs), launched with a few work-groups per compute unit, so
 * every unit streams whole cache lines with many loads in flight; four
 * independent float4 per trip keep the memory system busy where occupancy
 * alone would not.
 * FMA: eight independent accumulators per work-item (the FMA pipeline's
 * latency is hidden within one work-item too), 64 FMAs per loop trip.
 * PEAK_FP64 makes the FMA kernel float64 (built only where it compiles). */

#ifdef PEAK_FP64
#ifdef CO_OPENCL
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef double real;
#else
typedef float real;
#endif

/* The float4 elements a work-item streams: [i, end) in steps of step.
 * GPUs interleave (neighbouring work-items, neighbouring addresses: each
 * load of a warp is one coalesced transaction); CPUs (PEAK_BLOCKED) give
 * each work-item its own contiguous block, which caches and prefetchers
 * stream.
 *
 * Each kernel streams its buffer `reps` times (the cache levels: a buffer
 * that fits a cache, passed over often enough to time well). On GPUs every
 * pass is rotated by `rot` elements, so that a work-group reads what
 * another one read before: the passes come from the shared L2, never from
 * one compute unit's own L1. On CPUs `rot` is 0: each core keeps its own
 * block, and its own L1/L2 are the caches being measured. */
#ifdef PEAK_BLOCKED
#define PEAK_RANGE(n4)                                                                     \
    const size_t per_ = ((size_t)(n4) + get_global_size(0) - 1) / get_global_size(0);      \
    const size_t step = 1, stop_ = (get_global_id(0) + 1) * per_;                           \
    const size_t end = stop_ < (size_t)(n4) ? stop_ : (size_t)(n4);                         \
    size_t i = get_global_id(0) * per_;
#else
#define PEAK_RANGE(n4)                                                                     \
    const size_t step = get_global_size(0), end = (n4);                                     \
    size_t i = get_global_id(0);
#endif
/* Rotated: on CPUs too, where rot is 0, since a compiler that saw the same
 * addresses every pass could drop all but one (PoCL did: a 16 MiB "copy"
 * at 210 GB/s on two cores). */
#define PEAK_AT(k) ((k) + off_ < (size_t)n4 ? (k) + off_ : (k) + off_ - (size_t)n4)
/* The passes; off_ is the rotation of the current one. */
#define PEAK_PASSES for (size_t r_ = 0, off_ = 0; r_ < reps; r_++, off_ = off_ + rot < n4 ? off_ + rot : off_ + rot - n4)

/* dst = src, n4 float4 elements, reps times. */
__kernel void peak_copy(__global const float *CO_RESTRICT src, __global float *CO_RESTRICT dst,
                        const uint n4, const uint reps, const uint rot) {
    PEAK_PASSES {
        PEAK_RANGE(n4)
        for (; i + 3 * step < end; i += 4 * step) {
            const size_t i0 = PEAK_AT(i), i1 = PEAK_AT(i + step);
            const size_t i2 = PEAK_AT(i + 2 * step), i3 = PEAK_AT(i + 3 * step);
            const float4 a = CO_LOAD4(src, i0), b = CO_LOAD4(src, i1);
            const float4 c = CO_LOAD4(src, i2), d = CO_LOAD4(src, i3);
            CO_STORE4(a, dst, i0);
            CO_STORE4(b, dst, i1);
            CO_STORE4(c, dst, i2);
            CO_STORE4(d, dst, i3);
        }
        for (; i < end; i += step) CO_STORE4(CO_LOAD4(src, PEAK_AT(i)), dst, PEAK_AT(i));
    }
}

CO_INLINE float sum4(const float4 v) { return (v.x + v.y) + (v.z + v.w); }

/* Reads n4 float4 elements, reps times. The sum is stored only if it
 * equals `never` (which the caller makes impossible), so the loads cannot
 * be dropped. */
__kernel void peak_read(__global const float *CO_RESTRICT src, __global float *CO_RESTRICT out,
                        const uint n4, const float never, const uint reps, const uint rot) {
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    PEAK_PASSES {
        PEAK_RANGE(n4)
        for (; i + 3 * step < end; i += 4 * step) {
            s0 += sum4(CO_LOAD4(src, PEAK_AT(i)));
            s1 += sum4(CO_LOAD4(src, PEAK_AT(i + step)));
            s2 += sum4(CO_LOAD4(src, PEAK_AT(i + 2 * step)));
            s3 += sum4(CO_LOAD4(src, PEAK_AT(i + 3 * step)));
        }
        for (; i < end; i += step) s0 += sum4(CO_LOAD4(src, PEAK_AT(i)));
    }
    const float s = (s0 + s1) + (s2 + s3);
    if (s == never) out[0] = s;
}

/* dst = value + pass, n4 float4 elements, reps times: every pass stores
 * other values, so none of them is dead. */
__kernel void peak_write(__global float *CO_RESTRICT dst, const uint n4, const float value,
                         const uint reps, const uint rot) {
    PEAK_PASSES {
        PEAK_RANGE(n4)
        const float x = value + (float)r_;
        const float4 v = CO_FLOAT4(x, x, x, x);
        for (; i + 3 * step < end; i += 4 * step) {
            CO_STORE4(v, dst, PEAK_AT(i));
            CO_STORE4(v, dst, PEAK_AT(i + step));
            CO_STORE4(v, dst, PEAK_AT(i + 2 * step));
            CO_STORE4(v, dst, PEAK_AT(i + 3 * step));
        }
        for (; i < end; i += step) CO_STORE4(v, dst, PEAK_AT(i));
    }
}

/* PEAK_VEC (OpenCL CPU devices): the accumulators are 256-bit vectors,
 * float8 or double4. A CPU OpenCL compiler (PoCL) does not vectorise this
 * loop across work-items, so without OpenCL's own vectors the SIMD lanes
 * sit idle and the "ceiling" would be a scalar one. */
#if defined(CO_OPENCL) && defined(PEAK_VEC) && defined(PEAK_FP64)
typedef double4 acc;
#define PEAK_HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#elif defined(CO_OPENCL) && defined(PEAK_VEC)
typedef float8 acc;
#define PEAK_HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#else
typedef real acc;
#define PEAK_HSUM(v) (v)
#endif

/* 8 independent FMAs: r = r * a + b on every accumulator. */
#define PEAK_FMA8                                                                          \
    r0 = fma(r0, a, b); r1 = fma(r1, a, b); r2 = fma(r2, a, b); r3 = fma(r3, a, b);         \
    r4 = fma(r4, a, b); r5 = fma(r5, a, b); r6 = fma(r6, a, b); r7 = fma(r7, a, b);

/* iters trips of 64 FMAs per work-item; one result per work-item, so the
 * work is observable. With |a| < 1 the values stay finite. */
__kernel void peak_fma(__global real *CO_RESTRICT out, const int iters, const float fa,
                       const float fb) {
    const acc a = (acc)((real)fa), b = (acc)((real)fb);
    const acc x = (acc)((real)(get_global_id(0) & 1023) * (real)0.0009765625f);
    acc r0 = x, r1 = x + (real)0.125f, r2 = x + (real)0.25f, r3 = x + (real)0.375f;
    acc r4 = x + (real)0.5f, r5 = x + (real)0.625f, r6 = x + (real)0.75f, r7 = x + (real)0.875f;
    for (int i = 0; i < iters; i++) {
        PEAK_FMA8 PEAK_FMA8 PEAK_FMA8 PEAK_FMA8
        PEAK_FMA8 PEAK_FMA8 PEAK_FMA8 PEAK_FMA8
    }
    const acc sum = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
    out[get_global_id(0)] = PEAK_HSUM(sum);
}

/* Nothing: the cost of a launch and the wait for it. */
__kernel void peak_empty(__global float *out) {
    if (get_global_id(0) == 1) out[0] = 0.0f; /* launched with one work-item: never */
}
